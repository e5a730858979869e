/**
 * How the run's stdio MCP servers are confined: by bubblewrap when commands would be (isolation
 * `bwrap`, or `auto` with bubblewrap working); under `none`, chosen explicitly, not at all (recorded);
 * under `auto` without a working bubblewrap, `off`: like command tools, they are not started.
 *
 * @module
 */

import * as nodePath from "node:path";
import { ConfigError, type LoadedConfig } from "../config/mod.ts";
import { hostSystemMounts, prepareDomains, probeBubblewrap } from "../exec/mod.ts";
import type { McpConfinement, McpRunConfinement } from "../mcp_client/mod.ts";
import type { PathGuard } from "../sandbox/mod.ts";
import { type CommandSetup, findBubblewrap, programFolders } from "./command_setup.ts";
import { environmentReader } from "./environment.ts";
import type { SessionOptions } from "./session_options.ts";
import type { SessionRun } from "./session_run.ts";

/** What {@linkcode mcpConfinement} decides from. */
export interface McpConfinementInputs {
  config: LoadedConfig;
  guard: PathGuard;
  /** The command set-up (its isolation is reused), or null when no command tool is enabled. */
  commands: CommandSetup | null;
  /** The run folder; without one the servers get a temporary HOME (removed after). */
  run: SessionRun | null;
  /** The host user's home folder, or null. */
  home: string | null;
  options: SessionOptions;
}

/**
 * Decides the servers' confinement: the command set-up's isolation when there is one, else the
 * same decision made here (`sandbox.command_isolation`, bubblewrap probed).
 *
 * @throws {ConfigError} `mcp_server_failed` when `sandbox.command_isolation` is `"bwrap"` and
 *   bubblewrap cannot run.
 * @example
 * ```ts ignore
 * const confinement = await mcpConfinement({ config, guard, commands, run, home, options });
 * ```
 */
export async function mcpConfinement(inputs: McpConfinementInputs): Promise<McpConfinement> {
  const { config, guard, commands, run, home } = inputs;
  const shared = async (): Promise<McpRunConfinement> => {
    const runDir = run?.dir ?? await Deno.makeTempDir({ prefix: "kagent-mcp-" });
    if (run !== null) {
      // Every domain's folders exist before the first process starts: each is hidden from the
      // others from then on (see `foreignDomainFolders`).
      await prepareDomains(runDir, [
        { kind: "commands" },
        { kind: "hooks" },
        ...Object.entries(config.mcp_servers)
          .filter(([, server]) => server.type === "stdio")
          .map(([server]) => ({ kind: "mcp" as const, server })),
      ]);
    }
    return {
      writeRoots: guard.allWriteRoots,
      readRoots: guard.readRoots,
      protectedPaths: guard.protectedPaths,
      writableExceptions: guard.writableExceptions,
      scanExclusions: guard.walkExclusions,
      sensitiveMatch: (path) => guard.sensitiveMatch(path),
      runDir,
      runId: run === null ? null : nodePath.basename(run.dir),
      quarantineDir: run === null ? null : nodePath.join(run.dir, "quarantine"),
      allowNestedRepositories: config.sandbox.allow_nested_repositories,
    };
  };
  let bwrapPath: string | null = null;
  if (commands !== null) {
    if (commands.isolation.effective === "off") {
      return { mode: "off", reason: commands.isolation.reason };
    }
    if (commands.isolation.effective !== "bwrap" || commands.bwrapPath === null) {
      return {
        mode: "none",
        reason: commands.isolation.reason,
        ...await shared(),
        psPath: commands.psPath ?? await findProgram("ps"),
      };
    }
    bwrapPath = commands.bwrapPath;
  } else {
    const configured = config.sandbox.command_isolation;
    if (configured === "none") {
      return {
        mode: "none",
        reason: 'sandbox.command_isolation is "none"',
        ...await shared(),
        psPath: await findProgram("ps"),
      };
    }
    const probe = await findBubblewrap(
      environmentReader(inputs.options.env)("PATH") ?? "/usr/local/bin:/usr/bin:/bin",
      guard.allWriteRoots,
      inputs.options.probeBubblewrap ?? probeBubblewrap,
    );
    if (!probe.usable) {
      const reason = `bubblewrap cannot run here: ${probe.reason}`;
      if (configured === "bwrap") {
        throw new ConfigError({
          code: "mcp_server_failed",
          file: config.configPath,
          key: "sandbox.command_isolation",
          message: `Cannot start MCP servers: "bwrap" was asked for but ${reason}`,
        });
      }
      return { mode: "off", reason };
    }
    bwrapPath = probe.path;
  }
  const prlimitPath = commands !== null ? commands.prlimitPath : await findPrlimit();
  return {
    mode: "bwrap",
    ...await shared(),
    bwrapPath: bwrapPath as string,
    system: commands?.systemMounts.length ? commands.systemMounts : hostSystemMounts(),
    // What the user's own config names (node /abs/server/dist/index.js) is mounted read-only.
    readRoots: [...guard.readRoots, ...await namedServerPaths(config, guard, home)],
    hostHome: home,
    programFolders: (paths) => programFolders(paths, home),
    processLimit: prlimitPath === null ? null : { prlimitPath, max: config.tools.max_processes },
  };
}

