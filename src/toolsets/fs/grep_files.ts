/**
 * `fs.grep_files`: lines matching a regular expression in the files below a folder.
 *
 * @module
 */

import * as nodePath from "node:path";
import { z } from "zod";
import picomatch from "picomatch";
import { defineTool, type ToolContext } from "../../tools/tool_definition.ts";
import { failure, success, type ToolOutcome } from "../../tools/tool_result.ts";
import { printable, type ResolvedPath } from "../../sandbox/path_guard.ts";
import { ioFailure, openVerifiedForRead } from "../../sandbox/safe_file.ts";
import { emptyWalkStats, walk, type WalkEntry, type WalkStats } from "../../sandbox/walk.ts";
import { hasNulByte } from "./_binary.ts";
import { checkPath, isOutcome } from "./_check.ts";
import { MAX_FILE_BYTES, MAX_WALK_DEPTH } from "./_limits.ts";
import { readAllBounded } from "./_read_bounded.ts";
import { cutAround } from "./_text.ts";

/** Default number of matches returned. */
export const DEFAULT_GREP_LIMIT = 100;
/** Most matches one call returns. */
export const MAX_GREP_LIMIT = 1000;
/** Longest pattern accepted, in characters. */
export const MAX_PATTERN_LENGTH = 1000;
/** Most files one call reads; the search stops there, marked truncated. */
export const MAX_FILES_SCANNED = 20_000;
/** Longest matching line shown whole, in characters. */
export const MAX_MATCH_LINE_CHARACTERS = 1000;
/** Files read at the same time. */
const CONCURRENCY = 16;

