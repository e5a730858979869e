/**
 * What a run was asked and with which settings: `run.json` (the task, the model and its
 * parameters) and `config.json` (the effective config as loaded), both redacted, written once
 * when the run opens. With `system_prompt.md`, `policy.json` and the logs they let an auditor
 * replay the run from its folder alone.
 *
 * @module
 */

import { sha256Hex } from "./sha256.ts";
import { join } from "node:path";
import type { Redactor } from "./redactor.ts";

/** The file name of the run's description in the run folder. */
export const RUN_INFO_FILE = "run.json";
/** The file name of the redacted copy of the effective config in the run folder. */
export const CONFIG_COPY_FILE = "config.json";

/** The model a run talks to, as `run.json` records it. */
export interface RunModelInfo {
  /** `openai`, `anthropic` or `script`. */
  provider: string;
  /** The model name sent to the provider; null for `script`. */
  model: string | null;
  /**
   * Every other configured key (`base_url`, `temperature`, `max_tokens`, `timeout_ms`,
   * `retries`, `strict`, `script`, `api_key_env`...), as written; absent keys take the
   * provider's defaults.
   */
  parameters: Record<string, unknown>;
}

/** What {@linkcode writeRunInfo} records. */
export interface RunInfo {
  run_id: string;
  /** ISO-8601 UTC time the run opened. */
  started_at: string;
  /** The task text the model was given; null for a run without a model (`kagent-run call`). */
  task: string | null;
  /** The model, or null when the config names none. */
  model: RunModelInfo | null;
  /** Absolute path of the config file. */
  config_path: string;
  /** sha256 of the config file's bytes when the run opened; null when it could not be read. */
  config_sha256: string | null;
  /** The workspace's real path. */
  workspace: string;
  /** Anything else worth keeping (e.g. the memory project's identity), merged in. */
  extra?: Record<string, unknown>;
}

/**
 * Builds the {@linkcode RunModelInfo} of a config's `model` section.
 *
 * @param model The config's `model` (`{provider, model?, ...parameters}`), or null.
 * @returns null when `model` is null.
 * @example
 * ```ts
 * import { modelInfo } from "./run_info.ts";
 * const info = modelInfo({ provider: "openai", model: "gpt-5.5", temperature: 0 });
 * console.assert(info?.model === "gpt-5.5" && info.parameters.temperature === 0);
 * ```
 */
export function modelInfo(
  model: { provider: string; model?: string; [key: string]: unknown } | null,
): RunModelInfo | null {
  if (model === null) return null;
  const { provider, model: name, ...parameters } = model;
  return { provider, model: typeof name === "string" ? name : null, parameters };
}

/**
 * Writes `run.json` and `config.json` into the run folder, both redacted with `redactor`
 * (secret values, token patterns and secret-named keys: a variable name under `api_key_env` or
 * `secret_env` shows as `[REDACTED:key_name]`), pretty printed (2 spaces, final newline), each
 * written to a temporary name and renamed, so a reader never sees half a file.
 *
 * `run.json`: `{run_id, started_at, task, model: {provider, model, parameters}, config:
 * {path, sha256, copy: "config.json"}, workspace, ...extra}`. `config.json`: the loaded config
 * (absolute paths as resolved, defaults filled in).
 *
 * @param runDir The run folder.
 * @param config The effective config (any JSON-serialisable value).
 * @throws Whatever the file system throws (the temporary file is removed).
 * @example
 * ```ts
 * import { writeRunInfo } from "./run_info.ts";
 * import { Redactor } from "./redactor.ts";
 * const runDir = await Deno.makeTempDir();
 * await writeRunInfo(runDir, new Redactor({ secrets: [] }), {
 *   run_id: "r1",
 *   started_at: new Date(0).toISOString(),
 *   task: "Summarise the README",
 *   model: null,
 *   config_path: "/nowhere/agent.jsonc",
 *   config_sha256: null,
 *   workspace: runDir,
 * }, { workspace: runDir });
 * const info = JSON.parse(await Deno.readTextFile(`${runDir}/run.json`));
 * console.assert(info.task === "Summarise the README");
 * await Deno.remove(runDir, { recursive: true });
 * ```
 */
export async function writeRunInfo(
  runDir: string,
  redactor: Redactor,
  info: RunInfo,
  config: unknown,
): Promise<void> {
  const { extra, config_path, config_sha256, ...rest } = info;
  const record = {
    ...rest,
    config: { path: config_path, sha256: config_sha256, copy: CONFIG_COPY_FILE },
    ...extra,
  };
  await replaceJson(join(runDir, CONFIG_COPY_FILE), redactor.redactValue(config));
  await replaceJson(join(runDir, RUN_INFO_FILE), redactor.redactValue(record));
}

/**
 * The sha256 (lower-case hex) of a file's bytes, or null when it cannot be read.
 *
 * @example
 * ```ts
 * import { fileSha256 } from "./run_info.ts";
 * console.assert(await fileSha256("/nonexistent/file") === null);
 * ```
 */
export async function fileSha256(path: string): Promise<string | null> {
  try {
    return sha256Hex(await Deno.readFile(path));
  } catch {
    return null;
  }
}

async function replaceJson(path: string, value: unknown): Promise<void> {
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    await Deno.writeTextFile(temporary, `${JSON.stringify(value, null, 2)}\n`, {
      createNew: true,
    });
    await Deno.rename(temporary, path);
  } catch (error: unknown) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
}
