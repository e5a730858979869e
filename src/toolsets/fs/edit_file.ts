/**
 * `fs.edit_file`: exact-text replacements or a unified diff applied to one text file.
 *
 * @module
 */

import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import { z } from "zod";
import { defineTool } from "../../tools/mod.ts";
import { failure, success, type ToolOutcome } from "../../result/mod.ts";
import * as nodePath from "node:path";
import { isWithin, type PathGuard, printable, type ResolvedPath } from "../../sandbox/mod.ts";
import { ioFailure, openVerifiedForRead } from "../../sandbox/mod.ts";
import { writeFileAtomic } from "../../sandbox/mod.ts";
import { applyEdits } from "./_apply_edits.ts";
import { checkPath, isOutcome } from "./_check.ts";
import { guessMediaType } from "./_binary.ts";
import { formatBytes, MAX_FILE_BYTES } from "./_limits.ts";
import { readAllBounded } from "./_read_bounded.ts";
import { plural } from "./_text.ts";
import { applyUnifiedDiff, type FileNames } from "./_unified_diff.ts";

/** Most edits in one call. */
export const MAX_EDITS = 100;
/** Most diff lines shown in the output. */
export const MAX_DIFF_OUTPUT_LINES = 200;

const parameters = z.strictObject({
  path: z.string().min(1).max(4096).describe("File to edit, relative to the workspace"),
  edits: z.array(
    z.strictObject({
      old: z.string().max(MAX_FILE_BYTES).describe(
        "Exact current text, including whitespace; must occur once unless replace_all",
      ),
      new: z.string().max(MAX_FILE_BYTES).describe("Replacement text"),
    }),
  ).min(1).max(MAX_EDITS).optional().describe(
    "Replacements applied in order (give this or unified_diff, not both)",
  ),
  unified_diff: z.string().min(1).max(MAX_FILE_BYTES).optional().describe(
    "A unified diff of this one file (---/+++ headers and @@ hunks); context must match exactly",
  ),
  replace_all: z.boolean().default(false).describe("Replace every occurrence of each old text"),
  create_if_missing: z.boolean().default(false).describe(
    'Create a missing file from a single edit whose old is ""',
  ),
});

/** Structured result of `fs.edit_file`. */
export interface EditFileData {
  /** The file, relative to the workspace. */
  path: string;
  /** Edits (or hunks of the diff) applied. */
  edits_applied: number;
  /** Occurrences replaced (for a diff: its hunks). */
  replacements: number;
  bytes_before: number;
  bytes_after: number;
  /** The file was created (`create_if_missing`). */
  created: boolean;
}

/**
 * `fs.edit_file(path, edits? | unified_diff?, replace_all = false, create_if_missing = false)`:
 * changes part of a text file and answers with the unified diff of the change (at most 200 lines
 * shown). Exactly one of `edits` and `unified_diff`. A CRLF file stays CRLF. The write is atomic
 * and keeps the file's mode.
 *
 * Errors: `invalid_arguments` (both or neither of edits and unified_diff, an empty old), the
 * guard's refusals, `file_not_found`, `not_a_regular_file`, `file_too_large` (over 10 MiB),
 * `binary_file`, `text_not_found`, `ambiguous_edit`, `patch_apply_failed` (also for a diff whose
 * headers name another file than `path`: it is refused, never applied to `path`), `io_error`,
 * `sandbox_violation`.
 */
export const editFileTool = defineTool({
  name: "fs.edit_file",
  description: "Edit a text file: either edits (exact old text -> new text, applied in order; " +
    "each old must be unique unless replace_all) or a unified_diff of this one file. Returns the " +
    "diff of the change. Set create_if_missing with one edit whose old is empty to create a file.",
  parameters,
  permission: "write",
  tags: ["filesystem", "write"],
  annotations: { category: "filesystem", risk_level: 2, idempotent: false },
  targets: (args) => [{ kind: "path", path: args.path, access: "write" }],
  handler: async (args, context): Promise<ToolOutcome> => {
    const edits = args.edits;
    const diff = args.unified_diff;
    if ((edits === undefined) === (diff === undefined)) {
      const shown = printable(args.path);
      return failure(
        "invalid_arguments",
        `Cannot edit file "${shown}": give exactly one of "edits" and "unified_diff"`,
        { path: args.path },
      );
    }
    const path = await checkPath(context.guard, args.path, "write", "edit file");
    if (isOutcome(path)) return path;

    if (path.type === "missing") {
      const only = edits?.length === 1 ? edits[0] : undefined;
      if ((args.create_if_missing ?? false) && only !== undefined && only.old === "") {
        return await createFile(path, only.new);
      }
      return failure(
        "file_not_found",
        `Cannot edit file "${path.display}": it does not exist; to create it pass ` +
          `"create_if_missing": true with one edit whose "old" is ""`,
        { path: path.display },
      );
    }
    if (path.type !== "file") {
      return failure("not_a_regular_file", `Cannot edit "${path.display}": it is a folder`, {
        path: path.display,
      });
    }

    const read = await readText(path, context.signal);
    if ("ok" in read) return read;
    const before = read.text;
    const result = edits !== undefined
      ? applyEdits(before, edits, args.replace_all ?? false, path.display)
      : applyUnifiedDiff(before, diff as string, path.display, fileNames(path, context.guard));
    if (!result.ok) return result.outcome;
    const after = result.text;
    const bytesAfter = new TextEncoder().encode(after).byteLength;
    if (bytesAfter > MAX_FILE_BYTES) {
      return failure(
        "file_too_large",
        `Cannot edit file "${path.display}": the result would be ${formatBytes(bytesAfter)}, ` +
          `more than ${formatBytes(MAX_FILE_BYTES)}`,
        { path: path.display, bytes: bytesAfter, limit: MAX_FILE_BYTES },
      );
    }
    if (after !== before) {
      const refused = await writeFileAtomic(path, after, {
        overwrite: true,
        createDirectories: false,
      });
      if (refused !== null) return refused;
    }
    const applied = "hunks" in result ? result.hunks : edits?.length ?? 0;
    const data: EditFileData = {
      path: path.display,
      edits_applied: applied,
      replacements: "replacements" in result ? result.replacements : result.hunks,
      bytes_before: read.bytes,
      bytes_after: bytesAfter,
      created: false,
    };
    const what = "hunks" in result
      ? `applied a diff of ${plural(applied, "hunk")}`
      : `${plural(applied, "edit")}, ${plural(data.replacements, "replacement")}`;
    const unchanged = after === before ? " (no change)" : "";
    return success(
      `Edited "${path.display}": ${what}${unchanged}`,
      diffOutput(path.display, before, after),
      data,
    );
  },
});

