/**
 * The config file format (ARCHITECTURE §4), as zod schemas. These describe the file as written:
 * every key is optional, nothing is defaulted or resolved here (loading does
 * that), so the same schemas publish the JSON Schema.
 *
 * @module
 */

import { z } from "zod";
import { PermissionsFileSchema } from "./permissions_schema.ts";
import {
  AGENT_ID_PATTERN,
  DEFAULT_CHILD_AGENTS,
  DEFAULT_HOOK,
  DEFAULT_SYSTEM_BLOCKS,
  MAX_ARGUMENT_DEPTH,
  MAX_INSTRUCTIONS_BYTES,
} from "./defaults.ts";
import { McpServersSchema } from "./mcp_server_schema.ts";
import { AuditConfigSchema } from "./audit_schema.ts";
import { NetworkConfigSchema } from "./network_schema.ts";
import { TasksConfigSchema } from "./tasks_schema.ts";
import {
  AnthropicModelConfigSchema,
  ModelConfigSchema,
  OpenAiModelConfigSchema,
  ScriptModelConfigSchema,
} from "./model_schema.ts";

export { AuditConfigSchema };

const pathString = (description: string) => z.string().min(1).describe(description);

/**
 * An http(s) URL: the network boundary derives `hostname:port` from it, so `file:`, `ftp:` or a
 * bare host are refused at load.
 */
const httpUrl = () => z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" });

/** `sandbox`: extra roots and sensitive patterns. */
export const SandboxConfigSchema = z.strictObject({
  read_roots: z.array(pathString("A read-only root; must exist.")).optional().describe(
    "Extra read-only roots besides the workspace. Default: [].",
  ),
  write_roots: z.array(pathString("A writable root inside the workspace.")).optional().describe(
    "Writable roots, each inside the workspace (the workspace itself is always writable). " +
      "Default: [].",
  ),
  sensitive_paths: z.array(z.string().min(1)).optional().describe(
    "Glob patterns added to the runtime's sensitive paths (never read or written). Default: [].",
  ),
  command_isolation: z.enum(["auto", "bwrap", "none"]).optional().describe(
    'How commands are confined by the operating system: "bwrap" (bubblewrap with a minimal ' +
      'mount profile; the run fails when it cannot run), "auto" (bubblewrap when it works; ' +
      "otherwise command tools are turned off, with the reason recorded and printed), or " +
      '"none" (no OS confinement: every command call asks, and in CI needs a grant for its ' +
      'exact argv and folder). Default: "auto".',
  ),
  command_network: z.boolean().optional().describe(
    "Commands under bubblewrap keep the host network (every host: bubblewrap cannot filter by " +
      "host); otherwise they see only an isolated loopback. Default: false.",
  ),
  allow_nested_repositories: z.boolean().optional().describe(
    "A .git folder or file that a process of the run creates below the top of the workspace or " +
      "a write root (a task that clones a repository) is kept; otherwise every new .git, at any " +
      "depth, is moved to runs/<id>/quarantine/ and the call fails. A kept repository's config " +
      "and hooks are the agent's: a later git command of the user inside it can run them. " +
      "Default: false.",
  ),
  hide_sensitive_in_listings: z.boolean().optional().describe(
    "fs.list_files leaves sensitive files (.env, *.pem, sensitive_paths, ...) out of its " +
      'listings and says how many it hid; otherwise it lists them marked "sensitive". ' +
      "Default: false.",
  ),
});

const environmentName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*\*?$|^[A-Za-z_*][A-Za-z0-9_*]*$/, {
  error: "must be an environment variable name or a glob such as GITHUB_*",
});

