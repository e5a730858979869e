/**
 * `audit`: the environment variables whose values are redacted, and what traces carry and where.
 *
 * @module
 */

import type { ConfigFile } from "./config_schema.ts";
import { DEFAULT_AUDIT_TRACING, DEFAULT_SECRET_ENV, DEFAULT_SIGNING_KEY_ENV } from "./defaults.ts";
import type { LoadedConfig } from "./loaded_config.ts";
import { modelCredentialEnv } from "./model_endpoint.ts";

/**
 * Resolves `audit.secret_env`: {@linkcode DEFAULT_SECRET_ENV}, then the file's names, then the
 * model's API key variable, the signing key's variable and the task store's database URL variable
 * (always secrets), each once;
 * `trace_content` and `trace_hosts` from {@linkcode DEFAULT_AUDIT_TRACING}; `signing_key_env` from
 * {@linkcode DEFAULT_SIGNING_KEY_ENV}.
 */
export function resolveAudit(file: ConfigFile): LoadedConfig["audit"] {
  // The run's model and each child agent's own: every credential variable is a secret.
  const models = [file.model, ...Object.values(file.agents ?? {}).map((agent) => agent.model)];
  const apiKeyEnv = models.flatMap((model) => model === undefined ? [] : modelCredentialEnv(model));
  const signingKeyEnv = file.audit?.signing_key_env ?? DEFAULT_SIGNING_KEY_ENV;
  const signing = signingKeyEnv === null ? [] : [signingKeyEnv];
  // The task store's database URL may hold a password: always a secret.
  const tasksStore = file.tasks?.store;
  const databaseUrl = tasksStore?.kind === "postgres" ? [tasksStore.url_env] : [];
  return {
    secret_env: [
      ...new Set([
        ...DEFAULT_SECRET_ENV,
        ...(file.audit?.secret_env ?? []),
        ...apiKeyEnv,
        ...signing,
        ...databaseUrl,
      ]),
    ],
    signing_key_env: signingKeyEnv,
    trace_content: file.audit?.trace_content ?? DEFAULT_AUDIT_TRACING.trace_content,
    trace_hosts: [...new Set(file.audit?.trace_hosts ?? DEFAULT_AUDIT_TRACING.trace_hosts)],
  };
}
