/**
 * Policy rules and decisions: the shapes every layer shares, and how a rule matches a call.
 *
 * @module
 */

import picomatch from "picomatch";
import * as nodePath from "node:path";
import type { ErrorType } from "../result/mod.ts";
import type { ToolDescriptor } from "../tools/mod.ts";
import { isWithin, type ResolvedPath } from "../sandbox/mod.ts";
import { parseHostPattern, patternAdmits } from "../config/base/mod.ts";

/** The three decisions. Across layers: deny beats ask beats allow. */
export type Decision = "allow" | "ask" | "deny";

/**
 * Where a rule comes from. `runtime` rules are kagent-run's own and cannot be overridden; `sandbox`
 * comes from the roots and protected paths; `config` from permissions.json; `skill` from loaded
 * skills (ask or narrow only); `default` applies when no other rule matched.
 */
export type PolicyLayer = "runtime" | "sandbox" | "config" | "skill" | "default";

/** A rule in the permissions.json format (ARCHITECTURE §4), with the layer it belongs to. */
export interface PolicyRule {
  /** Unique within the effective policy, e.g. `config:0` or `runtime:protected-path`. */
  id: string;
  layer: PolicyLayer;
  /** Glob patterns over canonical tool names: `fs.*`, `*`, `fs.read_file`. */
  tools: readonly string[];
  /** The tool must carry every listed tag. */
  tags?: readonly string[];
  /** Glob patterns over paths relative to the workspace (or absolute). */
  paths?: readonly string[];
  /** Programs (allowlisted names or absolute paths). Matches no call without a command. */
  commands?: readonly string[];
  /** Glob patterns over a command's arguments (argv[1..], one element at a time). */
  arguments?: readonly string[];
  /**
   * Glob patterns, in order, that a command's first arguments must match one for one
   * (`["run", "lint"]` covers `npm run lint` and `npm run lint -- --fix`, not `npm run build`).
   */
  argument_prefix?: readonly string[];
  /**
   * Host patterns (`api.github.com`, `*.example.com`, `host:8443`, `host:*`; see
   * `config/host_pattern.ts`) over the hosts a call reaches. Matches no call without a host.
   */
  hosts?: readonly string[];
  decision: Decision;
  reason?: string;
}

/** What every {@linkcode PolicyDecision} names: which rule, which layer, why. */
export interface PolicyDecisionBase {
  /** The id of the rule that decided. */
  rule: string;
  layer: PolicyLayer;
  /** A sentence for people: why this decision. */
  reason: string;
}

/** A deny: it always names the `error.type` the call's result carries. */
export interface PolicyDeny extends PolicyDecisionBase {
  decision: "deny";
  /** The result's `error.type`, e.g. `permission_denied`. */
  error_type: ErrorType;
}

/** An ask: the call waits for a grant or an approver. */
export interface PolicyAsk extends PolicyDecisionBase {
  decision: "ask";
  /**
   * The `error.type` the result carries when nobody approves and the ask is for a reason of its
   * own (`sensitive_path` for a sensitive file or argument, a hard-linked file); null when the
   * result is plain `approval_required`.
   */
  error_type: ErrorType | null;
}

/** An allow. */
export interface PolicyAllow extends PolicyDecisionBase {
  decision: "allow";
  error_type: null;
}

/**
 * The outcome of a decision: what, which rule, which layer, why; discriminated by `decision`.
 *
 * @example
 * ```ts
 * import type { PolicyDecision } from "./policy_rule.ts";
 * const decision: PolicyDecision = {
 *   decision: "deny",
 *   rule: "config:0",
 *   layer: "config",
 *   reason: "no network tools",
 *   error_type: "permission_denied",
 * };
 * console.assert(decision.decision === "deny" && decision.error_type === "permission_denied");
 * ```
 */
export type PolicyDecision = PolicyDeny | PolicyAsk | PolicyAllow;

