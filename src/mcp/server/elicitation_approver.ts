/**
 * An approver that asks the MCP client's user through elicitation (`elicitation/create`, form
 * mode): allow once, allow for the session, or deny. Declining, cancelling or any failure denies.
 * One run may serve several clients (HTTP sessions): each call is asked of the client that made
 * it, and a call from a client without form elicitation is not asked at all (`canAnswer` false:
 * it ends `approval_required` with its grant).
 *
 * @module
 */

import type { ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { ApprovalAnswer, ApprovalRequest, Approver } from "../../approval/mod.ts";

/** The one call of the SDK's `Server` this approver needs. */
export interface Elicitor {
  elicitInput(
    params: ElicitRequestFormParams,
    options?: { signal?: AbortSignal },
  ): Promise<ElicitResult>;
}

/** The choices offered, as the form's enum. */
const CHOICES = ["allow_once", "allow_for_session", "deny"] as const;

/**
 * Asks the user of the MCP client that made the call. The message names the tool, the rule that
 * asked and every target; the form has one required field, `decision`, with the three choices
 * (the suggested one as default).
 *
 * @example
 * ```ts
 * import { ElicitationApprover } from "./elicitation_approver.ts";
 * const approver = new ElicitationApprover((toolCallId) =>
 *   toolCallId === "mcp-1"
 *     ? { elicitInput: () => Promise.resolve({ action: "accept", content: { decision: "deny" } }) }
 *     : null
 * );
 * console.assert(approver.name === "mcp-elicitation");
 * ```
 */
export class ElicitationApprover implements Approver {
  /** Recorded in the audit as who answered. */
  readonly name = "mcp-elicitation";
  readonly #elicitorFor: (toolCallId: string) => Elicitor | null;

  /**
   * @param elicitorFor The client connection that made a call, by tool call id; null when that
   *   client does not support form elicitation (or the call is unknown).
   */
  constructor(elicitorFor: (toolCallId: string) => Elicitor | null) {
    this.#elicitorFor = elicitorFor;
  }

  /** Whether the client that made the call can be asked. */
  canAnswer(request: ApprovalRequest): boolean {
    return this.#elicitorFor(request.tool_call_id) !== null;
  }

  /**
   * Asks once; an answer that is not one of the three choices denies.
   *
   * @throws {Error} when the call's client cannot be asked (the gate then denies, recorded as
   *   `approval.failed`; {@linkcode ElicitationApprover.canAnswer} prevents it).
   */
  async approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const elicitor = this.#elicitorFor(request.tool_call_id);
    if (elicitor === null) {
      throw new Error(`the client of call "${request.tool_call_id}" does not support elicitation`);
    }
    const result = await elicitor.elicitInput({
      mode: "form",
      message: approvalMessage(request),
      requestedSchema: {
        type: "object",
        properties: {
          decision: {
            type: "string",
            title: "Decision",
            description: "allow_once: this call only; allow_for_session: this tool on these " +
              "targets for the rest of the run; deny: refuse the call",
            enum: [...CHOICES],
            default: request.suggested_decision,
          },
        },
        required: ["decision"],
      },
    }, { signal });
    if (result.action !== "accept") {
      return { decision: "deny", reason: `the user chose ${result.action}` };
    }
    const decision = result.content?.decision;
    if (decision === "allow_once" || decision === "allow_for_session" || decision === "deny") {
      return { decision, reason: `the user chose ${decision}` };
    }
    return { decision: "deny", reason: `the answer ${JSON.stringify(decision)} is not a choice` };
  }
}

/** The text the user reads: tool, why it asks, targets, risk. */
function approvalMessage(request: ApprovalRequest): string {
  const targets = [
    ...request.target_scope.paths.map((path) => `${path.access} ${path.real}`),
    ...request.target_scope.commands.map((command) =>
      `run ${command.argv.join(" ")} in ${command.cwd}`
    ),
  ];
  return [
    `kagent-run asks before "${request.tool}" runs: ${request.reason} (rule ${request.rule}).`,
    targets.length === 0 ? "No targets." : `Targets: ${targets.join("; ")}.`,
    `Permission ${request.permission}, risk ${request.risk_level}; suggested: ${request.suggested_decision}.`,
  ].join("\n");
}
