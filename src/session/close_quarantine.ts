/**
 * The last protected-path check of a run, when it closes: every `.git` that appeared in the write
 * roots since the command watch started (and that no check after a call caught: a process that
 * outlived its call under isolation none, a late writer) is moved to `runs/<id>/quarantine/` and
 * recorded in `errors.jsonl` (`source: "sandbox"`).
 *
 * @module
 */

import * as nodePath from "node:path";
import type { AuditRecorder } from "../audit/mod.ts";
import { newRepositoriesAtClose, quarantineCreated, runViewsFolder } from "../exec/mod.ts";
import type { PathGuard } from "../sandbox/mod.ts";
import type { ExecContext } from "../tools/mod.ts";

/**
 * Runs the check (one walk of the write roots) when commands ran in this run.
 *
 * @returns how many paths were moved (or removed)
 */
export async function quarantineAtClose(
  guard: PathGuard,
  exec: ExecContext | null,
  recorder: AuditRecorder,
): Promise<number> {
  if (exec === null) return 0;
  const found = newRepositoriesAtClose({
    writeRoots: guard.allWriteRoots,
    readRoots: [],
    exclusions: guard.walkExclusions,
    sensitiveMatch: () => null,
    exempt: [...guard.writableExceptions, exec.home, exec.tmp_dir],
    sentinelFolder: runViewsFolder(exec.run_dir),
    allowNestedRepositories: exec.allow_nested_repositories,
  });
  if (!Array.isArray(found)) {
    await recorder.error({
      source: "sandbox",
      message:
        `Cannot check the write roots for new repositories at the run's end: ${found.reason}`,
    });
    return 0;
  }
  const moved = quarantineCreated(found, nodePath.join(exec.run_dir, "quarantine"));
  for (const entry of moved) {
    await recorder.error({
      source: "sandbox",
      rule: "sandbox:protected-path",
      message: `Moved "${guard.display(entry.path)}" out of the workspace at the run's end: a ` +
        `repository created during the run${
          entry.moved_to === null ? " (removed)" : ` (now in ${entry.moved_to})`
        }`,
      quarantined: entry,
    });
  }
  return moved.length;
}
