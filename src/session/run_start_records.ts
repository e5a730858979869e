/**
 * The records a run starts with: `run.json`, the `run.started` event and the skill catalogue; or,
 * for a resumed run, the `run.resumed` event once the policy is found unchanged.
 *
 * @module
 */

import {
  fileSha256,
  modelInfo,
  type Redactor,
  type RunFolder,
  writeRunInfo,
} from "../audit/mod.ts";
import type { AuditRecorder } from "../audit/mod.ts";
import { ConfigError, type LoadedConfig } from "../config/mod.ts";
import { discoverSkills } from "../skills/mod.ts";
import type { PreparedPolicy } from "./prepare_policy.ts";
import { runAgentInfo } from "./session_agent.ts";
import type { SessionOptions } from "./session_options.ts";

/** The run a session starts: its folder, its config, the caller's options and clock. */
export interface RunStart {
  folder: RunFolder;
  config: LoadedConfig;
  options: SessionOptions;
  now: () => Date;
}

/** Writes `run.json`, the `run.started` event and the skill catalogue (invalid skills as errors). */
export async function recordStart(
  start: RunStart,
  prepared: PreparedPolicy,
  recorder: AuditRecorder,
  redactor: Redactor,
): Promise<void> {
  const { folder, config, options, now } = start;
  const model = modelInfo(config.model);
  if (options.resume) {
    // run.json stays the run's: the segment is recorded by its first event.
    await recorder.event("run.resumed", {
      ...options.resume.record,
      task: options.task ?? null,
      policy_hash: prepared.policy.hash,
    });
    return;
  }
  await writeRunInfo(folder.dir, redactor, {
    run_id: folder.id,
    started_at: now().toISOString(),
    task: options.task ?? null,
    model,
    config_path: config.configPath,
    config_sha256: await fileSha256(config.configPath),
    workspace: prepared.guard.workspace,
    extra: {
      memory_project: prepared.memory?.project ?? null,
      agent: runAgentInfo(options),
      // A resume names the permissions file when it changed since (`kagent-run resume`).
      permissions: config.permissionsPath === null
        ? null
        : { path: config.permissionsPath, sha256: await fileSha256(config.permissionsPath) },
    },
  }, config);
  await recorder.event("run.started", {
    task: options.task ?? null,
    model: model === null ? null : { provider: model.provider, model: model.model },
    config: config.configPath,
    workspace: prepared.guard.workspace,
    run_dir: folder.dir,
    policy_hash: prepared.policy.hash,
    tools: prepared.policy.tools.filter((tool) => tool.available).map((tool) => tool.tool),
  });
  // Skills: the catalogue in the audit, invalid ones reported with their file and reason.
  const catalogue = await discoverSkills(prepared.skillDirs);
  await recorder.event("skill_catalogue.recorded", {
    skills: catalogue.skills.map((skill) => skill.name),
    invalid: catalogue.invalid.length,
  });
  for (const invalid of catalogue.invalid) {
    await recorder.error({ source: "skills", path: invalid.path, message: invalid.reason });
  }
}

/** Refuses to continue a run under another policy than the one it was sealed under. */
export function checkResumedPolicy(
  options: SessionOptions,
  prepared: PreparedPolicy,
  config: LoadedConfig,
): void {
  const expected = options.resume?.policyHash;
  if (expected === undefined || expected === prepared.policy.hash) return;
  throw new ConfigError({
    code: "config_invalid",
    file: config.permissionsPath ?? config.configPath,
    key: "permissions",
    message: `Cannot resume run "${options.resume?.folder.id}": the policy changed since the ` +
      `run was sealed (policy hash "${expected}" then, "${prepared.policy.hash}" now); restore ` +
      `the config and permissions the run had, or start a new run`,
    issues: [`policy hash "${prepared.policy.hash}" is not the run's "${expected}"`],
  });
}
