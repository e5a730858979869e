/**
 * The verdict a report shows at its top, from the run verifier (`kagent-run verify`).
 *
 * @module
 */

import { type VerifyReport, verifyRun } from "../verify/mod.ts";
import { notChecked, type ReportVerdict } from "./report_verdict.ts";

/** Options of {@linkcode runVerdict}. */
export interface RunVerdictOptions {
  /**
   * The key the run's `manifest.json` was signed with (the value of the variable
   * `audit.signing_key_env` names); without it a signature is reported as not checked.
   * @default null
   */
  key?: string | null;
}

/**
 * Verifies the run folder `runDir` (hash chains, cross-references, seal, signature, artifacts,
 * child runs) and says what was found, for the top of its report.
 *
 * @returns The verdict: `verified`, `tampered` or `incomplete` with one line of counts and each
 * problem as `file:line: message` (a child run's prefixed with `agents/<id>/`); never throws (a
 * folder the verifier cannot read is a `not_checked` verdict saying why).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runVerdict } from "./run_verdict.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/events.jsonl`, '{"type":"run.started"}\n');
 * const verdict = await runVerdict(dir);
 * assert.equal(verdict.status, "tampered"); // a record without its hash chain
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function runVerdict(
  runDir: string,
  options: RunVerdictOptions = {},
): Promise<ReportVerdict> {
  let report: VerifyReport;
  try {
    report = await verifyRun(runDir, { key: options.key ?? null });
  } catch (error: unknown) {
    return notChecked(`the verifier could not read the folder: ${(error as Error).message}`);
  }
  const { counts } = report;
  const signature = {
    valid: "signature valid",
    invalid: "signature invalid",
    missing: "not signed, though a key was given",
    not_checked: `signature not checked (signed with the key in ${
      report.signature_key_env ?? "an unnamed variable"
    }; give it to check)`,
    unsigned: report.sealed ? "unsigned" : null,
  }[report.signature];
  const children = report.children.length === 0
    ? ""
    : `, ${report.children.length} child run(s) ${
      report.children.every((child) => child.verdict === "verified") ? "verified" : "with problems"
    }`;
  return {
    status: report.verdict,
    headline: `${counts.events} events, ${counts.tool_records} tool records, ` +
      `${counts.error_records} error records, ${counts.calls} calls, ${counts.artifacts} ` +
      `artifacts, ${counts.sealed_files} sealed files${children}${
        signature === null ? "" : `; ${signature}`
      }`,
    problems: problemLines(report, ""),
  };
}

function problemLines(report: VerifyReport, prefix: string): string[] {
  return [
    ...report.problems.map((problem) =>
      `${prefix}${problem.file}${
        problem.line === null ? "" : `:${problem.line}`
      }: ${problem.message}`
    ),
    ...report.children.flatMap((child) =>
      problemLines(child, `${prefix}agents/${child.run_dir.split("/").pop() ?? child.run_id}/`)
    ),
  ];
}
