/**
 * The policy side of a session, without opening a run: the path guard, the command set-up, the
 * tool set and its registry, the Worker's permissions, and the effective policy.
 *
 * @module
 */

import * as nodePath from "node:path";
import { ConfigError, type LoadedConfig } from "../config/mod.ts";
import { type CommandSetup, prepareCommands } from "./command_setup.ts";
import type { DeclarativeToolFile } from "../toolsets/declarative/mod.ts";
import type { MemorySettings } from "../memory/mod.ts";
import { projectIdentity } from "../memory/mod.ts";
import { type NetworkChannels, networkChannels } from "../network/mod.ts";
import { type McpConfinement, McpServers } from "../mcp_client/mod.ts";
import { EffectivePolicy } from "../policy/mod.ts";
import { DEFAULT_SENSITIVE_PATTERNS, PathGuard } from "../sandbox/mod.ts";
import type { WorkerPermissions } from "../worker/mod.ts";
import { ToolRegistrationError, ToolRegistry } from "../tools/mod.ts";
import { describeTool, type ToolDefinition } from "../tools/mod.ts";
import { toolSet, type ToolSetSettings } from "../toolsets/mod.ts";
import { agentToolDefinitions } from "../toolsets/agents/mod.ts";
import { taskToolDefinitions } from "../tasks/mod.ts";
import { netFetchDefinition } from "../toolsets/net/mod.ts";
import { environmentNames, environmentReader, secretValues } from "./environment.ts";
import { mcpConfinement } from "./mcp_confinement.ts";
import { policyInputs } from "./policy_inputs.ts";
import { protectedPaths } from "./protected_paths.ts";
import type { SessionOptions } from "./session_options.ts";
import { sessionMemorySettings } from "./session_memory.ts";
import { sensitiveFileSecrets } from "./sensitive_file_secrets.ts";
import type { SessionRun } from "./session_run.ts";
import { type TelemetryChannel, telemetryChannel } from "../telemetry/mod.ts";
import { sessionWorkerPermissions } from "./worker_permissions.ts";

/** The policy side of a session, without a run folder (for `tools` and `policy`). */
export interface PreparedPolicy {
  guard: PathGuard;
  registry: ToolRegistry;
  policy: EffectivePolicy;
  /** The Deno permissions the tool Worker gets. */
  workerPermissions: WorkerPermissions;
  /** Command tool set-up, or null when no command tool is enabled. */
  commands: CommandSetup | null;
  /** Real paths of the skill folders that exist. */
  skillDirs: string[];
  /** Memory tool settings, or null when memory is disabled. */
  memory: MemorySettings | null;
  /** The hosts (`hostname:port`) the run may reach, by channel, derived from the config. */
  network: NetworkChannels;
  /**
   * Where Deno's OpenTelemetry exporter would send (read from `OTEL_*`); the CLI refuses a run
   * whose hosts `audit.trace_hosts` does not list.
   */
  telemetry: TelemetryChannel;
  /** What the tool set is built from, in both threads (the Worker gets it in its init message). */
  toolSettings: ToolSetSettings;
  /**
   * The set values of `audit.secret_env`, read once, the expanded `${VAR}` of MCP servers, and
   * (with a run) the values of the roots' sensitive files (`sensitive_file_secrets.ts`).
   */
  secrets: string[];
  /**
   * Why the start-up scan for sensitive files' values stopped at a bound (their values past it
   * are not redacted), or null when it read them all or there is no run.
   */
  sensitiveFileScanStopped: string | null;
  /**
   * The run's MCP servers, started, their tools registered; null when the config has none. Without
   * a run (`tools`, `policy`) they are already closed: only their tools' descriptions are used.
   */
  mcp: McpServers | null;
}

