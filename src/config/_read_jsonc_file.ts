/**
 * Reads and parses a JSONC file, telling a missing file from a syntax error. Private to the config
 * folder.
 *
 * @module
 */

import { parseJsonc } from "./_parse_jsonc.ts";

/** The parsed value, or why there is none (`reason` is ready to follow a colon in a message). */
export type ReadJsoncResult =
  | { ok: true; value: unknown }
  | { ok: false; stage: "read" | "syntax"; reason: string };

/**
 * Reads `path` as UTF-8 and parses it as JSONC.
 *
 * @param path Absolute path.
 * @returns `stage: "read"` when the file is missing, a directory or unreadable; `stage: "syntax"`
 *   with `line L, column C: <reason>` when it does not parse.
 */
export async function readJsoncFile(path: string): Promise<ReadJsoncResult> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error: unknown) {
    return { ok: false, stage: "read", reason: readFailure(error) };
  }
  const parsed = parseJsonc(text);
  if (parsed.ok) return parsed;
  return {
    ok: false,
    stage: "syntax",
    reason: `line ${parsed.line}, column ${parsed.column}: ${parsed.reason}`,
  };
}

function readFailure(error: unknown): string {
  if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
    return "file does not exist";
  }
  if (error instanceof Deno.errors.IsADirectory) return "path is a directory, not a file";
  if (error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.NotCapable) {
    return "permission denied";
  }
  return `file cannot be read (${error instanceof Error ? error.message : String(error)})`;
}
