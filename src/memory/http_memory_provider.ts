/**
 * A {@linkcode MemoryProvider} that calls a remote memory service over HTTP(S).
 *
 * The service answers two JSON POST endpoints:
 *
 * - `{base_url}/recall` with `{"query": string, "scope": string, "limit": number}` answers
 *   `{"records": MemoryRecord[]}` (best first);
 * - `{base_url}/write` with `{"content": string, "scope": string, "tags": string[]}` answers
 *   `{"record": MemoryRecord}`.
 *
 * With a project key (`ProjectIdentity.key`, see `project_identity.ts`) both requests also carry
 * `"project": "<key>"`: the service keeps the `project` scope apart per project.
 *
 * Answers are validated strictly (unknown keys refused); any status other than 2xx is a failure.
 * docs/MEMORY_SERVICE.md documents the wire format for those who implement a service
 * (`tests/memory_service_doc_test.ts` holds this client to it).
 *
 * @module
 */

import { z } from "zod";
import { DEFAULT_MEMORY } from "../config/base/mod.ts";
import {
  DEFAULT_MEMORY_SCOPES,
  MemoryError,
  type MemoryProvider,
  type MemoryRecord,
  memoryRecordSchema,
  validateContent,
  validateLimit,
  validateQuery,
  validateScope,
  validateTags,
} from "./memory_provider.ts";

/**
 * Default time a request may take, in milliseconds (`memory.provider.timeout_ms`).
 * @default 10000
 */
export const DEFAULT_MEMORY_TIMEOUT_MS: number = DEFAULT_MEMORY.http_timeout_ms;
/** Largest answer read from the service, in bytes (4 MiB). */
export const MAX_MEMORY_RESPONSE_BYTES = 4 * 1024 * 1024;

const recallResponseSchema = z.strictObject({ records: z.array(memoryRecordSchema) });
const writeResponseSchema = z.strictObject({ record: memoryRecordSchema });

/** Options of {@linkcode HttpMemoryProvider}. */
export interface HttpMemoryProviderOptions {
  /** `http(s)://host[:port][/path]`; a trailing `/` is dropped. No credentials in the URL. */
  base_url: string;
  /**
   * NAME of the environment variable holding the bearer token, read through `env` on each
   * request. `null`: no `Authorization` header. @default null
   */
  token_env?: string | null;
  /** Reads an environment variable; e.g. `(name) => Deno.env.get(name)`. @default () => undefined */
  env?: (name: string) => string | undefined;
  /** Time a request may take, in milliseconds. @default 10000 */
  timeout_ms?: number;
  /** Allowed scope names, checked before any request. @default ["run", "project", "user"] */
  scopes?: readonly string[];
  /** The fetch function (tests). @default globalThis.fetch */
  fetch?: typeof fetch;
  /** The workspace's project key, sent as `project` with every request. @default null (not sent) */
  project?: string | null;
}

/**
 * Calls a remote memory service. Arguments are validated locally first (same rules as every
 * provider), so a bad scope never leaves the process. Errors are {@linkcode MemoryError}s:
 * `timeout`, `unavailable` (network, HTTP status, missing token), `invalid_response`.
 *
 * @throws {TypeError} from the constructor when `base_url` is not an http(s) URL, carries
 *   credentials, or is plain http to a non-loopback host while a token is configured.
 * @example
 * ```ts
 * import { HttpMemoryProvider } from "./http_memory_provider.ts";
 * const provider = new HttpMemoryProvider({
 *   base_url: "https://memory.example.com/v1",
 *   token_env: "MEMORY_TOKEN",
 *   env: () => "token-value",
 * });
 * console.assert(provider.name === "http");
 * ```
 */
export class HttpMemoryProvider implements MemoryProvider {
  /** Always `http`. */
  readonly name = "http";
  readonly #baseUrl: string;
  readonly #tokenEnv: string | null;
  readonly #env: (name: string) => string | undefined;
  readonly #timeoutMs: number;
  readonly #scopes: readonly string[];
  readonly #fetch: typeof fetch;
  readonly #project: { project: string } | Record<never, never>;

  /** @param options See {@linkcode HttpMemoryProviderOptions}. */
  constructor(options: HttpMemoryProviderOptions) {
    let url: URL;
    try {
      url = new URL(options.base_url);
    } catch {
      throw new TypeError(`Cannot use memory service "${options.base_url}": it is not a URL`);
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      throw new TypeError(
        `Cannot use memory service "${options.base_url}": only http and https are supported`,
      );
    }
    if (url.username !== "" || url.password !== "") {
      throw new TypeError(
        `Cannot use memory service "${url.host}": the URL carries credentials; use token_env`,
      );
    }
    this.#tokenEnv = options.token_env ?? null;
    const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
    if (url.protocol === "http:" && !loopback && this.#tokenEnv !== null) {
      throw new TypeError(
        `Cannot use memory service "${options.base_url}": a token is only sent over https ` +
          `(or http to a loopback host)`,
      );
    }
    this.#baseUrl = url.href.replace(/\/+$/, "");
    this.#env = options.env ?? (() => undefined);
    this.#timeoutMs = options.timeout_ms ?? DEFAULT_MEMORY_TIMEOUT_MS;
    this.#scopes = options.scopes ?? DEFAULT_MEMORY_SCOPES;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#project = options.project == null ? {} : { project: options.project };
  }

