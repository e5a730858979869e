/**
 * `fetch` over a message channel: a client that turns `fetch(url, init)` into plain messages, and
 * the answering side (fetch_responder.ts) that performs the real request. The tool Worker reaches an HTTP memory
 * service this way through the main thread, and the main thread reaches the model and memory
 * hosts through the network Worker (see network_gateway.ts), so only that Worker holds Deno net
 * permission.
 *
 * Bodies travel as text (UTF-8): every service kagent-run talks to speaks JSON (or, for MCP
 * servers, server-sent events). A request made with `stream: true` gets its response as soon as
 * the head arrives and its body in chunks as they come (an MCP server's event stream may stay open
 * for the whole run); any other gets the whole body in one reply.
 *
 * @module
 */

/** Asks the other side to perform one request. */
export interface FetchRequestMessage {
  type: "fetch";
  id: number;
  /** Which allowlist the request is checked against ("model", "memory", "mcp", "tools"). */
  channel: string;
  url: string;
  method: string;
  headers: [string, string][];
  body: string | null;
  /**
   * Answer with `fetch_head`, then `fetch_chunk`s as the body arrives, then `fetch_end` (or a
   * `fetch_error`). @default false: one `fetch_response` with the whole body
   */
  stream?: boolean;
}

/** Cancels request `id`; its answer, if any still comes, is ignored. */
export interface FetchAbortMessage {
  type: "fetch_abort";
  id: number;
}

/**
 * The answer to one request: the response with its whole body, or (`stream: true`) its head, the
 * body's chunks and its end; or why there is none (a `fetch_error` after a head ends the body
 * with that error).
 */
export type FetchReplyMessage =
  | {
    type: "fetch_response";
    id: number;
    status: number;
    status_text: string;
    headers: [string, string][];
    /** The whole body: text, or bytes from a binary channel (`tools`, whose bodies may be files). */
    body: string | Uint8Array<ArrayBuffer>;
  }
  | {
    type: "fetch_head";
    id: number;
    status: number;
    status_text: string;
    headers: [string, string][];
  }
  /** The body's bytes as they came (binary framings such as AWS event streams stay intact). */
  | { type: "fetch_chunk"; id: number; bytes: Uint8Array<ArrayBuffer> }
  | { type: "fetch_end"; id: number }
  | {
    type: "fetch_error";
    id: number;
    message: string;
    /** `too_large`: the body passed the cap ({@linkcode ResponseTooLargeError} on this side). */
    kind?: "too_large";
    /** The cap passed, in bytes, with `kind` `too_large`. */
    limit_bytes?: number;
  };

/**
 * A response refused because its body passed the cap: its own class, so a caller says "too large"
 * and does not retry, rather than reporting a connection failure.
 */
export class ResponseTooLargeError extends TypeError {
  /** The cap that was passed, in bytes. */
  readonly limitBytes: number;
  /**
   * @param message The answering side's message, naming the host and the cap.
   * @param limitBytes The cap, in bytes.
   */
  constructor(message: string, limitBytes: number) {
    super(message);
    this.name = "ResponseTooLargeError";
    this.limitBytes = limitBytes;
  }
}

/** The error a `fetch_error` stands for on the requesting side. */
function replyError(message: { message: string; kind?: "too_large"; limit_bytes?: number }) {
  return message.kind === "too_large"
    ? new ResponseTooLargeError(message.message, message.limit_bytes ?? 0)
    : new TypeError(message.message);
}

/** Default cap of a response body: 16 MiB, far above any model turn or memory answer. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** Statuses whose response has no body (the Response constructor refuses one; Fetch §2.2.3). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

interface Waiting {
  resolve: (response: Response) => void;
  reject: (error: unknown) => void;
  cleanup: () => void;
}

/** A streamed body still arriving. */
interface Arriving {
  controller: ReadableStreamDefaultController<Uint8Array>;
  cleanup: () => void;
}

/**
 * The requesting side. `fetchFor(channel)` is a drop-in `fetch` for callers that send text
 * bodies; an aborted signal rejects with the signal's reason, like `fetch` does (and, for a
 * streamed body still arriving, errors the body with it).
 */
export class MessageFetchClient {
  readonly #post: (message: FetchRequestMessage | FetchAbortMessage) => void;
  readonly #waiting = new Map<number, Waiting>();
  readonly #arriving = new Map<number, Arriving>();
  #nextId = 1;
  #closed: string | null = null;

  /** @param post Sends a message to the answering side. */
  constructor(post: (message: FetchRequestMessage | FetchAbortMessage) => void) {
    this.#post = post;
  }

  /**
   * A `fetch` whose requests are checked against `channel`'s hosts on the answering side.
   *
   * @param options.stream Resolve at the response's head and stream its body (server-sent
   *   events). @default false
   */
  fetchFor(channel: string, options: { stream?: boolean } = {}): typeof fetch {
    const stream = options.stream ?? false;
    return (input, init) => this.#fetch(channel, stream, input, init);
  }

  /** Settles the request a reply names. @returns false when no request waits for it. */
  receive(message: FetchReplyMessage): boolean {
    const arriving = this.#arriving.get(message.id);
    if (arriving !== undefined) return this.#receiveBody(message, arriving);
    const waiting = this.#waiting.get(message.id);
    if (waiting === undefined || message.type === "fetch_chunk" || message.type === "fetch_end") {
      return false;
    }
    this.#waiting.delete(message.id);
    if (message.type === "fetch_error") {
      waiting.cleanup();
      waiting.reject(replyError(message));
      return true;
    }
    const init = {
      status: message.status,
      statusText: message.status_text,
      headers: message.headers,
    };
    if (message.type === "fetch_response") {
      waiting.cleanup();
      waiting.resolve(
        new Response(NULL_BODY_STATUSES.has(message.status) ? null : message.body, init),
      );
      return true;
    }
    const id = message.id;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => void this.#arriving.set(id, { controller, cleanup: waiting.cleanup }),
      cancel: () => {
        if (!this.#arriving.delete(id)) return;
        waiting.cleanup();
        this.#post({ type: "fetch_abort", id });
      },
    });
    waiting.resolve(new Response(NULL_BODY_STATUSES.has(message.status) ? null : body, init));
    return true;
  }

  /** Rejects every waiting request, errors every arriving body, and all later requests fail. */
  close(reason: string): void {
    this.#closed = reason;
    for (const [id, waiting] of this.#waiting) {
      this.#waiting.delete(id);
      waiting.cleanup();
      waiting.reject(new TypeError(reason));
    }
    for (const [id, arriving] of this.#arriving) {
      this.#arriving.delete(id);
      arriving.cleanup();
      arriving.controller.error(new TypeError(reason));
    }
  }

  #receiveBody(message: FetchReplyMessage, arriving: Arriving): boolean {
    switch (message.type) {
      case "fetch_chunk":
        arriving.controller.enqueue(message.bytes);
        return true;
      case "fetch_end":
      case "fetch_error":
        this.#arriving.delete(message.id);
        arriving.cleanup();
        if (message.type === "fetch_end") arriving.controller.close();
        else arriving.controller.error(replyError(message));
        return true;
      default:
        return false;
    }
  }

  async #fetch(
    channel: string,
    stream: boolean,
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
        const arriving = this.#arriving.get(id);
        if (arriving !== undefined) {
          this.#arriving.delete(id);
          arriving.controller.error(signal?.reason);
        } else if (this.#waiting.delete(id)) {
          reject(signal?.reason);
        } else {
          return;
        }
        this.#post({ type: "fetch_abort", id });
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
        ...(stream ? { stream: true } : {}),
      });
    });
  }
}
