/**
 * `memory`: write mode, the file provider's folder (never inside the workspace), scopes, provider.
 *
 * @module
 */

import { DEFAULT_MEMORY, DEFAULT_SYSTEM_BLOCKS } from "./defaults.ts";
import type { LoadedConfig } from "./loaded_config.ts";
import { isPathInside } from "./_paths.ts";
import { resolveConfigPath, type ResolveContext } from "./_resolve_context.ts";

/** Resolves `memory`; problems go to `context.issues`. */
export function resolveMemory(context: ResolveContext): LoadedConfig["memory"] {
  const memory = context.file.memory;
  // The default folder (~/.kagent/memory) is dropped, not refused, when HOME lies in the
  // workspace: memory is then off (null), since the agent could edit its own memories there.
  let folder: string | null = memory?.folder === undefined
    ? (context.home() === undefined
      ? null
      : resolveConfigPath(context, DEFAULT_MEMORY.folder, "memory.folder"))
    : resolveConfigPath(context, memory.folder, "memory.folder");
  if (folder !== null && isPathInside(folder, context.workspace)) {
    if (memory?.folder === undefined) {
      folder = null;
    } else {
      context.issues.push({
        key: "memory.folder",
        text: `key "memory.folder" must be outside the workspace: the agent could edit its own ` +
          `memories there ("${folder}")`,
      });
    }
  }
  if (memory?.write_mode === "external" && memory.provider === undefined) {
    context.issues.push({
      key: "memory.provider",
      text: 'key "memory.provider" must name a provider when "memory.write_mode" is "external"',
    });
  }
  return {
    write_mode: memory?.write_mode ?? DEFAULT_MEMORY.write_mode,
    folder,
    scopes: [...(memory?.scopes ?? DEFAULT_MEMORY.scopes)],
    project_id: memory?.project_id ?? null,
    provider: memory?.provider ?? { ...DEFAULT_MEMORY.provider },
    context_max_bytes: memory?.context_max_bytes ?? DEFAULT_SYSTEM_BLOCKS.memory_context_max_bytes,
    context_limit: memory?.context_limit ?? DEFAULT_SYSTEM_BLOCKS.memory_context_limit,
  };
}
