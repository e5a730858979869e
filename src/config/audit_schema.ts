/**
 * The `audit` section of the config file: what the run folder must never contain (the secrets'
 * variables) and what traces may carry and where (`trace_content`, `trace_hosts`).
 *
 * @module
 */

import { z } from "zod";

/** `audit`: what the run folder must never contain, and what traces may carry and where. */
export const AuditConfigSchema = z.strictObject({
  secret_env: z.array(
    z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
      error: "must be an environment variable name (letters, digits and underscores)",
    }),
  ).optional().describe(
    "Environment variables whose values are redacted everywhere; added to the defaults " +
      "(ANTHROPIC_API_KEY, OPENAI_API_KEY, GITHUB_TOKEN, GH_TOKEN, AWS_SECRET_ACCESS_KEY, " +
      "AWS_SESSION_TOKEN).",
  ),
  trace_content: z.boolean().optional().describe(
    "With tracing on (OTEL_DENO=true), execute_tool spans carry the call's arguments and result " +
      "and chat spans the model's answer, redacted like the logs and cut at 16 KiB each; " +
      "otherwise spans hold names, ids, decisions and counts only. Default: false.",
  ),
  trace_hosts: z.array(
    z.string().regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):[0-9]{1,5}$/, {
      error: 'must be "hostname:port", e.g. "otel-collector:4318"',
    }),
  ).optional().describe(
    'Hosts ("hostname:port") the OpenTelemetry exporter may send to. With OTEL_DENO=true a run ' +
      "whose OTEL_EXPORTER_OTLP_*ENDPOINT names any other host (the default is localhost:4318) " +
      'is refused before it starts; OTEL_EXPORTER_OTLP_PROTOCOL="console" needs none. ' +
      "Default: [].",
  ),
  signing_key_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
    error: "must be an environment variable name (letters, digits and underscores)",
  }).nullable().optional().describe(
    "The environment variable holding the key (at least 32 characters) the run's manifest.json " +
      "is signed with (HMAC-SHA256), so that only a holder of the key can re-seal an edited run; " +
      "the value is a secret, redacted everywhere and never written. A run whose variable is " +
      "unset does not start. Check with kagent-run verify RUN_FOLDER --key-env NAME. " +
      "Default: null (the manifest is not signed).",
  ),
});
