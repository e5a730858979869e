/**
 * Wires a run together from a loaded config: the path guard, the registry, the effective policy,
 * the run folder and its audit, the tool Worker, and the runtime.
 *
 * @module
 */

import * as nodePath from "node:path";
import {
  ArtifactStore,
  AuditRecorder,
  fileSha256,
  modelInfo,
  Redactor,
  type RunFolder,
  writeRunInfo,
} from "../audit/mod.ts";
import { ConfigError, type LoadedConfig } from "../config/mod.ts";
import { ApprovalGate, type Approver, type Grant } from "../approval/mod.ts";
import { type AgentType, EffectivePolicy, type SkillRequest } from "../policy/effective_policy.ts";
import { DEFAULT_SENSITIVE_PATTERNS, PathGuard } from "../sandbox/path_guard.ts";
import {
  computeWorkerPermissions,
  DEFAULT_HANDLER_TIMEOUT_MS,
  ToolWorker,
  type WorkerPermissions,
} from "../sandbox/tool_worker.ts";
import { ToolRegistrationError, ToolRegistry } from "../tools/registry.ts";
import { describeTool, type ToolDefinition } from "../tools/tool_definition.ts";
import { builtinTools, commandTools } from "../toolsets/mod.ts";
import { createSkillTools, discoverSkills } from "../skills/mod.ts";
import { type MemorySettings, memoryToolsFor } from "../memory/memory_settings.ts";
import { type ProjectIdentity, projectIdentity } from "../memory/project_identity.ts";
import { declarativeTool } from "../toolsets/declarative/declarative_tool.ts";
import { type CommandSetup, prepareCommands } from "../exec/command_setup.ts";
import type { BubblewrapProbe } from "../exec/bubblewrap.ts";
import { sweepMarked } from "../exec/process_sweep.ts";
import { type NetworkChannels, networkChannels } from "../network/mod.ts";
import {
  HookRunner,
  type PostToolUseHook,
  prepareHooks,
  type PreToolUseHook,
} from "../hooks/mod.ts";
import type { ExecContext } from "../tools/tool_definition.ts";
import { ToolRuntime } from "./tool_runtime.ts";
import { createRunFolder, recordStartFailure } from "./start_up_failure.ts";

/**
 * Files in the home folder that a shell runs at start (bash, sh, zsh): never writable by tools,
 * even when the home folder is inside a write root (CASES.md "Writes that later execute").
 */
export const SHELL_STARTUP_FILES: readonly string[] = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".zlogout",
];

/** Options shared by {@linkcode preparePolicy} and {@linkcode openRunSession}. */
export interface SessionOptions {
  /** The tools to register. @default builtinTools() */
  tools?: ToolDefinition<never>[];
  /** The tool Worker's entry module (tests serve extra tools). @default worker_main.ts */
  workerEntry?: URL;
  skillRequests?: SkillRequest[];
  /** The agent the tool set is for. @default "main" */
  agentType?: AgentType;
  /** Task policy: tool-name patterns the set is narrowed to. */
  taskTools?: string[];
  /** Task preference: recorded, never a grant. */
  suggestedTools?: string[];
  /** Reads an environment variable (for secret redaction); undefined when unset or not permitted. */
  env?: (name: string) => string | undefined;
  /** @default () => new Date() */
  now?: () => Date;
  /** Longest a tool handler may run, in ms. @default the config's tools.max_timeout_ms + 15 s */
  handlerTimeoutMs?: number;
  /**
   * Tells whether bubblewrap can run (tests pass one that says no, to see `auto` turn command
   * tools off). @default the real probe
   */
  probeBubblewrap?: (bwrapPath: string) => Promise<BubblewrapProbe>;
  /** Names of the environment's variables (for the command env allowlist's globs). */
  environmentNames?: () => string[];
  /**
   * Who answers asks. @default null: nobody (every ask ends as approval_required, with the grant that
   * would allow it)
   */
  approver?: Approver | null;
  /** Grants from `--approve` and `--approvals`, with where each came from (for messages). */
  grants?: { grant: Grant; source: string }[];
  /** Longest wait for the approver, in ms. @default 300000 */
  approvalTimeoutMs?: number;
  /** In-process hooks (library use), run after the config's command hooks. @default none */
  hooks?: { preToolUse?: PreToolUseHook[]; postToolUse?: PostToolUseHook[] };
  /**
   * How tool requests to the HTTP memory service leave the process: the CLI passes the network
   * gateway's memory channel. @default globalThis.fetch (library use and tests)
   */
  memoryFetch?: typeof fetch;
  /**
   * The task the model is given, recorded in `run.json` and the `run.started` event.
   * @default null (a run without a model, such as `kagent-run call`)
   */
  task?: string | null;
}

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
}

