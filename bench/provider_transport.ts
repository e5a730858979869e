/**
 * Two measurements for the model providers, against a loopback model server (127.0.0.1), sides
 * interleaved so they see the same machine load. Not a `Deno.bench` file; run it alone:
 *
 * ```sh
 * deno run --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 \
 *   bench/provider_transport.ts [REQUESTS]
 * ```
 *
 * 1. First-token time, streamed vs not: the server "generates" an answer of 40 text pieces 5 ms
 *    apart (200 ms, like a short model turn); streamed, the first piece reaches the provider after
 *    one piece's time, while a non-streamed answer arrives whole when generation ends.
 * 2. Transport: our client (`OpenAiProvider`, `AnthropicProvider`) against the official SDKs
 *    (`openai`, `@anthropic-ai/sdk`) on instant answers: per-request time (median), and the
 *    start-up cost of importing each (a fresh `deno run` per import, median of several), and of
 *    importing the SDKs beside ours (what adopting them as the transport would add: our config
 *    and tool code load either way).
 *
 * @module
 */

import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { AnthropicProvider, OpenAiProvider } from "../src/agent/providers/mod.ts";
import { serveEventStream, sseEvent } from "../src/testing/event_stream_server.ts";
import type { ModelRequest } from "../src/agent/model_provider.ts";

/** Requests timed on each side. @default 200 */
const REQUESTS = Number(Deno.args[0] ?? 200);
const PIECES = 40;
const PIECE_MS = 5;

const request: ModelRequest = {
  system: "You are careful.",
  messages: [{ role: "user", content: "Say hello" }],
  tools: [],
  run: { run_id: "bench", workspace: "/w", deliverables: "/w/d", scratch: "/w/s" },
};

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

const chatChunk = (content: string, finish: string | null = null) =>
  sseEvent({ choices: [{ index: 0, delta: { content }, finish_reason: finish }] });
const chatJson = (content: string) => ({
  id: "c",
  object: "chat.completion",
  created: 0,
  model: "m",
  choices: [{
    index: 0,
    message: { role: "assistant", content, refusal: null },
    finish_reason: "stop",
    logprobs: null,
  }],
  usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
});
const messageJson = (text: string) => ({
  id: "m",
  type: "message",
  role: "assistant",
  model: "m",
  content: [{ type: "text", text }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 5, output_tokens: 5 },
});

// 1. First-token time on a server that takes PIECES × PIECE_MS to generate.
async function firstToken(): Promise<void> {
  await using server = serveEventStream((body) => {
    if (body.stream === true) {
      return {
        chunks: [
          ...Array.from({ length: PIECES }, () => chatChunk("word ")),
          chatChunk("", "stop"),
          "data: [DONE]\n\n",
        ],
        delayMs: PIECE_MS,
      };
    }
    return {
      chunks: [JSON.stringify(chatJson("word ".repeat(PIECES)))],
      delayMs: PIECE_MS * PIECES,
    };
  });
  const provider = (stream: boolean) =>
    new OpenAiProvider({
      model: "m",
      base_url: server.baseUrl,
      api_key: null,
      timeout_ms: 10_000,
      retries: 0,
      stream,
    });
  const streamed: number[] = [];
  const whole: number[] = [];
  const wholeStreamed: number[] = [];
  for (let index = 0; index < 20; index += 1) {
    let start = performance.now();
    const turn = await provider(true).complete(request);
    wholeStreamed.push(performance.now() - start);
    streamed.push(turn.first_token_ms ?? NaN);
    start = performance.now();
    await provider(false).complete(request);
    whole.push(performance.now() - start);
  }
  console.log(
    `first token, streamed: ${median(streamed).toFixed(1)} ms; not streamed (the whole answer): ` +
      `${median(whole).toFixed(1)} ms; ratio ${(median(whole) / median(streamed)).toFixed(1)}x ` +
      `(whole turn streamed: ${median(wholeStreamed).toFixed(1)} ms)`,
  );
}

