import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { ConfigError, loadConfig } from "../src/config/mod.ts";
import { createTempSandbox } from "../src/testing/temp_sandbox.ts";
import { openTestRun, type TestRun } from "../src/testing/run_harness.ts";
import { writeTree } from "../src/testing/temp_sandbox.ts";
import { exists } from "../src/testing/path_exists.ts";
import { processesWith, sleepMarker, survivorsAfter } from "./_attack_helpers.ts";

/** Allow everything, except writes under `locked/`. */
const PERMISSIONS = {
  rules: [
    { id: "allow-all", tools: ["*"], decision: "allow" },
    { id: "deny-locked", tools: ["fs.write_file"], paths: ["locked/**"], decision: "deny" },
  ],
};

/** Shell hook scripts, written to `root/hooks/` (outside the workspace, beside the config). */
const SCRIPTS: Record<string, string> = {
  "deny_writes.sh": `input=$(cat)
case "$input" in
  *'"tool":"fs.write_file"'*) echo '{"decision": "deny", "reason": "writes are frozen"}' ;;
  *) echo '{"decision": "allow"}' ;;
esac
`,
  "allow.sh": `cat > /dev/null\necho '{"decision": "allow", "reason": "fine"}'\n`,
  "ask.sh": `cat > /dev/null\necho '{"decision": "ask", "reason": "a person should look"}'\n`,
  "crash.sh": `cat > /dev/null\necho '{"decision": "allow"}'\necho boom >&2\nexit 3\n`,
  "slow.sh": `cat > /dev/null\nsleep 5\necho '{"decision": "allow"}'\n`,
  "garbage.sh": `cat > /dev/null\necho 'allow, I suppose'\n`,
  "empty.sh": `cat > /dev/null\n`,
  "extra_key.sh": `cat > /dev/null
echo '{"decision": "allow", "arguments": {"path": "elsewhere.txt"}}'
`,
  "observe.sh": `cat > "$(dirname "$0")/../outside/post_$$.json"\n`,
  // Denies when its HOME holds a planted file; says where its HOME is.
  "home.sh": `cat > /dev/null
printf '%s' "$HOME" > "$(dirname "$0")/../outside/home.txt"
if [ -e "$HOME/.planted" ]; then echo '{"decision": "deny", "reason": "planted"}'
else echo '{"decision": "allow"}'; fi
`,
  // Leaves a TERM-ignoring process in its own session and one in its group, then allows.
  "stubborn.sh": `cat > /dev/null
setsid sh -c "trap '' TERM; exec sleep $1" >/dev/null 2>&1 </dev/null &
(trap '' TERM; exec sleep "$1") >/dev/null 2>&1 </dev/null &
echo '{"decision": "allow"}'
`,
  // The same, but it keeps running (ignoring TERM itself) until it is killed.
  "stuck.sh": `cat > /dev/null
setsid sh -c "trap '' TERM; exec sleep $1" >/dev/null 2>&1 </dev/null &
trap '' TERM
sleep "$1"
echo '{"decision": "allow"}'
`,
};

function hook(script: string, extra: Record<string, unknown> = {}) {
  return { command: [`../hooks/${script}`], ...extra };
}

async function openHookRun(hooks: Record<string, unknown>): Promise<TestRun> {
  return await openTestRun({
    config: { hooks },
    permissions: PERMISSIONS,
    prepare: async (sandbox) => {
      await writeTree(nodePath.join(sandbox.root, "hooks"), SCRIPTS);
      for (const name of Object.keys(SCRIPTS)) {
        await Deno.chmod(nodePath.join(sandbox.root, "hooks", name), 0o755);
      }
      await writeTree(sandbox.workspace, {
        "notes.txt": "hello\n",
        "hook.sh": SCRIPTS["allow.sh"] ?? "",
      });
      await Deno.chmod(nodePath.join(sandbox.workspace, "hook.sh"), 0o755);
    },
  });
}

