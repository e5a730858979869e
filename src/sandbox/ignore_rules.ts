/**
 * `.gitignore` and `.ignore` rules for walks, as ripgrep and git read them: each folder's files
 * apply to the entries below it, a deeper file's rules come after (a `!pattern` there re-includes),
 * and a folder that is ignored is not entered (so nothing below it can be re-included). Matching is
 * the `ignore` package's (git's rules: anchors, `**`, trailing `/`, negation, escapes).
 *
 * Rules are read from the folders between the rule root (the workspace) and each entry, and the
 * root's `.git/info/exclude` (the repository's local excludes, before its rule files); rules above
 * the workspace and the user's global excludes file (`core.excludesFile`, a setting of one person's
 * machine, not of the repository) are not read.
 *
 * @module
 */

import * as nodePath from "node:path";
import ignore, { type Ignore } from "ignore";

/** The rule files read in each folder, in order (a later file's rules win, as in ripgrep). */
export const IGNORE_FILE_NAMES: readonly string[] = [".gitignore", ".ignore"];

/**
 * The repository's local excludes (`git help gitignore`: "$GIT_DIR/info/exclude"), read at the
 * rule root when the root holds its `.git` folder, before the root's own rule files.
 */
export const LOCAL_EXCLUDE_FILE = ".git/info/exclude";

/** Largest rule file read, in bytes; a larger one is passed over (as if absent). */
export const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

/** Reads a rule file: its text, or null when it is missing, not a regular file or too large. */
export type ReadIgnoreFile = (path: string) => string | null;

/**
 * Reads a rule file without following a symlink: only a regular file with one link, of at most
 * {@linkcode MAX_IGNORE_FILE_BYTES}, reached through no symlinked folder, counts. A symlinked or hard-linked `.gitignore` cannot make the
 * walk read a file elsewhere, whose lines would otherwise become patterns the model could probe by
 * naming files (as the searches skip hard-linked files).
 */
export function readIgnoreFile(path: string): string | null {
  try {
    const info = Deno.lstatSync(path);
    if (!info.isFile || info.size > MAX_IGNORE_FILE_BYTES) return null;
    if ((info.nlink ?? 1) > 1) return null;
    // Nor through a symlinked folder on the way (a `.git` that is a link to elsewhere).
    if (Deno.realPathSync(path) !== nodePath.resolve(path)) return null;
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
    // At the root, the repository's own excludes first: a `.gitignore` or `.ignore` rule after
    // them wins, as in git and ripgrep.
    const names = folder === this.#root
      ? [LOCAL_EXCLUDE_FILE, ...IGNORE_FILE_NAMES]
      : IGNORE_FILE_NAMES;
    for (const name of names) {
      const text = this.#read(nodePath.join(folder, name));
      if (text === null) continue;
      rules ??= ignore({ allowRelativePaths: true });
      rules.add(text);
    }
    this.#byFolder.set(folder, rules);
    return rules;
  }
}
