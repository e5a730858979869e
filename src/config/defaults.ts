/**
 * The one home of every config default: what a config without the key gets. Each constant names
 * the key it fills, its unit and its `@default`; loading (`load_config.ts` and its `_resolve_*.ts`
 * section resolvers), the CLI, the model providers, the agent loop and the scheduler read them from
 * here. Constants that are not config defaults (a Worker's handler timeout, an HTTP backoff) live
 * beside their concept instead.
 *
 * @module
 */

/**
 * `runs_dir`: the folder, beside the config file, that holds one folder per run.
 * @default "runs"
 */
export const DEFAULT_RUNS_DIR = "runs";

/** `sandbox.*` defaults (`read_roots`, `write_roots` and `sensitive_paths` default to `[]`). */
export const DEFAULT_SANDBOX: Readonly<{
  /** How commands are confined. @default "auto" */
  command_isolation: "auto" | "bwrap" | "none";
  /** Commands under bubblewrap keep the host network. @default false */
  command_network: boolean;
  /** New `.git` below the top of a write root are kept, not quarantined. @default false */
  allow_nested_repositories: boolean;
  /** `fs.list_files` hides sensitive entries instead of marking them. @default false */
  hide_sensitive_in_listings: boolean;
}> = Object.freeze({
  command_isolation: "auto",
  command_network: false,
  allow_nested_repositories: false,
  hide_sensitive_in_listings: false,
});

/** `agent.max_turns`: model turns before the run stops, 1..1000. @default 50 */
export const DEFAULT_MAX_TURNS = 50;

/**
 * `agent.max_parallel_tools`: consecutive readonly calls of a model turn run at once, 1..32; also
 * the scheduler's and the agent loop's concurrency when none is given.
 * @default 4
 */
export const DEFAULT_MAX_PARALLEL_TOOLS = 4;

/** Limits of child agents (`agent.max_children_per_run`, `max_concurrent_children`, `max_depth`). */
export const DEFAULT_CHILD_AGENTS: Readonly<{
  /** Child agents one run may start in all. @default 16 */
  max_children_per_run: number;
  /** Child agents that run at once in the whole agent tree. @default 4 */
  max_concurrent_children: number;
  /** Levels of the agent tree, the main agent being level 1. @default 2 */
  max_depth: number;
}> = Object.freeze({ max_children_per_run: 16, max_concurrent_children: 4, max_depth: 2 });

/**
 * What an id of `agents` looks like: lower-case letters, digits, `_` and `-`, starting with a
 * letter, at most 64 characters (`reviewer`, `step-worker`).
 */
export const AGENT_ID_PATTERN: RegExp = /^[a-z][a-z0-9_-]{0,63}$/;

/**
 * `agent.instructions`: the largest instructions file accepted, in bytes.
 * @default 65536 (64 KiB)
 */
export const MAX_INSTRUCTIONS_BYTES = 65_536;

/** `limits.*`, in bytes (levels of nesting for `max_argument_depth`, ms for the time budget). */
export const DEFAULT_LIMITS: Readonly<{
  /** Largest tool-call argument JSON text accepted, in bytes. @default 1048576 (1 MiB) */
  max_argument_bytes: number;
  /** Deepest nesting of arrays and objects in tool-call arguments, in levels. @default 32 */
  max_argument_depth: number;
  /**
   * Largest tool output kept inline in a result, in bytes; above it the full output goes to an
   * artifact. @default 65536 (64 KiB)
   */
  max_output_bytes: number;
  /**
   * Largest artifact stored, in bytes; above it the artifact is cut and marked truncated.
   * @default 104857600 (100 MiB)
   */
  max_artifact_bytes: number;
  /**
   * Longest one search or recursive listing runs, in ms; then it returns, truncated.
   * @default 10000 (10 s)
   */
  search_time_budget_ms: number;
}> = Object.freeze({
  max_argument_bytes: 1_048_576,
  max_argument_depth: 32,
  max_output_bytes: 65_536,
  max_artifact_bytes: 104_857_600,
  search_time_budget_ms: 10_000,
});

/** `network.*`: the allowlist and caps of `net.fetch`. */
export const DEFAULT_NETWORK: Readonly<{
  /** Allowlist patterns. @default [] (no `net.fetch`) */
  hosts: readonly string[];
  /** Largest response body read, in bytes. @default 10485760 (10 MiB) */
  max_response_bytes: number;
  /** Longest call, redirects and body included, in ms. @default 30000 (30 s) */
  timeout_ms: number;
  /** Redirects followed. @default 5 */
  max_redirects: number;
}> = Object.freeze({
  hosts: Object.freeze([]) as readonly string[],
  max_response_bytes: 10_485_760,
  timeout_ms: 30_000,
  max_redirects: 5,
});

