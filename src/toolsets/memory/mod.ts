/**
 * The memory toolset: `memory.recall_memory` and, unless writes are disabled,
 * `memory.write_memory`.
 *
 * @module
 */

import type { MemoryProvider } from "../../memory/mod.ts";
import type { MemoryWriteMode } from "../../memory/mod.ts";
import type { ToolDefinition } from "../../tools/mod.ts";
import { createRecallMemoryTool } from "./recall_memory.ts";
import { createWriteMemoryTool } from "./write_memory.ts";

export type { MemoryWriteMode };

/** Options of {@linkcode createMemoryTools}. */
export interface MemoryToolsOptions {
  /** `null` when none is configured: recall answers nothing, `external` writes fail. */
  provider: MemoryProvider | null;
  mode: MemoryWriteMode;
  /** Absolute `runs/<id>/archive/memory_candidates.jsonl`; null without a run folder. */
  candidatesFile: string | null;
  /** Allowed scope names (config `memory.scopes`). */
  scopes: string[];
  /** Redacts secrets, e.g. `(text) => redactor.redactText(text)`. */
  redact: (text: string) => string;
}

/**
 * Builds the memory tools: recall always, write unless `mode` is `disabled`.
 *
 * @example
 * ```ts
 * import { createMemoryTools } from "./mod.ts";
 * const tools = createMemoryTools({
 *   provider: null,
 *   mode: "disabled",
 *   candidatesFile: "/tmp/run/archive/memory_candidates.jsonl",
 *   scopes: ["project"],
 *   redact: (text) => text,
 * });
 * console.assert(tools.length === 1 && tools[0]?.name === "memory.recall_memory");
 * ```
 */
export function createMemoryTools(options: MemoryToolsOptions): ToolDefinition[] {
  const tools = [createRecallMemoryTool(options)];
  if (options.mode !== "disabled") {
    tools.push(createWriteMemoryTool({ ...options, mode: options.mode }));
  }
  return tools;
}
