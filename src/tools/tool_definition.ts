/**
 * The tool contract (ARCHITECTURE §4): what a tool declares and how its handler is called.
 *
 * A tool is data the main thread reads (name, schema, permission, tags, annotations, targets) plus
 * a handler that runs inside the tool Worker. Both sides import the same definitions.
 *
 * @module
 */

import { z } from "zod";
import type { PathAccess, PathGuard } from "../sandbox/mod.ts";

export type { PathAccess };

/** `readonly` tools never change anything; `write` tools may. */
export type Permission = "readonly" | "write";

/** Risk levels 0–4, named after the MCP risk vocabulary: Safe, Low, Medium, High, Critical. */
export type RiskLevel = 0 | 1 | 2 | 3 | 4;

/** Names of {@linkcode RiskLevel} values, indexed by level. */
export const RISK_LEVEL_NAMES = ["Safe", "Low", "Medium", "High", "Critical"] as const;

/**
 * Behaviour hints. The names follow the MCP tool annotations (`readOnlyHint`, `destructiveHint`,
 * `idempotentHint`, `openWorldHint`) in snake_case, plus kagent-run's risk level and category.
 */
export interface ToolAnnotations {
  /** The tool never modifies its environment. */
  read_only: boolean;
  /** The tool may delete or overwrite data irreversibly; off by default in every policy. */
  destructive: boolean;
  /** Calling twice with the same arguments has no further effect. */
  idempotent: boolean;
  /** The tool reaches outside the sandbox (network, other systems). */
  open_world: boolean;
  /** 0 Safe, 1 Low, 2 Medium, 3 High, 4 Critical. */
  risk_level: RiskLevel;
  /** Free-form grouping for listings, e.g. `filesystem`. */
  category: string;
  /** A person should confirm each call even when the policy allows it (the policy reads it as ask). */
  requires_confirmation: boolean;
}

/** What a tool call touches, declared from its validated arguments before it runs. */
export type TargetRequest =
  | PathTargetRequest
  | CommandTargetRequest
  | ScriptTargetRequest
  | HostTargetRequest;

/**
 * A host the call reaches (`net.fetch`): the URL's `hostname:port` must be admitted by
 * `network.hosts`, and is the call's policy scope.
 */
export interface HostTargetRequest {
  kind: "host";
  /** An http(s) URL. */
  url: string;
}

/** A program the call runs: argv[0] must be allowlisted, `cwd` inside the roots. */
export interface CommandTargetRequest {
  kind: "command";
  argv: readonly string[];
  /** Relative to the workspace or absolute. @default "." */
  cwd?: string;
  /**
   * The program was chosen by a tool definition (a declarative tool), not by the request: it is not
   * judged as unrestricted execution, while its filled-in arguments are still analysed.
   */
  declared?: boolean;
}

/** A script of a skill the call runs (`<skill dir>/scripts/<script>`), with its arguments. */
export interface ScriptTargetRequest {
  kind: "script";
  skill: string;
  script: string;
  args: readonly string[];
}

/** A filesystem path the call reads, writes, lists or deletes. */
export interface PathTargetRequest {
  kind: "path";
  /** As the model gave it: relative to the workspace, or absolute. */
  path: string;
  /** `list` reads a directory (walks), `read` reads a file, `write` creates or changes, `delete` removes. */
  access: PathAccess;
}

/** The run folders a handler may write into besides the write roots (absolute real paths). */
export interface RunLocations {
  run_id: string;
  /** `runs/<id>/workspace/`: scratch space for the run. */
  workspace: string;
  /** `runs/<id>/deliverables/`: what the run hands over. */
  deliverables: string;
}

/**
 * What command tools need in the Worker (absent when no command tool is enabled). Plain data, sent
 * by the main thread when the Worker starts.
 */
