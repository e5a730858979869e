/**
 * The search behind `fs.grep_files` (the built-in searcher): a walk, one verified file at a time,
 * every line matched with an RE2 pattern, all within the call's time budget. Private to the
 * folder.
 *
 * Fast without ripgrep, in bounded memory: every file system call is synchronous (the handler runs
 * in the tool Worker, where blocking holds up nothing anyone waits for; a synchronous call costs a
 * few µs against 15 – 45 µs for the asynchronous form), a file is read into one buffer reused for
 * the whole search (at most 10 MiB, the largest file searched), and most files are ruled out
 * before they are decoded or split: first by the byte-level literal prefilter (a literal every
 * match contains, looked for with native `indexOf`), then by one run of the pattern over the whole
 * decoded text. Only files that may match are split into lines and matched line by line.
 *
 * @module
 */

import * as nodePath from "node:path";
import type { ToolContext } from "../../tools/mod.ts";
import { success, type ToolOutcome } from "../../result/mod.ts";
import type { ResolvedPath } from "../../sandbox/mod.ts";
import { openProvenForRead, openVerifiedForRead, type VerifiedFile } from "../../sandbox/mod.ts";
import type { TimeBudget } from "../../sandbox/mod.ts";
import { emptyWalkStats, walk, type WalkEntry, type WalkStats } from "../../sandbox/mod.ts";
import { hasNulByte } from "./_binary.ts";
import {
  grepReport,
  type GrepSkipped,
  type GrepTruncatedReason,
  MAX_SKIPPED_FILES_NAMED,
  type SkippedFile,
} from "./_grep_report.ts";
import { MAX_FILE_BYTES, MAX_WALK_DEPTH } from "./_limits.ts";
import type { LinePattern } from "./_line_pattern.ts";
import { readAllBoundedSync } from "./_read_bounded.ts";
import { cutAround } from "./_text.ts";
import type { GrepFilesData, GrepMatch } from "./grep_files.ts";

/** Most files one call considers; the search stops there, marked truncated. */
export const MAX_FILES_SCANNED = 20_000;
/** Longest matching line shown whole, in characters. */
export const MAX_MATCH_LINE_CHARACTERS = 1000;
/** Characters matched between two looks at the time budget, within a file. */
const BUDGET_CHECK_CHARACTERS = 65_536;

/** A file to search: from the walk, or the path the call named. */
export interface Candidate {
  path: string;
  display: string;
  type: "file" | "symlink";
  /** The walk's facts of a regular file (saves a full guard check per file). */
  entry?: WalkEntry;
}

/**
 * One file's outcome: its matches (`complete: false` when the time budget ran out inside it), a
 * reason it was skipped, or `unsearched` (the budget ran out before it was read).
 */
type FileResult =
  | { matches: GrepMatch[]; complete: boolean }
  | { skip: keyof GrepSkipped; path: string }
  | { unsearched: true };

/** The state of one search: counts, matches, and the bounded pipeline of file reads. */
export class Search {
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
  readonly skippedFiles: SkippedFile[] = [];
  readonly stats: WalkStats = emptyWalkStats();
  filesScanned = 0;
  filesConsidered = 0;
  notMatchingGlob = 0;
  limitHit = false;
  fileCapHit = false;
  timeHit = false;

  constructor(
    readonly pattern: LinePattern,
    readonly limit: number,
    readonly context: ToolContext,
    readonly budget: TimeBudget,
  ) {}

  get stopped(): boolean {
    return this.limitHit || this.timeHit;
  }

