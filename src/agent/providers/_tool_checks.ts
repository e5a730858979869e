/**
 * The tool checks the HTTP providers share before a run's first request: every tool name maps to
 * a distinct provider name, and every input schema is what the provider's mode accepts.
 *
 * @module
 */

import type { ToolDescriptor } from "../../tools/mod.ts";
import { ToolNameMap } from "../tool_names.ts";

/**
 * Checks a tool set for one provider mode.
 *
 * @param tools The tool set the first request would carry.
 * @param target How messages name the provider and mode, e.g. `openai (strict mode)`.
 * @param schemaProblems The problems of one tool's input schema, each as `<where>: <reason>`
 *   (`its input schema has …`), without the tool's name.
 * @returns House-style sentences, `Cannot send tool "x" to <target>: <problem>`; `[]` when fine.
 */
export function checkToolSet(
  tools: readonly ToolDescriptor[],
  target: string,
  schemaProblems: (tool: ToolDescriptor) => string[],
): string[] {
  const problems: string[] = [];
  try {
    new ToolNameMap(tools.map((tool) => tool.name));
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  }
  for (const tool of tools) {
    for (const problem of schemaProblems(tool)) {
      problems.push(`Cannot send tool "${tool.name}" to ${target}: ${problem}`);
    }
  }
  return problems;
}

/**
 * What both APIs require of any tool's input schema: an object schema at the root (OpenAI:
 * "parameters … described as a JSON Schema object"; Anthropic: `input_schema` with
 * `"type": "object"`), whose `properties`, when present, is an object of schemas and whose
 * `required`, when present, is a list of names.
 *
 * @param schema The tool's `input_schema`.
 * @param rule What the provider needs, for the message, e.g. `function parameters must be …`.
 * @returns The problems, each as `its input schema …; <rule>`; `[]` when fine.
 */
export function rootObjectProblems(schema: unknown, rule: string): string[] {
  if (!isRecord(schema) || schema.type !== "object") {
    const type = isRecord(schema) ? schema.type ?? null : schema;
    return [`its input schema has "type": ${JSON.stringify(type)}; ${rule}`];
  }
  const problems: string[] = [];
  if ("properties" in schema && !isRecord(schema.properties)) {
    problems.push(`its input schema has "properties" that is not an object of schemas; ${rule}`);
  }
  if (
    "required" in schema &&
    !(Array.isArray(schema.required) && schema.required.every((name) => typeof name === "string"))
  ) {
    problems.push(`its input schema has "required" that is not a list of names; ${rule}`);
  }
  return problems;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
