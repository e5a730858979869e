// The network boundary (issue 6): model and memory requests leave only through the network
// Worker, for the configured hosts only; the main thread's own net permission is revoked.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import * as nodePath from "node:path";
import { NetworkGateway } from "../src/network/mod.ts";
import { createProject, onlyRunDir, readJsonl, repository, taskFlags } from "./_cli_helpers.ts";

/** A loopback server that counts requests and answers with `reply`. */
function server(reply: (request: Request) => Response | Promise<Response>) {
  const hits: string[] = [];
  const instance = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    hits.push(`${request.method} ${new URL(request.url).pathname}`);
    return reply(request);
  });
  return {
    url: `http://127.0.0.1:${instance.addr.port}/v1/chat`,
    host: `127.0.0.1:${instance.addr.port}`,
    hits,
    [Symbol.asyncDispose]: () => instance.shutdown(),
  };
}

Deno.test("after the gateway starts and main-thread net is revoked, only the channel's host is reachable", async () => {
  await using allowed = server(() => Response.json({ ok: true }));
  await using other = server(() => Response.json({ leaked: true }));
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--unstable-worker-options",
      "--allow-read",
      "--allow-net=127.0.0.1",
      fileURLToPath(new URL("./testdata/network/gateway_probe.ts", import.meta.url)),
      allowed.url,
      other.url,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  const results = JSON.parse(new TextDecoder().decode(output.stdout)) as Record<string, string>;
  // The near miss: the configured host answers through the gateway.
  assert.equal(results.gateway_allowed, 'status 200: {"ok":true}');
  // Everything else is refused, and the effect holds: the other server never saw a request.
  assert.match(
    results.gateway_other_host ?? "",
    /^refused: .*Cannot reach "127\.0\.0\.1:\d+" from the model channel/,
  );
  assert.match(
    results.memory_channel_to_model_host ?? "",
    /^refused: .*from the memory channel: it may reach only no host/,
  );
  assert.match(results.main_thread_fetch ?? "", /^refused: NotCapable/);
  assert.match(results.new_worker_with_net ?? "", /^refused: .*escalate/i);
  assert.notEqual(results.main_thread_state, "granted");
  assert.deepEqual(other.hits, []);
  assert.deepEqual(allowed.hits, ["POST /v1/chat"]);
});

Deno.test("the gateway does not follow a redirect to another host", async () => {
  await using target = server(() => Response.json({ leaked: true }));
  await using redirecting = server(() =>
    new Response(null, { status: 307, headers: { location: target.url } })
  );
  const gateway = await NetworkGateway.start({
    channels: { model: [redirecting.host], memory: [] },
  });
  try {
    const response = await gateway.fetchFor("model")(redirecting.url, {
      method: "POST",
      body: "{}",
    });
    assert.equal(response.status, 307);
    assert.deepEqual(target.hits, []);
  } finally {
    gateway.close();
  }
});

Deno.test("the gateway refuses a body over its cap and honours an abort", async () => {
  await using big = server(() => new Response("x".repeat(4096)));
  await using slow = server(async () => {
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    return Response.json({ late: true });
  });
  const gateway = await NetworkGateway.start({
    channels: { model: [big.host, slow.host], memory: [] },
    maxResponseBytes: 1024,
  });
  try {
    const model = gateway.fetchFor("model");
    // The model channel streams: the cap ends the body while it is read.
    await assert.rejects(
      async () => await (await model(big.url)).text(),
      /larger than 1024 bytes/,
    );
    // Near miss: a body within the cap reads whole.
    const small = await NetworkGateway.start({
      channels: { model: [big.host], memory: [] },
      maxResponseBytes: 4096,
    });
    try {
      assert.equal((await (await small.fetchFor("model")(big.url)).text()).length, 4096);
    } finally {
      small.close();
    }
    const controller = new AbortController();
    const pending = model(slow.url, { signal: controller.signal });
    controller.abort(new Error("stop now"));
    await assert.rejects(pending, /stop now/);
  } finally {
    gateway.close();
  }
});

Deno.test("a CLI run with the compile flags talks to the model only through the gateway, main-thread net revoked", async () => {
  let requests = 0;
  await using model = server(async (request) => {
    requests += 1;
    const body = await request.json() as { messages: { role: string }[] };
    const answered = body.messages.some((message) => message.role === "tool");
    return Response.json({
      choices: [{
        index: 0,
        message: answered ? { role: "assistant", content: "Read it." } : {
          role: "assistant",
          content: null,
          tool_calls: [{
            id: "call_1",
            type: "function",
            function: { name: "fs__read_file", arguments: '{"path":"README.md"}' },
          }],
        },
        finish_reason: answered ? "stop" : "tool_calls",
      }],
      usage: { prompt_tokens: 3, completion_tokens: 2 },
    });
  });
  await using project = await createProject({
    config: {
      model: { provider: "openai", model: "local", base_url: model.url.replace(/\/chat$/, "") },
      task: "Read the README",
    },
  });
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...taskFlags("kagent-run"),
      nodePath.join(repository, "main.ts"),
      "--config",
      project.configPath,
      "--quiet",
    ],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  assert.equal(new TextDecoder().decode(output.stdout), "Read it.\n");
  assert.equal(requests, 2);
  const events = await readJsonl(nodePath.join(await onlyRunDir(project), "events.jsonl"));
  const boundary = events.find((event) => event.type === "network_boundary.measured");
  // The chain fields (seq, prev) are the audit chain's, checked by its own tests.
  const fields = { ts: undefined, run_id: undefined, seq: undefined, prev: undefined };
  assert.deepEqual({ ...boundary, ...fields }, {
    ...fields,
    type: "network_boundary.measured",
    model_hosts: [model.host],
    memory_hosts: [],
    mcp_hosts: [],
    tool_hosts: [],
    tool_worker_net: false,
    main_thread_net: "prompt",
  });
  const read = events.find((event) => event.type === "tool.completed");
  assert.equal(read?.tool, "fs.read_file");
});
