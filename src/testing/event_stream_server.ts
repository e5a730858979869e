/**
 * A loopback model server for streaming tests: answers each POST with the chunks its handler
 * returns, as a `text/event-stream` body written chunk by chunk (optionally `delayMs` apart), and
 * can cut the connection after the last chunk, as a dropped stream does. It records every JSON
 * request body it received.
 *
 * @module
 */

/** What the server sends for one request. */
export interface StreamScript {
  /** Raw body pieces, written in order (an event may be split across pieces). */
  chunks: string[];
  /** Wait between two pieces, in ms. @default 0 */
  delayMs?: number;
  /** Break the connection after the last piece instead of ending the body. @default false */
  cut?: boolean;
}

/** A running {@linkcode serveEventStream} server. */
export interface EventStreamServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  /** Every request's JSON body, in order. */
  received: Record<string, unknown>[];
  /** Every request's headers, in order. */
  headers: Headers[];
}

/**
 * Serves `handler`'s scripts (or plain responses, e.g. a 429 or a JSON answer) on 127.0.0.1.
 *
 * @param handler Called with each request's JSON body and its index from 0.
 * @example
 * ```ts
 * import { serveEventStream } from "./event_stream_server.ts";
 * await using server = serveEventStream(() => ({ chunks: ["data: [DONE]\n\n"] }));
 * const response = await fetch(`${server.baseUrl}/chat/completions`, { method: "POST", body: "{}" });
 * console.assert((await response.text()) === "data: [DONE]\n\n");
 * ```
 */
export function serveEventStream(
  handler: (body: Record<string, unknown>, index: number) => StreamScript | Response,
): EventStreamServer {
  const received: Record<string, unknown>[] = [];
  const headers: Headers[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const body = await request.json() as Record<string, unknown>;
      received.push(body);
      headers.push(request.headers);
      const answer = handler(body, received.length - 1);
      if (answer instanceof Response) return answer;
      const encoder = new TextEncoder();
      const pieces = [...answer.chunks];
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const piece = pieces.shift();
          if (piece === undefined) {
            if (answer.cut === true) controller.error(new Error("connection cut by the test"));
            else controller.close();
            return;
          }
          if ((answer.delayMs ?? 0) > 0) {
            await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
          }
          controller.enqueue(encoder.encode(piece));
        },
      });
      return new Response(stream, {
        headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
      });
    },
  );
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
    received,
    headers,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

/** One server-sent event: `event: <name>` (when given) and `data: <JSON>`, then a blank line. */
export function sseEvent(data: unknown, event?: string): string {
  return `${event === undefined ? "" : `event: ${event}\n`}data: ${
    typeof data === "string" ? data : JSON.stringify(data)
  }\n\n`;
}
