/**
 * The memory settings of a session, from its config, run folder, secrets and project.
 *
 * @module
 */

import * as nodePath from "node:path";
import type { LoadedConfig } from "../config/mod.ts";
import type { MemorySettings } from "../memory/mod.ts";
import type { ProjectIdentity } from "../memory/mod.ts";
import { scannedSecrets } from "./environment.ts";
import type { SessionRun } from "./session_run.ts";

/**
 * The memory settings of a run: the write mode and provider from the config, candidates in the
 * run's archive/, the secret values to redact from memory content, and the workspace's project
 * identity (which keys the `project` scope). Recall is always there; `write_mode: "disabled"`
 * leaves out memory.write_memory.
 *
 * @param run The run folder, or null without one (then the settings only describe the tools).
 * @param secrets The set values of `audit.secret_env`.
 * @example
 * ```ts ignore
 * const memory = sessionMemorySettings(config, run, secrets, project);
 * ```
 */
export function sessionMemorySettings(
  config: LoadedConfig,
  run: SessionRun | null,
  secrets: readonly string[],
  project: ProjectIdentity,
): MemorySettings {
  return {
    project,
    mode: config.memory.write_mode,
    folder: config.memory.folder,
    scopes: config.memory.scopes,
    provider: config.memory.provider,
    candidates_file: run === null
      ? null
      : nodePath.join(run.dir, "archive", "memory_candidates.jsonl"),
    secrets: scannedSecrets(secrets),
  };
}
