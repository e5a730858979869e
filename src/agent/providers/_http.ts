/**
 * POST with retries for model providers (private to this folder), the way the official OpenAI and
 * Anthropic SDKs retry: 408, 409, 429 and 5xx (Anthropic's 529 "overloaded" included), timeouts
 * and connection errors, with exponential backoff (0.5 s doubling up to 8 s, minus up to 25 %
 * jitter); the server's `retry-after-ms` or `Retry-After` wait when it sends one of at most 60 s
 * (a longer one is not waited for: the own backoff applies, as in the SDKs), and its
 * `x-should-retry: true|false` overriding the status rule. A 2xx answer is handed to a reader:
 * {@linkcode postJson} parses JSON, the streaming providers read server-sent events (a stream
 * that fails after its 2xx is never retried: part of the answer was already read).
 *
 * @module
 */

import { DEFAULT_MODEL } from "../../config/base/mod.ts";
import { ModelError } from "../model_provider.ts";
import { ResponseTooLargeError } from "../../network/mod.ts";

/** Options of {@linkcode postJson} and {@linkcode postWithRetries}. */
export interface PostJsonOptions {
  /** Request headers; never copied into errors (they hold the API key). */
  headers: Record<string, string>;
  /**
   * Per-attempt timeout in milliseconds: the whole attempt for {@linkcode postJson}; for a
   * stream, the wait for the response and then for each next chunk (an idle timeout).
   */
  timeoutMs: number;
  /** Retries after the first attempt. @default DEFAULT_MODEL.retries (3) */
  retries?: number;
  /**
   * The first backoff wait in milliseconds, doubled each retry up to 16 times itself (8 s by
   * default), each wait shortened by up to 25 % at random. Tests set it small.
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

/** What a reader of a 2xx answer gets besides the response. */
export interface Attempt {
  /** Aborted by the caller's signal or the attempt's timeout. */
  signal: AbortSignal;
  /** Restarts the attempt's timeout: a stream reader calls it on each chunk. */
  touch(): void;
  /** Whether the attempt's timeout fired. */
  timedOut(): boolean;
  /** `performance.now()` when this attempt's request was sent, in ms. */
  startedAt: number;
  /** This attempt's number, from 1. */
  attempts: number;
  /** The host the request went to, for messages. */
  host: string;
  /** {@linkcode PostJsonOptions.timeoutMs}, for messages. */
  timeoutMs: number;
}

/**
 * The longest server-asked wait between two attempts, in ms: a longer `Retry-After` is not
 * waited for, the own backoff applies (as the official SDKs do).
 */
const MAX_DELAY_MS = 60_000;
/** The computed backoff stops doubling at this multiple of the first wait (8 s from 0.5 s). */
const MAX_BACKOFF_FACTOR = 16;
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
export function postJson(url: string, body: unknown, options: PostJsonOptions): Promise<unknown> {
  return postWithRetries(url, body, options, readJson);
}

/**
 * Reads a 2xx answer's body as JSON.
 *
 * @throws {ModelError} `provider_failed` with `details` {status, attempts, body_excerpt} when the
 *   body is not JSON.
 */
export async function readJson(response: Response, attempt: Attempt): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new ModelError(
      "provider_failed",
      `Cannot read response of "${attempt.host}": body is not JSON`,
      { status: response.status, attempts: attempt.attempts, body_excerpt: excerpt(text) },
    );
  }
}

/**
 * POSTs `body` as JSON to `url`, retrying as the module describes, and hands the first 2xx
 * answer to `read`. A {@linkcode ModelError} from `read` ends the call as it is; any other error
 * from it counts as a connection failure of that attempt (retried).
 *
 * @throws {ModelError} `provider_failed` with `details` {status, attempts, body_excerpt} (never
 * the headers) when the retries run out or the answer is not retryable; `aborted: true` when
 * `options.signal` aborted the call.
 */
export function postWithRetries<T>(
  url: string,
  body: unknown,
  options: PostJsonOptions,
  read: (response: Response, attempt: Attempt) => Promise<T>,
): Promise<T> {
  return sendWithRetries(url, JSON.stringify(body), options, read);
}

