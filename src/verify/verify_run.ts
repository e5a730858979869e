/**
 * `verifyRun`: checks a run folder after the fact, from its files alone.
 *
 * @module
 */

import { basename, join, resolve } from "node:path";
import {
  chainAnchor,
  CHAINED_LOGS,
  type ChainedLog,
  childRuns,
  listFiles,
  RUN_INFO_FILE,
} from "../audit/mod.ts";
import { checkCalls } from "./_check_calls.ts";
import { checkArtifacts, checkSeal } from "./_check_seal.ts";
import { type ChainReading, readChain } from "./_read_chain.ts";
import { readRegularText } from "./_regular_file.ts";
import { checkSegments } from "./_check_segments.ts";
import {
  INCOMPLETE_KINDS,
  type VerifyProblem,
  type VerifyReport,
  type VerifyVerdict,
} from "./verify_report.ts";

/** Options of {@linkcode verifyRun}. */
export interface VerifyOptions {
  /**
   * The key the manifest was signed with (the value of the variable `audit.signing_key_env`
   * named). Without it a signed manifest's signature is `not_checked`.
   * @default null
   */
  key?: string | null;
}

/**
 * Verifies a run folder: each log's hash chain (`seq`, `prev`, the anchor of the run id and policy
 * hash), the cross-references between the logs and the pairing of started and ended calls, the
 * seal (`manifest.json`: each chain's end, the sha256 of every sealed file, the signature when
 * `key` is given), the ends `run.completed` names, and every artifact's sha256. Sub-agent runs under
 * `agents/<child>/` are verified the same way and reported as `children`; the verdict is the worst
 * of the run's and its children's.
 *
 * It only reads; it never changes the folder.
 *
 * @param runDir The run folder (`runs/<id>`), absolute or relative to the current directory.
 * @param options See {@linkcode VerifyOptions}.
 * @returns The {@linkcode VerifyReport}: `verified`, `incomplete` or `tampered`, with every
 *   problem and its file and line.
 * @throws {TypeError} When `runDir` is not a run folder (no `events.jsonl`).
 * @example
 * ```ts
 * import { verifyRun } from "./verify_run.ts";
 * import { AuditRecorder, Redactor, RunFolder } from "../audit/mod.ts";
 * const runsDir = await Deno.makeTempDir();
 * const folder = await RunFolder.create(runsDir);
 * const recorder = new AuditRecorder({ folder, redactor: new Redactor({ secrets: [] }) });
 * await recorder.event("run.completed", {
 *   end_reason: "completed", calls: 0, denied: 0, failed: 0, skipped: 0, duration_ms: 1,
 * });
 * await recorder.close();
 * const report = await verifyRun(folder.dir);
 * console.assert(report.verdict === "verified", report.problems);
 * await Deno.remove(runsDir, { recursive: true });
 * ```
 */
export async function verifyRun(
  runDir: string,
  options: VerifyOptions = {},
): Promise<VerifyReport> {
  const dir = resolve(runDir);
  await requireRunFolder(dir);
  const runId = await readRunId(dir);
  const policyHash = await readPolicyHash(dir);
  const chains = {} as Record<ChainedLog, ChainReading>;
  for (const file of CHAINED_LOGS) {
    chains[file] = await readChain(dir, file, chainAnchor(runId, policyHash, file), runId);
  }
  const events = chains["events.jsonl"];
  const tools = chains["logs/tools.jsonl"];
  const errors = chains["logs/errors.jsonl"];
  const seal = await checkSeal(dir, runId, chains, options.key ?? null);
  const problems: VerifyProblem[] = [
    ...events.problems,
    ...tools.problems,
    ...errors.problems,
    ...checkCalls(events, tools, errors),
    ...seal.problems,
    ...await checkArtifacts(dir, tools),
    ...await checkSegments(dir, chains),
  ].map((problem) =>
    // A sealed run was not killed: what a kill leaves is tampering there.
    seal.sealed && INCOMPLETE_KINDS.includes(problem.kind)
      ? { ...problem, severity: "tampered" as const }
      : problem
  );
  const children: VerifyReport[] = [];
  for (const child of await childFolders(dir, events, seal.sealed)) {
    if (child.problem !== null) problems.push(child.problem);
    else children.push(await verifyRun(join(dir, "agents", child.name), options));
  }
  return {
    run_dir: dir,
    run_id: runId,
    verdict: verdictOf(problems, children),
    sealed: seal.sealed,
    signature: seal.signature,
    signature_key_env: seal.signatureKeyEnv,
    counts: {
      events: events.records.length,
      tool_records: tools.records.length,
      error_records: errors.records.length,
      // Every call answered, run or not: the count run.completed and the summary line give.
      calls: events.records.filter((entry) => ENDED_CALL_EVENTS.has(String(entry.record.type)))
        .length,
      artifacts: (await listFiles(dir, "artifacts")).length,
      deliverables: (await listFiles(dir, "deliverables")).length,
      sealed_files: seal.sealedFiles,
    },
    problems,
    children,
  };
}

