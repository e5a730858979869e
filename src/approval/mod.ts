/**
 * Approvals: requests, approvers (terminal, or none in CI), grants and the gate of pipeline step 5.
 *
 * @module
 */

export {
  type ApprovalAnswer,
  type ApprovalChoice,
  type ApprovalRequest,
  type Approver,
} from "./approver.ts";
export {
  approveArgument,
  formatGrant,
  type Grant,
  grantCovers,
  GrantSchema,
  normaliseScope,
  parseGrant,
  shellQuote,
} from "./grant.ts";
export {
  ApprovalGate,
  type ApprovalGateOptions,
  type CallApproval,
  type GateInput,
  type PendingApproval,
} from "./approval_gate.ts";
export {
  describeRequest,
  stdinLines,
  TerminalApprover,
  terminalSafe,
  type TerminalStreams,
} from "./terminal_approver.ts";
