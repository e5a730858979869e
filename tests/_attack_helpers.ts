/**
 * Shared by the attack-pair tests: the canary secrets, policy presets, and assertions that check a
 * refusal's type, its rule, its audit records, and that nothing leaked.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import type { TestRun } from "../src/testing/run_harness.ts";
import type { ErrorType, ToolResult } from "../src/result/tool_result.ts";
export { exists } from "../src/testing/path_exists.ts";

/** Content of every file an attack must not reach; never appears in a result or a log. */
export const CANARY = "KAGENT-CANARY-41c7e9";
/** What `/etc/passwd` starts with on Linux. */
export const PASSWD_MARK = "root:x:0:0";
export const SECRETS = [CANARY, PASSWD_MARK] as const;

/**
 * Every tool allowed; `fs.delete_file` (destructive) needs its own exact rule, which must also
 * narrow it to run without asking: here to text files.
 */
export const ALLOW_ALL = {
  rules: [
    { id: "allow-all", tools: ["*"], decision: "allow" },
    { id: "allow-delete", tools: ["fs.delete_file"], paths: ["**/*.txt"], decision: "allow" },
  ],
};
export const PATH_GUARD = { rule: "sandbox:path-guard", layer: "sandbox" } as const;
export const PROTECTED = { rule: "sandbox:protected-path", layer: "sandbox" } as const;
export const SENSITIVE = { rule: "runtime:sensitive-path", layer: "runtime" } as const;

export function assertWorked(result: ToolResult): void {
  assert.equal(
    result.ok,
    true,
    `${result.tool} failed: ${result.error?.type}: ${result.error?.message}`,
  );
}

export function assertNoLeak(result: ToolResult, secrets: readonly string[] = SECRETS): void {
  const shown = JSON.stringify([result.summary, result.output, result.data, result.error]);
  for (const secret of secrets) {
    assert.ok(!shown.includes(secret), `${result.tool} leaks "${secret}": ${shown.slice(0, 400)}`);
  }
}

export function assertRefused(
  result: ToolResult,
  type: ErrorType,
  secrets: readonly string[] = SECRETS,
): void {
  assert.equal(
    result.ok,
    false,
    `${result.tool} should fail with "${type}" but worked: ${result.summary}`,
  );
  assert.equal(result.error?.type, type, `${result.tool}: ${result.error?.message}`);
  assertNoLeak(result, secrets);
}

/** Refused by the policy (or the guard through it): `error.details.rule` names the rule. */
export function assertDenied(
  result: ToolResult,
  type: ErrorType,
  policy: { rule: string; layer: string },
): void {
  assertRefused(result, type);
  assert.equal(result.error?.details.rule, policy.rule, result.error?.message);
}

/** The call is in events.jsonl (its event type and policy) and in logs/errors.jsonl. */
export async function assertAudited(
  run: TestRun,
  result: ToolResult,
  event: "tool.denied" | "tool.failed",
  policy?: { rule: string; layer: string } | null,
): Promise<void> {
  const events = await run.readLog("events");
  const found = events.find((line) =>
    line.type === event && line.tool_call_id === result.tool_call_id
  );
  assert.ok(found, `no "${event}" event for ${result.tool_call_id}`);
  assert.equal(found.error_type, result.error?.type);
  const recorded = found.policy as Record<string, unknown> | null;
  if (policy === null) assert.equal(recorded, null, "refused before the policy was asked");
  else if (policy !== undefined) {
    assert.equal(recorded?.rule, policy.rule);
    assert.equal(recorded?.layer, policy.layer);
  }
  const errors = await run.readLog("errors");
  const line = errors.find((entry) => entry.tool_call_id === result.tool_call_id);
  assert.ok(line, `no errors.jsonl line for ${result.tool_call_id}`);
  assert.equal(line.error_type, result.error?.type);
}

