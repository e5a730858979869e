/**
 * What `fs.grep_files` tells the model: the matches, then every reason the search saw less than
 * everything (files skipped and which, folders that changed, where and why it stopped), in the
 * summary and in the output. Private to the folder.
 *
 * @module
 */

import { describeBudget } from "../../sandbox/mod.ts";
import type { WalkStats } from "../../sandbox/mod.ts";
import { MAX_WALK_DEPTH } from "./_limits.ts";

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

/** Why a search returned less than every match: the first reason that applies, in this order. */
export type GrepTruncatedReason = "time_budget" | "match_limit" | "file_limit" | "depth_limit";

/** One skipped file, named so the model knows where a match may hide. */
export interface SkippedFile {
  /** The file as found by the walk, relative to the workspace. */
  path: string;
  reason: keyof GrepSkipped;
}

/** Most skipped files named in the result data; the counts in `skipped` stay exact. */
export const MAX_SKIPPED_FILES_NAMED = 50;
/** Skipped files named per reason in the summary (the output names up to 10). */
const NAMED_IN_SUMMARY = 3;
const NAMED_IN_OUTPUT = 10;

const SKIP_LABELS: Record<keyof GrepSkipped, [one: string, many: string]> = {
  too_large: ["file over 10 MiB", "files over 10 MiB"],
  binary: ["binary file", "binary files"],
  sensitive: ["sensitive file", "sensitive files"],
  hard_links: ["file with other hard links", "files with other hard links"],
  unreadable: ["unreadable file", "unreadable files"],
  not_regular: ["non-regular file (FIFO, socket or device)", "non-regular files"],
  links: ["symlink not followed", "symlinks not followed"],
};

/** What a search found and passed over, for {@linkcode grepReport}. */
export interface GrepFacts {
  /** The searched folder or file, as displayed. */
  display: string;
  pattern: string;
  glob: string | null;
  /** `path:line:text` of each match, in order. */
  matchLines: string[];
  /** Distinct files with a match. */
  matchedFiles: number;
  filesScanned: number;
  /** Files the glob left out. */
  notMatchingGlob: number;
  skipped: GrepSkipped;
  skippedFiles: SkippedFile[];
  stats: WalkStats;
  limit: number;
  maxFiles: number;
  timeBudgetMs: number;
  /** Every reason that applies, in {@linkcode GrepTruncatedReason} order. */
  truncatedReasons: GrepTruncatedReason[];
}

/** The summary and output of a search. */
export function grepReport(facts: GrepFacts): { summary: string; output: string } {
  const count = facts.matchLines.length;
  const scanned = `scanned ${facts.filesScanned} ${facts.filesScanned === 1 ? "file" : "files"}`;
  const details = [scanned, ...passedOver(facts, NAMED_IN_SUMMARY)];
  if (facts.filesScanned === 0) details[0] = `${scanned}${nothingScanned(facts)}`;
  if (facts.truncatedReasons.length > 0) {
    details.push(`truncated: ${
      facts.truncatedReasons.map((reason) => stopReason(reason, facts))
        .join(", ")
    }`);
  }
  const summary = count === 0
    ? `Found no matches for "${facts.pattern}" in "${facts.display}" (${details.join("; ")})`
    : `Found ${count} ${count === 1 ? "match" : "matches"} in ${facts.matchedFiles} ` +
      `${facts.matchedFiles === 1 ? "file" : "files"} of "${facts.display}" (${
        details.join("; ")
      })`;

  const lines = count === 0
    ? [
      `Found no matches for "${facts.pattern}" in "${facts.display}" (${scanned}${
        facts.filesScanned === 0 ? nothingScanned(facts) : ""
      })`,
    ]
    : [...facts.matchLines];
  for (const reason of facts.truncatedReasons) {
    lines.push(`[truncated: ${stopAdvice(reason, facts)}]`);
  }
  for (const note of passedOver(facts, NAMED_IN_OUTPUT)) lines.push(`[${note}]`);
  return { summary, output: lines.join("\n") };
}

/** "skipped 1 file over 10 MiB: big.log", one a reason, then changed folders. */
function passedOver(facts: GrepFacts, named: number): string[] {
  const notes: string[] = [];
  for (const reason of Object.keys(SKIP_LABELS) as (keyof GrepSkipped)[]) {
    const total = facts.skipped[reason];
    if (total === 0) continue;
    const [one, many] = SKIP_LABELS[reason];
    const names = facts.skippedFiles.filter((file) => file.reason === reason)
      .map((file) => file.path);
    const shown = names.slice(0, named);
    const more = total - shown.length;
    const list = shown.length === 0
      ? ""
      : `: ${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
    notes.push(`skipped ${total} ${total === 1 ? one : many}${list}`);
  }
  if (facts.stats.changed > 0) {
    notes.push(
      `skipped ${facts.stats.changed} ${
        facts.stats.changed === 1 ? "folder that" : "folders that"
      } changed during the search (a concurrent rename); search again`,
    );
  }
  if (facts.stats.unreadable > 0) {
    notes.push(`skipped ${facts.stats.unreadable} unreadable ${plural(facts.stats.unreadable)}`);
  }
  if (facts.stats.ignored > 0) {
    notes.push(
      `left out ${facts.stats.ignored} ${
        facts.stats.ignored === 1 ? "entry" : "entries"
      } ignored by .gitignore or .ignore (include_ignored: true searches them)`,
    );
  }
  return notes;
}

/** Why nothing was read, when nothing was skipped either. */
function nothingScanned(facts: GrepFacts): string {
  const skipped = Object.values(facts.skipped).some((count) => count > 0);
  if (skipped || facts.stats.changed > 0) return "";
  if (facts.notMatchingGlob > 0) {
    return `: none of the ${facts.notMatchingGlob} files found matches the glob "${facts.glob}"`;
  }
  if (facts.truncatedReasons.includes("time_budget")) return "";
  return ": there are no files to search there";
}

function stopReason(reason: GrepTruncatedReason, facts: GrepFacts): string {
  switch (reason) {
    case "time_budget":
      return `time budget of ${describeBudget(facts.timeBudgetMs)} ran out`;
    case "match_limit":
      return `match limit of ${facts.limit} reached`;
    case "file_limit":
      return `file limit of ${facts.maxFiles} reached`;
    case "depth_limit":
      return `${facts.stats.depth_limited} ${plural(facts.stats.depth_limited)} below depth ` +
        `${MAX_WALK_DEPTH} not searched`;
  }
}

function stopAdvice(reason: GrepTruncatedReason, facts: GrepFacts): string {
  switch (reason) {
    case "time_budget":
      return `stopped when the time budget of ${describeBudget(facts.timeBudgetMs)} ran out ` +
        `(limits.search_time_budget_ms); search a sub-folder or narrow the glob`;
    case "match_limit":
      return `stopped at ${facts.limit} matches; narrow the pattern, path or glob`;
    case "file_limit":
      return `stopped after ${facts.maxFiles} files; search a sub-folder`;
    case "depth_limit":
      return `${facts.stats.depth_limited} folders below depth ${MAX_WALK_DEPTH} not searched`;
  }
}

function plural(folders: number): string {
  return folders === 1 ? "folder" : "folders";
}
