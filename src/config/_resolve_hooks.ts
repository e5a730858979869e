/**
 * `hooks`: each hook's program resolved (a path against the config file's folder, a bare name kept
 * for the PATH search at start-up), defaults filled.
 *
 * @module
 */

import { DEFAULT_HOOK } from "./defaults.ts";
import type { LoadedConfig, LoadedHook } from "./loaded_config.ts";
import { resolveConfigPath, type ResolveContext } from "./_resolve_context.ts";

/** Resolves `hooks`; problems go to `context.issues`. */
export function resolveHooks(context: ResolveContext): LoadedConfig["hooks"] {
  const resolveList = (which: "pre_tool_use" | "post_tool_use"): LoadedHook[] =>
    (context.file.hooks?.[which] ?? []).map((hook, index) => {
      const [program = "", ...args] = hook.command;
      // A bare name is searched in PATH at start-up; anything with a slash (or ~) is a path.
      const isPath = program.includes("/") || program.startsWith("~");
      const resolved = isPath
        ? resolveConfigPath(context, program, `hooks.${which}[${index}].command`)
        : program;
      return {
        command: [resolved, ...args],
        tools: [...(hook.tools ?? DEFAULT_HOOK.tools)],
        timeout_ms: hook.timeout_ms ?? DEFAULT_HOOK.timeout_ms,
      };
    });
  return { pre_tool_use: resolveList("pre_tool_use"), post_tool_use: resolveList("post_tool_use") };
}
