/**
 * The last protected-path check of a domain, when it closes: one more walk of its write roots,
 * compared with the `.git` entries its `ProtectedPathWatch` found at the start.
 *
 * @module
 */

import * as nodePath from "node:path";
import {
  BASELINE_FILE,
  isNewRepository,
  type ProtectedPathWatchOptions,
} from "./protected_path_watch.ts";
import { scanTree } from "./protected_tree.ts";

/**
 * When the run closes: walks the write roots once more and compares with the `.git` entries the
 * run's watch found at its start (written by `ProtectedPathWatch.open`), catching what a
 * process that outlived its call (or any late writer) created after the last check.
 *
 * @returns the new `.git` entries to quarantine, sorted; empty when no watch was opened (no
 *   process ran); or why the roots cannot be scanned
 */
export function newRepositoriesAtClose(
  options: Omit<ProtectedPathWatchOptions, "sentinelTimeoutMs">,
): string[] | { reason: string } {
  let baseline: Set<string>;
  try {
    const text = Deno.readTextFileSync(nodePath.join(options.sentinelFolder, BASELINE_FILE));
    baseline = new Set(JSON.parse(text) as string[]);
  } catch {
    return [];
  }
  const scan = scanTree({ ...options, readRoots: [] });
  if (!scan.ok) return { reason: scan.reason };
  return [...scan.facts.repositories.keys()]
    .filter((path) => !baseline.has(path) && isNewRepository(path, options))
    .sort();
}
