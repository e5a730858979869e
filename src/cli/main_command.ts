/**
 * The command line: dispatches to a subcommand.
 *
 * @module
 */

import { RUN_HELP } from "./_run_help.ts";
import { type CommandIo, EXIT } from "./_common.ts";

/** The version printed by `--version`. */
export const VERSION = "0.1.0";

/** Help text of `kagent-run --help`. */
export const MAIN_HELP =
  `kagent-run ${VERSION}: a sandboxed tool runtime and agent runner for LLM agents

Usage:
  kagent-run [run] --config FILE ["TASK" | --task T | --task-file F|-] [--output text|json|stream-json]
  echo "TASK" | kagent-run --config FILE   (piped standard input is the task when none is given)
  kagent-run call <tool> '<json arguments>' --config FILE
  kagent-run tools --config FILE [--json]
  kagent-run policy --config FILE [--json]
  kagent-run mcp --config FILE [--http 127.0.0.1:PORT]   (serve the tools to MCP clients)
  kagent-run report RUN_FOLDER [--output FILE] [--markdown FILE]   (HTML and Markdown report)
  kagent-run verify RUN_FOLDER [--json] [--key-env NAME]   (check the run's audit is intact)
  kagent-run resume RUN_FOLDER [--approve GRANT]... [--task T]   (continue a stopped run)
  kagent-run memory promote RUN_FOLDER [--accept ID]...   (write accepted memory candidates)
  kagent-run worker --config FILE --task TASK_ID [--agent NAME] [--max-steps N]   (work a shared task)
  kagent-run task show TASK_ID [--config FILE] [--run RUN_FOLDER]   (a task's steps and owners)
  kagent-run task verify TASK_ID --runs RUNS_DIR...   (the shared store against the sealed runs)
  kagent-run --version

"kagent-run <command> --help" explains each command. Without --config, agent.jsonc in the current
folder is used.

${RUN_HELP}`;

// Each command's module is loaded when it is named, so that a command does not pay at start-up for
// evaluating what only another one uses (the agent loop, the MCP server, the report renderer).
const runCommand = async (args: string[], io: CommandIo) =>
  (await import("./run_command.ts")).runCommand(args, io);
const COMMANDS: Record<string, (args: string[], io: CommandIo) => Promise<number>> = {
  run: runCommand,
  call: async (args, io) => (await import("./call_command.ts")).callCommand(args, io),
  tools: async (args, io) => (await import("./tools_command.ts")).toolsCommand(args, io),
  policy: async (args, io) => (await import("./policy_command.ts")).policyCommand(args, io),
  mcp: async (args, io) => (await import("./mcp_command.ts")).mcpCommand(args, io),
  report: async (args, io) => (await import("./report_command.ts")).reportCommand(args, io),
  verify: async (args, io) => (await import("./verify_command.ts")).verifyCommand(args, io),
  memory: async (args, io) => (await import("./memory_command.ts")).memoryCommand(args, io),
  resume: async (args, io) => (await import("./resume_command.ts")).resumeCommand(args, io),
  worker: async (args, io) => (await import("./worker_command.ts")).workerCommand(args, io),
  task: async (args, io) => (await import("./task_command.ts")).taskCommand(args, io),
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
    // A first argument with a space is a task, as `claude -p "…"` takes it: `kagent-run "fix X"`.
    if (command === undefined && /\s/.test(first)) return await runCommand(args, io);
    if (command === undefined) {
      io.stderr(
        `kagent-run: Cannot run command "${first}": it is not a command; use run, call, tools, policy, mcp, report, verify, memory, worker or task, or give a task of several words, or --task (see kagent-run --help)\n`,
      );
      return EXIT.usage;
    }
    return await command(rest, io);
  }
  return await runCommand(args, io);
}
