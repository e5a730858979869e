/**
 * The interactive approver: shows a request on stderr and reads one answer line from stdin, when
 * both are a terminal. `y` allows once, `s` allows for the rest of the session (this exact tool and
 * scope), `n` or an empty line denies.
 *
 * @module
 */

import type { ApprovalAnswer, ApprovalRequest, Approver } from "./approver.ts";

/** Streams the approver uses; tests pass fakes. */
export interface TerminalStreams {
  write: (text: string) => void;
  /** Reads one line (without its newline), or null at end of input. */
  readLine: (signal: AbortSignal) => Promise<string | null>;
}

/** Reads lines from Deno.stdin, one at a time. */
export function stdinLines(): TerminalStreams["readLine"] {
  const decoder = new TextDecoder();
  let buffered = "";
  return async (signal) => {
    while (!buffered.includes("\n")) {
      if (signal.aborted) return null;
      const chunk = new Uint8Array(1024);
      const read = await Deno.stdin.read(chunk);
      if (read === null) {
        const rest = buffered;
        buffered = "";
        return rest === "" ? null : rest;
      }
      buffered += decoder.decode(chunk.subarray(0, read), { stream: true });
    }
    const index = buffered.indexOf("\n");
    const line = buffered.slice(0, index).replace(/\r$/, "");
    buffered = buffered.slice(index + 1);
    return line;
  };
}

/** Formats a request for a person, one fact a line. */
export function describeRequest(request: ApprovalRequest): string {
  const lines = [
    "",
    `kagent-run asks: allow ${request.tool} (${request.permission}, risk ${request.risk_level}${
      request.dangerous ? ", dangerous" : ""
    })?`,
    `  why:      ${request.reason} [${request.layer} ${request.rule}]`,
  ];
  for (const path of request.target_scope.paths) {
    lines.push(`  path:     ${path.access} ${path.real}`);
  }
  for (const command of request.target_scope.commands) {
    lines.push(
      `  command:  ${command.path} ${
        command.argv.slice(1).map((argument) => JSON.stringify(argument)).join(" ")
      }`,
    );
    lines.push(`  in:       ${command.cwd}`);
  }
  for (const host of request.target_scope.hosts) lines.push(`  host:     ${host}`);
  if (request.hook_result !== null) {
    lines.push(
      `  hook:     ${request.hook_result.hook} said ${request.hook_result.decision}: ${request.hook_result.reason}`,
    );
  }
  lines.push(
    `  agent:    ${request.agent.role} ${request.agent.agent_id}, run ${request.agent.run_id}` +
      (request.agent.parent_agent_id === null
        ? ""
        : `, started by ${request.agent.parent_agent_id} (run ${request.agent.parent_run_id})`),
  );
  lines.push(`  suggested: ${request.suggested_decision}`);
  lines.push(
    "  [y] allow once  [s] allow for this session (this exact target)  [n] deny (default)",
  );
  return lines.join("\n") + "\n> ";
}

/** The terminal approver. */
export class TerminalApprover implements Approver {
  readonly name = "terminal";
  readonly #streams: TerminalStreams;

  constructor(streams: TerminalStreams) {
    this.#streams = streams;
  }

  async approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    this.#streams.write(describeRequest(request));
    const line = (await this.#streams.readLine(signal))?.trim().toLowerCase() ?? "";
    if (line === "y" || line === "yes") {
      return { decision: "allow_once", reason: "allowed at the terminal" };
    }
    if (line === "s" || line === "session") {
      return { decision: "allow_for_session", reason: "allowed for the session at the terminal" };
    }
    return {
      decision: "deny",
      reason: line === "" ? "no answer (denied by default)" : "denied at the terminal",
    };
  }
}