/** The events that answer a call: one per call, whether it ran (`tool.skipped` when not). */
const ENDED_CALL_EVENTS = new Set(["tool.completed", "tool.failed", "tool.denied", "tool.skipped"]);

/** A child run to verify, or why it cannot be (then it is missing or not a run folder). */
interface ChildFolder {
  name: string;
  problem: VerifyProblem | null;
}

/** Run ids as the run folder writes them: letters, digits, `.`, `_`, `-`, not starting with `.`. */
const CHILD_RUN_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

/**
 * The child runs of a run: every folder under `agents/` and every `child_run_id` an
 * `agent.started` event names. Each must be a real folder (not a link) holding `events.jsonl`
 * (every run folder is created with it), so that a child removed, emptied or swapped for a link
 * fails the parent instead of being skipped (incomplete only for a folder no event names in an
 * unsealed run: one a kill cut short while it was being made).
 */
async function childFolders(
  dir: string,
  events: ChainReading,
  sealed: boolean,
): Promise<ChildFolder[]> {
  const named = new Map<string, number>();
  const problems: ChildFolder[] = [];
  for (const entry of events.records) {
    if (entry.record.type !== "agent.started") continue;
    const id = entry.record.child_run_id;
    if (typeof id === "string" && CHILD_RUN_ID.test(id)) {
      if (!named.has(id)) named.set(id, entry.line);
      continue;
    }
    problems.push({
      name: String(id),
      problem: {
        kind: "cross_reference",
        severity: "tampered",
        file: "events.jsonl",
        line: entry.line,
        message: `broken cross-reference: agent.started names child run ${
          JSON.stringify(id)
        }, which is not a run id`,
      },
    });
  }
  const names = [...new Set([...await childRuns(dir), ...named.keys()])].sort();
  const folders: ChildFolder[] = [];
  for (const name of names) {
    const events = `agents/${name}/events.jsonl`;
    const line = named.get(name) ?? null;
    const why = !(await isRealFolder(join(dir, "agents", name)))
      ? "its folder is missing or is not a folder"
      : !(await isRealFile(join(dir, events)))
      ? "its events.jsonl is missing or is not a file"
      : null;
    folders.push({
      name,
      problem: why === null ? null : {
        kind: "file_missing",
        // A folder no event names, in a run killed before sealing: killed while it was made.
        severity: line === null && !sealed ? "incomplete" : "tampered",
        file: events,
        line: null,
        message: `child run missing: agents/${name}: ${why}` +
          (line === null ? "" : ` (named by events.jsonl line ${line}, agent.started)`),
      },
    });
  }
  return [...problems, ...folders];
}

function verdictOf(problems: VerifyProblem[], children: VerifyReport[]): VerifyVerdict {
  const verdicts = children.map((child) => child.verdict);
  if (
    problems.some((problem) => problem.severity === "tampered") || verdicts.includes("tampered")
  ) {
    return "tampered";
  }
  return problems.length > 0 || verdicts.includes("incomplete") ? "incomplete" : "verified";
}

async function requireRunFolder(dir: string): Promise<void> {
  if (await isFile(join(dir, "events.jsonl"))) return;
  throw new TypeError(
    `Cannot verify "${dir}": it is not a run folder (no events.jsonl); pass a folder of runs_dir, ` +
      "such as runs/<run-id>",
  );
}

/** `run.json`'s `run_id`, else the first event's, else the folder's name. */
async function readRunId(dir: string): Promise<string> {
  const info = await readJson(join(dir, RUN_INFO_FILE)) as { run_id?: unknown } | null;
  if (typeof info?.run_id === "string") return info.run_id;
  try {
    const text = await readRegularText(join(dir, "events.jsonl")) ?? "";
    const first = JSON.parse(text.slice(0, text.indexOf("\n"))) as { run_id?: unknown };
    if (typeof first.run_id === "string") return first.run_id;
  } catch {
    // No whole first event: the folder's name.
  }
  return basename(dir);
}

/** `policy.json`'s `hash`, or null when there is none. */
async function readPolicyHash(dir: string): Promise<string | null> {
  const policy = await readJson(join(dir, "policy.json")) as { hash?: unknown } | null;
  return typeof policy?.hash === "string" ? policy.hash : null;
}

async function readJson(path: string): Promise<unknown> {
  try {
    const text = await readRegularText(path);
    return text === null ? null : JSON.parse(text);
  } catch {
    return null;
  }
}

/** Whether `path` itself (not a link to one) is a folder. */
async function isRealFolder(path: string): Promise<boolean> {
  try {
    return (await Deno.lstat(path)).isDirectory;
  } catch {
    return false;
  }
}

/** Whether `path` itself (not a link to one) is a regular file. */
async function isRealFile(path: string): Promise<boolean> {
  try {
    return (await Deno.lstat(path)).isFile;
  } catch {
    return false;
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}
