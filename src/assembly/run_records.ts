/**
 * The records of an agent run that the loop itself does not write: the system prompt
 * (`system_prompt.md` and `system_prompt.recorded`) and the run's end (`run.completed`).
 *
 * @module
 */

import * as nodePath from "node:path";
import {
  type AgentOutcome,
  buildSystemPrompt,
  type RunContext,
  type SystemPrompt,
} from "../agent/mod.ts";
import { countResults } from "../runtime/mod.ts";
import { type AuditRecorder, sha256Hex } from "../audit/mod.ts";
import type { RunSession } from "../session/mod.ts";
import { discoverSkills } from "../skills/mod.ts";

/**
 * Builds the system prompt of a session's agent (roots, approvals, programs, skills, the given
 * instructions), writes it to `system_prompt.md` and records `system_prompt.recorded` with its
 * sections, size (bytes) and sha256.
 *
 * @param instructions The instructions section (a child's definition text), or null.
 * @example
 * ```ts ignore
 * const prompt = await recordSystemPrompt(session, run, { path: "agents.reviewer", text });
 * ```
 */
export async function recordSystemPrompt(
  session: RunSession,
  run: RunContext,
  instructions: { path: string; text: string } | null,
): Promise<SystemPrompt> {
  const skills = (await discoverSkills(session.skillDirs)).skills;
  const available = session.policy.tools.filter((tool) => tool.available);
  const prompt = buildSystemPrompt({
    run,
    readRoots: session.guard.readRoots,
    writeRoots: session.guard.writeRoots.filter((root) =>
      !session.guard.writableExceptions.includes(root)
    ),
    approvalTools: available.filter((tool) => tool.decision === "ask").map((tool) => tool.tool),
    programs: available.some((tool) => tool.tool === "exec.run_command")
      ? session.commands?.programs.map((program) => program.name) ?? []
      : [],
    skills,
    instructions,
  });
  await session.recorder.writeSystemPrompt(prompt.text);
  const bytes = new TextEncoder().encode(prompt.text);
  await session.recorder.event("system_prompt.recorded", {
    path: nodePath.basename(session.folder.paths.systemPrompt),
    sections: prompt.sections,
    bytes: bytes.byteLength,
    sha256: sha256Hex(bytes),
    skills: skills.map((skill) => skill.name),
    instructions: instructions?.path ?? null,
  });
  return prompt;
}

/**
 * Fields `run.completed` carries besides the outcome's: the `--output-schema` check, and the
 * command that re-runs the run with every pending grant.
 */
export interface CompletedExtra {
  /** The final answer checked against `--output-schema` (`{schema, valid, errors, value}`). */
  output_schema?: unknown;
  /** The whole command with every pending grant (`--approve` each), or null when none waits. */
  replay?: string | null;
}

/** Records `run.completed` for an agent run's outcome (and `extra`, when given). */
export async function recordRunCompleted(
  recorder: AuditRecorder,
  outcome: AgentOutcome,
  extra: CompletedExtra = {},
): Promise<void> {
  await recorder.event("run.completed", {
    end_reason: outcome.end_reason,
    turns: outcome.turns,
    ...countResults(outcome.results),
    duration_ms: outcome.duration_ms,
    final_text: outcome.final_text,
    error: outcome.error,
    error_code: outcome.error_code,
    error_details: outcome.error_details,
    usage: outcome.usage,
    ...(extra.output_schema === undefined ? {} : { output_schema: extra.output_schema }),
    ...(extra.replay === undefined ? {} : { replay: extra.replay }),
  });
}
