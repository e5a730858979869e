/**
 * Tools whose handler runs on the main thread instead of the tool Worker: the tools of MCP servers,
 * whose client connections live there. They go through every other step of the pipeline alike.
 *
 * @module
 */

import type { ToolOutcome } from "../result/mod.ts";

/**
 * Runs the calls of the tools it {@linkcode MainThreadTools.handles} (step 6 of the pipeline).
 * `execute` never rejects: a fault becomes a failed outcome.
 *
 * @example
 * ```ts
 * import type { MainThreadTools } from "./main_thread_tools.ts";
 * const tools: MainThreadTools = {
 *   handles: (name) => name.startsWith("demo."),
 *   execute: () => Promise.resolve({ ok: true, summary: "ok", output: "", data: null, error: null }),
 * };
 * console.assert(tools.handles("demo.echo"));
 * ```
 */
export interface MainThreadTools {
  /** Tells whether the tool named `name` runs here. */
  handles(name: string): boolean;
  /** Runs one validated, approved call. */
  execute(
    name: string,
    toolCallId: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<ToolOutcome>;
}
