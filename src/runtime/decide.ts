/**
 * Pipeline step 4: resolve what the call touches through the path guard, then ask the effective
 * policy. An allow never skips the guard: the guard runs first, and a path it refuses is a deny of
 * the sandbox layer whatever the rules say.
 *
 * @module
 */

import type { PathGuard } from "../sandbox/path_guard.ts";
import type { EffectivePolicy } from "../policy/effective_policy.ts";
import { RUNTIME_RULES } from "../policy/effective_policy.ts";
import type { PolicyDecision, TargetScope } from "../policy/policy_rule.ts";
import type { ToolDefinition } from "../tools/tool_definition.ts";

/** The decision and what it was made on. */
export interface DecisionOutcome {
  decision: PolicyDecision;
  scope: TargetScope;
  /** When the guard refused a path: its message and details, for the result. */
  refusal: { message: string; details: Record<string, unknown> } | null;
}

/**
 * Decides one validated call.
 *
 * @param tool The registered definition (its `targets` names the paths).
 * @param args Validated arguments.
 */
export async function decide(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  guard: PathGuard,
  policy: EffectivePolicy,
): Promise<DecisionOutcome> {
  const scope: TargetScope = { paths: [] };
  for (const target of tool.targets?.(args) ?? []) {
    const check = await guard.check(target.path, target.access);
    if (!check.ok) {
      return {
        decision: {
          decision: "deny",
          rule: RUNTIME_RULES.pathGuard,
          layer: "sandbox",
          reason: check.error.message,
          error_type: check.error.type,
        },
        scope,
        refusal: { message: check.error.message, details: check.error.details },
      };
    }
    scope.paths.push(check.path);
  }
  return { decision: policy.decide(tool, scope), scope, refusal: null };
}