/**
 * Computes the guard, registry and effective policy of a config.
 *
 * @param runWriteRoots The run's workspace/ and deliverables/ (absolute), when a run exists.
 * @throws {TypeError} when a root cannot be canonicalised; {@linkcode ToolRegistrationError} on a
 * bad tool definition.
 */
export async function preparePolicy(
  config: LoadedConfig,
  options: SessionOptions = {},
  runWriteRoots: string[] = [],
  runArtifacts: string | null = null,
): Promise<PreparedPolicy> {
  const home = readEnvironment(options.env, "HOME") ?? null;
  const protectedPaths = [config.runs_dir, config.configPath];
  if (home !== null) {
    protectedPaths.push(...SHELL_STARTUP_FILES.map((name) => nodePath.join(home, name)));
  }
  if (config.permissionsPath !== null) protectedPaths.push(config.permissionsPath);
  // The next run's system prompt: no tool may rewrite it.
  if (config.agent.instructions !== null) protectedPaths.push(config.agent.instructions.path);
  // Skill folders (their scripts run) and declarative tool folders (their commands run).
  protectedPaths.push(...config.skills.dirs, ...config.tools.dirs);
  const guard = await PathGuard.create({
    workspace: config.workspace,
    readRoots: config.sandbox.read_roots,
    writeRoots: [...config.sandbox.write_roots, ...runWriteRoots],
    protectedPaths,
    writableExceptions: runWriteRoots,
    sensitivePatterns: [...DEFAULT_SENSITIVE_PATTERNS, ...config.sandbox.sensitive_paths],
    home,
    walkExclusions: [config.runs_dir],
  });
  const commands = await prepareCommands(
    config,
    guard,
    {
      names: options.environmentNames ?? environmentNames,
      get: (name) => readEnvironment(options.env, name),
    },
    ...(options.probeBubblewrap === undefined ? [] : [options.probeBubblewrap]),
  );
  const registry = new ToolRegistry();
  for (const tool of options.tools ?? builtinTools()) registry.register(tool);
  if (commands !== null) {
    for (const tool of commandTools()) {
      if (registry.get(tool.name) === undefined) registry.register(tool);
    }
    for (const file of commands.declarativeTools) {
      try {
        registry.register(declarativeTool(file));
      } catch (error) {
        if (!(error instanceof ToolRegistrationError)) throw error;
        throw new ConfigError({
          code: "tool_invalid",
          file: file.source,
          key: error.code === "unsupported_schema" ? "input_schema" : "name",
          message: `Cannot load tool "${file.source}": ${error.message}`,
        });
      }
    }
  }
  const skillDirs = await realFolders(config.skills.dirs);
  if (skillDirs.length > 0) {
    for (const tool of createSkillTools(skillDirs)) {
      if (registry.get(tool.name) === undefined) registry.register(tool);
    }
  }
  const memory = memorySettings(
    config,
    runArtifacts === null ? null : nodePath.dirname(runArtifacts),
    options,
    await projectIdentity(guard.workspace, config.memory.project_id),
  );
  if (memory !== null) {
    for (const tool of memoryToolsFor(memory)) {
      if (registry.get(tool.name) === undefined) registry.register(tool);
    }
  }
  // `auto` without a working bubblewrap turns command tools off: the Worker gets no run permission.
  const commandsOn = commands !== null && commands.isolation.effective !== "off";
  const workerPermissions = computeWorkerPermissions(
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
      write: runArtifacts === null ? [] : [
        runArtifacts,
        nodePath.join(nodePath.dirname(runArtifacts), "home"),
        nodePath.join(nodePath.dirname(runArtifacts), "tmp"),
        // Protected paths a command created (a planted .git) are moved here.
        nodePath.join(nodePath.dirname(runArtifacts), "quarantine"),
      ],
    },
    skillDirs,
    memoryPermissions(memory),
  );
  const network = networkChannels(config);
  const policy = EffectivePolicy.compute({
    tools: registry.list().map((registered) => describeTool(registered.definition)),
    workspace: guard.workspace,
    configRules: config.permissions.rules,
    configSource: config.permissionsPath ?? (config.permissions.rules.length > 0 ? "inline" : null),
    skillRequests: options.skillRequests ?? [],
    ...(options.agentType === undefined ? {} : { agentType: options.agentType }),
    ...(options.taskTools === undefined ? {} : { taskTools: options.taskTools }),
    ...(options.suggestedTools === undefined ? {} : { suggestedTools: options.suggestedTools }),
    runFolders: guard.writableExceptions.slice(),
    ...(commands === null ? {} : {
      commandIsolation: {
        effective: commands.isolation.effective,
        reason: commands.isolation.reason,
        tools: [
          ...commandTools().map((tool) => tool.name),
          ...commands.declarativeTools.map((tool) => tool.name),
        ],
      },
    }),
    // Hashed by name ("<home>", "<config>", "<runs>"): the policy hash means the same in every
    // checkout, wherever it lies.
    folders: { home, config: nodePath.dirname(config.configPath), runs: config.runs_dir },
    // The run folder's real path (the guard canonicalised it), hashed as "<run>".
    ...(guard.writableExceptions[0] === undefined
      ? {}
      : { runDir: nodePath.dirname(guard.writableExceptions[0]) }),
    sandbox: {
      workspace: guard.workspace,
      read_roots: guard.readRoots,
      write_roots: guard.writeRoots,
      protected_paths: [...guard.protectedPaths, "any .git folder"],
      writable_exceptions: guard.writableExceptions,
      sensitive_patterns: guard.sensitivePatterns,
      outside_always: ["/proc", "/sys", "/dev"],
      deno_permissions: workerPermissions,
      // Only the network Worker reaches these; the main thread's net permission is revoked.
      network,
      memory: memory === null ? null : {
        write_mode: memory.mode,
        provider: memory.provider.kind === "file" ? { kind: "file", folder: memory.folder } : {
          kind: "http",
          base_url: memory.provider.base_url,
          token_env: memory.provider.token_env ?? null,
        },
        scopes: memory.scopes,
      },
      commands: commands === null ? null : {
        programs: commands.programs,
        interpreters: commands.interpreters,
        isolation: commands.isolation,
        environment_names: commands.environmentNames,
        declarative_tools: commands.declarativeTools.map((tool) => ({
          name: tool.name,
          source: tool.source,
        })),
        git_safe_mode: config.tools.git_safe_mode,
        timeouts_ms: { default: config.tools.default_timeout_ms, max: config.tools.max_timeout_ms },
      },
    },
  });
  return { guard, registry, policy, workerPermissions, commands, skillDirs, memory, network };
}