const parameters = z.strictObject({
  pattern: z.string().min(1).max(MAX_PATTERN_LENGTH).describe(
    "JavaScript regular expression matched against each line (no slashes or flags)",
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

/** Files passed over, by reason. */
export interface GrepSkipped {
  /** A NUL byte in the first 8 KiB. */
  binary: number;
  /** Matches a sensitive pattern (`.env`, `*.pem`, …): never read by a walk. */
  sensitive: number;
  /** Larger than 10 MiB. */
  too_large: number;
  /** Refused by the guard or failed to open or read. */
  unreadable: number;
  /** FIFOs, sockets, devices. */
  not_regular: number;
  /** Symlinks that lead to a folder, outside the roots, or nowhere. */
  links: number;
  /**
   * Files with more than one hard link: the same content has another name, possibly outside the
   * roots. Like sensitive files, never read by a walk (read them by name, which the policy decides).
   */
  hard_links: number;
}

/** Structured result of `fs.grep_files`. */
export interface GrepFilesData {
  path: string;
  matches: GrepMatch[];
  files_scanned: number;
  /** The match limit, the file cap or the depth cap stopped the search. */
  truncated: boolean;
  skipped: GrepSkipped;
  stats: WalkStats;
}

/**
 * `fs.grep_files(pattern, path = ".", glob?, limit = 100, case_sensitive = true)`: searches every
 * text file below `path` line by line, in stable walk order (depth first, names sorted). The walk
 * never enters symlinked folders; a symlink to a file is searched only when the guard accepts its
 * target. Sensitive files, files with other hard links, files over 10 MiB, binary files and
 * non-regular files are skipped and counted. Every folder is re-verified as it is read (see
 * `walk.ts`); folders that changed under the search are skipped and counted in `stats.changed`.
 * At most 20,000 files are read.
 *
 * Errors: `invalid_arguments` (bad regular expression or glob), the guard's refusals,
 * `file_not_found`, `aborted`.
 */
export const grepFilesTool = defineTool({
  name: "fs.grep_files",
  description: "Search files below a folder for lines matching a JavaScript regular expression; " +
    "returns path:line:text lines (at most limit, default 100). Optional glob filter (e.g. " +
    '"*.ts"). Binary, sensitive and files over 10 MiB are skipped.',
  parameters,
  permission: "readonly",
  tags: ["filesystem", "read"],
  annotations: { category: "filesystem" },
  targets: (args) => [{ kind: "path", path: args.path ?? ".", access: "list" }],
  handler: async (args, context): Promise<ToolOutcome> => {
    const limit = args.limit ?? DEFAULT_GREP_LIMIT;
    let regex: RegExp;
    try {
      regex = new RegExp(args.pattern, (args.case_sensitive ?? true) ? "" : "i");
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return failure(
        "invalid_arguments",
        `Cannot search for "${
          printable(args.pattern)
        }": it is not a valid regular expression (${reason})`,
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

    const search = new Search(regex, limit, context);
    try {
      if (start.type === "file") {
        const candidate: Candidate = { path: start.real, display: start.display, type: "file" };
        search.consume(await search.searchFile(candidate, start));
      } else {
        await search.searchFolder(start, matchesGlob);
      }
    } catch (error) {
      return ioFailure("search folder", start, error);
    }
    if (context.signal.aborted) {
      return failure("aborted", `Cannot search "${start.display}": the run was interrupted`, {
        path: start.display,
      });
    }
    return search.result(start.display, args.pattern);
  },
});

interface Candidate {
  path: string;
  display: string;
  type: "file" | "symlink";
  /** The walk's facts of a regular file (saves a full guard check per file). */
  entry?: WalkEntry;
}

type FileResult = { matches: GrepMatch[] } | { skip: keyof GrepSkipped };

/** The state of one search: counts, matches, and the bounded pipeline of file reads. */
class Search {
  readonly matches: GrepMatch[] = [];
  readonly skipped: GrepSkipped = {
    binary: 0,
    sensitive: 0,
    too_large: 0,
    unreadable: 0,
    not_regular: 0,
    links: 0,
    hard_links: 0,
  };
  readonly stats: WalkStats = emptyWalkStats();
  filesScanned = 0;
  limitHit = false;
  fileCapHit = false;

  constructor(
    readonly regex: RegExp,
    readonly limit: number,
    readonly context: ToolContext,
  ) {}

  /** Walks `start`, reading up to {@linkcode CONCURRENCY} files at once, results in walk order. */
  async searchFolder(
    start: ResolvedPath,
    matchesGlob: ((relative: string) => boolean) | null,
  ): Promise<void> {
    const pending: Promise<FileResult>[] = [];
    const walker = walk(start, {
      guard: this.context.guard,
      recursive: true,
      maxDepth: MAX_WALK_DEPTH,
      signal: this.context.signal,
      stats: this.stats,
    });
    try {
      for await (const entry of walker) {
        if (this.context.signal.aborted) break;
        if (entry.type === "directory") continue;
        if (matchesGlob !== null && !matchesGlob(nodePath.relative(start.real, entry.path))) {
          continue;
        }
        if (entry.type === "other") {
          this.skipped.not_regular += 1;
          continue;
        }
        if (this.filesScanned >= MAX_FILES_SCANNED) {
          this.fileCapHit = true;
          break;
        }
        this.filesScanned += 1;
        pending.push(
          this.searchFile({ path: entry.path, display: entry.display, type: entry.type, entry }),
        );
        if (pending.length >= CONCURRENCY) {
          this.consume(await (pending.shift() as Promise<FileResult>));
          if (this.limitHit) break;
        }
      }
      while (pending.length > 0 && !this.limitHit && !this.context.signal.aborted) {
        this.consume(await (pending.shift() as Promise<FileResult>));
      }
    } finally {
      // Reads still running close their own files; wait so none outlives the call.
      await Promise.allSettled(pending);
    }
  }

  /** Adds one file's result, in order, up to the match limit. */
  consume(result: FileResult): void {
    if ("skip" in result) {
      this.skipped[result.skip] += 1;
      return;
    }
    for (const match of result.matches) {
      if (this.matches.length >= this.limit) {
        this.limitHit = true;
        return;
      }
      this.matches.push(match);
    }
  }

  /**
   * Checks, opens and searches one file. Never throws. `resolved` is given for an explicitly
   * requested file (not a walk: sensitive files are then searched, the policy having decided).
   */
  async searchFile(candidate: Candidate, resolved?: ResolvedPath): Promise<FileResult> {
    const fromWalk = resolved === undefined && candidate.entry !== undefined
      ? this.context.guard.fromWalkEntry(candidate.entry) ?? undefined
      : undefined;
    let path = resolved ?? fromWalk;
    if (path !== undefined && resolved === undefined && path.sensitive !== null) {
      return { skip: "sensitive" };
    }
    if (path === undefined) {
      const check = await this.context.guard.check(candidate.path, "read").catch(() => null);
      if (check === null || !check.ok) {
        return { skip: candidate.type === "symlink" ? "links" : "unreadable" };
      }
      path = check.path;
      if (
        candidate.type === "symlink" && (path.type !== "file" || this.inExcludedFolder(path.real))
      ) {
        return { skip: "links" };
      }
      if (path.sensitive !== null) return { skip: "sensitive" };
    }
    if (path.type !== "file") return { skip: "not_regular" };
    if (resolved === undefined && (path.links ?? 1) > 1) return { skip: "hard_links" };
    if (path.size > MAX_FILE_BYTES) return { skip: "too_large" };
    // A walk entry's identity was observed with its folders held; anything else is proven now.
    const identityProven = fromWalk !== undefined && path === fromWalk;
    const opened = await openVerifiedForRead(path, { identityProven, signal: this.context.signal })
      .catch(() => null);
    if (opened === null || "ok" in opened) return { skip: "unreadable" };
    try {
      const bytes = await readAllBounded(opened.file, opened.size, MAX_FILE_BYTES);
      if (bytes === "too_large") return { skip: "too_large" };
      if (hasNulByte(bytes)) return { skip: "binary" };
      return { matches: this.searchText(new TextDecoder().decode(bytes), candidate.display) };
    } catch {
      return { skip: "unreadable" };
    } finally {
      opened.file.close();
    }
  }

  /** A link target inside a folder walks skip (`.git`, the runs folder) stays unread, like the folder. */
  inExcludedFolder(real: string): boolean {
    for (let folder = nodePath.dirname(real); folder !== "/"; folder = nodePath.dirname(folder)) {
      if (this.context.guard.excludedFromWalks(folder)) return true;
    }
    return false;
  }

  searchText(text: string, display: string): GrepMatch[] {
    const matches: GrepMatch[] = [];
    const lines = text.split("\n");
    if (lines.at(-1) === "") lines.pop();
    // One match past the limit tells `consume` that there are more.
    for (let index = 0; index < lines.length && matches.length <= this.limit; index += 1) {
      let line = lines[index] as string;
      if (line.endsWith("\r")) line = line.slice(0, -1);
      const found = this.regex.exec(line);
      if (found === null) continue;
      matches.push({
        path: display,
        line: index + 1,
        text: cutAround(line, MAX_MATCH_LINE_CHARACTERS, found.index),
      });
    }
    return matches;
  }

  result(display: string, pattern: string): ToolOutcome {
    const depthLimited = this.stats.depth_limited > 0;
    const truncated = this.limitHit || this.fileCapHit || depthLimited;
    const lines = this.matches.map((match) => `${match.path}:${match.line}:${match.text}`);
    if (this.limitHit) {
      lines.push(`[truncated: stopped at ${this.limit} matches; narrow the pattern, path or glob]`);
    }
    if (this.fileCapHit) {
      lines.push(`[truncated: stopped after ${MAX_FILES_SCANNED} files; search a sub-folder]`);
    }
    if (depthLimited) {
      lines.push(
        `[truncated: ${this.stats.depth_limited} folders below depth ${MAX_WALK_DEPTH} not searched]`,
      );
    }
    const skippedTotal = Object.values(this.skipped).reduce((sum, count) => sum + count, 0);
    if (skippedTotal > 0) lines.push(`[skipped: ${describeSkipped(this.skipped)}]`);
    if (this.stats.changed > 0) {
      lines.push(
        `[skipped: ${this.stats.changed} folders that changed during the search (a concurrent ` +
          `rename); search again]`,
      );
    }

    const files = new Set(this.matches.map((match) => match.path)).size;
    const scanned = `scanned ${this.filesScanned} ${this.filesScanned === 1 ? "file" : "files"}`;
    const summary = this.matches.length === 0
      ? `Found no matches for "${pattern}" in "${display}" (${scanned})`
      : `Found ${this.matches.length} ${
        this.matches.length === 1 ? "match" : "matches"
      } in ${files} ` +
        `${files === 1 ? "file" : "files"} of "${display}" (${scanned}${
          truncated ? ", truncated" : ""
        })`;
    const data: GrepFilesData = {
      path: display,
      matches: this.matches,
      files_scanned: this.filesScanned,
      truncated,
      skipped: this.skipped,
      stats: this.stats,
    };
    return success(summary, lines.join("\n"), data);
  }
}

/** A glob without `/` matches the file name; with one, the path relative to the searched folder. */
function globMatcher(glob: string): (relative: string) => boolean {
  const matches = picomatch(glob, { dot: true });
  if (glob.includes("/")) return (relative) => matches(relative);
  return (relative) => matches(nodePath.basename(relative));
}

function describeSkipped(skipped: GrepSkipped): string {
  const names: Record<keyof GrepSkipped, string> = {
    binary: "binary",
    sensitive: "sensitive",
    too_large: "over 10 MiB",
    unreadable: "unreadable",
    not_regular: "not regular files",
    links: "symlinks not followed",
    hard_links: "with other hard links",
  };
  return (Object.keys(names) as (keyof GrepSkipped)[])
    .filter((key) => skipped[key] > 0)
    .map((key) => `${skipped[key]} ${names[key]}`)
    .join(", ");
}
