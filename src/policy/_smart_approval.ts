/**
 * Smart approval (`permissions.mode: "smart"`, seed 002): an ask of the config's rules or of the
 * default layer is answered from the tool's annotations instead of a person, when they say the
 * call cannot change or reach anything. Private to the folder.
 *
 * @module
 */

import type { ToolDescriptor } from "../tools/mod.ts";
import type { PolicyDecision } from "./policy_rule.ts";

/** The rule id an ask answered by smart approval is recorded with. */
export const SMART_RULE = "smart:annotations";

/**
 * `decision`, or an allow by {@linkcode SMART_RULE} when `decision` is an ask of the config or
 * default layer and `tool` is read-only, not destructive, not open-world, not `dangerous`, needs no
 * confirmation and has a risk level of at most `smart.maxRisk` (null `smart`: the mode is off). Asks of the runtime (sensitive paths,
 * hard links, high-risk tools, unconfined commands, `requires_confirmation`), the sandbox and
 * skills are never answered here, and hooks decide after the policy.
 */
export function smartApproval(
  decision: PolicyDecision,
  tool: ToolDescriptor,
  smart: { maxRisk: number } | null,
): PolicyDecision {
  if (smart === null || decision.decision !== "ask") return decision;
  const maxRisk = smart.maxRisk;
  if (decision.layer !== "config" && decision.layer !== "default") return decision;
  const { annotations } = tool;
  const safe = annotations.read_only && !annotations.destructive && !annotations.open_world &&
    !annotations.requires_confirmation && !tool.tags.includes("dangerous") &&
    annotations.risk_level <= maxRisk;
  if (!safe) return decision;
  return {
    decision: "allow",
    rule: SMART_RULE,
    layer: decision.layer,
    reason: `smart approval: "${tool.name}" is read-only, not destructive, not open-world and ` +
      `of risk ${annotations.risk_level} (at most ${maxRisk}), so the ask of rule ` +
      `"${decision.rule}" was answered without a person`,
    error_type: null,
  };
}

/**
 * What the policy snapshot (and so its hash) says of the mode: nothing outside smart mode, so every
 * other policy keeps the hash it had before the mode existed.
 */
export function smartSnapshot(smart: { maxRisk: number } | null): Record<string, unknown> {
  return smart === null ? {} : { mode: { name: "smart", smart_max_risk: smart.maxRisk } };
}
