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

/**
 * Control characters (C0, DEL, C1: escape sequences, carriage returns, new lines) and the
 * invisible direction marks and overrides (bidi "Trojan Source" characters).
 */
// deno-lint-ignore no-control-regex -- control characters are what this matches
const UNSHOWN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` as a person can read it on a terminal: every control character and direction mark written
 * as a `\u` escape, so a file name or reason can neither move the cursor, erase or add a line of
 * the question, nor reorder what is shown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { terminalSafe } from "./terminal_approver.ts";
 * assert.equal(terminalSafe("a\u001b[2K\nb"), "a\\u001b[2K\\u000ab");
 * assert.equal(terminalSafe("café notes.md"), "café notes.md");
 * ```
 */
export function terminalSafe(text: string): string {
  return text.replace(
    UNSHOWN,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * Formats a request for a person, one fact a line. Every value from the call, the model or a tool
 * is shown through {@linkcode terminalSafe}.
 */
export function describeRequest(request: ApprovalRequest): string {
  const safe = terminalSafe;
  const lines = [
    "",
    `kagent-run asks: allow ${
      safe(request.tool)
    } (${request.permission}, risk ${request.risk_level}${
      request.dangerous ? ", dangerous" : ""
    })?`,
    `  why:      ${safe(request.reason)} [${safe(request.layer)} ${safe(request.rule)}]`,
  ];
  for (const path of request.target_scope.paths) {
    lines.push(`  path:     ${safe(path.access)} ${safe(path.real)}`);
  }
  for (const command of request.target_scope.commands) {
    lines.push(
      `  command:  ${safe(command.path)} ${
        command.argv.slice(1).map((argument) => JSON.stringify(argument)).join(" ")
      }`,
    );
    lines.push(`  in:       ${safe(command.cwd)}`);
  }
  for (const host of request.target_scope.hosts) lines.push(`  host:     ${safe(host)}`);
  if (request.hook_result !== null) {
    const hook = request.hook_result;
    lines.push(
      `  hook:     ${safe(hook.hook)} said ${safe(hook.decision)}: ${safe(hook.reason)}`,
    );
  }
  const agent = request.agent;
  lines.push(
    `  agent:    ${safe(agent.role)} ${safe(agent.agent_id)}, run ${safe(agent.run_id)}` +
      (agent.parent_agent_id === null
        ? ""
        : `, started by ${safe(agent.parent_agent_id)} (run ${safe(agent.parent_run_id ?? "")})`),
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
