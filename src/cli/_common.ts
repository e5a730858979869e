/**
 * What the subcommands share: option parsing, config loading, exit codes, output streams.
 *
 * @module
 */

import { parseArgs, type ParseArgsConfig } from "node:util";
import { ConfigError, loadConfig, type LoadedConfig } from "../config/mod.ts";

/** Exit codes (ARCHITECTURE §4): 0 ok, 1 a tool error, a denial or a failed run, 2 usage or config. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** The config file used when `--config` is not given. */
export const DEFAULT_CONFIG = "agent.jsonc";

/** A command line the user must change: exit 2 with the message. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Where a command writes; tests pass collectors. */
export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stdout is a terminal (tables instead of JSON). */
  stdoutIsTerminal: boolean;
  env: (name: string) => string | undefined;
}

/** The real process streams. */
export function processIo(): CommandIo {
  const encoder = new TextEncoder();
  return {
    stdout: (text) => void Deno.stdout.writeSync(encoder.encode(text)),
    stderr: (text) => void Deno.stderr.writeSync(encoder.encode(text)),
    stdoutIsTerminal: Deno.stdout.isTerminal(),
    env: (name) => {
      try {
        return Deno.env.get(name);
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * Parses options strictly (unknown options and missing values are usage errors).
 *
 * @throws {UsageError} with the parser's reason and a pointer to `--help`.
 */
export function parseOptions<T extends ParseArgsConfig["options"]>(
  command: string,
  args: string[],
  options: T,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  try {
    const parsed = parseArgs({
      args,
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
    return {
      values: parsed.values as Record<string, string | boolean | undefined>,
      positionals: parsed.positionals,
    };
  } catch (error) {
    const reason = (error as Error).message.replace(/\.$/, "").replace(
      /\. To specify a positional.*$/s,
      "",
    );
    throw new UsageError(
      `Cannot parse "kagent-run ${command}": ${reason}; see "kagent-run ${command} --help"`,
    );
  }
}

/** Loads the config named by `--config` (default `agent.jsonc`), with `--workspace` applied. */
export async function loadConfigFromOptions(
  values: Record<string, string | boolean | undefined>,
): Promise<LoadedConfig> {
  const path = typeof values.config === "string" ? values.config : DEFAULT_CONFIG;
  const workspace = typeof values.workspace === "string" ? values.workspace : undefined;
  return await loadConfig(path, workspace === undefined ? {} : { workspace });
}

/**
 * Runs a command body and maps failures to exit codes: usage and config errors print their message
 * and exit 2; anything else is a bug, printed with its stack, exit 1.
 */
export async function guarded(io: CommandIo, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      io.stderr(`kagent-run: ${error.message}\n`);
      return EXIT.usage;
    }
    if (
      error instanceof TypeError &&
      /^Cannot use (workspace|read root|write root)/.test(error.message)
    ) {
      io.stderr(`kagent-run: ${error.message}\n`);
      return EXIT.usage;
    }
    io.stderr(
      `kagent-run: internal error: ${
        error instanceof Error ? error.stack ?? error.message : String(error)
      }\n`,
    );
    return EXIT.failed;
  }
}
