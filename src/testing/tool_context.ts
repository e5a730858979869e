/**
 * A {@linkcode ToolContext} for tests: a real path guard over temporary folders.
 *
 * @module
 */

import * as nodePath from "node:path";
import { PathGuard } from "../sandbox/mod.ts";
import type { ToolContext } from "../tools/mod.ts";

/** Options of {@linkcode createTestContext}. Every path is absolute and must exist. */
export interface TestContextOptions {
  /** The sandbox root (readable and writable). */
  workspace: string;
  /** Extra read-only roots. @default [] */
  readRoots?: string[];
  /** Extra writable roots. @default [] */
  writeRoots?: string[];
  /** Files or folders never writable. @default [] */
  protectedPaths?: string[];
  /** The home folder for `~` paths; `null` refuses them. @default null */
  home?: string | null;
  /** Aborts the tool call. @default a signal that never aborts */
  signal?: AbortSignal;
}

/**
 * Builds a context the way the tool Worker does: a {@linkcode PathGuard} over the given roots and
 * run folders `run-*` / `workspace` and `deliverables` in a fresh temporary folder beside the
 * workspace (removed with the sandbox when the workspace comes from `createTempSandbox`). The run
 * folders are write roots, as in a real run. `tool_call_id` is `"test-call"`.
 *
 * @throws {TypeError} from {@linkcode PathGuard.create} when a root is missing or not a folder.
 * @example
 * ```ts
 * import { createTempSandbox } from "./temp_sandbox.ts";
 * import { createTestContext } from "./tool_context.ts";
 * await using sandbox = await createTempSandbox();
 * const context = await createTestContext({ workspace: sandbox.workspace });
 * ```
 */
export async function createTestContext(options: TestContextOptions): Promise<ToolContext> {
  const runFolder = await makeRunFolder(options.workspace);
  const runWorkspace = nodePath.join(runFolder, "workspace");
  const deliverables = nodePath.join(runFolder, "deliverables");
  await Deno.mkdir(runWorkspace);
  await Deno.mkdir(deliverables);
  const guard = await PathGuard.create({
    workspace: options.workspace,
    readRoots: options.readRoots ?? [],
    writeRoots: [...(options.writeRoots ?? []), runWorkspace, deliverables],
    protectedPaths: options.protectedPaths ?? [],
    home: options.home ?? null,
  });
  return {
    guard,
    workspace: guard.workspace,
    run: { run_id: "test-run", workspace: runWorkspace, deliverables },
    tool_call_id: "test-call",
    signal: options.signal ?? new AbortController().signal,
  };
}

/** A fresh temporary folder beside the workspace, or in the system temporary folder. */
async function makeRunFolder(workspace: string): Promise<string> {
  try {
    return await Deno.realPath(
      await Deno.makeTempDir({ dir: nodePath.dirname(workspace), prefix: "run-" }),
    );
  } catch {
    return await Deno.realPath(await Deno.makeTempDir({ prefix: "kagent-run-" }));
  }
}
