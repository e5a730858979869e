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

/**
 * The telemetry line of `kagent-run policy`: off, the console exporter, or each host with whether
 * `audit.trace_hosts` lists it (an unlisted one refuses a run), and whether spans carry content.
 *
 * @example
 * ```ts
 * import { telemetryChannel } from "../telemetry/mod.ts";
 * import { describeTelemetry } from "./_telemetry_check.ts";
 * const line = describeTelemetry(telemetryChannel(() => undefined), {
 *   trace_hosts: [],
 *   trace_content: false,
 * });
 * console.assert(line.startsWith("off"));
 * ```
 */
export function describeTelemetry(
  channel: TelemetryChannel,
  audit: { trace_hosts: readonly string[]; trace_content: boolean },
): string {
  if (!channel.enabled) return "off (OTEL_DENO is not true)";
  const content = audit.trace_content
    ? "spans carry redacted arguments, results and answers (audit.trace_content)"
    : "spans carry no arguments, results or answers";
  if (channel.hosts.length === 0 && channel.endpoints.length === 0) {
    return `on, printed to stderr (protocol console); ${content}`;
  }
  const listed = new Set(audit.trace_hosts.map((host) => host.toLowerCase()));
  const signals = new Map<string, string[]>();
  for (const endpoint of channel.endpoints) {
    const destination = endpoint.host ?? `"${endpoint.url}"`;
    signals.set(destination, [...(signals.get(destination) ?? []), endpoint.signal]);
  }
  const hosts = [...signals].map(([destination, names]) => {
    const refused = destination.startsWith('"')
      ? " (not a URL: a run is refused)"
      : listed.has(destination.toLowerCase())
      ? ""
      : " (not in audit.trace_hosts: a run is refused)";
    return `${names.join("+")} to ${destination}${refused}`;
  });
  return `on, ${channel.protocol}: ${hosts.join(", ")}, sent by Deno's exporter past the network ` +
    `Worker; ${content}`;
}
