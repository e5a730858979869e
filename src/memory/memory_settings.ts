/**
 * Memory settings: what the memory tools need, as plain JSON-compatible data, built the same way in the main thread (for the registry and the
 * policy) and in the tool Worker (where the handlers run and the provider does its I/O).
 *
 * @module
 */

import { FileMemoryProvider } from "./file_memory_provider.ts";
import { HttpMemoryProvider } from "./http_memory_provider.ts";
import type { MemoryProvider } from "./memory_provider.ts";
import type { ProjectIdentity } from "./project_identity.ts";

/**
 * How `memory.write_memory` behaves: `disabled` (the tool is absent, and `kagent-run memory
 * promote` refuses), `candidate` (appended to the run's candidates file for review), `external`
 * (the same: the agent only proposes; the config must name `memory.provider`, the store that
 * `kagent-run memory promote` writes accepted candidates to).
 */
export type MemoryWriteMode = "disabled" | "candidate" | "external";

/** What the Worker needs to build the memory tools. JSON-compatible. */
export interface MemorySettings {
  mode: MemoryWriteMode;
  /**
   * Absolute folder of the file provider, or null when there is none (`memory.folder` unset and
   * its default inside the workspace): recall then finds nothing and writes fail.
   */
  folder: string | null;
  scopes: string[];
  provider:
    | { kind: "file" }
    | {
      kind: "http";
      base_url: string;
      token_env?: string | undefined;
      timeout_ms?: number | undefined;
    };
  /**
   * Absolute `runs/<id>/archive/memory_candidates.jsonl`, or null without a run folder
   * (`kagent-run tools`, `policy`): the settings then only describe the tools, and a candidate
   * write fails.
   */
  candidates_file: string | null;
  /** Values redacted from memory content (secret environment values). */
  secrets: string[];
  /**
   * The workspace's project identity, which keys the `project` scope (`projects/<key>.jsonl` in
   * the file store, `project` in HTTP requests). @default null: one `project` scope for all
   */
  project?: ProjectIdentity | null;
}

/**
 * The provider the settings name. The HTTP provider reads its token through `env` and sends its
 * requests with `fetch` (in the tool Worker: the main thread's gateway, since the Worker has no
 * network). @default fetch globalThis.fetch
 */
export function memoryProvider(
  settings: MemorySettings,
  env: (name: string) => string | undefined,
  fetch?: typeof globalThis.fetch,
): MemoryProvider {
  if (settings.provider.kind === "file") {
    return new FileMemoryProvider({
      folder: settings.folder,
      scopes: settings.scopes,
      projectKey: settings.project?.key ?? null,
    });
  }
  return new HttpMemoryProvider({
    base_url: settings.provider.base_url,
    token_env: settings.provider.token_env ?? null,
    env,
    ...(fetch === undefined ? {} : { fetch }),
    ...(settings.provider.timeout_ms === undefined
      ? {}
      : { timeout_ms: settings.provider.timeout_ms }),
    scopes: settings.scopes,
    project: settings.project?.key ?? null,
  });
}
