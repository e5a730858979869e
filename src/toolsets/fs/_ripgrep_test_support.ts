/**
 * Test support for the ripgrep fast path of `fs.grep_files`: programs found on PATH, prefilters
 * over a real or a fake `rg`, and a search through both engines. Private to the folder.
 *
 * @module
 */

import * as nodePath from "node:path";
import type { IsolationPlan } from "../../exec/mod.ts";
import { hostSystemMounts, probeBubblewrap } from "../../exec/mod.ts";
import type { ToolOutcome } from "../../result/mod.ts";
import { callTool } from "../../testing/call_tool.ts";
import type { ToolContext } from "../../tools/mod.ts";
import { type GrepFilesData, grepFilesTool } from "./grep_files.ts";
import { RipgrepPrefilter } from "./ripgrep_prefilter.ts";

/** The real path of `name` on PATH (or in /usr/bin, /bin), or null. */
export function programPath(name: string): string | null {
  const folders = [...(Deno.env.get("PATH") ?? "").split(":"), "/usr/bin", "/bin"];
  for (const folder of folders) {
    if (!nodePath.isAbsolute(folder)) continue;
    try {
      const path = Deno.realPathSync(nodePath.join(folder, name));
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // Not here.
    }
  }
  return null;
}

/** The real `rg`, or null when it is not installed. */
export const RIPGREP = programPath("rg");
const SETSID = programPath("setsid");
const KILL = programPath("kill");
const BWRAP = programPath("bwrap");

/** Tells whether bubblewrap can confine a command here. */
export const BWRAP_WORKS = BWRAP !== null && (await probeBubblewrap(BWRAP)).usable;

/**
 * A prefilter over `ripgrepPath` (the real `rg` by default), confined by bubblewrap (the folder
 * read-only, plus `extraReadable`) or by nothing but its process group.
 */
export function testPrefilter(
  options: {
    ripgrepPath?: string;
    isolation?: "bwrap" | "none";
    timeBudgetMs?: number;
    extraReadable?: string[];
  } = {},
): RipgrepPrefilter {
  const ripgrepPath = options.ripgrepPath ?? RIPGREP;
  if (ripgrepPath === null || SETSID === null || KILL === null) {
    throw new Error("Cannot test ripgrep here: rg, setsid or kill is missing");
  }
  const isolation = (root: string): IsolationPlan =>
    options.isolation === "bwrap" && BWRAP !== null
      ? {
        mode: "bwrap",
        bwrapPath: BWRAP,
        system: hostSystemMounts(),
        writablePaths: [],
        readablePaths: [root, ...(options.extraReadable ?? [])],
        network: false,
      }
      : { mode: "none" };
  return new RipgrepPrefilter(
    () => Promise.resolve({ ripgrepPath, setsidPath: SETSID, killPath: KILL, isolation }),
    options.timeBudgetMs ?? 60_000,
  );
}

/** `fs.grep_files` with ripgrep's candidates (as the Worker gets them), or without any. */
export async function grepWith(
  prefilter: RipgrepPrefilter | null,
  args: {
    pattern: string;
    path?: string;
    glob?: string;
    limit?: number;
    case_sensitive?: boolean;
    include_ignored?: boolean;
  },
  context: ToolContext,
): Promise<{ outcome: ToolOutcome; data: GrepFilesData }> {
  const full = { path: ".", limit: 1000, ...args };
  const search = prefilter?.plan(full, context.guard) ?? null;
  const withCandidates = prefilter === null || search === null
    ? context
    : { ...context, search_candidates: prefilter.run(search, context.signal) };
  const outcome = await callTool(grepFilesTool, full, withCandidates);
  if (!outcome.ok) throw new Error(`fs.grep_files failed: ${outcome.summary}`);
  return { outcome, data: outcome.data as GrepFilesData };
}

/** Writes an executable shell script (a fake `rg`) at `path`. */
export async function writeScript(path: string, body: string): Promise<void> {
  await Deno.mkdir(nodePath.dirname(path), { recursive: true });
  await Deno.writeTextFile(path, `#!/bin/sh\n${body}\n`);
  await Deno.chmod(path, 0o755);
}

/** The command lines of every process that mentions `marker`, through `ps`. */
export async function processesWith(marker: string): Promise<string[]> {
  const ps = programPath("ps");
  if (ps === null) throw new Error("Cannot list processes: ps is missing");
  const result = await new Deno.Command(ps, { args: ["-eo", "args="], stdout: "piped" }).output();
  return new TextDecoder().decode(result.stdout).split("\n")
    .filter((line) => line.includes(marker) && !line.includes(" -eo args="));
}