  /** Walks `start`, searching each file as the walk reaches it, results in walk order. */
  async searchFolder(
    start: ResolvedPath,
    matchesGlob: ((relative: string) => boolean) | null,
  ): Promise<void> {
    const walker = walk(start, {
      guard: this.context.guard,
      recursive: true,
      maxDepth: MAX_WALK_DEPTH,
      signal: this.context.signal,
      stats: this.stats,
      budget: this.budget,
    });
    for await (const entry of walker) {
      if (this.context.signal.aborted) break;
      if (entry.type === "directory") continue;
      if (matchesGlob !== null && !matchesGlob(nodePath.relative(start.real, entry.path))) {
        this.notMatchingGlob += 1;
        continue;
      }
      if (entry.type === "other") {
        this.consume({ skip: "not_regular", path: entry.display });
        continue;
      }
      if (this.filesConsidered >= MAX_FILES_SCANNED) {
        this.fileCapHit = true;
        break;
      }
      this.filesConsidered += 1;
      const result = this.searchFile({
        path: entry.path,
        display: entry.display,
        type: entry.type,
        entry,
      });
      this.consume(result instanceof Promise ? await result : result);
      if (this.stopped) break;
    }
    // The walk stops by itself when the budget runs out: that is a time stop too.
    if (!this.stopped && this.budget.ranOut) this.timeHit = true;
  }

  /** Adds one file's result, in order, up to the match limit. */
  consume(result: FileResult): void {
    if (this.stopped) return;
    if ("unsearched" in result) {
      this.timeHit = true;
      return;
    }
    if ("skip" in result) {
      this.skipped[result.skip] += 1;
      if (this.skippedFiles.length < MAX_SKIPPED_FILES_NAMED) {
        this.skippedFiles.push({ path: result.path, reason: result.skip });
      }
      return;
    }
    this.filesScanned += 1;
    for (const match of result.matches) {
      if (this.matches.length >= this.limit) {
        this.limitHit = true;
        return;
      }
      this.matches.push(match);
    }
    if (!result.complete) this.timeHit = true;
  }

  /**
   * Checks, opens and searches one file. Never throws. `resolved` is given for an explicitly
   * requested file (not a walk: sensitive files are then searched, the policy having decided).
   * Synchronous for a regular file found by the walk (its identity is proven); a symlink's target
   * or a requested file is proven first, which may wait for its folders to settle.
   */
  searchFile(candidate: Candidate, resolved?: ResolvedPath): FileResult | Promise<FileResult> {
    // A walk stops between files when the budget is out; a file asked for by name is searched.
    const fromWalkOnly = resolved === undefined;
    if (fromWalkOnly && this.budget.exhausted()) return { unsearched: true };
    const skip = (reason: keyof GrepSkipped): FileResult => ({
      skip: reason,
      path: candidate.display,
    });
    const fromWalk = resolved === undefined && candidate.entry !== undefined
      ? this.context.guard.fromWalkEntry(candidate.entry) ?? undefined
      : undefined;
    let path = resolved ?? fromWalk;
    if (path !== undefined && resolved === undefined && path.sensitive !== null) {
      return skip("sensitive");
    }
    if (path === undefined) {
      let check;
      try {
        check = this.context.guard.checkSync(candidate.path, "read");
      } catch {
        check = null;
      }
      if (check === null || !check.ok) {
        return skip(candidate.type === "symlink" ? "links" : "unreadable");
      }
      path = check.path;
      if (
        candidate.type === "symlink" && (path.type !== "file" || this.inExcludedFolder(path.real))
      ) {
        return skip("links");
      }
      if (path.sensitive !== null) return skip("sensitive");
    }
    if (path.type !== "file") return skip("not_regular");
    if (resolved === undefined && (path.links ?? 1) > 1) return skip("hard_links");
    if (path.size > MAX_FILE_BYTES) return skip("too_large");
    // A walk entry's identity was observed with its folders held; anything else is proven now.
    if (fromWalk !== undefined && path === fromWalk) {
      return this.searchOpened(openProvenForRead(path), candidate.display, fromWalkOnly);
    }
    return openVerifiedForRead(path, { signal: this.context.signal })
      .catch(() => null)
      .then((opened) => this.searchOpened(opened, candidate.display, fromWalkOnly));
  }

  /** The search's one read buffer: grown as files need, never past the largest file searched. */
  #buffer: Uint8Array = new Uint8Array(64 * 1024);
  readonly #decoder = new TextDecoder();

