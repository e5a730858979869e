/**
 * A repository's `.git/config` as the agent sees it: without the credentials a CI checkout leaves
 * there. `actions/checkout` persists the job's token as
 * `http.https://github.com/.extraheader = AUTHORIZATION: basic <base64 of x-access-token:ghs_…>`;
 * others write `https://user:token@host/` remote URLs or `[credential]` sections. Commands see
 * this view through a read-only copy bound over the file (`command_profile.ts`), and the file tools
 * (`fs.read_file`, `fs.grep_files`) present it instead of the file: one function, every caller.
 *
 * @module
 */

/** What {@linkcode scrubGitConfig} returns. */
export interface ScrubbedGitConfig {
  /** The config without credentials (the same text when there were none). */
  text: string;
  /** Lines dropped or rewritten; 0 when the text came back unchanged. */
  removed: number;
}

const SECTION = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$/;
const KEY = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(=|$)/;
/** `scheme://userinfo@` — the userinfo is dropped, the rest of the URL kept. */
const USERINFO = /([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^\s/@"]+@/g;

/**
 * Removes credentials from git config text: every `http.*.extraheader` (any URL, any case), every
 * `[credential …]` section, and userinfo in URLs (`https://user:token@host` → `https://host`, in
 * values and in section names such as `[url "https://x:y@host/"]`). Continuation lines (a value
 * ending in `\`) go with their key. Everything else is kept byte for byte.
 *
 * @param text The config file's content.
 * @returns the scrubbed text and how many lines changed
 * @example
 * ```ts
 * import { scrubGitConfig } from "./git_config_view.ts";
 * const config = '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic eC1hY2Nlc3M=\n' +
 *   '[remote "origin"]\n\turl = https://x-access-token:ghs_abc@github.com/o/r\n';
 * const { text, removed } = scrubGitConfig(config);
 * console.assert(removed === 2 && !text.includes("basic") && !text.includes("ghs_abc"));
 * console.assert(text.includes("url = https://github.com/o/r"));
 * ```
 */
export function scrubGitConfig(text: string): ScrubbedGitConfig {
  const lines = text.split(/(?<=\n)/);
  const kept: string[] = [];
  let removed = 0;
  let section = "";
  let dropping = false; // inside a dropped key's continuation lines
  let inCredential = false;
  for (const line of lines) {
    if (dropping) {
      removed++;
      dropping = continues(line);
      continue;
    }
    const header = SECTION.exec(line);
    if (header !== null) {
      section = (header[1] ?? "").toLowerCase();
      inCredential = section === "credential" || section.startsWith("credential.");
      if (inCredential) {
        removed++;
        continue;
      }
      const rest = header[3] ?? "";
      const stripped = line.replace(USERINFO, "$1");
      // A key on the header's line (`[http] extraheader = …`): drop the line, keep a bare header.
      if (rest !== "" && !rest.startsWith("#") && !rest.startsWith(";")) {
        const key = KEY.exec(rest)?.[1]?.toLowerCase();
        if (section.split(".")[0] === "http" && key === "extraheader") {
          removed++;
          kept.push(stripped.slice(0, stripped.indexOf("]") + 1) + "\n");
          dropping = continues(line);
          continue;
        }
      }
      if (stripped !== line) removed++;
      kept.push(stripped);
      continue;
    }
    if (inCredential) {
      removed++;
      continue;
    }
    const key = KEY.exec(line)?.[1]?.toLowerCase();
    if (key === "extraheader" && section.split(".")[0] === "http") {
      removed++;
      dropping = continues(line);
      continue;
    }
    const stripped = line.replace(USERINFO, "$1");
    if (stripped !== line) removed++;
    kept.push(stripped);
  }
  return { text: removed === 0 ? text : kept.join(""), removed };
}

/**
 * Tells whether a path is a repository's config file as git reads it: `<…>/.git/config`, or
 * `config` inside a folder named like a bare repository (`<name>.git/config`).
 */
export function isGitConfigPath(path: string): boolean {
  return /(^|\/)[^/]*\.git\/config$/.test(path) || /(^|\/)\.git\/config$/.test(path);
}

/**
 * A file's text as the file tools present it: a repository config (see {@linkcode isGitConfigPath})
 * scrubbed by {@linkcode scrubGitConfig}, any other text unchanged.
 *
 * @param path The file's path (absolute, or as displayed relative to the workspace).
 */
export function presentedText(path: string, text: string): string {
  return isGitConfigPath(path) ? scrubGitConfig(text).text : text;
}

function continues(line: string): boolean {
  return /\\\r?\n?$/.test(line.replace(/\r?\n$/, "")) || /\\$/.test(line.trimEnd());
}
