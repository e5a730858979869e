/**
 * The run command's options that change what the config says: the task (`--task`, `--task-file`,
 * `--task-file -` for stdin, a positional task, piped stdin), `--model` and `--max-turns`; and the `--output` formats.
 *
 * @module
 */

import { CLOUD_PROVIDERS, type LoadedConfig } from "../config/mod.ts";
import { type CommandIo, UsageError } from "./_common.ts";

/** The `--output` formats: the answer (`text`, default), one JSON object, or JSON lines as it goes. */
export const OUTPUT_FORMATS = ["text", "json", "stream-json"] as const;

/** One `--output` format. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The `turns` a `--max-turns` may set, as `agent.max_turns` allows (config_schema.ts). */
const MAX_TURNS_RANGE = { min: 1, max: 1000 } as const;

/**
 * The `--output` format.
 *
 * @throws {UsageError} for a value not in {@linkcode OUTPUT_FORMATS}.
 */
export function outputFormat(values: Record<string, unknown>): OutputFormat {
  const value = values.output ?? "text";
  if ((OUTPUT_FORMATS as readonly unknown[]).includes(value)) return value as OutputFormat;
  throw new UsageError(
    `Cannot use --output "${String(value)}": it must be one of ${OUTPUT_FORMATS.join(", ")}`,
  );
}

/** The run's task and where it came from. */
export interface RunTask {
  /** The task, or null when none is given. */
  text: string | null;
  /** Whether standard input held it (`--task-file -` or piped): nobody can answer approvals there. */
  fromStdin: boolean;
}

/**
 * The run's task, first found of: `--task-file` (a file, or `-` for all of standard input), `--task`,
 * the positional task (`kagent-run --config F "do X"`), piped standard input (a pipe or a file, not
 * a terminal nor `/dev/null`; read until it ends, used when not blank), the config's `task`.
 *
 * @param values The parsed options.
 * @param positionals The run command's positional arguments: none, or the task.
 * @param config The loaded config.
 * @param io Reads standard input through `readStdin`; `stdinIsPiped` says whether it holds data.
 * @returns The task and whether standard input held it.
 * @throws {UsageError} naming the file (or standard input) and why it cannot be read, for more than
 *   one positional argument, and for a positional task together with `--task` or `--task-file`.
 */
export async function readTask(
  values: Record<string, unknown>,
  positionals: readonly string[],
  config: LoadedConfig,
  io: Pick<CommandIo, "readStdin" | "stdinIsPiped">,
): Promise<RunTask> {
  if (positionals.length > 1) {
    throw new UsageError(
      `Cannot run: unexpected argument "${positionals[1]}"; give the task as one argument ` +
        `(quote it) or with --task; see "kagent-run --help"`,
    );
  }
  const positional = positionals[0];
  const file = values["task-file"];
  if (positional !== undefined && (typeof file === "string" || typeof values.task === "string")) {
    throw new UsageError(
      `Cannot run with the task "${positional}": --task or --task-file gives one too; keep one`,
    );
  }
  if (typeof file !== "string") {
    if (typeof values.task === "string") return { text: values.task, fromStdin: false };
    if (positional !== undefined) return { text: positional, fromStdin: false };
    if (io.stdinIsPiped === true && io.readStdin !== undefined) {
      const piped = await readStandardInput(io.readStdin, "piped standard input");
      if (piped.trim() !== "") return { text: piped, fromStdin: true };
    }
    return { text: config.task, fromStdin: false };
  }
  if (file === "-") {
    if (io.readStdin === undefined) {
      throw new UsageError(
        "Cannot read the task from standard input (--task-file -): this command has none; pass --task or a file",
      );
    }
    return { text: await readStandardInput(io.readStdin, "--task-file -"), fromStdin: true };
  }
  try {
    return { text: await Deno.readTextFile(file), fromStdin: false };
  } catch (error) {
    throw new UsageError(`Cannot read task file "${file}": ${(error as Error).message}`);
  }
}

async function readStandardInput(read: () => Promise<string>, how: string): Promise<string> {
  try {
    return await read();
  } catch (error) {
    throw new UsageError(
      `Cannot read the task from standard input (${how}): ${(error as Error).message}`,
    );
  }
}

/**
 * The config with `--model` (replacing `model.model`) and `--max-turns` (replacing
 * `agent.max_turns`) applied; the run records the result (run.json, config.json, `run.started`).
 *
 * @param config The loaded config; not changed.
 * @param values The parsed options.
 * @returns A new config, or `config` itself when neither option is given.
 * @throws {UsageError} for `--model` with the script provider (it has no model name) or an empty
 *   name, and for a `--max-turns` that is not a whole number from 1 to 1000.
 */
export function applyRunOverrides(
  config: LoadedConfig,
  values: Record<string, unknown>,
): LoadedConfig {
  let result = config;
  const model = values.model;
  if (typeof model === "string") {
    if (model.trim() === "") throw new UsageError('Cannot use --model "": give a model name');
    if (config.model === null || config.model.provider === "script") {
      throw new UsageError(
        `Cannot use --model "${model}" with config "${config.configPath}": its model ` +
          `${
            config.model === null ? "is not set" : 'is the "script" provider, which has no name'
          }; set "model" to a provider that names its model (${
            ["openai", "anthropic", ...CLOUD_PROVIDERS].map((name) => `"${name}"`).join(", ")
          }; see docs/MODELS.md)`,
      );
    }
    result = { ...result, model: { ...config.model, model } };
  }
  const maxTurns = values["max-turns"];
  if (typeof maxTurns === "string") {
    const turns = /^\d+$/.test(maxTurns) ? Number(maxTurns) : Number.NaN;
    if (!(turns >= MAX_TURNS_RANGE.min && turns <= MAX_TURNS_RANGE.max)) {
      throw new UsageError(
        `Cannot use --max-turns "${maxTurns}": it must be a whole number from ` +
          `${MAX_TURNS_RANGE.min} to ${MAX_TURNS_RANGE.max}`,
      );
    }
    result = { ...result, agent: { ...result.agent, max_turns: turns } };
  }
  return result;
}
