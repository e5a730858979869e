/**
 * What the effective policy is computed from: the tool list, the rules, the requests, and the
 * sandbox snapshot `policy.json` shows.
 *
 * @module
 */

import * as nodePath from "node:path";
import type { LoadedConfig } from "../config/mod.ts";
import type { CommandSetup } from "./command_setup.ts";
import type { MemorySettings } from "../memory/mod.ts";
import type { NetworkChannels } from "../network/mod.ts";
import type { PolicyInputs } from "../policy/mod.ts";
import type { PathGuard } from "../sandbox/mod.ts";
import type { WorkerPermissions } from "../worker/mod.ts";
import type { ToolDescriptor } from "../tools/mod.ts";
import { commandToolNames } from "../toolsets/mod.ts";
import { commandsSnapshot } from "./command_wiring.ts";
import type { SessionOptions } from "./session_options.ts";

/** The parts of a session the policy is computed from. */
export interface SessionPolicyParts {
  config: LoadedConfig;
  options: SessionOptions;
  tools: ToolDescriptor[];
  guard: PathGuard;
  home: string | null;
  commands: CommandSetup | null;
  memory: MemorySettings | null;
  network: NetworkChannels;
  workerPermissions: WorkerPermissions;
}

/**
 * The inputs of `EffectivePolicy.compute` for a session.
 *
 * @example
 * ```ts ignore
 * const policy = EffectivePolicy.compute(policyInputs(parts));
 * ```
 */
export function policyInputs(parts: SessionPolicyParts): PolicyInputs {
  const { config, options, guard, commands, memory } = parts;
  return {
    tools: parts.tools,
    workspace: guard.workspace,
    configRules: config.permissions.rules,
    configSource: config.permissionsPath ?? (config.permissions.rules.length > 0 ? "inline" : null),
    ...(config.permissions.mode === "smart"
      ? { smartApproval: { maxRisk: config.permissions.smart_max_risk } }
      : {}),
    skillRequests: options.skillRequests ?? [],
    ...(options.agentType === undefined ? {} : { agentType: options.agentType }),
    ...(options.agent === undefined ? {} : { agentType: options.agent.role }),
    ...(options.allowedTools === undefined ? {} : { allowedTools: options.allowedTools }),
    ...(options.taskTools === undefined ? {} : { taskTools: options.taskTools }),
    ...(options.suggestedTools === undefined ? {} : { suggestedTools: options.suggestedTools }),
    runFolders: guard.writableExceptions.slice(),
    ...(commands === null ? {} : {
      commandIsolation: {
        effective: commands.isolation.effective,
        reason: commands.isolation.reason,
        tools: [
          ...commandToolNames(),
          ...commands.declarativeTools.map((tool) => tool.name),
        ],
      },
    }),
    // Hashed by name ("<home>", "<config>", "<runs>"): the policy hash means the same in every
    // checkout, wherever it lies.
    folders: {
      home: parts.home,
      config: nodePath.dirname(config.configPath),
      runs: config.runs_dir,
    },
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
      deno_permissions: parts.workerPermissions,
      // Only the network Worker reaches these; the main thread's net permission is revoked.
      network: parts.network,
      memory: memory === null ? null : {
        write_mode: memory.mode,
        provider: memory.provider.kind === "file" ? { kind: "file", folder: memory.folder } : {
          kind: "http",
          base_url: memory.provider.base_url,
          token_env: memory.provider.token_env ?? null,
        },
        scopes: memory.scopes,
      },
      commands: commands === null ? null : commandsSnapshot(commands, config),
    },
  };
}
