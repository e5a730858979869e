/**
 * The main agent's agent and task tools, when the config defines `agents`: the tree its children
 * share (their runs assembled with the root's services) and the main agent's tools in it.
 *
 * @module
 */

import type { PendingApproval } from "../approval/mod.ts";
import type { RunServices } from "../assembly/mod.ts";
import type { LoadedConfig } from "../config/mod.ts";
import { AgentTools } from "./agent_tools.ts";
import { AgentTree } from "./agent_tree.ts";

/** The main agent's tools and what the root run reports of its children. */
export interface MainAgentTools {
  /** The run request's `agentTools`. */
  tools: AgentTools;
  /** The children's calls that needed an approval nobody could give (see `AgentTree.pending`). */
  pending: readonly PendingApproval[];
}

/**
 * The main agent's tools, or null when the config defines no agents.
 *
 * @param services The root run's services: its children are assembled with them.
 * @example
 * ```ts ignore
 * const agents = mainAgentTools(config, services);
 * const run = await assembleRun(config, services, { task, agentTools: agents?.tools });
 * ```
 */
export function mainAgentTools(
  config: LoadedConfig,
  services: RunServices,
): MainAgentTools | null {
  if (Object.keys(config.agents).length === 0) return null;
  const tree = new AgentTree({ config, services });
  return {
    tools: new AgentTools(tree, { agent_id: "main", role: "main", depth: 1, ancestors: [] }),
    pending: tree.pending,
  };
}
