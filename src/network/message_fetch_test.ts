import assert from "node:assert/strict";
import { FetchResponder } from "./fetch_responder.ts";
import { type FetchReplyMessage, MessageFetchClient } from "./message_fetch.ts";

/** A fake `fetch` whose body gives "a", then (when read again) "b" and ends. */
function twoChunkFetch(onSecondPull: () => void): typeof fetch {
  let pulls = 0;
  return () =>
    Promise.resolve(
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            pulls += 1;
            if (pulls === 1) return controller.enqueue(new TextEncoder().encode("a"));
            onSecondPull();
            controller.enqueue(new TextEncoder().encode("b"));
            controller.close();
          },
        }, { highWaterMark: 0 }), // pulled only when read, never ahead
        { status: 200, headers: { "content-type": "text/event-stream" } },
      ),
    );
}

Deno.test("a streamed request posts the head and each chunk before the body ends", async () => {
  const posted: FetchReplyMessage[] = [];
  let postedBeforeTheEnd: string[] = [];
  const ended = Promise.withResolvers<void>();
  const responder = new FetchResponder({
    post: (reply) => {
      posted.push(reply);
      if (reply.type === "fetch_end") ended.resolve();
    },
    fetch: twoChunkFetch(() => postedBeforeTheEnd = posted.map((reply) => reply.type)),
  });
  responder.handle({
    type: "fetch",
    id: 7,
    channel: "mcp",
    url: "http://127.0.0.1:1/mcp",
    method: "GET",
    headers: [],
    body: null,
    stream: true,
  });
  await ended.promise;
  assert.deepEqual(postedBeforeTheEnd, ["fetch_head", "fetch_chunk"]);
  assert.deepEqual(
    posted.map((reply) =>
      reply.type === "fetch_chunk" ? new TextDecoder().decode(reply.bytes) : reply.type
    ),
    ["fetch_head", "a", "b", "fetch_end"],
  );

  // Near miss: without `stream` the same body comes whole, in one reply.
  const whole: FetchReplyMessage[] = [];
  const answered = Promise.withResolvers<void>();
  new FetchResponder({
    post: (reply) => {
      whole.push(reply);
      answered.resolve();
    },
    fetch: twoChunkFetch(() => {}),
  }).handle({
    type: "fetch",
    id: 8,
    channel: "model",
    url: "http://127.0.0.1:1/v1",
    method: "GET",
    headers: [],
    body: null,
  });
  await answered.promise;
  assert.deepEqual(whole.map((reply) => reply.type === "fetch_response" ? reply.body : reply), [
    "ab",
  ]);
});

Deno.test("a streamed response resolves at its head and cancelling its body aborts the request", async () => {
  const sent: { type: string; id: number; stream?: boolean }[] = [];
  const client = new MessageFetchClient((message) => sent.push(message));
  const pending = client.fetchFor("mcp", { stream: true })("http://127.0.0.1:1/mcp");
  await Promise.resolve();
  const id = sent[0]?.id ?? -1;
  assert.equal(sent[0]?.stream, true);
  client.receive({ type: "fetch_head", id, status: 200, status_text: "OK", headers: [] });
  const response = await pending;
  const reader = response.body!.getReader();
  client.receive({ type: "fetch_chunk", id, bytes: encode("data: 1\n\n") });
  assert.equal(new TextDecoder().decode((await reader.read()).value), "data: 1\n\n");
  await reader.cancel();
  assert.deepEqual(sent.at(-1), { type: "fetch_abort", id });
  // Chunks still in flight after the cancel are dropped, not delivered.
  assert.equal(client.receive({ type: "fetch_chunk", id, bytes: encode("late") }), false);
});

Deno.test("a streamed body ends with the error the answering side sends after the head", async () => {
  const sent: { id: number }[] = [];
  const client = new MessageFetchClient((message) => sent.push(message));
  const pending = client.fetchFor("mcp", { stream: true })("http://127.0.0.1:1/mcp");
  await Promise.resolve();
  const id = sent[0]?.id ?? -1;
  client.receive({ type: "fetch_head", id, status: 200, status_text: "OK", headers: [] });
  const response = await pending;
  client.receive({ type: "fetch_chunk", id, bytes: encode("partial") });
  client.receive({ type: "fetch_error", id, message: "Cannot read the response: too large" });
  await assert.rejects(response.text(), /too large/);
  // Near miss: a body that ends normally reads whole.
  const second = client.fetchFor("mcp", { stream: true })("http://127.0.0.1:1/mcp");
  await Promise.resolve();
  const next = sent.at(-1)?.id ?? -1;
  client.receive({ type: "fetch_head", id: next, status: 200, status_text: "OK", headers: [] });
  client.receive({ type: "fetch_chunk", id: next, bytes: encode("whole") });
  client.receive({ type: "fetch_end", id: next });
  assert.equal(await (await second).text(), "whole");
});

function encode(text: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(text);
}

Deno.test("a streamed body's bytes pass unchanged, binary framings included", async () => {
  const sent: { id: number }[] = [];
  const client = new MessageFetchClient((message) => sent.push(message));
  const pending = client.fetchFor("model", { stream: true })("http://127.0.0.1:1/m");
  await Promise.resolve();
  const id = sent[0]?.id ?? -1;
  client.receive({ type: "fetch_head", id, status: 200, status_text: "OK", headers: [] });
  const response = await pending;
  // Not UTF-8: a text round trip would replace these bytes.
  const bytes = new Uint8Array([0x00, 0x00, 0x01, 0x2c, 0xff, 0xfe, 0x80, 0xc3]);
  client.receive({ type: "fetch_chunk", id, bytes: bytes.slice(0, 5) });
  client.receive({ type: "fetch_chunk", id, bytes: bytes.slice(5) });
  client.receive({ type: "fetch_end", id });
  assert.deepEqual(new Uint8Array(await response.arrayBuffer()), bytes);
});
