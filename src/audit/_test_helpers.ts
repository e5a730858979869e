/**
 * Helpers shared by this folder's tests. Private: not re-exported.
 *
 * @module
 */

/** Runs `body` with a fresh temporary folder (real path), removed afterwards. */
export async function withTempDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "kagent_audit_test_" }));
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Reads a JSONL file and parses every line; throws when a line is not JSON. */
export async function readJsonl(path: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(path);
  if (text === "") return [];
  if (!text.endsWith("\n")) throw new Error(`Cannot read "${path}": the last line is incomplete`);
  return text.slice(0, -1).split("\n").map((line) => JSON.parse(line));
}
