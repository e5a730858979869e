/**
 * The display blocks of a finished call (`result/display_blocks.ts`), built where the runtime turns
 * an outcome into a {@linkcode ToolResult}: from what each built-in tool already returns (summary,
 * output, data, artifacts) and the arguments, so no handler has to change. A handler may still
 * return its own `display`; its blocks are checked and win over the built ones of the same type.
 *
 * | tool                                  | blocks                                               |
 * | ------------------------------------- | ---------------------------------------------------- |
 * | every call                            | `brief` (the summary, or the error, on one line)     |
 * | `fs.read_file`                        | `file_excerpt` (the lines read, without numbers)     |
 * | `fs.edit_file`, `fs.write_file`       | `diff` (a write: the content as added lines)         |
 * | `fs.list_files`                       | `table` of path, type, bytes                         |
 * | `fs.grep_files`                       | `table` of path, line, text                          |
 * | a command (data with `argv`, streams) | `shell` (command, exit code, output excerpts)        |
 * | every artifact                        | `artifact_link`                                      |
 *
 * A call that failed before it ran (a denial, bad arguments) has its `brief` only.
 *
 * @module
 */

import type { Redactor } from "../audit/mod.ts";
import {
  type ArtifactRef,
  type DiffBlock,
  type DisplayBlock,
  type KnownDisplayBlock,
  readDisplayBlocks,
  type ShellBlock,
  type TableBlock,
  type ToolOutcome,
} from "../result/mod.ts";

/** Most rows a built table keeps (`total_rows` says how many there were). */
export const DISPLAY_TABLE_ROWS = 100;

/** Most lines a built file excerpt or written-file diff keeps. */
export const DISPLAY_TEXT_LINES = 200;

/** Lines of a command's output excerpt: the first 20 and the last 10. */
export const DISPLAY_EXCERPT_LINES = { head: 20, tail: 10 } as const;

/** What the blocks of one call are built from. */
interface DisplayInput {
  tool: string;
  /** The outcome as shaped (redacted, output cut). */
  outcome: ToolOutcome;
  /** Every artifact of the result: the handler's, then the one keeping a cut output. */
  artifacts: readonly ArtifactRef[];
  /** How many of `artifacts` the handler stored. */
  handlerArtifacts: number;
  params: unknown;
}

/**
 * The display blocks of a call: a `brief` first, then the tool's blocks, then artifact links;
 * checked and capped by `readDisplayBlocks`, and redacted (the arguments a write shows are not
 * redacted before this). Blocks the handler returned (`ToolOutcome.display`) are checked the same
 * way and replace the built blocks of the types they have.
 *
 * @param tool The tool as called, e.g. `fs.read_file`.
 * @param handled The outcome as the handler (or a pipeline step) returned it, with its `display`
 *   and the artifacts it stored.
 * @param shaped The outcome as shaped (redacted, output cut) and the artifact keeping a cut output.
 * @param params The parsed arguments (or the raw text when they did not parse).
 * @param redactor The run's redactor.
 * @example
 * ```ts
 * import { success } from "../result/mod.ts";
 * import { displayFor } from "./display_for.ts";
 * const outcome = success("Listed 1 entry of \".\"", "a.ts", {
 *   entries: [{ path: "a.ts", type: "file", size: 3 }],
 * });
 * const blocks = displayFor("fs.list_files", outcome, { outcome, artifacts: [] }, { path: "." }, {
 *   redactValue: (value) => value,
 * });
 * console.assert(blocks[0]?.type === "brief" && blocks[1]?.type === "table");
 * ```
 */
export function displayFor(
  tool: string,
  handled: ToolOutcome,
  shaped: { outcome: ToolOutcome; artifacts: readonly ArtifactRef[] },
  params: unknown,
  redactor: Pick<Redactor, "redactValue">,
): DisplayBlock[] {
  const stored = handled.artifacts ?? [];
  const input: DisplayInput = {
    tool,
    outcome: shaped.outcome,
    artifacts: [...stored, ...shaped.artifacts],
    handlerArtifacts: stored.length,
    params,
  };
  const handler = readDisplayBlocks(handled.display);
  const provided = new Set(handler.map((block) => block.type));
  const built: DisplayBlock[] = [
    { type: "brief" as const, text: input.outcome.summary.split("\n", 1)[0] ?? "" },
    ...toolBlocks(input),
    ...input.artifacts.map((artifact, index) => ({
      type: "artifact_link" as const,
      ref: artifact.ref,
      label: index < input.handlerArtifacts ? `stored by ${tool}` : "whole output",
      media_type: artifact.media_type,
      bytes: artifact.bytes,
    })),
  ].filter((block) => !provided.has(block.type));
  const briefFirst = [...handler, ...built].sort((a, b) =>
    Number(b.type === "brief") - Number(a.type === "brief")
  );
  return readDisplayBlocks(redactor.redactValue(briefFirst));
}

