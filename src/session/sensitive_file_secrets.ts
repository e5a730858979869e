/**
 * The values held by the sensitive files of the roots (`.env`, `*.key`, `*.pem`...), read once at
 * session start, so that the run redacts them wherever they appear (issue 23 §5). A file git
 * tracks stays readable through git's object store (`git show HEAD:.env`, `git log -p`,
 * `git grep … HEAD`) although its working-tree copy is masked: its values are what such output
 * must not carry. PEM private key blocks need no values: their shape is a redaction pattern.
 *
 * @module
 */

import * as nodePath from "node:path";
import { isSecretKey, MIN_SECRET_LENGTH } from "../audit/mod.ts";

/** Most folder entries looked at by the scan (the command profile's scan has the same bound). */
export const MAX_SCANNED_ENTRIES = 200_000;
/** Most sensitive files read. */
export const MAX_SENSITIVE_FILES = 256;
/** Largest sensitive file read, in bytes; a larger one is not a `.env` file or a key. */
export const MAX_SENSITIVE_FILE_BYTES = 64 * 1024;
/** Most values taken from all files together. */
export const MAX_FILE_SECRETS = 512;
/** Longest value taken, in characters. */
export const MAX_FILE_SECRET_CHARS = 4096;
/** Folders the scan never enters: git's store (read through git, masked or not) and packages. */
export const UNSCANNED_FOLDER_NAMES: readonly string[] = [".git", "node_modules"];

/** What {@linkcode sensitiveFileSecrets} found. */
export interface SensitiveFileSecrets {
  /** The secret values, longest first, each at least {@linkcode MIN_SECRET_LENGTH} characters. */
  values: string[];
  /** Absolute paths of the sensitive files read. */
  files: string[];
  /** Why the scan stopped early (a bound was reached), or null when it looked at everything. */
  incomplete: string | null;
}

/** Where {@linkcode sensitiveFileSecrets} looks. */
export interface SensitiveFileScan {
  /** Folders to scan (absolute, real): the workspace and the other roots. */
  roots: readonly string[];
  /** The first sensitive pattern matching an absolute path, or null (the path guard's). */
  sensitiveMatch: (path: string) => string | null;
  /** Folders never entered (the runs folder). */
  exclusions: readonly string[];
}

/**
 * Scans the roots (links never followed; {@linkcode UNSCANNED_FOLDER_NAMES} and `exclusions`
 * skipped) for files a sensitive pattern matches, and takes their values
 * ({@linkcode secretValuesOf}). Bounded: {@linkcode MAX_SCANNED_ENTRIES} entries,
 * {@linkcode MAX_SENSITIVE_FILES} files of at most {@linkcode MAX_SENSITIVE_FILE_BYTES} bytes,
 * {@linkcode MAX_FILE_SECRETS} values; what was left out is named in `incomplete`. A file that
 * cannot be read is skipped.
 *
 * @example
 * ```ts
 * import { sensitiveFileSecrets } from "./sensitive_file_secrets.ts";
 * const root = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${root}/.env`, "API_TOKEN=tok-1234567890\nPORT=8080\n");
 * const found = sensitiveFileSecrets({
 *   roots: [root], exclusions: [],
 *   sensitiveMatch: (path) => path.endsWith("/.env") ? ".env" : null,
 * });
 * console.assert(found.values.length === 1 && found.values[0] === "tok-1234567890");
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export function sensitiveFileSecrets(scan: SensitiveFileScan): SensitiveFileSecrets {
  const values = new Set<string>();
  const files: string[] = [];
  let incomplete: string | null = null;
  let budget = MAX_SCANNED_ENTRIES;
  const pending = outermost(scan.roots);
  walk: while (pending.length > 0) {
    const folder = pending.pop() as string;
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(folder)];
    } catch {
      continue;
    }
    budget -= entries.length;
    if (budget < 0) {
      incomplete = `the roots hold more than ${MAX_SCANNED_ENTRIES} entries`;
      break;
    }
    for (const entry of entries) {
      const path = nodePath.join(folder, entry.name);
      if (entry.isSymlink) continue;
      if (entry.isDirectory) {
        const skipped = UNSCANNED_FOLDER_NAMES.includes(entry.name) ||
          scan.exclusions.some((excluded) => isWithin(path, excluded));
        if (!skipped) pending.push(path);
        continue;
      }
      if (!entry.isFile || scan.sensitiveMatch(path) === null) continue;
      if (files.length === MAX_SENSITIVE_FILES) {
        incomplete = `the roots hold more than ${MAX_SENSITIVE_FILES} sensitive files`;
        break walk;
      }
      const text = readSmallText(path);
      if (text === null) continue;
      files.push(path);
      for (const value of secretValuesOf(text)) {
        if (values.size === MAX_FILE_SECRETS) {
          incomplete = `the sensitive files hold more than ${MAX_FILE_SECRETS} values`;
          break walk;
        }
        values.add(value);
      }
    }
  }
  return {
    values: [...values].sort((left, right) => right.length - left.length),
    files,
    incomplete,
  };
}

/**
 * The secret values of a sensitive file's text:
 *
 * - each `KEY=value` (or `KEY: value`, `export KEY=value`) line's value, quotes and a trailing
 *   `# comment` removed, when the key is named like a secret (`API_TOKEN`, `DB_PASSWORD`,
 *   `SIGNING_KEY`, `SENTRY_DSN`...) or the value looks generated (see {@linkcode looksGenerated});
 * - each other line that looks generated as a whole (a raw key file: `master.key`);
 * - never the lines of a PEM block (redacted by their shape), comments, or values shorter than
 *   {@linkcode MIN_SECRET_LENGTH} or longer than {@linkcode MAX_FILE_SECRET_CHARS}.
 *
 * So `NODE_ENV=development`, `PORT=8080` or `DATABASE_URL=postgres://localhost/app` stay readable
 * wherever they appear, while `API_KEY=changeme-please` and `x=Zq81kV03mXe7` do not.
 *
 * @example
 * ```ts
 * import { secretValuesOf } from "./sensitive_file_secrets.ts";
 * const values = secretValuesOf('export DB_PASSWORD="correct horse"\nNODE_ENV=development\n');
 * console.assert(values.length === 1 && values[0] === "correct horse");
 * ```
 */
