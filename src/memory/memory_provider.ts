/**
 * The memory contract: what a memory provider stores and recalls, and the checks every provider
 * and every memory tool applies to scopes, content and tags.
 *
 * A record as JSON (one line of a file store, an element of an HTTP answer):
 *
 * ```json
 * {
 *   "id": "0f8c0a6e-3f6e-4d1b-9b7e-2a1c5d9e4f10",
 *   "scope": "project",
 *   "content": "The test suite needs --allow-net=127.0.0.1",
 *   "tags": ["testing"],
 *   "created_at": "2025-01-31T12:00:00.000Z",
 *   "score": 1.73
 * }
 * ```
 *
 * @module
 */

import { z } from "zod";
import { DEFAULT_MEMORY } from "../config/base/mod.ts";

/**
 * One remembered fact.
 *
 * - `id`: opaque, unique within the provider.
 * - `scope`: one of the allowed scope names (see {@linkcode validateScope}).
 * - `content`: UTF-8 text, at most {@linkcode MAX_MEMORY_BYTES} bytes.
 * - `tags`: at most {@linkcode MAX_MEMORY_TAGS} names matching {@linkcode TAG_PATTERN}.
 * - `created_at`: ISO 8601 time of the write, e.g. `2025-01-31T12:00:00.000Z`.
 * - `score`: relevance of a recalled record (higher is better); absent on writes.
 */
export interface MemoryRecord {
  id: string;
  scope: string;
  content: string;
  tags: string[];
  created_at: string;
  score?: number;
}

/**
 * The strict zod schema of a {@linkcode MemoryRecord}, for records read from a store or a remote
 * provider (unknown keys are refused).
 */
export const memoryRecordSchema = z.strictObject({
  id: z.string().min(1).max(256),
  scope: z.string(),
  content: z.string(),
  tags: z.array(z.string()),
  created_at: z.iso.datetime({ offset: true }),
  score: z.number().optional(),
});

/**
 * A store of memories. Implementations validate their inputs with {@linkcode validateScope},
 * {@linkcode validateContent}, {@linkcode validateTags} and {@linkcode validateLimit}, and report
 * failures as {@linkcode MemoryError}s.
 */
export interface MemoryProvider {
  /** Short name for logs, e.g. `file` or `http`. */
  readonly name: string;
  /**
   * Finds the records of `scope` most relevant to `query`, best first.
   *
   * @param query Free text; words are matched case-insensitively.
   * @param scope An allowed scope name.
   * @param limit 1 to {@linkcode MAX_RECALL_LIMIT}.
   * @returns At most `limit` records, each with a `score`.
   * @throws {MemoryError} on invalid arguments or when the store cannot be read.
   */
  recall(query: string, scope: string, limit: number): Promise<MemoryRecord[]>;
  /**
   * Stores `content` in `scope`.
   *
   * @param content UTF-8 text, at most {@linkcode MAX_MEMORY_BYTES} bytes.
   * @param scope An allowed scope name.
   * @param tags At most {@linkcode MAX_MEMORY_TAGS} tag names.
   * @returns The stored record (with its id and `created_at`).
   * @throws {MemoryError} on invalid arguments or when the store cannot be written.
   */
  write(content: string, scope: string, tags: string[]): Promise<MemoryRecord>;
}

/** Largest memory content, in UTF-8 bytes (16 KiB). */
export const MAX_MEMORY_BYTES = 16_384;
/** Most tags on one record. */
export const MAX_MEMORY_TAGS = 16;
/** Largest `limit` of a recall. */
export const MAX_RECALL_LIMIT = 50;
/** Largest recall query, in characters. */
export const MAX_QUERY_LENGTH = 4_096;
/**
 * The scopes allowed when none are configured (`memory.scopes`).
 * @default ["run", "project", "user"]
 */
export const DEFAULT_MEMORY_SCOPES: readonly string[] = DEFAULT_MEMORY.scopes;
/** What a scope name looks like: it is also a file name, so no `/`, `.` or upper case. */
export const SCOPE_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
/** What a tag looks like. */
export const TAG_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/**
 * Why a memory operation failed:
 *
 * - `invalid_scope`, `invalid_tags`, `invalid_query`, `invalid_limit`, `invalid_content`: the
 *   caller's arguments.
 * - `content_too_large`: the content exceeds {@linkcode MAX_MEMORY_BYTES}.
 * - `timeout`: a remote provider did not answer in time.
 * - `unavailable`: the store could not be read or written (I/O, network, HTTP status).
 * - `invalid_response`: a remote provider answered with an unexpected shape.
 */
export type MemoryErrorCode =
  | "invalid_scope"
  | "invalid_tags"
  | "invalid_query"
  | "invalid_limit"
  | "invalid_content"
  | "content_too_large"
  | "timeout"
  | "unavailable"
  | "invalid_response";

const INVALID_ARGUMENT_CODES: ReadonlySet<MemoryErrorCode> = new Set([
  "invalid_scope",
  "invalid_tags",
  "invalid_query",
  "invalid_limit",
  "invalid_content",
  "content_too_large",
]);

