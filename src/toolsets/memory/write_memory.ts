/**
 * `memory.write_memory`: proposes a fact to remember. The agent never writes the long-term store
 * (the Memory Writer is not an agent tool, seed 001): in `candidate` and `external` mode alike the
 * fact becomes a candidate in the run's archive, which `kagent-run memory promote` writes to the
 * store once a person accepts it.
 *
 * @module
 */

import * as nodePath from "node:path";
import { z } from "zod";
import {
  MAX_MEMORY_BYTES,
  MAX_MEMORY_TAGS,
  type MemoryCandidate,
  type MemoryProvider,
  newCandidate,
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

/** Structured result of `memory.write_memory`. */
export interface WriteMemoryData {
  /** The configured write mode; either way the fact was proposed, not stored. */
  mode: "candidate" | "external";
  scope: string;
  /** UTF-8 bytes proposed, after redaction. */
  bytes: number;
  /** The candidate's id, which `kagent-run memory promote --accept` names. */
  id: string;
  /** Some text was replaced by `[REDACTED:...]` markers. */
  redacted: boolean;
}

/** Options of {@linkcode createWriteMemoryTool}. */
export interface WriteMemoryOptions {
  mode: "candidate" | "external";
  /** The configured provider; only named in the description (the tool never writes to it). */
  provider: MemoryProvider | null;
  /**
   * Absolute path of the candidates JSONL file (its folder is created), or null without a run
   * folder: a write then fails with `tool_not_available`.
   */
  candidatesFile: string | null;
  scopes: readonly string[];
  redact: (text: string) => string;
  /** The clock of `ts`. @default () => new Date() */
  now?: () => Date;
}

/**
 * Builds `memory.write_memory(content, scope = "project", tags = [])`: permission `write`, tags
 * `memory`, `write`. The content is size-capped and redacted before it goes anywhere, then
 * appended to the candidates file as a {@linkcode MemoryCandidate} (serialised appends), in
 * `candidate` and `external` mode alike: only `kagent-run memory promote` writes the store.
 * Errors: `invalid_arguments`, `tool_not_available` (no run folder), `io_error`.
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
    description: "Propose a fact to remember for later runs; a person reviews it before it is " +
      `kept. Scopes: ${
        options.scopes.join(", ")
      } (default project); at most 16 KiB; never secrets.`,
    parameters,
    permission: "write",
    tags: ["memory", "write"],
    annotations: { category: "memory", idempotent: false, risk_level: 1, open_world: false },
    handler: async (args): Promise<ToolOutcome> => {
      const scope = args.scope ?? "project";
      try {
        validateScope(scope, options.scopes);
        validateContent(args.content);
        const tags = validateTags(args.tags ?? []);
        const content = validateContent(options.redact(args.content));
        const redacted = content !== args.content;
        const bytes = new TextEncoder().encode(content).byteLength;
        if (options.candidatesFile === null) {
          return failure(
            "tool_not_available",
            "Cannot propose memory: this session has no run folder to keep candidates in",
          );
        }
        const candidate: MemoryCandidate = newCandidate({
          content,
          scope,
          tags,
          ts: now().toISOString(),
        });
        await appendCandidate(options.candidatesFile, JSON.stringify(candidate) + "\n");
        const data: WriteMemoryData = {
          mode: options.mode,
          scope,
          bytes,
          id: candidate.id,
          redacted,
        };
        return success(
          `Proposed memory ${candidate.id} for "${scope}" (${bytes} bytes)`,
          `Proposed a memory for "${scope}" as ${candidate.id}; it is kept once a person accepts it`,
          data,
        );
      } catch (error) {
        return memoryFailure(error, "write memory", options.redact);
      }
    },
  });
}
