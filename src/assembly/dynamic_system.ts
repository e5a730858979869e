/**
 * The dynamic system blocks of a run (`kagent-run run`): memory_context, filled first with the
 * memories recalled for the task, and the instruction files the agent reads.
 *
 * @module
 */

import { DynamicSystemBlocks } from "../agent/mod.ts";
import { ArtifactStore, Redactor } from "../audit/mod.ts";
import type { LoadedConfig } from "../config/mod.ts";
import { MAX_QUERY_LENGTH, MemoryError, memoryProvider, type MemoryRecord } from "../memory/mod.ts";
import type { NetworkGateway } from "../network/mod.ts";
import type { RunSession } from "../session/mod.ts";

/** The scopes recalled for the task at the run's start, when configured. */
export const START_SCOPES: readonly string[] = ["project", "user"];

/**
 * Builds the run's {@linkcode DynamicSystemBlocks} and, when the policy allows the agent
 * `memory.recall_memory` unasked and `memory.context_max_bytes` and `memory.context_limit` are
 * above 0,
 * recalls up to `context_limit` memories for the task from each of the scopes `project` and
 * `user` (those configured) into memory_context (`memory_context.updated`, source `run_start`).
 * A recall that fails is recorded in `logs/errors.jsonl` (source `memory_context`) and the run
 * goes on without those memories: the block is extra context, never a condition of the run.
 */
export async function dynamicSystemFor(
  session: RunSession,
  config: LoadedConfig,
  task: string,
  env: (name: string) => string | undefined,
  gateway: NetworkGateway | null,
): Promise<DynamicSystemBlocks> {
  const redactor = Redactor.fromEnvironment(config.audit.secret_env, env);
  const artifacts = new ArtifactStore({
    artifactsDir: session.folder.paths.artifacts,
    runDir: session.folder.dir,
    maxBytes: config.limits.max_artifact_bytes,
  });
  const blocks = new DynamicSystemBlocks({
    instructionFiles: config.agent.instruction_files,
    instructionFileMaxBytes: config.agent.instruction_file_max_bytes,
    memoryContextMaxBytes: config.memory.context_max_bytes,
    redact: (text) => redactor.redactText(text),
    recorder: session.recorder,
    storeText: async (text) => (await artifacts.store(text, "text/plain; charset=utf-8")).ref,
  });
  const memory = session.memory;
  // A recall the policy would ask about (or deny) is never made unasked at the start.
  const recall = session.policy.tools.find((tool) => tool.tool === "memory.recall_memory");
  if (
    memory === null || config.memory.context_max_bytes === 0 ||
    config.memory.context_limit === 0 || recall?.available !== true ||
    recall.decision !== "allow" || !session.runtime.policy.isAvailable("memory.recall_memory")
  ) {
    return blocks;
  }
  const provider = memoryProvider(memory, env, gateway?.fetchFor("memory"));
  const query = task.slice(0, MAX_QUERY_LENGTH);
  const recalled: MemoryRecord[] = [];
  for (const scope of START_SCOPES.filter((name) => memory.scopes.includes(name))) {
    try {
      recalled.push(...await provider.recall(query, scope, config.memory.context_limit));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      await session.recorder.error({
        source: "memory_context",
        ...(error instanceof MemoryError ? { code: error.code } : {}),
        scope,
        message: `Cannot recall memories for the task from scope "${scope}": ${reason}`,
      });
    }
  }
  await blocks.addMemories(recalled, "run_start", null);
  return blocks;
}
