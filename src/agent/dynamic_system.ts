/**
 * Dynamic system blocks: text the run adds to the system prompt as it goes, for the requests that
 * follow. Two kinds, each delimited and labelled ({@link ./_system_block_text.ts}):
 *
 * - `memory_context`: memories recalled at the run's start and by each `memory.recall_memory`
 *   call, once each (by id), in the order first recalled, the block capped in bytes;
 * - `instruction_file`: the text of an instruction file (`AGENTS.md`, `CLAUDE.md`, the names of
 *   `agent.instruction_files`) the first time `fs.read_file` reads it, capped per file and in all.
 *
 * Every change is recorded: the block's exact text as an artifact (`artifacts/<sha256>.txt`) and an
 * event (`memory_context.updated`, `instruction_file.registered`) with its size and sha256. The
 * static prompt (`system_prompt.md`) is unchanged; a request's system text is the static prompt
 * followed by the blocks ({@linkcode DynamicSystemBlocks.systemFor}).
 *
 * @module
 */

import * as nodePath from "node:path";
import { type AuditRecorder, sha256Hex } from "../audit/mod.ts";
import { DEFAULT_SYSTEM_BLOCKS } from "../config/base/mod.ts";
import type { MemoryRecord } from "../memory/mod.ts";
import type { ToolResult } from "../result/mod.ts";
import {
  byteLength,
  instructionFileText,
  memoryContextText,
  unnumberedLines,
  withBlocks,
} from "./_system_block_text.ts";

/** What the agent loop asks of dynamic system text (see `AgentOptions.dynamicSystem`). */
export interface DynamicSystem {
  /** Looks at a turn's results, in call order, before the next request is built. */
  afterTurn(results: readonly ToolResult[]): Promise<void>;
  /** The system text of the next request, given the run's own prompt. */
  systemFor(base: string): string;
}

/** Where a memory_context change came from. */
export type MemoryContextSource = "run_start" | "recall";

/** Options of {@linkcode DynamicSystemBlocks}. */
export interface DynamicSystemOptions {
  /**
   * File names (the last path segment, compared exactly) that are instruction files.
   * @default DEFAULT_INSTRUCTION_FILES (["AGENTS.md", "CLAUDE.md"]); [] registers none
   */
  instructionFiles?: readonly string[];
  /** Largest instruction_file block, in UTF-8 bytes. @default 8192 */
  instructionFileMaxBytes?: number;
  /** Largest sum of all instruction_file blocks, in bytes. @default 4 × instructionFileMaxBytes */
  instructionTotalMaxBytes?: number;
  /** Largest memory_context block, in UTF-8 bytes; 0: no block. @default 4096 */
  memoryContextMaxBytes?: number;
  /** Redacts secrets from a block before it is sent or recorded. */
  redact: (text: string) => string;
  /** Records the events (and a block the run folder refused, as an error). */
  recorder: Pick<AuditRecorder, "event" | "error">;
  /** Stores a block's exact text in the run folder; returns its ref (`artifacts/<sha256>.txt`). */
  storeText: (text: string) => Promise<string>;
}

/** The instruction file names registered when none are configured. */
export const DEFAULT_INSTRUCTION_FILES: readonly string[] = Object.freeze([
  "AGENTS.md",
  "CLAUDE.md",
]);

/**
 * Holds a run's dynamic system blocks and records each change. Not safe for concurrent calls:
 * the loop calls {@linkcode afterTurn} once a turn, after the turn's calls have all ended.
 *
 * @example
 * ```ts
 * import { DynamicSystemBlocks } from "./dynamic_system.ts";
 * const blocks = new DynamicSystemBlocks({
 *   redact: (text) => text,
 *   recorder: { event: () => Promise.resolve(1), error: () => Promise.resolve(1) },
 *   storeText: () => Promise.resolve("artifacts/x.txt"),
 * });
 * await blocks.addMemories([{
 *   id: "m1", scope: "project", content: "Run deno task check", tags: [],
 *   created_at: "2026-11-20T10:00:00.000Z",
 * }], "run_start", null);
 * console.assert(blocks.systemFor("You are an agent.").includes("<memory_context count=\"1\">"));
 * ```
 */
export class DynamicSystemBlocks implements DynamicSystem {
  readonly #names: ReadonlySet<string>;
  readonly #fileMax: number;
  readonly #totalMax: number;
  readonly #memoryMax: number;
  readonly #options: DynamicSystemOptions;
  readonly #memories: MemoryRecord[] = [];
  readonly #memoryIds = new Set<string>();
  #memoryBlock: string | null = null;
  /** Instruction blocks by path, in registration order; null: seen but no room left. */
  readonly #instructions = new Map<string, string | null>();
  #instructionBytes = 0;

