/**
 * What the provider tests share (private to this folder): a real loopback server that replays
 * recorded answers and records what it received, the rejection a failing call must end in, and a
 * small request.
 *
 * @module
 */

import assert from "node:assert/strict";
import { ModelError, type ModelRequest } from "../model_provider.ts";
import type { ToolDescriptor } from "../../tools/tool_definition.ts";

/** A recorded answer, or a delay (ms) before `late`, for timeouts. */
export type Reply = { status: number; body: unknown; headers?: Record<string, string> } | {
  delayMs: number;
};

/**
 * Serves `replies` in order on 127.0.0.1 (a 500 once they run out) while `test` runs against
 * `http://127.0.0.1:<port>/v1/`; `capture` turns each request (and its JSON body) into what the
 * test inspects.
 *
 * @param late The body a delayed reply finally sends.
 */
export async function withReplayServer<T>(
  replies: Reply[],
  options: { capture: (request: Request, body: Record<string, unknown>) => T; late: unknown },
  test: (baseUrl: string, received: T[]) => Promise<void>,
): Promise<void> {
  const received: T[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      received.push(options.capture(request, await request.json()));
      const reply = replies.shift() ?? { status: 500, body: { error: "no more replies" } };
      if ("delayMs" in reply) {
        await new Promise<void>((resolve) => setTimeout(resolve, reply.delayMs));
        return Response.json(options.late);
      }
      return Response.json(reply.body, { status: reply.status, headers: reply.headers ?? {} });
    },
  );
  try {
    await test(`http://127.0.0.1:${server.addr.port}/v1/`, received);
  } finally {
    await server.shutdown();
  }
}

/** The ModelError `promise` rejects with; fails the test when it resolves or rejects otherwise. */
export async function rejection(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ModelError);
    return error;
  }
  throw new Error("expected a rejection");
}

/** A tool with one optional string property `path`. */
export const tool = (name: string): ToolDescriptor => ({
  name,
  description: `The ${name} tool`,
  input_schema: { type: "object", properties: { path: { type: "string" } } },
} as unknown as ToolDescriptor);

/** A request with a system prompt, one user message, `messages` after it, and two tools. */
export const request = (messages: ModelRequest["messages"] = []): ModelRequest => ({
  system: "You are careful.",
  messages: [{ role: "user", content: "List the files" }, ...messages],
  tools: [tool("fs.read_file"), tool("fs.list_files")],
  run: { run_id: "r1", workspace: "/w", deliverables: "/w/d", scratch: "/w/s" },
});
