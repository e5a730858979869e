/**
 * git safe mode's repository check, remembered: the verdict on a repository's own config (which
 * keys name a program) is kept for the Worker's life, keyed by the command's folder and the
 * identity of the config files that decide it. Under bubblewrap no process of the run can write
 * `.git/config` or `.git/config.worktree` (read-only for commands, hooks and MCP servers alike,
 * also with `tools.git_write`; protected for the file tools), so the verdict holds until the files
 * change on the host, which changes their identity (device, inode, size, modification time) and so
 * the key. Under isolation `none` nothing is remembered: a command could rewrite the file.
 *
 * @module
 */

import * as nodePath from "node:path";
import { runConfined, unsafeGitConfigKeys } from "../../exec/mod.ts";
import type { CommandScope } from "../../policy/mod.ts";
import { failure, type ToolOutcome } from "../../result/mod.ts";

/** Most verdicts kept; the oldest goes first. */
const MAX_VERDICTS = 256;

const verdicts = new Map<string, string[]>();

/**
 * The key of the config that decides `git config --local` in `folder`: the nearest `.git` folder
 * above it and the identity of its `config` and `config.worktree`; null when it cannot be told
 * (no repository, a `.git` file naming another folder, an unreadable entry): then the check runs.
 *
 * @param folder An absolute, real path (the command's folder).
 * @example
 * ```ts
 * import { configKey } from "./_git_config_verdicts.ts";
 * const folder = await Deno.makeTempDir();
 * console.assert(configKey(folder) === null);
 * await Deno.mkdir(`${folder}/.git`);
 * await Deno.writeTextFile(`${folder}/.git/config`, "[core]\n");
 * const before = configKey(folder);
 * await Deno.writeTextFile(`${folder}/.git/config`, "[core]\n\tpager = less\n");
 * console.assert(before !== null && configKey(folder) !== before);
 * await Deno.remove(folder, { recursive: true });
 * ```
 */
export function configKey(folder: string): string | null {
  for (let current = folder;;) {
    const gitPath = nodePath.join(current, ".git");
    let info: Deno.FileInfo | null = null;
    try {
      info = Deno.lstatSync(gitPath);
    } catch (error: unknown) {
      if (!(error instanceof Deno.errors.NotFound)) return null;
    }
    if (info !== null) {
      if (!info.isDirectory) return null; // A worktree or a symlink: not remembered.
      const parts = [folder, gitPath];
      for (const name of ["config", "config.worktree"]) {
        try {
          const file = Deno.lstatSync(nodePath.join(gitPath, name));
          if (!file.isFile) return null;
          parts.push(`${name}:${file.dev}:${file.ino}:${file.size}:${file.mtime?.getTime()}`);
        } catch (error: unknown) {
          if (!(error instanceof Deno.errors.NotFound)) return null;
          parts.push(`${name}:none`);
        }
      }
      return parts.join("\0");
    }
    const parent = nodePath.dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}

/** The unsafe keys remembered for `key`, or undefined when none is. */
function rememberedVerdict(key: string): string[] | undefined {
  return verdicts.get(key);
}

/** Remembers the unsafe keys found for `key` (an empty list: the config is safe). */
function rememberVerdict(key: string, unsafe: string[]): void {
  if (verdicts.size >= MAX_VERDICTS) {
    const oldest = verdicts.keys().next().value;
    if (oldest !== undefined) verdicts.delete(oldest);
  }
  verdicts.set(key, unsafe);
}

/**
 * git safe mode's last check: the repository's own config (with its includes) must not name a
 * program git would run. Reading it runs `git config --local --list -z`, which runs nothing else;
 * with `remember` (bubblewrap: no process of the run writes a repository's config) the verdict is
 * kept for the same config files, saving a second sandbox a call.
 *
 * @returns a `permission_denied` outcome naming the keys, or null (also outside a repository).
 */
export async function refuseUnsafeRepository(
  command: CommandScope,
  base: Omit<
    Parameters<typeof runConfined>[0],
    "program" | "args" | "timeoutMs" | "stdoutLimitBytes" | "stderrLimitBytes"
  >,
  remember: boolean,
): Promise<ToolOutcome | null> {
  const key = remember ? configKey(command.cwd.real) : null;
  let unsafe = key === null ? undefined : rememberedVerdict(key);
  if (unsafe === undefined) {
    const listing = await runConfined({
      ...base,
      artifact: null,
      program: command.path,
      args: ["config", "--local", "--includes", "--list", "-z"],
      timeoutMs: 10_000,
      stdoutLimitBytes: 1_048_576,
      stderrLimitBytes: 4096,
    });
    if (listing.exit_code !== 0 || listing.stdout.truncated) return null;
    unsafe = unsafeGitConfigKeys(listing.stdout.text);
    if (key !== null) rememberVerdict(key, unsafe);
  }
  if (unsafe.length === 0) return null;
  return failure(
    "permission_denied",
    `Cannot run git in "${command.cwd.display}": the repository's config names programs git would ` +
      `run (${unsafe.join(", ")}); remove them, or set "tools.git_safe_mode": false to trust it`,
    { rule: "runtime:git-safe-mode", layer: "runtime", keys: unsafe },
  );
}
