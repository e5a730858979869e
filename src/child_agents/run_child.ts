/**
 * One child agent run, from its parent's call to the call's result: a slot of the tree, its own
 * session (its own run folder under the parent's, its own effective policy computed from its agent
 * type, definition and the call's `allowed_tools` — never from the parent's current set — with the
 * same workspace and sandbox, the same approver, the parent's grants), its own model, the loop to
 * its end, its records, and the parent's `agent.started` / `agent.completed`.
 *
 * @module
 */

import * as nodePath from "node:path";
import type { AgentOutcome, ModelMessage } from "../agent/mod.ts";
import { type AgentRunParts, type AssembledRun, assembleRun } from "../assembly/mod.ts";
import { countResults } from "../runtime/mod.ts";
import type { LoadedAgentDefinition, ModelConfig } from "../config/mod.ts";
import type { AllowedToolsList } from "../policy/mod.ts";
import { failure, type ToolOutcome } from "../result/mod.ts";
import { AgentTools } from "./agent_tools.ts";
import { childOutcome, type ChildRecord } from "./child_outcome.ts";

/** What the parent's call asks for. */
export interface ChildRequest {
  definition: LoadedAgentDefinition;
  tool_call_id: string;
  /** The task text the child's model is given. */
  task: string;
  /** The call's `allowed_tools`, or null. */
  allowed_tools: string[] | null;
  /** A fork's copy of the parent's conversation; [] for the others. */
  history: ModelMessage[];
}

/**
 * Runs one child agent to its end and answers the parent's call. Never rejects: a child that
 * cannot start (its model, its session) fails the call with the reason; an abort of `signal`
 * reaches the child's loop and its running tools (their commands are ended by its runtime), and
 * the child's session is closed (its Worker stopped, its commands swept) before this returns.
 */
export async function runChild(
  parent: AgentTools,
  parentRun: AgentRunParts,
  request: ChildRequest,
  signal: AbortSignal | undefined,
): Promise<ToolOutcome> {
  const { tree } = parent;
  const definition = request.definition;
  let release: () => void;
  try {
    release = await tree.acquire(signal);
  } catch (error) {
    return failure("aborted", `Cannot start agent "${definition.id}": the run was aborted`, {
      aborted: true,
      partial: false,
      abort_reason: String(error),
    });
  }
  try {
    let model: ModelConfig;
    try {
      model = tree.modelOf(definition);
    } catch (error) {
      return failure(
        "agent_failed",
        `Cannot start agent "${definition.id}": its model cannot be used: ${
          error instanceof Error ? error.message : String(error)
        }`,
        { agent_id: definition.id },
      );
    }
    const agentId = tree.nextAgentId(definition.id);
    const self = {
      agent_id: agentId,
      role: definition.agent_type,
      depth: parent.self.depth + 1,
      ancestors: [...parent.self.ancestors, parentRun.run_id],
    };
    const tools = new AgentTools(tree, self);
    let run: AssembledRun;
    try {
      // The child's own model in its run.json and run.started; everything else as configured.
      run = await assembleRun(tree.config, tree.services, {
        task: request.task,
        model,
        agent: {
          agent_id: agentId,
          role: definition.agent_type,
          definition: definition.id,
          depth: self.depth,
          parent: {
            agent_id: parent.self.agent_id,
            run_id: parentRun.run_id,
            run_dir: parentRun.run_dir,
            ancestors: parent.self.ancestors,
            grant_policy_hash: parentRun.grant_policy_hash,
          },
        },
        allowedTools: allowedLists(definition, request.allowed_tools),
        suggestedTools: definition.suggested_tools,
        inheritedGrants: () => parentRun.approvals.grantsForChildren(),
        agentTools: tools,
      });
    } catch (error) {
      return failure(
        "agent_failed",
        `Cannot start agent "${definition.id}": ${
          error instanceof Error ? error.message : String(error)
        }`,
        { agent_id: definition.id },
      );
    }
    const session = run.session;
    const record: ChildRecord = {
      child_run_id: session.folder.id,
      agent_id: agentId,
      definition: definition.id,
      agent_type: definition.agent_type,
      depth: self.depth,
      run_dir: nodePath.relative(parentRun.run_dir, session.folder.dir),
      tool_call_id: request.tool_call_id,
      outcome: null,
    };
    parent.children.set(record.child_run_id, record);
    const identity = {
      tool_call_id: record.tool_call_id,
      child_run_id: record.child_run_id,
      agent_id: record.agent_id,
      definition: record.definition,
      agent_type: record.agent_type,
      depth: record.depth,
    };
    let outcome: AgentOutcome;
    try {
      await parentRun.recorder.event("agent.started", identity);
      // Started inside the parent's call, so its invoke_agent span nests under that call's span.
      outcome = await run.loop({
        agent: { id: definition.id, name: definition.id },
        instructions: instructionsOf(definition),
        maxTurns: definition.max_turns,
        history: request.history,
        retryTruncated: definition.model !== null && definition.model.provider !== "script" &&
          definition.model.retry_truncated === true,
        ...(signal === undefined ? {} : { signal }),
      });
      await run.complete(outcome);
    } finally {
      // Asks nobody could answer in the child: the root run prints their grants and exits 3.
      tree.pending.push(...session.approvals.pending);
      await run.close();
    }
    record.outcome = outcome;
    const counts = countCalls(outcome);
    await parentRun.recorder.event("agent.completed", {
      ...identity,
      end_reason: outcome.end_reason,
      turns: outcome.turns,
      usage: outcome.usage,
      ...counts,
      duration_ms: outcome.duration_ms,
      error: outcome.error,
    });
    return childOutcome(record, outcome);
  } finally {
    release();
  }
}

/** The definition's instructions and suggested tools, as the system prompt's last section. */
function instructionsOf(definition: LoadedAgentDefinition): { path: string; text: string } | null {
  const parts = [
    ...(definition.instructions === null ? [] : [definition.instructions]),
    ...(definition.suggested_tools.length === 0 ? [] : [
      `Tools suggested for this work (a preference, not a permission): ${
        definition.suggested_tools.join(", ")
      }.`,
    ]),
  ];
  return parts.length === 0
    ? null
    : { path: `agents.${definition.id} (config)`, text: parts.join("\n\n") };
}

/** The definition's and the call's `allowed_tools`, each a list that narrows. */
function allowedLists(
  definition: LoadedAgentDefinition,
  fromCall: string[] | null,
): AllowedToolsList[] {
  return [
    ...(definition.allowed_tools === null
      ? []
      : [{ source: `agent "${definition.id}" (config)`, patterns: definition.allowed_tools }]),
    ...(fromCall === null ? [] : [{ source: "the parent's call", patterns: fromCall }]),
  ];
}

function countCalls(outcome: AgentOutcome): { calls: number; denied: number; failed: number } {
  const { calls, denied, failed } = countResults(outcome.results);
  return { calls, denied, failed };
}
