/**
 * The events of the dynamic system blocks (memory_context, instruction files), part of
 * {@link ./audit_event.ts}'s union. Private to the folder.
 *
 * @module
 */

/** `memory_context.updated` and `instruction_file.registered` (docs/EVENTS.md). */
export type SystemBlockEvent =
  | {
    type: "memory_context.updated";
    /** `run_start` (recalled for the task) or `recall` (a `memory.recall_memory` call). */
    source: "run_start" | "recall";
    /** The recall's call id; null at the run's start. */
    tool_call_id: string | null;
    /** Memories new to the block. */
    added: number;
    /** Memories the block holds now. */
    count: number;
    /** Size of the block sent, in bytes (UTF-8); 0 when not even its frame fits the cap. */
    bytes: number;
    /** sha256 (hex) of the block sent; null when there is none. */
    sha256: string | null;
    /** `artifacts/<sha256>.txt` holding the block's exact text; null when there is none. */
    artifact: string | null;
    /** The block was cut at `memory.context_max_bytes`. */
    cut: boolean;
  }
  | {
    type: "instruction_file.registered";
    /** The `fs.read_file` call that read it. */
    tool_call_id: string;
    /** The file as the read named it. */
    path: string;
    /** Size of the block sent, in bytes (UTF-8); 0 when the total cap left no room. */
    bytes: number;
    /** sha256 (hex) of the block sent; null when there is none. */
    sha256: string | null;
    /** `artifacts/<sha256>.txt` holding the block's exact text; null when there is none. */
    artifact: string | null;
    /** The block was cut at its cap. */
    cut: boolean;
  };
