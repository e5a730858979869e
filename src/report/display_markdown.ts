/**
 * Display blocks (`result/display_blocks.ts`) as Markdown, for the Markdown report and the GitHub
 * step summary. Every text of a block is either escaped ({@linkcode escapeMarkdown}) or verbatim
 * inside a fence longer than any run of backticks in it ({@linkcode codeBlock}); an artifact link
 * is a link only when its path is a file of the run folder (`linkablePath`).
 *
 * @module
 */

import {
  type ArtifactLinkBlock,
  type DiffBlock,
  type DisplayBlock,
  type FileExcerptBlock,
  isKnownBlock,
  type ShellBlock,
  type TableBlock,
} from "../result/mod.ts";
import { linkablePath } from "./_fields.ts";
import { runHref } from "./html_escape.ts";
import { codeBlock, escapeMarkdown } from "./markdown_report.ts";

/** Options of {@linkcode displayMarkdown}. */
export interface DisplayMarkdownOptions {
  /** The run folder as seen from the Markdown's folder; null: artifacts named, not linked. */
  runBase?: string | null;
  /** A brief block with this text is left out (it repeats the summary shown beside). */
  summary?: string;
  /** Most table rows shown. @default 20 */
  maxRows?: number;
}

/**
 * The Markdown lines of a call's display blocks: a brief as a line, a diff in a `diff` fence, a
 * table as a Markdown table, a command with its exit code and output excerpts, a file excerpt
 * with its line range, an artifact as a link; a block of an unknown type as its type and its data
 * as JSON in a fence.
 *
 * @param blocks From `readDisplayBlocks` (a `ToolResult.display` or a recorded one).
 * @returns Lines to join with `\n`; `[]` when there is nothing to show.
 * @example
 * ```ts
 * import { displayMarkdown } from "./display_markdown.ts";
 * const lines = displayMarkdown([{ type: "chart", data: { points: [1, 2] } }]);
 * console.assert(lines.join("\n").includes('"points"'));
 * ```
 */
export function displayMarkdown(
  blocks: readonly DisplayBlock[],
  options: DisplayMarkdownOptions = {},
): string[] {
  const lines: string[] = [];
  for (const block of blocks) {
    const part = blockLines(block, options);
    if (part.length > 0) lines.push(...(lines.length > 0 ? [""] : []), ...part);
  }
  return lines;
}

function blockLines(block: DisplayBlock, options: DisplayMarkdownOptions): string[] {
  if (!isKnownBlock(block)) {
    return [
      `**${escapeMarkdown(block.type)}** \\(a display block this version does not know\\):`,
      "",
      codeBlock(JSON.stringify((block as { data?: unknown }).data ?? null, null, 2), "json"),
    ];
  }
  switch (block.type) {
    case "brief":
      return block.text === options.summary ? [] : [escapeMarkdown(block.text)];
    case "diff":
      return diffLines(block);
    case "table":
      return tableLines(block, options.maxRows ?? 20);
    case "shell":
      return shellLines(block);
    case "file_excerpt":
      return excerptLines(block);
    case "artifact_link":
      return [artifactLine(block, options.runBase ?? null)];
  }
}

function diffLines(block: DiffBlock): string[] {
  return [
    `${escapeMarkdown(block.path)}: \\+${block.added} −${block.removed}${
      block.note === undefined ? "" : ` \\(${escapeMarkdown(block.note)}\\)`
    }`,
    "",
    codeBlock(block.diff, "diff"),
  ];
}

function tableLines(block: TableBlock, maxRows: number): string[] {
  if (block.columns.length === 0) return [];
  const cell = (text: string) =>
    escapeMarkdown(text.length > 160 ? `${text.slice(0, 160)}…` : text);
  const rows = block.rows.slice(0, maxRows);
  const hidden = block.total_rows - rows.length;
  return [
    `| ${block.columns.map(cell).join(" | ")} |`,
    `| ${block.columns.map(() => "---").join(" | ")} |`,
    ...rows.map((row) => `| ${row.map(cell).join(" | ")} |`),
    ...(hidden > 0 ? ["", `\\(${hidden} more rows\\)`] : []),
  ];
}

function shellLines(block: ShellBlock): string[] {
  const end = block.timed_out
    ? "timed out"
    : block.signal !== null
    ? `signal ${block.signal}`
    : block.exit_code === null
    ? "did not exit"
    : `exit ${block.exit_code}`;
  return [
    `${codeSpan(`$ ${block.command}`)}${
      block.cwd === null ? "" : ` in ${escapeMarkdown(block.cwd)}`
    }: ${escapeMarkdown(end)}`,
    ...(block.stdout_excerpt === "" ? [] : ["", codeBlock(block.stdout_excerpt, "text")]),
    ...(block.stderr_excerpt === "" ? [] : ["", "stderr:", "", codeBlock(block.stderr_excerpt)]),
  ];
}

function excerptLines(block: FileExcerptBlock): string[] {
  const count = block.text === "" ? 0 : block.text.split("\n").length;
  const last = block.start_line + Math.max(count - 1, 0);
  return [
    `${escapeMarkdown(block.path)}, lines ${block.start_line}–${last}${
      block.total_lines === null ? "" : ` of ${block.total_lines}`
    }:`,
    "",
    codeBlock(block.text),
  ];
}

function artifactLine(block: ArtifactLinkBlock, runBase: string | null): string {
  const path = linkablePath(block.ref);
  const label = `${escapeMarkdown(block.label)} \\(${block.bytes} bytes, ${
    escapeMarkdown(block.media_type)
  }\\)`;
  return path === null || runBase === null
    ? `${label}: ${escapeMarkdown(block.ref)}`
    : `[${label}](${runHref(runBase, path)})`;
}

/** Inline code holding `text` verbatim (one line), fenced by more backticks than it holds. */
function codeSpan(text: string): string {
  const line = text.replace(/\r\n|\r|\n/g, " ");
  const longest = Math.max(0, ...[...line.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence} ${line} ${fence}`;
}
