/**
 * Test helpers shipped as modules: temporary sandboxes, tool contexts over them, a tool caller
 * that validates like the runtime, and a deadline for steps that could hang.
 *
 * @module
 */

export * from "./temp_sandbox.ts";
export * from "./tool_context.ts";
export * from "./call_tool.ts";
export * from "./with_timeout.ts";
export * from "./path_exists.ts";
export * from "./unconfined_approver.ts";
