/**
 * The identity of a workspace's project, which keys the `project` memory scope: two workspaces of
 * the same project (two checkouts of one repository, at any path, on any machine) share their
 * project memories; two different projects never do.
 *
 * In order of preference:
 *
 * 1. `config`: the config's `memory.project_id`, as written (pins the identity, e.g. for a
 *    repository without a remote, or to share memories between forks);
 * 2. `git_origin`: the URL of the `origin` remote of the git repository holding the workspace,
 *    normalised (no credentials, scheme, user, port or `.git` suffix; host lower-case), so that
 *    `git@github.com:acme/api.git` and `https://token@github.com/acme/api` are one project;
 * 3. `git_root`: the real path of the repository's top folder (a repository without `origin`);
 * 4. `workspace`: the workspace's real path (no repository).
 *
 * The repository is found by walking up from the workspace to the first folder holding `.git` (a
 * folder, or a file `gitdir: …` for worktrees and submodules); `origin` is read from its config
 * file (`commondir` followed), never by running git. Include files and `insteadOf` rewrites are not
 * followed.
 *
 * @module
 */

import { sha256Hex } from "../audit/mod.ts";
import * as nodePath from "node:path";

/** Where a project identity came from; see the module documentation. */
export type ProjectIdentitySource = "config" | "git_origin" | "git_root" | "workspace";

/** A workspace's project identity. */
export interface ProjectIdentity {
  /** See {@linkcode ProjectIdentitySource}. */
  source: ProjectIdentitySource;
  /** The configured id, the normalised origin URL, or a real path. */
  value: string;
  /**
   * The memory key: the first 32 lower-case hex digits of the sha256 of `<kind>:<value>` (kind
   * `id` for a configured id, `git` for an origin, `path` for a folder). A file name: the file
   * store keeps the scope in `projects/<key>.jsonl`.
   */
  key: string;
}

/**
 * Finds the project identity of a workspace.
 *
 * @param workspace The workspace's real path.
 * @param configuredId The config's `memory.project_id`, or null.
 * @returns The identity; never throws (an unreadable repository falls back to the next source).
 * @example
 * ```ts
 * import { projectIdentity } from "./project_identity.ts";
 * const identity = await projectIdentity("/nonexistent/workspace", "acme-api");
 * console.assert(identity.source === "config" && identity.key.length === 32);
 * ```
 */
export async function projectIdentity(
  workspace: string,
  configuredId: string | null,
): Promise<ProjectIdentity> {
  if (configuredId !== null) return identity("config", "id", configuredId);
  const repository = await findRepository(workspace);
  if (repository === null) return identity("workspace", "path", workspace);
  const origin = await readOrigin(repository.configFile);
  const normalised = origin === null ? null : normaliseRemoteUrl(origin);
  if (normalised !== null) return identity("git_origin", "git", normalised);
  return identity("git_root", "path", repository.root);
}

/**
 * A remote URL without what differs between checkouts of one repository: the scheme, user and
 * password, port, a trailing `/` and `.git`; the host in lower case. A local path becomes
 * `file:<path>`. @returns null for an empty URL.
 *
 * @example
 * ```ts
 * import { normaliseRemoteUrl } from "./project_identity.ts";
 * console.assert(normaliseRemoteUrl("git@GitHub.com:acme/api.git") === "github.com/acme/api");
 * console.assert(
 *   normaliseRemoteUrl("https://x-access-token:abc@github.com/acme/api/") === "github.com/acme/api",
 * );
 * ```
 */
export function normaliseRemoteUrl(url: string): string | null {
  const text = url.trim();
  if (text === "") return null;
  const strip = (path: string) =>
    path.replace(/\/+$/, "").replace(/\.git$/, "").replace(/^\/+/, "");
  // scp-like: [user@]host:path (no scheme, no slash before the colon).
  const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/\/)(.+)$/.exec(text);
  if (scp !== null && !/^[A-Za-z]:[\\/]/.test(text)) {
    return `${(scp[1] ?? "").toLowerCase()}/${strip(scp[2] ?? "")}`;
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(text)) {
    try {
      const parsed = new URL(text);
      if (parsed.protocol === "file:") return `file:${strip(decodeURIComponent(parsed.pathname))}`;
      return `${parsed.hostname.toLowerCase()}/${strip(decodeURIComponent(parsed.pathname))}`;
    } catch {
      return text;
    }
  }
  return `file:${strip(text)}`;
}

function identity(source: ProjectIdentitySource, kind: string, value: string): ProjectIdentity {
  const key = sha256Hex(`${kind}:${value}`).slice(0, 32);
  return { source, value, key };
}

/** The repository holding `start`: its top folder and its (common) config file. */
async function findRepository(
  start: string,
): Promise<{ root: string; configFile: string } | null> {
  let folder = start;
  while (true) {
    const dotGit = nodePath.join(folder, ".git");
    // Followed like git follows it: a `.git` link to a repository folder is that repository.
    const info = await Deno.stat(dotGit).catch(() => null);
    if (info !== null && (info.isDirectory || info.isFile)) {
      const gitDir = info.isDirectory ? dotGit : await readGitFile(dotGit, folder);
      if (gitDir !== null) {
        const common = await Deno.readTextFile(nodePath.join(gitDir, "commondir"))
          .then((text) => nodePath.resolve(gitDir, text.trim()))
          .catch(() => gitDir);
        return { root: folder, configFile: nodePath.join(common, "config") };
      }
    }
    const parent = nodePath.dirname(folder);
    if (parent === folder) return null;
    folder = parent;
  }
}

/** The folder a `.git` file names (`gitdir: <path>`, relative to the file's folder). */
async function readGitFile(path: string, folder: string): Promise<string | null> {
  const text = await Deno.readTextFile(path).catch(() => "");
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(text);
  return match === null ? null : nodePath.resolve(folder, match[1] ?? "");
}

/** `remote.origin.url` of a git config file, or null. */
async function readOrigin(configFile: string): Promise<string | null> {
  const text = await Deno.readTextFile(configFile).catch(() => null);
  if (text === null) return null;
  let inOrigin = false;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    const section = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (section !== null) {
      inOrigin = (section[1] ?? "").toLowerCase() === "remote" && section[2] === "origin";
      continue;
    }
    if (!inOrigin) continue;
    const entry = /^url\s*=\s*(.*)$/i.exec(line);
    if (entry !== null) return configValue(entry[1] ?? "");
  }
  return null;
}

/** A git config value: quotes removed, a comment (`;`, `#` outside quotes) dropped. */
function configValue(raw: string): string {
  let value = "";
  let quoted = false;
  for (let index = 0; index < raw.length; index++) {
    const character = raw[index] as string;
    if (character === "\\" && index + 1 < raw.length) {
      value += raw[++index];
    } else if (character === '"') {
      quoted = !quoted;
    } else if (!quoted && (character === ";" || character === "#")) {
      break;
    } else {
      value += character;
    }
  }
  return value.trim();
}
