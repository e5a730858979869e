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
import type { SearchCandidates, ToolContext } from "../../tools/mod.ts";
import { success, type ToolOutcome } from "../../result/mod.ts";
import type { IgnoreRules, ResolvedPath } from "../../sandbox/mod.ts";
import { openProvenForRead, openVerifiedForRead, type VerifiedFile } from "../../sandbox/mod.ts";
import { presentedText } from "../../sandbox/mod.ts";
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
import { answerOrAbort } from "./_answer_or_abort.ts";
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
  /** Relative to the searched folder: looked up in the ripgrep candidates. */
  relative?: string;
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

  /**
   * The files ripgrep named (relative to the searched folder), once known: a regular file the
   * walk finds outside the set is counted as searched without being opened. Symlinks and
   * requested files are always read. Null: every file is read (no ripgrep, or it failed).
   */
  candidates: ReadonlySet<string> | null = null;

  constructor(
    readonly pattern: LinePattern,
    readonly limit: number,
    readonly context: ToolContext,
    readonly budget: TimeBudget,
  ) {}

  get stopped(): boolean {
    return this.limitHit || this.timeHit;
  }

  /** Stopped, or at the file cap: nothing more is searched. */
  get #done(): boolean {
    return this.stopped || this.fileCapHit;
  }

  /**
   * Walks `start`, searching each file as the walk reaches it, results in walk order. With
   * `pending` (ripgrep running on the main thread), the walk goes on while ripgrep runs and holds
   * back the files it finds (at most {@linkcode MAX_FILES_SCANNED}); once ripgrep's answer is in,
   * they are searched in order, reading only those it named (or all of them, when it failed).
   */
  async searchFolder(
    start: ResolvedPath,
    matchesGlob: ((relative: string) => boolean) | null,
    pending: Promise<SearchCandidates | null> | null = null,
    ignoreRules: IgnoreRules | null = null,
  ): Promise<void> {
    const walker = walk(start, {
      ignoreRules,
      guard: this.context.guard,
      recursive: true,
      maxDepth: MAX_WALK_DEPTH,
      signal: this.context.signal,
      stats: this.stats,
      budget: this.budget,
      // With ripgrep running, files are not lstat'ed: only its candidates are read, each proven.
      statFiles: pending === null,
    });
    let held: WalkEntry[] | null = null;
    let answered = pending === null;
    if (pending !== null) {
      held = [];
      void pending.then((found) => {
        answered = true;
        if (found !== null && found.root === start.real) this.candidates = new Set(found.files);
      }, () => answered = true);
    }
    for await (const entry of walker) {
      if (this.context.signal.aborted) break;
      if (entry.type === "directory") continue;
      if (held !== null) {
        if (!answered && held.length <= MAX_FILES_SCANNED) {
          held.push(entry);
          continue;
        }
        await answerOrAbort(pending, () => answered, this.context.signal);
        await this.#searchEntries(held, start, matchesGlob);
        held = null;
        if (this.#done) break;
      }
      await this.#searchEntries([entry], start, matchesGlob);
      if (this.#done) break;
    }
    if (held !== null && !this.#done && !this.context.signal.aborted) {
      await answerOrAbort(pending, () => answered, this.context.signal);
      await this.#searchEntries(held, start, matchesGlob);
    }
    // The walk stops by itself when the budget runs out: that is a time stop too.
    if (!this.stopped && this.budget.ranOut) this.timeHit = true;
  }

  /** Searches walk entries in order, until the search stops. */
  async #searchEntries(
    entries: readonly WalkEntry[],
    start: ResolvedPath,
    matchesGlob: ((relative: string) => boolean) | null,
  ): Promise<void> {
    const prefix = start.real.endsWith(nodePath.sep) ? start.real : `${start.real}${nodePath.sep}`;
    for (const entry of entries) {
      if (this.#done || this.context.signal.aborted) return;
      if (entry.type === "directory") continue;
      // Walk entries lie below the start folder: slicing is exact, and cheaper than `relative`.
      const relative = entry.path.startsWith(prefix)
        ? entry.path.slice(prefix.length)
        : nodePath.relative(start.real, entry.path);
      if (matchesGlob !== null && !matchesGlob(relative)) {
        this.notMatchingGlob += 1;
        continue;
      }
      if (entry.type === "other") {
        this.consume({ skip: "not_regular", path: entry.display });
        continue;
      }
      if (this.filesConsidered >= MAX_FILES_SCANNED) {
        this.fileCapHit = true;
        return;
      }
      this.filesConsidered += 1;
      const result = this.searchFile({
        path: entry.path,
        display: entry.display,
        type: entry.type,
        entry,
        relative,
      });
      this.consume(result instanceof Promise ? await result : result);
    }
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
    // A file the walk did not lstat: ripgrep's answer decides before any system call.
    if (
      fromWalkOnly && candidate.type === "file" && candidate.entry?.identity === null &&
      this.candidates !== null
    ) {
      if (this.context.guard.sensitiveMatch(candidate.path) !== null) return skip("sensitive");
      if (!this.candidates.has(candidate.relative ?? "")) return { matches: [], complete: true };
    }
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
      // ripgrep found no matching line in this regular file: searched, without opening it.
      if (
        this.candidates !== null && candidate.type === "file" &&
        !this.candidates.has(candidate.relative ?? "")
      ) {
        return { matches: [], complete: true };
      }
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
    const text = presentedText(display, this.#decoder.decode(bytes)); // A config: no credentials.
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
    const engine = this.candidates === null ? "builtin" : "ripgrep";
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
      engine,
    };
    return success(summary, output, data);
  }
}