  /** See {@linkcode MemoryProvider.recall}. */
  async recall(query: string, scope: string, limit: number): Promise<MemoryRecord[]> {
    validateQuery(query);
    validateScope(scope, this.#scopes);
    validateLimit(limit);
    const url = `${this.#baseUrl}/recall`;
    const body = await this.#post("recall memory from", url, {
      query,
      scope,
      limit,
      ...this.#project,
    });
    const parsed = recallResponseSchema.safeParse(body);
    if (!parsed.success) throw invalidResponse("recall memory from", url, parsed.error);
    checkScopes("recall memory from", url, parsed.data.records, scope);
    return parsed.data.records.slice(0, limit).map(withoutUndefined);
  }

  /** See {@linkcode MemoryProvider.write}. */
  async write(content: string, scope: string, tags: string[]): Promise<MemoryRecord> {
    validateContent(content);
    validateScope(scope, this.#scopes);
    const checkedTags = validateTags(tags);
    const url = `${this.#baseUrl}/write`;
    const body = await this.#post("write memory to", url, {
      content,
      scope,
      tags: checkedTags,
      ...this.#project,
    });
    const parsed = writeResponseSchema.safeParse(body);
    if (!parsed.success) throw invalidResponse("write memory to", url, parsed.error);
    checkScopes("write memory to", url, [parsed.data.record], scope);
    return withoutUndefined(parsed.data.record);
  }

  async #post(action: string, url: string, payload: unknown): Promise<unknown> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json",
    };
    if (this.#tokenEnv !== null) {
      const token = this.#env(this.#tokenEnv);
      if (token === undefined || token === "") {
        throw new MemoryError(
          "unavailable",
          `Cannot ${action} "${url}": environment variable "${this.#tokenEnv}" is not set`,
          { url, token_env: this.#tokenEnv },
        );
      }
      headers.authorization = `Bearer ${token}`;
    }
    const signal = AbortSignal.timeout(this.#timeoutMs);
    try {
      const response = await this.#fetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify(payload),
        signal,
        redirect: "error",
      });
      if (!response.ok) {
        await response.body?.cancel();
        throw new MemoryError(
          "unavailable",
          `Cannot ${action} "${url}": HTTP ${response.status}`,
          { url, status: response.status },
        );
      }
      const text = await readLimited(response, action, url);
      try {
        return JSON.parse(text);
      } catch {
        throw new MemoryError(
          "invalid_response",
          `Cannot ${action} "${url}": the answer is not JSON`,
          { url },
        );
      }
    } catch (error) {
      if (error instanceof MemoryError) throw error;
      if (signal.aborted) {
        throw new MemoryError(
          "timeout",
          `Cannot ${action} "${url}": no answer within ${this.#timeoutMs} ms`,
          { url, timeout_ms: this.#timeoutMs },
          { cause: error },
        );
      }
      const reason = error instanceof Error ? error.message : String(error);
      throw new MemoryError("unavailable", `Cannot ${action} "${url}": ${reason}`, { url }, {
        cause: error,
      });
    }
  }
}

async function readLimited(response: Response, action: string, url: string): Promise<string> {
  if (response.body === null) return "";
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body) {
    total += chunk.byteLength;
    if (total > MAX_MEMORY_RESPONSE_BYTES) {
      throw new MemoryError(
        "invalid_response",
        `Cannot ${action} "${url}": the answer is larger than ${MAX_MEMORY_RESPONSE_BYTES} bytes`,
        { url, limit: MAX_MEMORY_RESPONSE_BYTES },
      );
    }
    chunks.push(chunk);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

function invalidResponse(action: string, url: string, error: z.ZodError): MemoryError {
  return new MemoryError(
    "invalid_response",
    `Cannot ${action} "${url}": unexpected answer (${z.prettifyError(error).replace(/\n/g, "; ")})`,
    { url, issues: error.issues },
  );
}

function checkScopes(
  action: string,
  url: string,
  records: readonly { scope: string }[],
  scope: string,
): void {
  const stray = records.find((record) => record.scope !== scope);
  if (stray !== undefined) {
    throw new MemoryError(
      "invalid_response",
      `Cannot ${action} "${url}": the answer holds a record of scope "${stray.scope}", not "${scope}"`,
      { url, scope, record_scope: stray.scope },
    );
  }
}

/** Drops an absent `score` key (exactOptionalPropertyTypes). */
function withoutUndefined(record: z.infer<typeof memoryRecordSchema>): MemoryRecord {
  const { score, ...rest } = record;
  return score === undefined ? rest : { ...rest, score };
}
