/**
 * The system prompt of a run, built from the run's locations, the rules its tools follow (from
 * the effective policy), the skills catalogue, and the config's instructions file
 * (`agent.instructions`). The CLI records the exact text in `runs/<id>/system_prompt.md`.
 *
 * @module
 */

import type { RunContext } from "./model_provider.ts";

/** What the prompt is built from. */
export interface SystemPromptInput {
  run: RunContext;
  /** Sandbox roots besides the workspace (absolute). @default [] */
  readRoots?: readonly string[];
  /** Write roots besides the workspace and the run's folders (absolute). @default [] */
  writeRoots?: readonly string[];
  /** Available tools whose calls ask for an approval. @default [] */
  approvalTools?: readonly string[];
  /** Programs `exec.run_command` may start, by name; empty when commands are off. @default [] */
  programs?: readonly string[];
  /** Skills the agent can load. @default [] */
  skills?: readonly { name: string; description: string }[];
  /** The config's instructions file and its text, or null. @default null */
  instructions?: { path: string; text: string } | null;
}

/** The prompt and the names of the sections it holds, in order (for the audit). */
export interface SystemPrompt {
  text: string;
  /** Of "sandbox", "tool rules", "skills", "instructions". */
  sections: string[];
}

/**
 * Builds the system prompt. Sections: the sandbox (where files go), the rules for tools (policy
 * checks, approvals, commands), the skills catalogue (when there are skills) and the instructions
 * (when configured), the last under a heading naming their file.
 *
 * @example
 * ```ts
 * import { buildSystemPrompt } from "./system_prompt.ts";
 * const prompt = buildSystemPrompt({
 *   run: { run_id: "r", workspace: "/w", deliverables: "/r/d", scratch: "/r/s" },
 * });
 * console.assert(prompt.sections.join() === "sandbox,tool rules");
 * ```
 */
export function buildSystemPrompt(input: SystemPromptInput): SystemPrompt {
  const { run } = input;
  const sections: string[] = ["sandbox", "tool rules"];
  const lines = [
    "You are an agent working through tools inside a sandbox (kagent-run).",
    `The workspace is "${run.workspace}"; relative paths are relative to it.`,
    `Write what you hand over (reports, patches) under "${run.deliverables}".`,
    `Use "${run.scratch}" for scratch files.`,
    ...(input.readRoots?.length
      ? [`You may also read under: ${input.readRoots.map(quote).join(", ")}.`]
      : []),
    ...(input.writeRoots?.length
      ? [`You may also write under: ${input.writeRoots.map(quote).join(", ")}.`]
      : []),
    "",
    "Rules for tools:",
    "- Every call is checked against the run's policy; a denied call returns an error result that says why. Do not retry a denied call unchanged.",
    "- Paths outside the folders above, secrets (keys, .env files) and the run's own records are refused.",
    ...(input.approvalTools?.length
      ? [
        `- These tools need an approval, which may be refused: ${input.approvalTools.join(", ")}.`,
      ]
      : []),
    ...(input.programs?.length
      ? [
        `- exec.run_command starts only these programs, with an argument list and no shell: ${
          input.programs.join(", ")
        }.`,
      ]
      : []),
  ];
  if (input.skills !== undefined && input.skills.length > 0) {
    sections.push("skills");
    lines.push(
      "",
      "Skills you can load with skills.load_skill (loading one narrows your tools to what it allows):",
      ...input.skills.map((skill) => `- ${skill.name}: ${skill.description}`),
    );
  }
  if (input.instructions !== undefined && input.instructions !== null) {
    sections.push("instructions");
    lines.push(
      "",
      `Instructions (from ${input.instructions.path}):`,
      input.instructions.text.trimEnd(),
    );
  }
  return { text: lines.join("\n"), sections };
}

function quote(path: string): string {
  return `"${path}"`;
}
