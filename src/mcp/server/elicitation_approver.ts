/**
 * An approver that asks the MCP client's user through elicitation (`elicitation/create`, form
 * mode): allow once, allow for the session, or deny. Declining, cancelling or any failure denies.
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
 * Asks the MCP client's user. The message names the tool, the rule that asked and every target;
 * the form has one required field, `decision`, with the three choices (the suggested one first).
 *
 * @example
 * ```ts
 * import { ElicitationApprover } from "./elicitation_approver.ts";
 * const approver = new ElicitationApprover({
 *   elicitInput: () => Promise.resolve({ action: "accept", content: { decision: "deny" } }),
 * });
 * console.assert(approver.name === "mcp-elicitation");
 * ```
 */
export class ElicitationApprover implements Approver {
  /** Recorded in the audit as who answered. */
  readonly name = "mcp-elicitation";
  readonly #elicitor: Elicitor;

  /** @param elicitor The SDK server connected to the client. */
  constructor(elicitor: Elicitor) {
    this.#elicitor = elicitor;
  }

  /** Asks once; an answer that is not one of the three choices denies. */
  async approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const result = await this.#elicitor.elicitInput({
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
