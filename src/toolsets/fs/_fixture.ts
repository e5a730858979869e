/**
 * Test fixture of the fs tool tests: a temporary sandbox with files, a context over it, and a
 * caller that validates like the runtime. Private to the folder (imported by its tests only).
 *
 * @module
 */

import * as nodePath from "node:path";
import type { ToolContext, ToolDefinition } from "../../tools/tool_definition.ts";
import type { ToolOutcome } from "../../result/tool_result.ts";
import { callTool } from "../../testing/call_tool.ts";
import { createTempSandbox, type TempSandbox, writeTree } from "../../testing/temp_sandbox.ts";
import { createTestContext, type TestContextOptions } from "../../testing/tool_context.ts";

/** A sandbox with a context; dispose with `await using`. */
export interface Fixture extends AsyncDisposable {
  sandbox: TempSandbox;
  context: ToolContext;
  /** `sandbox.workspace` joined with a relative path. */
  inWorkspace(relative: string): string;
  /** `sandbox.outside` joined with a relative path. */
  inOutside(relative: string): string;
  // deno-lint-ignore no-explicit-any
  call(tool: ToolDefinition<any>, args: Record<string, unknown>): Promise<ToolOutcome>;
}

/** Creates a sandbox, writes `files` into its workspace and builds a context over it. */
export async function openFixture(
  files: Record<string, string | Uint8Array> = {},
  options: Omit<TestContextOptions, "workspace"> = {},
): Promise<Fixture> {
  const sandbox = await createTempSandbox();
  await writeTree(sandbox.workspace, files);
  const context = await createTestContext({ ...options, workspace: sandbox.workspace });
  return {
    sandbox,
    context,
    inWorkspace: (relative) => nodePath.join(sandbox.workspace, relative),
    inOutside: (relative) => nodePath.join(sandbox.outside, relative),
    call: (tool, args) => callTool(tool, args, context),
    [Symbol.asyncDispose]: () => sandbox.cleanup(),
  };
}

/** Tells whether a path exists (without following a final symlink). */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** A string no real file contains, to prove a read did not leak. */
export const CANARY = "canary-7d1f0c3e-outside-content";
