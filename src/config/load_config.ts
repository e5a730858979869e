/**
 * Loads a config file: JSONC parsing, validation, defaults, path resolution, permissions.
 *
 * @module
 */

import { dirname, resolve } from "node:path";
import { ConfigError } from "./config_error.ts";
import { ConfigFileSchema, type ModelConfigInput } from "./config_schema.ts";
import {
  DEFAULT_HOOK,
  DEFAULT_LIMITS,
  DEFAULT_MAX_TURNS,
  DEFAULT_RUNS_DIR,
  DEFAULT_SECRET_ENV,
  DEFAULT_SKILL_DIRS,
  DEFAULT_TOOLS,
} from "./defaults.ts";
import { formatIssues, type IssueText } from "./_format_issues.ts";
import { homeFromEnvironment } from "./_home.ts";
import { isPathInside, type PathKind, pathKind, resolveWrittenPath } from "./_paths.ts";
import { readInstructions } from "./_read_instructions.ts";
import { readJsoncFile } from "./_read_jsonc_file.ts";
import { loadPermissionsFile } from "./load_permissions_file.ts";
import { type LoadedPermissions, withRuleIds } from "./permissions_schema.ts";

/** One command hook after loading. */
export interface LoadedHook {
  /**
   * The argv; argv[0] as written when it is a bare name (searched in PATH at start-up), otherwise
   * an absolute path (relative paths resolved against the config file's folder).
   */
  command: string[];
  /** Glob patterns over tool names. Default `["*"]`. */
  tools: string[];
  /** Deadline in ms, 1..60000. Default 10000. */
  timeout_ms: number;
}

/** Values given on the command line that replace the file's. */
export interface LoadConfigOverrides {
  /**
   * From `--workspace DIR`: replaces the file's `workspace`. Resolved against the current directory
   * (where the user typed it), not the config file's folder. Must be an existing directory.
   */
  workspace?: string;
}

/** How {@linkcode loadConfig} reaches the environment; tests pass fakes. */
export interface LoadConfigOptions {
  /**
   * Reads the home folder for `~/` paths; called only when a path starts with `~`.
   * @default reads `$HOME` (`undefined` when unset or not permitted)
   */
  home?: () => string | undefined;
}

/** `model` after loading: paths absolute. */
export type ModelConfig = ModelConfigInput;

/**
 * A config after loading: every optional key filled with its default, every path absolute and
 * normalised (not realpath'd: the sandbox canonicalises roots itself), permissions loaded with rule
 * ids filled. File keys keep their snake_case names; the camelCase fields are added by loading.
 */