Deno.test("a PreToolUse deny stops a call the policy allows, and the file is not written", async () => {
  await using run = await openHookRun({ pre_tool_use: [hook("deny_writes.sh")] });
  const result = await run.call("fs.write_file", { path: "new.txt", content: "x\n" });
  assert.equal(result.ok, false);
  assert.equal(result.error?.type, "hook_denied");
  assert.match(result.error?.message ?? "", /deny_writes\.sh" denied the call: writes are frozen/);
  assert.equal(await exists(nodePath.join(run.sandbox.workspace, "new.txt")), false);
  const tools = await run.readLog("tools");
  assert.equal(
    (tools.at(-1)?.policy as Record<string, unknown>).rule,
    `hook:${nodePath.join(run.sandbox.root, "hooks", "deny_writes.sh")}`,
  );
});

Deno.test("a PreToolUse allow does not bypass a policy deny", async () => {
  await using run = await openHookRun({ pre_tool_use: [hook("allow.sh")] });
  const result = await run.call("fs.write_file", { path: "locked/a.txt", content: "x\n" });
  assert.equal(result.error?.type, "permission_denied");
  assert.equal(await exists(nodePath.join(run.sandbox.workspace, "locked/a.txt")), false);
});

Deno.test("a well-behaved allow hook lets a normal read through", async () => {
  await using run = await openHookRun({ pre_tool_use: [hook("allow.sh"), hook("deny_writes.sh")] });
  const read = await run.call("fs.read_file", { path: "notes.txt" });
  assert.equal(read.ok, true, JSON.stringify(read.error));
  assert.match(read.output, /hello/);
  const events = await run.readLog("events");
  const completed = events.filter((event) => event.type === "hook.completed");
  assert.equal(completed.length, 2);
  assert.equal(completed[0]?.decision, "allow");
  assert.equal(completed[0]?.reason, "fine");
  assert.equal(completed[0]?.hook_event, "PreToolUse");
  assert.equal(completed[0]?.tool_call_id, read.tool_call_id);
  assert.equal(typeof completed[0]?.duration_ms, "number");
});

Deno.test("a hook whose tools do not match the call does not run", async () => {
  await using run = await openHookRun({
    pre_tool_use: [hook("crash.sh", { tools: ["fs.write_*"] })],
  });
  assert.equal((await run.call("fs.read_file", { path: "notes.txt" })).ok, true);
  const denied = await run.call("fs.write_file", { path: "w.txt", content: "x\n" });
  assert.equal(denied.error?.type, "hook_denied");
});

Deno.test("a PreToolUse ask makes an allowed call need approval", async () => {
  await using run = await openHookRun({ pre_tool_use: [hook("ask.sh")] });
  const result = await run.call("fs.write_file", { path: "asked.txt", content: "x\n" });
  assert.equal(result.error?.type, "approval_required");
  assert.match(String(result.error?.details.rule), /^hook:.*ask\.sh$/);
  assert.equal(await exists(nodePath.join(run.sandbox.workspace, "asked.txt")), false);
});

for (
  const [script, why] of [
    ["crash.sh", /failed: it exited with status 3 \(stderr: "boom"\)/],
    ["garbage.sh", /failed: it printed something that is not JSON/],
    ["empty.sh", /failed: it printed nothing/],
    ["extra_key.sh", /failed: its answer has the unknown key "arguments"/],
  ] as const
) {
  Deno.test(`a PreToolUse hook that fails (${script}) denies the call`, async () => {
    await using run = await openHookRun({ pre_tool_use: [hook(script)] });
    const result = await run.call("fs.read_file", { path: "notes.txt" });
    assert.equal(result.ok, false);
    assert.equal(result.error?.type, "hook_denied");
    assert.match(result.error?.message ?? "", why);
    const failed = (await run.readLog("events")).filter((event) => event.type === "hook.failed");
    assert.equal(failed.length, 1);
    assert.equal(failed[0]?.decision, "deny");
    assert.match(String(failed[0]?.reason), why);
    const errors = await run.readLog("errors");
    assert.ok(
      errors.some((error) => error.source === "hook" && error.error_type === "hook_failed"),
    );
  });
}

Deno.test("a PreToolUse hook that times out denies the call within a few seconds", async () => {
  await using run = await openHookRun({ pre_tool_use: [hook("slow.sh", { timeout_ms: 500 })] });
  const started = performance.now();
  const result = await run.call("fs.write_file", { path: "slow.txt", content: "x\n" });
  assert.ok(performance.now() - started < 3000, "the call took too long");
  assert.equal(result.error?.type, "hook_denied");
  assert.match(result.error?.message ?? "", /slow\.sh" failed: it timed out after 500 ms/);
  assert.equal(await exists(nodePath.join(run.sandbox.workspace, "slow.txt")), false);
});

Deno.test("a PostToolUse hook receives the call and its result", async () => {
  await using run = await openHookRun({ post_tool_use: [hook("observe.sh")] });
  const result = await run.call("fs.read_file", { path: "notes.txt" });
  assert.equal(result.ok, true);
  const files = [];
  for await (const entry of Deno.readDir(run.sandbox.outside)) files.push(entry.name);
  assert.equal(files.length, 1);
  const input = JSON.parse(
    await Deno.readTextFile(nodePath.join(run.sandbox.outside, files[0] ?? "")),
  );
  assert.equal(input.hook_event, "PostToolUse");
  assert.equal(input.tool_call_id, result.tool_call_id);
  assert.equal(input.result.ok, true);
  assert.equal(input.arguments.path, "notes.txt");
  assert.equal(input.target_scope.paths[0].real, nodePath.join(run.sandbox.workspace, "notes.txt"));
  assert.deepEqual(input.agent, { agent_id: "main", role: "main" });
  assert.equal(input.run_id, run.session.folder.id);
  const events = await run.readLog("events");
  assert.ok(
    events.some((event) => event.type === "hook.completed" && event.hook_event === "PostToolUse"),
  );
});

Deno.test("a failing PostToolUse hook is recorded and does not change the result", async () => {
  await using run = await openHookRun({ post_tool_use: [hook("crash.sh")] });
  const result = await run.call("fs.read_file", { path: "notes.txt" });
  assert.equal(result.ok, true);
  const failed = (await run.readLog("events")).filter((event) => event.type === "hook.failed");
  assert.equal(failed.length, 1);
  assert.equal(failed[0]?.hook_event, "PostToolUse");
  assert.ok((await run.readLog("errors")).some((error) => error.source === "hook"));
});

Deno.test("a hook program that cannot be found stops the run at start-up", async () => {
  await assert.rejects(
    openHookRun({ pre_tool_use: [hook("allow.sh"), { command: ["no-such-hook-program"] }] }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.key, "hooks.pre_tool_use[1].command");
      assert.match(error.message, /"no-such-hook-program"/);
      return true;
    },
  );
});

Deno.test("a hook program inside the workspace stops the run at start-up", async () => {
  await assert.rejects(
    openHookRun({ pre_tool_use: [{ command: ["../workspace/hook.sh"] }] }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.key, "hooks.pre_tool_use[0].command");
      assert.match(error.message, /must name a program outside the workspace/);
      return true;
    },
  );
});

