/**
 * What the subcommands share: option parsing, config loading, exit codes, output streams.
 *
 * @module
 */

import { fstatSync } from "node:fs";
import { parseArgs, type ParseArgsConfig } from "node:util";
import {
  ConfigError,
  loadConfig,
  type LoadConfigOverrides,
  type LoadedConfig,
} from "../config/mod.ts";
import { AGENT_TYPES, type AgentType } from "../policy/mod.ts";
import {
  approveArgument,
  formatGrant,
  type Grant,
  parseGrant,
  type PendingApproval,
  shellQuote,
  stdinLines,
  TerminalApprover,
  type TerminalStreams,
} from "../approval/mod.ts";
import { networkChannels, NetworkGateway } from "../network/mod.ts";
import { AuditWriteError } from "../audit/mod.ts";
import { outputWriter } from "./_output_stream.ts";

import { EXIT } from "./_exit_codes.ts";
export { EXIT, EXIT_HELP, EXIT_MEANINGS, type ExitCode, runExitCode } from "./_exit_codes.ts";

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
  /** Stdin and stderr as a terminal for approvals, or null when either is not a terminal. */
  terminal: TerminalStreams | null;
  /** Whether stderr is a terminal (progress lines may be coloured). @default false */
  stderrIsTerminal?: boolean;
  /**
   * Drops the process's own Deno net permission once the network gateway runs (the real process
   * does; in-process tests leave theirs alone). @default none
   */
  revokeNetwork?: () => void;
  /** Reads all of standard input as text (`--task-file -`). @default none: a usage error */
  readStdin?: () => Promise<string>;
  /**
   * Whether standard input is a pipe or a file (not a terminal, not a device such as `/dev/null`):
   * then `run` reads the task from it when no other is given. @default false
   */
  stdinIsPiped?: boolean;
}

/**
 * The real process streams. Writes never throw: once a stream's reader is gone (`… | head`) its
 * output is dropped and the run goes on (see {@linkcode outputWriter}).
 */
export function processIo(): CommandIo {
  const stdout = outputWriter(Deno.stdout);
  const stderr = outputWriter(Deno.stderr);
  return {
    stdout: (text) => stdout.write(text),
    stderr: (text) => stderr.write(text),
    stdoutIsTerminal: Deno.stdout.isTerminal(),
    stderrIsTerminal: Deno.stderr.isTerminal(),
    revokeNetwork: () => void Deno.permissions.revokeSync({ name: "net" }),
    readStdin: () => new Response(Deno.stdin.readable).text(),
    stdinIsPiped: stdinIsPiped(),
    terminal: Deno.stdin.isTerminal() && Deno.stderr.isTerminal()
      ? {
        write: (text) => stderr.write(text),
        readLine: stdinLines(),
      }
      : null,
    env: (name) => {
      try {
        return Deno.env.get(name);
      } catch {
        return undefined;
      }
    },
  };
}

/** Whether file descriptor 0 is a pipe or a regular file (false when it cannot be told). */
function stdinIsPiped(): boolean {
  try {
    const info = fstatSync(0);
    return info.isFIFO() || info.isFile();
  } catch {
    return false;
  }
}

/**
 * Opens the run's network boundary: starts the network gateway for the hosts the config needs
 * (none: no gateway; `uses.model: false` leaves out the model's host, for `call`, `mcp`, `tools`
 * and `policy`; `uses.memory: false` the memory service's, for `tools` and `policy`; the HTTP MCP
 * servers' hosts are always in), then revokes the process's own net permission through `io`, so
 * from here on only the gateway's Worker can open a connection, and only to those hosts.
 *
 * @throws {UsageError} when the gateway cannot start (for example when kagent-run runs without
 * net permission for a configured host).
 */