/** A failed memory operation, with a stable `code` and structured details. */
export class MemoryError extends Error {
  /** See {@linkcode MemoryErrorCode}. */
  readonly code: MemoryErrorCode;
  /** Structured facts (scope, limit, status...). */
  readonly details: Record<string, unknown>;

  /**
   * @param code See {@linkcode MemoryErrorCode}.
   * @param message House style: `Cannot write memory: scope "../x" is not a valid name`.
   * @param details Structured facts; `{}` by default.
   * @param options `cause` of the failure.
   */
  constructor(
    code: MemoryErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "MemoryError";
    this.code = code;
    this.details = details;
  }

  /** Tells whether the caller's arguments (not the store) caused the failure. */
  get isInvalidArgument(): boolean {
    return INVALID_ARGUMENT_CODES.has(this.code);
  }
}

/**
 * Checks a scope name: it must match {@linkcode SCOPE_PATTERN} and be one of `allowed`.
 * Path-like names (`../x`, `/etc`, `a/b`) and the empty name are refused.
 *
 * @param scope As given by the model or the caller.
 * @param allowed The configured scopes. @default ["run", "project", "user"]
 * @returns `scope`, unchanged.
 * @throws {MemoryError} `invalid_scope`.
 * @example
 * ```ts
 * import { validateScope } from "./memory_provider.ts";
 * console.assert(validateScope("project") === "project");
 * ```
 */
export function validateScope(
  scope: string,
  allowed: readonly string[] = DEFAULT_MEMORY_SCOPES,
): string {
  if (!SCOPE_PATTERN.test(scope)) {
    throw new MemoryError(
      "invalid_scope",
      `Cannot use memory scope ${JSON.stringify(scope)}: a scope is a lower-case name ` +
        `(letters, digits, "_", "-", at most 32 characters), one of ${quoteList(allowed)}`,
      { scope, allowed: [...allowed] },
    );
  }
  if (!allowed.includes(scope)) {
    throw new MemoryError(
      "invalid_scope",
      `Cannot use memory scope "${scope}": it is not one of ${quoteList(allowed)}`,
      { scope, allowed: [...allowed] },
    );
  }
  return scope;
}

/**
 * Checks the size of memory content.
 *
 * @returns `content`, unchanged.
 * @throws {MemoryError} `content_too_large` above {@linkcode MAX_MEMORY_BYTES} UTF-8 bytes,
 *   `invalid_content` when it is empty or only white space.
 */
export function validateContent(content: string): string {
  const bytes = new TextEncoder().encode(content).byteLength;
  if (bytes > MAX_MEMORY_BYTES) {
    throw new MemoryError(
      "content_too_large",
      `Cannot write memory: the content is ${bytes} bytes, more than ${MAX_MEMORY_BYTES}`,
      { bytes, limit: MAX_MEMORY_BYTES },
    );
  }
  if (content.trim() === "") {
    throw new MemoryError("invalid_content", "Cannot write memory: the content is empty");
  }
  return content;
}

/**
 * Checks tags: at most {@linkcode MAX_MEMORY_TAGS}, each matching {@linkcode TAG_PATTERN}.
 *
 * @returns The tags without duplicates, in their first order.
 * @throws {MemoryError} `invalid_tags`.
 */
export function validateTags(tags: readonly string[]): string[] {
  if (tags.length > MAX_MEMORY_TAGS) {
    throw new MemoryError(
      "invalid_tags",
      `Cannot write memory: ${tags.length} tags given, at most ${MAX_MEMORY_TAGS} allowed`,
      { count: tags.length, limit: MAX_MEMORY_TAGS },
    );
  }
  for (const tag of tags) {
    if (!TAG_PATTERN.test(tag)) {
      throw new MemoryError(
        "invalid_tags",
        `Cannot write memory: tag ${JSON.stringify(tag)} is not a lower-case name ` +
          `(letters, digits, "_", "-", at most 32 characters)`,
        { tag },
      );
    }
  }
  return [...new Set(tags)];
}

/**
 * Checks a recall limit: an integer from 1 to {@linkcode MAX_RECALL_LIMIT}.
 *
 * @returns `limit`, unchanged.
 * @throws {MemoryError} `invalid_limit`.
 */
export function validateLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RECALL_LIMIT) {
    throw new MemoryError(
      "invalid_limit",
      `Cannot recall memory: limit ${limit} is not an integer from 1 to ${MAX_RECALL_LIMIT}`,
      { limit, max: MAX_RECALL_LIMIT },
    );
  }
  return limit;
}

/**
 * Checks a recall query: at most {@linkcode MAX_QUERY_LENGTH} characters.
 *
 * @returns `query`, unchanged.
 * @throws {MemoryError} `invalid_query`.
 */
export function validateQuery(query: string): string {
  if (query.length > MAX_QUERY_LENGTH) {
    throw new MemoryError(
      "invalid_query",
      `Cannot recall memory: the query is ${query.length} characters, more than ${MAX_QUERY_LENGTH}`,
      { length: query.length, limit: MAX_QUERY_LENGTH },
    );
  }
  return query;
}

function quoteList(values: readonly string[]): string {
  return values.map((value) => `"${value}"`).join(", ");
}
