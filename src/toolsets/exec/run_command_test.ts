import assert from "node:assert/strict";
import { openTestRun } from "../../testing/run_harness.ts";

/** `sleep` under bubblewrap, allowed by a rule that names the program, with a 1.5 s default. */
const SLEEPER = {
  config: {
    commands: ["sleep"],
    sandbox: { command_isolation: "bwrap" },
    tools: { default_timeout_ms: 1500 },
  },
  permissions: {
    rules: [{ tools: ["exec.run_command"], commands: ["sleep"], decision: "allow" }],
  },
};

Deno.test("exec.run_command lowers a model's timeout above the configured default to the default", async () => {
  await using run = await openTestRun(SLEEPER);
  const result = await run.call("exec.run_command", {
    argv: ["sleep", "30"],
    timeout_ms: 600_000,
  });
  assert.equal(result.error?.type, "timeout", result.summary);
  assert.equal(result.error?.details.timed_out, true);
  // The configured default, not the model's 600000 (nor tools.max_timeout_ms).
  assert.equal(result.error?.details.timeout_ms, 1500);
});

Deno.test("exec.run_command keeps a model's timeout below the configured default (near miss)", async () => {
  await using run = await openTestRun(SLEEPER);
  const result = await run.call("exec.run_command", { argv: ["sleep", "30"], timeout_ms: 700 });
  assert.equal(result.error?.type, "timeout", result.summary);
  assert.equal(result.error?.details.timeout_ms, 700);
  // Without a timeout from the model, the configured default applies; a quick command finishes.
  const quick = await run.call("exec.run_command", { argv: ["sleep", "0"] });
  assert.equal(quick.ok, true, quick.summary);
});