  /** @param options See {@linkcode DynamicSystemOptions}. */
  constructor(options: DynamicSystemOptions) {
    this.#options = options;
    this.#names = new Set(options.instructionFiles ?? DEFAULT_INSTRUCTION_FILES);
    this.#fileMax = options.instructionFileMaxBytes ??
      DEFAULT_SYSTEM_BLOCKS.instruction_file_max_bytes;
    this.#totalMax = options.instructionTotalMaxBytes ?? 4 * this.#fileMax;
    this.#memoryMax = options.memoryContextMaxBytes ??
      DEFAULT_SYSTEM_BLOCKS.memory_context_max_bytes;
  }

  /** See {@linkcode DynamicSystem.systemFor}. */
  systemFor(base: string): string {
    const blocks = [
      ...(this.#memoryBlock === null ? [] : [this.#memoryBlock]),
      ...[...this.#instructions.values()].filter((block): block is string => block !== null),
    ];
    return withBlocks(base, blocks);
  }

  /** See {@linkcode DynamicSystem.afterTurn}: recalls feed memory_context, reads of instruction files register. */
  async afterTurn(results: readonly ToolResult[]): Promise<void> {
    for (const result of results) {
      if (!result.ok) continue;
      if (result.tool === "memory.recall_memory") {
        await this.addMemories(recalledRecords(result.data), "recall", result.tool_call_id);
      } else if (result.tool === "fs.read_file") {
        await this.#readFile(result);
      }
    }
  }

  /**
   * Adds memories to memory_context (those not already in it, by id) and records the new block:
   * a `memory_context.updated` event and the block's text as an artifact. Nothing changes (and
   * nothing is recorded) when every record is already there or the cap is 0.
   *
   * @param toolCallId The recall's call id; null at the run's start.
   */
  async addMemories(
    records: readonly MemoryRecord[],
    source: MemoryContextSource,
    toolCallId: string | null,
  ): Promise<void> {
    if (this.#memoryMax === 0) return;
    const added = records.filter((record) => !this.#memoryIds.has(record.id));
    if (added.length === 0) return;
    for (const record of added) {
      this.#memoryIds.add(record.id);
      this.#memories.push(record);
    }
    const block = memoryContextText(this.#memories, this.#memoryMax);
    const recorded = await this.#recorded(block === null ? null : block.text, "memory_context");
    this.#memoryBlock = recorded.text;
    await this.#options.recorder.event("memory_context.updated", {
      source,
      tool_call_id: toolCallId,
      added: added.length,
      count: this.#memories.length,
      ...recorded.fields,
      cut: block === null || block.cut,
    });
  }

  async #readFile(result: ToolResult): Promise<void> {
    const path = readPath(result.data);
    if (path === null || !this.#names.has(nodePath.basename(path))) return;
    if (this.#instructions.has(path)) return;
    const room = Math.min(this.#fileMax, this.#totalMax - this.#instructionBytes);
    const block = instructionFileText(path, unnumberedLines(result.output), room);
    const recorded = await this.#recorded(block === null ? null : block.text, "instruction_file");
    this.#instructions.set(path, recorded.text);
    this.#instructionBytes += recorded.fields.bytes;
    await this.#options.recorder.event("instruction_file.registered", {
      tool_call_id: result.tool_call_id,
      path,
      ...recorded.fields,
      cut: block === null || block.cut,
    });
  }

  /**
   * Redacts a block's text and stores it: its size, sha256 and artifact (zero and null when there
   * is none). A block the run folder refuses to store is not sent (fail closed): the refusal goes
   * to `logs/errors.jsonl` and the block is left out.
   */
  async #recorded(block: string | null, kind: string): Promise<{
    text: string | null;
    fields: { bytes: number; sha256: string | null; artifact: string | null };
  }> {
    const none = { text: null, fields: { bytes: 0, sha256: null, artifact: null } };
    if (block === null) return none;
    const text = this.#options.redact(block);
    let artifact: string;
    try {
      artifact = await this.#options.storeText(text);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      await this.#options.recorder.error({
        source: "dynamic_system",
        message: `Cannot add the ${kind} block to the system prompt: ${reason}`,
      });
      return none;
    }
    const sha256 = sha256Hex(text);
    return { text, fields: { bytes: byteLength(text), sha256, artifact } };
  }
}

/** The records of a `memory.recall_memory` result's data; [] for anything else. */
function recalledRecords(data: unknown): MemoryRecord[] {
  const records = (data as { records?: unknown } | null)?.records;
  if (!Array.isArray(records)) return [];
  return records.filter((record): record is MemoryRecord =>
    typeof record === "object" && record !== null &&
    typeof record.id === "string" && typeof record.scope === "string" &&
    typeof record.content === "string" && typeof record.created_at === "string" &&
    Array.isArray(record.tags) && record.tags.every((tag: unknown) => typeof tag === "string")
  );
}

/** The `path` of an `fs.read_file` result's data, or null. */
function readPath(data: unknown): string | null {
  const path = (data as { path?: unknown } | null)?.path;
  return typeof path === "string" && path !== "" ? path : null;
}