/** Files that mark the root of a package whose code a server script imports. */
const PACKAGE_MARKERS = ["package.json", "pyproject.toml", "deno.json", "go.mod"];

/**
 * The paths the stdio servers' own arguments name (absolute, or `~/`; also an `--option=/path`
 * value) that exist outside the workspace and every root: a folder as named; a file's folder and
 * the nearest package folder above it (the one holding its `package.json`, where its
 * `node_modules` are), so `node /abs/server/dist/index.js` starts under bubblewrap. Never `/`,
 * the home folder itself, or a sensitive path (`~/.ssh`, `*.pem`, `.env`…). These join the
 * servers' read-only mounts.
 *
 * @example
 * ```ts ignore
 * const extra = await namedServerPaths(config, guard, "/home/me");
 * ```
 */
export async function namedServerPaths(
  config: LoadedConfig,
  guard: PathGuard,
  home: string | null,
): Promise<string[]> {
  const mounted = [guard.workspace, ...guard.readRoots, ...guard.allWriteRoots];
  const inside = (path: string, folder: string) => {
    const relative = nodePath.relative(folder, path);
    return relative === "" || (!relative.startsWith("..") && !nodePath.isAbsolute(relative));
  };
  const tooWide = (path: string) => path === "/" || (home !== null && path === home);
  const found: string[] = [];
  const add = (path: string) => {
    if (tooWide(path) || guard.sensitiveMatch(path) !== null) return;
    if (mounted.some((root) => inside(path, root)) || found.includes(path)) return;
    found.push(path);
  };
  for (const server of Object.values(config.mcp_servers)) {
    if (server.type !== "stdio") continue;
    for (const argument of server.args) {
      const written = argument.startsWith("--") && argument.includes("=")
        ? argument.slice(argument.indexOf("=") + 1)
        : argument;
      const expanded = written.startsWith("~/") && home !== null
        ? nodePath.join(home, written.slice(2))
        : written;
      if (!nodePath.isAbsolute(expanded)) continue;
      let real: string;
      let info: Deno.FileInfo;
      try {
        real = await Deno.realPath(expanded);
        info = await Deno.stat(real);
      } catch {
        continue;
      }
      if (guard.sensitiveMatch(real) !== null) continue;
      if (info.isDirectory) {
        add(real);
        continue;
      }
      const folder = nodePath.dirname(real);
      add(folder);
      const root = await packageRoot(folder, home);
      if (root !== null) add(root);
    }
  }
  return found;
}

/** The nearest folder at or above `folder` holding a package marker, below `/` and home. */
async function packageRoot(folder: string, home: string | null): Promise<string | null> {
  for (let current = folder; current !== "/" && current !== home;) {
    for (const marker of PACKAGE_MARKERS) {
      if (await Deno.stat(nodePath.join(current, marker)).then(() => true, () => false)) {
        return current;
      }
    }
    const parent = nodePath.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return null;
}

/** `prlimit` (util-linux) in /usr/bin or /bin, or null. */
function findPrlimit(): Promise<string | null> {
  return findProgram("prlimit");
}

/** `name` in /usr/bin or /bin, or null. */
async function findProgram(name: string): Promise<string | null> {
  for (const path of [`/usr/bin/${name}`, `/bin/${name}`]) {
    if (await Deno.stat(path).then((info) => info.isFile, () => false)) return path;
  }
  return null;
}
