/**
 * Reads a run folder (`runs/<run-id>/`) for a report: `run.json`, `events.jsonl`,
 * `logs/tools.jsonl`, `logs/errors.jsonl`, `approvals/pending.jsonl`, the files of
 * `deliverables/` and the child agents' folders under `agents/`. The folder may be incomplete (a
 * killed run), tampered with or hostile: nothing here trusts it. A line that does not parse, a
 * missing file or a file too large to read is a problem the report shows, never an exception.
 *
 * @module
 */

import * as nodePath from "node:path";
import { linkablePath, recordField } from "./_fields.ts";

/** A JSON object read from a run folder; every field is untrusted. */
export type RunRecord = Readonly<Record<string, unknown>>;

/** A file of a folder inside the run folder (`deliverables/`, `artifacts/`). */
export interface RunFile {
  /** Path relative to the run folder, `/`-separated, e.g. `deliverables/report.md`. */
  path: string;
  /** Size in bytes. */
  bytes: number;
}

/** A child agent's run folder, `agents/<name>/` (sub-agents). */
export interface ChildRun {
  /** The folder's name under `agents/`. */
  name: string;
  /** Its `run.json`, or null when missing or unreadable. */
  info: RunRecord | null;
  /** Its `run.completed` event, or null (no such event: incomplete). */
  completed: RunRecord | null;
  /** Whether it holds its own `report.html`. */
  has_report: boolean;
  /** Its `approvals/pending.jsonl` records: its calls that waited for an approval nobody gave. */
  pending: RunRecord[];
  /** Its own child agents' folders (`agents/<name>/agents/`), read the same way. */
  children: ChildRun[];
}

/** What a run folder holds, as far as it could be read. */
export interface RunFiles {
  /** Absolute path of the run folder. */
  dir: string;
  /** `run.json`, or null when missing or unreadable. */
  info: RunRecord | null;
  /** `config.json` (the run's config as loaded, with `model.pricing`), or null when missing. */
  config: RunRecord | null;
  /** `events.jsonl` records, in file order. */
  events: RunRecord[];
  /** `logs/tools.jsonl` records, one a call. */
  tools: RunRecord[];
  /** `logs/errors.jsonl` records. */
  errors: RunRecord[];
  /** `approvals/pending.jsonl` records: the calls that needed an approval nobody gave. */
  pending: RunRecord[];
  /** Files under `deliverables/`, sorted by path. */
  deliverables: RunFile[];
  /** Child agents' folders under `agents/`, sorted by name. */
  children: ChildRun[];
  /**
   * Texts of the artifacts that hold edits (a long `fs.write_file` arguments text, a long
   * `fs.edit_file` diff), by path relative to the run folder; each at most
   * {@linkcode MAX_EDIT_TEXT_BYTES}.
   */
  texts: Map<string, string>;
  /** Which of {@linkcode RUN_FILES} the folder holds, in that order. */
  run_files: string[];
  /**
   * The report files of the sealed run (`report.html`, `report.md`, absolute paths) when both are
   * regular files written no earlier than `manifest.json` (a report of an earlier segment is
   * stale), else null.
   */
  reports: { html: string; markdown: string } | null;
  /** What could not be read, each naming the file (and line), e.g. `events.jsonl line 4: not JSON`. */
  problems: string[];
}

/** Largest JSONL or JSON file a report reads, in bytes (64 MiB); a larger one is a problem. */
export const MAX_READ_BYTES = 64 * 1024 * 1024;

/** The run folder's own files a report links to when they exist. */
export const RUN_FILES = [
  "run.json",
  "config.json",
  "policy.json",
  "system_prompt.md",
  "events.jsonl",
  "logs/tools.jsonl",
  "logs/errors.jsonl",
  "approvals/pending.jsonl",
  "grants.jsonl",
  "manifest.json",
] as const;

/** Largest artifact read to show an edit, in bytes (1 MiB); a larger one is linked, not shown. */
export const MAX_EDIT_TEXT_BYTES = 1024 * 1024;

/** Most files listed from one folder (`deliverables/`); more are counted as a problem. */
export const MAX_LISTED_FILES = 1000;

