/**
 * Pipeline step 4: resolve what the call touches — paths through the path guard, commands through
 * the allowlist and argument analysis — then ask the effective policy. An allow never skips the
 * guard: the guard runs first, and a path or command it refuses is a deny of the sandbox layer
 * whatever the rules say.
 *
 * @module
 */

import type { AllowedProgram } from "../exec/mod.ts";
import { resolveCommand, resolveScript } from "../exec/mod.ts";
import type { EffectivePolicy } from "../policy/mod.ts";
import { RUNTIME_RULES } from "../policy/mod.ts";
import type { PolicyDecision, TargetScope } from "../policy/mod.ts";
import type { PathGuard } from "../sandbox/mod.ts";
import type { ToolDefinition } from "../tools/mod.ts";
import type { ToolError } from "../result/mod.ts";

/** What command targets are resolved against; absent when no command tool is enabled. */
export interface CommandResolutionContext {
  /** `commands`: what exec.run_command and declarative tools may run. */
  programs: readonly AllowedProgram[];
  /** What a skill script's shebang or extension may name: `commands` plus `tools.interpreters`. */
  scriptPrograms: readonly AllowedProgram[];
  interpreters: Readonly<Record<string, string>>;
  skillDirs: readonly string[];
  runWorkspace: string;
  /** Commands run without bubblewrap, so they can write the write roots freely. */
  commandsWriteFreely: boolean;
}

/** The decision and what it was made on. */
export interface DecisionOutcome {
  decision: PolicyDecision;
  scope: TargetScope;
  /** When the guard or the allowlist refused a target: its message and details, for the result. */
  refusal: { message: string; details: Record<string, unknown> } | null;
}

/**
 * Decides one validated call.
 *
 * @param tool The registered definition (its `targets` names the paths and commands).
 * @param args Validated arguments.
 */
export async function decide(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  guard: PathGuard,
  policy: EffectivePolicy,
  commands: CommandResolutionContext | null = null,
): Promise<DecisionOutcome> {
  const scope: TargetScope = { paths: [], commands: [] };
  const refused = (error: ToolError): DecisionOutcome => ({
    decision: {
      decision: "deny",
      rule: typeof error.details.rule === "string" ? error.details.rule : RUNTIME_RULES.pathGuard,
      layer: "sandbox",
      reason: error.message,
      error_type: error.type,
    },
    scope,
    refusal: { message: error.message, details: error.details },
  });
  for (const target of tool.targets?.(args) ?? []) {
    if (target.kind === "path") {
      const check = await guard.check(target.path, target.access);
      if (!check.ok) return refused(check.error);
      scope.paths.push(check.path);
      continue;
    }
    if (commands === null) {
      return refused({
        type: "tool_not_available",
        message:
          `Cannot call tool "${tool.name}": command tools are not enabled ("commands" is empty)`,
        details: {},
      });
    }
    const resolution = target.kind === "command"
      ? await resolveCommand(target.argv, target.cwd, guard, commands.programs, {
        declared: target.declared === true,
      })
      : await resolveScript(target, { guard, ...commands, programs: commands.scriptPrograms });
    if (!resolution.ok) return refused(resolution.error);
    scope.commands?.push(resolution.command);
    scope.paths.push(resolution.command.cwd);
  }
  return { decision: policy.decide(tool, scope), scope, refusal: null };
}
