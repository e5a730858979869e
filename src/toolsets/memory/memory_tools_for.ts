/**
 * The memory tools built from {@linkcode MemorySettings}, the same way in the main thread (for the
 * registry and the policy) and in the tool Worker (where the handlers run and the provider does
 * its I/O).
 *
 * @module
 */

import { Redactor } from "../../audit/mod.ts";
import type { ToolDefinition } from "../../tools/mod.ts";
import { memoryProvider, type MemorySettings } from "../../memory/mod.ts";
import { createMemoryTools } from "./mod.ts";

/** `memory.recall_memory` and, unless disabled, `memory.write_memory`. */
export function memoryToolsFor(
  settings: MemorySettings,
  env: (name: string) => string | undefined = () => undefined,
  fetch?: typeof globalThis.fetch,
): ToolDefinition[] {
  const redactor = new Redactor({ secrets: settings.secrets });
  return createMemoryTools({
    provider: memoryProvider(settings, env, fetch),
    mode: settings.mode,
    candidatesFile: settings.candidates_file,
    scopes: settings.scopes,
    redact: (text) => redactor.redactText(text),
  });
}
