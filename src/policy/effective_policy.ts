/**
 * The effective permission policy of a run: runtime safe defaults + config + skill requests +
 * sandbox constraints, computed once, snapshotted to `policy.json`, and asked for every call.
 *
 * Order of a decision:
 * 1. Sandbox constraints: a path the guard refused, or a write into a protected path → deny.
 * 2. Every matching rule of the runtime, sandbox, skill and config layers is collected; deny beats
 *    ask beats allow; within the same decision the earlier layer names the rule
 *    (runtime, sandbox, skill, config).
 * 3. No rule matched → the default layer: readonly tools allow, write tools ask.
 *
 * Runtime rules kagent-run always has: sensitive paths ask; tools with `requires_confirmation` ask;
 * destructive or `dangerous`-tagged tools are off (deny) unless a config rule names them exactly
 * (no wildcard) with allow or ask — `fs.*: allow` never turns on `fs.delete_file`; and such a tool
 * is allowed without asking only by an allow rule that names it exactly AND narrows it (`paths`,
 * `commands` or `arguments`, not a pattern made only of `*` and `/`): a wildcard or scope-less
 * allow of it asks instead (`runtime:high-risk-unscoped`, its reason naming the rule).
 * A skill rule can only ask or deny (its allow counts as ask), a skill's `allowed_tools`
 * narrows the tool set, and its `allowed_commands` narrows what a command tool may run (a call
 * running another command is denied); none of them can widen anything.
 *
 * @module
 */

import type { ToolDescriptor } from "../tools/mod.ts";
import {
  type Decision,
  matchesCall,
  matchesTool,
  NO_TARGETS,
  type PolicyDecision,
  type PolicyRule,
  type TargetScope,
} from "./policy_rule.ts";
import picomatch from "picomatch";
import type { NamedLocation } from "./named_locations.ts";
import { meaningHash, scopeLocations } from "./policy_hash.ts";
import { commandDecisions } from "./_command_trust.ts";
import {
  defaultDecision,
  definedOnly,
  narrowsExactly,
  ruleDecision,
  strongest,
  wideAllowDecision,
} from "./_runtime_decisions.ts";
import type { PolicyInputs, SkillRequest, ToolPolicy } from "./policy_inputs.ts";
import { agentTypeExclusion } from "./agent_tool_sets.ts";
import { RUNTIME_RULES } from "./runtime_rules.ts";
import { narrowedOutTools, skillCommandDeny } from "./_skill_narrowing.ts";
import { smartApproval, smartSnapshot } from "./_smart_approval.ts";

export { RUNTIME_RULES } from "./runtime_rules.ts";

/**
 * The computed policy. Immutable; {@linkcode EffectivePolicy.decide} is pure apart from reading
 * the scope the guard produced.
 */
export class EffectivePolicy {
  readonly rules: readonly PolicyRule[];
  readonly tools: readonly ToolPolicy[];
  /**
   * sha256 (hex) of the policy's meaning: the snapshot with the run folder, roots, workspace, home
   * folder and program paths written by name (see `policy_hash.ts`), so that every checkout of a
   * repository with the same config and permissions has the same hash.
   */
  readonly hash: string;
  /**
   * The named locations scopes are written with (`<run>`, `<write_root:N>`, `<read_root:N>`,
   * `<workspace>`), most specific first; grants use them (see `normaliseScope`).
   */
  readonly locations: readonly NamedLocation[];
  readonly #inputs: PolicyInputs;
  readonly #narrowedOut: Map<string, string>;

  readonly #agentOut: Map<string, { rule: string; reason: string }>;