/**
 * `limits.max_argument_depth`: the highest value a config may set (256 levels). Arguments are
 * parsed and walked without recursion, but they are also copied to the tool Worker (structured
 * clone), redacted and summarised, which recurse: V8's structured clone overflows its stack
 * somewhere between 1,000 and 5,000 levels, so a config cannot raise the limit near that.
 */
export const MAX_ARGUMENT_DEPTH = 256;

/**
 * `audit.secret_env`: environment variables whose values are always redacted from logs, results and
 * artifacts. The names listed in a config file are added to these.
 */
export const DEFAULT_SECRET_ENV: readonly string[] = Object.freeze([
  "ANTHROPIC_API_KEY",
  "OPENAI_API_KEY",
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
]);

/**
 * `audit.trace_content` and `audit.trace_hosts`: spans carry no arguments or outputs, and the
 * OpenTelemetry exporter may send to no host (a run with OTEL_DENO=true and an OTLP endpoint is
 * refused until its host is listed).
 */
export const DEFAULT_AUDIT_TRACING: Readonly<
  { trace_content: boolean; trace_hosts: readonly string[] }
> = Object.freeze({ trace_content: false, trace_hosts: Object.freeze([]) });

/** `audit.signing_key_env`: none, the manifest of a run is not signed. */
export const DEFAULT_SIGNING_KEY_ENV: string | null = null;

/** `tools.*` defaults: times in ms, sizes in bytes (`env` defaults to `[]`). */
export const DEFAULT_TOOLS: Readonly<{
  /** Time a command may run when neither the call nor the tool says less, in ms. @default 120000 */
  default_timeout_ms: number;
  /** Longest time any command may run, in ms. @default 600000 */
  max_timeout_ms: number;
  /** Standard output kept inline in a result, in bytes. @default 65536 */
  stdout_limit_bytes: number;
  /** Standard error kept inline in a result, in bytes. @default 16384 */
  stderr_limit_bytes: number;
  /** git runs with hooks, fsmonitor, pagers and external diff disabled. @default true */
  git_safe_mode: boolean;
  /** `.git` stays read-only for commands. @default false */
  git_write: boolean;
  /**
   * Processes a confined command's user may run at once inside bubblewrap (`RLIMIT_NPROC`).
   * @default 512
   */
  max_processes: number;
  /**
   * Interpreter by extension for skill scripts without a shebang.
   * @default {".sh": "sh", ".py": "python3"}
   */
  interpreters: Readonly<Record<string, string>>;
}> = Object.freeze({
  default_timeout_ms: 120_000,
  max_timeout_ms: 600_000,
  stdout_limit_bytes: 65_536,
  stderr_limit_bytes: 16_384,
  git_safe_mode: true,
  git_write: false,
  max_processes: 512,
  interpreters: Object.freeze({ ".sh": "sh", ".py": "python3" }),
});

/**
 * `tools.dirs`: the folder of declarative tools under `$KAGENT_HOME` (itself defaulting to
 * {@linkcode DEFAULT_KAGENT_HOME}). @default "tools"
 */
export const DEFAULT_TOOLS_DIR_NAME = "tools";

/** `$KAGENT_HOME` when the variable is unset or empty. @default "~/.kagent" */
export const DEFAULT_KAGENT_HOME = "~/.kagent";

/**
 * `skills.dirs`: one folder beside the config file (the workspace's `.agents/skills` is added by
 * loading). @default ["skills"]
 */
export const DEFAULT_SKILL_DIRS: readonly string[] = Object.freeze(["skills"]);

/**
 * `skills.dirs`: the folder inside the workspace added to the default.
 * @default ".agents/skills"
 */
export const DEFAULT_WORKSPACE_SKILL_DIR = ".agents/skills";

