/**
 * Calls a tool the way the runtime does, for tests: JSON Schema validation without defaults or
 * coercion, then the handler, its result wrapped into a {@linkcode ToolOutcome}.
 *
 * @module
 */

import { Ajv } from "ajv";
import type { ToolContext, ToolDefinition } from "../tools/mod.ts";
import { failure, type ToolOutcome, toOutcome } from "../result/mod.ts";

const ajv = new Ajv({ strict: false, allErrors: true, useDefaults: false, coerceTypes: false });

/**
 * Validates `args` against the tool's `input_schema` (`invalid_arguments` on a mismatch, like
 * the runtime's step 2), runs the handler and wraps its result. A throw becomes
 * `internal_error`, so tests see it as a failed outcome with the message.
 *
 * @param tool Any tool definition.
 * @param args The arguments as the model would send them (optional fields may be absent).
 * @param context From `createTestContext`.
 * @example
 * ```ts
 * import { callTool } from "./call_tool.ts";
 * import { createTempSandbox } from "./temp_sandbox.ts";
 * import { createTestContext } from "./tool_context.ts";
 * import { readFileTool } from "../toolsets/fs/mod.ts";
 * await using sandbox = await createTempSandbox();
 * const context = await createTestContext({ workspace: sandbox.workspace });
 * const outcome = await callTool(readFileTool, { path: "missing.txt" }, context);
 * console.assert(outcome.error?.type === "file_not_found");
 * ```
 */
export async function callTool(
  // deno-lint-ignore no-explicit-any
  tool: ToolDefinition<any>,
  args: Record<string, unknown>,
  context: ToolContext,
): Promise<ToolOutcome> {
  const validate = ajv.compile(tool.input_schema);
  if (!validate(args)) {
    const reasons = (validate.errors ?? []).map((error) =>
      `${error.instancePath || "/"} ${error.message ?? ""}`
    );
    return failure(
      "invalid_arguments",
      `Cannot call tool "${tool.name}": the arguments do not match its schema (${
        reasons.join("; ")
      })`,
      { errors: validate.errors ?? [] },
    );
  }
  try {
    return toOutcome(tool.name, await tool.handler(args, context));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return failure("internal_error", `Cannot run tool "${tool.name}": it threw (${reason})`, {
      stack: error instanceof Error ? error.stack ?? null : null,
    });
  }
}
