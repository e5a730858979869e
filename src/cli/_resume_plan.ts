/**
 * What `kagent-run resume` checks and plans before the run goes on (private to the CLI folder):
 * the folder verifies, the config, permissions file and model are the run's, and the recorded
 * conversation says where to continue. Every refusal is a {@linkcode UsageError} (exit 2) naming
 * why, before anything is written to the run folder.
 *
 * @module
 */

import { join } from "node:path";
import { readRecordedConversation } from "../agent/mod.ts";
import { fileSha256, MANIFEST_FILE, modelInfo, RunFolder, sha256Hex } from "../audit/mod.ts";
import type { LoadedConfig } from "../config/mod.ts";
import type { RunResume } from "../assembly/mod.ts";
import { verifyRun } from "../verify/mod.ts";
import { UsageError } from "./_common.ts";

/** End reasons a run may be resumed from without a new `--task`. */
const RESUMABLE = ["max_turns", "max_total_tokens", "aborted", "aborted_tools"];

/** A resume, planned: what the run's assembly gets (`RunResume`), and where and what. */
export interface ResumePlan extends RunResume {
  /** The run folder. */
  runDir: string;
  /** The original task (run.json), for the memory recall and the reports. */
  task: string;
}

/** What run.json says of the run that the resume checks. */
interface RunInfoFile {
  task: string | null;
  /** The workspace the run worked in (absolute); a resume works there unless told otherwise. */
  workspace?: string;
  model: { provider: string; model: string | null } | null;
  config: { path: string; sha256: string };
  permissions?: { path: string; sha256: string } | null;
}

/**
 * Reads `run.json` of a run folder (the config path a resume loads by default).
 *
 * @throws {UsageError} When the folder has no readable `run.json`.
 */
export async function readRunInfoFile(runDir: string): Promise<RunInfoFile> {
  try {
    return JSON.parse(await Deno.readTextFile(join(runDir, "run.json"))) as RunInfoFile;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(
      `Cannot resume run folder "${runDir}": its run.json is unreadable: ${reason}`,
    );
  }
}

/**
 * Checks that the run in `runDir` can go on under `config` and plans the resume.
 *
 * @param runDir The sealed run folder.
 * @param config The config loaded for the resume (the run's, by default).
 * @param task The user's next message (`--task`), or null.
 * @param key The signing key (`audit.signing_key_env`'s value), or null.
 * @throws {UsageError} When the folder does not verify, the config, permissions file, policy or
 *   model changed, or the run ended in a way that cannot go on.
 */
export async function planResume(
  runDir: string,
  config: LoadedConfig,
  task: string | null,
  key: string | null,
): Promise<ResumePlan> {
  const folder = await RunFolder.open(runDir).catch((error: Error) => {
    throw new UsageError(error.message);
  });
  const refuse = (why: string) => new UsageError(`Cannot resume run "${folder.id}": ${why}`);
  const report = await verifyRun(folder.dir, { key });
  if (report.verdict !== "verified") {
    const first = report.problems[0];
    throw refuse(
      `the run folder does not verify (${report.verdict})` +
        (first === undefined ? "" : `: ${first.file} line ${first.line ?? "-"}: ${first.message}`),
    );
  }
  const info = await readRunInfoFile(folder.dir);
  if (info.config.sha256 !== await fileSha256(config.configPath)) {
    throw refuse(`the config "${config.configPath}" changed since the run; restore it`);
  }
  const permissions = info.permissions ?? null;
  if (
    permissions !== null &&
    (config.permissionsPath === null ||
      await fileSha256(permissions.path).catch(() => null) !== permissions.sha256)
  ) {
    throw refuse(`the permissions file "${permissions.path}" changed since the run; restore it`);
  }
  const model = modelInfo(config.model);
  if (model?.provider !== info.model?.provider || model?.model !== info.model?.model) {
    throw refuse(
      `the model is "${model?.provider}/${model?.model}", the run's was ` +
        `"${info.model?.provider}/${info.model?.model}"; a run goes on with its own model`,
    );
  }
  const recorded = await readRecordedConversation(folder.dir);
  const waiting = recorded.waiting;
  const endReason = recorded.endReason ?? "none";
  if (waiting === null && task === null && !RESUMABLE.includes(endReason)) {
    throw refuse(
      `it ended "${endReason}" with no call waiting for an approval; give --task to go on`,
    );
  }
  const manifestPath = join(folder.dir, MANIFEST_FILE);
  const manifestText = await Deno.readTextFile(manifestPath);
  const policyHash = (JSON.parse(manifestText) as { policy_hash: string | null }).policy_hash;
  if (policyHash === null) throw refuse("it has no policy (it failed before it started)");
  // A run folder that travelled as a workflow artifact lost its empty folders.
  await folder.restoreFolders();
  const segment = recorded.segments + 1;
  return {
    runDir: folder.dir,
    session: {
      folder,
      policyHash,
      record: {
        segment,
        previous_manifest_sha256: sha256Hex(manifestText),
        previous_end_reason: endReason,
        resumed_after_turn: waiting?.turn ?? null,
        rerun: waiting?.rerun.map((call) => call.id) ?? [],
      },
    },
    start: {
      history: waiting?.history ?? recorded.messages,
      rerun: waiting?.rerun ?? [],
      answered: waiting?.answered ?? new Map(),
      task,
      turns: recorded.turns,
      usedCallIds: recorded.callIds,
    },
    task: task ?? info.task ?? "",
    answers: recorded.answers,
    async keepPreviousSeal() {
      const kept = join(folder.dir, "segments", String(segment - 1));
      await Deno.mkdir(kept, { recursive: true });
      await Deno.writeTextFile(join(kept, MANIFEST_FILE), manifestText, { createNew: true });
    },
  };
}
