/**
 * `kagent-run report RUN_FOLDER [--output FILE] [--markdown FILE]`: writes a run's report, one
 * self-contained HTML file and a Markdown file, from the run folder alone.
 *
 * @module
 */

import { RunFolderError, writeRunReport } from "../report/mod.ts";
import { type CommandIo, EXIT, guarded, parseOptions, UsageError } from "./_common.ts";
import { displayRunDir } from "./display_run_dir.ts";

/** Help text of the report command. */
export const REPORT_HELP =
  `Usage: kagent-run report RUN_FOLDER [--output FILE] [--markdown FILE] [--key-env NAME]

Writes the report of a run: a self-contained HTML file (no script, no network, links only to the
run's own files) and a Markdown version, both read from the run folder alone: the verify verdict,
the task, model and end reason, a timeline of model turns and tool calls, each call's decision and
approval, denials with the grant that would allow them, edits as diffs, commands with exit codes and
output excerpts, deliverables.

Options:
  --output FILE     Where the HTML goes. Default: RUN_FOLDER/report.html
  --markdown FILE   Where the Markdown goes. Default: RUN_FOLDER/report.md
  --key-env NAME    The environment variable holding the key the run's manifest was signed with
                    (audit.signing_key_env), so that the verdict checks the signature too
  -h, --help        This help

Exit codes: 0 written, 1 a file could not be written, 2 usage error or not a run folder.
"kagent-run run --report" writes both into the run folder when the run ends.
`;

/** Runs the `report` command. @returns the exit status. */
export function reportCommand(args: string[], io: CommandIo): Promise<number> {
  return guarded(io, async () => {
    const { values, positionals } = parseOptions("report", args, {
      output: { type: "string" },
      markdown: { type: "string" },
      "key-env": { type: "string" },
    });
    if (values.help) {
      io.stdout(REPORT_HELP);
      return EXIT.ok;
    }
    const [runDir, ...extra] = positionals;
    if (runDir === undefined || extra.length > 0) {
      throw new UsageError(
        runDir === undefined
          ? 'Cannot write a report: no run folder given; pass one, e.g. "kagent-run report runs/<run-id>"'
          : `Cannot write a report: unexpected argument "${extra[0]}"; give one run folder`,
      );
    }
    const keyEnv = values["key-env"];
    const key = typeof keyEnv === "string" ? io.env(keyEnv) ?? "" : null;
    if (key === "") {
      throw new UsageError(
        `Cannot check the signature: the variable "${keyEnv}" (--key-env) is not set; set it to ` +
          "the key the run was signed with, or leave --key-env out",
      );
    }
    try {
      const written = await writeRunReport(runDir, {
        key,
        ...(typeof values.output === "string" ? { html: values.output } : {}),
        ...(typeof values.markdown === "string" ? { markdown: values.markdown } : {}),
      });
      io.stdout(`${displayRunDir(written.html)}\n${displayRunDir(written.markdown)}\n`);
      io.stderr(
        `kagent-run: report of run ${written.model.run_id} written: ${written.model.verdict.status} (${written.model.verdict.headline})\n`,
      );
      return EXIT.ok;
    } catch (error: unknown) {
      if (error instanceof RunFolderError) throw new UsageError(error.message);
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied) {
        io.stderr(
          `kagent-run: Cannot write the report of "${runDir}": ${
            (error as Error).message
          }; choose a writable file with --output and --markdown\n`,
        );
        return EXIT.failed;
      }
      throw error;
    }
  });
}
