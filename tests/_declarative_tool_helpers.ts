/**
 * Shared by the declarative tool tests: a valid tool file to vary, a run over a temporary sandbox
 * with a tool folder beside the config, and readers of a command result.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { ConfigError } from "../src/config/mod.ts";
import { openTestRun, type TestRun, type TestRunOptions } from "../src/testing/run_harness.ts";
import type { TempSandbox } from "../src/testing/temp_sandbox.ts";
import type { ToolResult } from "../src/result/tool_result.ts";

/** A valid exec-mode tool file; `fields` replace or add keys. */
export function toolFile(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: "demo.echo_text",
    description: "Prints the text",
    input_schema: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    },
    permission: "readonly",
    tags: ["demo"],
    command_type: "exec",
    command: "echo",
    args: ["{{text}}"],
    working_dir: ".",
    env_allowlist: [],
    timeout_ms: 10_000,
    stdout_limit_bytes: 65_536,
    stderr_limit_bytes: 16_384,
    ...fields,
  };
}

/** A shell-mode tool that echoes its input twice: quoted into the script, and as "$1". */
export const SHELL_ECHO = toolFile({
  name: "demo.shell_echo",
  permission: "write",
  tags: ["demo", "write"],
  command_type: "shell",
  command: 'echo {{text}}; printf "[%s]\\n" "$@"',
  args: ["{{text}}"],
});

/** Shell-mode and write tools ask by default: these rules allow the ones the tests call. */
export const ALLOW_DECLARED = {
  rules: [{ id: "allow-declared", tools: ["demo.shell_echo", "demo.git_show"], decision: "allow" }],
};

/** Writes each tool as `<root>/tools/<file>.json`. */
export async function writeTools(
  sandbox: TempSandbox,
  tools: Record<string, unknown>,
  folder = nodePath.join(sandbox.root, "tools"),
): Promise<void> {
  await Deno.mkdir(folder, { recursive: true });
  for (const [file, tool] of Object.entries(tools)) {
    await Deno.writeTextFile(nodePath.join(folder, `${file}.json`), JSON.stringify(tool, null, 2));
  }
}

/** Options of {@linkcode openToolRun}: the harness's, plus the allowlist and tool files. */
export interface ToolRunOptions extends Omit<TestRunOptions, "tools"> {
  /** `commands` of the config. @default ["echo", "sh", "ls", "git", "printenv"] */
  commands?: string[];
  /** Keys merged into the config's `tools` (after `dirs: ["../tools"]`). */
  toolSettings?: Record<string, unknown>;
  /** Tool files by file name (without .json), written to `<root>/tools`. */
  files: Record<string, unknown>;
}

/**
 * Opens a run with `files` in `<root>/tools` (`tools.dirs`), commands under bubblewrap (so a
 * command can write the workspace, which makes a marker file there a fair witness), and
 * {@linkcode ALLOW_DECLARED} unless `permissions` is given.
 */
export function openToolRun(options: ToolRunOptions): Promise<TestRun> {
  const { commands, toolSettings, files, config, prepare, ...rest } = options;
  return openTestRun({
    permissions: ALLOW_DECLARED,
    ...rest,
    config: {
      commands: commands ?? ["echo", "sh", "ls", "git", "printenv"],
      sandbox: { command_isolation: "bwrap" },
      tools: { dirs: ["../tools"], ...toolSettings },
      ...config,
    },
    prepare: async (sandbox) => {
      await writeTools(sandbox, files);
      await prepare?.(sandbox);
    },
  });
}

/** The result's `data` object. */
export function dataOf(result: ToolResult): Record<string, unknown> {
  assert.ok(typeof result.data === "object" && result.data !== null, "the result has no data");
  return result.data as Record<string, unknown>;
}

/** The inline stdout text of a command result. */
export function stdoutOf(result: ToolResult): string {
  const stdout = dataOf(result).stdout as { text?: unknown } | undefined;
  assert.equal(typeof stdout?.text, "string", "the result has no stdout text");
  return stdout?.text as string;
}

/** Asserts that opening the run fails with a ConfigError; returns it. */
export async function assertStartRefused(options: ToolRunOptions): Promise<ConfigError> {
  let caught: unknown;
  let run: TestRun | undefined;
  try {
    run = await openToolRun(options);
  } catch (error) {
    caught = error;
  }
  if (run !== undefined) {
    await run.close();
    assert.fail("the run started");
  }
  assert.ok(caught instanceof ConfigError, `not a ConfigError: ${String(caught)}`);
  return caught;
}
