/**
 * Display blocks: what a tool call shows a person, kept apart from `output` (what the model reads).
 * A {@linkcode ToolResult} carries them as `display`; the terminal's progress lines, the GitHub step
 * summary and the HTML/Markdown report render from them, and `logs/tools.jsonl` records them.
 *
 * Six types are known (`brief`, `diff`, `table`, `shell`, `file_excerpt`, `artifact_link`). A block
 * of any other type (an MCP server's, a declarative tool's, a later version's) is kept as
 * `{type, data}` and shown as data, never dropped. {@linkcode readDisplayBlocks} is the one way in:
 * it checks every block, keeps unknown ones, and caps the size of each block and their number.
 *
 * @module
 */

import { deeperThanMarker, MAX_VALUE_DEPTH } from "./bounded_json.ts";

/** One line summing the call up, e.g. `Edited "src/a.ts": 1 edit, 1 replacement`. */
export interface BriefBlock {
  type: "brief";
  /** One line (no line breaks), at most {@linkcode MAX_BRIEF_CHARACTERS} characters. */
  text: string;
}

/** A change to a file, as a unified diff. */
export interface DiffBlock {
  type: "diff";
  /** The file, as the tool names it (relative to the workspace when inside it). */
  path: string;
  /** Unified diff text (`---`/`+++` headers, `@@` hunks, `+`/`-`/` ` lines). */
  diff: string;
  /** Lines added and removed (the `+` and `-` lines of the hunks). */
  added: number;
  removed: number;
  /** What the diff does not show, e.g. `the text replaced is not known`. @default absent */
  note?: string;
}

/** Rows of cells under named columns (a listing, search matches). */
export interface TableBlock {
  type: "table";
  /** Column names, e.g. `["path", "type", "bytes"]`. */
  columns: string[];
  /** Each row has one cell a column. */
  rows: string[][];
  /** Rows the result had in all (more than `rows.length` when cut). */
  total_rows: number;
}

/** A command that ran: what, where, how it ended, and excerpts of its output. */
export interface ShellBlock {
  type: "shell";
  /** The command line as a person reads it, e.g. `git log --oneline -5`. */
  command: string;
  /** The working folder as the tool names it, or null when not known. */
  cwd: string | null;
  /** The exit code, or null when the process did not exit by itself (signal, timeout, not started). */
  exit_code: number | null;
  /** The signal that ended it, e.g. `SIGKILL`, or null. */
  signal: string | null;
  timed_out: boolean;
  /** Head and tail of standard output and standard error (empty when there was none). */
  stdout_excerpt: string;
  stderr_excerpt: string;
}

/** Lines of a file, as read. */
export interface FileExcerptBlock {
  type: "file_excerpt";
  path: string;
  /** 1-based number of the first line of `text`. */
  start_line: number;
  /** The lines, without line numbers, joined with `\n`. */
  text: string;
  /** Lines of the file in all, when known, else null. */
  total_lines: number | null;
}

/** A file of the run folder worth opening: a whole output, a fetched body. */
export interface ArtifactLinkBlock {
  type: "artifact_link";
  /** Path relative to the run folder, e.g. `artifacts/3b5d…e1.txt`. */
  ref: string;
  /** What it is, e.g. `stdout of the command`. */
  label: string;
  media_type: string;
  bytes: number;
}

/**
 * A block of a type this version does not know, kept as it came: its `type` and the rest of its
 * fields as `data`. A block of a known type whose fields are not as described is kept the same way
 * under the type `unknown`, with the whole block as `data`.
 */
export interface UnknownBlock {
  type: string;
  data: unknown;
}

/** A block this version knows how to show. */
export type KnownDisplayBlock =
  | BriefBlock
  | DiffBlock
  | TableBlock
  | ShellBlock
  | FileExcerptBlock
  | ArtifactLinkBlock;

/** Any display block: a known one, or an {@linkcode UnknownBlock} kept as data. */
export type DisplayBlock = KnownDisplayBlock | UnknownBlock;

/** The known block types. */
export const DISPLAY_BLOCK_TYPES = [
  "brief",
  "diff",
  "table",
  "shell",
  "file_excerpt",
  "artifact_link",
] as const;

