/**
 * How a stdio MCP server is confined: under bubblewrap the same mount profile as commands
 * (`commandProfile`): the system folders and the program's own folders read-only, the workspace
 * and write roots read-only unless the server's `write` is true (protected paths stay read-only
 * then, sensitive files are masked either way), no network unless its `network` is true, a
 * run-private HOME and TMPDIR. `npx` and `npm` also get the host's npm cache (`~/.npm`) read-write,
 * named by `npm_config_cache`, so a package fetched once is not fetched again. Under isolation
 * `none` the server runs unconfined, as the user.
 *
 * @module
 */

import * as nodePath from "node:path";
import { ConfigError, type LoadedMcpStdioServer } from "../config/mod.ts";
import { buildBwrapArgs, commandProfile, type SystemMount } from "../exec/mod.ts";

/** The paths and folders of a run a confined server's profile is built from (plain data). */
export interface McpBwrapConfinement {
  mode: "bwrap";
  /** Absolute path of `bwrap`. */
  bwrapPath: string;
  system: readonly SystemMount[];
  /** The workspace and the write roots (the run's workspace/ and deliverables/ included). */
  writeRoots: readonly string[];
  readRoots: readonly string[];
  /** Paths never written (runs folder, config…): read-only inside writable roots. */
  protectedPaths: readonly string[];
  writableExceptions: readonly string[];
  /** Folders a profile scan never enters. */
  scanExclusions: readonly string[];
  /** Run-private HOME and TMPDIR (created when missing), bound read-write. */
  home: string;
  tmpDir: string;
  /** The host user's home folder (for `~/.npm`), or null. */
  hostHome: string | null;
  /** Tells whether a path is sensitive (masked inside). */
  sensitiveMatch: (path: string) => string | null;
  /** The folders to bind read-only so that programs at these real paths run (`programFolders`). */
  programFolders: (programPaths: string[]) => string[];
  /**
   * `RLIMIT_NPROC` inside the sandbox (`prlimit --nproc=max`, as commands get `tools.max_processes`),
   * or null when `prlimit` is missing. Linux does not enforce it for root.
   */
  processLimit: { prlimitPath: string; max: number } | null;
}

/** How MCP servers are confined: bubblewrap, or not at all (`reason` says why). */
export type McpConfinement =
  | McpBwrapConfinement
  /** `sandbox.command_isolation: "none"`, chosen explicitly: servers run unconfined, as the user. */
  | { mode: "none"; reason: string }
  /** `auto` without a working bubblewrap: servers are not started, like command tools. */
  | { mode: "off"; reason: string };

/** The program `setsid` starts, its arguments and its environment. */
export interface McpLaunch {
  program: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * The launch of one server: unchanged under `none`; under bubblewrap `bwrap <profile> -- <program>
 * <args>` with HOME and TMPDIR run-private.
 *
 * @throws {ConfigError} `mcp_server_failed` when the program is not found in the server's PATH or
 *   the roots hold more entries than a profile scan may look at.
 * @example
 * ```ts ignore
 * const launch = await mcpLaunch("files", server, { PATH: "/usr/bin:/bin" }, confinement, path);
 * ```
 */
export async function mcpLaunch(
  id: string,
  server: LoadedMcpStdioServer,
  env: Record<string, string>,
  confinement: McpConfinement,
  configPath: string,
): Promise<McpLaunch> {
  const fail = (reason: string) =>
    new ConfigError({
      code: "mcp_server_failed",
      file: configPath,
      key: `mcp_servers.${id}`,
      message: `Cannot start MCP server "${id}" ("${server.command}"): ${reason}`,
    });
  if (confinement.mode === "off") {
    throw fail(
      `it cannot be confined here, as command tools cannot (${confinement.reason}); set ` +
        `"required": false to run without it, or "sandbox.command_isolation": "none" to run MCP ` +
        `servers unconfined`,
    );
  }
  if (confinement.mode === "none") {
    return { program: server.command, args: [...server.args], env };
  }
  const found = await findProgram(server.command, env.PATH ?? "");
  if (found === null) {
    throw fail(`"${server.command}" was not found in the server's PATH "${env.PATH ?? ""}"`);
  }
  const real = await Deno.realPath(found);
  await Deno.mkdir(confinement.home, { recursive: true });
  await Deno.mkdir(confinement.tmpDir, { recursive: true });
  const roots = [...confinement.writeRoots];
  const profile = commandProfile({
    bwrapPath: confinement.bwrapPath,
    system: confinement.system,
    writeRoots: server.write ? roots : [],
    readRoots: server.write ? confinement.readRoots : [...roots, ...confinement.readRoots],
    protectedPaths: confinement.protectedPaths,
    writableExceptions: confinement.writableExceptions,
    programFolders: confinement.programFolders([found, real]),
    skillDirs: [],
    home: confinement.home,
    tmpDir: confinement.tmpDir,
    sensitiveMatch: confinement.sensitiveMatch,
    unmasked: [],
    gitWrite: false,
    network: server.network,
    processLimit: confinement.processLimit,
    scanExclusions: confinement.scanExclusions,
  });
  if (!profile.ok) throw fail(profile.reason);
  const launchEnv: Record<string, string> = {
    ...env,
    HOME: confinement.home,
    TMPDIR: confinement.tmpDir,
  };
  const program = nodePath.basename(server.command);
  if ((program === "npx" || program === "npm") && confinement.hostHome !== null) {
    // Bound after the profile is built: the cache is not scanned (it holds many files).
    await Deno.mkdir(nodePath.join(confinement.hostHome, ".npm"), { recursive: true });
    const cache = await Deno.realPath(nodePath.join(confinement.hostHome, ".npm"));
    profile.plan.writablePaths.push(cache);
    launchEnv.npm_config_cache = cache;
  }
  const args = buildBwrapArgs(profile.plan, { cwd: server.cwd, program: found, args: server.args });
  return { program: confinement.bwrapPath, args, env: launchEnv };
}

/** The program's path: itself when it holds a `/`, else the first executable file in `searchPath`. */
async function findProgram(command: string, searchPath: string): Promise<string | null> {
  const candidates = command.includes("/")
    ? [command]
    : searchPath.split(":").filter((folder) => nodePath.isAbsolute(folder)).map((folder) =>
      nodePath.join(folder, command)
    );
  for (const candidate of candidates) {
    try {
      const info = await Deno.stat(candidate);
      if (info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) return candidate;
    } catch {
      // Not here: try the next folder.
    }
  }
  return null;
}