export async function openNetworkBoundary(
  config: LoadedConfig,
  io: CommandIo,
  uses: { model: boolean; memory?: boolean } = { model: true },
): Promise<NetworkGateway | null> {
  const needed = networkChannels(config);
  // Tool calls (HTTP memory, net.fetch) happen where memory is wanted: run, call, mcp.
  const tools = uses.memory === false ? [] : needed.tools ?? [];
  const memory = uses.memory === false ? [] : needed.memory;
  const channels = { model: uses.model ? needed.model : [], memory, mcp: needed.mcp, tools };
  const hosts = [...channels.model, ...channels.memory, ...channels.mcp, ...tools];
  let gateway: NetworkGateway | null = null;
  if (hosts.length > 0) {
    try {
      const cap = config.network.max_response_bytes;
      gateway = await NetworkGateway.start({ channels, tools: { maxResponseBytes: cap } });
    } catch (error) {
      throw new UsageError(
        `Cannot open the network for ${hosts.map((host) => `"${host}"`).join(", ")} (from ` +
          `"model.base_url" / "memory.provider.base_url" / "mcp_servers.<id>.url" / "network.hosts" in ` +
          `"${config.configPath}"): ${error instanceof Error ? error.message : String(error)}; ` +
          `run kagent-run with net permission for these hosts`,
      );
    }
  }
  io.revokeNetwork?.();
  return gateway;
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

/**
 * Loads the config named by `--config` (default `agent.jsonc`), with `--workspace`, `--runs-dir`
 * and `--mcp-config` applied (each relative to the current folder).
 */
export async function loadConfigFromOptions(
  values: Record<string, string | boolean | undefined>,
): Promise<LoadedConfig> {
  const path = typeof values.config === "string" ? values.config : DEFAULT_CONFIG;
  const overrides: LoadConfigOverrides = {};
  if (typeof values.workspace === "string") overrides.workspace = values.workspace;
  if (typeof values["runs-dir"] === "string") overrides.runsDir = values["runs-dir"];
  if (typeof values["mcp-config"] === "string") overrides.mcpConfig = values["mcp-config"];
  return await loadConfig(path, overrides);
}

/**
 * Runs a command body and maps failures to exit codes: usage and config errors print their message
 * and exit 2; a run folder that refused a write prints which file and what to change, exit 1;
 * anything else is a bug, printed with its stack, exit 1.
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
    // The run folder refused a write: the message names the file and what to change, no stack.
    if (error instanceof AuditWriteError) {
      io.stderr(`kagent-run: ${error.message}\n`);
      return EXIT.failed;
    }
    io.stderr(
      `kagent-run: internal error: ${
        error instanceof Error ? error.stack ?? error.message : String(error)
      }\n`,
    );
    return EXIT.failed;
  }
}

/** Options every command that runs tools accepts for approvals. */
export const APPROVAL_OPTIONS = {
  "non-interactive": { type: "boolean" },
  approve: { type: "string", multiple: true },
  approvals: { type: "string" },
} as const;

/** Help lines for {@linkcode APPROVAL_OPTIONS}. */
export const APPROVAL_HELP =
  `  --non-interactive   Never ask a person (also when CI=true or stdin/stderr is no terminal):
                      an ask ends as approval_required and the run prints the grant to allow it
  --approve GRANT     Allow exactly the call a grant names (JSON, as printed by a previous run);
                      repeatable. A grant made for another policy is refused
  --approvals FILE    Grants, one JSON object a line`;

/**
 * Reads the grants of \`--approve\` and \`--approvals\`.
 *
 * @throws {UsageError} naming the argument or file and line of a grant that does not parse.
 */
export async function grantsFromOptions(
  values: Record<string, unknown>,
): Promise<{ grant: Grant; source: string }[]> {
  const grants: { grant: Grant; source: string }[] = [];
  try {
    for (const [index, text] of ((values.approve as string[] | undefined) ?? []).entries()) {
      grants.push({
        grant: parseGrant(text, `--approve #${index + 1}`),
        source: `--approve #${index + 1}`,
      });
    }
    const file = values.approvals;
    if (typeof file === "string") {
      let text: string;
      try {
        text = await Deno.readTextFile(file);
      } catch (error) {
        throw new UsageError(`Cannot read approvals file "${file}": ${(error as Error).message}`);
      }
      text.split("\n").forEach((line, index) => {
        if (line.trim() === "" || line.trim().startsWith("//")) return;
        const source = `"${file}" line ${index + 1}`;
        grants.push({ grant: parseGrant(line, source), source });
      });
    }
  } catch (error) {
    if (error instanceof TypeError) throw new UsageError(error.message);
    throw error;
  }
  return grants;
}

/**
 * The approver of a run: the terminal when stdin and stderr are one, CI is not set and
 * \`--non-interactive\` is not given; otherwise none.
 */
export function approverFor(
  values: Record<string, unknown>,
  io: CommandIo,
): TerminalApprover | null {
  const ci = io.env("CI");
  if (values["non-interactive"] === true || (ci !== undefined && ci !== "" && ci !== "false")) {
    return null;
  }
  return io.terminal === null ? null : new TerminalApprover(io.terminal);
}

/**
 * Prints the grants that would let the pending calls through next time: as `--approve`
 * arguments, as lines for an `--approvals` file, (when `replay` gives one) the whole command to
 * re-run with every grant, and (when `resume` gives one, for a run with a conversation) the
 * command that goes on where the run stopped with those grants.
 *
 * @param resume The `resume` command's words (program words, `resume`, the run folder), or null.
 */
export function printPendingGrants(
  pending: readonly PendingApproval[],
  io: CommandIo,
  replay: ((grants: readonly Grant[]) => string | null) | null = null,
  resume: readonly string[] | null = null,
): void {
  if (pending.length === 0) return;
  const command = replay?.(pending.map((entry) => entry.grant)) ?? null;
  const lines = [
    `kagent-run: ${pending.length} call(s) needed an approval nobody could give here. To allow exactly ` +
    "these calls next time, re-run with:",
    ...pending.map((entry) => `  ${approveArgument(entry.grant)}`),
    "or put these lines in a file and pass --approvals FILE:",
    ...pending.map((entry) => `  ${formatGrant(entry.grant)}`),
    ...(command === null ? [] : ["The whole command, with every grant:", `  ${command}`]),
    ...(resume === null ? [] : [
      "Or go on where the run stopped, the waiting calls first, with every grant:",
      `  ${[...resume, "--approve-pending"].map((word) => shellQuote(word)).join(" ")}`,
    ]),
  ];
  io.stderr(lines.join("\n") + "\n");
}

/**
 * The \`--agent-type\` option: main (default), sub, fork or worker.
 *
 * @throws {UsageError} for another value.
 */
export function agentTypeOption(values: Record<string, unknown>): AgentType {
  const value = values["agent-type"];
  if (value === undefined) return "main";
  if (typeof value === "string" && (AGENT_TYPES as readonly string[]).includes(value)) {
    return value as AgentType;
  }
  throw new UsageError(
    `Cannot use --agent-type "${String(value)}": it must be one of ${AGENT_TYPES.join(", ")}`,
  );
}
