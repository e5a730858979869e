/**
 * Loads a permissions.json file named by a config file.
 *
 * @module
 */

import { dirname, resolve } from "node:path";
import { ConfigError } from "./config_error.ts";
import { formatIssues } from "./format_issues.ts";
import { homeFromEnvironment } from "./_home.ts";
import { resolveWrittenPath } from "./_paths.ts";
import { readJsoncFile } from "./_read_jsonc_file.ts";
import {
  type LoadedPermissions,
  PermissionsFileSchema,
  withRuleIds,
} from "./permissions_schema.ts";

/** Options of {@linkcode loadPermissionsFile}. */
export interface LoadPermissionsFileOptions {
  /**
   * Reads the home folder for `~/` paths; called only when `path` starts with `~`.
   * @default reads `$HOME` (`undefined` when unset or not permitted)
   */
  home?: () => string | undefined;
}

/**
 * Loads and validates a permissions file (JSONC: comments and trailing commas allowed), filling
 * rule ids (`config:<index>` when absent).
 *
 * @param path The path as written in the config file: relative paths resolve against the config
 *   file's folder, `~/` expands to `$HOME`. Messages quote it as written.
 * @param fromKey The config key that named the file, e.g. `"permissions"`.
 * @param configPath The config file's path (absolute, or relative to the current directory), as the
 *   user gave it; messages quote it as given.
 * @returns The rules, ids filled, in file order.
 * @throws {ConfigError} `permissions_not_found` (file missing or unreadable; `key` is `fromKey`),
 *   `permissions_syntax` (with line and column; `key` null), `permissions_invalid` (`key` names the
 *   first bad key inside the permissions file; `issues` lists them all). `file` is the absolute path
 *   of the permissions file.
 * @example
 * ```ts ignore
 * import { loadPermissionsFile } from "./load_permissions_file.ts";
 * const { rules } = await loadPermissionsFile("permissions.json", "permissions", "agent.jsonc");
 * ```
 */
export async function loadPermissionsFile(
  path: string,
  fromKey: string,
  configPath: string,
  options: LoadPermissionsFileOptions = {},
): Promise<LoadedPermissions> {
  const configDir = dirname(resolve(configPath));
  const file = resolveWrittenPath(path, configDir, options.home ?? homeFromEnvironment);
  const origin = `Cannot load permissions "${path}" (from key "${fromKey}" of "${configPath}")`;
  if (file === null) {
    throw new ConfigError({
      code: "permissions_not_found",
      file: resolve(configDir, path),
      key: fromKey,
      message: `${origin}: cannot expand "~": HOME is not set`,
    });
  }
  const read = await readJsoncFile(file);
  if (!read.ok) {
    if (read.stage === "read") {
      throw new ConfigError({
        code: "permissions_not_found",
        file,
        key: fromKey,
        message: `${origin}: ${read.reason}`,
      });
    }
    throw new ConfigError({
      code: "permissions_syntax",
      file,
      key: null,
      message: `Cannot load permissions "${path}": ${read.reason}`,
    });
  }
  const parsed = PermissionsFileSchema.safeParse(read.value, { reportInput: true });
  if (!parsed.success) {
    const issues = formatIssues(parsed.error.issues, read.value);
    const first = issues[0];
    throw new ConfigError({
      code: "permissions_invalid",
      file,
      key: first?.key ?? null,
      message: `Cannot load permissions "${path}": ${first?.text ?? "the file is not valid"}`,
      issues: issues.map((issue) => issue.text),
    });
  }
  return withRuleIds(parsed.data);
}
