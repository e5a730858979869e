/**
 * `permissions`: a permissions file read and validated, or the inline rules, ids filled.
 *
 * @module
 */

import type { LoadedConfig } from "./loaded_config.ts";
import { loadPermissionsFile } from "./load_permissions_file.ts";
import { type LoadedPermissions, withRuleIds } from "./permissions_schema.ts";
import { resolveConfigPath, type ResolveContext } from "./_resolve_context.ts";

/**
 * Resolves `permissions` (default: no rules) and the absolute path of its file (`null` when the
 * rules are inline or absent). `configPathAsGiven` is quoted in messages.
 *
 * @throws {ConfigError} `permissions_not_found`, `permissions_syntax`, `permissions_invalid`.
 */
export async function resolvePermissions(
  context: ResolveContext,
  configPathAsGiven: string,
): Promise<Pick<LoadedConfig, "permissions" | "permissionsPath">> {
  const written = context.file.permissions;
  if (typeof written === "string") {
    const permissions = await loadPermissionsFile(written, "permissions", configPathAsGiven, {
      home: context.home,
    });
    return { permissions, permissionsPath: resolveConfigPath(context, written, "permissions") };
  }
  const permissions: LoadedPermissions = written === undefined
    ? { rules: [], mode: "default", smart_max_risk: 0 }
    : withRuleIds(written);
  return { permissions, permissionsPath: null };
}
