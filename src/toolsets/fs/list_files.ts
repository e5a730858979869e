/**
 * `fs.list_files`: the entries of a folder, optionally recursive, capped.
 *
 * @module
 */

import { z } from "zod";
import { defineTool } from "../../tools/mod.ts";
import { failure, success, type ToolOutcome } from "../../result/mod.ts";
import { DEFAULT_SEARCH_TIME_BUDGET_MS, describeBudget, TimeBudget } from "../../sandbox/mod.ts";
import {
  emptyWalkStats,
  IgnoreRules,
  walk,
  type WalkEntry,
  type WalkStats,
} from "../../sandbox/mod.ts";
import { inspectVerifiedFile, ioFailure } from "../../sandbox/mod.ts";
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
  include_ignored: z.boolean().default(false).describe(
    "In a recursive listing, also list what .gitignore or .ignore files leave out (a listing of " +
      "one folder shows everything)",
  ),
});

/** One listed entry. `path` is relative to the workspace (absolute outside it). */
export interface ListedEntry {
  path: string;
  type: WalkEntry["type"];
  /** Bytes, for files; 0 otherwise. */
  size: number;
  /**
   * Present (true) when the entry's path matches a sensitive pattern (`.env`, `*.pem`,
   * `sandbox.sensitive_paths`, …): reading it asks (`runtime:sensitive-path`) and walks never
   * read it. Absent on every other entry.
   */
  sensitive?: true;
}

/** Why a listing returned less than every entry: the first reason that applies, in this order. */
export type ListTruncatedReason = "time_budget" | "entry_limit" | "depth_limit";

/** Structured result of `fs.list_files`. */
export interface ListFilesData {
  path: string;
  entries: ListedEntry[];
  /** The time budget or the limit was hit, or folders below the depth cap were not listed. */
  truncated: boolean;
  /** Why, when truncated: the first that applies of time_budget, entry_limit, depth_limit. */
  truncated_reason: ListTruncatedReason | null;
  /** Sensitive entries left out (`sandbox.hide_sensitive_in_listings`); 0 otherwise. */
  hidden_sensitive: number;
  stats: WalkStats;
}

/**
 * `fs.list_files(path = ".", recursive = false, limit = 200, include_ignored = false)`: one line
 * per entry (a recursive listing leaves out what `.gitignore`/`.ignore` do, counted, unless
 * `include_ignored`), folders with a
 * trailing `/`, symlinks marked ` -> symlink` (never resolved or entered), files with their size,
 * sensitive entries (`.env`, `*.pem`, …) marked ` [sensitive]` (and `sensitive: true` in the data),
 * or left out and counted when `context.files.hide_sensitive_in_listings` is set. Recursive
 * listings never follow symlinks, skip `.git` and the runs folder, stop 64 levels down, and stop
 * when the time budget (`context.files.search_time_budget_ms`, default
 * {@linkcode DEFAULT_SEARCH_TIME_BUDGET_MS}) runs out; each is marked `truncated` with its
 * `truncated_reason`. Every folder is re-verified as it is read (see `walk.ts`): a folder that
 * changed meanwhile is not listed and is counted in `stats.changed`. A file path lists that file
 * alone.
 *
 * Errors: the guard's refusals, `file_not_found`, `aborted`, `io_error`, `sandbox_violation`.
 */