function toolBlocks(input: DisplayInput): KnownDisplayBlock[] {
  const { outcome, params } = input;
  const data = record(outcome.data);
  if (data !== null && Array.isArray(data.argv) && record(data.stdout) !== null) {
    return [shellBlock(data)];
  }
  if (!outcome.ok || data === null) return [];
  switch (input.tool) {
    case "fs.read_file":
      return [{
        type: "file_excerpt",
        path: text(data.path),
        start_line: count(data.start_line) || 1,
        // The numbers the model reads, taken off every line in one pass.
        text: firstLines(outcome.output.replace(/^ *\d+\t/gm, "").split("\n")),
        total_lines: typeof data.total_lines === "number" ? data.total_lines : null,
      }];
    case "fs.edit_file":
      return /^(---|Index:|===)/.test(outcome.output) ? [diffBlock(data, outcome.output)] : [];
    case "fs.write_file": {
      const content = record(params)?.content;
      if (typeof content !== "string") return [];
      const lines = content.replace(/\n$/, "").split("\n");
      const path = text(data.path);
      const diff = [
        `+++ ${path}`,
        `@@ -0,0 +1,${lines.length} @@`,
        firstLines(lines.map((line) => `+${line}`)),
      ].join("\n");
      return [{
        ...diffBlock(data, diff),
        ...(data.created === true ? {} : { note: "the text it replaced is not known" }),
      }];
    }
    case "fs.list_files":
      return [table(["path", "type", "bytes"], data.entries, (entry) => [
        text(entry.path),
        text(entry.type),
        String(count(entry.size)),
      ])];
    case "fs.grep_files":
      return [table(["path", "line", "text"], data.matches, (match) => [
        text(match.path),
        String(count(match.line)),
        text(match.text),
      ])];
    default:
      return [];
  }
}

function shellBlock(data: Record<string, unknown>): ShellBlock {
  const argv = (data.argv as unknown[]).map(text);
  return {
    type: "shell",
    command: argv.map((word) => /^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word))
      .join(" "),
    cwd: typeof data.cwd === "string" ? data.cwd : null,
    exit_code: Number.isSafeInteger(data.exit_code) ? data.exit_code as number : null,
    signal: typeof data.signal === "string" ? data.signal : null,
    timed_out: data.timed_out === true,
    stdout_excerpt: excerpt(text(record(data.stdout)?.text)),
    stderr_excerpt: excerpt(text(record(data.stderr)?.text)),
  };
}

function diffBlock(data: Record<string, unknown>, diff: string): DiffBlock {
  const lines = diff.split("\n");
  return {
    type: "diff",
    path: text(data.path),
    diff,
    added: lines.filter((line) => line.startsWith("+") && !line.startsWith("+++")).length,
    removed: lines.filter((line) => line.startsWith("-") && !line.startsWith("---")).length,
  };
}

function table(
  columns: string[],
  items: unknown,
  row: (item: Record<string, unknown>) => string[],
): TableBlock {
  const all = Array.isArray(items) ? items : [];
  return {
    type: "table",
    columns,
    rows: all.slice(0, DISPLAY_TABLE_ROWS).map((item) => row(record(item) ?? {})),
    total_rows: all.length,
  };
}

/** At most {@linkcode DISPLAY_TEXT_LINES} lines, with a last line counting the rest. */
function firstLines(lines: string[]): string {
  if (lines.length <= DISPLAY_TEXT_LINES) return lines.join("\n");
  return [
    ...lines.slice(0, DISPLAY_TEXT_LINES),
    `[… ${lines.length - DISPLAY_TEXT_LINES} more lines]`,
  ].join("\n");
}

/** The head and tail of an output ({@linkcode DISPLAY_EXCERPT_LINES}), each line cut at 300. */
function excerpt(output: string): string {
  if (output === "") return "";
  const lines = output.replace(/\n$/, "").split("\n").map((line) =>
    line.length > 300 ? `${line.slice(0, 300)}…` : line
  );
  const { head, tail } = DISPLAY_EXCERPT_LINES;
  if (lines.length <= head + tail) return lines.join("\n");
  const hidden = lines.length - head - tail;
  return [...lines.slice(0, head), `[… ${hidden} lines …]`, ...lines.slice(-tail)].join("\n");
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : null;
}

function text(value: unknown): string {
  return typeof value === "string"
    ? value
    : value === undefined || value === null
    ? ""
    : String(value);
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}
