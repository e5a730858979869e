/**
 * Runtime decisions of the effective policy that depend on one rule or one finding: argument
 * findings of commands, and high-risk tools under an allow that does not narrow them. Private to
 * the folder.
 *
 * @module
 */

import type { ToolDescriptor } from "../tools/mod.ts";
import type {
  CommandFinding,
  Decision,
  PolicyDecision,
  PolicyLayer,
  PolicyRule,
  TargetScope,
} from "./policy_rule.ts";
import { isWithin } from "../sandbox/mod.ts";
import { RUNTIME_RULES } from "./runtime_rules.ts";

/**
 * Tells whether an allow rule may let a high-risk tool run without asking: it names the tool
 * exactly (no wildcard) and narrows it with `paths`, `commands` or `arguments` of which no pattern
 * matches everything (one made only of `*` and `/`, after a leading `./`), or with `hosts`.
 */
export function narrowsExactly(rule: PolicyRule, tool: ToolDescriptor): boolean {
  if (!rule.tools.includes(tool.name)) return false;
  const narrows = (patterns: readonly string[] | undefined) =>
    patterns !== undefined && patterns.length > 0 &&
    !patterns.some((pattern) => /^(\.\/)?[/*]+$/.test(pattern));
  // Host patterns never match everything: `*` alone is not one (config/host_pattern.ts).
  return narrows(rule.paths) || narrows(rule.commands) || narrows(rule.arguments) ||
    narrows(rule.argument_prefix) ||
    (rule.hosts !== undefined && rule.hosts.length > 0);
}

/**
 * The runtime's answer to an argument finding: a shell, interpreter or exec wrapper runs whatever it
 * is told, so it asks (unless, under bubblewrap, an allow rule names it: `_command_trust.ts` then
 * drops this ask); a sensitive file asks; an argument naming a path outside the roots or a protected
 * path, or arguments that cannot be checked, are denied (fail closed). `code_execution` stays in the
 * closed set for rules of that kind; the analysis no longer reports it.
 */
export function findingDecision(
  program: string,
  finding: Pick<CommandFinding, "id" | "kind" | "argument" | "reason">,
): PolicyDecision {
  if (finding.kind === "sensitive") {
    // The file is masked inside the sandbox unless this call is approved for it.
    return {
      decision: "ask",
      rule: RUNTIME_RULES.sensitiveArgument,
      layer: "runtime",
      reason: `argument "${finding.argument}" of "${program}": ${finding.reason} (${finding.id})`,
      error_type: "sensitive_path",
    };
  }
  if (finding.kind === "unrestricted_execution") {
    return {
      decision: "ask",
      rule: RUNTIME_RULES.unrestrictedExecution,
      layer: "runtime",
      reason: `"${program}" is unrestricted execution (${finding.reason})`,
      error_type: null,
    };
  }
  const rule = finding.kind === "unchecked"
    ? RUNTIME_RULES.uncheckedArguments
    : RUNTIME_RULES.codeExecutingArguments;
  return {
    decision: "deny",
    rule,
    layer: "runtime",
    reason: `argument "${finding.argument}" of "${program}": ${finding.reason} (${finding.id})`,
    error_type: "permission_denied",
  };
}

/**
 * The ask a high-risk tool gets when the only allow that covers the call is `wide`: a rule that
 * names it through a wildcard or does not narrow it (`runtime:high-risk-unscoped`).
 */
export function wideAllowDecision(wide: PolicyRule, tool: ToolDescriptor): PolicyDecision {
  return {
    decision: "ask",
    rule: RUNTIME_RULES.highRiskUnscoped,
    layer: "runtime",
    reason:
      `rule "${wide.id}" allows the ${
        tool.annotations.destructive ? "destructive" : "dangerous"
      } tool "${tool.name}" ${
        wide.tools.includes(tool.name) ? "without narrowing it" : "through a wildcard"
      }, so each call asks; to allow calls without asking, name "${tool.name}" exactly in ` +
      `"tools" and narrow the rule with "paths", "commands", "arguments" or "hosts"`,
    error_type: null,
  };
}

/** The decision of a skill or config rule that matches a call (a deny as `permission_denied`). */
export function ruleDecision(rule: PolicyRule): PolicyDecision {
  const said = {
    rule: rule.id,
    layer: rule.layer,
    reason: rule.reason ?? `rule "${rule.id}" (${rule.layer}) says ${rule.decision}`,
  };
  return rule.decision === "deny"
    ? { decision: "deny", ...said, error_type: "permission_denied" }
    : { decision: rule.decision, ...said, error_type: null };
}

const LAYER_ORDER: PolicyLayer[] = ["runtime", "sandbox", "skill", "config", "default"];
const DECISION_RANK: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

/** The decision that wins: deny > ask > allow; for equal decisions, the earlier layer. */
export function strongest(candidates: PolicyDecision[]): PolicyDecision {
  return candidates.reduce((best, candidate) => {
    const rank = DECISION_RANK[candidate.decision] - DECISION_RANK[best.decision];
    if (rank > 0) return candidate;
    if (rank === 0 && LAYER_ORDER.indexOf(candidate.layer) < LAYER_ORDER.indexOf(best.layer)) {
      return candidate;
    }
    return best;
  });
}

/**
 * The default layer, when no rule matched: writes into the run's own folders allow, a call whose
 * commands are all known-safe (read-only in the kernel) allows, readonly tools allow, writes ask.
 */
export function defaultDecision(
  tool: ToolDescriptor,
  scope: TargetScope,
  runFolders: readonly string[],
): PolicyDecision {
  if (
    tool.permission === "write" && scope.paths.length > 0 &&
    scope.paths.every((path) => runFolders.some((folder) => isWithin(path.real, folder)))
  ) {
    return {
      decision: "allow",
      rule: RUNTIME_RULES.defaultRunFolders,
      layer: "default",
      reason: "writes into the run's own workspace/ and deliverables/ are allowed by default",
      error_type: null,
    };
  }
  const commands = scope.commands ?? [];
  if (commands.length > 0 && commands.every((command) => command.readOnly === true)) {
    return {
      decision: "allow",
      rule: RUNTIME_RULES.defaultReadOnlyCommand,
      layer: "default",
      reason: "known-safe commands only read, and run with every root read-only",
      error_type: null,
    };
  }
  return tool.permission === "readonly"
    ? {
      decision: "allow",
      rule: RUNTIME_RULES.defaultReadonly,
      layer: "default",
      reason: "readonly tools are allowed by default",
      error_type: null,
    }
    : {
      decision: "ask",
      rule: RUNTIME_RULES.defaultWrite,
      layer: "default",
      reason: "write tools ask by default",
      error_type: null,
    };
}

/** Drops keys whose value is undefined (exactOptionalPropertyTypes). */
export function definedOnly<T extends object>(value: T): PolicyRule {
  return Object.fromEntries(
    Object.entries(value).filter(([, item]) => item !== undefined),
  ) as unknown as PolicyRule;
}
