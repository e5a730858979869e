/**
 * The key a run's manifest is signed with: the value of the variable `audit.signing_key_env`
 * names, read once; a run whose variable is unset or too short does not start.
 *
 * @module
 */

import type { SigningKey } from "../audit/mod.ts";
import { ConfigError, type LoadedConfig } from "../config/mod.ts";
import type { ReadEnvironment } from "./environment.ts";

/** Fewest characters of a signing key: 32, the output size of HMAC-SHA256. */
export const MIN_SIGNING_KEY_CHARS = 32;

/**
 * Reads the signing key of a config. The variable is also in `audit.secret_env`, so its value is
 * redacted wherever it would be written.
 *
 * @returns null when `audit.signing_key_env` is null (the manifest is not signed).
 * @throws {ConfigError} `config_invalid`, key `audit.signing_key_env`, when the variable is unset
 *   or shorter than {@linkcode MIN_SIGNING_KEY_CHARS}: a run that should be signed and cannot be
 *   does not start.
 * @example
 * ```ts ignore
 * const signing = signingKey(config, (name) => Deno.env.get(name));
 * ```
 */
export function signingKey(config: LoadedConfig, read: ReadEnvironment): SigningKey | null {
  const env = config.audit.signing_key_env;
  if (env === null) return null;
  const key = read(env) ?? "";
  if (key.length >= MIN_SIGNING_KEY_CHARS) return { env, key };
  const why = key === ""
    ? "it is not set"
    : `it holds fewer than ${MIN_SIGNING_KEY_CHARS} characters`;
  const message = `Cannot sign the run's manifest with the variable "${env}" (key ` +
    `"audit.signing_key_env" of config "${config.configPath}"): ${why}; set it to a key of at ` +
    `least ${MIN_SIGNING_KEY_CHARS} characters (e.g. the output of "openssl rand -hex 32"), or ` +
    "remove the key from the config";
  throw new ConfigError({
    code: "config_invalid",
    file: config.configPath,
    key: "audit.signing_key_env",
    message,
    issues: [`key "audit.signing_key_env": ${why}`],
  });
}
