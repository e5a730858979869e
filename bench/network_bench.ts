/**
 * The network boundary's cost: a JSON POST to a loopback server (about 2 KB each way, a model
 * turn's order of size) through the network Worker against a plain `fetch` from this thread (the
 * baseline), and through the tool Worker's path (message to the main thread, then the gateway).
 *
 * Run with `deno task bench` (needs net for 127.0.0.1). See bench/README.md.
 *
 * @module
 */

import { NetworkGateway } from "../src/network/mod.ts";

const GROUP = "POST 2 KB JSON to loopback";
const answer = JSON.stringify({ text: "x".repeat(2048) });
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: () => {} },
  async (request) => {
    await request.arrayBuffer();
    return new Response(answer, { headers: { "content-type": "application/json" } });
  },
);
const url = `http://127.0.0.1:${server.addr.port}/v1/chat/completions`;
const body = JSON.stringify({ messages: [{ role: "user", content: "y".repeat(2048) }] });
const gateway = await NetworkGateway.start({
  channels: { model: [`127.0.0.1:${server.addr.port}`], memory: [] },
});
const model = gateway.fetchFor("model");

globalThis.addEventListener("unload", () => {
  gateway.close();
  void server.shutdown();
});

async function post(fetcher: typeof fetch): Promise<void> {
  const response = await fetcher(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  await response.json();
}

Deno.bench({
  name: "fetch from this thread (baseline)",
  group: GROUP,
  baseline: true,
  // async: `deno bench` awaits only functions declared async.
  fn: async () => await post(fetch),
});

Deno.bench({
  name: "through the network Worker (model channel)",
  group: GROUP,
  fn: async () => await post(model),
});