/** `memory.*` defaults (`project_id` defaults to one derived from the workspace). */
export const DEFAULT_MEMORY: Readonly<{
  /** What a write does. @default "candidate" */
  write_mode: "disabled" | "candidate" | "external";
  /** The file provider's folder, outside the workspace. @default "~/.kagent/memory" */
  folder: string;
  /** Scopes memories may use. @default ["run", "project", "user"] */
  scopes: readonly string[];
  /** Where memories are recalled from and written to. @default {kind: "file"} */
  provider: Readonly<{ kind: "file" }>;
  /** `memory.provider.timeout_ms` of an `http` provider, per request, in ms. @default 10000 */
  http_timeout_ms: number;
}> = Object.freeze({
  write_mode: "candidate",
  folder: `${DEFAULT_KAGENT_HOME}/memory`,
  scopes: Object.freeze(["run", "project", "user"]),
  provider: Object.freeze({ kind: "file" }),
  http_timeout_ms: 10_000,
});

/**
 * Defaults of the dynamic system blocks: `agent.instruction_files`,
 * `agent.instruction_file_max_bytes`, `memory.context_max_bytes`, `memory.context_limit`.
 */
export const DEFAULT_SYSTEM_BLOCKS: Readonly<{
  /** File names whose first `fs.read_file` adds an instruction_file block. @default ["AGENTS.md", "CLAUDE.md"] */
  instruction_files: readonly string[];
  /** Largest instruction_file block, in UTF-8 bytes (all of them: 4 times this). @default 8192 */
  instruction_file_max_bytes: number;
  /** Largest memory_context block, in UTF-8 bytes; 0: none. @default 4096 */
  memory_context_max_bytes: number;
  /** Memories recalled for the task at the run's start, per scope (project, user); 0: none. @default 5 */
  memory_context_limit: number;
}> = Object.freeze({
  instruction_files: Object.freeze(["AGENTS.md", "CLAUDE.md"]),
  instruction_file_max_bytes: 8192,
  memory_context_max_bytes: 4096,
  memory_context_limit: 5,
});

/** `model.*` defaults of the HTTP providers (`openai`, `anthropic`). */
export const DEFAULT_MODEL: Readonly<{
  /** `model.base_url` by provider, up to `/v1`. */
  base_urls: Readonly<Record<"openai" | "anthropic", string>>;
  /** `model.timeout_ms`: per request attempt, in ms. @default 120000 */
  timeout_ms: number;
  /**
   * `model.retries`: retries after the first attempt on 429, 5xx and connection errors.
   * @default 3
   */
  retries: number;
  /**
   * `model.max_tokens` of `anthropic` (required by its API; `openai` leaves it to the server), in
   * tokens. @default 4096
   */
  anthropic_max_tokens: number;
  /**
   * `model.stream`: ask for the answer as server-sent events. On by default: the Anthropic API
   * refuses a non-streamed request whose output could take over ten minutes (about 21,333
   * max_tokens), a streamed answer is timed per chunk instead of whole (a long turn does not time
   * out while tokens flow), and its first-token time is recorded; a server that ignores `stream`
   * and answers JSON is read as JSON. @default true
   */
  stream: boolean;
}> = Object.freeze({
  base_urls: Object.freeze({
    openai: "https://api.openai.com/v1",
    anthropic: "https://api.anthropic.com/v1",
  }),
  timeout_ms: 120_000,
  retries: 3,
  anthropic_max_tokens: 4096,
  stream: true,
});

/** `hooks.*[].timeout_ms` default and ceiling, in ms; `hooks.*[].tools` default. */
export const DEFAULT_HOOK: Readonly<{
  /** Time a hook may run, in ms. @default 10000 */
  timeout_ms: number;
  /** The highest `timeout_ms` a config may set, in ms. @default 60000 */
  max_timeout_ms: number;
  /** Glob patterns over tool names the hook runs for. @default ["*"] */
  tools: readonly string[];
}> = Object.freeze({
  timeout_ms: 10_000,
  max_timeout_ms: 60_000,
  tools: Object.freeze(["*"]),
});

/** Defaults of an `mcp_servers` entry. */
export const DEFAULT_MCP_SERVER: Readonly<{
  /** Longest one tool call may take, in ms. @default 60000 */
  timeout_ms: number;
  /** Longest the server may take to start and list its tools, in ms. @default 30000 */
  startup_timeout_ms: number;
  /** @default false */
  trust_annotations: boolean;
  /** @default true */
  required: boolean;
  /** Under bubblewrap, the workspace and write roots writable. @default false */
  write: boolean;
  /** Under bubblewrap, the host's network. @default false */
  network: boolean;
}> = Object.freeze({
  timeout_ms: 60_000,
  startup_timeout_ms: 30_000,
  trust_annotations: false,
  required: true,
  write: false,
  network: false,
});