export interface ExecContext {
  /** The allowlist (`commands`): configured name → absolute real path, resolved at start-up. */
  programs: { name: string; path: string }[];
  /** What skill scripts may name as interpreter: `commands` plus `tools.interpreters`. */
  script_programs: { name: string; path: string }[];
  /** Interpreters for skill scripts, by extension (".py") → configured program name. */
  interpreters: Record<string, string>;
  /** Absolute real skill folders (`<dir>/<skill>/scripts/<script>`). */
  skill_dirs: string[];
  setsid_path: string;
  kill_path: string;
  /** "bwrap" when commands run under bubblewrap (then `bwrap_path` is set), else "none". */
  isolation: "bwrap" | "none";
  bwrap_path: string | null;
  /** The host's system folders and /etc entries, read-only inside bubblewrap. */
  system_mounts: (
    | { kind: "ro-bind"; path: string; source: string }
    | { kind: "symlink"; path: string; target: string }
  )[];
  /** Folders of allowlisted programs outside the system folders, read-only inside bubblewrap. */
  program_folders: string[];
  /** `tools.git_write`: `.git` writable inside bubblewrap, except its code-running entries. */
  git_write: boolean;
  /**
   * `sandbox.allow_nested_repositories`: a `.git` a command creates below the top of a write root
   * is kept (not quarantined).
   */
  allow_nested_repositories: boolean;
  /** `sandbox.command_network`: commands keep the host network. */
  network: boolean;
  /** RLIMIT_NPROC inside bubblewrap, set by `prlimit`; null when prlimit is missing. */
  process_limit: { prlimitPath: string; max: number } | null;
  /** The children's `PATH`: the programs' folders and the system folders, none writable. */
  search_path: string;
  /** Exact environment names a child may get (the Worker may read only these). */
  environment_names: string[];
  /** HOME and TMPDIR of children: `runs/<id>/home` and `runs/<id>/tmp`, which fs tools cannot write. */
  home: string;
  tmp_dir: string;
  git_safe_mode: boolean;
  default_timeout_ms: number;
  max_timeout_ms: number;
  stdout_limit_bytes: number;
  stderr_limit_bytes: number;
  /** Full output streams go here as sha256-named artifacts. */
  artifacts_dir: string;
  run_dir: string;
  max_artifact_bytes: number;
  /** Values to redact from command output (secret environment values). */
  secrets: string[];
}

/** What a handler receives besides its arguments. Everything it touches comes through here. */
export interface ToolContext {
  /** The one path guard: every path a handler touches goes through it, walks included. */
  guard: PathGuard;
  /** Canonical (real) path of the workspace. */
  workspace: string;
  run: RunLocations;
  tool_call_id: string;
  /** Aborted when the run is interrupted; handlers stop early and return `aborted`. */
  signal: AbortSignal;
  /** Present when command tools are enabled. */
  exec?: ExecContext;
  /** Settings of the file tools from the config; each tool's defaults apply when absent. */
  files?: FileToolSettings;
  /**
   * `fs.grep_files` only: the files of the searched folder ripgrep found may match, once the
   * main thread's ripgrep is done (`toolsets/fs/ripgrep_prefilter.ts`); null when it failed.
   * Absent: no ripgrep runs, every file is read.
   */
  search_candidates?: Promise<SearchCandidates | null>;
}

/**
 * The files below a searched folder that may hold a matching line, as ripgrep named them. Only a
 * filter: a file not named is counted as searched without being read, a named one is still walked
 * to, checked and read by the handler itself.
 */
export interface SearchCandidates {
  /** Real path of the folder ripgrep searched; the handler uses the set only for this folder. */
  root: string;
  /** Paths relative to `root`, `/`-separated. */
  files: string[];
}

/** Settings of the file tools (`fs.grep_files`, `fs.list_files`) from the config. */
export interface FileToolSettings {
  /**
   * `limits.search_time_budget_ms`: longest one search or recursive listing runs, in ms; then it
   * returns what it found, marked truncated (`truncated_reason: "time_budget"`).
   */
  search_time_budget_ms: number;
  /**
   * `sandbox.hide_sensitive_in_listings`: `fs.list_files` leaves sensitive entries (`.env`,
   * `*.pem`, …) out and counts them, instead of listing them marked sensitive.
   */
  hide_sensitive_in_listings: boolean;
}

/** JSON Schema object as data (the supported subset is checked by the registry). */
export type JsonSchema = Record<string, unknown>;

/**
 * A registered tool. `input_schema` is JSON Schema; typed tools get it from zod through
 * {@linkcode defineTool}, which also erases the handler's argument type: a `ToolDefinition` (the
 * default `Args = unknown`) takes its arguments as `unknown`, and the registry validates them
 * against `input_schema` before `targets` or `handler` sees them. Only {@linkcode TypedToolOptions}
 * names the typed view.
 *
 * @typeParam Args What `targets` and `handler` receive. @default unknown
 */
