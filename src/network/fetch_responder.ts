/**
 * The answering side of `fetch` over a message channel (see message_fetch.ts): performs each
 * request with the real `fetch` (in the network Worker) or with the next hop's (the main thread,
 * for the tool Worker), never following redirects, with the response body capped, and posts the
 * reply, whole or (`stream: true`) as a head, chunks and an end.
 *
 * @module
 */

import {
  DEFAULT_MAX_RESPONSE_BYTES,
  type FetchAbortMessage,
  type FetchReplyMessage,
  type FetchRequestMessage,
} from "./message_fetch.ts";

/**
 * The answering side: performs `message` with `fetchImpl` (redirects are not followed: a 3xx is
 * returned as it is, so a redirect can never lead a request to another host) and reads the body up
 * to `maxBytes`.
 *
 * @returns a `fetch_response`, or a `fetch_error` naming the host when the request fails, is
 * aborted, or the body is larger than `maxBytes` (bytes). Never rejects; headers are never put
 * into errors (they carry API keys).
 */
export async function answerFetch(
  message: FetchRequestMessage,
  signal: AbortSignal,
  options: { fetch?: typeof fetch; maxBytes?: number; binary?: boolean } = {},
): Promise<FetchReplyMessage> {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const host = safeHost(message.url);
  try {
    const response = await fetchImpl(message.url, {
      method: message.method,
      headers: message.headers,
      body: message.body,
      redirect: "manual",
      signal,
    });
    const body = await readCapped(response, maxBytes, options.binary ?? false);
    if (body === null) {
      return {
        type: "fetch_error",
        id: message.id,
        message: `Cannot read the response of "${host}": it is larger than ${maxBytes} bytes`,
        kind: "too_large",
        limit_bytes: maxBytes,
      };
    }
    return {
      type: "fetch_response",
      id: message.id,
      status: response.status,
      status_text: response.statusText,
      headers: [...response.headers],
      body,
    };
  } catch (error) {
    return {
      type: "fetch_error",
      id: message.id,
      message: unreachable(host, error),
    };
  }
}

/**
 * The body as text (or, `binary`, as bytes), or null when it exceeds `maxBytes` (the rest is not
 * read).
 */
async function readCapped(
  response: Response,
  maxBytes: number,
  binary: boolean,
): Promise<string | Uint8Array<ArrayBuffer> | null> {
  if (response.body === null) return binary ? new Uint8Array() : "";
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  let total = 0;
  let text = "";
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return null;
    }
    if (binary) chunks.push(value);
    else text += decoder.decode(value, { stream: true });
  }
  if (!binary) return text + decoder.decode();
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * Performs `message` like {@linkcode answerFetch} but posts the head as soon as it arrives, then
 * the body's bytes as they come (a binary framing passes intact), then `fetch_end`; a failure after the head (the cap passed, the
 * connection lost) is a `fetch_error`, which ends the body with it. Never rejects.
 */
async function streamFetch(
  message: FetchRequestMessage,
  signal: AbortSignal,
  post: (reply: FetchReplyMessage) => void,
  options: { fetch?: typeof fetch; maxBytes?: number },
): Promise<void> {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const host = safeHost(message.url);
  const id = message.id;
  let response: Response;
  try {
    response = await fetchImpl(message.url, {
      method: message.method,
      headers: message.headers,
      body: message.body,
      redirect: "manual",
      signal,
    });
  } catch (error) {
    post({ type: "fetch_error", id, message: unreachable(host, error) });
    return;
  }
  post({
    type: "fetch_head",
    id,
    status: response.status,
    status_text: response.statusText,
    headers: [...response.headers],
  });
  if (response.body === null) return post({ type: "fetch_end", id });
  const reader = response.body.getReader();
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel();
        const text = `Cannot read the response of "${host}": it is larger than ${maxBytes} bytes`;
        return post({
          type: "fetch_error",
          id,
          message: text,
          kind: "too_large",
          limit_bytes: maxBytes,
        });
      }
      if (value.byteLength > 0) post({ type: "fetch_chunk", id, bytes: new Uint8Array(value) });
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    post({ type: "fetch_error", id, message: `Cannot read the response of "${host}": ${reason}` });
    return;
  }
  post({ type: "fetch_end", id });
}

/**
 * The message of a request that failed before its response: `Cannot reach "<host>": <why>`, or the
 * error's own message when it already is one (the tools channel's refusals name the host and the
 * rule themselves).
 */
function unreachable(host: string, error: unknown): string {
  const reason = failureReason(error);
  return reason.startsWith("Cannot ") ? reason : `Cannot reach "${host}": ${reason}`;
}

/**
 * Why a request failed: the error's message, and what its cause says last ("fetch failed" alone
 * does not tell a refused connection from a reset one); never the URL, which may hold a secret.
 */
function failureReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : "";
  const last = cause.split("): ").at(-1) ?? "";
  return last === "" || cause.includes("://") && last.includes("://")
    ? message
    : `${message} (${last.slice(0, 200)})`;
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "an invalid URL";
  }
}

/** Options of {@linkcode FetchResponder}. */
export interface FetchResponderOptions {
  /** Sends a reply to the requesting side. */
  post: (message: FetchReplyMessage) => void;
  /** Performs requests. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Cap of a response body in bytes. @default DEFAULT_MAX_RESPONSE_BYTES */
  maxBytes?: number;
  /** Whole bodies travel as bytes, not text (the `tools` channel: files, images). @default false */
  binary?: boolean;
  /**
   * Refuses a request before it is made: returns why (a user-readable reason), or null to let it
   * through. @default lets everything through
   */
  refuse?: (message: FetchRequestMessage) => string | null;
}

/**
 * The answering side of a channel: one reply per request (a head, chunks and an end for a
 * `stream` request), aborts honoured.
 */
export class FetchResponder {
  readonly #options: FetchResponderOptions;
  readonly #running = new Map<number, AbortController>();

  constructor(options: FetchResponderOptions) {
    this.#options = options;
  }

  /** Handles a request or an abort. Replies asynchronously through `post`. */
  handle(message: FetchRequestMessage | FetchAbortMessage): void {
    if (message.type === "fetch_abort") {
      this.#running.get(message.id)?.abort();
      this.#running.delete(message.id);
      return;
    }
    const refusal = this.#options.refuse?.(message) ?? null;
    if (refusal !== null) {
      this.#options.post({ type: "fetch_error", id: message.id, message: refusal });
      return;
    }
    const controller = new AbortController();
    this.#running.set(message.id, controller);
    const options = {
      ...(this.#options.fetch === undefined ? {} : { fetch: this.#options.fetch }),
      ...(this.#options.maxBytes === undefined ? {} : { maxBytes: this.#options.maxBytes }),
      ...(this.#options.binary === undefined ? {} : { binary: this.#options.binary }),
    };
    // Nothing is posted once the requesting side cancelled the request.
    const post = (reply: FetchReplyMessage) => {
      if (!controller.signal.aborted) this.#options.post(reply);
    };
    const done = () => void this.#running.delete(message.id);
    if (message.stream === true) {
      streamFetch(message, controller.signal, post, options).then(done);
      return;
    }
    answerFetch(message, controller.signal, options).then((reply) => {
      done();
      post(reply);
    });
  }
}