/**
 * Reads the run folder `dir`.
 *
 * @param dir The run folder (absolute or relative to the current folder).
 * @returns Everything readable; what was not is in `problems`.
 * @throws {RunFolderError} when `dir` is not a folder or holds neither `events.jsonl` nor
 * `run.json` (not a run folder).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readRunFolder, RunFolderError } from "./run_reading.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/events.jsonl`, '{"type":"run.started"}\n{"type":');
 * const files = await readRunFolder(dir);
 * assert.ok(files.events.length === 1);
 * assert.ok(files.problems.includes("events.jsonl line 2: not JSON (a torn or edited line)"));
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function readRunFolder(dir: string): Promise<RunFiles> {
  const absolute = nodePath.resolve(dir);
  const stat = await Deno.stat(absolute).catch(() => null);
  if (stat === null || !stat.isDirectory) {
    throw new RunFolderError(`Cannot read run folder "${dir}": it is not a folder`);
  }
  const problems: string[] = [];
  const info = await readJson(absolute, "run.json", problems);
  const events = await readJsonl(absolute, "events.jsonl", problems);
  if (info === null && events === null) {
    throw new RunFolderError(
      `Cannot read run folder "${dir}": it holds neither run.json nor events.jsonl; ` +
        "give a folder under runs_dir, e.g. runs/<run-id>",
    );
  }
  const tools = await readJsonl(absolute, "logs/tools.jsonl", problems) ?? [];
  return {
    dir: absolute,
    info,
    config: await readJson(absolute, "config.json", problems, true),
    events: events ?? [],
    tools,
    errors: await readJsonl(absolute, "logs/errors.jsonl", problems) ?? [],
    pending: await readJsonl(absolute, "approvals/pending.jsonl", problems, true) ?? [],
    deliverables: await listFiles(absolute, "deliverables", problems),
    children: await readChildren(absolute, problems),
    texts: await readEditTexts(absolute, tools, problems),
    run_files: await existing(absolute, RUN_FILES),
    reports: await currentReports(absolute),
    problems,
  };
}

/** See {@linkcode RunFiles.reports}. */
async function currentReports(dir: string): Promise<{ html: string; markdown: string } | null> {
  const modified = async (name: string) => {
    const stat = await Deno.lstat(nodePath.join(dir, name)).catch(() => null);
    return stat?.isFile ? stat.mtime?.getTime() ?? null : null;
  };
  const seal = await modified("manifest.json");
  const html = await modified("report.html");
  const markdown = await modified("report.md");
  if (html === null || markdown === null) return null;
  if (seal !== null && (html < seal || markdown < seal)) return null;
  return { html: nodePath.join(dir, "report.html"), markdown: nodePath.join(dir, "report.md") };
}

/** The names of `names` that are regular files of `dir`. */
async function existing(dir: string, names: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const name of names) {
    const stat = await Deno.lstat(nodePath.join(dir, name)).catch(() => null);
    if (stat?.isFile) found.push(name);
  }
  return found;
}

/** The artifacts holding the texts of edits; see {@linkcode RunFiles.texts}. */
async function readEditTexts(
  dir: string,
  tools: readonly RunRecord[],
  problems: string[],
): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const record of tools) {
    const artifact = record.tool === "fs.write_file"
      ? record.arguments_artifact
      : record.tool === "fs.edit_file"
      ? recordField(record.result)?.output_artifact
      : null;
    const path = linkablePath(recordField(artifact)?.ref);
    if (path === null || texts.has(path)) continue;
    const size = await Deno.lstat(nodePath.join(dir, path)).then((stat) => stat.size, () => null);
    if (size === null || size > MAX_EDIT_TEXT_BYTES) continue;
    const text = await readText(dir, path, problems, false);
    if (text !== null) texts.set(path, text);
  }
  return texts;
}

/** A folder that is not a run folder; the message names it and what to give instead. */
export class RunFolderError extends Error {
  override readonly name = "RunFolderError";
}

