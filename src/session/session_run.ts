/**
 * The run folder a session works in, as the session's parts need it. A session without a run
 * (`kagent-run tools`, `kagent-run policy`) has none: `null`, never a made-up path.
 *
 * @module
 */

import * as nodePath from "node:path";
import type { RunFolder } from "../audit/mod.ts";

/** The places of a run folder the session's parts read (absolute paths). */
export interface SessionRun {
  /** `runs/<id>/`. */
  dir: string;
  /** `runs/<id>/workspace/`: a write root of the run. */
  workspace: string;
  /** `runs/<id>/deliverables/`: a write root of the run. */
  deliverables: string;
  /** `runs/<id>/artifacts/`: full outputs, written by the Worker's command tools. */
  artifacts: string;
}

/**
 * The session places of a run folder.
 *
 * @example
 * ```ts ignore
 * const run = sessionRun(await RunFolder.create("/tmp/runs"));
 * ```
 */
export function sessionRun(folder: RunFolder): SessionRun {
  return {
    dir: nodePath.dirname(folder.paths.artifacts),
    workspace: folder.paths.workspace,
    deliverables: folder.paths.deliverables,
    artifacts: folder.paths.artifacts,
  };
}
