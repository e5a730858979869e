/**
 * A run that cannot start says why: the runs folder it cannot use is a configuration error naming
 * `runs_dir`, and a run folder already made for a run that then failed to start holds the reason in
 * `logs/errors.jsonl` — or, when not even that can be written, is removed.
 *
 * @module
 */

import { AuditWriteError, chainAnchor, JsonlWriter, Redactor, RunFolder } from "../audit/mod.ts";
import { ConfigError, type LoadedConfig } from "../config/mod.ts";

/**
 * Creates the run's folder under the config's `runs_dir`.
 *
 * @param config The loaded config (`runs_dir` absolute).
 * @param now The run's start time (its id).
 * @param id The run id chosen beforehand (`kagent-run worker` claims its step under it before
 *   the folder exists); absent, one made from `now`.
 * @returns The new run folder.
 * @throws {ConfigError} `config_invalid` with key `runs_dir` when the file system refuses it (a
 *   file where the folder should be, a read-only or full disk, no permission); the message says
 *   what to change.
 * @example
 * ```ts ignore
 * const folder = await createRunFolder(config, new Date());
 * ```
 */
export async function createRunFolder(
  config: LoadedConfig,
  now: Date,
  id?: string,
): Promise<RunFolder> {
  try {
    return await RunFolder.create(config.runs_dir, { now, ...(id === undefined ? {} : { id }) });
  } catch (error: unknown) {
    throw startUpError(config, error);
  }
}

/**
 * The error a start-up failure is reported with: a refused audit write becomes a
 * {@linkcode ConfigError} naming `runs_dir` (exit 2: the user must change the config or the
 * disk); anything else is returned as it is.
 *
 * @param config The loaded config.
 * @param error What start-up threw.
 */
export function startUpError(config: LoadedConfig, error: unknown): unknown {
  if (!(error instanceof AuditWriteError)) return error;
  return new ConfigError({
    code: "config_invalid",
    file: config.configPath,
    key: "runs_dir",
    message: `Cannot start a run in "${config.runs_dir}" (key "runs_dir" of config ` +
      `"${config.configPath}"): ${lowerFirst(error.message)}`,
    issues: [`key "runs_dir" ${error.message}`],
  });
}

/**
 * Records why a run that has its folder failed to start: one `logs/errors.jsonl` line
 * `{ts, run_id, source: "startup", error_type, key, message}` (redacted), unless the file already
 * states that message. When the line cannot be written (the disk is full), the run folder is
 * removed: a folder that cannot say why it is empty would only mislead.
 *
 * @param folder The run folder made for the run.
 * @param config The loaded config (for the secrets to redact).
 * @param error What start-up threw.
 * @param env Reads the environment (the values of `audit.secret_env`).
 * @returns The error to throw: see {@linkcode startUpError}.
 */
export async function recordStartFailure(
  folder: RunFolder,
  config: LoadedConfig,
  error: unknown,
  env: (name: string) => string | undefined,
): Promise<unknown> {
  const reported = startUpError(config, error);
  const message = reported instanceof Error ? reported.message : String(reported);
  const redactor = Redactor.fromEnvironment(config.audit.secret_env, env);
  const redacted = redactor.redactText(message);
  let logged = "";
  try {
    logged = await Deno.readTextFile(folder.paths.errorsLog);
  } catch {
    // Unreadable: write the line anyway.
  }
  if (logged.includes(JSON.stringify(redacted).slice(1, -1))) return reported;
  // The line continues the errors log's hash chain, anchored on the policy when it was written.
  const policyHash = await readPolicyHash(folder.paths.policy);
  const writer = new JsonlWriter(folder.paths.errorsLog, {
    chain: { anchor: chainAnchor(folder.id, policyHash, "logs/errors.jsonl") },
  });
  try {
    await writer.write({
      ts: new Date().toISOString(),
      run_id: folder.id,
      source: "startup",
      error_type: reported instanceof ConfigError
        ? reported.code
        : reported instanceof Error
        ? reported.name
        : "error",
      key: reported instanceof ConfigError ? reported.key : null,
      message: redacted,
    });
  } catch {
    await Deno.remove(folder.dir, { recursive: true }).catch(() => {});
  } finally {
    await writer.close().catch(() => {});
  }
  return reported;
}

/** The `hash` of `policy.json`; null when there is none (the run failed before its policy). */
async function readPolicyHash(path: string): Promise<string | null> {
  try {
    const hash = (JSON.parse(await Deno.readTextFile(path)) as { hash?: unknown }).hash;
    return typeof hash === "string" ? hash : null;
  } catch {
    return null;
  }
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
