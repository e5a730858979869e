/**
 * What a caller may choose when it opens a session or prepares its policy.
 *
 * @module
 */

import type { Approver, Grant } from "../approval/mod.ts";
import type { BubblewrapProbe } from "../exec/mod.ts";
import type { PostToolUseHook, PreToolUseHook } from "../hooks/mod.ts";
import type { AgentType, SkillRequest } from "../policy/mod.ts";
import type { ToolDefinition } from "../tools/mod.ts";
import type { ReadEnvironment } from "./environment.ts";

/** Options shared by `preparePolicy` and `openRunSession`. */
export interface SessionOptions {
  /** The tools every run has (the Worker must serve the same ones). @default builtinTools() */
  tools?: ToolDefinition<never>[];
  /** The tool Worker's entry module (tests serve extra tools). @default worker_main.ts */
  workerEntry?: URL;
  skillRequests?: SkillRequest[];
  /** The agent the tool set is for. @default "main" */
  agentType?: AgentType;
  /** Task policy: tool-name patterns the set is narrowed to. */
  taskTools?: string[];
  /** Task preference: recorded, never a grant. */
  suggestedTools?: string[];
  /** Reads an environment variable (for secret redaction); undefined when unset or not permitted. */
  env?: ReadEnvironment;
  /** @default () => new Date() */
  now?: () => Date;
  /** Longest a tool handler may run, in ms. @default the config's tools.max_timeout_ms + 15 s */
  handlerTimeoutMs?: number;
  /**
   * Tells whether bubblewrap can run (tests pass one that says no, to see `auto` turn command
   * tools off). @default the real probe
   */
  probeBubblewrap?: (bwrapPath: string) => Promise<BubblewrapProbe>;
  /** Names of the environment's variables (for the command env allowlist's globs). */
  environmentNames?: () => string[];
  /**
   * Who answers asks. @default null: nobody (every ask ends as approval_required, with the grant that
   * would allow it)
   */
  approver?: Approver | null;
  /** Grants from `--approve` and `--approvals`, with where each came from (for messages). */
  grants?: { grant: Grant; source: string }[];
  /** Longest wait for the approver, in ms. @default 300000 */
  approvalTimeoutMs?: number;
  /** In-process hooks (library use), run after the config's command hooks. @default none */
  hooks?: { preToolUse?: PreToolUseHook[]; postToolUse?: PostToolUseHook[] };
  /**
   * How tool requests to the HTTP memory service leave the process: the CLI passes the network
   * gateway's memory channel. @default globalThis.fetch (library use and tests)
   */
  memoryFetch?: typeof fetch;
  /**
   * The task the model is given, recorded in `run.json` and the `run.started` event.
   * @default null (a run without a model, such as `kagent-run call`)
   */
  task?: string | null;
}
