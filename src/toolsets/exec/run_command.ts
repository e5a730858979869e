/**
 * `exec.run_command(argv, cwd?, timeout_ms?)`: runs an allowlisted program with its arguments as
 * separate argv elements (never a shell string), confined and bounded.
 *
 * @module
 */

import { z } from "zod";
import { resolveCommand } from "../../exec/mod.ts";
import { defineTool } from "../../tools/mod.ts";
import { failure } from "../../result/mod.ts";
import { runPrepared } from "./run_prepared.ts";

const parameters = z.strictObject({
  argv: z.array(z.string().max(32_768)).min(1).max(1024).describe(
    'Program and arguments as separate elements, e.g. ["git", "status", "--short"]. argv[0] must ' +
      "be an allowlisted program name. No shell: $(…), `…`, | and ; stay literal",
  ),
  cwd: z.string().min(1).max(4096).optional().describe(
    "Working folder, relative to the workspace (default: the workspace)",
  ),
  timeout_ms: z.int().min(1).max(600_000).optional().describe(
    "A shorter time limit in ms; it can only lower the configured limit (tools.default_timeout_ms), " +
      "a higher value is lowered to it. The process tree is killed after it",
  ),
});

/** The `exec.run_command` tool. Off by default: needs `commands` and a rule naming it. */
export const runCommandTool = defineTool({
  name: "exec.run_command",
  description: "Runs an allowlisted program (argv, no shell) in the workspace with a time limit. " +
    "Returns exit code and the head and tail of stdout and stderr; the full streams are kept as " +
    "artifacts. The environment is an allowlist; the model cannot set variables.",
  parameters,
  permission: "write",
  tags: ["exec", "write", "dangerous"],
  annotations: {
    destructive: false,
    open_world: false,
    risk_level: 3,
    category: "exec",
    idempotent: false,
  },
  targets: (
    args,
  ) => [{ kind: "command", argv: args.argv, ...(args.cwd === undefined ? {} : { cwd: args.cwd }) }],
  handler: async (args, context) => {
    if (context.exec === undefined) {
      return failure(
        "internal_error",
        'Cannot run a command: command tools are not enabled ("commands" is empty)',
      );
    }
    const resolution = await resolveCommand(
      args.argv,
      args.cwd,
      context.guard,
      context.exec.programs,
    );
    if (!resolution.ok) {
      return failure(resolution.error.type, resolution.error.message, resolution.error.details);
    }
    return await runPrepared(resolution.command, context, { timeoutMs: args.timeout_ms });
  },
});
