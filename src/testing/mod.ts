/**
 * Test helpers shipped as modules: temporary sandboxes, tool contexts over them, a tool caller
 * that validates like the runtime, and a deadline for steps that could hang.
 *
 * @module
 */

export {
  canCreateFifo,
  createFifo,
  createTempSandbox,
  type TempSandbox,
  writeTree,
} from "./temp_sandbox.ts";
export { createTestContext, type TestContextOptions } from "./tool_context.ts";
export { callTool } from "./call_tool.ts";
export { withTimeout } from "./with_timeout.ts";
export { exists } from "./path_exists.ts";
export { unconfinedCommandApprover } from "./unconfined_approver.ts";
export {
  type EventStreamServer,
  serveEventStream,
  sseEvent,
  type StreamScript,
} from "./event_stream_server.ts";
