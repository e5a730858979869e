/**
 * The tool set each agent type may have at most, hard-coded (issue 14, the design's "effective tool
 * set per agent"): the main agent has every tool; a sub-agent, a fork and a worker never get the
 * plan tool, the task tools that create or edit tasks, the tools that start agents or list their
 * definitions, nor memory tools; a worker gets only its minimal set ({@linkcode WORKER_TOOLS}) plus
 * the write tools its dispatch or definition names exactly. `allowed_tools` lists only narrow what
 * the type allows; nothing here reads a parent's tool set.
 *
 * @module
 */

import picomatch from "picomatch";
import type { ToolDescriptor } from "../tools/mod.ts";
import type { AgentType } from "./policy_inputs.ts";

/** The agent tools that start a child agent run: their own concurrency class in a turn. */
export const CHILD_STARTING_TOOLS: readonly string[] = [
  "agent.create_sub_agent",
  "agent.fork_agent",
  "agent.dispatch_worker",
];

/**
 * The task tools a child agent may have: query ready steps, claim one, read the task, update the
 * step it claimed (the task tools check the ownership).
 */
export const CHILD_TASK_TOOLS: readonly string[] = [
  "agent.task_get",
  "agent.task_query_steps",
  "agent.task_claim_step",
  "agent.task_update_step",
];

/** The only `agent.*` tools a sub-agent, fork or worker may have. */
export const CHILD_AGENT_TOOLS: readonly string[] = [...CHILD_TASK_TOOLS, "agent.inspect_agent"];

/**
 * A worker's default set: the four task tools of {@linkcode CHILD_TASK_TOOLS} and the readonly file
 * and skill tools. Write tools come only when named exactly by its dispatch or definition.
 */
export const WORKER_TOOLS: readonly string[] = [
  ...CHILD_TASK_TOOLS,
  "fs.read_file",
  "fs.list_files",
  "fs.grep_files",
  "skills.list_skills",
  "skills.load_skill",
];

/** One `allowed_tools` list that narrows a child's set, and whose it is (for the reason). */
export interface AllowedToolsList {
  /** Whose list it is, e.g. `agent "reviewer" (config)` or `the dispatch`. */
  source: string;
  /** Tool-name patterns (picomatch globs). */
  patterns: readonly string[];
}

/**
 * Why the agent type or an `allowed_tools` list keeps `tool` out of the set, or null when neither
 * does. The rule is `type` (the agent type) or `allowed` (a list).
 *
 * @param tool The registered tool.
 * @param agentType The agent the set is for.
 * @param allowed The `allowed_tools` lists; each narrows. @default none
 * @example
 * ```ts
 * import { agentTypeExclusion } from "./agent_tool_sets.ts";
 * const write = { name: "fs.write_file", permission: "write" as const };
 * console.assert(agentTypeExclusion(write, "worker", [])?.rule === "type");
 * const asked = [{ source: "the dispatch", patterns: ["fs.write_file", "agent.task_*"] }];
 * console.assert(agentTypeExclusion(write, "worker", asked) === null);
 * ```
 */
export function agentTypeExclusion(
  tool: Pick<ToolDescriptor, "name" | "permission">,
  agentType: AgentType,
  allowed: readonly AllowedToolsList[] = [],
): { rule: "type" | "allowed"; reason: string } | null {
  const name = tool.name;
  if (agentType !== "main") {
    if (name.startsWith("memory.")) {
      return { rule: "type", reason: `a ${agentType} agent never gets memory tools` };
    }
    if (name.startsWith("agent.") && !CHILD_AGENT_TOOLS.includes(name)) {
      return {
        rule: "type",
        reason: `a ${agentType} agent never gets "${name}": only the main agent plans, creates ` +
          "and edits tasks, and starts or lists agents",
      };
    }
    if (agentType === "worker" && !WORKER_TOOLS.includes(name) && !requested(tool, allowed)) {
      return {
        rule: "type",
        reason: `a worker agent gets only ${WORKER_TOOLS.join(", ")}, and the write tools its ` +
          "dispatch or definition names exactly in allowed_tools",
      };
    }
  }
  for (const list of allowed) {
    if (!picomatch.isMatch(name, [...list.patterns])) {
      return {
        rule: "allowed",
        reason: `the allowed_tools of ${list.source} (${
          list.patterns.join(", ")
        }) do not include it`,
      };
    }
  }
  return null;
}

/** A write tool some list names exactly (not by a pattern): a worker's explicit request. */
function requested(
  tool: Pick<ToolDescriptor, "name" | "permission">,
  allowed: readonly AllowedToolsList[],
): boolean {
  return tool.permission === "write" && allowed.some((list) => list.patterns.includes(tool.name));
}