/** The names a diff's headers may give the edited file: as requested, relative, real, spelled. */
function fileNames(path: ResolvedPath, guard: Pick<PathGuard, "workspace">): FileNames {
  const relative = [path.requested, path.display].filter((name) => !nodePath.isAbsolute(name));
  for (const absolute of [path.real, path.spelled]) {
    if (isWithin(absolute, guard.workspace)) {
      relative.push(nodePath.relative(guard.workspace, absolute));
    }
  }
  return {
    relative,
    absolute: [path.real, path.spelled, ...[path.requested].filter(nodePath.isAbsolute)],
  };
}

async function createFile(path: ResolvedPath, content: string): Promise<ToolOutcome> {
  const bytes = new TextEncoder().encode(content);
  if (bytes.byteLength > MAX_FILE_BYTES) {
    return failure(
      "file_too_large",
      `Cannot create file "${path.display}": the content is over 10 MiB`,
      {
        path: path.display,
        bytes: bytes.byteLength,
        limit: MAX_FILE_BYTES,
      },
    );
  }
  const refused = await writeFileAtomic(path, bytes, { overwrite: false, createDirectories: true });
  if (refused !== null) return refused;
  const data: EditFileData = {
    path: path.display,
    edits_applied: 1,
    replacements: 0,
    bytes_before: 0,
    bytes_after: bytes.byteLength,
    created: true,
  };
  return success(
    `Created "${path.display}" with ${plural(bytes.byteLength, "byte")}`,
    diffOutput(path.display, "", content, true),
    data,
  );
}

/** Reads a checked file whole as UTF-8 text, or the failure: too large, binary, unreadable. */
async function readText(
  path: ResolvedPath,
  signal: AbortSignal,
): Promise<{ text: string; bytes: number } | ToolOutcome> {
  if (path.size > MAX_FILE_BYTES) return tooLarge(path, path.size);
  const opened = await openVerifiedForRead(path, { signal }).catch((error) =>
    ioFailure("read file", path, error)
  );
  if ("ok" in opened) return opened;
  let bytes: Uint8Array | "too_large";
  try {
    bytes = await readAllBounded(opened.file, opened.size, MAX_FILE_BYTES);
  } catch (error) {
    return ioFailure("read file", path, error);
  } finally {
    opened.file.close();
  }
  if (bytes === "too_large") return tooLarge(path, MAX_FILE_BYTES + 1);
  const binary = () => {
    const mediaType = guessMediaType(bytes as Uint8Array);
    return failure(
      "binary_file",
      `Cannot edit file "${path.display}": it is binary (${mediaType}, ${formatBytes(path.size)})`,
      { path: path.display, bytes: path.size, media_type: mediaType },
    );
  };
  if (bytes.includes(0)) return binary();
  try {
    return {
      text: new TextDecoder("utf-8", { fatal: true }).decode(bytes),
      bytes: bytes.byteLength,
    };
  } catch {
    return binary();
  }
}

function tooLarge(path: ResolvedPath, bytes: number): ToolOutcome {
  return failure(
    "file_too_large",
    `Cannot edit file "${path.display}": it is ${formatBytes(bytes)}, more than ${
      formatBytes(MAX_FILE_BYTES)
    }`,
    { path: path.display, bytes, limit: MAX_FILE_BYTES },
  );
}

/** The unified diff of a change, capped to {@linkcode MAX_DIFF_OUTPUT_LINES} lines. */
function diffOutput(display: string, before: string, after: string, created = false): string {
  if (before === after) return `No change to "${display}"`;
  const patch = createTwoFilesPatch(
    created ? "/dev/null" : display,
    display,
    before,
    after,
    undefined,
    undefined,
    {
      context: 3,
      timeout: 2000,
      headerOptions: FILE_HEADERS_ONLY,
    },
  );
  if (patch === undefined) return `Changed "${display}" (the diff is too large to compute quickly)`;
  const lines = patch.replace(/\n$/, "").split("\n");
  if (lines.length <= MAX_DIFF_OUTPUT_LINES) return lines.join("\n");
  const hidden = lines.length - MAX_DIFF_OUTPUT_LINES;
  return [...lines.slice(0, MAX_DIFF_OUTPUT_LINES), `[diff truncated: ${hidden} more lines]`].join(
    "\n",
  );
}
