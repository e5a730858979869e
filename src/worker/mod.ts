/**
 * The tool Worker: the host that starts and talks to it (`tool_worker.ts`), the server inside it
 * (`tool_worker_server.ts`, entry `worker_main.ts`) and the messages between them
 * (`worker_protocol.ts`). Handlers run here, under Deno permissions computed from the policy.
 *
 * @module
 */

export {
  computeWorkerPermissions,
  DEFAULT_HANDLER_TIMEOUT_MS,
  ToolWorker,
  type WorkerPermissions,
} from "./tool_worker.ts";
