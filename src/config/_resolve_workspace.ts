/**
 * `workspace` (or `--workspace`) and `runs_dir`: the two top-level folders.
 *
 * @module
 */

import { resolve } from "node:path";
import { DEFAULT_RUNS_DIR } from "./defaults.ts";
import {
  describeMismatch,
  requireKind,
  resolveConfigPath,
  type ResolveContext,
} from "./_resolve_context.ts";

/**
 * Resolves the workspace: `--workspace` (against the current directory) over the file's key
 * (against the config file's folder), else the config file's folder. It must be an existing
 * directory; problems go to `context.issues`.
 */
export async function resolveWorkspace(
  context: Omit<ResolveContext, "workspace">,
  override: string | undefined,
): Promise<string> {
  if (override !== undefined) {
    const workspace = resolveConfigPath(context, override, "workspace", resolve("."));
    const problem = await describeMismatch(workspace, "directory");
    if (problem !== null) {
      context.issues.push({
        key: "workspace",
        text: `--workspace "${override}" must be an existing directory: ${problem}`,
      });
    }
    return workspace;
  }
  if (context.file.workspace === undefined) return context.configDir;
  const workspace = resolveConfigPath(context, context.file.workspace, "workspace");
  await requireKind(context.issues, "workspace", workspace, "directory");
  return workspace;
}

/**
 * Resolves `runs_dir`: `--runs-dir` (against the current directory) over the file's key (against
 * the config file's folder), default {@linkcode DEFAULT_RUNS_DIR} beside the config file.
 */
export function resolveRunsDir(
  context: Omit<ResolveContext, "workspace">,
  override: string | undefined,
): string {
  if (override !== undefined) return resolveConfigPath(context, override, "runs_dir", resolve("."));
  return resolveConfigPath(context, context.file.runs_dir ?? DEFAULT_RUNS_DIR, "runs_dir");
}