/**
 * What a finding of the argument analysis (`src/exec/argv_analysis.ts`,
 * `src/exec/path_argument_findings.ts`) means; the policy decides on it
 * (`src/policy/_runtime_decisions.ts`, `src/policy/_command_trust.ts`):
 *
 * - `unrestricted_execution`: the program is a shell, interpreter, exec wrapper or build tool: it
 *   runs whatever it is told (asks unless, under bubblewrap, an allow rule names it).
 * - `code_execution`: an option makes an otherwise bounded program run code. Kept in the closed
 *   set (denied) for callers that report it; the per-program grammars that did are gone: such an
 *   argv is simply not known-safe (`CommandScope.readOnly` false).
 * - `file_write`: an argument names a protected path (`argv:protected-path`): denied.
 * - `unchecked`: an argument names a path outside every root (`argv:path-outside-roots`), or the
 *   argv names no program: denied.
 * - `sensitive`: an argument names a sensitive file (`.env`, `*.pem`, `~/.ssh/...`:
 *   `argv:sensitive-path`): the call asks; once approved, the command sees that file, which is
 *   otherwise masked.
 */
export type FindingKind =
  | "unrestricted_execution"
  | "code_execution"
  | "file_write"
  | "unchecked"
  | "sensitive";

/** One finding of the argument analysis, as the policy sees it. */
export interface CommandFinding {
  /** Stable rule id, `argv:<group>` or `argv:<program>:<rule>`. */
  id: string;
  kind: FindingKind;
  /** Index in argv of the argument at fault; 0 is the program. */
  index: number;
  argument: string;
  reason: string;
  /** `sensitive` findings: the absolute path named. */
  path?: string;
}

/** A command a call runs, as resolved before it runs. */
export interface CommandScope {
  /** The allowlisted name (`git`) the request's argv[0] matched. */
  program: string;
  /** Its absolute real path, resolved at start-up. */
  path: string;
  /** The whole argv as requested (argv[0] as given). */
  argv: readonly string[];
  /** The working folder, resolved by the path guard. */
  cwd: ResolvedPath;
  /** What the argument analysis found (`src/exec/argv_analysis.ts`). */
  findings: readonly CommandFinding[];
  /**
   * For an argv the request chose (`exec.run_command`): true when it is a known-safe, read-only
   * command (`src/exec/known_safe_command.ts`), which then runs with every root read-only; false
   * when it may write or execute, which under kernel confinement runs unasked only by an allow
   * rule that names its program. Absent when a tool file or a skill fixed the program.
   */
  readOnly?: boolean;
}

/** A host a call reaches (`net.fetch`), admitted by `network.hosts`. */
export interface HostScope {
  /** The URL's hostname as `new URL` writes it (IPv6 in brackets). */
  hostname: string;
  /** The port, the scheme's default filled in. */
  port: number;
  /** `hostname:port`: the call's policy scope, so grants and session approvals are per host. */
  scope: string;
}

/** What a call touches, after the path guard resolved every path, command and host. */
export interface TargetScope {
  paths: ResolvedPath[];
  commands?: CommandScope[];
  hosts?: HostScope[];
}

/** An empty {@linkcode TargetScope}: the tool-level view used by `tools` and `policy`. */
export const NO_TARGETS: TargetScope = { paths: [] };

/** Tells whether `rule` names `tool` and carries its tags (ignoring paths and commands). */
export function matchesTool(rule: PolicyRule, tool: ToolDescriptor): boolean {
  if (!picomatch.isMatch(tool.name, [...rule.tools], { dot: true })) return false;
  return (rule.tags ?? []).every((tag) => tool.tags.includes(tag));
}

/**
 * Tells whether `rule` applies to a call of `tool` on `scope`. A rule with `paths` applies when a
 * path target matches: for allow every path target must match (an allow never covers a path it
 * does not name), on its real path only, so that a spelling through a symlink can never widen it;
 * for ask and deny one path is enough, on its real path or its spelling (a deny on `vendor/**`
 * also stops `vendor-link/x` when `vendor-link -> vendor`, and a deny on `link/**` stops `link/x`).
 * A rule with `commands` never matches a call without a command target (commands come with
 * command tools), nor one with `hosts` a call without a host (allow: every host must match).
 */
