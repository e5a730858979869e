/**
 * The command line: dispatches to a subcommand.
 *
 * @module
 */

import { callCommand } from "./call_command.ts";
import { mcpCommand } from "./mcp_command.ts";
import { policyCommand } from "./policy_command.ts";
import { reportCommand } from "./report_command.ts";
import { RUN_HELP, runCommand } from "./run_command.ts";
import { toolsCommand } from "./tools_command.ts";
import { verifyCommand } from "./verify_command.ts";
import { type CommandIo, EXIT } from "./_common.ts";

/** The version printed by `--version`. */
export const VERSION = "0.1.0";

/** Help text of `kagent-run --help`. */
export const MAIN_HELP =
  `kagent-run ${VERSION}: a sandboxed tool runtime and agent runner for LLM agents

Usage:
  kagent-run [run] --config FILE [--task T | --task-file F|-] [--output text|json|stream-json]
  kagent-run call <tool> '<json arguments>' --config FILE
  kagent-run tools --config FILE [--json]
  kagent-run policy --config FILE [--json]
  kagent-run mcp --config FILE [--http 127.0.0.1:PORT]   (serve the tools to MCP clients)
  kagent-run report RUN_FOLDER [--output FILE] [--markdown FILE]   (HTML and Markdown report)
  kagent-run verify RUN_FOLDER [--json] [--key-env NAME]   (check the run's audit is intact)
  kagent-run --version

"kagent-run <command> --help" explains each command. Without --config, agent.jsonc in the current
folder is used.

${RUN_HELP}`;

const COMMANDS: Record<string, (args: string[], io: CommandIo) => Promise<number>> = {
  run: runCommand,
  call: callCommand,
  tools: toolsCommand,
  policy: policyCommand,
  mcp: mcpCommand,
  report: reportCommand,
  verify: verifyCommand,
};

/**
 * Runs the command line `args` (without the program name).
 *
 * @returns the exit status, one of {@linkcode EXIT} (0 ok, 1 failed, 2 usage or config error, 3
 * approval required, 4 model failed, 5 turn limit, 6 tampered and 7 incomplete (verify), 130 SIGINT, 143 SIGTERM).
 */
export async function main(args: string[], io: CommandIo): Promise<number> {
  const [first, ...rest] = args;
  if (first === "--help" || first === "-h" || first === "help") {
    io.stdout(MAIN_HELP);
    return EXIT.ok;
  }
  if (first === "--version") {
    io.stdout(`kagent-run ${VERSION}\n`);
    return EXIT.ok;
  }
  if (first !== undefined && !first.startsWith("-")) {
    const command = COMMANDS[first];
    if (command === undefined) {
      io.stderr(
        `kagent-run: Cannot run command "${first}": it is not a command; use run, call, tools, policy, mcp, report or verify (see kagent-run --help)\n`,
      );
      return EXIT.usage;
    }
    return await command(rest, io);
  }
  return await runCommand(args, io);
}
