/**
 * `model`: the script provider's script must be an existing file; other providers are kept as
 * written (their defaults are filled where the provider is built, from `DEFAULT_MODEL`).
 *
 * @module
 */

import type { ModelConfig } from "./loaded_config.ts";
import { requireKind, resolveConfigPath, type ResolveContext } from "./_resolve_context.ts";

/** Resolves `model`, `null` when the config has none; problems go to `context.issues`. */
export async function resolveModel(context: ResolveContext): Promise<ModelConfig | null> {
  const model = context.file.model;
  if (model?.provider === "script") {
    const script = resolveConfigPath(context, model.script, "model.script");
    await requireKind(context.issues, "model.script", script, "file");
    return { ...model, script };
  }
  return model ?? null;
}