export interface LoadedConfig {
  /** Absolute path of the config file. */
  configPath: string;
  /** Absolute path of the folder holding the config file; relative paths resolve against it. */
  configDir: string;
  /** The sandbox root, an existing directory. Default: {@linkcode LoadedConfig.configDir}. */
  workspace: string;
  /** Folder of run folders; may not exist yet (the audit module creates it). Default: `<configDir>/runs`. */
  runs_dir: string;
  sandbox: {
    /** "auto" (bubblewrap when it works), "bwrap" (required) or "none". Default "auto". */
    command_isolation: "auto" | "bwrap" | "none";
    /** Commands under bubblewrap keep the host network (all hosts). Default `false`. */
    command_network: boolean;
    /** Extra read-only roots, each existing. Default `[]`. */
    read_roots: string[];
    /** Writable roots besides the workspace, each inside it. Default `[]`. */
    write_roots: string[];
    /** Glob patterns added to the runtime's sensitive paths, as written. Default `[]`. */
    sensitive_paths: string[];
    /** `fs.list_files` hides sensitive entries (counted) instead of marking them. Default `false`. */
    hide_sensitive_in_listings: boolean;
  };
  /** Absolute path of the permissions file, or `null` when the rules are inline or absent. */
  permissionsPath: string | null;
  /** The config layer's rules, ids filled. Default: `{ rules: [] }`. */
  permissions: LoadedPermissions;
  /** The model, or `null` when the config has none. */
  model: ModelConfig | null;
  /** The task text, or `null` when the config has none. */
  task: string | null;
  agent: {
    /** Model turns before the run stops, 1..1000. Default 50. */
    max_turns: number;
    /** Consecutive readonly calls run at once, 1..32. Default 4. */
    max_parallel_tools: number;
    /**
     * The `agent.instructions` file for the system prompt: its absolute path and its text (UTF-8,
     * at most 64 KiB, `MAX_INSTRUCTIONS_BYTES`), read when the config loads. Default `null`.
     */
    instructions: { path: string; text: string } | null;
  };
  /** Programs command tools may run, as written (resolved by the sandbox at start-up). Default `[]`. */
  commands: string[];
  /** Command tool settings; see {@linkcode DEFAULT_TOOLS}. */
  tools: {
    default_timeout_ms: number;
    max_timeout_ms: number;
    stdout_limit_bytes: number;
    stderr_limit_bytes: number;
    /** Extra environment names or globs passed to commands. */
    env: string[];
    git_safe_mode: boolean;
    /** `.git` writable for commands except config, hooks/, commondir, info/, alternates. */
    git_write: boolean;
    /** RLIMIT_NPROC inside bubblewrap. */
    max_processes: number;
    /** Extension (".py") → interpreter program for skill scripts without a shebang. */
    interpreters: Record<string, string>;
    /** Absolute folders of declarative tool files. */
    dirs: string[];
  };
  skills: {
    /** Absolute skill folders. */
    dirs: string[];
  };
  memory: {
    write_mode: "disabled" | "candidate" | "external";
    /**
     * Absolute folder of the file provider (outside the workspace); null when the default would
     * lie in the workspace or HOME is unknown (then memory tools are off).
     */
    folder: string | null;
    scopes: string[];
    /** `memory.project_id`: the project identity keying the `project` scope; null: derived. */
    project_id: string | null;
    provider:
      | { kind: "file" }
      | {
        kind: "http";
        base_url: string;
        token_env?: string | undefined;
        timeout_ms?: number | undefined;
      };
  };
  /** Sizes in bytes (`max_argument_depth` in nesting levels); see {@linkcode DEFAULT_LIMITS}. */
  limits: {
    max_argument_bytes: number;
    max_argument_depth: number;
    max_output_bytes: number;
    max_artifact_bytes: number;
    /** Longest one search or recursive listing runs, in ms. Default 10000. */
    search_time_budget_ms: number;
  };
  audit: {
    /** Names of environment variables whose values are redacted: the defaults, then the file's. */
    secret_env: string[];
  };
  /** Command hooks, in order; resolved to programs at start-up. Default: none. */
  hooks: {
    pre_tool_use: LoadedHook[];
    post_tool_use: LoadedHook[];
  };
}

/**
 * Loads, validates and resolves a config file.
 *
 * The file is JSONC (comments and trailing commas allowed; a repeated key is an error). Unknown keys
 * are errors at every level and nothing is coerced. Relative paths resolve against the config file's
 * folder; `~/` expands to `$HOME`. The workspace and read roots must exist, write roots must lie
 * inside the workspace (compared by path components), the model script must be an existing file,
 * the `agent.instructions` file a readable regular file of UTF-8 text of at most 64 KiB
 * (`MAX_INSTRUCTIONS_BYTES`; its text is read here). Nothing is created: the runs folder
 * is created by the audit module.
 *
 * @param path The config file, absolute or relative to the current directory. Messages quote it as
 *   given.
 * @param overrides Command-line values; see {@linkcode LoadConfigOverrides}.
 * @param options Environment access; see {@linkcode LoadConfigOptions}.
 * @returns The fully defaulted {@linkcode LoadedConfig}.
 * @throws {ConfigError} `config_not_found`, `config_syntax` (line and column), `config_invalid`
 *   (`key` names the first bad key, `issues` lists every problem), or, when `permissions` names a
 *   file, `permissions_not_found`, `permissions_syntax`, `permissions_invalid` naming that file.
 * @example
 * ```ts ignore
 * import { loadConfig } from "./load_config.ts";
 * const config = await loadConfig("agent.jsonc", { workspace: "." });
 * console.log(config.workspace, config.permissions.rules.length);
 * ```
 */
