/**
 * Declarative tools that would run the model's input as code (issue 10): a tool whose program is a
 * shell or an interpreter with a templated argument (`sh -c {{text}}`) must be tagged "dangerous",
 * which keeps it off unless a rule names it and makes every call ask; a shell-mode placeholder that
 * single quotes cannot keep one literal word (inside quotes, backticks, `$(…)`, a here-document, a
 * comment) stops the run at start-up. Commands run under bubblewrap, where they may write the
 * workspace: a marker file there is the witness that nothing ran.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import type { ApprovalRequest, Approver } from "../src/approval/mod.ts";
import { assertRefused, assertWorked, exists } from "./_attack_helpers.ts";
import {
  assertStartRefused,
  openToolRun,
  stdoutOf,
  toolFile,
} from "./_declarative_tool_helpers.ts";

/** `sh -c {{text}}`, declared readonly: the shell in all but name the attack suite found. */
const SHELL_BY_ANOTHER_NAME = toolFile({
  name: "demo.run_text",
  command: "sh",
  args: ["-c", "{{text}}"],
});

const DANGEROUS_SHELL = { ...SHELL_BY_ANOTHER_NAME, tags: ["demo", "dangerous"] };

/** A shell-mode tool with `script`, tagged write, allowed by {@linkcode ALLOW_SHELL}. */
function shellTool(script: string, fields: Record<string, unknown> = {}) {
  return toolFile({
    name: "demo.shell",
    permission: "write",
    tags: ["demo", "write"],
    command_type: "shell",
    command: script,
    args: [],
    ...fields,
  });
}

const ALLOW_SHELL = { rules: [{ tools: ["demo.shell"], decision: "allow" }] };

