/**
 * `memory.recall_memory`: finds remembered facts relevant to a query.
 *
 * @module
 */

import { z } from "zod";
import {
  MAX_QUERY_LENGTH,
  MAX_RECALL_LIMIT,
  type MemoryProvider,
  type MemoryRecord,
  validateLimit,
  validateQuery,
  validateScope,
} from "../../memory/mod.ts";
import { defineTool, type ToolDefinition } from "../../tools/mod.ts";
import { success, type ToolOutcome } from "../../result/mod.ts";
import { memoryFailure } from "./_memory_failure.ts";

const parameters = z.strictObject({
  query: z.string().max(MAX_QUERY_LENGTH).describe("What to look for, in words"),
  scope: z.string().max(64).default("project").describe('Memory scope, e.g. "project"'),
  limit: z.int().min(1).max(MAX_RECALL_LIMIT).default(5).describe("Most records returned"),
});

/** Structured result of `memory.recall_memory`. */
export interface RecallMemoryData {
  scope: string;
  /** Best first, each with its `score`. */
  records: MemoryRecord[];
  /** `null` when no provider is configured (then `records` is empty). */
  provider: string | null;
}

/** Options of {@linkcode createRecallMemoryTool}. */
export interface RecallMemoryOptions {
  /** `null`: recall answers with no records. */
  provider: MemoryProvider | null;
  /** Allowed scope names. */
  scopes: readonly string[];
  /** Redacts recalled text before the model reads it. */
  redact: (text: string) => string;
}

/**
 * Builds `memory.recall_memory(query, scope = "project", limit = 5)`: readonly, tags
 * `memory`, `read`. Errors: `invalid_arguments` (scope not allowed or path-like, limit out of
 * range), `timeout` and `io_error` from the provider.
 */
export function createRecallMemoryTool(
  options: RecallMemoryOptions,
): ToolDefinition {
  return defineTool({
    name: "memory.recall_memory",
    description: "Recall remembered facts relevant to a query, best first. Scopes: " +
      `${options.scopes.join(", ")} (default project); limit 1-${MAX_RECALL_LIMIT} (default 5).`,
    parameters,
    permission: "readonly",
    tags: ["memory", "read"],
    annotations: { category: "memory", open_world: options.provider?.name === "http" },
    handler: async (args): Promise<ToolOutcome> => {
      const scope = args.scope ?? "project";
      const limit = args.limit ?? 5;
      try {
        validateScope(scope, options.scopes);
        validateQuery(args.query);
        validateLimit(limit);
        if (options.provider === null) {
          const data: RecallMemoryData = { scope, records: [], provider: null };
          return success(
            `Recalled 0 memories from "${scope}"`,
            "No memory provider is configured; nothing to recall",
            data,
          );
        }
        const records = (await options.provider.recall(args.query, scope, limit)).map((
          record,
        ) => ({ ...record, content: options.redact(record.content) }));
        const data: RecallMemoryData = { scope, records, provider: options.provider.name };
        const summary = `Recalled ${records.length} ${
          records.length === 1 ? "memory" : "memories"
        } from "${scope}"`;
        const output = records.length === 0
          ? `No memory in "${scope}" matches the query`
          : records.map((record, index) =>
            `${index + 1}. [${record.created_at}${
              record.tags.length > 0 ? ` ${record.tags.join(",")}` : ""
            }] ${record.content}`
          ).join("\n");
        return success(summary, output, data);
      } catch (error) {
        return memoryFailure(error, "recall memory", options.redact);
      }
    },
  });
}