/**
 * A `fetch` for a provider package (`@ai-sdk/*`) that sends each POST through the same retries
 * as the own clients ({@linkcode postWithRetries}: statuses, backoff, `Retry-After`, timeouts),
 * its body byte for byte (a signed request stays signed) and its headers as the package set
 * them; the first 2xx response is handed back unread (its stream is the package's). Other
 * methods go straight to `base`.
 *
 * @param base The fetch requests leave through (the network gateway's model channel).
 * @throws {ModelError} `provider_failed` as {@linkcode postWithRetries}, through the package.
 */
export function retryingFetch(
  base: typeof fetch,
  options: Omit<PostJsonOptions, "headers" | "signal" | "fetch">,
): typeof fetch {
  return async (input, init) => {
    const request = input instanceof Request ? input : null;
    const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
    const body = init?.body ?? (request === null ? null : await request.clone().text());
    if (method !== "POST" || (body !== null && typeof body !== "string")) {
      return await base(input, init);
    }
    const url = request?.url ?? String(input);
    const headers = Object.fromEntries(new Headers(init?.headers ?? request?.headers).entries());
    const signal = init?.signal ?? request?.signal ?? undefined;
    return await sendWithRetries(url, body ?? "", {
      ...options,
      headers,
      fetch: base,
      ...(signal === undefined || signal === null ? {} : { signal }),
    }, (response) => Promise.resolve(response));
  };
}

/** {@linkcode postWithRetries} with its body already serialized. */
async function sendWithRetries<T>(
  url: string,
  payload: string,
  options: PostJsonOptions,
  read: (response: Response, attempt: Attempt) => Promise<T>,
): Promise<T> {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const retries = options.retries ?? DEFAULT_MODEL.retries;
  const backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  const host = safeHost(url);

  for (let attempt = 0;; attempt += 1) {
    const attempts = attempt + 1;
    let failure: { message: string; details: Record<string, unknown>; retryAfterMs: number | null };
    options.signal?.throwIfAborted();
    const timer = new AttemptTimer(options.timeoutMs);
    const signal = options.signal === undefined
      ? timer.signal
      : AbortSignal.any([options.signal, timer.signal]);
    try {
      const startedAt = performance.now();
      const response = await fetchImpl(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...options.headers },
        body: payload,
        signal,
      });
      if (response.ok) {
        return await read(response, {
          signal,
          touch: () => timer.touch(),
          timedOut: () => timer.fired,
          startedAt,
          attempts,
          host,
          timeoutMs: options.timeoutMs,
        });
      }
      const text = await response.text();
      const details = { status: response.status, attempts, body_excerpt: excerpt(text) };
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400) {
        // The gateway never follows a redirect (it could lead to another host): say where to.
        throw new ModelError(
          "provider_failed",
          `Cannot call "${host}": it redirects (HTTP ${response.status}) to "${
            location ?? "nowhere named"
          }"; kagent-run does not follow redirects: set model.base_url to the address that answers`,
          { ...details, location },
        );
      }
      const reason = errorReason(text);
      const message = `Cannot call "${host}": HTTP ${response.status}${
        reason === null ? "" : `: ${reason}`
      }`;
      if (!shouldRetry(response)) throw new ModelError("provider_failed", message, details);
      failure = { message, details, retryAfterMs: retryAfter(response.headers, now()) };
    } catch (error) {
      if (error instanceof ModelError) throw error;
      if (error instanceof ResponseTooLargeError) {
        // Asking again would read the same answer: not retried.
        throw new ModelError(
          "provider_failed",
          `Cannot call "${host}": its answer is larger than ${error.limitBytes} bytes, the most ` +
            `kagent-run reads from a model`,
          { status: null, attempts, limit_bytes: error.limitBytes },
        );
      }
      if (options.signal?.aborted) {
        throw new ModelError("provider_failed", `Cannot call "${host}": aborted`, {
          status: null,
          attempts,
          aborted: true,
        });
      }
      const reason = timer.fired
        ? `no response within ${options.timeoutMs} ms`
        : `connection failed (${error instanceof Error ? error.message : String(error)})`;
      failure = {
        message: `Cannot call "${host}": ${reason}`,
        details: {
          status: null,
          attempts,
          ...(timer.fired ? { timeout_ms: options.timeoutMs } : {}),
        },
        retryAfterMs: null,
      };
    } finally {
      timer.clear();
    }
    if (attempt >= retries) {
      throw new ModelError(
        "provider_failed",
        `${failure.message} (after ${attempts} attempt${attempts === 1 ? "" : "s"})`,
        failure.details,
      );
    }
    const ceiling = backoffMs * Math.min(MAX_BACKOFF_FACTOR, 2 ** attempt);
    const delay = failure.retryAfterMs ?? Math.floor(ceiling * (1 - random() * 0.25));
    await sleep(delay);
  }
}

