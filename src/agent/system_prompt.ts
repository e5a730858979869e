/**
 * The system prompt of a run: what the agent may do and where its files go.
 *
 * @module
 */

import type { RunContext } from "./model_provider.ts";

/** Builds the system prompt from the run's locations and, when there are skills, their catalogue. */
export function buildSystemPrompt(
  run: RunContext,
  skills: readonly { name: string; description: string }[] = [],
): string {
  const catalogue = skills.length === 0 ? [] : [
    "Skills you can load with skills.load_skill (loading one narrows your tools to what it allows):",
    ...skills.map((skill) => `- ${skill.name}: ${skill.description}`),
  ];
  return [
    "You are an agent working through tools inside a sandbox (kagent-run).",
    `The workspace is "${run.workspace}"; relative paths are relative to it.`,
    `Write what you hand over (reports, patches) under "${run.deliverables}".`,
    `Use "${run.scratch}" for scratch files.`,
    "Every call is checked against the run's policy; a denied call returns an error result that says why. Do not retry a denied call unchanged.",
    ...catalogue,
  ].join("\n");
}