/** `tools`: limits and settings of command tools (exec.run_command, skills.run_script, declarative tools). */
export const ToolsConfigSchema = z.strictObject({
  default_timeout_ms: z.int().min(1).optional().describe(
    "Time a command may run when neither the call nor the tool says less, in ms. Default: 120000.",
  ),
  max_timeout_ms: z.int().min(1).optional().describe(
    "Longest time any command may run, in ms; a tool definition may lower it, a request never " +
      "raises it. Default: 600000.",
  ),
  stdout_limit_bytes: z.int().min(64).optional().describe(
    "Standard output kept inline in a result (head and tail), in bytes; the whole stream goes to " +
      "an artifact. Default: 65536.",
  ),
  stderr_limit_bytes: z.int().min(64).optional().describe(
    "Standard error kept inline in a result (head and tail), in bytes. Default: 16384.",
  ),
  env: z.array(environmentName).optional().describe(
    "Environment variables passed to commands besides HOME, TMPDIR, LANG, LC_ALL and TERM (PATH " +
      "is built by the runtime: the programs' folders, then the system folders); globs allowed " +
      "(GITHUB_*). A glob never passes a variable that configures a program or holds a " +
      "credential (the families in src/exec/never_passed_variables.ts: LD_*, GIT_*, TAR_*, " +
      "RIPGREP_*, *_OPTIONS, *PATH, *CONF*, *RC, *INIT, *HOME, XDG_*, PYTHON*, NODE_*, PERL*, " +
      "RUBY*, EDITOR, PAGER, MAKEFLAGS, OPENSSL_*, *TOKEN*, …); only an entry naming one exactly " +
      "passes it. Default: [].",
  ),
  git_safe_mode: z.boolean().optional().describe(
    "Run git with hooks, fsmonitor, pagers and external diff disabled. Default: true.",
  ),
  git_write: z.boolean().optional().describe(
    "Let confined commands write .git (git commit, git add), except config, config.worktree, " +
      "hooks/, commondir, info/ and objects/info/alternates, which stay read-only (a command " +
      "that creates a missing one fails and the entry is moved to the run folder). " +
      "Default: false (.git is read-only).",
  ),
  max_processes: z.int().min(8).max(65_536).optional().describe(
    "Processes a command may run at once inside bubblewrap (RLIMIT_NPROC in the sandbox's user " +
      "namespace; Linux does not enforce it for root). Default: 512.",
  ),
  interpreters: z.record(z.string().regex(/^\.[A-Za-z0-9]+$/), z.string().min(1)).optional()
    .describe(
      'Interpreter by file extension for skill scripts without a shebang, e.g. {".py": ' +
        '"python3"}. Default: {".sh": "sh", ".py": "python3"}.',
    ),
  dirs: z.array(pathString("A folder of declarative tool JSON files.")).optional().describe(
    "Folders of declarative command tools (*.json), never inside the workspace. Default: " +
      '["$KAGENT_HOME/tools"] (KAGENT_HOME defaults to ~/.kagent).',
  ),
});

/** `memory`: where memories go and how writes are handled. */
export const MemoryConfigSchema = z.strictObject({
  write_mode: z.enum(["disabled", "candidate", "external"]).optional().describe(
    '"disabled": no memory.write_memory tool; "candidate": writes are appended to the run\'s ' +
      'archive/memory_candidates.jsonl for review; "external": the same (the agent only ' +
      "proposes), with memory.provider required: kagent-run memory promote writes the accepted " +
      'candidates to it. Default: "candidate".',
  ),
  folder: pathString("Folder of the file provider's JSONL files; never inside the workspace.")
    .optional().describe('Default: "~/.kagent/memory".'),
  scopes: z.array(z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/)).min(1).optional().describe(
    'Scopes memories may use. Default: ["run", "project", "user"].',
  ),
  context_max_bytes: z.int().min(0).max(65_536).optional().describe(
    "Largest memory_context block of the system prompt, in bytes (UTF-8): the memories " +
      "recalled at the run's start and by memory.recall_memory, delimited as data. 0 turns the " +
      `block off. Default: ${DEFAULT_SYSTEM_BLOCKS.memory_context_max_bytes}.`,
  ),
  context_limit: z.int().min(0).max(50).optional().describe(
    'Memories recalled for the task at the run\'s start, from each of the scopes "project" and ' +
      `"user" (when configured); 0: none. Default: ${DEFAULT_SYSTEM_BLOCKS.memory_context_limit}.`,
  ),
  project_id: z.string().min(1).max(256).optional().describe(
    'The identity of the workspace\'s project, which keys the "project" scope: workspaces with ' +
      "the same id share project memories, others never see them. Default: the normalised URL " +
      "of the git remote origin (no credentials, scheme or .git), else the real path of the git " +
      "repository's top folder, else the workspace's real path.",
  ),
  provider: z.discriminatedUnion("kind", [
    z.strictObject({ kind: z.literal("file") }),
    z.strictObject({
      kind: z.literal("http"),
      base_url: httpUrl().describe(
        "The memory service's URL; its hostname:port is the only host the memory channel of " +
          "the network Worker may reach.",
      ),
      token_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional().describe(
        "NAME of the environment variable holding the bearer token (its value is redacted).",
      ),
      timeout_ms: z.int().min(1).max(120_000).optional().describe(
        "Per request, in ms. Default: 10000.",
      ),
    }),
  ]).optional().describe(
    'Where memories are recalled from and written to. Default: {"kind": "file"}.',
  ),
});

/** `skills`: where skills are found. */
export const SkillsConfigSchema = z.strictObject({
  dirs: z.array(pathString("A folder of skills (one sub-folder a skill).")).optional().describe(
    'Folders holding skills. Default: ["skills"] beside the config file.',
  ),
});

export {
  AnthropicModelConfigSchema,
  ModelConfigSchema,
  OpenAiModelConfigSchema,
  ScriptModelConfigSchema,
};

