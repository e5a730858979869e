/**
 * One way to assemble a run (issue 26): {@linkcode assembleRun} with the process's
 * {@linkcode RunServices} and a {@linkcode RunRequest}, used by `run`, `resume`, child agents,
 * worker steps, `mcp` and `call`.
 *
 * @module
 */

export {
  type AgentRunParts,
  type AssembledRun,
  assembleRun,
  type RunAgentTools,
  type RunResume,
} from "./assemble_run.ts";
export { type RunServices } from "./run_services.ts";
