/**
 * What a caller may choose when it opens a session or prepares its policy.
 *
 * @module
 */

import type { Approver, Grant } from "../approval/mod.ts";
import type { BubblewrapProbe } from "../exec/mod.ts";
import type { PostToolUseHook, PreToolUseHook } from "../hooks/mod.ts";
import type { AgentType, AllowedToolsList, SkillRequest } from "../policy/mod.ts";
import type { MainThreadTools } from "../runtime/mod.ts";
import type { ToolDefinition } from "../tools/mod.ts";
import type { ReadEnvironment } from "./environment.ts";
import type { RunFolder } from "../audit/mod.ts";

/** Options shared by `preparePolicy` and `openRunSession`. */
export interface SessionOptions {
  /** The tools every run has (the Worker must serve the same ones). @default builtinTools() */
  tools?: ToolDefinition<never>[];
  /** The tool Worker's entry module (tests serve extra tools). @default worker_main.ts */
  workerEntry?: URL;
  /**
   * Tools about to be called (`kagent-run call` names one): their argument validators are compiled
   * while the tool Worker starts, when the main thread would wait idle. Unknown names are ignored.
   * @default []
   */
  warmTools?: readonly string[];
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
   * How requests to HTTP MCP servers leave the process: the CLI passes the network gateway's
   * `mcp` channel. There is no default: without it an HTTP server of `mcp_servers` cannot start
   * (a `mcp_server_failed` ConfigError, or a warning when it has `required: false`).
   */
  mcpFetch?: typeof fetch;
  /**
   * How `net.fetch` requests leave the process: the CLI passes the network gateway's `tools`
   * channel (the tools network Worker: allowlist, address check, pinned connection). There is no
   * default: without it every `net.fetch` call fails closed (`permission_denied`).
   */
  toolsFetch?: typeof fetch;
  /**
   * The task the model is given, recorded in `run.json` and the `run.started` event.
   * @default null (a run without a model, such as `kagent-run call`)
   */
  task?: string | null;
  /**
   * Who runs in this session: the main agent, or a child agent started by an agent tool (its run
   * folder is then `agents/<run-id>/` in its parent's, its `run.json` names the parent, its
   * approval requests carry both). @default the main agent, level 1, no parent
   */
  agent?: SessionAgent;
  /**
   * The run id (and folder name under `runs_dir`) of a run without a parent, chosen beforehand
   * with `createRunId` (`kagent-run worker` records it as the owner run of the step it claims
   * before the folder exists). @default one made from the start time
   */
  runId?: string;
  /**
   * A child agent's `allowed_tools` lists (its definition's, its parent's call's): each narrows its
   * tool set. @default none
   */
  allowedTools?: AllowedToolsList[];
  /**
   * The grants of the parent agent's run, read at each ask (a child agent's run): they cover the
   * child's calls as they would the parent's; grants made in the child stay in the child.
   * `grants` are not checked against a child's policy hash: a child's grants are its parent's.
   * @default none
   */
  inheritedGrants?: () => readonly Grant[];
  /**
   * Tools besides the MCP servers' whose handlers run on the main thread: the agent tools and the
   * task tools, built by the layer above the session. Their definitions are registered by
   * `preparePolicy`. @default null: none (a call of such a tool fails naming the reason)
   */
  mainThreadTools?: MainThreadTools | null;
  /**
   * Register the agent, plan and task tools when the config defines `agents`. False where nothing
   * can run child agents (`kagent-run mcp` serves tool calls, not an agent loop), so they are not
   * offered at all. @default true
   */
  agentTools?: boolean;
  /**
   * Continue a sealed run as its next segment (`kagent-run resume`) instead of creating a run
   * folder: its logs' hash chains go on, `run.json` is kept, and the segment starts with a
   * `run.resumed` event (`record`) instead of `run.started`. @default null: a new run
   */
  resume?: ResumeSegment | null;
}

/** The sealed run a session continues (see {@linkcode SessionOptions.resume}). */
export interface ResumeSegment {
  /** The run folder, opened with `RunFolder.open`. */
  folder: RunFolder;
  /**
   * The policy hash the run was sealed under: a session whose policy hashes otherwise is refused
   * (`ConfigError` `config_invalid`, key `permissions`) before anything is written.
   */
  policyHash: string;
  /** The fields of the segment's `run.resumed` event (its anchor, the calls it runs again). */
  record: {
    segment: number;
    previous_manifest_sha256: string;
    previous_end_reason: string;
    resumed_after_turn: number | null;
    rerun: string[];
  };
}

/** The agent a session runs: the main agent, or a child agent and where it hangs in the tree. */
export interface SessionAgent {
  /** `main`, or a child's `<definition>-<n>`, unique in the agent tree. */
  agent_id: string;
  /** The agent type: `main`, `sub`, `fork` or `worker`. */
  role: AgentType;
  /** The `agents` entry a child was started from; null for the main agent. */
  definition: string | null;
  /** Level in the agent tree: the main agent is 1, its children 2. */
  depth: number;
  /** The parent agent's run; null for the main agent. */
  parent: {
    agent_id: string;
    run_id: string;
    /** The parent's run folder (absolute): the child's folder is `agents/<run-id>/` in it. */
    run_dir: string;
    /** Run ids from the root run down to the parent. */
    ancestors: string[];
    /**
     * The root run's policy hash: the child's approval gate names it in the grants it prints, so
     * that `--approve` on the root run (checked against that hash) reaches the child.
     */
    grant_policy_hash: string;
  } | null;
}