export async function loadConfig(
  path: string,
  overrides: LoadConfigOverrides = {},
  options: LoadConfigOptions = {},
): Promise<LoadedConfig> {
  const configPath = resolve(path);
  const configDir = dirname(configPath);
  const home = options.home ?? homeFromEnvironment;
  const invalid = (issues: IssueText[]): ConfigError => {
    const first = issues[0];
    return new ConfigError({
      code: "config_invalid",
      file: configPath,
      key: first?.key ?? null,
      message: `Cannot load config "${path}": ${first?.text ?? "the file is not valid"}`,
      issues: issues.map((issue) => issue.text),
    });
  };

  const read = await readJsoncFile(configPath);
  if (!read.ok) {
    throw new ConfigError({
      code: read.stage === "read" ? "config_not_found" : "config_syntax",
      file: configPath,
      key: null,
      message: `Cannot load config "${path}": ${read.reason}`,
    });
  }
  const parsed = ConfigFileSchema.safeParse(read.value, { reportInput: true });
  if (!parsed.success) throw invalid(formatIssues(parsed.error.issues, read.value));
  const file = parsed.data;

  const issues: IssueText[] = [];
  const resolvePath = (written: string, key: string, baseDir = configDir): string => {
    const absolute = resolveWrittenPath(written, baseDir, home);
    if (absolute !== null) return absolute;
    issues.push({ key, text: `key "${key}" cannot be resolved: HOME is not set` });
    return resolve(baseDir, written);
  };

  let workspace = configDir;
  if (overrides.workspace !== undefined) {
    workspace = resolvePath(overrides.workspace, "workspace", resolve("."));
    const problem = await describeMismatch(workspace, "directory");
    if (problem !== null) {
      issues.push({
        key: "workspace",
        text: `--workspace "${overrides.workspace}" must be an existing directory: ${problem}`,
      });
    }
  } else if (file.workspace !== undefined) {
    workspace = resolvePath(file.workspace, "workspace");
    await requireKind(issues, "workspace", workspace, "directory");
  }

  const runsDir = resolvePath(file.runs_dir ?? DEFAULT_RUNS_DIR, "runs_dir");

  const readRoots: string[] = [];
  for (const [index, written] of (file.sandbox?.read_roots ?? []).entries()) {
    const key = `sandbox.read_roots[${index}]`;
    const root = resolvePath(written, key);
    await requireKind(issues, key, root, "any");
    readRoots.push(root);
  }

  const writeRoots: string[] = [];
  for (const [index, written] of (file.sandbox?.write_roots ?? []).entries()) {
    const key = `sandbox.write_roots[${index}]`;
    const root = resolvePath(written, key);
    if (!isPathInside(root, workspace)) {
      issues.push({
        key,
        text: `key "${key}" must be a path inside the workspace: "${root}" is not inside ` +
          `"${workspace}"`,
      });
    }
    writeRoots.push(root);
  }

  const defaultTimeout = file.tools?.default_timeout_ms ?? DEFAULT_TOOLS.default_timeout_ms;
  const maxTimeout = file.tools?.max_timeout_ms ?? DEFAULT_TOOLS.max_timeout_ms;
  if (defaultTimeout > maxTimeout) {
    issues.push({
      key: "tools.default_timeout_ms",
      text: `key "tools.default_timeout_ms" (${defaultTimeout}) must not exceed ` +
        `"tools.max_timeout_ms" (${maxTimeout})`,
    });
  }
  let toolDirs = (file.tools?.dirs ?? [defaultToolsDir(home)]).map((written, index) =>
    resolvePath(written, `tools.dirs[${index}]`)
  );
  // The default folder is dropped, not refused, when HOME happens to lie in the workspace.
  if (file.tools?.dirs === undefined) {
    toolDirs = toolDirs.filter((dir) => !isPathInside(dir, workspace));
  }
  for (const [index, dir] of toolDirs.entries()) {
    if (isPathInside(dir, workspace)) {
      issues.push({
        key: `tools.dirs[${index}]`,
        text: `key "tools.dirs[${index}]" must be outside the workspace: the agent could write ` +
          `tool definitions there ("${dir}")`,
      });
    }
  }
  // Default: skills/ beside the config file and .agents/skills/ in the workspace.
  const skillDirs = file.skills?.dirs !== undefined
    ? file.skills.dirs.map((written, index) => resolvePath(written, `skills.dirs[${index}]`))
    : [
      ...DEFAULT_SKILL_DIRS.map((written) => resolvePath(written, "skills.dirs")),
      resolve(workspace, ".agents", "skills"),
    ];

  // The default folder (~/.kagent/memory) is dropped, not refused, when HOME lies in the
  // workspace: memory is then off (null), since the agent could edit its own memories there.
  let memoryFolder: string | null = file.memory?.folder === undefined
    ? (home() === undefined ? null : resolvePath("~/.kagent/memory", "memory.folder"))
    : resolvePath(file.memory.folder, "memory.folder");
  if (memoryFolder !== null && isPathInside(memoryFolder, workspace)) {
    if (file.memory?.folder === undefined) {
      memoryFolder = null;
    } else {
      issues.push({
        key: "memory.folder",
        text: `key "memory.folder" must be outside the workspace: the agent could edit its own ` +
          `memories there ("${memoryFolder}")`,
      });
    }
  }
  if (file.memory?.write_mode === "external" && file.memory.provider === undefined) {
    issues.push({
      key: "memory.provider",
      text: 'key "memory.provider" must name a provider when "memory.write_mode" is "external"',
    });
  }

  let model: ModelConfig | null = null;
  if (file.model?.provider === "script") {
    const script = resolvePath(file.model.script, "model.script");
    await requireKind(issues, "model.script", script, "file");
    model = { ...file.model, script };
  } else if (file.model !== undefined) {
    model = file.model;
  }

  let instructions: LoadedConfig["agent"]["instructions"] = null;
  if (file.agent?.instructions !== undefined) {
    const key = "agent.instructions";
    const instructionsPath = resolvePath(file.agent.instructions, key);
    const read = await readInstructions(instructionsPath);
    if (read.ok) instructions = { path: instructionsPath, text: read.text };
    else issues.push({ key, text: `key "${key}" ${read.reason}` });
  }

  const loadHooks = (which: "pre_tool_use" | "post_tool_use"): LoadedHook[] =>
    (file.hooks?.[which] ?? []).map((hook, index) => {
      const [program = "", ...args] = hook.command;
      // A bare name is searched in PATH at start-up; anything with a slash (or ~) is a path.
      const isPath = program.includes("/") || program.startsWith("~");
      const resolved = isPath ? resolvePath(program, `hooks.${which}[${index}].command`) : program;
      return {
        command: [resolved, ...args],
        tools: [...(hook.tools ?? DEFAULT_HOOK.tools)],
        timeout_ms: hook.timeout_ms ?? DEFAULT_HOOK.timeout_ms,
      };
    });
  const hooks = {
    pre_tool_use: loadHooks("pre_tool_use"),
    post_tool_use: loadHooks("post_tool_use"),
  };

  if (issues.length > 0) throw invalid(issues);

  let permissionsPath: string | null = null;
  let permissions: LoadedPermissions = { rules: [] };
  if (typeof file.permissions === "string") {
    permissions = await loadPermissionsFile(file.permissions, "permissions", path, { home });
    permissionsPath = resolvePath(file.permissions, "permissions");
  } else if (file.permissions !== undefined) {
    permissions = withRuleIds(file.permissions);
  }

  return {
    configPath,
    configDir,
    workspace,
    runs_dir: runsDir,
    sandbox: {
      command_isolation: file.sandbox?.command_isolation ?? "auto",
      command_network: file.sandbox?.command_network ?? false,
      read_roots: readRoots,
      write_roots: writeRoots,
      sensitive_paths: [...(file.sandbox?.sensitive_paths ?? [])],
      hide_sensitive_in_listings: file.sandbox?.hide_sensitive_in_listings ?? false,
    },
    permissionsPath,
    permissions,
    model,
    task: file.task ?? null,
    agent: {
      max_turns: file.agent?.max_turns ?? DEFAULT_MAX_TURNS,
      max_parallel_tools: file.agent?.max_parallel_tools ?? 4,
      instructions,
    },
    commands: [...new Set(file.commands ?? [])],
    tools: {
      default_timeout_ms: defaultTimeout,
      max_timeout_ms: maxTimeout,
      stdout_limit_bytes: file.tools?.stdout_limit_bytes ?? DEFAULT_TOOLS.stdout_limit_bytes,
      stderr_limit_bytes: file.tools?.stderr_limit_bytes ?? DEFAULT_TOOLS.stderr_limit_bytes,
      env: [...(file.tools?.env ?? [])],
      git_safe_mode: file.tools?.git_safe_mode ?? DEFAULT_TOOLS.git_safe_mode,
      git_write: file.tools?.git_write ?? DEFAULT_TOOLS.git_write,
      max_processes: file.tools?.max_processes ?? DEFAULT_TOOLS.max_processes,
      interpreters: { ...(file.tools?.interpreters ?? DEFAULT_TOOLS.interpreters) },
      dirs: toolDirs,
    },
    skills: { dirs: skillDirs },
    memory: {
      write_mode: file.memory?.write_mode ?? "candidate",
      folder: memoryFolder,
      scopes: [...(file.memory?.scopes ?? ["run", "project", "user"])],
      project_id: file.memory?.project_id ?? null,
      provider: file.memory?.provider ?? { kind: "file" },
    },
    limits: {
      max_argument_bytes: file.limits?.max_argument_bytes ?? DEFAULT_LIMITS.max_argument_bytes,
      max_argument_depth: file.limits?.max_argument_depth ?? DEFAULT_LIMITS.max_argument_depth,
      max_output_bytes: file.limits?.max_output_bytes ?? DEFAULT_LIMITS.max_output_bytes,
      max_artifact_bytes: file.limits?.max_artifact_bytes ?? DEFAULT_LIMITS.max_artifact_bytes,
      search_time_budget_ms: file.limits?.search_time_budget_ms ??
        DEFAULT_LIMITS.search_time_budget_ms,
    },
    audit: {
      // The model's API key variable is always a secret.
      secret_env: [
        ...new Set([
          ...DEFAULT_SECRET_ENV,
          ...(file.audit?.secret_env ?? []),
          ...(file.model !== undefined && file.model.provider !== "script" &&
              file.model.api_key_env !== undefined
            ? [file.model.api_key_env]
            : []),
        ]),
      ],
    },
    hooks,
  };
}

