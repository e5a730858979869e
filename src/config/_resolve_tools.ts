/**
 * `tools`: command timeouts (the default at most the ceiling), output caps, and the folders of
 * declarative tools (never inside the workspace), defaults filled.
 *
 * @module
 */

import { DEFAULT_KAGENT_HOME, DEFAULT_TOOLS, DEFAULT_TOOLS_DIR_NAME } from "./defaults.ts";
import type { LoadedConfig } from "./loaded_config.ts";
import { isPathInside } from "./_paths.ts";
import { resolveConfigPath, type ResolveContext } from "./_resolve_context.ts";

/** Resolves `tools`; problems go to `context.issues`. */
export function resolveTools(context: ResolveContext): LoadedConfig["tools"] {
  const { issues, workspace } = context;
  const tools = context.file.tools;
  const defaultTimeout = tools?.default_timeout_ms ?? DEFAULT_TOOLS.default_timeout_ms;
  const maxTimeout = tools?.max_timeout_ms ?? DEFAULT_TOOLS.max_timeout_ms;
  if (defaultTimeout > maxTimeout) {
    issues.push({
      key: "tools.default_timeout_ms",
      text: `key "tools.default_timeout_ms" (${defaultTimeout}) must not exceed ` +
        `"tools.max_timeout_ms" (${maxTimeout})`,
    });
  }
  let dirs = (tools?.dirs ?? [defaultToolsDir(context.home)]).map((written, index) =>
    resolveConfigPath(context, written, `tools.dirs[${index}]`)
  );
  // The default folder is dropped, not refused, when HOME happens to lie in the workspace.
  if (tools?.dirs === undefined) dirs = dirs.filter((dir) => !isPathInside(dir, workspace));
  for (const [index, dir] of dirs.entries()) {
    if (isPathInside(dir, workspace)) {
      issues.push({
        key: `tools.dirs[${index}]`,
        text: `key "tools.dirs[${index}]" must be outside the workspace: the agent could write ` +
          `tool definitions there ("${dir}")`,
      });
    }
  }
  return {
    default_timeout_ms: defaultTimeout,
    max_timeout_ms: maxTimeout,
    stdout_limit_bytes: tools?.stdout_limit_bytes ?? DEFAULT_TOOLS.stdout_limit_bytes,
    stderr_limit_bytes: tools?.stderr_limit_bytes ?? DEFAULT_TOOLS.stderr_limit_bytes,
    env: [...(tools?.env ?? [])],
    git_safe_mode: tools?.git_safe_mode ?? DEFAULT_TOOLS.git_safe_mode,
    git_write: tools?.git_write ?? DEFAULT_TOOLS.git_write,
    max_processes: tools?.max_processes ?? DEFAULT_TOOLS.max_processes,
    interpreters: { ...(tools?.interpreters ?? DEFAULT_TOOLS.interpreters) },
    dirs,
  };
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
  if (kagentHome !== undefined && kagentHome !== "") {
    return `${kagentHome}/${DEFAULT_TOOLS_DIR_NAME}`;
  }
  const kagentHomeUnderHome = DEFAULT_KAGENT_HOME.slice("~/".length);
  return `${home() ?? "/nonexistent"}/${kagentHomeUnderHome}/${DEFAULT_TOOLS_DIR_NAME}`;
}
