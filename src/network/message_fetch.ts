/**
 * `fetch` over a message channel: a client that turns `fetch(url, init)` into plain messages, and
 * the answering side that performs the real request. The tool Worker reaches an HTTP memory
 * service this way through the main thread, and the main thread reaches the model and memory
 * hosts through the network Worker (see network_gateway.ts), so only that Worker holds Deno net
 * permission.
 *
 * Bodies travel as text (UTF-8): every service kagent-run talks to speaks JSON.
 *
 * @module
 */

/** Asks the other side to perform one request. */
export interface FetchRequestMessage {
  type: "fetch";
  id: number;
  /** Which allowlist the request is checked against ("model", "memory"). */
  channel: string;
  url: string;
  method: string;
  headers: [string, string][];
  body: string | null;
}

/** Cancels request `id`; its answer, if any still comes, is ignored. */
export interface FetchAbortMessage {
  type: "fetch_abort";
  id: number;
}

/** The answer to one request: the response with its whole body, or why there is none. */
export type FetchReplyMessage =
  | {
    type: "fetch_response";
    id: number;
    status: number;
    status_text: string;
    headers: [string, string][];
    body: string;
  }
  | { type: "fetch_error"; id: number; message: string };

/** Default cap of a response body: 16 MiB, far above any model turn or memory answer. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** Statuses whose response has no body (the Response constructor refuses one; Fetch §2.2.3). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

interface Waiting {
  resolve: (response: Response) => void;
  reject: (error: unknown) => void;
  cleanup: () => void;
}

/**
 * The requesting side. `fetchFor(channel)` is a drop-in `fetch` for callers that send text
 * bodies; an aborted signal rejects with the signal's reason, like `fetch` does.
 */
export class MessageFetchClient {
  readonly #post: (message: FetchRequestMessage | FetchAbortMessage) => void;
  readonly #waiting = new Map<number, Waiting>();
  #nextId = 1;
  #closed: string | null = null;

  /** @param post Sends a message to the answering side. */
  constructor(post: (message: FetchRequestMessage | FetchAbortMessage) => void) {
    this.#post = post;
  }

  /** A `fetch` whose requests are checked against `channel`'s hosts on the answering side. */
  fetchFor(channel: string): typeof fetch {
    return (input, init) => this.#fetch(channel, input, init);
  }

  /** Settles the request a reply names. @returns false when no request waits for it. */
  receive(message: FetchReplyMessage): boolean {
    const waiting = this.#waiting.get(message.id);
    if (waiting === undefined) return false;
    this.#waiting.delete(message.id);
    waiting.cleanup();
    if (message.type === "fetch_error") {
      waiting.reject(new TypeError(message.message));
      return true;
    }
    waiting.resolve(
      new Response(NULL_BODY_STATUSES.has(message.status) ? null : message.body, {
        status: message.status,
        statusText: message.status_text,
        headers: message.headers,
      }),
    );
    return true;
  }

  /** Rejects every waiting request and all later ones (the answering side is gone). */
  close(reason: string): void {
    this.#closed = reason;
    for (const [id, waiting] of this.#waiting) {
      this.#waiting.delete(id);
      waiting.cleanup();
      waiting.reject(new TypeError(reason));
    }
  }

  async #fetch(
    channel: string,
    input: string | URL | Request,
    init?: RequestInit,
  ): Promise<Response> {
    const request = new Request(input, init);
    const signal = init?.signal ?? null;
    signal?.throwIfAborted();
    if (this.#closed !== null) throw new TypeError(this.#closed);
    const body = request.method === "GET" || request.method === "HEAD"
      ? null
      : await request.text();
    signal?.throwIfAborted();
    const id = this.#nextId++;
    return await new Promise<Response>((resolve, reject) => {
      const onAbort = () => {
        if (!this.#waiting.delete(id)) return;
        this.#post({ type: "fetch_abort", id });
        reject(signal?.reason);
      };
      this.#waiting.set(id, {
        resolve,
        reject,
        cleanup: () => signal?.removeEventListener("abort", onAbort),
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#post({
        type: "fetch",
        id,
        channel,
        url: request.url,
        method: request.method,
        headers: [...request.headers],
        body,
      });
    });
  }
}

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
  options: { fetch?: typeof fetch; maxBytes?: number } = {},
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
    const body = await readCapped(response, maxBytes);
    if (body === null) {
      return {
        type: "fetch_error",
        id: message.id,
        message: `Cannot read the response of "${host}": it is larger than ${maxBytes} bytes`,
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
    const reason = error instanceof Error ? error.message : String(error);
    return { type: "fetch_error", id: message.id, message: `Cannot reach "${host}": ${reason}` };
  }
}

/** The body as text, or null when it exceeds `maxBytes` (the rest is not read). */
async function readCapped(response: Response, maxBytes: number): Promise<string | null> {
  if (response.body === null) return "";
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  let total = 0;
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return null;
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
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
  /**
   * Refuses a request before it is made: returns why (a user-readable reason), or null to let it
   * through. @default lets everything through
   */
  refuse?: (message: FetchRequestMessage) => string | null;
}

/** The answering side of a channel: one reply per request, aborts honoured. */
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
    answerFetch(message, controller.signal, {
      ...(this.#options.fetch === undefined ? {} : { fetch: this.#options.fetch }),
      ...(this.#options.maxBytes === undefined ? {} : { maxBytes: this.#options.maxBytes }),
    }).then((reply) => {
      this.#running.delete(message.id);
      if (!controller.signal.aborted) this.#options.post(reply);
    });
  }
}