/** Reads a file of the run folder as text, or null (missing: silently unless `required`). */
async function readText(
  dir: string,
  relative: string,
  problems: string[],
  optional: boolean,
): Promise<string | null> {
  const path = nodePath.join(dir, relative);
  try {
    const stat = await Deno.lstat(path);
    if (!stat.isFile) {
      problems.push(`${relative}: not a regular file`);
      return null;
    }
    if (stat.size > MAX_READ_BYTES) {
      problems.push(
        `${relative}: ${stat.size} bytes, more than a report reads (${MAX_READ_BYTES})`,
      );
      return null;
    }
    return new TextDecoder().decode(await Deno.readFile(path));
  } catch (error: unknown) {
    if (error instanceof Deno.errors.NotFound) {
      if (!optional) problems.push(`${relative}: missing`);
    } else problems.push(`${relative}: cannot be read (${(error as Error).message})`);
    return null;
  }
}

async function readJson(dir: string, relative: string, problems: string[], optional = false) {
  const text = await readText(dir, relative, problems, optional);
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    if (isRecord(value)) return value;
  } catch {
    // Reported below.
  }
  problems.push(`${relative}: not a JSON object`);
  return null;
}

async function readJsonl(
  dir: string,
  relative: string,
  problems: string[],
  optional = false,
): Promise<RunRecord[] | null> {
  const text = await readText(dir, relative, problems, optional);
  if (text === null) return null;
  const records: RunRecord[] = [];
  const lines = text.split("\n");
  // A file ends with a newline; what follows the last one is a torn line (or nothing).
  lines.forEach((line, index) => {
    if (line === "") return;
    try {
      const value: unknown = JSON.parse(line);
      if (isRecord(value)) {
        records.push(value);
        return;
      }
    } catch {
      // Reported below.
    }
    problems.push(`${relative} line ${index + 1}: not JSON (a torn or edited line)`);
  });
  return records;
}

/** Files under `dir/folder`, recursively, without following links; paths relative to `dir`. */
async function listFiles(dir: string, folder: string, problems: string[]): Promise<RunFile[]> {
  const found: RunFile[] = [];
  const pending = [folder];
  let more = 0;
  while (pending.length > 0) {
    const relative = pending.pop() as string;
    try {
      for await (const entry of Deno.readDir(nodePath.join(dir, relative))) {
        const path = `${relative}/${entry.name}`;
        if (entry.isDirectory) pending.push(path);
        else if (!entry.isFile) continue;
        else if (found.length >= MAX_LISTED_FILES) more += 1;
        else found.push({ path, bytes: (await Deno.lstat(nodePath.join(dir, path))).size });
      }
    } catch (error: unknown) {
      if (!(error instanceof Deno.errors.NotFound)) {
        problems.push(`${relative}/: cannot be listed (${(error as Error).message})`);
      }
    }
  }
  if (more > 0) problems.push(`${folder}/: ${more} more files not listed`);
  return found.sort((left, right) => left.path < right.path ? -1 : 1);
}

/** Deepest child folder read (`agents/<id>/agents/<id>/…`); config `agents` allow far fewer. */
const MAX_CHILD_DEPTH = 8;

async function readChildren(dir: string, problems: string[], depth = 1): Promise<ChildRun[]> {
  if (depth > MAX_CHILD_DEPTH) return [];
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(nodePath.join(dir, "agents"))) {
      if (entry.isDirectory) names.push(entry.name);
    }
  } catch {
    return [];
  }
  const children: ChildRun[] = [];
  for (const name of names.sort().slice(0, MAX_LISTED_FILES)) {
    const childDir = nodePath.join(dir, "agents", name);
    const info = await readJson(childDir, "run.json", []);
    const events = await readJsonl(childDir, "events.jsonl", [], true) ?? [];
    const has_report = await Deno.lstat(nodePath.join(childDir, "report.html"))
      .then((stat) => stat.isFile, () => false);
    children.push({
      name,
      info,
      completed: events.findLast((event) => event.type === "run.completed") ?? null,
      has_report,
      pending: await readJsonl(childDir, "approvals/pending.jsonl", [], true) ?? [],
      children: await readChildren(childDir, [], depth + 1),
    });
  }
  if (names.length > MAX_LISTED_FILES) {
    problems.push(`agents/: ${names.length - MAX_LISTED_FILES} more child runs not listed`);
  }
  return children;
}

function isRecord(value: unknown): value is RunRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