/** Most blocks one result keeps; the rest are left out after a brief block saying so. */
export const MAX_DISPLAY_BLOCKS = 16;

/** Largest block, in UTF-8 bytes of its JSON (16 KiB); longer texts in it are cut to fit. */
export const MAX_DISPLAY_BLOCK_BYTES = 16 * 1024;

/** Longest brief line, in characters. */
export const MAX_BRIEF_CHARACTERS = 200;

/**
 * Tells whether a block is one of the known types with the fields they need (unknown blocks are
 * `{type, data}` and pass through renderers as data).
 */
export function isKnownBlock(block: DisplayBlock): block is KnownDisplayBlock {
  return problemOf(block as unknown as Record<string, unknown>) === null;
}

/**
 * The text of the first `brief` block, or null when there is none.
 *
 * @example
 * ```ts
 * import { briefOf } from "./display_blocks.ts";
 * console.assert(briefOf([{ type: "brief", text: "Listed 2 entries" }]) === "Listed 2 entries");
 * ```
 */
export function briefOf(blocks: readonly DisplayBlock[] | undefined): string | null {
  for (const block of blocks ?? []) {
    if (block.type === "brief" && isKnownBlock(block)) return (block as BriefBlock).text;
  }
  return null;
}

/**
 * Reads display blocks from untrusted data (a handler's outcome, a recorded line): every block is
 * kept, known ones checked, unknown ones as `{type, data}`, a malformed known one as
 * `{type: "unknown", data: block}`; a value that is not an object becomes an `unknown` block too.
 * A block over {@linkcode MAX_DISPLAY_BLOCK_BYTES} has its longest texts (and a table's rows) cut
 * until it fits; past {@linkcode MAX_DISPLAY_BLOCKS} the rest are left out and a last brief block
 * counts them. A brief's text is made one line and cut at {@linkcode MAX_BRIEF_CHARACTERS}.
 *
 * @param value What claims to be a list of blocks; anything else reads as no blocks.
 * @returns Blocks that are safe to render and to record.
 * @example
 * ```ts
 * import { readDisplayBlocks } from "./display_blocks.ts";
 * const blocks = readDisplayBlocks([
 *   { type: "brief", text: "two\nlines" },
 *   { type: "chart", data: { points: [1, 2] } },
 * ]);
 * console.assert(blocks[0]?.type === "brief" && blocks[1]?.type === "chart");
 * ```
 */
export function readDisplayBlocks(value: unknown): DisplayBlock[] {
  if (!Array.isArray(value)) return [];
  const blocks: DisplayBlock[] = [];
  const kept = value.slice(0, MAX_DISPLAY_BLOCKS - (value.length > MAX_DISPLAY_BLOCKS ? 1 : 0));
  for (const item of kept) blocks.push(fitBlock(readBlock(item)));
  if (value.length > kept.length) {
    blocks.push({
      type: "brief",
      text: `[${value.length - kept.length} more display blocks left out: at most ` +
        `${MAX_DISPLAY_BLOCKS} a result]`,
    });
  }
  return blocks;
}

function readBlock(item: unknown): DisplayBlock {
  if (typeof item !== "object" || item === null || Array.isArray(item)) {
    return { type: "unknown", data: item ?? null };
  }
  const record = item as Record<string, unknown>;
  const type = record.type;
  if (typeof type !== "string" || type === "") return { type: "unknown", data: record };
  if (!(DISPLAY_BLOCK_TYPES as readonly string[]).includes(type)) {
    // `{type, data}` as written stays so; any other shape keeps its fields as data.
    const keys = Object.keys(record);
    const data = keys.length === 2 && "data" in record ? record.data : withoutType(record);
    return { type, data: data ?? null };
  }
  if (problemOf(record) !== null) return { type: "unknown", data: record };
  if (type === "brief") {
    const line = (record.text as string).replace(/\s*[\r\n]+\s*/g, " ").trim();
    return {
      type: "brief",
      text: line.length > MAX_BRIEF_CHARACTERS
        ? `${line.slice(0, MAX_BRIEF_CHARACTERS - 1)}…`
        : line,
    };
  }
  return structuredClone(record) as unknown as KnownDisplayBlock;
}

