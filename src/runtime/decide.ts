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
import type { HostAllowlist } from "../config/mod.ts";
import { hostPermission } from "../network/mod.ts";
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
 * @param tool The registered definition (its `targets` names the paths, commands and hosts).
 * @param args Validated arguments.
 * @param network `network.hosts`, which a host target must be admitted by; null: no host is.
 */
export async function decide(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  guard: PathGuard,
  policy: EffectivePolicy,
  commands: CommandResolutionContext | null = null,
  network: HostAllowlist | null = null,
): Promise<DecisionOutcome> {
  const scope: TargetScope = { paths: [], commands: [], hosts: [] };
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
    if (target.kind === "host") {
      const host = hostTarget(target.url, network);
      if ("error" in host) return refused(host.error);
      scope.hosts?.push(host);
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

/**
 * The host a URL names, as a target: admitted by `network.hosts`, or the refusal
 * (`sandbox:network-allowlist`).
 */
function hostTarget(
  url: string,
  network: HostAllowlist | null,
): { hostname: string; port: number; scope: string } | { error: ToolError } {
  let parsed: URL;
  let scope: string;
  try {
    parsed = new URL(url);
    scope = hostPermission(parsed);
  } catch (error) {
    return {
      error: {
        type: "invalid_arguments",
        message: `Cannot fetch "${url}": ${(error as Error).message}`,
        details: { rule: RUNTIME_RULES.networkAllowlist },
      },
    };
  }
  const port = Number(scope.slice(scope.lastIndexOf(":") + 1));
  if (network === null || !network.admits(parsed.hostname, port)) {
    return {
      error: {
        type: "permission_denied",
        message: `Cannot reach "${scope}": "network.hosts" in the config does not admit it` +
          (network === null || network.patterns.length === 0
            ? " (it lists no host)"
            : ` (it admits ${network.patterns.map((pattern) => `"${pattern.text}"`).join(", ")})`),
        details: { rule: RUNTIME_RULES.networkAllowlist, host: scope },
      },
    };
  }
  return { hostname: parsed.hostname, port, scope };
}
