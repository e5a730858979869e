/**
 * The segments of a resumed run (`kagent-run resume`): each `run.resumed` event names the sha256 of
 * the seal before it, kept as `segments/<n>/manifest.json`; that seal's chain ends must be records
 * of today's chains, so the joined run is the earlier segments' run, extended.
 *
 * @module
 */

import { join } from "node:path";
import { CHAINED_LOGS, type ChainedLog, type ChainLink, sha256Hex } from "../audit/mod.ts";
import type { ChainReading } from "./_read_chain.ts";
import type { VerifyProblem } from "./verify_report.ts";

/**
 * Checks every `run.resumed` event against the seal it names.
 *
 * @param dir The run folder.
 * @param chains The run's chains, as read.
 * @returns Problems: `file_missing` (a kept seal is gone), `cross_reference` (a kept seal's hash
 *   or chain ends do not match), all tampered.
 */
export async function checkSegments(
  dir: string,
  chains: Record<ChainedLog, ChainReading>,
): Promise<VerifyProblem[]> {
  const problems: VerifyProblem[] = [];
  for (const entry of chains["events.jsonl"].records) {
    if (entry.record.type !== "run.resumed") continue;
    const segment = Number(entry.record.segment);
    const file = `segments/${segment - 1}/manifest.json`;
    const problem = (kind: VerifyProblem["kind"], message: string) =>
      problems.push({ kind, severity: "tampered", file, line: null, message });
    let text: string;
    try {
      text = await Deno.readTextFile(join(dir, file));
    } catch {
      problem("file_missing", `the seal of segment ${segment - 1} is missing`);
      continue;
    }
    if (sha256Hex(text) !== entry.record.previous_manifest_sha256) {
      problem(
        "cross_reference",
        `the seal of segment ${segment - 1} is not the one the run.resumed of events.jsonl ` +
          `line ${entry.line} names`,
      );
      continue;
    }
    let ends: Record<string, ChainLink> | undefined;
    try {
      ends = (JSON.parse(text) as { chains?: Record<string, ChainLink> }).chains;
    } catch {
      ends = undefined;
    }
    for (const log of CHAINED_LOGS) {
      const end = ends?.[log];
      const record = chains[log].records.find((candidate) => candidate.seq === end?.seq);
      const hash = end?.seq === 0 ? chains[log].anchor : record?.hash;
      if (end === undefined || hash !== end.hash) {
        problem(
          "cross_reference",
          `the seal of segment ${segment - 1} ends ${log} at seq ${end?.seq ?? "?"}, ` +
            `which is not that record of the joined run`,
        );
      }
    }
  }
  return problems;
}
