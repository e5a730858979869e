/**
 * What `run` and `resume` do before a run's agent starts and after it ends, in one place: the
 * runner's masks for the secrets (before anything else is printed), the telemetry hosts' check,
 * the shared task store's Worker (started before the process gives up its net), the network
 * boundary, and closing both whatever the run's end.
 *
 * @module
 */

import type { LoadedConfig } from "../config/mod.ts";
import type { NetworkGateway } from "../network/mod.ts";
import { openSharedTaskStore, type TaskStore } from "../tasks/mod.ts";
import { maskCommands } from "./_ci_output.ts";
import { type CommandIo, openNetworkBoundary } from "./_common.ts";
import type { OutputFormat } from "./_run_options.ts";
import { checkTelemetryHosts } from "./_telemetry_check.ts";

/**
 * Runs `body` inside the run's boundary and closes what it opened.
 *
 * @param output The output format: the masks go to stdout for text, else to stderr.
 * @returns What `body` returns (the exit code).
 * @throws What the checks throw (`ConfigError` for a telemetry host or a store the config names
 *   badly), before anything is opened.
 */
export async function withRunBoundary(
  config: LoadedConfig,
  io: CommandIo,
  output: OutputFormat,
  body: (gateway: NetworkGateway | null, sharedTasks: TaskStore | null) => Promise<number>,
): Promise<number> {
  // Before anything else is printed: the runner hides these values in every later log line.
  if (io.env("GITHUB_ACTIONS") === "true") {
    const secrets = config.audit.secret_env.map((name) => io.env(name) ?? "");
    const write = output === "text" ? io.stdout : io.stderr;
    for (const line of maskCommands(secrets)) write(`${line}\n`);
  }
  checkTelemetryHosts(config, io);
  const sharedTasks = openSharedTaskStore(config, io.env);
  const gateway = await openNetworkBoundary(config, io);
  try {
    return await body(gateway, sharedTasks);
  } finally {
    gateway?.close();
    await sharedTasks?.close();
  }
}