/** `agent`: loop settings. */
export const AgentConfigSchema = z.strictObject({
  max_turns: z.int().min(1).max(1000).optional().describe(
    "Model turns before the run stops. " +
      "Default: 50.",
  ),
  max_parallel_tools: z.int().min(1).max(32).optional().describe(
    "Consecutive readonly tool calls of a model turn that run at once. Default: 4.",
  ),
  instructions: pathString(
    "Path of a text or Markdown file (UTF-8, at most 64 KiB) whose text goes into the system " +
      "prompt; relative to the config file's folder. Read when the config loads. Default: none.",
  ).optional(),
  instruction_files: z.array(z.string().min(1).max(255).regex(/^[^/\\]+$/)).max(32).optional()
    .describe(
      "File names (no folders) of instruction files: the first fs.read_file of such a file in a " +
        "run also adds its text to the system prompt of the following requests, as a delimited " +
        "instruction_file block (capped, recorded). [] turns this off. Default: " +
        `${JSON.stringify(DEFAULT_SYSTEM_BLOCKS.instruction_files)}.`,
    ),
  instruction_file_max_bytes: z.int().min(256).max(65_536).optional().describe(
    "Largest instruction_file block, in bytes (UTF-8); all of them together at most 4 times " +
      `this. Default: ${DEFAULT_SYSTEM_BLOCKS.instruction_file_max_bytes}.`,
  ),
  max_children_per_run: z.int().min(1).max(1000).optional().describe(
    "Child agents (sub-agents, forks, workers) one run may start in all; a call past it fails " +
      `without starting one. Default: ${DEFAULT_CHILD_AGENTS.max_children_per_run}.`,
  ),
  max_concurrent_children: z.int().min(1).max(32).optional().describe(
    "Child agents that run at once in the whole agent tree; further ones wait for a free slot. " +
      `Default: ${DEFAULT_CHILD_AGENTS.max_concurrent_children}.`,
  ),
  max_depth: z.int().min(1).max(8).optional().describe(
    "Levels of the agent tree, the main agent being level 1: 1 allows no child agents, 2 lets " +
      `the main agent start children. Default: ${DEFAULT_CHILD_AGENTS.max_depth}.`,
  ),
});

/** One entry of `agents`: a child agent the main agent may start with the agent tools. */
export const AgentDefinitionSchema = z.strictObject({
  description: z.string().min(1).max(2000).describe(
    "What the agent is for; the model reads it through agent.list_agent_definitions.",
  ),
  agent_type: z.enum(["sub", "fork", "worker"]).describe(
    '"sub": starts fresh with the task text (agent.create_sub_agent); "fork": starts with a ' +
      'copy of the parent\'s conversation (agent.fork_agent); "worker": claims and completes ' +
      "steps of a task (agent.dispatch_worker).",
  ),
  instructions: z.string().min(1).max(MAX_INSTRUCTIONS_BYTES).optional().describe(
    "Text added to the child's system prompt. Default: none.",
  ),
  model: ModelConfigSchema.optional().describe(
    'The child\'s own model (e.g. {"provider": "script", "script": "plans/worker.jsonl"}). ' +
      'Default: the config\'s "model".',
  ),
  allowed_tools: z.array(z.string().min(1)).optional().describe(
    "Tool-name patterns the child's tool set is narrowed to (never widened past its agent " +
      "type's set and the policy); a worker gets a write tool only when it is named here " +
      "exactly (or by the dispatch) and the policy allows it. Default: the agent type's set.",
  ),
  suggested_tools: z.array(z.string().min(1)).optional().describe(
    "Tools the child should prefer: named in its system prompt and policy snapshot, never a " +
      "grant. Default: [].",
  ),
  max_turns: z.int().min(1).max(1000).optional().describe(
    'Model turns of the child before it stops. Default: the config\'s "agent.max_turns".',
  ),
});

/** `limits`: sizes in bytes (nesting levels, times in ms). All positive integers. */
export const LimitsConfigSchema = z.strictObject({
  max_argument_bytes: z.int().min(1).optional().describe(
    "Largest tool-call argument JSON, in bytes. Default: 1048576.",
  ),
  max_argument_depth: z.int().min(1).max(MAX_ARGUMENT_DEPTH).optional().describe(
    `Deepest nesting of tool-call arguments, at most ${MAX_ARGUMENT_DEPTH}. Default: 32.`,
  ),
  max_output_bytes: z.int().min(1).optional().describe(
    "Largest output kept inline in a result, in bytes; above it an artifact is written. " +
      "Default: 65536.",
  ),
  max_artifact_bytes: z.int().min(1).optional().describe(
    "Largest artifact stored, in bytes; above it the artifact is cut. Default: 104857600.",
  ),
  search_time_budget_ms: z.int().min(1).max(3_600_000).optional().describe(
    "Longest one fs.grep_files search or recursive fs.list_files listing runs, in ms; then it " +
      'returns what it found, marked truncated (truncated_reason "time_budget"). Default: 10000.',
  ),
  max_total_tokens: z.int().min(1).optional().describe(
    "Token budget of a run, its child agents included: once the input and output tokens of every " +
      "agent of the run (summed over their turns, as the providers report them) reach it, each " +
      'agent stops after its current turn\'s calls, end reason "max_total_tokens"; the run exits ' +
      "5 as at the turn limit. Default: none.",
  ),
});

