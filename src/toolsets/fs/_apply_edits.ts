/**
 * Exact-text edits for `fs.edit_file`: each `old` must occur once (or `replace_all`), applied in
 * order, line endings kept. Private to the folder.
 *
 * @module
 */

import { failure, type ToolOutcome } from "../../result/mod.ts";
import { countOccurrences, lineEnding, lineOfIndex, toCrlf } from "./_text.ts";

/** One replacement: `old` is the exact current text, `new` replaces it. */
export interface TextEdit {
  old: string;
  new: string;
}

/** The edited text and how many replacements were made, or why an edit failed. */
export type EditsResult =
  | { ok: true; text: string; replacements: number }
  | { ok: false; outcome: ToolOutcome };

/** Most line numbers of matches reported by an `ambiguous_edit`. */
const MAX_REPORTED_MATCHES = 5;

/**
 * Applies `edits` in order to `text`. In a CRLF file, line feeds in `old` and `new` are read as
 * CRLF, so the file keeps its line endings.
 *
 * Failures: `invalid_arguments` (an empty `old`), `text_not_found` (details `edit_index`,
 * `closest_line` when the first line of `old` appears somewhere), `ambiguous_edit` (details
 * `edit_index`, `count`, `lines`).
 */
export function applyEdits(
  text: string,
  edits: readonly TextEdit[],
  replaceAll: boolean,
  display: string,
): EditsResult {
  const crlf = lineEnding(text) === "crlf";
  let current = text;
  let replacements = 0;
  for (const [index, edit] of edits.entries()) {
    const label = `edits[${index}].old`;
    if (edit.old.length === 0) {
      return refuse(
        "invalid_arguments",
        `Cannot edit file "${display}": ${label} is empty; give the exact text to replace`,
        { path: display, edit_index: index },
      );
    }
    const old = crlf ? toCrlf(edit.old) : edit.old;
    const replacement = crlf ? toCrlf(edit.new) : edit.new;
    const count = countOccurrences(current, old);
    if (count === 0) {
      const closestLine = closestLineHint(current, edit.old);
      const hint = closestLine === null
        ? ""
        : `; its first line appears at line ${closestLine}, check the lines after it and whitespace`;
      return refuse(
        "text_not_found",
        `Cannot edit file "${display}": ${label} was not found${hint}`,
        {
          path: display,
          edit_index: index,
          closest_line: closestLine,
        },
      );
    }
    if (count > 1 && !replaceAll) {
      const lines = matchLines(current, old);
      return refuse(
        "ambiguous_edit",
        `Cannot edit file "${display}": ${label} occurs ${count} times (lines ${lines.join(", ")}` +
          `${
            count > lines.length ? ", …" : ""
          }); add surrounding lines to make it unique or pass ` +
          `"replace_all": true`,
        { path: display, edit_index: index, count, lines },
      );
    }
    if (replaceAll) {
      current = current.split(old).join(replacement);
      replacements += count;
    } else {
      const at = current.indexOf(old);
      current = current.slice(0, at) + replacement + current.slice(at + old.length);
      replacements += 1;
    }
  }
  return { ok: true, text: current, replacements };
}

function refuse(
  type: "invalid_arguments" | "text_not_found" | "ambiguous_edit",
  message: string,
  details: Record<string, unknown>,
): EditsResult {
  return { ok: false, outcome: failure(type, message, details) };
}

/** Line numbers of the first matches of `needle`. */
function matchLines(text: string, needle: string): number[] {
  const lines: number[] = [];
  for (
    let index = text.indexOf(needle);
    index !== -1 && lines.length < MAX_REPORTED_MATCHES;
    index = text.indexOf(needle, index + needle.length)
  ) {
    lines.push(lineOfIndex(text, index));
  }
  return lines;
}

/** The first line of `text` containing the first non-blank line of `old` (trimmed), or null. */
function closestLineHint(text: string, old: string): number | null {
  const first = old.split(/\r?\n/).map((line) => line.trim()).find((line) => line.length > 0);
  if (first === undefined) return null;
  const index = text.split("\n").findIndex((line) => line.includes(first));
  return index === -1 ? null : index + 1;
}