function withoutType(record: Record<string, unknown>): Record<string, unknown> {
  const { type: _type, ...rest } = record;
  return rest;
}

const isString = (value: unknown) => typeof value === "string";
const isCount = (value: unknown) =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
const isStringOrNull = (value: unknown) => value === null || typeof value === "string";

/** Why a record is not a valid block of its known type, or null when it is (or not known). */
function problemOf(record: Record<string, unknown>): string | null {
  const need = (checks: Record<string, (value: unknown) => boolean>): string | null => {
    for (const [key, check] of Object.entries(checks)) {
      if (!check(record[key])) return `"${key}" is missing or of the wrong type`;
    }
    return null;
  };
  switch (record.type) {
    case "brief":
      return need({ text: isString });
    case "diff":
      return need({ path: isString, diff: isString, added: isCount, removed: isCount }) ??
        ("note" in record && !isString(record.note) ? `"note" is not a string` : null);
    case "table": {
      const problem = need({ columns: isStringArray, rows: Array.isArray, total_rows: isCount });
      if (problem !== null) return problem;
      const width = (record.columns as string[]).length;
      const rows = record.rows as unknown[];
      return rows.every((row) => isStringArray(row) && (row as string[]).length === width)
        ? null
        : `every row must have ${width} text cells`;
    }
    case "shell":
      return need({
        command: isString,
        cwd: isStringOrNull,
        exit_code: (value) => value === null || Number.isSafeInteger(value),
        signal: isStringOrNull,
        timed_out: (value) => typeof value === "boolean",
        stdout_excerpt: isString,
        stderr_excerpt: isString,
      });
    case "file_excerpt":
      return need({
        path: isString,
        start_line: isCount,
        text: isString,
        total_lines: (value) => value === null || isCount(value),
      });
    case "artifact_link":
      return need({ ref: isString, label: isString, media_type: isString, bytes: isCount });
    default:
      return `"${String(record.type)}" is not a known block type`;
  }
}

function isStringArray(value: unknown): boolean {
  return Array.isArray(value) && value.every(isString);
}

const encoder = new TextEncoder();

function sizeOf(block: unknown): number {
  return encoder.encode(JSON.stringify(block) ?? "").byteLength;
}

/**
 * The block cut to {@linkcode MAX_DISPLAY_BLOCK_BYTES}: every text longer than a shrinking limit is
 * cut (a table's rows and an unknown block's lists too); a block that cannot be cut to fit becomes
 * a brief naming its type and size.
 */
function fitBlock(block: DisplayBlock): DisplayBlock {
  const size = sizeOf(block);
  if (size <= MAX_DISPLAY_BLOCK_BYTES) return block;
  const known = isKnownBlock(block);
  for (const limit of [8192, 4096, 1024, 256, 64]) {
    let cut = cutValue(block, limit, !known) as DisplayBlock;
    if (cut.type === "table" && known) {
      const table = cut as TableBlock;
      cut = { ...table, rows: table.rows.slice(0, Math.max(1, Math.floor(limit / 8))) };
    }
    if (sizeOf(cut) <= MAX_DISPLAY_BLOCK_BYTES) return cut;
  }
  return {
    type: "brief",
    text: `[display block "${block.type.slice(0, 40)}" of ${size} bytes left out: over ` +
      `${MAX_DISPLAY_BLOCK_BYTES} bytes]`,
  };
}

/** Strings over `limit` characters cut; with `cutLists`, lists cut to `limit / 8` items too. */
function cutValue(value: unknown, limit: number, cutLists: boolean, depth = 0): unknown {
  if (typeof value === "object" && value !== null && depth >= MAX_VALUE_DEPTH) {
    return deeperThanMarker();
  }
  if (typeof value === "string") {
    return value.length > limit
      ? `${value.slice(0, limit)}… [cut ${value.length - limit} characters]`
      : value;
  }
  if (Array.isArray(value)) {
    const items = value.map((item) => cutValue(item, limit, cutLists, depth + 1));
    const most = Math.max(1, Math.floor(limit / 8));
    return cutLists && items.length > most ? items.slice(0, most) : items;
  }
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map((
        [name, item],
      ) => [name, cutValue(item, limit, cutLists, depth + 1)]),
    );
  }
  return value;
}
