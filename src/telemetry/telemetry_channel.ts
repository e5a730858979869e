/**
 * Where Deno's built-in OpenTelemetry exporter would send this process's telemetry, read from the
 * same variables Deno reads at start-up, and the check of those hosts against `audit.trace_hosts`.
 *
 * Measured on Deno 2.9.6: the exporter runs in the runtime (Rust), not through `fetch`, so Deno's
 * permissions never apply to it (it sends with no `--allow-net` at all, and after the main thread
 * revoked its own); its destination is fixed when the process starts. So kagent-run cannot route
 * it through the network Worker: it reads the destination, records it, and refuses to start a run
 * whose exporter would reach a host the config does not list (see `docs/ARCHITECTURE.md`, Tracing).
 *
 * @module
 */

import { hostPermission } from "../network/mod.ts";

/** The signals the exporter sends, each to its own endpoint. */
export type TelemetrySignal = "traces" | "metrics" | "logs";

/** Where one signal goes. */
export interface TelemetryEndpoint {
  signal: TelemetrySignal;
  /** The URL as written, or Deno's default `http://localhost:4318`. */
  url: string;
  /** The variable the URL came from, or `default`. */
  from: string;
  /** `hostname:port` of the URL; null when the URL does not parse as http(s). */
  host: string | null;
}

/**
 * The telemetry channel of a process: whether Deno's exporter is on, its protocol, and the hosts
 * it would reach. `hosts` is empty when the exporter is off or prints to stderr (`console`).
 */
export interface TelemetryChannel {
  /** `OTEL_DENO` is `true` (any case): Deno's exporter is on for the whole process. */
  enabled: boolean;
  /** `OTEL_EXPORTER_OTLP_PROTOCOL`, lower-cased; `http/protobuf` when unset. */
  protocol: string;
  /** One entry a signal when the exporter sends over the network; empty otherwise. */
  endpoints: TelemetryEndpoint[];
  /** The distinct `hostname:port` of `endpoints`, in signal order. */
  hosts: string[];
}

/** Deno's endpoint when no variable names one (docs.deno.com, OpenTelemetry). */
export const DEFAULT_OTLP_ENDPOINT = "http://localhost:4318";

const SIGNALS: readonly TelemetrySignal[] = ["traces", "metrics", "logs"];

/**
 * Reads the telemetry channel from the environment, as Deno 2.9.6 does: on only when `OTEL_DENO`
 * is `true` (Deno refuses other values, such as `1`, and stays off); the protocol from
 * `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, `http/json`, or `console`, which prints to
 * stderr and sends nothing); each signal's endpoint from `OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT`,
 * else `OTEL_EXPORTER_OTLP_ENDPOINT`, else `http://localhost:4318`. To fail closed, a per-signal
 * `OTEL_EXPORTER_OTLP_<SIGNAL>_PROTOCOL` other than `console` counts as sending (Deno 2.9.6 ignores
 * those variables; a later Deno may not), and `OTEL_SDK_DISABLED` is not trusted to turn it off.
 *
 * @param env Reads one variable; undefined when unset.
 * @example
 * ```ts
 * import { telemetryChannel } from "./telemetry_channel.ts";
 * const variables: Record<string, string> = {
 *   OTEL_DENO: "true",
 *   OTEL_EXPORTER_OTLP_ENDPOINT: "https://collector.example:4318",
 * };
 * const channel = telemetryChannel((name) => variables[name]);
 * console.assert(channel.hosts.join() === "collector.example:4318");
 * console.assert(telemetryChannel(() => undefined).enabled === false);
 * ```
 */