export function secretValuesOf(text: string): string[] {
  const values: string[] = [];
  let inBlock = false;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (/^-----BEGIN [A-Z0-9 ]+-----$/.test(line)) inBlock = true;
    if (inBlock) {
      if (/^-----END [A-Z0-9 ]+-----$/.test(line)) inBlock = false;
      continue;
    }
    if (line === "" || line.startsWith("#") || line.startsWith("//")) continue;
    const assignment = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*[=:]\s*(.*)$/.exec(line);
    let value: string;
    let keyed = false;
    if (assignment !== null) {
      keyed = isSecretName(assignment[1] ?? "");
      value = unquoted(assignment[2] ?? "");
    } else {
      value = line;
    }
    if (value.length < MIN_SECRET_LENGTH || value.length > MAX_FILE_SECRET_CHARS) continue;
    if (keyed || looksGenerated(value)) values.push(value);
  }
  return values;
}

/**
 * Tells whether a value looks generated rather than written by a person: no blanks, at least 12
 * characters, letters and digits both, and not a URL without credentials (`https://host:8080/x`).
 *
 * @example
 * ```ts
 * import { looksGenerated } from "./sensitive_file_secrets.ts";
 * console.assert(looksGenerated("a1b2c3d4e5f6a7b8") && !looksGenerated("development-mode"));
 * ```
 */
export function looksGenerated(value: string): boolean {
  if (value.length < 12 || /\s/.test(value)) return false;
  if (!/[A-Za-z]/.test(value) || !/[0-9]/.test(value)) return false;
  return !/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^@]*$/.test(value);
}

/** A key named like a secret: the redactor's key words, or a `_KEY`, `_DSN`, `_PASS` ending. */
function isSecretName(key: string): boolean {
  return isSecretKey(key) || /(?:^|[_.-])(?:KEY|DSN|PASS|PWD|SALT|CREDENTIALS?)$/i.test(key);
}

/** A value without its quotes, or without a trailing ` # comment` when unquoted. */
function unquoted(value: string): string {
  const quoted = /^(["'`])(.*)\1\s*(?:#.*)?$/.exec(value);
  if (quoted !== null) return quoted[2] ?? "";
  return value.replace(/\s+#.*$/, "").trim();
}

/** The file's text when it is small and not binary, else null. */
function readSmallText(path: string): string | null {
  try {
    if (Deno.statSync(path).size > MAX_SENSITIVE_FILE_BYTES) return null;
    const bytes = Deno.readFileSync(path);
    if (bytes.length > MAX_SENSITIVE_FILE_BYTES || bytes.includes(0)) return null;
    return new TextDecoder().decode(bytes);
  } catch {
    return null;
  }
}

/** The roots, without those inside another. */
function outermost(roots: readonly string[]): string[] {
  const unique = [...new Set(roots)];
  return unique.filter((root) => !unique.some((other) => other !== root && isWithin(root, other)));
}

function isWithin(path: string, folder: string): boolean {
  const relative = nodePath.relative(folder, path);
  return relative === "" || (!relative.startsWith("..") && !nodePath.isAbsolute(relative));
}