Deno.test("an in-process PreToolUse hook that throws denies the call", async () => {
  await using run = await openTestRun({
    permissions: PERMISSIONS,
    prepare: (sandbox) => writeTree(sandbox.workspace, { "notes.txt": "hello\n" }),
    hooks: {
      preToolUse: [{
        name: "thrower",
        decide: () => {
          throw new Error("database is down");
        },
      }],
    },
  });
  const result = await run.call("fs.read_file", { path: "notes.txt" });
  assert.equal(result.error?.type, "hook_denied");
  assert.match(result.error?.message ?? "", /"thrower" failed: it threw: database is down/);
});

async function loadHooksConfig(hooks: unknown) {
  await using sandbox = await createTempSandbox();
  const path = nodePath.join(sandbox.root, "agent.jsonc");
  await Deno.writeTextFile(path, JSON.stringify({ workspace: "workspace", hooks }));
  return { config: await loadConfig(path), root: sandbox.root };
}

Deno.test("loadConfig fills hook defaults and resolves relative hook paths", async () => {
  const { config, root } = await loadHooksConfig({
    pre_tool_use: [{ command: ["hooks/check.sh", "--strict"] }, { command: ["check-tool"] }],
    post_tool_use: [{ command: ["/usr/bin/logger"], tools: ["fs.*"], timeout_ms: 60000 }],
  });
  assert.deepEqual(config.hooks, {
    pre_tool_use: [
      {
        command: [nodePath.join(root, "hooks/check.sh"), "--strict"],
        tools: ["*"],
        timeout_ms: 10000,
      },
      { command: ["check-tool"], tools: ["*"], timeout_ms: 10000 },
    ],
    post_tool_use: [{ command: ["/usr/bin/logger"], tools: ["fs.*"], timeout_ms: 60000 }],
  });
});

Deno.test("loadConfig gives no hooks when the key is absent", async () => {
  const { config } = await loadHooksConfig(undefined);
  assert.deepEqual(config.hooks, { pre_tool_use: [], post_tool_use: [] });
});

