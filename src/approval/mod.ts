/**
 * Approvals: requests, approvers (terminal, or none in CI), grants and the gate of pipeline step 5.
 *
 * @module
 */

export { type ApprovalAnswer, type ApprovalRequest, type Approver } from "./approver.ts";
export { approveArgument, formatGrant, type Grant, parseGrant, shellQuote } from "./grant.ts";
export { ApprovalGate, type CallApproval, type PendingApproval } from "./approval_gate.ts";
export {
  stdinLines,
  TerminalApprover,
  terminalSafe,
  type TerminalStreams,
} from "./terminal_approver.ts";
