/**
 * For tests that a secret reached no file the run wrote: every regular file of a run folder
 * (events, logs, artifacts, reports, the run's home and scratch folders), read as bytes and
 * searched as text.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";

/** Every regular file under `dir`, links not followed, as paths relative to it. */
export async function runFolderFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  const pending = [""];
  while (pending.length > 0) {
    const relative = pending.pop() as string;
    for await (const entry of Deno.readDir(nodePath.join(dir, relative))) {
      const path = nodePath.join(relative, entry.name);
      if (entry.isDirectory) pending.push(path);
      else if (entry.isFile) files.push(path);
    }
  }
  return files.sort();
}

/**
 * Asserts that no file of the run folder `dir` holds any of `fragments`; returns the files
 * searched (so a test can also check that the files it expects were there).
 */
export async function assertRunFolderClean(
  dir: string,
  fragments: readonly string[],
): Promise<string[]> {
  const files = await runFolderFiles(dir);
  const decoder = new TextDecoder();
  for (const file of files) {
    const text = decoder.decode(await Deno.readFile(nodePath.join(dir, file)));
    for (const fragment of fragments) {
      assert.ok(!text.includes(fragment), `"${file}" of the run folder holds "${fragment}"`);
    }
  }
  return files;
}
