/**
 * JSON POST with retries for model providers (private to this folder): exponential backoff with
 * full jitter on 429, 5xx, timeouts and connection errors, honouring `Retry-After`.
 *
 * @module
 */

import { DEFAULT_MODEL } from "../../config/mod.ts";
import { ModelError } from "../model_provider.ts";

/** Options of {@linkcode postJson}. */
export interface PostJsonOptions {
  /** Request headers; never copied into errors (they hold the API key). */
  headers: Record<string, string>;
  /** Per-attempt timeout in milliseconds. */
  timeoutMs: number;
  /** Retries after the first attempt. @default DEFAULT_MODEL.retries (3) */
  retries?: number;
  /**
   * First backoff ceiling in milliseconds, doubled each retry (capped at 60 s).
   * @default DEFAULT_BACKOFF_MS (500)
   */
  backoffMs?: number;
  /** Aborts the whole call, including backoff waits. */
  signal?: AbortSignal;
  /** For tests. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** For tests. @default a timer */
  sleep?: (ms: number) => Promise<void>;
  /** For tests, in [0, 1). @default Math.random */
  random?: () => number;
  /** For tests: the current time in ms, to read HTTP-date `Retry-After`. @default Date.now */
  now?: () => number;
}

/** The longest wait between two attempts, in ms (a longer `Retry-After` is cut to it). */
const MAX_DELAY_MS = 60_000;
/** Characters of an error response's body kept in `details.body_excerpt`. */
const EXCERPT_LENGTH = 300;
/** {@linkcode PostJsonOptions.backoffMs} when none is given, in ms. */
const DEFAULT_BACKOFF_MS = 500;

/**
 * POSTs `body` as JSON to `url` and returns the parsed JSON response.
 *
 * @returns The parsed response body of the first 2xx answer.
 * @throws {ModelError} `provider_failed` with `details` {status, attempts, body_excerpt} (never
 * the headers) when the retries run out, the status is not retryable, or the body is not JSON.
 */
export async function postJson(
  url: string,
  body: unknown,
  options: PostJsonOptions,
): Promise<unknown> {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const retries = options.retries ?? DEFAULT_MODEL.retries;
  const backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  const payload = JSON.stringify(body);
  const host = safeHost(url);

  for (let attempt = 0;; attempt += 1) {
    const attempts = attempt + 1;
    let failure: { message: string; details: Record<string, unknown>; retryAfterMs: number | null };
    options.signal?.throwIfAborted();
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = options.signal === undefined
      ? timeout
      : AbortSignal.any([options.signal, timeout]);
    try {
      const response = await fetchImpl(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...options.headers },
        body: payload,
        signal,
      });
      const text = await response.text();
      if (response.ok) {
        try {
          return JSON.parse(text);
        } catch {
          throw new ModelError(
            "provider_failed",
            `Cannot read response of "${host}": body is not JSON`,
            { status: response.status, attempts, body_excerpt: excerpt(text) },
          );
        }
      }
      const details = { status: response.status, attempts, body_excerpt: excerpt(text) };
      const message = `Cannot call "${host}": HTTP ${response.status}`;
      if (response.status !== 429 && response.status < 500) {
        throw new ModelError("provider_failed", message, details);
      }
      failure = {
        message,
        details,
        retryAfterMs: parseRetryAfter(response.headers.get("retry-after"), now()),
      };
    } catch (error) {
      if (error instanceof ModelError) throw error;
      if (options.signal?.aborted) {
        throw new ModelError("provider_failed", `Cannot call "${host}": aborted`, {
          status: null,
          attempts,
          aborted: true,
        });
      }
      const timedOut = timeout.aborted;
      const reason = timedOut
        ? `no response within ${options.timeoutMs} ms`
        : `connection failed (${error instanceof Error ? error.message : String(error)})`;
      failure = {
        message: `Cannot call "${host}": ${reason}`,
        details: { status: null, attempts, ...(timedOut ? { timeout_ms: options.timeoutMs } : {}) },
        retryAfterMs: null,
      };
    }
    if (attempt >= retries) {
      throw new ModelError(
        "provider_failed",
        `${failure.message} (after ${attempts} attempt${attempts === 1 ? "" : "s"})`,
        failure.details,
      );
    }
    const ceiling = Math.min(MAX_DELAY_MS, backoffMs * 2 ** attempt);
    const delay = failure.retryAfterMs ?? Math.floor(random() * ceiling);
    await sleep(delay);
  }
}

/**
 * Reads a `Retry-After` header: delay seconds or an HTTP date, in milliseconds capped at 60 s;
 * `null` when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null || value.trim() === "") return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) {
    return Math.min(MAX_DELAY_MS, Math.round(Number(trimmed) * 1000));
  }
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.min(MAX_DELAY_MS, Math.max(0, date - nowMs));
}

function excerpt(text: string): string {
  return text.length <= EXCERPT_LENGTH ? text : `${text.slice(0, EXCERPT_LENGTH)}…`;
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "provider";
  }
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
