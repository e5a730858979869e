/**
 * Unified diffs for `fs.edit_file`: one file, existing, text only; applied without fuzz. Private
 * to the folder.
 *
 * @module
 */

import * as nodePath from "node:path";
import { applyPatch, parsePatch, type StructuredPatch } from "diff";
import { failure, type ToolOutcome } from "../../result/mod.ts";

/** The patched text and the number of hunks, or why the diff was refused. */
export type DiffResult = { ok: true; text: string; hunks: number } | {
  ok: false;
  outcome: ToolOutcome;
};

/** Git headers of changes this tool does not make: renames, copies, creations, deletions, modes. */
const UNSUPPORTED_HEADER =
  /^(rename from|rename to|copy from|copy to|new file mode|deleted file mode|old mode|new mode) /m;
const BINARY_PATCH = /^(Binary files .* differ|GIT binary patch)/m;

/**
 * The names a file goes by, to compare with a diff's headers: relative to the workspace
 * (`src/a.ts`) and absolute (its real path and its path as spelled).
 */
export interface FileNames {
  relative: readonly string[];
  absolute: readonly string[];
}

/**
 * Applies a single-file unified diff to `text` with no fuzz (context lines must match exactly;
 * CRLF files accept LF diffs). Refused, as `patch_apply_failed`: binary patches, several files,
 * renames, creations and deletions (`/dev/null`), mode changes, headers (`---`, `+++`,
 * `diff --git`, `Index:`) that name another file than the one edited (details `header`: the
 * diff is never applied to a file it does not name), unparsable diffs, diffs without hunks, and
 * hunks that do not apply (details `hunk`, 1-based, and its `header`).
 *
 * @param text The file's current text.
 * @param diff The unified diff.
 * @param display The file as shown in messages (relative to the workspace).
 * @param names The names the file goes by; a header must name one of them (git's `a/` and `b/`
 *   prefixes and `./` are ignored). A diff without headers applies to the file edited.
 */
export function applyUnifiedDiff(
  text: string,
  diff: string,
  display: string,
  names: FileNames = { relative: [display], absolute: [] },
): DiffResult {
  const refuse = (reason: string, details: Record<string, unknown> = {}): DiffResult => ({
    ok: false,
    outcome: failure("patch_apply_failed", `Cannot apply the diff to "${display}": ${reason}`, {
      path: display,
      ...details,
    }),
  });
  if (BINARY_PATCH.test(diff)) return refuse("it is a binary patch; only text diffs are supported");
  const unsupported = UNSUPPORTED_HEADER.exec(diff);
  if (unsupported !== null) {
    return refuse(
      `it has a "${
        unsupported[1]
      }" header; renames, copies, creations, deletions and mode changes ` +
        "are not supported (use fs.write_file or fs.delete_file)",
    );
  }
  let patches: StructuredPatch[];
  try {
    patches = parsePatch(diff).filter((patch) =>
      patch.hunks.length > 0 || patch.oldFileName !== undefined || patch.newFileName !== undefined
    );
  } catch (error) {
    return refuse(
      `it cannot be parsed (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (patches.length > 1) {
    return refuse(`it changes ${patches.length} files; send one diff per file`, {
      files: patches.length,
    });
  }
  const patch = patches[0];
  if (patch === undefined || patch.hunks.length === 0) {
    return refuse("it has no hunks (no @@ lines)");
  }
  const oldName = patch.oldFileName;
  const newName = patch.newFileName;
  if (oldName === "/dev/null" || newName === "/dev/null") {
    return refuse("it creates or deletes a file (/dev/null); use fs.write_file or fs.delete_file");
  }
  if (
    oldName !== undefined && newName !== undefined && stripPrefix(oldName) !== stripPrefix(newName)
  ) {
    return refuse(`it renames "${oldName}" to "${newName}"; renames are not supported`);
  }
  for (const header of headerNames(diff, patch)) {
    if (!namesFile(header.name, names)) {
      return refuse(
        `its header "${header.line}" names another file ("${header.name}"); a diff is applied ` +
          `only to the file its headers name: send a diff of "${display}", or edit the file ` +
          "the diff names",
        { header: header.name },
      );
    }
  }

  let patched: string | false;
  try {
    patched = applyPatch(text, patch, { fuzzFactor: 0 });
  } catch (error) {
    return refuse(
      `it cannot be applied (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (patched === false) {
    const failed = firstFailingHunk(text, patch);
    if (failed === null) return refuse("its hunks do not match the file");
    return refuse(
      `hunk ${
        failed.index + 1
      } of ${patch.hunks.length} (${failed.header}) does not match the file; ` +
        "read the file again and rebuild the diff",
      { hunk: failed.index + 1, header: failed.header },
    );
  }
  return { ok: true, text: patched, hunks: patch.hunks.length };
}

/** The file names a diff's headers give: `---`, `+++`, `diff --git a/x b/x`, `Index: x`. */
function headerNames(diff: string, patch: StructuredPatch): { line: string; name: string }[] {
  const found: { line: string; name: string }[] = [];
  const add = (line: string, name: string | undefined) => {
    if (name !== undefined && name.trim() !== "") found.push({ line, name: unquote(name.trim()) });
  };
  add(`--- ${patch.oldFileName}`, patch.oldFileName);
  add(`+++ ${patch.newFileName}`, patch.newFileName);
  add(`Index: ${patch.index}`, patch.index);
  for (const match of diff.matchAll(/^diff --git (\S+) (\S+)\r?$/gm)) {
    add(match[0].trimEnd(), match[1]);
    add(match[0].trimEnd(), match[2]);
  }
  return found;
}

/** `"a/x y.ts"` → `a/x y.ts` (git quotes names with unusual characters). */
function unquote(name: string): string {
  return name.length >= 2 && name.startsWith('"') && name.endsWith('"') ? name.slice(1, -1) : name;
}

/**
 * Tells whether a header's name is one of the file's names: an absolute one equal to its real or
 * spelled path, a relative one equal to its path relative to the workspace, each with or without
 * git's `a/` or `b/` prefix and after `./` and `..` are normalised.
 */
function namesFile(name: string, names: FileNames): boolean {
  const relative = new Set(names.relative.map((entry) => nodePath.posix.normalize(entry)));
  const absolute = new Set(names.absolute.map((entry) => nodePath.posix.normalize(entry)));
  const candidates = [name, ...(/^[ab]\//.test(name) ? [name.slice(2)] : [])];
  return candidates.some((candidate) => {
    const normal = nodePath.posix.normalize(candidate);
    return nodePath.posix.isAbsolute(normal) ? absolute.has(normal) : relative.has(normal);
  });
}

/** `a/src/x.ts` and `b/src/x.ts` name the same file. */
function stripPrefix(name: string): string {
  return name.replace(/^[ab]\//, "");
}

/** Applies growing prefixes of the hunks to find the first one that fails. */
function firstFailingHunk(
  text: string,
  patch: StructuredPatch,
): { index: number; header: string } | null {
  for (let count = 1; count <= Math.min(patch.hunks.length, 200); count += 1) {
    let result: string | false;
    try {
      result = applyPatch(text, { ...patch, hunks: patch.hunks.slice(0, count) }, {
        fuzzFactor: 0,
      });
    } catch {
      result = false;
    }
    if (result === false) {
      const hunk = patch.hunks[count - 1];
      if (hunk === undefined) return null;
      const header = `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
      return { index: count - 1, header };
    }
  }
  return null;
}
