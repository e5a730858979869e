/**
 * `.gitignore` and `.ignore` rules for walks, as ripgrep and git read them: each folder's files
 * apply to the entries below it, a deeper file's rules come after (a `!pattern` there re-includes),
 * and a folder that is ignored is not entered (so nothing below it can be re-included). Matching is
 * the `ignore` package's (git's rules: anchors, `**`, trailing `/`, negation, escapes).
 *
 * Rules are read from the folders between the rule root (the workspace) and each entry; rules
 * above the workspace, `.git/info/exclude` and the user's global excludes file are not read.
 *
 * @module
 */

import * as nodePath from "node:path";
import ignore, { type Ignore } from "ignore";

/** The rule files read in each folder, in order (a later file's rules win, as in ripgrep). */
export const IGNORE_FILE_NAMES: readonly string[] = [".gitignore", ".ignore"];

/** Largest rule file read, in bytes; a larger one is passed over (as if absent). */
export const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

/** Reads a rule file: its text, or null when it is missing, not a regular file or too large. */
export type ReadIgnoreFile = (path: string) => string | null;

/**
 * Reads a rule file without following a symlink: only a regular file with one link, of at most
 * {@linkcode MAX_IGNORE_FILE_BYTES}, counts. A symlinked or hard-linked `.gitignore` cannot make the
 * walk read a file elsewhere, whose lines would otherwise become patterns the model could probe by
 * naming files (as the searches skip hard-linked files).
 */
export function readIgnoreFile(path: string): string | null {
  try {
    const info = Deno.lstatSync(path);
    if (!info.isFile || info.size > MAX_IGNORE_FILE_BYTES) return null;
    if ((info.nlink ?? 1) > 1) return null;
    return Deno.readTextFileSync(path);
  } catch {
    return null;
  }
}

/**
 * The ignore rules below one root folder, read lazily folder by folder and kept for the walk.
 *
 * @example
 * ```ts
 * import { IgnoreRules } from "./ignore_rules.ts";
 * const files: Record<string, string> = { "/w/.gitignore": "node_modules/\n*.log\n" };
 * const rules = new IgnoreRules("/w", (path) => files[path] ?? null);
 * console.assert(rules.ignores("/w/node_modules", true));
 * console.assert(rules.ignores("/w/src/debug.log", false));
 * console.assert(!rules.ignores("/w/src/main.ts", false));
 * ```
 */
export class IgnoreRules {
  readonly #root: string;
  readonly #read: ReadIgnoreFile;
  readonly #byFolder = new Map<string, Ignore | null>();

  /**
   * @param root Absolute, real folder whose rule files (and those of its sub-folders) apply.
   * @param read Reads a rule file (default {@linkcode readIgnoreFile}).
   */
  constructor(root: string, read: ReadIgnoreFile = readIgnoreFile) {
    this.#root = nodePath.resolve(root);
    this.#read = read;
  }

  /**
   * Tells whether the entry at `path` (absolute, real folder) is ignored by the rule files of the
   * folders from the root down to its own folder. Entries outside the root are never ignored.
   */
  ignores(path: string, isDirectory: boolean): boolean {
    const folders = this.#foldersAbove(path);
    if (folders === null) return false;
    let ignored = false;
    for (const folder of folders) {
      const rules = this.#rulesOf(folder);
      if (rules === null) continue;
      const relative = nodePath.relative(folder, path).split(nodePath.sep).join("/");
      const verdict = rules.test(isDirectory ? `${relative}/` : relative);
      if (verdict.ignored) ignored = true;
      else if (verdict.unignored) ignored = false;
    }
    return ignored;
  }

  /** The folders from the root down to `path`'s folder, or null when `path` is not below the root. */
  #foldersAbove(path: string): string[] | null {
    const relative = nodePath.relative(this.#root, nodePath.dirname(path));
    if (relative.startsWith("..") || nodePath.isAbsolute(relative)) return null;
    const folders = [this.#root];
    if (relative === "") return folders;
    let folder = this.#root;
    for (const name of relative.split(nodePath.sep)) {
      folder = nodePath.join(folder, name);
      folders.push(folder);
    }
    return folders;
  }

  #rulesOf(folder: string): Ignore | null {
    const known = this.#byFolder.get(folder);
    if (known !== undefined) return known;
    let rules: Ignore | null = null;
    for (const name of IGNORE_FILE_NAMES) {
      const text = this.#read(nodePath.join(folder, name));
      if (text === null) continue;
      rules ??= ignore({ allowRelativePaths: true });
      rules.add(text);
    }
    this.#byFolder.set(folder, rules);
    return rules;
  }
}
