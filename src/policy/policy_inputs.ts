/**
 * What the effective policy is computed from and what it reports per tool: config rules, skill
 * requests, the inputs of {@linkcode EffectivePolicy.compute}, agent types and the tool-level view.
 *
 * @module
 */

import type { ToolDescriptor } from "../tools/mod.ts";
import type { Decision, PolicyLayer } from "./policy_rule.ts";
import type { HashedFolders } from "./policy_hash.ts";
import type { AllowedToolsList } from "./agent_tool_sets.ts";

/** A permissions.json rule as loaded from config (ids filled in). */
export interface ConfigRule {
  id: string;
  tools: string[];
  tags?: string[] | undefined;
  paths?: string[] | undefined;
  commands?: string[] | undefined;
  arguments?: string[] | undefined;
  /** First arguments, in order; see {@linkcode PolicyRule.argument_prefix}. */
  argument_prefix?: string[] | undefined;
  /** Host patterns (`net.fetch`); see {@linkcode PolicyRule.hosts}. */
  hosts?: string[] | undefined;
  decision: Decision;
  reason?: string | undefined;
}

/** What a skill asks for: rules (ask/deny only) and a narrowing of the tool set. */
export interface SkillRequest {
  skill: string;
  /** Tool-name patterns the skill may use; the run's tool set becomes the intersection. */
  allowed_tools?: string[];
  /**
   * The only commands the skill's command tools may run (`Bash(git:*)` in its allowed-tools):
   * when present, a call of a tool named here runs only a command one of its entries covers;
   * any other command of that tool is denied (`skill:allowed-tools`). @default no limit
   */
  allowed_commands?: SkillCommand[];
  rules?: Omit<ConfigRule, "id">[];
}

/**
 * One command a skill may run: `{tool: "exec.run_command", argv: ["git"], prefix: true}` covers
 * every `git …` call; with `prefix: false` only that exact argv. `argv[0]` is compared with the
 * allowlisted program name the call resolved to, the rest word for word.
 */
export interface SkillCommand {
  /** The command tool, e.g. `exec.run_command`. */
  tool: string;
  /** The program and the leading arguments, e.g. `["git", "diff"]`. */
  argv: string[];
  /** Whether more arguments may follow `argv`. */
  prefix: boolean;
}

/** Inputs of {@linkcode EffectivePolicy.compute}. */
export interface PolicyInputs {
  /** Every registered tool. */
  tools: ToolDescriptor[];
  /** Canonical workspace path, for path rules. */
  workspace: string;
  /** Rules from permissions.json, in file order. */
  configRules: ConfigRule[];
  /** Where they came from: a file path, `inline`, or null when none. */
  configSource: string | null;
  skillRequests?: SkillRequest[];
  /** Roots and protected paths, recorded in the snapshot. */
  sandbox: Record<string, unknown>;
  /**
   * The current run's own folders (`workspace/`, `deliverables/`, real paths): writes that stay
   * inside them are allowed by default, since they exist to be written. @default []
   */
  runFolders?: string[];
  /**
   * Which agent the tool set is for (see `agent_tool_sets.ts`): `worker` gets a minimal set
   * (`WORKER_TOOLS`) plus the write tools an `allowed_tools` list names exactly; `sub`, `fork` and
   * `worker` never get memory tools, the plan tool, the task tools that create or edit tasks, or
   * the tools that start or list agents; each starts from the config, never from a parent's set.
   * @default "main"
   */
  agentType?: AgentType;
  /**
   * `allowed_tools` lists of a child agent (its definition's, its dispatch's): each narrows the
   * set, none widens it past the agent type's (`runtime:agent-allowed-tools`). @default none
   */
  allowedTools?: AllowedToolsList[];
  /** The task policy's tool patterns: the set can only be narrowed to them. @default no narrowing */
  taskTools?: string[];
  /** Tools the task suggests: a preference recorded in the snapshot, never a grant. */
  suggestedTools?: string[];
  /**
   * `permissions.mode: "smart"`: asks of config rules and of the default layer are answered from
   * the tool's annotations when they are safe, up to this risk level (`smart:annotations`).
   * @default null: every ask asks
   */
  smartApproval?: { maxRisk: number } | null;
  /**
   * How the commands of command tools (`tools`: exec.run_command, skills.run_script, declarative
   * tools) are confined. `off` turns those tools off (`sandbox:command-isolation`); `none` makes
   * every call of them ask (`runtime:unconfined-command`), whatever a rule allows. @default bwrap
   */
  commandIsolation?: { effective: "bwrap" | "none" | "off"; reason: string; tools: string[] };
  /**
   * The run's folder: written `<run>` in scopes and before hashing, so that the policy hash (which
   * grants name) is the same for every run of the same config.
   */
  runDir?: string;
  /**
   * Other folders written by name before hashing: the home folder `<home>` (home dotfiles are
   * protected paths), the config file's folder `<config>`, the runs folder `<runs>`.
   * @default none
   */
  folders?: HashedFolders;
}

/** The tool-level view of one tool, for `kagent-run policy` and the snapshot. */
export interface ToolPolicy {
  tool: string;
  /** The decision for a call that touches no path. */
  decision: Decision;
  rule: string;
  layer: PolicyLayer;
  reason: string;
  /** In the run's effective tool set (a tool-level deny removes it). */
  available: boolean;
  /** Rules with paths or commands that may change the decision per call. */
  conditional_rules: string[];
}

/** The kinds of agent a tool set is computed for. */
export type AgentType = "main" | "sub" | "fork" | "worker";

/** The agent types, for option parsing. */
export const AGENT_TYPES: readonly AgentType[] = ["main", "sub", "fork", "worker"];
