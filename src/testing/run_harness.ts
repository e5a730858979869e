/**
 * A whole run over a temporary sandbox, for black-box tests: a real config file, a real run folder,
 * the real tool Worker. Calls go through the full pipeline.
 *
 * @module
 */

import * as nodePath from "node:path";
import { loadConfig } from "../config/mod.ts";
import { openRunSession, type RunSession, type SessionOptions } from "../session/mod.ts";
import type { ToolResult } from "../result/mod.ts";
import { createTempSandbox, type TempSandbox } from "./temp_sandbox.ts";

/** Options of {@linkcode openTestRun}. */
export interface TestRunOptions extends SessionOptions {
  /** Extra config keys (JSON) merged into `{ "workspace": "../workspace", "runs_dir": "../runs" }`. */
  config?: Record<string, unknown>;
  /** permissions.json content written beside the config (and named by it), if given. */
  permissions?: unknown;
  /** Fill the sandbox before the run opens (symlinks, files, folders). */
  prepare?: (sandbox: TempSandbox) => Promise<void>;
}

/** An open test run. Dispose of it with `await using` or `close()`. */
export interface TestRun extends AsyncDisposable {
  sandbox: TempSandbox;
  session: RunSession;
  /** `root/config`: the folder of the config file (outside the workspace). */
  configDir: string;
  /** Runs one call through the pipeline; arguments are an object (serialised) or raw JSON text. */
  call(name: string, args?: Record<string, unknown> | string): Promise<ToolResult>;
  /** Every line of a run log, parsed (`events`, `tools`, `errors`). */
  readLog(which: "events" | "tools" | "errors"): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/**
 * Creates `root/workspace`, `root/outside`, `root/config/agent.jsonc` and opens a run on them.
 *
 * @example
 * ```ts ignore
 * import { openTestRun } from "./run_harness.ts";
 * await using run = await openTestRun();
 * const result = await run.call("fs.list_files", { path: "." });
 * ```
 */
export async function openTestRun(options: TestRunOptions = {}): Promise<TestRun> {
  const sandbox = await createTempSandbox();
  try {
    const configDir = nodePath.join(sandbox.root, "config");
    await Deno.mkdir(configDir);
    const config: Record<string, unknown> = {
      workspace: "../workspace",
      runs_dir: "../runs",
      ...options.config,
    };
    if (options.permissions !== undefined) {
      await Deno.writeTextFile(
        nodePath.join(configDir, "permissions.json"),
        JSON.stringify(options.permissions),
      );
      config.permissions = "permissions.json";
    }
    const configPath = nodePath.join(configDir, "agent.jsonc");
    await Deno.writeTextFile(configPath, JSON.stringify(config, null, 2));
    await options.prepare?.(sandbox);
    const loaded = await loadConfig(configPath, {}, {
      home: () => options.env?.("HOME") ?? Deno.env.get("HOME"),
    });
    const session = await openRunSession(loaded, options);
    let counter = 0;
    const close = async () => {
      await session.close();
      await sandbox.cleanup();
    };
    return {
      sandbox,
      session,
      configDir,
      call: (name, args = {}) =>
        session.runtime.call({
          id: `test-${++counter}`,
          name,
          arguments: typeof args === "string" ? args : JSON.stringify(args),
        }),
      readLog: async (which) => {
        const path = which === "events"
          ? session.folder.paths.events
          : which === "tools"
          ? session.folder.paths.toolsLog
          : session.folder.paths.errorsLog;
        const text = await Deno.readTextFile(path);
        return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
      },
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    await sandbox.cleanup();
    throw error;
  }
}
