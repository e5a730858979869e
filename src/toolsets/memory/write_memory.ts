/**
 * `memory.write_memory`: remembers a fact, as a candidate for review or in the provider.
 *
 * @module
 */

import * as nodePath from "node:path";
import { z } from "zod";
import {
  MAX_MEMORY_BYTES,
  MAX_MEMORY_TAGS,
  type MemoryProvider,
  validateContent,
  validateScope,
  validateTags,
} from "../../memory/mod.ts";
import { defineTool, type ToolDefinition } from "../../tools/mod.ts";
import { failure, success, type ToolOutcome } from "../../result/mod.ts";
import { memoryFailure } from "./_memory_failure.ts";

const parameters = z.strictObject({
  content: z.string().min(1).max(MAX_MEMORY_BYTES).describe(
    "The fact to remember (UTF-8 text, at most 16 KiB); never secrets",
  ),
  scope: z.string().max(64).default("project").describe('Memory scope, e.g. "project"'),
  tags: z.array(z.string().max(32)).max(MAX_MEMORY_TAGS).default([]).describe(
    "Lower-case labels (letters, digits, _ and -), at most 16",
  ),
});

/**
 * One line of the candidates file (`runs/<id>/archive/memory_candidates.jsonl`), for a person or
 * a later step to review: `{"content": "...", "scope": "project", "tags": [], "ts": "<ISO>"}`.
 */
export interface MemoryCandidate {
  /** Redacted content. */
  content: string;
  scope: string;
  tags: string[];
  /** ISO time of the call. */
  ts: string;
}

/** Structured result of `memory.write_memory`. */
export interface WriteMemoryData {
  /** `candidate`: queued for review; `external`: stored by the provider. */
  mode: "candidate" | "external";
  scope: string;
  /** UTF-8 bytes stored, after redaction. */
  bytes: number;
  /** The provider's record id (`external` mode), else `null`. */
  id: string | null;
  /** Some text was replaced by `[REDACTED:...]` markers. */
  redacted: boolean;
}

/** Options of {@linkcode createWriteMemoryTool}. */
export interface WriteMemoryOptions {
  mode: "candidate" | "external";
  /** Required in `external` mode. */
  provider: MemoryProvider | null;
  /**
   * Absolute path of the candidates JSONL file (its folder is created), or null without a run
   * folder: a `candidate` write then fails with `tool_not_available`.
   */
  candidatesFile: string | null;
  scopes: readonly string[];
  redact: (text: string) => string;
  /** The clock of `ts`. @default () => new Date() */
  now?: () => Date;
}

/**
 * Builds `memory.write_memory(content, scope = "project", tags = [])`: permission `write`, tags
 * `memory`, `write`. The content is size-capped and redacted before it goes anywhere. In
 * `candidate` mode it is appended to the candidates file (serialised appends); in `external` mode
 * it is written by the provider. Errors: `invalid_arguments`, `timeout`, `io_error`.
 */
export function createWriteMemoryTool(
  options: WriteMemoryOptions,
): ToolDefinition {
  const now = options.now ?? (() => new Date());
  let queue: Promise<unknown> = Promise.resolve();
  const appendCandidate = (file: string, line: string): Promise<void> => {
    const result = queue.then(async () => {
      await Deno.mkdir(nodePath.dirname(file), { recursive: true });
      await Deno.writeTextFile(file, line, {
        append: true,
        create: true,
        mode: 0o600,
      });
    });
    queue = result.catch(() => undefined);
    return result;
  };
  return defineTool({
    name: "memory.write_memory",
    description: (options.mode === "candidate"
      ? "Propose a fact to remember for later runs (reviewed before it is kept). "
      : "Remember a fact for later runs. ") +
      `Scopes: ${options.scopes.join(", ")} (default project); at most 16 KiB; never secrets.`,
    parameters,
    permission: "write",
    tags: ["memory", "write"],
    annotations: {
      category: "memory",
      idempotent: false,
      risk_level: options.mode === "external" ? 2 : 1,
      open_world: options.mode === "external" && options.provider?.name === "http",
    },
    handler: async (args): Promise<ToolOutcome> => {
      const scope = args.scope ?? "project";
      try {
        validateScope(scope, options.scopes);
        validateContent(args.content);
        const tags = validateTags(args.tags ?? []);
        const content = validateContent(options.redact(args.content));
        const redacted = content !== args.content;
        const bytes = new TextEncoder().encode(content).byteLength;
        if (options.mode === "candidate") {
          if (options.candidatesFile === null) {
            return failure(
              "tool_not_available",
              "Cannot propose memory: this session has no run folder to keep candidates in",
            );
          }
          const candidate: MemoryCandidate = { content, scope, tags, ts: now().toISOString() };
          await appendCandidate(options.candidatesFile, JSON.stringify(candidate) + "\n");
          const data: WriteMemoryData = { mode: "candidate", scope, bytes, id: null, redacted };
          return success(
            `Proposed a memory for "${scope}" (${bytes} bytes)`,
            `Proposed a memory for "${scope}"; it is kept after review`,
            data,
          );
        }
        if (options.provider === null) {
          return failure(
            "tool_not_available",
            "Cannot write memory: no memory provider is configured",
          );
        }
        const record = await options.provider.write(content, scope, tags);
        const data: WriteMemoryData = { mode: "external", scope, bytes, id: record.id, redacted };
        return success(
          `Wrote a memory to "${scope}" (${bytes} bytes)`,
          `Remembered in "${scope}" as ${record.id}`,
          data,
        );
      } catch (error) {
        return memoryFailure(error, "write memory", options.redact);
      }
    },
  });
}
