/**
 * `fs.grep_files`: lines matching a regular expression in the files below a folder.
 *
 * @module
 */

import * as nodePath from "node:path";
import { z } from "zod";
import picomatch from "picomatch";
import { defineTool } from "../../tools/mod.ts";
import { failure, type ToolOutcome } from "../../result/mod.ts";
import { printable } from "../../sandbox/mod.ts";
import { IgnoreRules, ioFailure } from "../../sandbox/mod.ts";
import { DEFAULT_SEARCH_TIME_BUDGET_MS, TimeBudget } from "../../sandbox/mod.ts";
import type { WalkStats } from "../../sandbox/mod.ts";
import { checkPath, isOutcome } from "./_check.ts";
import type { GrepSkipped, GrepTruncatedReason, SkippedFile } from "./_grep_report.ts";
import { type Candidate, Search } from "./_grep_search.ts";
import { compileLinePattern } from "./_line_pattern.ts";

export type { GrepSkipped, GrepTruncatedReason, SkippedFile } from "./_grep_report.ts";
export { MAX_FILES_SCANNED, MAX_MATCH_LINE_CHARACTERS } from "./_grep_search.ts";

/** Default number of matches returned. */
export const DEFAULT_GREP_LIMIT = 100;
/** Most matches one call returns. */
export const MAX_GREP_LIMIT = 1000;
/** Longest pattern accepted, in characters. */
export const MAX_PATTERN_LENGTH = 1000;
const parameters = z.strictObject({
  pattern: z.string().min(1).max(MAX_PATTERN_LENGTH).describe(
    "Regular expression in RE2 syntax matched against each line (no slashes or flags; no " +
      "backreferences or lookaround)",
  ),
  path: z.string().min(1).max(4096).default(".").describe(
    "Folder to search recursively (or a single file), relative to the workspace",
  ),
  glob: z.string().min(1).max(1000).optional().describe(
    "Only search files matching this glob, relative to the searched folder; without a slash it " +
      'matches the file name (e.g. "*.ts", "src/**/*.md")',
  ),
  limit: z.number().int().min(1).max(MAX_GREP_LIMIT).default(DEFAULT_GREP_LIMIT).describe(
    `Most matching lines to return (1 to ${MAX_GREP_LIMIT})`,
  ),
  case_sensitive: z.boolean().default(true).describe("Match letter case exactly"),
  include_ignored: z.boolean().default(false).describe(
    "Also search files and folders that .gitignore or .ignore files leave out (as rg --no-ignore)",
  ),
});

/** One matching line. */
export interface GrepMatch {
  /** The file as found by the walk, relative to the workspace. */
  path: string;
  /** 1-based line number. */
  line: number;
  /** The line, cut to 1,000 characters around the match. */
  text: string;
}

/** Structured result of `fs.grep_files`. */
export interface GrepFilesData {
  path: string;
  matches: GrepMatch[];
  /** Files whose lines were searched (skipped files are not counted). */
  files_scanned: number;
  /** The time budget, the match limit, the file cap or the depth cap stopped the search. */
  truncated: boolean;
  /** Why, when truncated: the first that applies of time_budget, match_limit, file_limit, depth_limit. */
  truncated_reason: GrepTruncatedReason | null;
  /** The time budget of the call, in ms (`limits.search_time_budget_ms`). */
  time_budget_ms: number;
  skipped: GrepSkipped;
  /** The skipped files by name (at most 50, `MAX_SKIPPED_FILES_NAMED`; `skipped` counts all). */
  skipped_files: SkippedFile[];
  /** Files the glob left out. */
  not_matching_glob: number;
  stats: WalkStats;
  /**
   * Which engine chose the files read: `ripgrep` (the main thread's ripgrep named the files that
   * may match; the rest were counted as searched unread, so a binary file without a match counts
   * as searched, not skipped), or `builtin` (every file read).
   */
  engine: "ripgrep" | "builtin";
}

