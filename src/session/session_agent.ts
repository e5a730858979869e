/**
 * The agent a session runs, as the session's parts need it: where a child agent's run folder goes
 * (`agents/<run-id>/` in its parent's), who asks in approval requests, what `run.json` says of the
 * agent and its parent, and the main-thread tools the run's calls may reach.
 *
 * @module
 */

import * as nodePath from "node:path";
import type { ApprovalRequest } from "../approval/mod.ts";
import { RunFolder } from "../audit/mod.ts";
import type { LoadedConfig } from "../config/mod.ts";
import { failure } from "../result/mod.ts";
import type { MainThreadTools } from "../runtime/mod.ts";
import { AGENT_TOOL_NAMES } from "../toolsets/agents/mod.ts";
import { TASK_TOOL_NAMES } from "../tasks/mod.ts";
import type { SessionOptions } from "./session_options.ts";
import { startUpError } from "./start_up_failure.ts";

/**
 * Creates a child agent's run folder, `agents/<run-id>/` inside its parent's run folder.
 *
 * @param config The loaded config (for the error naming `runs_dir`).
 * @param parentRunDir The parent's run folder (absolute).
 * @param now The child's start time (its id).
 * @throws {ConfigError} when the file system refuses the folder (as for any run folder).
 * @example
 * ```ts ignore
 * const folder = await createChildRunFolder(config, parent.folder.dir, new Date());
 * ```
 */
export async function createChildRunFolder(
  config: LoadedConfig,
  parentRunDir: string,
  now: Date,
): Promise<RunFolder> {
  try {
    return await RunFolder.create(nodePath.join(parentRunDir, "agents"), { now });
  } catch (error: unknown) {
    throw startUpError(config, error);
  }
}

/**
 * Who asks, in the run's approval requests: the main agent by default, or the child agent with
 * its parent agent and run.
 *
 * @example
 * ```ts
 * import { requestAgent } from "./session_agent.ts";
 * console.assert(requestAgent({}, "r1").agent_id === "main");
 * ```
 */
export function requestAgent(options: SessionOptions, runId: string): ApprovalRequest["agent"] {
  const agent = options.agent;
  const parent = agent?.parent ?? null;
  return {
    agent_id: agent?.agent_id ?? "main",
    run_id: runId,
    parent_agent_id: parent?.agent_id ?? null,
    parent_run_id: parent?.run_id ?? null,
    parent_ids: parent === null ? [] : [...parent.ancestors, parent.run_id],
    role: agent?.role ?? "main",
  };
}

/**
 * The `agent` entry of `run.json`: the agent's id, role, definition and level, and its parent's
 * agent id, run id and run folder (null for the main agent).
 *
 * @example
 * ```ts
 * import { runAgentInfo } from "./session_agent.ts";
 * console.assert(runAgentInfo({}).parent === null);
 * ```
 */
export function runAgentInfo(options: SessionOptions): Record<string, unknown> {
  const agent = options.agent;
  const parent = agent?.parent ?? null;
  return {
    agent_id: agent?.agent_id ?? "main",
    role: agent?.role ?? "main",
    definition: agent?.definition ?? null,
    depth: agent?.depth ?? 1,
    parent: parent === null ? null : {
      agent_id: parent.agent_id,
      run_id: parent.run_id,
      run_dir: parent.run_dir,
      ancestors: parent.ancestors,
    },
  };
}

/**
 * The main-thread tools of a run: each set in order (the first that handles a name runs it), and
 * the agent and task tools answered with a failure naming the reason when no set handles them (a
 * run without an agent, e.g. `kagent-run call`).
 *
 * @example
 * ```ts
 * import { combineMainThreadTools } from "./session_agent.ts";
 * const tools = combineMainThreadTools(null, null);
 * console.assert(tools.handles("agent.create_sub_agent") && !tools.handles("fs.read_file"));
 * ```
 */
export function combineMainThreadTools(
  ...sets: (MainThreadTools | null)[]
): MainThreadTools {
  const present = sets.filter((set): set is MainThreadTools => set !== null);
  const owner = (name: string) => present.find((set) => set.handles(name));
  return {
    handles: (name) =>
      owner(name) !== undefined || AGENT_TOOL_NAMES.includes(name) ||
      (TASK_TOOL_NAMES as readonly string[]).includes(name),
    execute: (name, toolCallId, args, signal) => {
      const set = owner(name);
      if (set !== undefined) return set.execute(name, toolCallId, args, signal);
      return Promise.resolve(failure(
        "internal_error",
        `Cannot call tool "${name}": agent and task tools run only inside an agent run ` +
          '("kagent-run run"), where they are wired',
      ));
    },
  };
}
