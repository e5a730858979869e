/**
 * `kagent-run memory promote RUN_FOLDER [--accept ID]... [--config FILE] [--json]`: the Memory
 * Writer. Lists the memory candidates a run proposed, and writes those a person accepts to the
 * long-term store of the config (`memory.provider`), recording each in the run folder.
 *
 * @module
 */

import * as nodePath from "node:path";
import {
  type ListedCandidate,
  memoryProvider,
  type MemorySettings,
  type ProjectIdentity,
  promoteCandidates,
  type PromotionRecord,
  PROMOTIONS_FILE,
  readRunCandidates,
  type RunCandidates,
} from "../memory/mod.ts";
import { Redactor } from "../audit/mod.ts";
import { verifyRun, type VerifyVerdict } from "../verify/mod.ts";
import {
  type CommandIo,
  EXIT,
  guarded,
  loadConfigFromOptions,
  openNetworkBoundary,
  parseOptions,
  UsageError,
} from "./_common.ts";

/** Help text of the memory command. */
export const MEMORY_HELP =
  `Usage: kagent-run memory promote RUN_FOLDER [--accept ID]... [--config FILE] [--json]

The agent never writes long-term memory: memory.write_memory only proposes candidates, kept in the
run's archive/memory_candidates.jsonl. This command is the Memory Writer:

  without --accept   lists the run's candidates (id, scope, tags, size, text) and whether each
                     was promoted; writes nothing
  --accept ID        writes that candidate to the store of the config's "memory.provider" (the
                     file store or the HTTP memory service, through the network boundary);
                     repeatable; "--accept all" accepts every candidate not promoted yet

Each write is recorded as a line of the run folder's memory_promotions.jsonl (who, when, which
candidate, the store's record id, or why it failed), outside the run's seal: the run still
verifies. A candidate is written at most once. Before writing, the run must verify (its sealed
candidates file unchanged): a tampered or incomplete run is refused.

  --config FILE   the config naming the store (default agent.jsonc); its "audit.secret_env"
                  values are redacted once more before writing
  --key-env NAME  the variable holding the key the run was signed with (as kagent-run verify)
  --json          print the listing or the promotions as one JSON object

Exit status: 0 listed, or every accepted candidate written; 1 a write failed (recorded); 2 usage
error (no such candidate, already promoted, memory.write_mode "disabled"); 6 tampered or 7
incomplete run (nothing written).
`;

/** Runs the `memory` command. @returns the exit status. */
export function memoryCommand(args: string[], io: CommandIo): Promise<number> {
  return guarded(io, async () => {
    const { values, positionals } = parseOptions("memory", args, {
      config: { type: "string" },
      workspace: { type: "string" },
      accept: { type: "string", multiple: true },
      json: { type: "boolean" },
      "key-env": { type: "string" },
    });
    if (values.help) {
      io.stdout(MEMORY_HELP);
      return EXIT.ok;
    }
    const [action, runDir, ...extra] = positionals;
    if (action !== "promote" || runDir === undefined || extra.length > 0) {
      throw new UsageError(
        'Cannot run "kagent-run memory": use "kagent-run memory promote RUN_FOLDER [--accept ID]"',
      );
    }
    const run = await readRun(runDir);
    const listing = await readRunCandidates(runDir, run.run_id);
    const accepted = (values as Record<string, unknown>).accept as string[] | undefined;
    if (accepted === undefined || accepted.length === 0) {
      const verdict = (await verifyRun(runDir, { key: signingKey(values, io) })).verdict;
      if (values.json) io.stdout(`${JSON.stringify({ ...listing, verdict }, null, 2)}\n`);
      else io.stdout(describeListing(listing, verdict));
      return EXIT.ok;
    }
    const ids = accepted.includes("all")
      ? listing.candidates.filter((candidate) => candidate.promoted === null).map((c) => c.id)
      : accepted;
    const config = await loadConfigFromOptions(values);
    if (config.memory.write_mode === "disabled") {
      throw new UsageError(
        `Cannot promote memories: "memory.write_mode" is "disabled" in "${config.configPath}"`,
      );
    }
    // Checked before the store is touched: the candidates must be the run's own, as sealed.
    const report = await verifyRun(runDir, { key: signingKey(values, io) });
    if (report.verdict !== "verified") {
      io.stderr(
        `kagent-run: Cannot promote memories of run "${run.run_id}": the run is ` +
          `${report.verdict} (${report.problems.length} problems; see kagent-run verify ` +
          `${runDir}); nothing was written\n`,
      );
      return report.verdict === "tampered" ? EXIT.tampered : EXIT.incomplete;
    }
    const usesNetwork = config.memory.provider.kind === "http";
    const gateway = usesNetwork
      ? await openNetworkBoundary(config, io, { model: false, memory: true })
      : null;
    if (!usesNetwork) io.revokeNetwork?.();
    try {
      const settings: MemorySettings = {
        mode: config.memory.write_mode,
        folder: config.memory.folder,
        scopes: config.memory.scopes,
        provider: config.memory.provider,
        candidates_file: null,
        secrets: [],
        project: run.memory_project,
      };
      const redactor = Redactor.fromEnvironment(config.audit.secret_env, io.env);
      let records: PromotionRecord[];
      try {
        records = await promoteCandidates(runDir, listing, ids, {
          provider: memoryProvider(settings, io.env, gateway?.fetchFor("memory")),
          redact: (text) => redactor.redactText(text),
          promotedBy: io.env("USER") ?? io.env("LOGNAME") ?? io.env("USERNAME") ?? null,
          projectKey: run.memory_project?.key ?? null,
        });
      } catch (error) {
        if (error instanceof TypeError) throw new UsageError(error.message);
        throw error;
      }
      if (values.json) io.stdout(`${JSON.stringify({ promotions: records }, null, 2)}\n`);
      else io.stdout(describePromotions(records, listing.run_id));
      return records.every((record) => record.outcome === "promoted") ? EXIT.ok : EXIT.failed;
    } finally {
      gateway?.close();
    }
  });
}