/**
 * The memory settings of a run: the write mode and provider from the config, candidates in the
 * run's archive/, the secret values to redact from memory content, and the workspace's project
 * identity (which keys the `project` scope). Recall is always there; `write_mode: "disabled"`
 * leaves out memory.write_memory.
 */
function memorySettings(
  config: LoadedConfig,
  runDir: string | null,
  options: SessionOptions,
  project: ProjectIdentity,
): MemorySettings {
  return {
    project,
    mode: config.memory.write_mode,
    folder: config.memory.folder ?? "/nonexistent-memory",
    scopes: config.memory.scopes,
    provider: config.memory.provider,
    candidates_file: nodePath.join(
      runDir ?? "/nonexistent-run",
      "archive",
      "memory_candidates.jsonl",
    ),
    secrets: config.audit.secret_env
      .map((name) => readEnvironment(options.env, name))
      .filter((value): value is string => value !== undefined && value.length >= 8),
  };
}

/**
 * What memory adds to the Worker's permissions: its folder (file), or the token's name (http; the
 * service itself is reached through the main thread, never from the Worker).
 */
function memoryPermissions(memory: MemorySettings | null) {
  if (memory === null) return { folders: [], env: [] };
  const archive = nodePath.dirname(memory.candidates_file);
  if (memory.provider.kind === "file") return { folders: [memory.folder, archive], env: [] };
  return {
    folders: [archive],
    env: memory.provider.token_env === undefined ? [] : [memory.provider.token_env],
  };
}

