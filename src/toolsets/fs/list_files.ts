/**
 * `fs.list_files`: the entries of a folder, optionally recursive, capped.
 *
 * @module
 */

import { z } from "zod";
import { defineTool } from "../../tools/tool_definition.ts";
import { failure, success, type ToolOutcome } from "../../tools/tool_result.ts";
import { emptyWalkStats, walk, type WalkEntry, type WalkStats } from "../../sandbox/walk.ts";
import { inspectVerifiedFile, ioFailure } from "../../sandbox/safe_file.ts";
import { checkPath, isOutcome } from "./_check.ts";
import { formatBytes, MAX_WALK_DEPTH } from "./_limits.ts";

/** Default number of entries listed. */
export const DEFAULT_LIST_LIMIT = 200;
/** Most entries one call lists. */
export const MAX_LIST_LIMIT = 5000;

const parameters = z.strictObject({
  path: z.string().min(1).max(4096).default(".").describe(
    "Folder to list, relative to the workspace; a file lists just that file",
  ),
  recursive: z.boolean().default(false).describe(
    "List sub-folders too (symlinked folders are shown, never entered; .git is skipped)",
  ),
  limit: z.number().int().min(1).max(MAX_LIST_LIMIT).default(DEFAULT_LIST_LIMIT).describe(
    `Most entries to list (1 to ${MAX_LIST_LIMIT})`,
  ),
});

/** One listed entry. `path` is relative to the workspace (absolute outside it). */
export interface ListedEntry {
  path: string;
  type: WalkEntry["type"];
  /** Bytes, for files; 0 otherwise. */
  size: number;
}

/** Structured result of `fs.list_files`. */
export interface ListFilesData {
  path: string;
  entries: ListedEntry[];
  /** The limit was hit or folders below the depth cap were not listed. */
  truncated: boolean;
  stats: WalkStats;
}

/**
 * `fs.list_files(path = ".", recursive = false, limit = 200)`: one line per entry, folders with a
 * trailing `/`, symlinks marked ` -> symlink` (never resolved or entered), files with their size.
 * Recursive listings never follow symlinks, skip `.git` and the runs folder, and stop 64 levels
 * down (`truncated`). Every folder is re-verified as it is read (see `walk.ts`): a folder that
 * changed meanwhile is not listed and is counted in `stats.changed`. A file path lists that file
 * alone.
 *
 * Errors: the guard's refusals, `file_not_found`, `aborted`, `io_error`, `sandbox_violation`.
 */
export const listFilesTool = defineTool({
  name: "fs.list_files",
  description: "List a folder's files and sub-folders (recursive optional), one per line: " +
    "folders end with /, symlinks are marked and never followed, files show their size. " +
    "At most limit entries (default 200).",
  parameters,
  permission: "readonly",
  tags: ["filesystem", "read"],
  annotations: { category: "filesystem" },
  targets: (args) => [{ kind: "path", path: args.path ?? ".", access: "list" }],
  handler: async (args, context): Promise<ToolOutcome> => {
    const requested = args.path ?? ".";
    const recursive = args.recursive ?? false;
    const limit = args.limit ?? DEFAULT_LIST_LIMIT;
    const start = await checkPath(context.guard, requested, "list", "list folder");
    if (isOutcome(start)) return start;
    const stats = emptyWalkStats();

    if (start.type === "missing") {
      return failure("file_not_found", `Cannot list "${start.display}": it does not exist`, {
        path: start.display,
      });
    }
    if (start.type === "file") {
      // The size must come from the file the guard checked, not from one a swap led to.
      const facts = await inspectVerifiedFile(start, context.signal);
      if ("ok" in facts) return facts;
      const entries: ListedEntry[] = [{ path: start.display, type: "file", size: facts.size }];
      return finish(start.display, entries, false, stats);
    }

    const entries: ListedEntry[] = [];
    let truncated = false;
    try {
      const walker = walk(start, {
        guard: context.guard,
        recursive,
        maxDepth: MAX_WALK_DEPTH,
        signal: context.signal,
        stats,
      });
      for await (const entry of walker) {
        if (entries.length >= limit) {
          truncated = true;
          break;
        }
        entries.push({ path: entry.display, type: entry.type, size: entry.size });
      }
    } catch (error) {
      return ioFailure("list folder", start, error);
    }
    if (context.signal.aborted) {
      return failure("aborted", `Cannot list "${start.display}": the run was interrupted`, {
        path: start.display,
      });
    }
    return finish(start.display, entries, truncated || stats.depth_limited > 0, stats, truncated);
  },
});

function finish(
  display: string,
  entries: ListedEntry[],
  truncated: boolean,
  stats: WalkStats,
  limitHit = false,
): ToolOutcome {
  const lines = entries.map(formatEntry);
  if (limitHit) {
    lines.push(
      `[truncated: more than ${entries.length} entries; raise "limit" or list a sub-folder]`,
    );
  }
  if (stats.depth_limited > 0) {
    lines.push(
      `[truncated: ${stats.depth_limited} folders below depth ${MAX_WALK_DEPTH} not entered]`,
    );
  }
  if (stats.unreadable > 0) lines.push(`[${stats.unreadable} folders could not be read]`);
  if (stats.changed > 0) {
    lines.push(
      `[${stats.changed} folders not listed: they changed while being read (a concurrent ` +
        `rename); list again]`,
    );
  }
  const count = `${entries.length} ${entries.length === 1 ? "entry" : "entries"}`;
  const summary = `Listed ${count} of "${display}"${truncated ? " (truncated)" : ""}`;
  const data: ListFilesData = { path: display, entries, truncated, stats };
  return success(summary, lines.join("\n"), data);
}

function formatEntry(entry: ListedEntry): string {
  switch (entry.type) {
    case "directory":
      return `${entry.path}/`;
    case "symlink":
      return `${entry.path} -> symlink`;
    case "file":
      return `${entry.path}  (${formatBytes(entry.size)})`;
    case "other":
      return `${entry.path}  (not a regular file)`;
  }
}