/**
 * Computes the guard, registry and effective policy of a config.
 *
 * @param run The run folder, or null without one (`kagent-run tools`, `kagent-run policy`).
 * @throws {TypeError} when a root cannot be canonicalised; {@linkcode ConfigError} `tool_invalid`
 *   on a bad declarative tool.
 * @example
 * ```ts ignore
 * const { registry, policy } = await preparePolicy(config);
 * ```
 */
export async function preparePolicy(
  config: LoadedConfig,
  options: SessionOptions = {},
  run: SessionRun | null = null,
): Promise<PreparedPolicy> {
  const read = environmentReader(options.env);
  const home = read("HOME") ?? null;
  const secrets = secretValues(config.audit.secret_env, read);
  const runWriteRoots = run === null ? [] : [run.workspace, run.deliverables];
  const skillDirs = await realFolders(config.skills.dirs);
  const guard = await PathGuard.create({
    workspace: config.workspace,
    // Skill folders outside the workspace are readable (read-only: they are protected), so a
    // skill's model can read its reference files (pdf/forms.md) through the guard.
    readRoots: [
      ...config.sandbox.read_roots,
      ...await skillReadRoots(skillDirs, config.workspace, config.sandbox.read_roots),
    ],
    writeRoots: [...config.sandbox.write_roots, ...runWriteRoots],
    protectedPaths: protectedPaths(config, home),
    writableExceptions: runWriteRoots,
    sensitivePatterns: [...DEFAULT_SENSITIVE_PATTERNS, ...config.sandbox.sensitive_paths],
    home,
    walkExclusions: [config.runs_dir],
  });
  // The values of the roots' sensitive files: what `git show HEAD:.env` and the like would show.
  // Only for a run: `tools` and `policy` redact nothing.
  const fileScan = run === null ? null : sensitiveFileSecrets({
    roots: [guard.workspace, ...guard.readRoots, ...guard.writeRoots],
    sensitiveMatch: (path) => guard.sensitiveMatch(path),
    exclusions: guard.walkExclusions,
  });
  const fileSecrets = fileScan?.values ?? [];
  const commands = await prepareCommands(
    config,
    guard,
    { names: options.environmentNames ?? environmentNames, get: read },
    ...(options.probeBubblewrap === undefined ? [] : [options.probeBubblewrap]),
  );
  const memory = sessionMemorySettings(
    config,
    run,
    [...secrets, ...fileSecrets],
    await projectIdentity(guard.workspace, config.memory.project_id),
  );
  const toolSettings: ToolSetSettings = {
    command_tools: commands !== null,
    declarative_tools: commands?.declarativeTools ?? [],
    skill_dirs: skillDirs,
    memory,
    // Under bubblewrap with command_network, or with no confinement at all, a command can reach
    // any host: its tools say open-world.
    command_network: commands !== null &&
      (config.sandbox.command_network || commands.bwrapPath === null),
  };
  const registry = new ToolRegistry();
  registerTools(registry, toolSet(toolSettings, options.tools), toolSettings.declarative_tools);
  // The agent, plan and task tools, when the config defines agents: handlers on the main thread
  // (the layer above injects them as `mainThreadTools`); each agent type's policy decides who may
  // call them.
  if (Object.keys(config.agents).length > 0 && options.agentTools !== false) {
    registerTools(registry, [...agentToolDefinitions(), ...taskToolDefinitions()], []);
  }
  // net.fetch exists only with an allowlist (network.hosts); a permissions rule must still name it.
  if (config.network.hosts.length > 0) {
    registerTools(registry, [netFetchDefinition(config.network.hosts)], []);
  }
  const mcp = await startMcp(
    config,
    { read, ...(options.mcpFetch === undefined ? {} : { fetch: options.mcpFetch }) },
    registry,
    run,
    async () => await mcpConfinement({ config, guard, commands, run, home, options }),
  );
  const workerPermissions = sessionWorkerPermissions(guard, commands, skillDirs, memory, run);
  const network = networkChannels(config);
  const telemetry = telemetryChannel(read);
  const policy = EffectivePolicy.compute(policyInputs({
    config,
    options,
    tools: registry.list().map((registered) => describeTool(registered.definition)),
    guard,
    home,
    commands,
    memory,
    network,
    workerPermissions,
  }));
  return {
    guard,
    registry,
    policy,
    workerPermissions,
    commands,
    skillDirs,
    memory,
    network,
    telemetry,
    toolSettings,
    secrets: [...secrets, ...(mcp?.secrets ?? []), ...fileSecrets],
    sensitiveFileScanStopped: fileScan?.incomplete ?? null,
    mcp,
  };
}

