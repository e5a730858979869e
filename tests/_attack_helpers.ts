/**
 * Shared by the attack-pair tests: the canary secrets, policy presets, and assertions that check a
 * refusal's type, its rule, its audit records, and that nothing leaked.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import type { TestRun } from "../src/testing/run_harness.ts";
import type { ErrorType, ToolResult } from "../src/tools/tool_result.ts";

/** Content of every file an attack must not reach; never appears in a result or a log. */
export const CANARY = "KAGENT-CANARY-41c7e9";
/** What `/etc/passwd` starts with on Linux. */
export const PASSWD_MARK = "root:x:0:0";
export const SECRETS = [CANARY, PASSWD_MARK] as const;

/** Every tool allowed; `fs.delete_file` (destructive) needs its own exact rule. */
export const ALLOW_ALL = {
  rules: [
    { id: "allow-all", tools: ["*"], decision: "allow" },
    { id: "allow-delete", tools: ["fs.delete_file"], decision: "allow" },
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

export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
