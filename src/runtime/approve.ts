/**
 * Pipeline step 5: an `ask` decision needs an approval. Until approvers exist (interactive and
 * grants), nobody can answer, so an ask becomes an explicit `approval_required` result that says
 * which rule asked and why.
 *
 * @module
 */

import type { PolicyDecision, TargetScope } from "../policy/mod.ts";
import { failure, type ToolOutcome } from "../result/mod.ts";

/**
 * Resolves an ask. Returns the failure outcome the call ends with, or null when it may run.
 *
 * @param toolName Canonical tool name, for the message.
 */
export function approve(
  toolName: string,
  decision: PolicyDecision,
  scope: TargetScope,
): ToolOutcome | null {
  if (decision.decision !== "ask") return null;
  const targets = [
    ...(scope.commands ?? []).map((command) =>
      `${command.argv.join(" ")} (in ${command.cwd.display})`
    ),
    ...scope.paths.filter((path) => !(scope.commands ?? []).some((command) => command.cwd === path))
      .map((path) => path.display),
    ...(scope.hosts ?? []).map((host) => host.scope),
  ];
  const on = targets.length > 0 ? ` on "${targets.join('", "')}"` : "";
  return failure(
    "approval_required",
    `Cannot call tool "${toolName}"${on}: approval required (${decision.reason}) and nobody can approve in this run`,
    {
      rule: decision.rule,
      layer: decision.layer,
      reason: decision.reason,
      targets,
      sensitive: decision.error_type === "sensitive_path",
    },
  );
}
