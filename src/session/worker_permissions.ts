/**
 * The Deno permissions of a session's tool Worker: the guard's roots, plus what command tools,
 * skills and memory need.
 *
 * @module
 */

import * as nodePath from "node:path";
import { domainFolders, runViewsFolder } from "../exec/mod.ts";
import type { CommandSetup } from "./command_setup.ts";
import type { MemorySettings } from "../memory/mod.ts";
import type { PathGuard } from "../sandbox/mod.ts";
import { computeWorkerPermissions, type WorkerPermissions } from "../worker/mod.ts";
import type { SessionRun } from "./session_run.ts";

/**
 * The Worker's permissions. `auto` without a working bubblewrap turns command tools off: then the
 * Worker gets no run permission.
 *
 * @param run The run folder, or null without one (no folder of a run is writable then).
 * @example
 * ```ts ignore
 * const permissions = sessionWorkerPermissions(guard, commands, skillDirs, memory, run);
 * ```
 */
export function sessionWorkerPermissions(
  guard: PathGuard,
  commands: CommandSetup | null,
  skillDirs: string[],
  memory: MemorySettings | null,
  run: SessionRun | null,
): WorkerPermissions {
  const commandsOn = commands !== null && commands.isolation.effective !== "off";
  return computeWorkerPermissions(
    guard,
    !commandsOn ? null : {
      run: [
        ...commands.programs.map((program) => program.path),
        ...commands.interpreters.map((program) => program.path),
        commands.setsidPath,
        commands.killPath,
        ...(commands.bwrapPath === null ? [] : [commands.bwrapPath]),
        ...(commands.prlimitPath === null || commands.bwrapPath === null
          ? []
          : [commands.prlimitPath]),
      ],
      env: commands.environmentNames,
      read: skillDirs,
      write: run === null ? [] : [
        run.artifacts,
        // The commands' confinement domain, never another's (hooks', MCP servers').
        domainFolders(run.dir, { kind: "commands" }).home,
        domainFolders(run.dir, { kind: "commands" }).tmpDir,
        // Protected paths a command created (a planted .git) are moved here.
        nodePath.join(run.dir, "quarantine"),
        // The write roots' watch: its sentinel files, and the scrubbed .git/config copies.
        runViewsFolder(run.dir),
      ],
    },
    skillDirs,
    memoryPermissions(memory),
  );
}

/**
 * What memory adds to the Worker's permissions: its folder and the run's archive (file), or the
 * archive and the token's name (http; the service itself is reached through the main thread, never
 * from the Worker).
 */
function memoryPermissions(memory: MemorySettings | null): { folders: string[]; env: string[] } {
  if (memory === null) return { folders: [], env: [] };
  // Without a run folder or a memory folder there is nothing of memory's to read or write.
  const archive = memory.candidates_file === null ? [] : [nodePath.dirname(memory.candidates_file)];
  if (memory.provider.kind === "file") {
    return { folders: [...(memory.folder === null ? [] : [memory.folder]), ...archive], env: [] };
  }
  return {
    folders: archive,
    env: memory.provider.token_env === undefined ? [] : [memory.provider.token_env],
  };
}