// 2a. Per-request time on instant answers, ours against the SDKs.
async function perRequest(): Promise<void> {
  // Only Messages API bodies have a top-level system prompt.
  await using server = serveEventStream((body) =>
    Response.json("system" in body ? messageJson("hi") : chatJson("hi"))
  );
  const ours = {
    openai: new OpenAiProvider({
      model: "m",
      base_url: server.baseUrl,
      api_key: "k",
      timeout_ms: 10_000,
      retries: 0,
      stream: false,
    }),
    anthropic: new AnthropicProvider({
      model: "m",
      base_url: server.baseUrl,
      api_key: "k",
      timeout_ms: 10_000,
      retries: 0,
      stream: false,
    }),
  };
  const openai = new OpenAI({ apiKey: "k", baseURL: server.baseUrl, maxRetries: 0, fetch });
  const anthropic = new Anthropic({
    apiKey: "k",
    baseURL: server.baseUrl.replace(/\/v1$/, ""),
    maxRetries: 0,
    fetch,
  });
  const sides: [string, () => Promise<unknown>][] = [
    ["ours openai", () => ours.openai.complete(request)],
    [
      "sdk openai",
      () =>
        openai.chat.completions.create({
          model: "m",
          messages: [{ role: "system", content: "You are careful." }, {
            role: "user",
            content: "Say hello",
          }],
        }),
    ],
    ["ours anthropic", () => ours.anthropic.complete(request)],
    [
      "sdk anthropic",
      () =>
        anthropic.messages.create({
          model: "m",
          max_tokens: 4096,
          system: "You are careful.",
          messages: [{ role: "user", content: "Say hello" }],
        }),
    ],
  ];
  const times = new Map(sides.map(([name]) => [name, [] as number[]]));
  for (let index = 0; index < REQUESTS + 20; index += 1) {
    for (const [name, call] of sides) {
      const start = performance.now();
      await call();
      if (index >= 20) times.get(name)?.push(performance.now() - start);
    }
  }
  for (const [name, values] of times) {
    console.log(`per request, ${name}: ${(median(values) * 1000).toFixed(0)} µs (median)`);
  }
}

// 2b. Import cost: a fresh process importing each client, minus an empty script.
async function importCost(): Promise<void> {
  const root = new URL("..", import.meta.url).pathname;
  const scripts: [string, string][] = [
    ["nothing", ""],
    ["ours", `import "${root}src/agent/providers/mod.ts";`],
    ["openai sdk", `import "openai";`],
    ["anthropic sdk", `import "@anthropic-ai/sdk";`],
    [
      "ours + both sdks",
      `import "${root}src/agent/providers/mod.ts"; import "openai"; import "@anthropic-ai/sdk";`,
    ],
  ];
  const times = new Map(scripts.map(([name]) => [name, [] as number[]]));
  for (let round = 0; round < 7; round += 1) {
    for (const [name, code] of scripts) {
      const file = await Deno.makeTempFile({ dir: root, prefix: "_bench_import_", suffix: ".ts" });
      try {
        await Deno.writeTextFile(file, code);
        const start = performance.now();
        const { success } = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "--no-check",
            "--allow-read",
            "--allow-env",
            "--config",
            `${root}deno.json`,
            file,
          ],
          stdout: "null",
          stderr: "null",
        }).output();
        if (!success) throw new Error(`Cannot import for "${name}"`);
        times.get(name)?.push(performance.now() - start);
      } finally {
        await Deno.remove(file);
      }
    }
  }
  const base = median(times.get("nothing") ?? []);
  for (const [name, values] of times) {
    if (name === "nothing") continue;
    console.log(`import, ${name}: +${(median(values) - base).toFixed(0)} ms over an empty script`);
  }
  console.log(`(empty script: ${base.toFixed(0)} ms)`);
}

await firstToken();
await perRequest();
await importCost();
