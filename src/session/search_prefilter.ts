/**
 * The ripgrep fast path of `fs.grep_files` as a session sets it up: ripgrep found on PATH outside
 * every write root, started through `setsid` with a cleared environment, under bubblewrap (the
 * searched folder bound read-only, no network) when bubblewrap works. Found lazily, on the first
 * folder search, so a run that never searches pays nothing.
 *
 * @module
 */

import type { LoadedConfig } from "../config/mod.ts";
import {
  AllowlistError,
  hostSystemMounts,
  probeBubblewrap,
  readOnlyFolderPlan,
  resolveAllowlist,
} from "../exec/mod.ts";
import type { IsolationPlan } from "../exec/mod.ts";
import { isWithin, type PathGuard } from "../sandbox/mod.ts";
import { type RipgrepLaunch, RipgrepPrefilter } from "../toolsets/fs/mod.ts";
import { type CommandSetup, findBubblewrap, programFolders } from "./command_setup.ts";
import { environmentReader } from "./environment.ts";
import type { SessionOptions } from "./session_options.ts";

/**
 * The session's search prefilter. Without `rg` on PATH (PATH folders inside a write root, where a
 * tool could have planted one, are passed over), every search is the built-in searcher's. The
 * confinement follows `sandbox.command_isolation`: `none` runs ripgrep in its own process group
 * only; `auto` uses bubblewrap when it works, else the same as `none` (ripgrep is a fixed program
 * with fixed flags whose output only removes files from a search); `bwrap` without a working
 * bubblewrap turns the fast path off.
 *
 * @example
 * ```ts ignore
 * const prefilter = searchPrefilter(config, prepared.guard, prepared.commands, options);
 * ```
 */
export function searchPrefilter(
  config: LoadedConfig,
  guard: PathGuard,
  commands: CommandSetup | null,
  options: SessionOptions,
): RipgrepPrefilter {
  const launch = () => findRipgrep(config, guard, commands, options);
  return new RipgrepPrefilter(launch, config.limits.search_time_budget_ms);
}

async function findRipgrep(
  config: LoadedConfig,
  guard: PathGuard,
  commands: CommandSetup | null,
  options: SessionOptions,
): Promise<RipgrepLaunch | null> {
  const read = environmentReader(options.env);
  const searchPath = read("PATH") ?? "/usr/local/bin:/usr/bin:/bin";
  const forbiddenRoots = guard.allWriteRoots;
  const find = async (name: string, path: string): Promise<string | null> => {
    try {
      return (await resolveAllowlist([name], { searchPath: path, forbiddenRoots }))[0]?.path ??
        null;
    } catch (error) {
      if (error instanceof AllowlistError) return null;
      throw error;
    }
  };
  // A PATH folder inside a write root is passed over (a tool could have planted an `rg` there),
  // so that the `rg` installed further on is found; `resolveAllowlist` refuses links into one.
  const outsideRoots = searchPath.split(":").filter((folder) => {
    try {
      const real = Deno.realPathSync(folder);
      return !forbiddenRoots.some((root) => isWithin(real, root));
    } catch {
      return false;
    }
  }).join(":");
  const ripgrepPath = outsideRoots === "" ? null : await find("rg", outsideRoots);
  if (ripgrepPath === null) return null;
  const setsidPath = commands?.setsidPath ?? await find("setsid", `${searchPath}:/usr/bin:/bin`);
  const killPath = commands?.killPath ?? await find("kill", `${searchPath}:/usr/bin:/bin`);
  if (setsidPath === null || killPath === null) return null;
  const none: IsolationPlan = { mode: "none" };
  const base = { ripgrepPath, setsidPath, killPath };
  const configured = config.sandbox.command_isolation;
  if (configured === "none") return { ...base, isolation: () => none };
  let bwrapPath: string | null = null;
  if (commands !== null && commands.isolation.effective === "bwrap") {
    bwrapPath = commands.bwrapPath;
  } else {
    const probe = await findBubblewrap(
      searchPath,
      forbiddenRoots,
      options.probeBubblewrap ?? probeBubblewrap,
    );
    if (probe.usable) bwrapPath = probe.path;
  }
  if (bwrapPath === null) {
    return configured === "bwrap" ? null : { ...base, isolation: () => none };
  }
  const system = commands?.systemMounts.length ? commands.systemMounts : hostSystemMounts();
  const folders = programFolders([ripgrepPath], read("HOME") ?? null);
  const bwrap = bwrapPath;
  return {
    ...base,
    isolation: (root) =>
      readOnlyFolderPlan({ bwrapPath: bwrap, system, readablePaths: [root, ...folders] }),
  };
}