  /** Reads an opened file whole (then closes it), rules it out or matches its lines. */
  searchOpened(
    opened: VerifiedFile | ToolOutcome | null,
    display: string,
    fromWalkOnly: boolean,
  ): FileResult {
    const skip = (reason: keyof GrepSkipped): FileResult => ({ skip: reason, path: display });
    if (opened === null || "ok" in opened) return skip("unreadable");
    let bytes: Uint8Array | "too_large";
    try {
      const read = readAllBoundedSync(opened.file, opened.size, MAX_FILE_BYTES, this.#buffer);
      this.#buffer = read.buffer;
      bytes = read.bytes;
    } catch {
      return skip("unreadable");
    } finally {
      opened.file.close();
    }
    if (bytes === "too_large") return skip("too_large");
    if (hasNulByte(bytes)) return skip("binary");
    if (fromWalkOnly && this.budget.exhausted()) return { unsearched: true };
    // Counted as searched: ruling a file out by its bytes is searching it.
    if (!this.pattern.mayMatchBytes(bytes)) return { matches: [], complete: true };
    const text = this.#decoder.decode(bytes);
    if (!this.pattern.mayMatchText(text)) return { matches: [], complete: true };
    return this.searchText(text, display);
  }

  /** A link target inside a folder walks skip (`.git`, the runs folder) stays unread, like the folder. */
  inExcludedFolder(real: string): boolean {
    for (let folder = nodePath.dirname(real); folder !== "/"; folder = nodePath.dirname(folder)) {
      if (this.context.guard.excludedFromWalks(folder)) return true;
    }
    return false;
  }

  /** Matches every line, looking at the time budget every 64 Ki characters. */
  searchText(text: string, display: string): FileResult {
    const matches: GrepMatch[] = [];
    const lines = text.split("\n");
    if (lines.at(-1) === "") lines.pop();
    let sinceCheck = 0;
    // One match past the limit tells `consume` that there are more.
    for (let index = 0; index < lines.length && matches.length <= this.limit; index += 1) {
      if (sinceCheck >= BUDGET_CHECK_CHARACTERS) {
        sinceCheck = 0;
        if (this.budget.exhausted()) return { matches, complete: false };
      }
      let line = lines[index] as string;
      sinceCheck += line.length + 1;
      if (line.endsWith("\r")) line = line.slice(0, -1);
      const found = this.pattern.search(line);
      if (found === -1) continue;
      matches.push({
        path: display,
        line: index + 1,
        text: cutAround(line, MAX_MATCH_LINE_CHARACTERS, found),
      });
    }
    return { matches, complete: true };
  }

  result(display: string, pattern: string, glob: string | null): ToolOutcome {
    const reasons: GrepTruncatedReason[] = [];
    if (this.timeHit) reasons.push("time_budget");
    if (this.limitHit) reasons.push("match_limit");
    if (this.fileCapHit) reasons.push("file_limit");
    if (this.stats.depth_limited > 0) reasons.push("depth_limit");
    const { summary, output } = grepReport({
      display,
      pattern,
      glob,
      matchLines: this.matches.map((match) => `${match.path}:${match.line}:${match.text}`),
      matchedFiles: new Set(this.matches.map((match) => match.path)).size,
      filesScanned: this.filesScanned,
      notMatchingGlob: this.notMatchingGlob,
      skipped: this.skipped,
      skippedFiles: this.skippedFiles,
      stats: this.stats,
      limit: this.limit,
      maxFiles: MAX_FILES_SCANNED,
      timeBudgetMs: this.budget.limitMs,
      truncatedReasons: reasons,
    });
    const data: GrepFilesData = {
      path: display,
      matches: this.matches,
      files_scanned: this.filesScanned,
      truncated: reasons.length > 0,
      truncated_reason: reasons[0] ?? null,
      time_budget_ms: this.budget.limitMs,
      skipped: this.skipped,
      skipped_files: this.skippedFiles,
      not_matching_glob: this.notMatchingGlob,
      stats: this.stats,
    };
    return success(summary, output, data);
  }
}
