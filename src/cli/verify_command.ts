/**
 * `kagent-run verify RUN_FOLDER [--json] [--key-env NAME]`: checks a run folder's hash chains,
 * cross-references, seal, signature and artifacts; exits 0 only for a sealed, intact run.
 *
 * @module
 */

import { type VerifyReport, verifyRun } from "../verify/mod.ts";
import { type CommandIo, EXIT, guarded, parseOptions, UsageError } from "./_common.ts";
import { terminalSafe } from "../approval/mod.ts";

/** Help text of the verify command. */
export const VERIFY_HELP = `Usage: kagent-run verify RUN_FOLDER [--json] [--key-env NAME]

Checks a run folder from its files alone: the hash chain of events.jsonl, logs/tools.jsonl and
logs/errors.jsonl (every record's seq and prev), the cross-references between them (each call's
started and ended events, its tools record), the seal (manifest.json: each chain's end, the sha256
of policy.json, run.json, config.json, system_prompt.md, every artifact, deliverable and archived
file), and every artifact's sha256. Sub-agent runs under agents/ are checked the same way.

Prints "verified" with counts, or each problem with its file and line. --json prints the report
as one JSON object.

  --key-env NAME  the environment variable holding the key the manifest was signed with
                  (audit.signing_key_env of the run's config); without it a signature is reported
                  as not checked. The manifest names the variable it was signed with; it is never
                  read from there.

Exit status: 0 verified (sealed and intact), 6 tampered, 7 incomplete (no seal: killed, or still
running), 2 usage error (not a run folder, the key variable unset).
`;

/** Runs the `verify` command. @returns the exit status. */
export function verifyCommand(args: string[], io: CommandIo): Promise<number> {
  return guarded(io, async () => {
    const { values, positionals } = parseOptions("verify", args, {
      json: { type: "boolean" },
      "key-env": { type: "string" },
    });
    if (values.help) {
      io.stdout(VERIFY_HELP);
      return EXIT.ok;
    }
    const [runDir, ...extra] = positionals;
    if (runDir === undefined || extra.length > 0) {
      throw new UsageError(
        'Cannot verify: name exactly one run folder, as in "kagent-run verify runs/<run-id>"',
      );
    }
    const keyEnv = values["key-env"];
    let key: string | null = null;
    if (typeof keyEnv === "string") {
      key = io.env(keyEnv) ?? null;
      if (key === null || key === "") {
        throw new UsageError(
          `Cannot check the signature: the variable "${keyEnv}" (--key-env) is not set; set it ` +
            "to the key the run was signed with",
        );
      }
    }
    let report: VerifyReport;
    try {
      report = await verifyRun(runDir, { key });
    } catch (error: unknown) {
      if (error instanceof TypeError && error.message.startsWith("Cannot verify")) {
        throw new UsageError(error.message);
      }
      throw error;
    }
    if (values.json) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
    else io.stdout(describe(report, keyEnv));
    return exitCodeOf(report);
  });
}

/** The exit status of a report: 0 verified, 6 tampered, 7 incomplete. */
export function exitCodeOf(report: VerifyReport): number {
  if (report.verdict === "verified") return EXIT.ok;
  return report.verdict === "tampered" ? EXIT.tampered : EXIT.incomplete;
}

/** The report in words: the verdict line, then each problem as `file:line: message`. */
function describe(report: VerifyReport, keyEnv: string | boolean | undefined, depth = 0): string {
  const indent = "  ".repeat(depth);
  const { counts } = report;
  // Run ids, file names and messages come from the folder, which may be hostile: shown as text.
  const lines = [
    `${indent}${report.verdict}: run ${terminalSafe(report.run_id)} (${counts.events} events, ` +
    `${counts.tool_records} tool records, ${counts.error_records} error records, ` +
    `${counts.calls} calls, ${counts.artifacts} artifacts, ${counts.deliverables} deliverables, ` +
    `${counts.sealed_files} sealed files)`,
  ];
  const signature = signatureLine(report, keyEnv, depth > 0);
  if (signature !== null) lines.push(`${indent}${signature}`);
  for (const problem of report.problems) {
    const where = problem.line === null ? problem.file : `${problem.file}:${problem.line}`;
    lines.push(`${indent}  ${terminalSafe(where)}: ${terminalSafe(problem.message)}`);
  }
  const children = report.children.map((child) => describe(child, keyEnv, depth + 1));
  return `${lines.join("\n")}\n${children.join("")}`;
}

function signatureLine(
  report: VerifyReport,
  keyEnv: string | boolean | undefined,
  child: boolean,
): string | null {
  switch (report.signature) {
    case "valid":
      return `signature valid (HMAC-SHA256, key from ${String(keyEnv)})`;
    case "not_checked":
      return `signature not checked: pass --key-env NAME with the key (signed with ` +
        `${report.signature_key_env ?? "an unnamed variable"})`;
    case "unsigned":
      return report.sealed && !child ? "unsigned (no audit.signing_key_env)" : null;
    default:
      return null;
  }
}