for (
  const [label, hooks, key] of [
    [
      "an unknown hook key",
      { pre_tool_use: [{ command: ["x"], env: {} }] },
      "hooks.pre_tool_use[0]",
    ],
    ["an unknown hooks key", { on_start: [] }, "hooks"],
    [
      "a timeout above 60000 ms",
      { post_tool_use: [{ command: ["x"], timeout_ms: 60001 }] },
      "hooks.post_tool_use[0].timeout_ms",
    ],
    ["an empty command", { pre_tool_use: [{ command: [] }] }, "hooks.pre_tool_use[0].command"],
    [
      "a command that is a string",
      { pre_tool_use: [{ command: "x" }] },
      "hooks.pre_tool_use[0].command",
    ],
  ] as const
) {
  Deno.test(`loadConfig refuses ${label}`, async () => {
    await assert.rejects(loadHooksConfig(hooks), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.code, "config_invalid");
      assert.ok(error.key?.startsWith(key), `${error.key} does not start with ${key}`);
      return true;
    });
  });
}

Deno.test("a hook leaves no process behind when its children leave its group and ignore TERM", async () => {
  const marker = sleepMarker("600.5151");
  assert.deepEqual(await processesWith(marker), [], "a process from an earlier run is alive");
  await using run = await openHookRun({
    pre_tool_use: [{ command: ["../hooks/stubborn.sh", marker] }],
  });
  // Near miss: the hook's answer still counts, and the call runs.
  const result = await run.call("fs.read_file", { path: "notes.txt" });
  assert.equal(result.ok, true, JSON.stringify(result.error));
  assert.deepEqual(await survivorsAfter(marker), [], `processes marked ${marker} survived`);
});

Deno.test("a PreToolUse hook still running when the run aborts is stopped with its children", async () => {
  const marker = sleepMarker("600.5252");
  assert.deepEqual(await processesWith(marker), [], "a process from an earlier run is alive");
  // A deadline far beyond the test: only the abort can end the hook.
  await using run = await openHookRun({
    pre_tool_use: [{ command: ["../hooks/stuck.sh", marker], timeout_ms: 60_000 }],
  });
  const controller = new AbortController();
  const pending = run.session.runtime.call(
    { id: "stuck-1", name: "fs.write_file", arguments: '{"path":"late.txt","content":"x"}' },
    controller.signal,
  );
  // Both sleeps run: the one in its own session and the hook's own.
  while ((await sleepsWith(marker)) < 2) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  controller.abort("interrupted by SIGINT");
  const result = await pending;
  assert.equal(result.error?.type, "hook_denied");
  assert.match(result.error?.message ?? "", /stuck\.sh" failed: the run was interrupted/);
  assert.equal(await exists(nodePath.join(run.sandbox.workspace, "late.txt")), false);
  assert.deepEqual(await survivorsAfter(marker), [], `processes marked ${marker} survived`);
});

/** How many `sleep <marker>` processes run (exactly that command line). */
async function sleepsWith(marker: string): Promise<number> {
  const { stdout } = await new Deno.Command("ps", { args: ["-eo", "args="], stdout: "piped" })
    .output();
  return new TextDecoder().decode(stdout).split("\n").filter((line) =>
    line.trim() === `sleep ${marker}`
  ).length;
}

Deno.test("a hook runs with its own domain's HOME, where a file planted in the commands' HOME is not", async () => {
  await using run = await openHookRun({ pre_tool_use: [hook("home.sh")] });
  const runDir = run.session.folder.dir;
  // What a command of the run would plant in its own HOME.
  await Deno.mkdir(nodePath.join(runDir, "home"), { recursive: true });
  await Deno.writeTextFile(nodePath.join(runDir, "home", ".planted"), "x");
  const allowed = await run.call("fs.read_file", { path: "notes.txt" });
  assert.equal(allowed.ok, true, allowed.error?.message);
  const home = await Deno.readTextFile(nodePath.join(run.sandbox.outside, "home.txt"));
  assert.equal(home, nodePath.join(runDir, "domains", "hooks", "home"));
  // Near miss: the check is live, a file in the hooks' own HOME is seen.
  await Deno.writeTextFile(nodePath.join(home, ".planted"), "x");
  const denied = await run.call("fs.read_file", { path: "notes.txt" });
  assert.equal(denied.error?.type, "hook_denied");
});
