/**
 * How a stdio MCP server is confined, through the confinement module of `src/exec/`: each server
 * is its own confinement domain, with a private HOME and TMPDIR (`runs/<id>/domains/mcp-<id>/`)
 * that no other domain sees. Under bubblewrap the same mount profile as commands
 * (`confinementPlan`): the system folders and the program's own folders read-only, the workspace
 * and write roots read-only unless the server's `write` is true (protected paths stay read-only
 * then, sensitive files are masked either way), no network unless its `network` is true, the other
 * domains' folders hidden. `npx` and `npm` also get the host's npm cache (`~/.npm`) read-write,
 * named by `npm_config_cache`, so a package fetched once is not fetched again. Under isolation
 * `none` the server runs unconfined, as the user, with only its HOME and TMPDIR its own. Either
 * way the protected paths it could create are watched (`McpLaunch.watched`).
 *
 * @module
 */

import * as nodePath from "node:path";
import { ConfigError, type LoadedMcpStdioServer } from "../config/mod.ts";
import {
  buildChildEnvironment,
  CALL_MARKER_ENV,
  callMarker,
  confinementPlan,
  domainFolders,
  type IsolationPlan,
  type ProfileInputs,
  runViewsFolder,
  type SystemMount,
} from "../exec/mod.ts";

/**
 * What every confined server shares, bubblewrap or not: the roots and protected paths its watch
 * covers, and the run its domain folders and quarantine belong to.
 */
export interface McpRunConfinement {
  /** The workspace and the write roots (the run's workspace/ and deliverables/ included). */
  writeRoots: readonly string[];
  readRoots: readonly string[];
  /** Paths never written (runs folder, config…): read-only inside writable roots, else watched. */
  protectedPaths: readonly string[];
  writableExceptions: readonly string[];
  /** Folders a profile scan never enters. */
  scanExclusions: readonly string[];
  /** Tells whether a path is sensitive (masked inside). */
  sensitiveMatch: (path: string) => string | null;
  /**
   * The folder under which each server's domain (`domains/mcp-<id>/{home,tmp}`) lies: the run
   * folder, or a temporary folder without a run (removed after).
   */
  runDir: string;
  /** The run's id (each server's processes carry `KAGENT_RUN_CALL=<run id>/mcp-<id>`), or null. */
  runId: string | null;
  /** Where protected paths a server created are moved (`runs/<id>/quarantine`), or null. */
  quarantineDir: string | null;
  /** `sandbox.allow_nested_repositories`: a new `.git` below the top of a write root is kept. */
  allowNestedRepositories: boolean;
}

/** The paths and folders of a run a confined server's profile is built from (plain data). */
export interface McpBwrapConfinement extends McpRunConfinement {
  mode: "bwrap";
  /** Absolute path of `bwrap`. */
  bwrapPath: string;
  system: readonly SystemMount[];
  /** The host user's home folder (for `~/.npm`), or null. */
  hostHome: string | null;
  /** The folders to bind read-only so that programs at these real paths run (`programFolders`). */
  programFolders: (programPaths: string[]) => string[];
  /**
   * `RLIMIT_NPROC` inside the sandbox (`prlimit --nproc=max`, as commands get `tools.max_processes`),
   * or null when `prlimit` is missing. Linux does not enforce it for root.
   */
  processLimit: { prlimitPath: string; max: number } | null;
}

/** `sandbox.command_isolation: "none"`, chosen explicitly: servers run unconfined, as the user. */
export interface McpNoneConfinement extends McpRunConfinement {
  mode: "none";
  reason: string;
  /**
   * `ps`, which the run's close uses to sweep what a server left outside its process group (every
   * process carrying `KAGENT_RUN_CALL=<run id>/mcp-…`), or null (no sweep).
   */
  psPath: string | null;
}

/** How MCP servers are confined: bubblewrap, or not at all (`reason` says why). */
export type McpConfinement =
  | McpBwrapConfinement
  | McpNoneConfinement
  /** `auto` without a working bubblewrap: servers are not started, like command tools. */
  | { mode: "off"; reason: string };

