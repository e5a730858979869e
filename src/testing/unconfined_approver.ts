/**
 * A test approver standing in for the person at the terminal under `command_isolation: "none"`:
 * it allows exactly the calls that ask only because commands run unconfined
 * (`runtime:unconfined-command`) and denies every other ask, so the rest of the policy (shells
 * ask, code-executing arguments deny, sensitive paths ask) stays visible to tests.
 *
 * @module
 */

import type { Approver } from "../approval/mod.ts";

/** The rule id of the none-mode ask (`RUNTIME_RULES.unconfinedCommand`). */
const UNCONFINED_RULE = "runtime:unconfined-command";

/**
 * Allows (once) every ask whose rule is `runtime:unconfined-command`; denies the others.
 *
 * @example
 * ```ts ignore
 * import { openTestRun } from "./mod.ts";
 * import { unconfinedCommandApprover } from "./unconfined_approver.ts";
 * await using run = await openTestRun({
 *   config: { commands: ["echo"], sandbox: { command_isolation: "none" } },
 *   approver: unconfinedCommandApprover,
 * });
 * ```
 */
export const unconfinedCommandApprover: Approver = {
  name: "test-unconfined",
  approve(request) {
    return Promise.resolve(
      request.rule === UNCONFINED_RULE
        ? { decision: "allow_once" }
        : { decision: "deny", reason: `the test approver answers only ${UNCONFINED_RULE}` },
    );
  },
};