/** Allows every ask once and keeps the requests. */
function recordingApprover(): Approver & { requests: ApprovalRequest[] } {
  const requests: ApprovalRequest[] = [];
  return {
    name: "test-recording",
    requests,
    approve(request) {
      requests.push(request);
      return Promise.resolve({ decision: "allow_once" });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Exec mode: a shell or an interpreter with a templated argument
// ---------------------------------------------------------------------------------------------

Deno.test("a sh -c {{text}} tool without the dangerous tag stops the run at start-up", async () => {
  const error = await assertStartRefused({ files: { run_text: SHELL_BY_ANOTHER_NAME } });
  assert.equal(error.code, "tool_invalid");
  assert.equal(error.key, "tags");
  assert.match(error.file, /\/tools\/run_text\.json$/);
  assert.ok(error.message.includes(error.file), error.message);
  assert.match(error.message, /must include "dangerous": "sh" runs whatever its arguments say/);
  assert.match(error.message, /args\[1\]/);
});

Deno.test("an interpreter or a program reading code from stdin without the dangerous tag stops the run at start-up", async () => {
  for (
    const [command, args] of [
      ["python3", ["-c", "{{text}}"]],
      ["node", ["-e", "print({{text}})"]],
      ["sh", []],
      ["sh", ["-s"]],
      ["xargs", ["echo"]],
      ["env", ["{{text}}"]],
    ] as const
  ) {
    const error = await assertStartRefused({
      files: { run_text: toolFile({ name: "demo.run_text", command, args }) },
    });
    assert.equal(error.key, "tags", `${command} ${args.join(" ")}: ${error.message}`);
  }
});

Deno.test("a dangerous sh -c {{text}} tool is off unless a permissions rule names it exactly", async () => {
  await using run = await openToolRun({
    files: { run_text: DANGEROUS_SHELL },
    permissions: { rules: [{ tools: ["demo.*"], decision: "allow" }] },
  });
  const marker = nodePath.join(run.sandbox.workspace, "marker-off");
  assert.equal(run.session.policy.isAvailable("demo.run_text"), false);
  const result = await run.call("demo.run_text", { text: `touch ${marker}` });
  assertRefused(result, "tool_not_available");
  assert.equal(await exists(marker), false);
});

Deno.test("a dangerous sh -c {{text}} tool asks when a rule allows it by name, and nothing runs", async () => {
  await using run = await openToolRun({
    files: { run_text: DANGEROUS_SHELL },
    permissions: { rules: [{ tools: ["demo.run_text"], decision: "allow" }] },
  });
  const marker = nodePath.join(run.sandbox.workspace, "marker-ask");
  assert.equal(run.session.policy.toolPolicy("demo.run_text")?.decision, "ask");
  const result = await run.call("demo.run_text", { text: `touch ${marker}` });
  assertRefused(result, "approval_required");
  assert.match(
    String(result.error?.details.rule),
    /^runtime:(unrestricted-execution|requires-confirmation)$/,
  );
  assert.equal(await exists(marker), false);
});

Deno.test("a dangerous sh -c {{text}} tool runs the text once a person approves (near miss)", async () => {
  const approver = recordingApprover();
  await using run = await openToolRun({
    files: { run_text: DANGEROUS_SHELL },
    permissions: { rules: [{ tools: ["demo.run_text"], decision: "allow" }] },
    approver,
  });
  const marker = nodePath.join(run.sandbox.workspace, "marker-approved");
  const result = await run.call("demo.run_text", { text: `touch ${marker}` });
  assertWorked(result);
  assert.equal(await exists(marker), true, "the approved command did not run");
  assert.equal(approver.requests.length, 1);
  assert.equal(approver.requests[0]?.dangerous, true);
  assert.equal(approver.requests[0]?.permission, "write");
});

Deno.test("a templated tool whose allowlisted program is a link to a shell asks, and nothing runs", async () => {
  // The name "runner" is no shell, so the file loads; the real binary is, so the call asks.
  const bin = await Deno.makeTempDir({ prefix: "kagent-runner-" });
  try {
    const runner = nodePath.join(bin, "runner");
    await Deno.symlink("/bin/sh", runner);
    await using run = await openToolRun({
      commands: ["echo", runner],
      files: {
        runner: toolFile({ name: "demo.runner", command: runner, args: ["-c", "{{text}}"] }),
      },
      permissions: { rules: [{ tools: ["demo.runner"], decision: "allow" }] },
    });
    const marker = nodePath.join(run.sandbox.workspace, "marker-runner");
    const result = await run.call("demo.runner", { text: `touch ${marker}` });
    assertRefused(result, "approval_required");
    assert.equal(result.error?.details.rule, "runtime:unrestricted-execution");
    assert.equal(await exists(marker), false);
  } finally {
    await Deno.remove(bin, { recursive: true });
  }
});

Deno.test("a shell running a fixed script file loads without the dangerous tag and reads stdin as data (near miss)", async () => {
  await using run = await openToolRun({
    files: { script: toolFile({ name: "demo.script", command: "sh", args: ["./show.sh"] }) },
    prepare: (sandbox) => Deno.writeTextFile(nodePath.join(sandbox.workspace, "show.sh"), "cat\n"),
  });
  const marker = nodePath.join(run.sandbox.workspace, "marker-stdin");
  const text = `$(touch ${marker})`;
  const result = await run.call("demo.script", { text });
  assertWorked(result);
  assert.equal(stdoutOf(result), JSON.stringify({ text }));
  assert.equal(await exists(marker), false);
});

// ---------------------------------------------------------------------------------------------
// Shell mode: placeholders only where single quotes keep them one word
// ---------------------------------------------------------------------------------------------

Deno.test("a shell-mode placeholder inside quotes, substitutions, here-documents or comments stops the run at start-up", async () => {
  for (
    const [script, where] of [
      ["echo '{{text}}'", "inside single quotes"],
      ['echo "{{text}}"', "inside double quotes"],
      ["echo `echo {{text}}`", "inside backticks"],
      ["echo $(echo {{text}})", "inside \\$\\(…\\)"],
      ["cat <<EOF\n{{text}}\nEOF", "inside a here-document"],
      ["cat <<'EOF'\n{{text}}\nEOF", "inside a here-document"],
      ["echo ok # {{text}}", "inside a comment"],
      ["echo \\{{text}}", "right after a backslash"],
      ["{{text}} --version", "as a command name"],
    ] as const
  ) {
    const error = await assertStartRefused({ files: { shell: shellTool(script) } });
    assert.equal(error.code, "tool_invalid");
    assert.equal(error.key, "command", script);
    assert.match(error.message, new RegExp(where), script);
    assert.match(error.file, /\/tools\/shell\.json$/);
  }
});

Deno.test("a shell-mode script that evaluates its input without the dangerous tag stops the run at start-up", async () => {
  for (
    const [script, args] of [
      ["eval {{text}}", []],
      ['sh -c "$1"', ["{{text}}"]],
      ['"$@"', ["{{text}}"]],
      ["export {{text}}; git status", []],
    ] as const
  ) {
    const error = await assertStartRefused({ files: { shell: shellTool(script, { args }) } });
    assert.equal(error.key, "tags", `${script}: ${error.message}`);
  }
});

Deno.test("a bare shell-mode placeholder holding $(touch marker) stays literal", async () => {
  await using run = await openToolRun({
    files: { shell: shellTool("echo {{text}}") },
    permissions: ALLOW_SHELL,
  });
  const marker = nodePath.join(run.sandbox.workspace, "marker-bare");
  for (const text of [`$(touch ${marker})`, `'; touch ${marker}; '`, `\`touch ${marker}\``]) {
    const result = await run.call("demo.shell", { text });
    assertWorked(result);
    assert.equal(stdoutOf(result), `${text}\n`);
  }
  assert.equal(await exists(marker), false);
});

Deno.test("a plain shell-mode tool with a fixed here-document and a bare placeholder still works (near miss)", async () => {
  await using run = await openToolRun({
    files: {
      shell: shellTool("cat <<'EOF'\nfixed $(text)\nEOF\necho {{text}} && touch {{text}}.txt"),
    },
    permissions: ALLOW_SHELL,
  });
  const result = await run.call("demo.shell", { text: "it's" });
  assertWorked(result);
  assert.equal(stdoutOf(result), "fixed $(text)\nit's\n");
  // The same script writes where the markers above would be: they are fair witnesses.
  assert.equal(await exists(nodePath.join(run.sandbox.workspace, "it's.txt")), true);
});