/**
 * `fs.grep_files(pattern, path = ".", glob?, limit = 100, case_sensitive = true,
 * include_ignored = false)`: searches every text file below `path` that `.gitignore`/`.ignore`
 * files do not leave out (as ripgrep; `include_ignored` searches them too; see
 * `sandbox/ignore_rules.ts`), line by line, in stable walk order (depth first, names sorted), with an
 * RE2 regular expression (`re2js`: time linear in the line, so no pattern can stall a search;
 * backreferences and lookaround are refused with the RE2 form to use). The walk never enters
 * symlinked folders; a symlink to a file is searched only when the guard accepts its target.
 * Sensitive files, files with other hard links, files over 10 MiB, binary files and non-regular
 * files are skipped, counted and named in the summary and the output. Every folder is re-verified
 * as it is read (see `walk.ts`); folders that changed under the search are skipped and counted in
 * `stats.changed`. At most 20,000 files are considered. The search stops when the time budget
 * (`context.files.search_time_budget_ms`, default {@linkcode DEFAULT_SEARCH_TIME_BUDGET_MS}) runs
 * out and returns what it found, `truncated_reason: "time_budget"`; the budget is looked at between
 * entries, files and every 64 Ki characters of matched lines (one line is matched whole).
 *
 * A folder search may be narrowed by ripgrep (`ripgrep_prefilter.ts`, run on the main thread while
 * the walk runs, `context.search_candidates`): regular files it did not name are counted as
 * searched without being opened; everything else is as above. `data.engine` says which ran.
 *
 * Errors: `invalid_arguments` (a pattern RE2 cannot express, a bad glob), the guard's refusals,
 * `file_not_found`, `aborted`.
 */
export const grepFilesTool = defineTool({
  name: "fs.grep_files",
  description: "Search files below a folder for lines matching a regular expression in RE2 " +
    "syntax (no backreferences or lookaround); returns path:line:text lines (at most limit, " +
    'default 100). Optional glob filter (e.g. "*.ts"). Files .gitignore/.ignore leave out are ' +
    "not searched unless include_ignored is true. Binary, sensitive and files over 10 MiB " +
    "are skipped and named; a search that runs past its time budget returns what it found, " +
    "marked truncated.",
  parameters,
  permission: "readonly",
  tags: ["filesystem", "read"],
  annotations: { category: "filesystem" },
  targets: (args) => [{ kind: "path", path: args.path ?? ".", access: "list" }],
  handler: async (args, context): Promise<ToolOutcome> => {
    const limit = args.limit ?? DEFAULT_GREP_LIMIT;
    const pattern = compileLinePattern(args.pattern, args.case_sensitive ?? true);
    if ("reason" in pattern) {
      return failure(
        "invalid_arguments",
        `Cannot search for "${printable(args.pattern)}": ${pattern.reason}`,
        { pattern: args.pattern },
      );
    }
    let matchesGlob: ((relative: string) => boolean) | null = null;
    if (args.glob !== undefined) {
      try {
        matchesGlob = globMatcher(args.glob);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return failure("invalid_arguments", `Cannot use glob "${args.glob}": ${reason}`, {
          glob: args.glob,
        });
      }
    }

    const start = await checkPath(context.guard, args.path ?? ".", "list", "search folder");
    if (isOutcome(start)) return start;
    if (start.type === "missing") {
      return failure("file_not_found", `Cannot search "${start.display}": it does not exist`, {
        path: start.display,
      });
    }

    const budgetMs = context.files?.search_time_budget_ms ?? DEFAULT_SEARCH_TIME_BUDGET_MS;
    const search = new Search(pattern, limit, context, TimeBudget.start(budgetMs));
    try {
      if (start.type === "file") {
        const candidate: Candidate = { path: start.real, display: start.display, type: "file" };
        search.consume(await search.searchFile(candidate, start));
      } else {
        // ripgrep's answer (a filter, for the folder it searched) is awaited while the walk runs.
        // .gitignore/.ignore rules from the root holding the folder down (as ripgrep reads them).
        const ignoreRules = args.include_ignored === true ? null : new IgnoreRules(start.root);
        await search.searchFolder(
          start,
          matchesGlob,
          context.search_candidates ?? null,
          ignoreRules,
        );
      }
    } catch (error) {
      return ioFailure("search folder", start, error);
    }
    if (context.signal.aborted) {
      return failure("aborted", `Cannot search "${start.display}": the run was interrupted`, {
        path: start.display,
      });
    }
    return search.result(start.display, args.pattern, args.glob ?? null);
  },
});

/** A glob without `/` matches the file name; with one, the path relative to the searched folder. */
function globMatcher(glob: string): (relative: string) => boolean {
  const matches = picomatch(glob, { dot: true });
  if (glob.includes("/")) return (relative) => matches(relative);
  return (relative) => matches(nodePath.basename(relative));
}
