/**
 * The main agent's agent and task tools for `kagent-run run`, when the config defines `agents`:
 * the agent tree (children's models through the same network boundary, the same approver), the
 * task store in the run folder (`tasks.sqlite`), and the conversation a fork copies. Private to
 * the CLI folder.
 *
 * @module
 */

import type { ModelMessage } from "../agent/mod.ts";
import { Redactor } from "../audit/mod.ts";
import { AgentTools, AgentTree, type ChildSessionOptions } from "../child_agents/mod.ts";
import type { LoadedConfig } from "../config/mod.ts";
import type { NetworkGateway } from "../network/mod.ts";
import type { RunSession } from "../session/mod.ts";
import { openTaskStore, type TaskStore } from "../tasks/mod.ts";
import type { CommandIo } from "./_common.ts";
import { providerFor } from "./_provider_for.ts";

/** The main agent's tools and what they need once the run is open. */
export interface MainAgent {
  /** The session's `mainThreadTools`. */
  tools: AgentTools;
  /** The loop's conversation (`runAgent`'s `conversation`): forks copy it. */
  conversation: ModelMessage[];
  /**
   * Binds the open run: opens the task store (`tasks.sqlite` in its folder, or the shared
   * PostgreSQL store opened before the network boundary, see `openSharedTaskStore`).
   */
  attach(session: RunSession): void;
  /** The children's calls that needed an approval nobody could give (see `AgentTree.pending`). */
  pending: AgentTree["pending"];
  /**
   * Closes the task store (before the run is sealed: the SQLite file is then whole in the folder).
   * Safe to call twice.
   */
  close(): Promise<void>;
}

/**
 * The main agent's tools, or null when the config defines no agents.
 *
 * @param session The options every child run gets (same approver, environment, fetches).
 * @example
 * ```ts ignore
 * const main = mainAgent(config, io, gateway, { env: io.env, approver });
 * ```
 */
export function mainAgent(
  config: LoadedConfig,
  io: CommandIo,
  gateway: NetworkGateway | null,
  session: ChildSessionOptions,
  sharedStore: TaskStore | null = null,
): MainAgent | null {
  if (Object.keys(config.agents).length === 0) return null;
  const tree = new AgentTree({
    config,
    providerFor: (model) => providerFor(model, io, gateway),
    session,
  });
  const tools = new AgentTools(tree, { agent_id: "main", role: "main", depth: 1, ancestors: [] });
  const conversation: ModelMessage[] = [];
  let store: TaskStore | null = null;
  return {
    tools,
    conversation,
    pending: tree.pending,
    attach(run) {
      store = sharedStore ?? openTaskStore({
        // A config built in code (tests) may lack the tasks section: the run folder's file.
        config: config.tasks?.store ?? { kind: "sqlite" },
        runDir: run.folder.dir,
        env: io.env,
        ...(config.tasks === undefined ? {} : { leaseMs: config.tasks.lease_ms }),
      });
      tree.useStore(store);
      tools.attach({
        run_id: run.folder.id,
        run_dir: run.folder.dir,
        recorder: run.recorder,
        approvals: run.approvals,
        conversation: () => conversation,
        grant_policy_hash: run.policy.hash,
        // What the model writes into tasks reaches the store redacted, as the audit would be.
        redactor: new Redactor({ secrets: run.secrets }),
      });
    },
    async close() {
      await store?.close();
    },
  };
}
