/**
 * A policy that trusts the kernel: how the runtime layer decides a command call from its argument
 * findings, the isolation it runs under, and whether an allow rule names its program. Private to
 * the folder.
 *
 * - Under bubblewrap the kernel holds the boundary (only the roots exist, `.git` and protected
 *   paths read-only, sensitive files masked, no network unless configured, nothing outlives the
 *   call). An allow rule of the config that names the tool exactly and names the program in
 *   `commands` (its allowlisted name or its path, never a glob) lets an interpreter or build tool
 *   run unasked (`npm test`, `python3 -m pytest`); without such a rule it asks
 *   (`runtime:unrestricted-execution`).
 * - An argv that is not known-safe (it may write or execute: `zip -T -TT cmd`, `git push`) runs
 *   unasked only by such a naming rule too: an allow that covers it through a glob or without
 *   `commands` asks (`runtime:program-not-named`).
 * - Without confinement (`none`) nothing here allows: every command asks anyway.
 *
 * @module
 */

import type { ToolDescriptor } from "../tools/mod.ts";
import {
  type CommandScope,
  matchesCall,
  type PolicyDecision,
  type PolicyRule,
  type TargetScope,
} from "./policy_rule.ts";
import { findingDecision, narrowsExactly } from "./_runtime_decisions.ts";
import { RUNTIME_RULES } from "./runtime_rules.ts";

/** What {@linkcode commandDecisions} needs of the effective policy. */
export interface CommandTrustInputs {
  tool: ToolDescriptor;
  scope: TargetScope;
  /** The skill and config rules of the policy. */
  rules: readonly PolicyRule[];
  workspace: string;
  /** Whether commands of this tool run under bubblewrap. */
  confined: boolean;
  /**
   * The tool is destructive or dangerous: an allow that does not name it exactly and narrow it
   * asks already (`runtime:high-risk-unscoped`), so only narrow allows count here.
   */
  highRisk: boolean;
}

/**
 * The runtime layer's candidates for the commands of one call: the argument findings' decisions
 * (an unrestricted program's ask dropped when a naming rule allows it under confinement), and the
 * ask of an argv that may write or execute when only a rule that does not name its program allows
 * it.
 */
export function commandDecisions(inputs: CommandTrustInputs): PolicyDecision[] {
  const { tool, scope, rules, workspace, confined, highRisk } = inputs;
  const candidates: PolicyDecision[] = [];
  const allows = rules.filter((rule) =>
    rule.decision === "allow" && matchesCall(rule, tool, scope, workspace) &&
    (!highRisk || narrowsExactly(rule, tool))
  );
  for (const command of scope.commands ?? []) {
    const named = confined &&
      allows.some((rule) => rule.layer === "config" && namesProgram(rule, tool, command));
    let unrestricted = false;
    for (const finding of command.findings) {
      if (finding.kind === "unrestricted_execution") {
        unrestricted = true;
        if (named) continue; // The kernel holds what the program does; the rule named it.
      }
      candidates.push(findingDecision(command.program, finding));
    }
    if (
      confined && command.readOnly === false && !named && !unrestricted && allows.length > 0
    ) {
      candidates.push(notNamedDecision(command, allows[0] as PolicyRule));
    }
  }
  return candidates;
}

/**
 * Tells whether `rule` names the tool exactly (narrowing it) and the command's program in
 * `commands`, by its allowlisted name or its absolute path (a glob such as `*` or `n*` names none).
 */
export function namesProgram(
  rule: PolicyRule,
  tool: ToolDescriptor,
  command: CommandScope,
): boolean {
  return narrowsExactly(rule, tool) &&
    (rule.commands ?? []).some((name) => name === command.program || name === command.path);
}

function notNamedDecision(command: CommandScope, rule: PolicyRule): PolicyDecision {
  return {
    decision: "ask",
    rule: RUNTIME_RULES.programNotNamed,
    layer: "runtime",
    reason: `"${command.program}" with these arguments is not a known read-only command and rule ` +
      `"${rule.id}" allows it without naming it, so the call asks; to let it run unasked under ` +
      `bubblewrap, name "${command.program}" in the "commands" of an allow rule`,
    error_type: null,
  };
}