  private constructor(
    inputs: PolicyInputs,
    rules: PolicyRule[],
    narrowedOut: Map<string, string>,
    agentOut: Map<string, { rule: string; reason: string }>,
  ) {
    this.#inputs = inputs;
    this.rules = rules;
    this.#narrowedOut = narrowedOut;
    this.#agentOut = agentOut;
    this.tools = inputs.tools.map((tool) => this.#toolPolicy(tool));
    this.hash = meaningHash(this.#body(), inputs);
    this.locations = scopeLocations(inputs);
  }

  /** Computes the policy from its layers. */
  static compute(inputs: PolicyInputs): EffectivePolicy {
    const rules: PolicyRule[] = [];
    const narrowedOut = narrowedOutTools(inputs.skillRequests ?? [], inputs.tools);
    for (const request of inputs.skillRequests ?? []) {
      (request.rules ?? []).forEach((rule, index) => {
        const decision: Decision = rule.decision === "deny" ? "deny" : "ask";
        rules.push(definedOnly({
          ...rule,
          id: `skill:${request.skill}:${index}`,
          layer: "skill",
          decision,
          reason: rule.reason ??
            `requested by skill "${request.skill}"${
              rule.decision === "allow" ? " (a skill cannot allow: asked instead)" : ""
            }`,
        }));
      });
    }
    for (const rule of inputs.configRules) rules.push(definedOnly({ ...rule, layer: "config" }));
    const agentOut = new Map<string, { rule: string; reason: string }>();
    const agentType = inputs.agentType ?? "main";
    for (const tool of inputs.tools) {
      const excluded = agentTypeExclusion(tool, agentType, inputs.allowedTools ?? []);
      if (excluded !== null) {
        agentOut.set(tool.name, {
          rule: excluded.rule === "type"
            ? RUNTIME_RULES.agentType
            : RUNTIME_RULES.agentAllowedTools,
          reason: excluded.reason,
        });
      } else if (
        inputs.taskTools !== undefined && !picomatch.isMatch(tool.name, inputs.taskTools)
      ) {
        agentOut.set(tool.name, {
          rule: RUNTIME_RULES.taskNarrowing,
          reason: `the task's tool list (${inputs.taskTools.join(", ")}) does not include it`,
        });
      }
    }
    return new EffectivePolicy(inputs, rules, narrowedOut, agentOut);
  }

  /**
   * Decides one call (in smart mode an ask may then be answered: `_smart_approval.ts`).
   *
   * @param tool The tool called.
   * @param scope Its targets as the path guard resolved them.
   */
  decide(tool: ToolDescriptor, scope: TargetScope): PolicyDecision {
    return smartApproval(this.#decide(tool, scope), tool, this.#inputs.smartApproval ?? null);
  }
  #decide(tool: ToolDescriptor, scope: TargetScope): PolicyDecision {
    // 1. Sandbox constraints, before any rule: nothing can allow past them.
    for (const path of scope.paths) {
      if (path.protected !== null) {
        return {
          decision: "deny",
          rule: RUNTIME_RULES.protectedPath,
          layer: "sandbox",
          reason:
            `"${path.display}" is inside the protected path "${path.protected}", which tools never write`,
          error_type: "permission_denied",
        };
      }
    }
    const candidates: PolicyDecision[] = [];
    const agentOut = this.#agentOut.get(tool.name);
    if (agentOut !== undefined) {
      candidates.push({
        decision: "deny",
        rule: agentOut.rule,
        layer: "runtime",
        reason: agentOut.reason,
        error_type: "permission_denied",
      });
    }
    const narrowedBy = this.#narrowedOut.get(tool.name);
    if (narrowedBy !== undefined) {
      candidates.push({
        decision: "deny",
        rule: RUNTIME_RULES.skillNarrowing,
        layer: "skill",
        reason: `skill "${narrowedBy}" does not list "${tool.name}" in its allowed tools`,
        error_type: "permission_denied",
      });
    }
    const commandDeny = skillCommandDeny(this.#inputs.skillRequests ?? [], tool, scope);
    if (commandDeny !== null) candidates.push(commandDeny);
    // 2. Runtime rules.
    if (this.#isDestructive(tool) && !this.#enabledExplicitly(tool)) {
      candidates.push({
        decision: "deny",
        rule: RUNTIME_RULES.destructiveOff,
        layer: "runtime",
        reason:
          `"${tool.name}" is destructive or dangerous and off by default; enable it with a permissions rule whose "tools" names it exactly`,
        error_type: "permission_denied",
      });
    }
    for (const path of scope.paths) {
      // Another name for the same file may lie outside the roots (`ln /etc/shadow x`): the guard
      // cannot tell where, so reading it asks, as for a sensitive file. Writes replace the name
      // (a new file renamed into place), never writing through the link, so they need no ask.
      if ((path.links ?? 1) > 1 && path.type === "file" && path.access === "read") {
        candidates.push({
          decision: "ask",
          rule: RUNTIME_RULES.hardLink,
          layer: "runtime",
          reason: `"${path.display}" has ${path.links} hard links: the same file may also be ` +
            `reached by a name outside the roots`,
          error_type: "sensitive_path",
        });
      }
      if (path.sensitive !== null) {
        candidates.push({
          decision: "ask",
          rule: RUNTIME_RULES.sensitivePath,
          layer: "runtime",
          reason: `"${path.display}" matches the sensitive pattern "${path.sensitive}"`,
          error_type: "sensitive_path",
        });
      }
    }
    const isolation = this.#inputs.commandIsolation;
    candidates.push(...commandDecisions({
      tool,
      scope,
      rules: this.rules,
      workspace: this.#inputs.workspace,
      confined: isolation?.effective === "bwrap" && isolation.tools.includes(tool.name),
      highRisk: this.#isDestructive(tool),
    }));
    // After the findings: an ask of theirs names the more specific reason (same layer, first wins).
    if (isolation !== undefined && isolation.tools.includes(tool.name)) {
      if (isolation.effective === "off") {
        candidates.push({
          decision: "deny",
          rule: RUNTIME_RULES.commandIsolation,
          layer: "sandbox",
          reason: isolation.reason,
          error_type: "permission_denied",
        });
      } else if (isolation.effective === "none") {
        candidates.push({
          decision: "ask",
          rule: RUNTIME_RULES.unconfinedCommand,
          layer: "runtime",
          reason: 'commands run without OS confinement ("sandbox.command_isolation": "none"), so ' +
            "every command call asks, whatever a rule allows; without a person to ask (CI) it " +
            "needs a grant for its exact argv and folder",
          error_type: null,
        });
      }
    }
    if (tool.annotations.requires_confirmation) {
      candidates.push({
        decision: "ask",
        rule: RUNTIME_RULES.requiresConfirmation,
        layer: "runtime",
        reason: `"${tool.name}" requires confirmation for every call`,
        error_type: null,
      });
    }
    // 3. Skill and config rules. A high-risk tool is allowed only by a rule that names it exactly
    // and narrows it; a wider allow that matches asks instead, unless a narrow one covers the call.
    const highRisk = this.#isDestructive(tool);
    const wideAllows: PolicyRule[] = [];
    let narrowAllow = false;
    for (const rule of this.rules) {
      if (!matchesCall(rule, tool, scope, this.#inputs.workspace)) continue;
      if (highRisk && rule.decision === "allow") {
        if (!narrowsExactly(rule, tool)) {
          wideAllows.push(rule);
          continue;
        }
        narrowAllow = true;
      }
      candidates.push(ruleDecision(rule));
    }
    const wide = wideAllows[0];
    if (wide !== undefined && !narrowAllow) candidates.push(wideAllowDecision(wide, tool));
    if (candidates.length > 0) return strongest(candidates);
    // 4. Defaults.
    return defaultDecision(tool, scope, this.#inputs.runFolders ?? []);
  }

  /**
   * This policy narrowed by one more skill request (a skill loaded during the run): its
   * allowed-tools intersect the tool set; it can never widen it.
   */
  withSkillRequest(request: SkillRequest): EffectivePolicy {
    return EffectivePolicy.compute({
      ...this.#inputs,
      skillRequests: [...(this.#inputs.skillRequests ?? []), request],
    });
  }

  /** The tool-level view of `name`, or undefined for an unknown tool. */
  toolPolicy(name: string): ToolPolicy | undefined {
    return this.tools.find((tool) => tool.tool === name);
  }

  /** Tells whether `name` is in the run's effective tool set. */
  isAvailable(name: string): boolean {
    return this.toolPolicy(name)?.available ?? false;
  }

  /** The `policy.json` snapshot: layers, rules, per-tool decisions, and the hash of all of it. */
  snapshot(): Record<string, unknown> {
    return { ...this.#body(), hash: this.hash };
  }

  #body(): Record<string, unknown> {
    return {
      format: "kagent-run/policy@1",
      precedence:
        "sandbox constraints first; then deny > ask > allow across runtime, sandbox, skill and config rules; defaults last",
      layers: {
        runtime: {
          rules: Object.values(RUNTIME_RULES).filter((id) => id.startsWith("runtime:")),
          defaults: [
            RUNTIME_RULES.defaultReadonly,
            RUNTIME_RULES.defaultRunFolders,
            RUNTIME_RULES.defaultReadOnlyCommand,
            RUNTIME_RULES.defaultWrite,
          ],
          run_folders: this.#inputs.runFolders ?? [],
        },
        sandbox: this.#inputs.sandbox,
        config: {
          source: this.#inputs.configSource,
          rules: this.rules.filter((rule) => rule.layer === "config"),
        },
        skill: {
          requests: this.#inputs.skillRequests ?? [],
          rules: this.rules.filter((rule) => rule.layer === "skill"),
          narrowed_out: Object.fromEntries(this.#narrowedOut),
        },
      },
      agent: {
        type: this.#inputs.agentType ?? "main",
        task_tools: this.#inputs.taskTools ?? null,
        suggested_tools: this.#inputs.suggestedTools ?? [],
        // Only when given: the main agent's policy hash stays what it was before agent types.
        ...((this.#inputs.allowedTools ?? []).length === 0
          ? {}
          : { allowed_tools: this.#inputs.allowedTools }),
      },
      tools: this.tools,
      ...smartSnapshot(this.#inputs.smartApproval ?? null),
    };
  }

  #toolPolicy(tool: ToolDescriptor): ToolPolicy {
    const decision = this.decide(tool, NO_TARGETS);
    const conditional = this.rules
      .filter((rule) =>
        matchesTool(rule, tool) &&
        ((rule.paths?.length ?? 0) > 0 || (rule.commands?.length ?? 0) > 0)
      )
      .map((rule) => rule.id);
    return {
      tool: tool.name,
      decision: decision.decision,
      rule: decision.rule,
      layer: decision.layer,
      reason: decision.reason,
      // A tool-level deny matches every call of the tool (deny beats any path rule): remove it.
      available: decision.decision !== "deny",
      conditional_rules: conditional,
    };
  }

  #isDestructive(tool: ToolDescriptor): boolean {
    return tool.annotations.destructive || tool.tags.includes("dangerous") ||
      tool.tags.includes("destructive");
  }

  #enabledExplicitly(tool: ToolDescriptor): boolean {
    return this.#inputs.configRules.some((rule) =>
      rule.decision !== "deny" && rule.tools.includes(tool.name)
    );
  }
}