/** What promote needs of `run.json`: the run id and the memory project identity. */
interface RunFacts {
  run_id: string;
  memory_project: ProjectIdentity | null;
}

async function readRun(runDir: string): Promise<RunFacts> {
  let info: { run_id?: unknown; memory_project?: unknown };
  try {
    info = JSON.parse(await Deno.readTextFile(nodePath.join(runDir, "run.json")));
  } catch (error) {
    throw new UsageError(
      `Cannot promote memories of "${runDir}": it is not a run folder (run.json: ` +
        `${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (typeof info.run_id !== "string") {
    throw new UsageError(`Cannot promote memories of "${runDir}": run.json names no run_id`);
  }
  const project = info.memory_project as Record<string, unknown> | null | undefined;
  const valid = typeof project?.key === "string" && /^[0-9a-f]{32}$/.test(project.key) &&
    typeof project.value === "string" &&
    ["config", "git_origin", "git_root", "workspace"].includes(String(project.source));
  return {
    run_id: info.run_id,
    memory_project: valid ? project as unknown as ProjectIdentity : null,
  };
}

function signingKey(values: Record<string, unknown>, io: CommandIo): string | null {
  const name = values["key-env"];
  if (typeof name !== "string") return null;
  const key = io.env(name);
  if (key === undefined || key === "") {
    throw new UsageError(
      `Cannot check the signature: the variable "${name}" (--key-env) is not set`,
    );
  }
  return key;
}

function describeListing(listing: RunCandidates, verdict: VerifyVerdict): string {
  const lines = [
    `Run ${listing.run_id} (${verdict}): ${listing.candidates.length} memory candidate(s)`,
    ...listing.candidates.map(describeCandidate),
    ...listing.problems.map((problem) =>
      `  archive/memory_candidates.jsonl line ${problem.line}: ${problem.message} (left out)`
    ),
  ];
  const open = listing.candidates.filter((candidate) => candidate.promoted === null).length;
  lines.push(
    open === 0
      ? "Nothing to promote."
      : `Nothing was written. Write some with --accept ID (repeatable), or all ${open} with --accept all.`,
  );
  return `${lines.join("\n")}\n`;
}

function describeCandidate(candidate: ListedCandidate): string {
  const tags = candidate.tags.length === 0 ? "" : ` [${candidate.tags.join(", ")}]`;
  const state = candidate.promoted === null
    ? ""
    : ` (promoted ${candidate.promoted.ts} as ${candidate.promoted.record_id})`;
  const text = candidate.content.replace(/\s+/g, " ").trim();
  const shown = [...text].length > 100 ? `${[...text].slice(0, 99).join("")}…` : text;
  return `  ${candidate.id}  ${candidate.scope}${tags}  ${candidate.bytes} bytes${state}\n    ${shown}`;
}

function describePromotions(records: readonly PromotionRecord[], runId: string): string {
  if (records.length === 0) return `Run ${runId}: nothing to promote.\n`;
  const lines = records.map((record) =>
    record.outcome === "promoted"
      ? `promoted ${record.candidate_id} to "${record.scope}" (${record.store}) as ${record.record_id}`
      : `failed ${record.candidate_id}: ${record.error?.message}`
  );
  lines.push(`Recorded in ${PROMOTIONS_FILE} of run ${runId}.`);
  return `${lines.join("\n")}\n`;
}