/**
 * What the confinement module starts for one server: the program (setsid runs it), its arguments,
 * its whole environment (HOME and TMPDIR its own domain's), the isolation plan, and the protected
 * paths watched while it lives (checked with `quarantineCreated`).
 */
export interface McpLaunch {
  program: string;
  args: string[];
  env: Record<string, string>;
  isolation: IsolationPlan;
  /** Protected paths missing at start: one that appears was created by the server. */
  watched: string[];
}

/**
 * The launch of one server, in its own confinement domain (`runDir/domains/mcp-<id>/{home,tmp}`,
 * created here): under bubblewrap the domain's plan (`confinementPlan`: the commands' profile,
 * the workspace read-only unless `write`, the other domains hidden), under `none` the program as
 * configured, unconfined, with only HOME and TMPDIR its own. Either way the protected paths of the
 * roots it may write are watched.
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
  const domain = { kind: "mcp", server: id } as const;
  const folders = domainFolders(confinement.runDir, domain);
  await Deno.mkdir(folders.home, { recursive: true, mode: 0o700 });
  await Deno.mkdir(folders.tmpDir, { recursive: true, mode: 0o700 });
  // The module's one way to build a child's environment: HOME and TMPDIR always the domain's.
  const launchEnv = buildChildEnvironment({
    names: Object.keys(env),
    read: (name) => env[name],
    overrides: { HOME: folders.home, TMPDIR: folders.tmpDir },
    extra: confinement.runId === null
      ? {}
      : { [CALL_MARKER_ENV]: callMarker(confinement.runId, folders.name) },
  });
  const roots = [...confinement.writeRoots];
  const profile = (inputs: Pick<ProfileInputs, "bwrapPath" | "system" | "programFolders">) =>
    confinementPlan({
      domain,
      runDir: confinement.runDir,
      profile: {
        ...inputs,
        // Unconfined, a server can write every root: all of them are watched.
        writeRoots: server.write || confinement.mode === "none" ? roots : [],
        readRoots: server.write ? confinement.readRoots : [...roots, ...confinement.readRoots],
        protectedPaths: confinement.protectedPaths,
        writableExceptions: confinement.writableExceptions,
        skillDirs: [],
        home: folders.home,
        tmpDir: folders.tmpDir,
        sensitiveMatch: confinement.sensitiveMatch,
        unmasked: [],
        gitWrite: false,
        network: server.network,
        processLimit: confinement.mode === "bwrap" ? confinement.processLimit : null,
        scanExclusions: confinement.scanExclusions,
        // A repository config with credentials is shown scrubbed, as to commands (not masked).
        mountFolder: runViewsFolder(confinement.runDir),
      },
    });
  if (confinement.mode === "none") {
    // The plan is not used (nothing is mounted): only its watch.
    const watch = profile({ bwrapPath: "/", system: [], programFolders: [] });
    if (!watch.ok) throw fail(watch.reason);
    return {
      program: server.command,
      args: [...server.args],
      env: launchEnv,
      isolation: { mode: "none" },
      watched: watch.watched,
    };
  }
  const found = await findProgram(server.command, env.PATH ?? "");
  if (found === null) {
    throw fail(`"${server.command}" was not found in the server's PATH "${env.PATH ?? ""}"`);
  }
  const real = await Deno.realPath(found);
  const built = profile({
    bwrapPath: confinement.bwrapPath,
    system: confinement.system,
    programFolders: confinement.programFolders([found, real]),
  });
  if (!built.ok) throw fail(built.reason);
  const program = nodePath.basename(server.command);
  if ((program === "npx" || program === "npm") && confinement.hostHome !== null) {
    // Bound after the profile is built: the cache is not scanned (it holds many files).
    await Deno.mkdir(nodePath.join(confinement.hostHome, ".npm"), { recursive: true });
    const cache = await Deno.realPath(nodePath.join(confinement.hostHome, ".npm"));
    built.plan.writablePaths.push(cache);
    launchEnv.npm_config_cache = cache;
  }
  return {
    program: found,
    args: [...server.args],
    env: launchEnv,
    isolation: built.plan,
    watched: built.watched,
  };
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
