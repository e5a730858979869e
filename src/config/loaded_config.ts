/**
 * The shape of a loaded config, derived from the zod schema of the file: every section's keys come
 * from {@linkcode ConfigFileSchema}'s output with `undefined` removed (the defaults filled), and
 * only the fields that loading changes in kind are written here (absolute paths, `null` for "none",
 * hooks and permissions in their loaded form). A key added to the schema therefore appears in
 * {@linkcode LoadedConfig} at once, and `loadConfig` does not type-check until it fills it.
 *
 * @module
 */

import type { z } from "zod";
import type { ConfigFileSchema, HookConfigSchema, ModelConfigInput } from "./config_schema.ts";
import type { LoadedPermissions } from "./permissions_schema.ts";
import type { LoadedNetwork } from "./network_schema.ts";
import type { LoadedTasks } from "./tasks_schema.ts";

/** A config file as validated (the output of {@linkcode ConfigFileSchema}). */
type FileOutput = z.output<typeof ConfigFileSchema>;

/** The sections of a config file, `$schema` (ignored by loading) left out. */
type FileSections = Omit<FileOutput, "$schema">;

/** `T` with every key present and `undefined` removed: a section after its defaults are filled. */
export type Defaulted<T> = { [K in keyof T]-?: Exclude<T[K], undefined> };

/** A section of the file with its defaults filled. */
type DefaultedSection<K extends keyof FileSections> = Defaulted<NonNullable<FileSections[K]>>;

/**
 * One command hook after loading: `command` with argv[0] as written when it is a bare name
 * (searched in PATH at start-up), otherwise an absolute path; `tools` (glob patterns over tool
 * names, default `["*"]`) and `timeout_ms` (1..60000, default 10000) filled.
 */
export type LoadedHook = Defaulted<z.output<typeof HookConfigSchema>>;

/** What every loaded `mcp_servers` entry has, defaults filled; `tools` null means all. */
interface LoadedMcpServerCommon {
  /** Longest one call may take, in ms. */
  timeout_ms: number;
  /** Longest start-up and tool listing may take, in ms. */
  startup_timeout_ms: number;
  tools: string[] | null;
  trust_annotations: boolean;
  required: boolean;
}

/**
 * A stdio `mcp_servers` entry after loading: `command` a bare name (searched in the server's PATH)
 * or an absolute path, `cwd` absolute inside the workspace, `env` values as written (`${VAR}`
 * expands at start-up, as a secret).
 */
export interface LoadedMcpStdioServer extends LoadedMcpServerCommon {
  type: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Under bubblewrap: the workspace and write roots writable (else read-only). */
  write: boolean;
  /** Under bubblewrap: the host's network (else an isolated loopback only). */
  network: boolean;
}

/**
 * An HTTP `mcp_servers` entry after loading: `type` `"http"` (Streamable HTTP; `"streamable-http"`
 * in the file) or `"sse"` (the older HTTP+SSE transport), `url` an http(s) URL, `headers` values
 * as written (`${VAR}` expands at start-up, as a secret). It is reached only through the network
 * Worker's `mcp` channel.
 */
export interface LoadedMcpHttpServer extends LoadedMcpServerCommon {
  type: "http" | "sse";
  url: string;
  headers: Record<string, string>;
}

/** One `mcp_servers` entry after loading. */
export type LoadedMcpServer = LoadedMcpStdioServer | LoadedMcpHttpServer;

/** `model` after loading: the script path absolute. */
export type ModelConfig = ModelConfigInput;

/**
 * One `agents` entry after loading: a child agent's definition with its model's script path
 * absolute; `null` for "none" (instructions, model: the config's own, allowed_tools: the agent
 * type's set), `max_turns` filled from `agent.max_turns`.
 */
export interface LoadedAgentDefinition {
  /** The entry's key. */
  id: string;
  description: string;
  agent_type: "sub" | "fork" | "worker";
  instructions: string | null;
  model: ModelConfig | null;
  allowed_tools: string[] | null;
  suggested_tools: string[];
  max_turns: number;
}

/**
 * The sections whose loaded form differs in kind from the file's (paths, `null`s, loaded parts).
 */
interface ResolvedSections {
  /** The sandbox root, an existing directory. Default: the config file's folder. */
  workspace: string;
  /**
   * Folder of run folders; may not exist yet (the audit module creates it). Default:
   * `<configDir>/runs`.
   */
  runs_dir: string;
  /**
   * The config layer's rules, ids filled, and the mode. Default:
   * `{ rules: [], mode: "default", smart_max_risk: 0 }`.
   */
  permissions: LoadedPermissions;
  /** The model, or `null` when the config has none. */
  model: ModelConfig | null;
  /** The task text, or `null` when the config has none. */
  task: string | null;
  /** Loop settings; see `DEFAULT_MAX_TURNS`, `DEFAULT_MAX_PARALLEL_TOOLS`. */
  agent: Omit<DefaultedSection<"agent">, "instructions"> & {
    /**
     * The `agent.instructions` file for the system prompt: its absolute path and its text (UTF-8,
     * at most 64 KiB, `MAX_INSTRUCTIONS_BYTES`), read when the config loads. Default `null`.
     */
    instructions: { path: string; text: string } | null;
  };
  /** Memory settings; see `DEFAULT_MEMORY`. */
  memory: Omit<DefaultedSection<"memory">, "folder" | "project_id"> & {
    /**
     * Absolute folder of the file provider (outside the workspace); null when the default would
     * lie in the workspace or HOME is unknown (then memory tools are off).
     */
    folder: string | null;
    /** `memory.project_id`: the project identity keying the `project` scope; null: derived. */
    project_id: string | null;
  };
  /** Command hooks, in order; resolved to programs at start-up. Default: none. */
  hooks: { [K in keyof DefaultedSection<"hooks">]: LoadedHook[] };
  /** MCP servers by id (stdio and HTTP). Default: none. */
  mcp_servers: Record<string, LoadedMcpServer>;
  /** Child agent definitions by id. Default: none. */
  agents: Record<string, LoadedAgentDefinition>;
  /** The allowlist and caps of `net.fetch`; see `DEFAULT_NETWORK`. */
  network: LoadedNetwork;
  /** Sizes and budgets; see `DEFAULT_LIMITS`. `max_total_tokens` null: no token budget. */
  limits: Omit<DefaultedSection<"limits">, "max_total_tokens"> & {
    max_total_tokens: number | null;
  };
  /** `tasks`: the task graph's store and leases. */
  tasks: LoadedTasks;
}

/** Every section of the file: its resolved form when it has one, else its defaulted form. */
type LoadedSections = {
  [K in keyof FileSections]-?: K extends keyof ResolvedSections ? ResolvedSections[K]
    : DefaultedSection<K>;
};

/**
 * A config after loading: every optional key filled with its default, every path absolute and
 * normalised (not realpath'd: the sandbox canonicalises roots itself), permissions loaded with rule
 * ids filled. File keys keep their snake_case names; the camelCase fields are added by loading.
 * Sizes are in bytes and times in ms, as in the file; the defaults are in `defaults.ts`.
 */
export type LoadedConfig = LoadedSections & {
  /** Absolute path of the config file. */
  configPath: string;
  /** Absolute path of the folder holding the config file; relative paths resolve against it. */
  configDir: string;
  /** Absolute path of the permissions file, or `null` when the rules are inline or absent. */
  permissionsPath: string | null;
};