/** Real paths of the folders that exist. */
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

function environmentNames(): string[] {
  try {
    return Object.keys(Deno.env.toObject());
  } catch {
    return [];
  }
}

/** An open run: everything a call or an agent needs, and how to close it. */
export interface RunSession extends PreparedPolicy {
  config: LoadedConfig;
  folder: RunFolder;
  recorder: AuditRecorder;
  runtime: ToolRuntime;
  /** Step 5's gate: its `pending` lists the calls that needed an approval nobody could give. */
  approvals: ApprovalGate;
  /** Stops the Worker and flushes the audit. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Opens a run: creates `runs/<id>/`, writes `policy.json` and the `run.started` event, starts the
 * tool Worker.
 */
export async function openRunSession(
  config: LoadedConfig,
  options: SessionOptions = {},
): Promise<RunSession> {
  const now = options.now ?? (() => new Date());
  // A runs folder that cannot be used is a ConfigError naming runs_dir; a run that then fails to
  // start says why in logs/errors.jsonl (or leaves no folder when nothing can be written).
  const folder = await createRunFolder(config, now());
  try {
    return await openSessionIn(folder, config, options, now);
  } catch (error) {
    throw await recordStartFailure(
      folder,
      config,
      error,
      (name) => readEnvironment(options.env, name),
    );
  }
}

/** {@linkcode openRunSession} once the run folder exists. */
async function openSessionIn(
  folder: RunFolder,
  config: LoadedConfig,
  options: SessionOptions,
  now: () => Date,
): Promise<RunSession> {
  const prepared = await preparePolicy(
    config,
    options,
    [folder.paths.workspace, folder.paths.deliverables],
    folder.paths.artifacts,
  );
  // Hook programs resolve now, outside the workspace and every write root (ConfigError, exit 2).
  const configHooks = await prepareHooks(config, {
    forbiddenRoots: prepared.guard.allWriteRoots,
    cwd: prepared.guard.workspace,
    env: (name) => readEnvironment(options.env, name),
    processTools: prepared.commands,
  });
  const redactor = Redactor.fromEnvironment(
    config.audit.secret_env,
    (name) => readEnvironment(options.env, name),
  );
  const recorder = new AuditRecorder({ folder, redactor, now });
  await recorder.writePolicy(prepared.policy.snapshot());
  for (const { grant, source } of options.grants ?? []) {
    if (!prepared.policy.hash.startsWith(grant.policy)) {
      const message = `Cannot use the grant for "${grant.tool}" from ${source}: it was made for ` +
        `policy "${grant.policy.slice(0, 16)}", and this run's policy is ` +
        `"${prepared.policy.hash.slice(0, 16)}" (the config or permissions changed); re-run ` +
        `without it and use the grant the new run prints`;
      await recorder.error({ source: "approval", message });
      await recorder.close();
      throw new ConfigError({
        code: "config_invalid",
        file: config.configPath,
        key: null,
        message,
      });
    }
  }
  const model = modelInfo(config.model);
  await writeRunInfo(folder.dir, redactor, {
    run_id: folder.id,
    started_at: now().toISOString(),
    task: options.task ?? null,
    model,
    config_path: config.configPath,
    config_sha256: await fileSha256(config.configPath),
    workspace: prepared.guard.workspace,
    extra: { memory_project: prepared.memory?.project ?? null },
  }, config);
  await recorder.event("run.started", {
    task: options.task ?? null,
    model: model === null ? null : { provider: model.provider, model: model.model },
    config: config.configPath,
    workspace: prepared.guard.workspace,
    run_dir: folder.dir,
    policy_hash: prepared.policy.hash,
    tools: prepared.policy.tools.filter((tool) => tool.available).map((tool) => tool.tool),
  });
  // Skills: the catalogue in the audit, invalid ones reported with their file and reason.
  const catalogue = await discoverSkills(prepared.skillDirs);
  await recorder.event("skill_catalogue.recorded", {
    skills: catalogue.skills.map((skill) => skill.name),
    invalid: catalogue.invalid.length,
  });
  for (const invalid of catalogue.invalid) {
    await recorder.error({ source: "skills", path: invalid.path, message: invalid.reason });
  }
  const exec = prepared.commands === null || prepared.commands.isolation.effective === "off"
    ? null
    : execContext(prepared.commands, prepared.skillDirs, config, folder, options);
  if (prepared.commands?.isolation.effective === "off") {
    await recorder.event("command_tools.disabled", { reason: prepared.commands.isolation.reason });
    await recorder.error({ source: "sandbox", message: prepared.commands.isolation.reason });
  }
  let worker: ToolWorker;
  try {
    worker = await ToolWorker.start({
      exec,
      files: {
        search_time_budget_ms: config.limits.search_time_budget_ms,
        hide_sensitive_in_listings: config.sandbox.hide_sensitive_in_listings,
      },
      memory: prepared.memory,
      skillDirs: prepared.skillDirs,
      declarativeTools: prepared.commands?.declarativeTools ?? [],
      guard: prepared.guard,
      run: {
        run_id: folder.id,
        workspace: folder.paths.workspace,
        deliverables: folder.paths.deliverables,
      },
      permissions: prepared.workerPermissions,
      fetchHosts: prepared.memory === null ? [] : prepared.network.memory,
      ...(options.memoryFetch === undefined ? {} : { fetch: options.memoryFetch }),
      ...(options.workerEntry === undefined ? {} : { entry: options.workerEntry }),
      // Commands keep their own time (≤ tools.max_timeout_ms); this only catches a stuck handler.
      handlerTimeoutMs: options.handlerTimeoutMs ??
        Math.max(DEFAULT_HANDLER_TIMEOUT_MS, config.tools.max_timeout_ms + 15_000),
    });
  } catch (error) {
    await recorder.error({
      source: "runtime",
      message: `Cannot start the tool Worker: ${String(error)}`,
    });
    await recorder.close();
    throw error;
  }
  const artifacts = new ArtifactStore({
    artifactsDir: folder.paths.artifacts,
    runDir: folder.dir,
    maxBytes: config.limits.max_artifact_bytes,
  });
  const hooks = new HookRunner({
    preToolUse: [...configHooks.preToolUse, ...(options.hooks?.preToolUse ?? [])],
    postToolUse: [...configHooks.postToolUse, ...(options.hooks?.postToolUse ?? [])],
    recorder,
    runId: folder.id,
  });
  const approvals = new ApprovalGate({
    policyHash: prepared.policy.hash,
    runId: folder.id,
    runDir: nodePath.dirname(prepared.guard.writableExceptions[0] ?? folder.paths.workspace),
    locations: prepared.policy.locations,
    grants: (options.grants ?? []).map((entry) => entry.grant),
    approver: options.approver ?? null,
    ...(options.approvalTimeoutMs === undefined ? {} : { timeoutMs: options.approvalTimeoutMs }),
    recorder,
    redactor,
    environmentNames: prepared.commands?.environmentNames ?? [],
  });
  const runtime = new ToolRuntime({
    ...prepared,
    skillDirs: prepared.skillDirs,
    approvals,
    worker,
    recorder,
    redactor,
    artifacts,
    commands: prepared.commands === null ? null : {
      programs: prepared.commands.programs,
      scriptPrograms: [...prepared.commands.programs, ...prepared.commands.interpreters],
      interpreters: prepared.commands.interpreterMap,
      skillDirs: exec?.skill_dirs ?? [],
      runWorkspace: folder.paths.workspace,
      commandsWriteFreely: prepared.commands.isolation.effective === "none",
    },
    limits: {
      maxBytes: config.limits.max_argument_bytes,
      maxDepth: config.limits.max_argument_depth,
      maxOutputBytes: config.limits.max_output_bytes,
    },
    hooks: hooks.empty ? null : hooks,
    now,
    // Isolation none: what a command left outside its process group is found by its marker.
    sweep: exec === null || exec.isolation !== "none" || prepared.commands?.psPath == null
      ? null
      : { runId: folder.id, psPath: prepared.commands.psPath },
  });
  let closed = false;
  return {
    ...prepared,
    config,
    folder,
    recorder,
    runtime,
    approvals,
    async close() {
      if (closed) return;
      closed = true;
      worker.terminate();
      // Whatever a command of this run left running (isolation none) ends with the run.
      const psPath = prepared.commands?.psPath ?? null;
      if (exec !== null && exec.isolation === "none" && psPath !== null) {
        await sweepMarked(`${folder.id}/`, { psPath, prefix: true });
      }
      await approvals.close();
      await recorder.close();
    },
  };
}

/** The command settings the Worker's handlers get. */
function execContext(
  commands: CommandSetup,
  skillDirs: string[],
  config: LoadedConfig,
  folder: RunFolder,
  options: SessionOptions,
): ExecContext {
  const secrets = config.audit.secret_env
    .map((name) => readEnvironment(options.env, name))
    .filter((value): value is string => value !== undefined && value.length >= 8);
  return {
    programs: commands.programs,
    script_programs: [...commands.programs, ...commands.interpreters],
    interpreters: commands.interpreterMap,
    skill_dirs: skillDirs,
    setsid_path: commands.setsidPath,
    kill_path: commands.killPath,
    isolation: commands.isolation.effective === "bwrap" ? "bwrap" : "none",
    bwrap_path: commands.bwrapPath,
    system_mounts: commands.systemMounts,
    program_folders: commands.programFolders,
    git_write: config.tools.git_write,
    network: config.sandbox.command_network,
    process_limit: commands.prlimitPath === null
      ? null
      : { prlimitPath: commands.prlimitPath, max: config.tools.max_processes },
    search_path: commands.searchPath,
    environment_names: commands.environmentNames,
    // Outside the folders fs tools may write, so no tool call can plant dotfiles a child reads.
    home: nodePath.join(folder.dir, "home"),
    tmp_dir: nodePath.join(folder.dir, "tmp"),
    git_safe_mode: config.tools.git_safe_mode,
    default_timeout_ms: config.tools.default_timeout_ms,
    max_timeout_ms: config.tools.max_timeout_ms,
    stdout_limit_bytes: config.tools.stdout_limit_bytes,
    stderr_limit_bytes: config.tools.stderr_limit_bytes,
    artifacts_dir: folder.paths.artifacts,
    run_dir: folder.dir,
    max_artifact_bytes: config.limits.max_artifact_bytes,
    secrets,
  };
}

/** Reads an environment variable through `env`, or Deno.env when permitted. */
function readEnvironment(env: SessionOptions["env"], name: string): string | undefined {
  if (env !== undefined) return env(name);
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/** The run's path relative to the current folder, for messages. */
export function displayRunDir(dir: string): string {
  const relative = nodePath.relative(Deno.cwd(), dir);
  return relative.startsWith("..") ? dir : relative;
}
