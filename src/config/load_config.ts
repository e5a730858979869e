/**
 * Loads a config file: JSONC parsing, validation, then one resolver per section (`_resolve_*.ts`:
 * defaults from `defaults.ts`, path resolution, checks), then permissions.
 *
 * @module
 */

import { dirname, resolve } from "node:path";
import { ConfigError } from "./config_error.ts";
import { ConfigFileSchema } from "./config_schema.ts";
import type { LoadedConfig } from "./loaded_config.ts";
import { formatIssues, type IssueText } from "./format_issues.ts";
import { homeFromEnvironment } from "./_home.ts";
import { readJsoncFile } from "./_read_jsonc_file.ts";
import { resolveAgent, resolveAgents } from "./_resolve_agent.ts";
import { resolveAudit } from "./_resolve_audit.ts";
import type { ResolveContext } from "./_resolve_context.ts";
import { resolveHooks } from "./_resolve_hooks.ts";
import { resolveMcpServers } from "./_resolve_mcp.ts";
import { resolveLimits } from "./_resolve_limits.ts";
import { resolveNetwork } from "./network_schema.ts";
import { resolveMemory } from "./_resolve_memory.ts";
import { resolveTasks } from "./tasks_schema.ts";
import { resolveModel } from "./_resolve_model.ts";
import { resolvePermissions } from "./_resolve_permissions.ts";
import { resolveSandbox } from "./_resolve_sandbox.ts";
import { resolveSkills } from "./_resolve_skills.ts";
import { resolveTools } from "./_resolve_tools.ts";
import { resolveRunsDir, resolveWorkspace } from "./_resolve_workspace.ts";
import { acceptMcpServersKey, mergeMcpConfigFile } from "./_mcp_servers_key.ts";

export type {
  LoadedAgentDefinition,
  LoadedConfig,
  LoadedHook,
  ModelConfig,
} from "./loaded_config.ts";

/** Values given on the command line that replace the file's. */
export interface LoadConfigOverrides {
  /**
   * From `--workspace DIR`: replaces the file's `workspace`. Resolved against the current directory
   * (where the user typed it), not the config file's folder. Must be an existing directory.
   */
  workspace?: string;
  /**
   * From `--runs-dir DIR`: replaces the file's `runs_dir` (the GitHub Action passes the runner's
   * temporary folder, so runs never land in the checkout). Resolved against the current directory;
   * created when the first run starts.
   */
  runsDir?: string;
  /**
   * From `--mcp-config FILE`: a file of MCP servers (`{"mcpServers": {…}}`, as other clients
   * write it) merged into the config's `mcp_servers` (a server id the config has already is an
   * error). Relative to the current directory; relative paths inside it resolve as the config's.
   */
  mcpConfig?: string;
}

/** How {@linkcode loadConfig} reaches the environment; tests pass fakes. */
export interface LoadConfigOptions {
  /**
   * Reads the home folder for `~/` paths; called only when a path starts with `~`.
   * @default reads `$HOME` (`undefined` when unset or not permitted)
   */
  home?: () => string | undefined;
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
  // `mcpServers` (other clients' spelling) and --mcp-config's servers, before validation.
  const raw = read.value;
  if (typeof raw === "object" && raw !== null && !Array.isArray(raw)) {
    const record = raw as Record<string, unknown>;
    const problems = [acceptMcpServersKey(record)].filter((problem) => problem !== null);
    if (overrides.mcpConfig !== undefined) {
      problems.push(...await mergeMcpConfigFile(record, overrides.mcpConfig));
    }
    if (problems.length > 0) throw invalid(problems);
  }
  const parsed = ConfigFileSchema.safeParse(raw, { reportInput: true });
  if (!parsed.success) throw invalid(formatIssues(parsed.error.issues, read.value));
  const file = parsed.data;

  // Each resolver appends its problems to `issues`; they run in file order so the problems are
  // reported in that order, all at once.
  const issues: IssueText[] = [];
  const base = { file, configDir, home, issues };
  const workspace = await resolveWorkspace(base, overrides.workspace);
  const runsDir = resolveRunsDir(base, overrides.runsDir);
  const context: ResolveContext = { ...base, workspace };
  const sandbox = await resolveSandbox(context);
  const tools = resolveTools(context);
  const skills = resolveSkills(context);
  const memory = resolveMemory(context);
  const model = await resolveModel(context);
  const agent = await resolveAgent(context);
  const hooks = resolveHooks(context);
  const mcpServers = resolveMcpServers(context);
  const agents = await resolveAgents(context);
  if (issues.length > 0) throw invalid(issues);

  const { permissions, permissionsPath } = await resolvePermissions(context, path);
  return {
    configPath,
    configDir,
    workspace,
    runs_dir: runsDir,
    sandbox,
    permissionsPath,
    permissions,
    model,
    task: file.task ?? null,
    agent,
    commands: [...new Set(file.commands ?? [])],
    tools,
    skills,
    memory,
    limits: resolveLimits(file),
    audit: resolveAudit(file),
    hooks,
    mcp_servers: mcpServers,
    agents,
    network: resolveNetwork(file.network),
    tasks: resolveTasks(file.tasks),
  };
}
