/**
 * `kagent-run run --report`: the run's report written into its folder once the run is closed
 * (after the last record, so the report and its verify verdict see the whole run).
 *
 * @module
 */

import * as nodePath from "node:path";
import { HTML_REPORT_FILE, MARKDOWN_REPORT_FILE, writeRunReport } from "../report/mod.ts";
import { displayRunDir } from "./display_run_dir.ts";

/** Where `--report` writes the report of the run in `runDir`. */
export function runReportFiles(runDir: string): { html: string; markdown: string } {
  return {
    html: nodePath.join(runDir, HTML_REPORT_FILE),
    markdown: nodePath.join(runDir, MARKDOWN_REPORT_FILE),
  };
}

/**
 * Writes `report.html` and `report.md` into the run folder. The run is over and recorded by then,
 * so a failure only prints a line on stderr (through `warn`) and does not change the exit status.
 *
 * @param runDir The run folder.
 * @param warn Prints one line (without its newline).
 * @param quiet No line when the report is written.
 * @param key The key the run's manifest was signed with (`audit.signing_key_env`'s value), or
 * null: the verdict then says the signature was not checked.
 */
export async function writeReportAtEnd(
  runDir: string,
  warn: (line: string) => void,
  quiet: boolean,
  key: string | null = null,
): Promise<void> {
  try {
    const written = await writeRunReport(runDir, { ...runReportFiles(runDir), key });
    if (!quiet) {
      warn(
        `kagent-run: report ${displayRunDir(written.html)} (and ${
          nodePath.basename(written.markdown)
        }): ${written.model.verdict.status} (${written.model.verdict.headline})`,
      );
    }
  } catch (error: unknown) {
    warn(
      `kagent-run: Cannot write the report of ${displayRunDir(runDir)}: ${
        error instanceof Error ? error.message : String(error)
      }; the run folder holds the result, and "kagent-run report ${
        displayRunDir(runDir)
      }" can write it later`,
    );
  }
}
