/**
 * The tool Worker's one {@linkcode ProtectedPathWatch} over the run's write roots, opened by the
 * first command and kept for the Worker's life (a Worker started again after an abort scans
 * again).
 *
 * @module
 */

import * as nodePath from "node:path";
import { ProtectedPathWatch, quarantineCreated, runViewsFolder } from "../../exec/mod.ts";
import { failure, type ToolOutcome } from "../../result/mod.ts";
import type { PathGuard } from "../../sandbox/mod.ts";
import type { ExecContext, ToolContext } from "../../tools/mod.ts";

const watches = new WeakMap<ExecContext, ProtectedPathWatch>();

/**
 * The watch of this Worker's run, opened (one scan of the roots) on first use.
 *
 * @returns the watch, or why the roots cannot be scanned
 */
export function runWatch(
  exec: ExecContext,
  guard: PathGuard,
): ProtectedPathWatch | { reason: string } {
  const open = watches.get(exec);
  if (open !== undefined) return open;
  const watch = ProtectedPathWatch.open({
    writeRoots: guard.allWriteRoots,
    readRoots: guard.readRoots,
    exclusions: guard.walkExclusions,
    sensitiveMatch: (path) => guard.sensitiveMatch(path),
    exempt: [...guard.writableExceptions, exec.home, exec.tmp_dir],
    sentinelFolder: runViewsFolder(exec.run_dir),
    allowNestedRepositories: exec.allow_nested_repositories,
  });
  if (watch instanceof ProtectedPathWatch) watches.set(exec, watch);
  return watch;
}

/**
 * After a command (any process of the run): moves every protected path it created to
 * `runs/<id>/quarantine/` — the missing entries its profile named (`watched`) and every new `.git`
 * the watch found at any depth — and describes the violation.
 *
 * @param line The command line as shown to people.
 * @param where The command's folder as shown to people.
 * @returns a `sandbox_violation` outcome naming what was moved (or removed), or null when nothing
 *   was created; also `sandbox_violation` when the write roots could not be checked (fail closed)
 */
export async function quarantinePlanted(
  line: string,
  where: string,
  watched: readonly string[],
  context: ToolContext,
  watch: ProtectedPathWatch,
): Promise<ToolOutcome | null> {
  const exec = context.exec;
  if (exec === undefined) return null;
  let created: string[];
  try {
    created = await watch.examine();
  } catch (error: unknown) {
    return failure(
      "sandbox_violation",
      `Cannot check what "${line}" in "${where}" created: ${
        error instanceof Error ? error.message : String(error)
      }`,
      { rule: "sandbox:protected-path", layer: "sandbox" },
    );
  }
  const planted = quarantineCreated(
    [...new Set([...watched, ...created])],
    nodePath.join(exec.run_dir, "quarantine"),
  );
  if (planted.length === 0) return null;
  return failure(
    "sandbox_violation",
    `Command "${line}" in "${where}" created protected paths, which were moved out of the ` +
      `workspace: ${
        planted.map((entry) =>
          `"${context.guard.display(entry.path)}"${
            entry.moved_to === null ? " (removed)" : ` (now in ${entry.moved_to})`
          }`
        ).join(", ")
      }; a repository's .git (at any depth, unless "sandbox.allow_nested_repositories" keeps ` +
      `those below the top), its config, hooks, commondir and alternates are never written by ` +
      `commands`,
    { rule: "sandbox:protected-path", layer: "sandbox", quarantined: planted },
  );
}
