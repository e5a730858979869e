/**
 * Approvals: requests, approvers (terminal, or none in CI), grants and the gate of pipeline step 5.
 *
 * @module
 */

export * from "./approver.ts";
export * from "./grant.ts";
export * from "./approval_gate.ts";
export * from "./terminal_approver.ts";
