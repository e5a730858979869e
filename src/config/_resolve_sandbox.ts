/**
 * `sandbox`: read roots (each existing), write roots (each inside the workspace), defaults filled.
 *
 * @module
 */

import { DEFAULT_SANDBOX } from "./defaults.ts";
import type { LoadedConfig } from "./loaded_config.ts";
import { isPathInside } from "./_paths.ts";
import { requireKind, resolveConfigPath, type ResolveContext } from "./_resolve_context.ts";

/** Resolves `sandbox`; problems go to `context.issues`. */
export async function resolveSandbox(context: ResolveContext): Promise<LoadedConfig["sandbox"]> {
  const sandbox = context.file.sandbox;
  const readRoots: string[] = [];
  for (const [index, written] of (sandbox?.read_roots ?? []).entries()) {
    const key = `sandbox.read_roots[${index}]`;
    const root = resolveConfigPath(context, written, key);
    await requireKind(context.issues, key, root, "any");
    readRoots.push(root);
  }

  const writeRoots: string[] = [];
  for (const [index, written] of (sandbox?.write_roots ?? []).entries()) {
    const key = `sandbox.write_roots[${index}]`;
    const root = resolveConfigPath(context, written, key);
    if (!isPathInside(root, context.workspace)) {
      context.issues.push({
        key,
        text: `key "${key}" must be a path inside the workspace: "${root}" is not inside ` +
          `"${context.workspace}"`,
      });
    }
    writeRoots.push(root);
  }

  return {
    command_isolation: sandbox?.command_isolation ?? DEFAULT_SANDBOX.command_isolation,
    command_network: sandbox?.command_network ?? DEFAULT_SANDBOX.command_network,
    allow_nested_repositories: sandbox?.allow_nested_repositories ??
      DEFAULT_SANDBOX.allow_nested_repositories,
    read_roots: readRoots,
    write_roots: writeRoots,
    sensitive_paths: [...(sandbox?.sensitive_paths ?? [])],
    hide_sensitive_in_listings: sandbox?.hide_sensitive_in_listings ??
      DEFAULT_SANDBOX.hide_sensitive_in_listings,
  };
}