/** One command hook in `hooks.pre_tool_use` or `hooks.post_tool_use`. */
export const HookConfigSchema = z.strictObject({
  command: z.array(z.string().min(1)).min(1).describe(
    "The hook's argv, run without a shell. argv[0] is an absolute path, a path relative to the " +
      "config file's folder, or a name searched in PATH at start-up; it must resolve outside the " +
      "workspace and every write root.",
  ),
  tools: z.array(z.string().min(1)).optional().describe(
    'Glob patterns over tool names the hook runs for. Default: ["*"].',
  ),
  timeout_ms: z.int().min(1).max(DEFAULT_HOOK.max_timeout_ms).optional().describe(
    "Time the hook may run, in ms; a hook that runs longer counts as a failure (a deny for " +
      "PreToolUse). Default: 10000.",
  ),
});

/** `hooks`: programs run before and after tool calls. */
export const HooksConfigSchema = z.strictObject({
  pre_tool_use: z.array(HookConfigSchema).optional().describe(
    "Run in order after a call's arguments parse and its targets resolve, before the policy " +
      'decision is used. Each reads the call as JSON on stdin and prints {"decision": "allow" | ' +
      '"deny" | "ask", "reason"?: string}. The first deny stops the call (hook_denied); an ask ' +
      "makes it need approval; an allow never bypasses the policy. A hook that fails, times out " +
      "or prints anything else denies. Default: [].",
  ),
  post_tool_use: z.array(HookConfigSchema).optional().describe(
    "Run in order after a call is recorded, with the call and its result as JSON on stdin. They " +
      "observe only: failures are recorded, never change the result. Default: [].",
  ),
});

/** A whole config file as written. Unknown keys are errors at every level. */
export const ConfigFileSchema = z.strictObject({
  $schema: z.string().optional().describe("JSON Schema of this file, for editors; ignored."),
  workspace: pathString(
    "The sandbox root: read and written by tools. Must be an existing directory. " +
      "Default: the config file's folder.",
  ).optional(),
  runs_dir: pathString(
    'Folder holding one folder per run. Default: "runs" beside the config file.',
  ).optional(),
  sandbox: SandboxConfigSchema.optional(),
  permissions: z.union([
    pathString("Path of a permissions.json file."),
    PermissionsFileSchema,
  ]).optional().describe(
    "Permission rules: a path to a permissions.json file, or the same object inline. " +
      "Default: no rules from the config.",
  ),
  commands: z.array(z.string().min(1)).optional().describe(
    "Programs exec.run_command may run: names searched in PATH at start-up, or absolute paths. " +
      "Each must lie outside every write root. Empty (the default) disables command tools.",
  ),
  tools: ToolsConfigSchema.optional().describe(
    "Limits and settings of command tools: timeouts, output caps, environment allowlist.",
  ),
  skills: SkillsConfigSchema.optional().describe("Where skills are found."),
  memory: MemoryConfigSchema.optional().describe("Memory tools: write mode, store and scopes."),
  model: ModelConfigSchema.optional(),
  task: z.string().optional().describe("The task given to the agent."),
  agent: AgentConfigSchema.optional(),
  limits: LimitsConfigSchema.optional(),
  audit: AuditConfigSchema.optional(),
  hooks: HooksConfigSchema.optional().describe(
    "Programs run before (PreToolUse, may restrict) and after (PostToolUse, observe) tool calls.",
  ),
  mcp_servers: McpServersSchema.optional(),
  network: NetworkConfigSchema.optional().describe(
    "The net.fetch tool: the hosts it may reach (an allowlist) and its caps.",
  ),
  tasks: TasksConfigSchema.optional().describe(
    "The task graph's store (the run folder's SQLite file, or a PostgreSQL schema shared by " +
      "many machines) and the lease of a claim.",
  ),
  agents: z.record(
    z.string().regex(AGENT_ID_PATTERN, {
      error: "must be an agent id: lower-case letters, digits, _ and -, starting with a letter",
    }),
    AgentDefinitionSchema,
  ).optional().describe(
    "Child agents by id, started by the main agent's agent tools (agent.create_sub_agent, " +
      "agent.fork_agent, agent.dispatch_worker). Default: none (no agent tools).",
  ),
});

/** A config file as written (the input of {@linkcode ConfigFileSchema}). */
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

/** `model` as written. */
export type ModelConfigInput = z.infer<typeof ModelConfigSchema>;
