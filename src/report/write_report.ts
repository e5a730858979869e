/**
 * Writes a run's report: `report.html` and `report.md` in the run folder, or where the caller
 * says, with links relative to where each file is written.
 *
 * @module
 */

import * as nodePath from "node:path";
import { readRunFolder } from "./run_reading.ts";
import { buildReportModel, type ReportModel } from "./report_model.ts";
import { renderHtmlReport } from "./html_report.ts";
import { renderMarkdownReport } from "./markdown_report.ts";
import { runVerdict } from "./run_verdict.ts";
import type { ReportVerdict } from "./report_verdict.ts";

/** The HTML report's file name in the run folder. */
export const HTML_REPORT_FILE = "report.html";

/** The Markdown report's file name in the run folder. */
export const MARKDOWN_REPORT_FILE = "report.md";

/** Options of {@linkcode writeRunReport}. */
export interface WriteReportOptions {
  /** Where the HTML goes. @default `<run folder>/report.html` */
  html?: string;
  /** Where the Markdown goes. @default `<run folder>/report.md` */
  markdown?: string;
  /**
   * The verify verdict shown at the top.
   * @default what the run verifier finds in the folder (see `runVerdict`), with `key`
   */
  verdict?: ReportVerdict;
  /**
   * The key the run's manifest was signed with, for the verifier to check the signature.
   * @default null (a signature is reported as not checked)
   */
  key?: string | null;
  /** When the report is made. @default new Date() */
  now?: Date;
  /**
   * Also write the report of each child agent's run (`agents/<id>/report.html` and `.md`, their
   * children's too), so that the parent's links to them work.
   * @default true
   */
  children?: boolean;
}

/** What {@linkcode writeRunReport} wrote. */
export interface WrittenReport {
  /** Absolute path of the HTML file. */
  html: string;
  /** Absolute path of the Markdown file. */
  markdown: string;
  /** The model both were rendered from. */
  model: ReportModel;
}

/**
 * Reads the run folder `runDir`, builds the report and writes it as HTML and Markdown (and the
 * reports of its child agents' runs). Each file is written to a temporary file beside it and
 * renamed into place: a report path that is a symbolic link (a hostile run folder's
 * `report.html -> ~/.bashrc`) is replaced, never written through.
 *
 * @throws {RunFolderError} when `runDir` is not a run folder.
 * @throws {Deno.errors.NotFound | Deno.errors.PermissionDenied} when a report file cannot be
 * written (its folder must exist).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeRunReport } from "./write_report.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/events.jsonl`, '{"type":"run.started","task":"t"}\n');
 * const written = await writeRunReport(dir);
 * assert.ok((await Deno.readTextFile(written.html)).includes("<title>"));
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function writeRunReport(
  runDir: string,
  options: WriteReportOptions = {},
): Promise<WrittenReport> {
  let files = await readRunFolder(runDir);
  if (options.children !== false && files.children.length > 0) {
    for (const child of files.children) {
      await writeRunReport(nodePath.join(files.dir, "agents", child.name), {
        key: options.key ?? null,
        ...(options.now === undefined ? {} : { now: options.now }),
      }).catch(() => {
        // The parent's report links the child's events instead, and lists what it could read.
      });
    }
    files = await readRunFolder(runDir);
  }
  const verdict = options.verdict ?? await runVerdict(files.dir, { key: options.key ?? null });
  const model = buildReportModel(files, verdict);
  const htmlPath = nodePath.resolve(options.html ?? nodePath.join(files.dir, HTML_REPORT_FILE));
  const markdownPath = nodePath.resolve(
    options.markdown ?? nodePath.join(files.dir, MARKDOWN_REPORT_FILE),
  );
  await replaceFile(
    htmlPath,
    renderHtmlReport(model, {
      runBase: runBase(htmlPath, files.dir),
      ...(options.now === undefined ? {} : { now: options.now }),
    }),
  );
  await replaceFile(
    markdownPath,
    renderMarkdownReport(model, { runBase: runBase(markdownPath, files.dir) }),
  );
  return { html: htmlPath, markdown: markdownPath, model };
}

/**
 * Writes `text` to a new temporary file beside `path` (created exclusively: never through a link)
 * and renames it onto `path`, which replaces whatever `path` was, a symbolic link included.
 */
async function replaceFile(path: string, text: string): Promise<void> {
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  await Deno.writeTextFile(temporary, text, { createNew: true });
  try {
    await Deno.rename(temporary, path);
  } catch (error: unknown) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
}

/** The run folder as seen from the folder of `file`, `/`-separated; `""` when it is that folder. */
function runBase(file: string, runDir: string): string {
  return nodePath.relative(nodePath.dirname(file), runDir).split(nodePath.sep).join("/");
}