/**
 * Starts the config's MCP servers and registers their tools; without a run they are closed at
 * once. A tool the registry still refuses is left out like any refused tool. The confinement is
 * decided only when a stdio server needs one.
 *
 * @throws {ConfigError} `mcp_server_failed` when a required server cannot start.
 */
async function startMcp(
  config: LoadedConfig,
  reach: { read: (name: string) => string | undefined; fetch?: typeof fetch },
  registry: ToolRegistry,
  run: SessionRun | null,
  confine: () => Promise<McpConfinement>,
): Promise<McpServers | null> {
  const servers = Object.values(config.mcp_servers);
  if (servers.length === 0) return null;
  const confinement: McpConfinement = servers.some((server) => server.type === "stdio")
    ? await confine()
    : { mode: "off", reason: "no stdio MCP server" };
  let mcp: McpServers;
  try {
    mcp = await McpServers.start({
      servers: config.mcp_servers,
      ...reach,
      configPath: config.configPath,
      confinement,
    });
    if (run === null) await mcp.close();
  } finally {
    // Without a run, the servers' domains were in a temporary folder.
    if (run === null && confinement.mode !== "off") {
      await Deno.remove(confinement.runDir, { recursive: true }).catch(() => {});
    }
  }
  for (const tool of mcp.tools) {
    try {
      registry.register(tool);
    } catch (error) {
      if (!(error instanceof ToolRegistrationError)) throw error;
      mcp.refuse(tool.name, error.message);
    }
  }
  return mcp;
}

/** Registers the tool set; a declarative tool the registry refuses is a config error on its file. */
function registerTools(
  registry: ToolRegistry,
  tools: readonly ToolDefinition<never>[],
  declarativeFiles: readonly DeclarativeToolFile[],
): void {
  for (const tool of tools) {
    const file = declarativeFiles.find((candidate) => candidate.name === tool.name);
    try {
      // A declarative tool's schema comes from its file: compiled now, so a bad one is a config
      // error at start-up. The built-in tools' validators are compiled when first called.
      registry.register(tool, { compile: file === undefined ? "on_first_use" : "now" });
    } catch (error) {
      if (!(error instanceof ToolRegistrationError) || file === undefined) throw error;
      throw new ConfigError({
        code: "tool_invalid",
        file: file.source,
        key: error.code === "unsupported_schema" ? "input_schema" : "name",
        message: `Cannot load tool "${file.source}": ${error.message}`,
      });
    }
  }
}

/** Real paths of the folders that exist. */
/** The real skill folders that lie outside the workspace and every configured read root. */
async function skillReadRoots(
  skillDirs: readonly string[],
  workspace: string,
  readRoots: readonly string[],
): Promise<string[]> {
  const holders = await realFolders([workspace, ...readRoots]);
  const inside = (path: string, folder: string) => {
    const relative = nodePath.relative(folder, path);
    return relative === "" || (!relative.startsWith("..") && !nodePath.isAbsolute(relative));
  };
  return skillDirs.filter((dir, index) =>
    skillDirs.indexOf(dir) === index && !holders.some((holder) => inside(dir, holder))
  );
}

async function realFolders(paths: readonly string[]): Promise<string[]> {
  const real: string[] = [];
  for (const path of paths) {
    try {
      real.push(await Deno.realPath(path));
    } catch {
      // A missing skill folder has no scripts to run.
    }
  }
  return real;
}