export const listFilesTool = defineTool({
  name: "fs.list_files",
  description: "List a folder's files and sub-folders (recursive optional), one per line: " +
    "folders end with /, symlinks are marked and never followed, files show their size, " +
    "sensitive files (.env, *.pem, ...) are marked [sensitive]. At most limit entries " +
    "(default 200); a recursive listing that runs past its time budget is marked truncated.",
  parameters,
  permission: "readonly",
  tags: ["filesystem", "read"],
  annotations: { category: "filesystem" },
  targets: (args) => [{ kind: "path", path: args.path ?? ".", access: "list" }],
  handler: async (args, context): Promise<ToolOutcome> => {
    const requested = args.path ?? ".";
    const recursive = args.recursive ?? false;
    const limit = args.limit ?? DEFAULT_LIST_LIMIT;
    const hideSensitive = context.files?.hide_sensitive_in_listings ?? false;
    const start = await checkPath(context.guard, requested, "list", "list folder");
    if (isOutcome(start)) return start;
    const listing: Listing = {
      display: start.display,
      entries: [],
      hidden: 0,
      limitHit: false,
      budget: null,
      stats: emptyWalkStats(),
    };

    if (start.type === "missing") {
      return failure("file_not_found", `Cannot list "${start.display}": it does not exist`, {
        path: start.display,
      });
    }
    if (start.type === "file") {
      // The size must come from the file the guard checked, not from one a swap led to.
      const facts = await inspectVerifiedFile(start, context.signal);
      if ("ok" in facts) return facts;
      const sensitive = start.sensitive !== null;
      if (sensitive && hideSensitive) listing.hidden += 1;
      else listing.entries.push(listed(start.display, "file", facts.size, sensitive));
      return finish(listing);
    }

    // Only a recursive listing is a walk with a time budget; one folder is read whole.
    if (recursive) {
      const budgetMs = context.files?.search_time_budget_ms ?? DEFAULT_SEARCH_TIME_BUDGET_MS;
      listing.budget = TimeBudget.start(budgetMs);
    }
    try {
      const walker = walk(start, {
        guard: context.guard,
        recursive,
        maxDepth: MAX_WALK_DEPTH,
        signal: context.signal,
        stats: listing.stats,
        // A recursive listing is a search of the tree: it leaves out what .gitignore/.ignore
        // do (as `rg --files`); one folder's listing shows every entry (as `ls`).
        ignoreRules: recursive && args.include_ignored !== true
          ? new IgnoreRules(start.root)
          : null,
        ...(listing.budget === null ? {} : { budget: listing.budget }),
      });
      for await (const entry of walker) {
        const sensitive = context.guard.sensitiveMatch(entry.path) !== null;
        if (sensitive && hideSensitive) {
          listing.hidden += 1;
          continue;
        }
        if (listing.entries.length >= limit) {
          listing.limitHit = true;
          break;
        }
        listing.entries.push(listed(entry.display, entry.type, entry.size, sensitive));
      }
    } catch (error) {
      return ioFailure("list folder", start, error);
    }
    if (context.signal.aborted) {
      return failure("aborted", `Cannot list "${start.display}": the run was interrupted`, {
        path: start.display,
      });
    }
    return finish(listing);
  },
});

/** What one listing found and how it ended. */
interface Listing {
  display: string;
  entries: ListedEntry[];
  /** Sensitive entries left out. */
  hidden: number;
  limitHit: boolean;
  /** The walk's budget (recursive listings only). */
  budget: TimeBudget | null;
  stats: WalkStats;
}

function listed(
  path: string,
  type: ListedEntry["type"],
  size: number,
  sensitive: boolean,
): ListedEntry {
  return sensitive ? { path, type, size, sensitive: true } : { path, type, size };
}

function finish(listing: Listing): ToolOutcome {
  const { entries, stats } = listing;
  const reasons: ListTruncatedReason[] = [];
  // A limit stop ends the walk before the budget can run out, so the two never both apply.
  if (listing.budget?.ranOut === true && !listing.limitHit) reasons.push("time_budget");
  if (listing.limitHit) reasons.push("entry_limit");
  if (stats.depth_limited > 0) reasons.push("depth_limit");

  const lines = entries.map(formatEntry);
  if (reasons.includes("time_budget") && listing.budget !== null) {
    lines.push(
      `[truncated: stopped when the time budget of ${describeBudget(listing.budget.limitMs)} ` +
        `ran out (limits.search_time_budget_ms); list a sub-folder]`,
    );
  }
  if (listing.limitHit) {
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
  if (stats.ignored > 0) {
    lines.push(
      `[${stats.ignored} ${stats.ignored === 1 ? "entry" : "entries"} ignored by .gitignore or ` +
        `.ignore not listed (include_ignored: true lists them)]`,
    );
  }
  if (listing.hidden > 0) {
    lines.push(
      `[${listing.hidden} sensitive ${listing.hidden === 1 ? "entry" : "entries"} hidden ` +
        `(sandbox.hide_sensitive_in_listings)]`,
    );
  }
  const count = `${entries.length} ${entries.length === 1 ? "entry" : "entries"}`;
  const notes: string[] = [];
  if (listing.hidden > 0) notes.push(`${listing.hidden} sensitive hidden`);
  if (stats.ignored > 0) notes.push(`${stats.ignored} ignored by .gitignore or .ignore`);
  if (reasons.length > 0) {
    notes.push(reasons[0] === "time_budget" ? "truncated: time budget" : "truncated");
  }
  const summary = `Listed ${count} of "${listing.display}"${
    notes.length > 0 ? ` (${notes.join("; ")})` : ""
  }`;
  const data: ListFilesData = {
    path: listing.display,
    entries,
    truncated: reasons.length > 0,
    truncated_reason: reasons[0] ?? null,
    hidden_sensitive: listing.hidden,
    stats,
  };
  return success(summary, lines.join("\n"), data);
}

function formatEntry(entry: ListedEntry): string {
  const mark = entry.sensitive === true ? " [sensitive]" : "";
  switch (entry.type) {
    case "directory":
      return `${entry.path}/${mark}`;
    case "symlink":
      return `${entry.path} -> symlink${mark}`;
    case "file":
      return `${entry.path}  (${formatBytes(entry.size)})${mark}`;
    case "other":
      return `${entry.path}  (not a regular file)${mark}`;
  }
}