export function matchesCall(
  rule: PolicyRule,
  tool: ToolDescriptor,
  scope: TargetScope,
  workspace: string,
): boolean {
  if (!matchesTool(rule, tool)) return false;
  const restrictive = rule.decision !== "allow";
  const combine = (matches: boolean[]) =>
    restrictive ? matches.some(Boolean) : matches.every(Boolean);
  const commands = scope.commands ?? [];
  if (
    rule.commands !== undefined || rule.arguments !== undefined ||
    rule.argument_prefix !== undefined
  ) {
    if (commands.length === 0) return false;
    if (!combine(commands.map((command) => commandMatches(rule, command)))) return false;
  }
  if (rule.hosts !== undefined) {
    const hosts = scope.hosts ?? [];
    if (hosts.length === 0) return false;
    const patterns = rule.hosts.map(parseHostPattern);
    const admitted = (host: HostScope) =>
      patterns.some((pattern) => patternAdmits(pattern, host.hostname, host.port));
    if (!combine(hosts.map(admitted))) return false;
  }
  if (rule.paths === undefined || rule.paths.length === 0) return true;
  if (scope.paths.length === 0) return false;
  return combine(
    scope.paths.map((path) => pathMatches(rule.paths ?? [], path, workspace, restrictive)),
  );
}

/**
 * A command matches when its program is one of `rule.commands` (the allowlisted name or the
 * absolute path) and, with `rule.arguments`: for ask and deny, when any argument matches a pattern;
 * for allow, when the FIRST argument (argv[1], the subcommand of git-like programs) does — an allow
 * for `["status", "log"]` must not cover `git push origin log`. With `rule.argument_prefix`, the
 * first arguments must also match its patterns in order, one for one.
 */
export function commandMatches(rule: PolicyRule, command: CommandScope): boolean {
  if (
    rule.commands !== undefined && !picomatch.isMatch(command.program, [...rule.commands]) &&
    !rule.commands.includes(command.path)
  ) {
    return false;
  }
  const prefix = rule.argument_prefix ?? [];
  const leading = (pattern: string, index: number) => {
    const argument = command.argv[index + 1];
    return argument !== undefined &&
      picomatch.isMatch(argument, pattern, { dot: true, nonegate: true });
  };
  if (!prefix.every(leading)) return false;
  if (rule.arguments === undefined) return true;
  const patterns = [...rule.arguments];
  const matches = (argument: string | undefined) =>
    argument !== undefined && argument !== "" &&
    picomatch.isMatch(argument, patterns, { dot: true, nonegate: true });
  return rule.decision === "allow"
    ? matches(command.argv[1])
    : command.argv.slice(1).some((argument) => matches(argument));
}

/**
 * A path matches a pattern when its real path does (relative to the workspace when inside it, and
 * absolute), or, with `includeSpelling`, when its spelling does. Relative patterns are relative to
 * the workspace; `src/**` also covers `src` itself.
 */
export function pathMatches(
  patterns: readonly string[],
  path: ResolvedPath,
  workspace: string,
  includeSpelling = false,
): boolean {
  const candidates = new Set<string>();
  for (const absolute of includeSpelling ? [path.real, path.spelled] : [path.real]) {
    candidates.add(absolute);
    if (isWithin(absolute, workspace)) {
      candidates.add(nodePath.relative(workspace, absolute) || ".");
    }
  }
  const expanded = patterns.flatMap((pattern) => {
    if (!pattern.endsWith("/**")) return [pattern];
    const base = pattern.slice(0, -3);
    return [pattern, base === "" ? "/" : base];
  });
  return [...candidates].some((candidate) => picomatch.isMatch(candidate, expanded, { dot: true }));
}
