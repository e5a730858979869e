/**
 * `skills.run_script(skill, script, args)`: runs a script shipped in a skill's `scripts/` folder,
 * by its shebang interpreter or the config's extension map, in the run's workspace/ folder, with
 * the same environment, time, output and confinement rules as `exec.run_command`.
 *
 * @module
 */

import { z } from "zod";
import { resolveScript } from "../../exec/mod.ts";
import { defineTool } from "../../tools/mod.ts";
import { failure } from "../../result/mod.ts";
import { runPrepared } from "../exec/run_prepared.ts";

const parameters = z.strictObject({
  // Up to 64 code points (the name rule is checked when the script resolves): 256 UTF-16 units.
  skill: z.string().min(1).max(256).describe('Skill id, e.g. "survey-repository"'),
  script: z.string().min(1).max(255).describe(
    'File inside the skill\'s scripts/ folder, e.g. "count_lines.sh"',
  ),
  args: z.array(z.string().max(32_768)).max(256).optional().describe("Arguments for the script"),
  timeout_ms: z.int().min(1).max(600_000).optional().describe("Time limit in ms"),
});

/** The `skills.run_script` tool. Off by default: needs an interpreter allowlisted and a rule naming it. */
export const runScriptTool = defineTool({
  name: "skills.run_script",
  description: "Runs a script from a skill's scripts/ folder with its arguments, in the run's " +
    "scratch folder. Returns exit code and the head and tail of its output.",
  parameters,
  permission: "write",
  tags: ["skills", "exec", "write", "dangerous"],
  annotations: {
    destructive: false,
    open_world: false,
    risk_level: 3,
    category: "skills",
    idempotent: false,
  },
  targets: (
    args,
  ) => [{ kind: "script", skill: args.skill, script: args.script, args: args.args ?? [] }],
  handler: async (args, context) => {
    const exec = context.exec;
    if (exec === undefined) {
      return failure("internal_error", "Cannot run a skill script: command tools are not enabled");
    }
    const resolution = await resolveScript(
      { skill: args.skill, script: args.script, args: args.args ?? [] },
      {
        guard: context.guard,
        programs: exec.script_programs,
        interpreters: exec.interpreters,
        skillDirs: exec.skill_dirs,
        runWorkspace: context.run.workspace,
        commandsWriteFreely: exec.isolation === "none",
      },
    );
    if (!resolution.ok) {
      return failure(resolution.error.type, resolution.error.message, resolution.error.details);
    }
    return await runPrepared(resolution.command, context, { timeoutMs: args.timeout_ms });
  },
});
