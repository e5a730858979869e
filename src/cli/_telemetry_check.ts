/**
 * The telemetry channel's boundary: Deno's OpenTelemetry exporter may send only to the hosts the
 * config lists (`audit.trace_hosts`).
 *
 * @module
 */

import type { LoadedConfig } from "../config/mod.ts";
import { type TelemetryChannel, telemetryChannel, telemetryProblems } from "../telemetry/mod.ts";
import { type CommandIo, UsageError } from "./_common.ts";

/**
 * Refuses to go on when Deno's OpenTelemetry exporter is on (`OTEL_DENO=true`) and would send to
 * a host `audit.trace_hosts` does not list. The exporter sends from the runtime, past every Deno
 * permission, so this check is its boundary; the commands that run tool calls (`run`, `call`,
 * `mcp`) call it before anything could make a span (docs/ARCHITECTURE.md, Tracing).
 *
 * @returns The channel, for the run's records.
 * @throws {UsageError} naming each refused host, the variable it came from and the key to add it
 *   to (exit 2).
 */
export function checkTelemetryHosts(config: LoadedConfig, io: CommandIo): TelemetryChannel {
  const channel = telemetryChannel(io.env);
  const refused = telemetryProblems(channel, config.audit.trace_hosts, config.configPath);
  if (refused.length > 0) throw new UsageError(refused.join("; "));
  return channel;
}
