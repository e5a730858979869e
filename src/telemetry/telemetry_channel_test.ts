import assert from "node:assert/strict";
import { telemetryChannel, telemetryProblems } from "./telemetry_channel.ts";

const reader = (variables: Record<string, string>) => (name: string) => variables[name];

Deno.test("telemetryChannel is off unless OTEL_DENO is true, as Deno reads it", () => {
  for (const value of [undefined, "1", "yes", "false", ""]) {
    const variables: Record<string, string> = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" };
    if (value !== undefined) variables.OTEL_DENO = value;
    assert.deepEqual(telemetryChannel(reader(variables)).hosts, [], String(value));
  }
  // Near miss: Deno accepts any case of "true".
  assert.deepEqual(telemetryChannel(reader({ OTEL_DENO: "TRUE" })).hosts, ["localhost:4318"]);
});

Deno.test("telemetryChannel takes each signal's endpoint, then the general one, then Deno's default", () => {
  const channel = telemetryChannel(reader({
    OTEL_DENO: "true",
    OTEL_EXPORTER_OTLP_ENDPOINT: "https://collector.example",
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://traces.example:4318/v1/traces",
  }));
  assert.deepEqual(
    channel.endpoints.map(({ signal, from, host }) => [signal, from, host]),
    [
      ["traces", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "traces.example:4318"],
      ["metrics", "OTEL_EXPORTER_OTLP_ENDPOINT", "collector.example:443"],
      ["logs", "OTEL_EXPORTER_OTLP_ENDPOINT", "collector.example:443"],
    ],
  );
  assert.deepEqual(channel.hosts, ["traces.example:4318", "collector.example:443"]);
});

Deno.test("telemetryChannel needs no host for the console protocol, unless a signal asks otherwise", () => {
  const console = telemetryChannel(
    reader({ OTEL_DENO: "true", OTEL_EXPORTER_OTLP_PROTOCOL: "console" }),
  );
  assert.deepEqual(console.hosts, []);
  // Fail closed: a per-signal protocol other than console counts as sending (Deno 2.9.6 ignores it).
  const mixed = telemetryChannel(reader({
    OTEL_DENO: "true",
    OTEL_EXPORTER_OTLP_PROTOCOL: "console",
    OTEL_EXPORTER_OTLP_LOGS_PROTOCOL: "http/json",
  }));
  assert.deepEqual(mixed.endpoints.map((endpoint) => endpoint.signal), ["logs"]);
});

Deno.test("telemetryProblems refuses an unlisted host or a bad URL, one sentence a destination", () => {
  const channel = telemetryChannel(reader({
    OTEL_DENO: "true",
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://Collector.Example:4318",
    OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: "collector-without-scheme",
  }));
  assert.deepEqual(telemetryProblems(channel, ["collector.example:4318"], "agent.jsonc"), [
    'Cannot export logs to "collector-without-scheme" (from OTEL_EXPORTER_OTLP_LOGS_ENDPOINT): ' +
    "it is not an http:// or https:// URL; fix the variable, or unset OTEL_DENO",
  ]);
  const problems = telemetryProblems(channel, ["collector.example:4317"], "agent.jsonc");
  assert.equal(problems.length, 2);
  assert.equal(
    problems[0],
    'Cannot export traces and metrics to "collector.example:4318" (from ' +
      'OTEL_EXPORTER_OTLP_ENDPOINT): the host is not in "audit.trace_hosts" of config ' +
      '"agent.jsonc"; add "collector.example:4318" there, or unset OTEL_DENO',
  );
});