type Wanted = "directory" | "file" | "any";

async function requireKind(
  issues: IssueText[],
  key: string,
  path: string,
  wanted: Wanted,
): Promise<void> {
  const problem = await describeMismatch(path, wanted);
  if (problem === null) return;
  const what = wanted === "directory"
    ? "an existing directory"
    : wanted === "file"
    ? "an existing file"
    : "an existing path";
  issues.push({ key, text: `key "${key}" must be ${what}: ${problem}` });
}

/** Why `path` is not what is wanted, or `null` when it is. */
async function describeMismatch(path: string, wanted: Wanted): Promise<string | null> {
  let kind: PathKind;
  try {
    kind = await pathKind(path);
  } catch (error: unknown) {
    const reason = error instanceof Error ? error.message : String(error);
    return `"${path}" cannot be checked (${reason})`;
  }
  if (kind === "missing") return `"${path}" does not exist`;
  if (wanted === "directory" && kind !== "directory") return `"${path}" is not a directory`;
  if (wanted === "file" && kind !== "file") return `"${path}" is a directory`;
  return null;
}

/**
 * `$KAGENT_HOME/tools`, with KAGENT_HOME defaulting to `~/.kagent`. Read from the environment here
 * (not a parameter) because it is a default, like HOME for `~`.
 */
function defaultToolsDir(home: () => string | undefined): string {
  let kagentHome: string | undefined;
  try {
    kagentHome = Deno.env.get("KAGENT_HOME");
  } catch {
    kagentHome = undefined;
  }
  return kagentHome !== undefined && kagentHome !== ""
    ? `${kagentHome}/tools`
    : `${home() ?? "/nonexistent"}/.kagent/tools`;
}