/**
 * Whether an error answer is worth another attempt, as the official SDKs decide: the server's
 * `x-should-retry: true` or `false` first, else 408 (timeout), 409 (lock conflict), 429 (rate
 * limit) and every 5xx (529 "overloaded" included).
 */
export function shouldRetry(response: Response): boolean {
  const header = response.headers.get("x-should-retry");
  if (header === "true") return true;
  if (header === "false") return false;
  const status = response.status;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * The wait the server asks for, in ms: `retry-after-ms` (milliseconds, the OpenAI and Anthropic
 * APIs send it) before `Retry-After` (seconds or an HTTP date); `null` when neither is there or
 * readable, or when it asks for more than 60 s (the caller's own backoff applies then).
 */
export function retryAfter(headers: Headers, nowMs: number): number | null {
  const milliseconds = headers.get("retry-after-ms")?.trim() ?? "";
  if (/^\d+(\.\d+)?$/.test(milliseconds)) return withinLimit(Math.round(Number(milliseconds)));
  return parseRetryAfter(headers.get("retry-after"), nowMs);
}

/**
 * Reads a `Retry-After` header: delay seconds or an HTTP date, in milliseconds; `null` when
 * absent, unreadable, or more than 60 s away.
 */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null || value.trim() === "") return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return withinLimit(Math.round(Number(trimmed) * 1000));
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return withinLimit(Math.max(0, date - nowMs));
}

/** `ms` when the server may make us wait that long, else `null` (own backoff). */
function withinLimit(ms: number): number | null {
  return ms <= MAX_DELAY_MS ? ms : null;
}

/** An attempt's timeout that a stream reader restarts on each chunk. */
class AttemptTimer {
  readonly #controller = new AbortController();
  readonly #timeoutMs: number;
  #handle: ReturnType<typeof setTimeout>;
  fired = false;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#handle = this.#start();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  touch(): void {
    if (this.fired) return;
    clearTimeout(this.#handle);
    this.#handle = this.#start();
  }

  clear(): void {
    clearTimeout(this.#handle);
  }

  #start(): ReturnType<typeof setTimeout> {
    return setTimeout(() => {
      this.fired = true;
      this.#controller.abort(new DOMException("The attempt timed out", "TimeoutError"));
    }, this.#timeoutMs);
  }
}

/**
 * The reason an error body gives, for the message: `error.message`, `error` (a string) or
 * `message` of a JSON body, else the body's first line; cut to 200 characters; null when empty.
 */
export function errorReason(text: string): string | null {
  let reason: unknown = null;
  try {
    const body = JSON.parse(text) as Record<string, unknown> | null;
    const error = body?.error;
    reason = typeof error === "string"
      ? error
      : typeof error === "object" && error !== null
      ? (error as Record<string, unknown>).message
      : body?.message;
  } catch {
    reason = text.split("\n", 1)[0];
  }
  if (typeof reason !== "string") return null;
  const line = reason.replaceAll(/\s+/g, " ").trim();
  if (line === "") return null;
  return line.length <= 200 ? line : `${line.slice(0, 200)}…`;
}

/** `text`, cut to {@linkcode EXCERPT_LENGTH} characters for error details. */
export function excerpt(text: string): string {
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