export function telemetryChannel(env: (name: string) => string | undefined): TelemetryChannel {
  const enabled = env("OTEL_DENO")?.trim().toLowerCase() === "true";
  const protocol = env("OTEL_EXPORTER_OTLP_PROTOCOL")?.trim().toLowerCase() || "http/protobuf";
  if (!enabled) return { enabled, protocol, endpoints: [], hosts: [] };
  const endpoints: TelemetryEndpoint[] = [];
  for (const signal of SIGNALS) {
    const upper = signal.toUpperCase();
    const signalProtocol = env(`OTEL_EXPORTER_OTLP_${upper}_PROTOCOL`)?.trim().toLowerCase();
    const sends = protocol !== "console" ||
      (signalProtocol !== undefined && signalProtocol !== "" && signalProtocol !== "console");
    if (!sends) continue;
    const own = nonEmpty(env(`OTEL_EXPORTER_OTLP_${upper}_ENDPOINT`));
    const general = nonEmpty(env("OTEL_EXPORTER_OTLP_ENDPOINT"));
    const [url, from] = own !== null
      ? [own, `OTEL_EXPORTER_OTLP_${upper}_ENDPOINT`]
      : general !== null
      ? [general, "OTEL_EXPORTER_OTLP_ENDPOINT"]
      : [DEFAULT_OTLP_ENDPOINT, "default"];
    endpoints.push({ signal, url, from, host: hostOf(url) });
  }
  const hosts = [
    ...new Set(endpoints.flatMap((endpoint) => endpoint.host === null ? [] : [endpoint.host])),
  ];
  return { enabled, protocol, endpoints, hosts };
}

/**
 * Why the exporter may not run with these allowed hosts, one house-style sentence a problem: an
 * endpoint that is no http(s) URL, or a host missing from `allowed` (`audit.trace_hosts`). Hosts
 * are compared as `hostname:port` with the scheme's default port filled in, case-insensitively.
 *
 * @param configPath The config file, named in each sentence.
 * @returns `[]` when every endpoint's host is allowed (always when the channel is off).
 * @example
 * ```ts
 * import { telemetryChannel, telemetryProblems } from "./telemetry_channel.ts";
 * const channel = telemetryChannel((name) => name === "OTEL_DENO" ? "true" : undefined);
 * console.assert(telemetryProblems(channel, [], "agent.jsonc").length === 1);
 * console.assert(telemetryProblems(channel, ["localhost:4318"], "agent.jsonc").length === 0);
 * ```
 */
export function telemetryProblems(
  channel: TelemetryChannel,
  allowed: readonly string[],
  configPath: string,
): string[] {
  const listed = new Set(allowed.map((host) => host.toLowerCase()));
  // One sentence a destination, naming every signal and variable that leads there.
  const refused = new Map<string, { signals: string[]; from: Set<string>; url: boolean }>();
  for (const endpoint of channel.endpoints) {
    if (endpoint.host !== null && listed.has(endpoint.host.toLowerCase())) continue;
    const key = endpoint.host ?? endpoint.url;
    const entry = refused.get(key) ?? { signals: [], from: new Set(), url: endpoint.host === null };
    entry.signals.push(endpoint.signal);
    entry.from.add(endpoint.from);
    refused.set(key, entry);
  }
  return [...refused].map(([destination, { signals, from, url }]) => {
    const what = `Cannot export ${listing(signals)} to "${destination}" (from ${
      listing([...from])
    })`;
    return url
      ? `${what}: it is not an http:// or https:// URL; fix the variable, or unset OTEL_DENO`
      : `${what}: the host is not in "audit.trace_hosts" of config "${configPath}"; add ` +
        `"${destination}" there, or unset OTEL_DENO`;
  });
}

/**
 * The channel as `policy.json` and `kagent-run policy --json` show it: `enabled`, `protocol`,
 * `endpoints` (signal, URL, the variable it came from, host), `hosts`, the config's
 * `allowed_hosts` (`audit.trace_hosts`) and `content` (`audit.trace_content`).
 *
 * @example
 * ```ts
 * import { telemetryChannel, telemetrySnapshot } from "./telemetry_channel.ts";
 * const snapshot = telemetrySnapshot(telemetryChannel(() => undefined), {
 *   trace_hosts: [],
 *   trace_content: false,
 * });
 * console.assert(snapshot.enabled === false);
 * ```
 */
export function telemetrySnapshot(
  channel: TelemetryChannel,
  audit: { trace_hosts: readonly string[]; trace_content: boolean },
): Record<string, unknown> {
  return {
    enabled: channel.enabled,
    protocol: channel.protocol,
    endpoints: channel.endpoints,
    hosts: channel.hosts,
    allowed_hosts: [...audit.trace_hosts],
    content: audit.trace_content,
  };
}

/** `a`, `a and b`, `a, b and c`. */
function listing(words: readonly string[]): string {
  return words.length <= 1
    ? words.join("")
    : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

function nonEmpty(value: string | undefined): string | null {
  const trimmed = value?.trim() ?? "";
  return trimmed === "" ? null : trimmed;
}

function hostOf(url: string): string | null {
  try {
    return hostPermission(url);
  } catch {
    return null;
  }
}
