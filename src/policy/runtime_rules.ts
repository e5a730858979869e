/**
 * The ids of the rules kagent-run itself decides with (runtime, sandbox and default layers).
 *
 * @module
 */

/** Runtime rule ids, stable for users' scripts and audits. */
export const RUNTIME_RULES = {
  pathGuard: "sandbox:path-guard",
  protectedPath: "sandbox:protected-path",
  sensitivePath: "runtime:sensitive-path",
  requiresConfirmation: "runtime:requires-confirmation",
  destructiveOff: "runtime:destructive-off",
  skillNarrowing: "skill:allowed-tools",
  agentType: "runtime:agent-type",
  agentAllowedTools: "runtime:agent-allowed-tools",
  taskNarrowing: "runtime:task-tools",
  defaultReadonly: "default:readonly-allow",
  defaultWrite: "default:write-ask",
  defaultRunFolders: "default:run-folders-allow",
  commandAllowlist: "sandbox:command-allowlist",
  networkAllowlist: "sandbox:network-allowlist",
  unrestrictedExecution: "runtime:unrestricted-execution",
  codeExecutingArguments: "runtime:code-executing-arguments",
  uncheckedArguments: "runtime:unchecked-arguments",
  sensitiveArgument: "runtime:sensitive-argument",
  commandIsolation: "sandbox:command-isolation",
  unconfinedCommand: "runtime:unconfined-command",
  hardLink: "runtime:hard-link",
  highRiskUnscoped: "runtime:high-risk-unscoped",
  programNotNamed: "runtime:program-not-named",
  defaultReadOnlyCommand: "default:read-only-command",
} as const;
