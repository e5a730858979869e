/**
 * Messages between the main thread and the tool Worker. Plain JSON-compatible data only.
 *
 * @module
 */

import type { PathGuardOptions } from "../sandbox/mod.ts";
import type {
  ExecContext,
  FileToolSettings,
  RunLocations,
  SearchCandidates,
} from "../tools/mod.ts";
import type { MemorySettings } from "../memory/mod.ts";
import type { DeclarativeToolFile } from "../toolsets/declarative/mod.ts";
import type { ToolOutcome } from "../result/mod.ts";
import type { FetchAbortMessage, FetchReplyMessage, FetchRequestMessage } from "../network/mod.ts";

/** Main thread → Worker. */
export type HostMessage =
  | InitMessage
  | {
    type: "execute";
    id: number;
    tool: string;
    tool_call_id: string;
    arguments: Record<string, unknown>;
    /**
     * `fs.grep_files`: ripgrep runs on the main thread for this call; its answer follows in a
     * `search_candidates` message. Absent: none runs.
     */
    awaits_search_candidates?: true;
  }
  | { type: "abort"; id: number; reason: string }
  /** The files ripgrep found may match (a filter only), or null when it failed. */
  | { type: "search_candidates"; id: number; candidates: SearchCandidates | null }
  | FetchReplyMessage;

/** Worker → main thread. */
export type WorkerMessage =
  | { type: "ready"; tools: string[] }
  | { type: "init_failed"; message: string }
  | { type: "result"; id: number; outcome: ToolOutcome }
  /** An HTTP request of a handler (the memory service); the Worker itself has no network. */
  | FetchRequestMessage
  | FetchAbortMessage;

/** The first message: everything the Worker needs to build its guard, context and tools. */
export interface InitMessage {
  type: "init";
  guard: PathGuardOptions;
  run: RunLocations;
  /** Command tool settings; null when no command tool is enabled. */
  exec: ExecContext | null;
  /** File tool settings from the config; null keeps the tools' defaults. */
  files?: FileToolSettings | null;
  /** The command tools are part of the tool set (`toolSet` on both sides). */
  command_tools: boolean;
  /** Declarative tool files, turned into tools on both sides. */
  declarative_tools: DeclarativeToolFile[];
  /** Real skill folders: the skill tools are built from them on both sides. */
  skill_dirs: string[];
  /** Memory tool settings, or null when memory is off. */
  memory: MemorySettings | null;
}