/** No secret reached any log of the run. */
export async function assertLogsClean(
  run: TestRun,
  secrets: readonly string[] = SECRETS,
): Promise<void> {
  const paths = run.session.folder.paths;
  for (const path of [paths.events, paths.toolsLog, paths.errorsLog]) {
    const text = await Deno.readTextFile(path);
    for (const secret of secrets) {
      assert.ok(!text.includes(secret), `"${nodePath.basename(path)}" contains "${secret}"`);
    }
  }
}

/** Serialises environment changes across test files, which `--parallel` runs in one process. */
const ENVIRONMENT_LOCK = "/tmp/kagent-test-environment.lock";

/**
 * Runs `body` with environment variables of this process set (the tool Worker reads the real
 * environment), then puts back what was there before. Test files run in parallel share the
 * process environment, so every change holds an exclusive lock until it is undone; never nest.
 */
export async function withEnvironment<T>(
  values: Record<string, string>,
  body: () => Promise<T>,
): Promise<T> {
  using lock = await Deno.open(ENVIRONMENT_LOCK, { create: true, write: true });
  await lock.lock(true);
  const before = new Map<string, string | undefined>();
  try {
    for (const [name, value] of Object.entries(values)) {
      before.set(name, Deno.env.get(name));
      Deno.env.set(name, value);
    }
    return await body();
  } finally {
    for (const [name, value] of before) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
    await lock.unlock();
  }
}

/** Digits this test process appends to every sleep marker (see {@linkcode sleepMarker}). */
const MARKER_DIGITS = String(crypto.getRandomValues(new Uint32Array(1))[0] as number % 1_000_000)
  .padStart(6, "0");

/**
 * A duration for `sleep` that marks a test's processes: `base` (e.g. `600.6161`, unique in the
 * suite) and six digits drawn once per test process, so that two suites on one machine (two CI
 * jobs, a developer's second run) never see each other's processes as their own.
 */
export function sleepMarker(base: string): string {
  return `${base}${MARKER_DIGITS}`;
}

/**
 * Pids of live processes whose command line contains `marker` (zombies excluded: they are dead
 * and only wait to be reaped). Asks `ps`, since Deno lets only --allow-all read `/proc`.
 */
export async function processesWith(marker: string): Promise<number[]> {
  const listed = await new Deno.Command("ps", {
    args: ["-eo", "pid=,stat=,args="],
    stdout: "piped",
    stderr: "null",
  }).output();
  if (!listed.success) throw new Error("ps failed: cannot list processes");
  const found: number[] = [];
  for (const line of new TextDecoder().decode(listed.stdout).split("\n")) {
    const match = /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (match === null || (match[2] ?? "").startsWith("Z")) continue;
    if ((match[3] ?? "").includes(marker)) found.push(Number(match[1]));
  }
  return found;
}

/** Waits up to `graceMs` for every process marked with `marker` to be gone; returns survivors. */
export async function survivorsAfter(marker: string, graceMs = 200): Promise<number[]> {
  const deadline = performance.now() + graceMs;
  for (;;) {
    const alive = await processesWith(marker);
    if (alive.length === 0 || performance.now() >= deadline) return alive;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Lower-case hex sha256 of a file's bytes. */
export async function sha256File(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * The absolute real path a program name resolves to on this PATH (absolute entries only, the
 * first executable regular file), as the command allowlist resolves it; null when absent.
 */
export async function programOnPath(name: string): Promise<string | null> {
  for (const folder of (Deno.env.get("PATH") ?? "/usr/bin:/bin").split(":")) {
    if (!folder.startsWith("/")) continue;
    try {
      const info = await Deno.stat(`${folder}/${name}`);
      if (info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) {
        return await Deno.realPath(`${folder}/${name}`);
      }
    } catch {
      // Not in this folder.
    }
  }
  return null;
}

/** Runs git for a test's own set-up (not through the runtime), with a clean environment. */
export async function git(cwd: string, ...args: string[]): Promise<void> {
  const done = await new Deno.Command("git", {
    args,
    cwd,
    clearEnv: true,
    env: {
      PATH: "/usr/local/bin:/usr/bin:/bin",
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
    },
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!done.success) {
    throw new Error(`git ${args.join(" ")} failed: ${new TextDecoder().decode(done.stderr)}`);
  }
}
