/**
 * Temporary sandboxes for tests: a fresh folder with a workspace and a sibling outside every root,
 * plus helpers to fill them.
 *
 * @module
 */

import * as nodePath from "node:path";

/** A fresh temporary folder laid out as `root/workspace` and `root/outside`. */
export interface TempSandbox extends AsyncDisposable {
  /** Real path of the temporary folder. */
  root: string;
  /** `root/workspace`: the folder to use as the workspace (created, empty). */
  workspace: string;
  /** `root/outside`: a sibling of the workspace to keep outside every root (created, empty). */
  outside: string;
  /** Removes `root` and everything below it. Safe to call twice. */
  cleanup(): Promise<void>;
}

/**
 * Creates a {@linkcode TempSandbox} in the system temporary folder. Dispose of it with
 * `cleanup()` or `await using`.
 *
 * @example
 * ```ts
 * import { createTempSandbox, writeTree } from "./temp_sandbox.ts";
 * await using sandbox = await createTempSandbox();
 * await writeTree(sandbox.workspace, { "src/a.ts": "export {};\n" });
 * ```
 */
export async function createTempSandbox(): Promise<TempSandbox> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "kagent-test-" }));
  const workspace = nodePath.join(root, "workspace");
  const outside = nodePath.join(root, "outside");
  await Deno.mkdir(workspace);
  await Deno.mkdir(outside);
  const cleanup = async () => {
    await Deno.remove(root, { recursive: true }).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  };
  return { root, workspace, outside, cleanup, [Symbol.asyncDispose]: cleanup };
}

/**
 * Writes files below `base`, creating their folders: strings as UTF-8, byte arrays as they are.
 *
 * @param base An existing folder.
 * @param files Relative paths (`/`-separated) to contents, e.g. `{ "src/a.ts": "x" }`.
 * @throws {TypeError} when a path is absolute or contains a `..` component.
 */
export async function writeTree(
  base: string,
  files: Record<string, string | Uint8Array>,
): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    if (nodePath.isAbsolute(relative) || relative.split("/").includes("..")) {
      throw new TypeError(
        `Cannot write test file "${relative}": it must stay below the base folder`,
      );
    }
    const path = nodePath.join(base, relative);
    await Deno.mkdir(nodePath.dirname(path), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(path, content);
    else await Deno.writeFile(path, content);
  }
}

/**
 * Tells whether this process may run `mkfifo` (the test runner got `--allow-run`), so FIFO tests
 * can be skipped with `ignore: !canCreateFifo()` instead of failing for lack of permission.
 */
export function canCreateFifo(): boolean {
  return Deno.permissions.querySync({ name: "run", command: "mkfifo" }).state === "granted";
}

/**
 * Creates a named pipe (FIFO) at `path` with the system `mkfifo`.
 *
 * @throws {Error} when `mkfifo` fails or may not run (see {@linkcode canCreateFifo}).
 */
export async function createFifo(path: string): Promise<void> {
  const result = await new Deno.Command("mkfifo", { args: [path], stdout: "null", stderr: "piped" })
    .output();
  if (!result.success) {
    const reason = new TextDecoder().decode(result.stderr).trim();
    throw new Error(`Cannot create FIFO "${path}": mkfifo failed (${reason})`);
  }
}