export interface ToolDefinition<Args = unknown> {
  /** Canonical dotted name, `<toolset>.<verb>_<noun>` in snake_case, e.g. `fs.read_file`. */
  name: string;
  /** What the tool does, for the model: one or two sentences plus limits. */
  description: string;
  /** JSON Schema of the arguments object; every object in it is closed (no unknown keys). */
  input_schema: JsonSchema;
  permission: Permission;
  /** Free labels that policy rules match, e.g. `filesystem`, `write`, `destructive`, `dangerous`. */
  tags: readonly string[];
  annotations: ToolAnnotations;
  /**
   * The paths, commands and hosts the call touches, from validated arguments. The main thread
   * resolves them through the path guard and the policy decides on the result. Default: none.
   */
  targets?(args: Args): TargetRequest[];
  /**
   * Does the work inside the tool Worker. May return a {@linkcode ToolOutcome} or a plain value
   * (wrapped by the runtime). Throwing is allowed but discouraged: the Worker turns a throw into
   * `internal_error`, or `sandbox_violation` when Deno's permissions stopped it.
   */
  handler(args: Args, context: ToolContext): unknown;
}

/** Options of {@linkcode defineTool}: a definition with a zod schema instead of JSON Schema. */
export interface TypedToolOptions<Schema extends z.ZodObject>
  extends Omit<ToolDefinition<z.input<Schema>>, "input_schema" | "annotations"> {
  /** A `z.strictObject`; its JSON Schema becomes `input_schema`. */
  parameters: Schema;
  /** Partial annotations; the rest are derived from `permission` (see {@linkcode defineTool}). */
  annotations?: Partial<ToolAnnotations>;
}

/**
 * Defines a typed tool from a zod schema. Annotations default from the permission: readonly tools
 * are `read_only`, idempotent, risk 0; write tools risk 2. Handlers see the schema's input type:
 * the runtime validates but never fills defaults, so optional fields may be absent.
 *
 * The result is type-erased (a plain {@linkcode ToolDefinition}, arguments `unknown`), so tools of
 * different schemas share one list without casts. This is the one place the typed view is
 * dropped; it holds because the registry compiles `input_schema` (the schema's JSON Schema) and
 * validates every call's arguments against it before `targets` or `handler` runs.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { defineTool } from "./tool_definition.ts";
 * const echo = defineTool({
 *   name: "demo.echo",
 *   description: "Returns its text",
 *   parameters: z.strictObject({ text: z.string() }),
 *   permission: "readonly",
 *   tags: ["demo"],
 *   handler: (args) => args.text,
 * });
 * ```
 */
export function defineTool<Schema extends z.ZodObject>(
  options: TypedToolOptions<Schema>,
): ToolDefinition {
  const readOnly = options.permission === "readonly";
  const { parameters, annotations, handler, targets, ...rest } = options;
  // Written on first read: the registry reads it at start-up, the tool Worker (which only runs
  // handlers on arguments the main thread validated) never does.
  let schema: JsonSchema | null = null;
  // The erasure: the registry validates arguments against `schema` before either function runs.
  type Erased = ToolDefinition<unknown>;
  return {
    ...rest,
    handler: handler as Erased["handler"],
    ...(targets === undefined ? {} : { targets: targets as NonNullable<Erased["targets"]> }),
    get input_schema(): JsonSchema {
      if (schema === null) {
        const written = z.toJSONSchema(parameters, {
          io: "input",
          unrepresentable: "throw",
        }) as JsonSchema;
        delete written.$schema;
        schema = written;
      }
      return schema;
    },
    annotations: {
      read_only: readOnly,
      destructive: false,
      idempotent: readOnly,
      open_world: false,
      risk_level: readOnly ? 0 : 2,
      category: "general",
      requires_confirmation: false,
      ...annotations,
    },
  };
}

/** A tool definition without its handler: what the main thread, `tools` and `policy` show. */
export type ToolDescriptor = Omit<ToolDefinition, "handler" | "targets">;

/** Strips the functions of a definition, for listings, snapshots and providers. */
export function describeTool(tool: ToolDefinition<never>): ToolDescriptor {
  return {
    name: tool.name,
    description: tool.description,
    // Read when used: a built-in tool's schema is written on first read, and the policy, which
    // takes every tool's descriptor at start-up, never reads it (issue 16).
    get input_schema(): JsonSchema {
      return tool.input_schema;
    },
    permission: tool.permission,
    tags: tool.tags,
    annotations: tool.annotations,
  };
}
