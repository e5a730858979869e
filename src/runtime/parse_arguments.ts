/**
 * Pipeline step 2: arguments arrive as JSON text; cap size and depth before parsing, then check the
 * schema without coercion. Nothing here recurses over the arguments (the depth is counted on the
 * text, JSON.parse is iterative, the walk for non-finite numbers keeps its own stack), and the
 * depth limit is capped at {@linkcode MAX_ARGUMENT_DEPTH} whatever a caller passes, so no
 * configured limit can turn deep input into a stack overflow further down the pipeline.
 *
 * @module
 */

import { MAX_ARGUMENT_DEPTH } from "../config/base/mod.ts";
import type { RegisteredTool } from "../tools/mod.ts";
import { failure, jsonNestingDepth, type ToolOutcome } from "../result/mod.ts";

/** Limits of {@linkcode parseArguments}. */
export interface ArgumentLimits {
  /** Largest arguments text in UTF-8 bytes. @default 1_048_576 */
  maxBytes: number;
  /** Deepest nesting of arrays and objects; above {@linkcode MAX_ARGUMENT_DEPTH} counts as it. @default 32 */
  maxDepth: number;
}

/** Default {@linkcode ArgumentLimits}. */
export const DEFAULT_ARGUMENT_LIMITS: ArgumentLimits = { maxBytes: 1_048_576, maxDepth: 32 };

/**
 * Parses and validates the arguments of one call.
 *
 * @param text JSON text from the model (an empty string means `{}`).
 * @returns the arguments object, or an `invalid_arguments` outcome saying what is wrong and where.
 */
export function parseArguments(
  tool: RegisteredTool,
  text: string,
  limits: ArgumentLimits = DEFAULT_ARGUMENT_LIMITS,
): { arguments: Record<string, unknown> } | { failure: ToolOutcome } {
  const name = tool.definition.name;
  const refuse = (reason: string, details: Record<string, unknown> = {}) => ({
    failure: failure("invalid_arguments", `Cannot call tool "${name}": ${reason}`, details),
  });
  if (typeof text !== "string") return refuse("arguments must be JSON text");
  // A UTF-16 code unit is at most 3 UTF-8 bytes: skip the exact count for small inputs.
  if (text.length * 3 > limits.maxBytes) {
    const bytes = new TextEncoder().encode(text).byteLength;
    if (bytes > limits.maxBytes) {
      return refuse(`arguments are ${bytes} bytes, more than the limit of ${limits.maxBytes}`, {
        bytes,
        limit: limits.maxBytes,
      });
    }
  }
  const maxDepth = Math.min(limits.maxDepth, MAX_ARGUMENT_DEPTH);
  const depth = nestingDepth(text);
  if (depth > maxDepth) {
    return refuse(
      `arguments are nested ${depth} levels deep, more than the limit of ${maxDepth}`,
      { depth, limit: maxDepth },
    );
  }
  let value: unknown;
  try {
    value = text.trim() === "" ? {} : JSON.parse(text);
  } catch (error) {
    return refuse(`arguments are not valid JSON (${(error as Error).message})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return refuse("arguments must be a JSON object");
  }
  const nonFinite = findNonFinite(value);
  if (nonFinite !== null) {
    return refuse(`argument "${nonFinite}" must be a finite number`, { argument: nonFinite });
  }
  if (!tool.validate(value)) {
    const issue = tool.validate.errors?.[0];
    const at = issue?.instancePath ? issue.instancePath.slice(1).replaceAll("/", ".") : "";
    let reason = issue?.message ?? "they do not match the schema";
    if (issue?.keyword === "additionalProperties") {
      const key = (issue.params as { additionalProperty?: string }).additionalProperty;
      reason = `"${key}" is not a known argument${at ? ` of "${at}"` : ""}`;
    } else if (issue?.keyword === "required") {
      const key = (issue.params as { missingProperty?: string }).missingProperty;
      reason = `"${at ? `${at}.` : ""}${key}" is required`;
    } else if (issue?.keyword === "enum") {
      const allowed = (issue.params as { allowedValues?: unknown[] }).allowedValues ?? [];
      reason = `"${at}" must be one of ${allowed.map((item) => JSON.stringify(item)).join(", ")}`;
    } else if (at) {
      reason = `"${at}" ${reason}`;
    } else {
      reason = `arguments ${reason}`;
    }
    return refuse(reason, { errors: tool.validate.errors ?? [] });
  }
  return { arguments: value as Record<string, unknown> };
}

/**
 * Deepest `[`/`{` nesting in JSON text, ignoring brackets inside strings. O(n), no parsing: the
 * one count in `src/result/bounded_json.ts`, named here for the pipeline's readers.
 */
export const nestingDepth: (text: string) => number = jsonNestingDepth;

/**
 * JSON.parse turns `1e309` into Infinity; find such a number and name where it is. Depth first, in
 * document order, with an explicit stack: no recursion, whatever the nesting.
 */
function findNonFinite(value: unknown): string | null {
  const stack: { value: unknown; path: string }[] = [{ value, path: "" }];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop() as { value: unknown; path: string };
    if (typeof current === "number") {
      if (!Number.isFinite(current)) return path || "(top level)";
      continue;
    }
    if (typeof current !== "object" || current === null) continue;
    const entries = Object.entries(current);
    for (let index = entries.length - 1; index >= 0; index -= 1) {
      const [key, child] = entries[index] as [string, unknown];
      stack.push({ value: child, path: path ? `${path}.${key}` : key });
    }
  }
  return null;
}
