// OpenTelemetry traces (issue 15 §4, docs/ARCHITECTURE.md "Tracing"): real CLI runs as
// subprocesses with Deno's built-in exporter on (OTEL_DENO=true, OTLP/HTTP JSON) send their spans
// to a receiver served here on 127.0.0.1, which decodes them; the tests assert the span tree, the
// GenAI attributes and the policy's verdicts, that no argument or output leaves without
// audit.trace_content (and that with it a secret is still redacted), that nothing is sent with
// tracing off, and that a collector host the config does not list refuses the run.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { createProject, onlyRunDir, type Project, repository, taskFlags } from "./_cli_helpers.ts";

const SECRET = "kagent-trace-secret-4f1c9b2e";
const ARGUMENT_CANARY = "CANARY-ARGUMENT-7d2e";
const OUTPUT_CANARY = "CANARY-OUTPUT-9a41";

/** One decoded OTLP span, attributes flattened to plain values. */
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  scope: string;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
}

/** What the receiver got: every request's path and body text, and the spans decoded. */
interface Received {
  requests: { path: string; body: string }[];
  spans: Span[];
}

/** An OTLP/HTTP receiver (JSON encoding) on 127.0.0.1; `take()` returns and clears what came. */
function otlpReceiver() {
  let received: Received = { requests: [], spans: [] };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.text();
    const path = new URL(req.url).pathname;
    received.requests.push({ path, body });
    if (path === "/v1/traces") received.spans.push(...decodeSpans(JSON.parse(body)));
    return Response.json({});
  });
  return {
    host: `127.0.0.1:${server.addr.port}`,
    take(): Received {
      const taken = received;
      received = { requests: [], spans: [] };
      return taken;
    },
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}

function plain(value: OtlpValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(plain);
  return null;
}

function decodeSpans(request: {
  resourceSpans: {
    scopeSpans: {
      scope: { name: string };
      spans: (Omit<Span, "attributes" | "scope"> & {
        attributes: { key: string; value: OtlpValue }[];
      })[];
    }[];
  }[];
}): Span[] {
  return request.resourceSpans.flatMap((resource) =>
    resource.scopeSpans.flatMap((scope) =>
      scope.spans.map((span) => ({
        ...span,
        scope: scope.scope.name,
        attributes: Object.fromEntries(
          span.attributes.map(({ key, value }) => [key, plain(value)]),
        ),
      }))
    )
  );
}

/** The environment of a subprocess: this one's without any OTEL_ variable, plus `extra`. */
function environment(extra: Record<string, string>): Record<string, string> {
  const inherited = Object.entries(Deno.env.toObject()).filter(([name]) =>
    !name.startsWith("OTEL_")
  );
  return { ...Object.fromEntries(inherited), NO_COLOR: "1", KAGENT_TEST_SECRET: SECRET, ...extra };
}

/** Runs `kagent-run run` on a project as a subprocess, with the flags of the kagent-run task. */
async function runKagent(project: Project, extra: Record<string, string>) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...taskFlags("kagent-run"),
      nodePath.join(repository, "main.ts"),
      "--config",
      project.configPath,
    ],
    env: environment(extra),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: output.code, stderr: new TextDecoder().decode(output.stderr) };
}

const TRACING = (host: string) => ({
  OTEL_DENO: "true",
  OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
  OTEL_EXPORTER_OTLP_ENDPOINT: `http://${host}`,
  OTEL_SERVICE_NAME: "kagent-run-test",
});

/**
 * A project whose plan reads a file holding the secret and a canary (allowed), writes a file whose
 * content is a canary (asks: approval_required), reads a path outside the workspace (denied by the
 * sandbox), calls a tool that does not exist with the secret in its name and id, and answers.
 */
async function tracedProject(audit: Record<string, unknown>): Promise<Project> {
  const project = await createProject({
    plan: [
      JSON.stringify({
        tool_calls: [
          { id: "read", name: "fs.read_file", arguments: { path: "notes.txt" } },
          {
            id: "write",
            name: "fs.write_file",
            arguments: { path: "out.txt", content: ARGUMENT_CANARY },
          },
        ],
      }),
      JSON.stringify({
        tool_calls: [{ id: "escape", name: "fs.read_file", arguments: { path: "../outside.txt" } }],
      }),
      // A made-up tool whose name and call id carry the secret: both are redacted in spans too.
      JSON.stringify({
        tool_calls: [{ id: `id-${SECRET}`, name: `missing.${SECRET}`, arguments: {} }],
      }),
      JSON.stringify({ content: "done" }),
    ],
    config: { audit: { secret_env: ["KAGENT_TEST_SECRET"], ...audit } },
  });
  await Deno.writeTextFile(
    nodePath.join(project.sandbox.workspace, "notes.txt"),
    `token ${SECRET} and ${OUTPUT_CANARY}\n`,
  );
  return project;
}

function ours(spans: Span[]): Span[] {
  return spans.filter((span) => span.scope === "kagent-run");
}

Deno.test("a traced run sends invoke_agent, chat and execute_tool spans with decisions, and no content", async () => {
  await using receiver = otlpReceiver();
  await using project = await tracedProject({ trace_hosts: [receiver.host] });
  const { code, stderr } = await runKagent(project, TRACING(receiver.host));
  // Exit 3: the write asked and nobody could approve it here.
  assert.equal(code, 3, stderr);
  const received = receiver.take();
  const spans = ours(received.spans);
  assert.deepEqual(
    spans.map((span) => span.name).sort(),
    [
      "chat",
      "chat",
      "chat",
      "chat",
      "execute_tool fs.read_file",
      "execute_tool fs.read_file",
      "execute_tool fs.write_file",
      "execute_tool missing.[REDACTED:secret_env]",
      "invoke_agent main",
    ],
  );
  // One trace: the agent's span is the root, every other span its child.
  const root = spans.find((span) => span.name === "invoke_agent main") as Span;
  const runId = nodePath.basename(await onlyRunDir(project));
  assert.equal(root.parentSpanId, "");
  for (const span of spans) {
    assert.equal(span.traceId, root.traceId, span.name);
    if (span !== root) assert.equal(span.parentSpanId, root.spanId, span.name);
    assert.equal(span.attributes["kagent.run_id"], runId, span.name);
  }
  assert.equal(root.kind, 1, "internal"); // OTLP SPAN_KIND_INTERNAL
  assert.deepEqual(
    {
      operation: root.attributes["gen_ai.operation.name"],
      provider: root.attributes["gen_ai.provider.name"],
      agent: root.attributes["gen_ai.agent.name"],
      conversation: root.attributes["gen_ai.conversation.id"],
      end: root.attributes["kagent.end_reason"],
      turns: root.attributes["kagent.turns"],
    },
    {
      operation: "invoke_agent",
      provider: "kagent.script",
      agent: "main",
      conversation: runId,
      end: "completed",
      turns: 4,
    },
  );
  const chats = spans.filter((span) => span.name === "chat");
  assert.ok(
    chats.every((span) => span.kind === 3 && span.attributes["gen_ai.operation.name"] === "chat"),
  );
  assert.deepEqual(chats.map((span) => span.attributes["kagent.tool_calls"]).sort(), [0, 1, 1, 2]);

  const tool = (id: string) =>
    spans.find((span) => span.attributes["gen_ai.tool.call.id"] === id) as Span;
  const verdict = (span: Span) => ({
    operation: span.attributes["gen_ai.operation.name"],
    tool: span.attributes["gen_ai.tool.name"],
    decision: span.attributes["kagent.decision"],
    rule: span.attributes["kagent.rule"],
    layer: span.attributes["kagent.layer"],
    error: span.attributes["error.type"] ?? null,
    status: span.status.code ?? 0,
  });
  assert.deepEqual(verdict(tool("read")), {
    operation: "execute_tool",
    tool: "fs.read_file",
    decision: "allow",
    rule: "default:readonly-allow",
    layer: "default",
    error: null,
    status: 0,
  });
  assert.equal(tool("read").attributes["kagent.approval"], "rule");
  assert.deepEqual(verdict(tool("write")), {
    operation: "execute_tool",
    tool: "fs.write_file",
    decision: "ask",
    rule: "default:write-ask",
    layer: "default",
    error: "approval_required",
    status: 2, // STATUS_CODE_ERROR
  });
  assert.deepEqual(verdict(tool("escape")), {
    operation: "execute_tool",
    tool: "fs.read_file",
    decision: "deny",
    rule: "sandbox:path-guard",
    layer: "sandbox",
    error: "path_outside_sandbox",
    status: 2,
  });
  // No argument value, output or secret in any span attribute, nor anywhere else it sent.
  for (const span of spans) {
    for (
      const key of [
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "gen_ai.output.messages",
      ]
    ) {
      assert.ok(!(key in span.attributes), `${span.name} carries ${key}`);
    }
  }
  for (const { path, body } of received.requests) {
    for (const needle of [ARGUMENT_CANARY, OUTPUT_CANARY, SECRET]) {
      assert.ok(!body.includes(needle), `${path} carries ${needle}`);
    }
  }
  // policy.json records the channel, outside the policy's hash.
  const policy = JSON.parse(
    await Deno.readTextFile(nodePath.join(await onlyRunDir(project), "policy.json")),
  );
  assert.deepEqual(
    {
      enabled: policy.telemetry.enabled,
      hosts: policy.telemetry.hosts,
      content: policy.telemetry.content,
    },
    { enabled: true, hosts: [receiver.host], content: false },
  );
});

Deno.test("with audit.trace_content spans carry arguments and results, the secret redacted", async () => {
  await using receiver = otlpReceiver();
  await using project = await tracedProject({ trace_hosts: [receiver.host], trace_content: true });
  const { code, stderr } = await runKagent(project, TRACING(receiver.host));
  assert.equal(code, 3, stderr);
  const received = receiver.take();
  const spans = ours(received.spans);
  const tool = (id: string) =>
    spans.find((span) => span.attributes["gen_ai.tool.call.id"] === id) as Span;
  assert.match(
    String(tool("write").attributes["gen_ai.tool.call.arguments"]),
    new RegExp(ARGUMENT_CANARY),
  );
  const result = String(tool("read").attributes["gen_ai.tool.call.result"]);
  assert.match(result, new RegExp(OUTPUT_CANARY));
  assert.match(result, /\[REDACTED/);
  const answers = spans.filter((span) => span.name === "chat").map((span) =>
    String(span.attributes["gen_ai.output.messages"])
  );
  assert.ok(answers.some((answer) => answer.includes('"content":"done"')), answers.join("\n"));
  // The secret was in the file the model read; it is in no request the exporter sent.
  for (const { path, body } of received.requests) assert.ok(!body.includes(SECRET), path);
});

Deno.test("without OTEL_DENO a run sends nothing, even with an OTLP endpoint set", async () => {
  await using receiver = otlpReceiver();
  await using project = await tracedProject({ trace_hosts: [receiver.host] });
  const { OTEL_DENO: _on, ...rest } = TRACING(receiver.host);
  const { code, stderr } = await runKagent(project, rest);
  assert.equal(code, 3, stderr);
  assert.deepEqual(receiver.take().requests, []);
});

Deno.test("an OTLP host audit.trace_hosts does not list refuses the run before it starts", async () => {
  await using receiver = otlpReceiver();
  // Near miss of the first test: the same receiver, but the config lists another port.
  await using project = await tracedProject({ trace_hosts: ["127.0.0.1:9"] });
  const { code, stderr } = await runKagent(project, TRACING(receiver.host));
  assert.equal(code, 2, stderr);
  assert.match(
    stderr,
    new RegExp(
      `Cannot export traces, metrics and logs to "${receiver.host}" \\(from ` +
        `OTEL_EXPORTER_OTLP_ENDPOINT\\): the host is not in "audit.trace_hosts"`,
    ),
  );
  // No run started: no run folder, no span, no log. Deno itself may still flush its runtime
  // metrics (GC timings) at exit — measured, see ARCHITECTURE; they carry nothing of the run.
  const received = receiver.take();
  assert.deepEqual(received.requests.filter((request) => request.path !== "/v1/metrics"), []);
  for (const { body } of received.requests) assert.ok(!body.includes("kagent.run_id"));
  assert.equal(
    await Array.fromAsync(Deno.readDir(project.runsDir)).catch(() => []).then((entries) =>
      entries.length
    ),
    0,
  );
});

Deno.test("chat spans of an OpenAI-compatible model carry its name, server and token usage", async () => {
  await using receiver = otlpReceiver();
  let requests = 0;
  await using model = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    requests += 1;
    const message = requests === 1
      ? {
        role: "assistant",
        content: null,
        tool_calls: [{
          id: "call_read",
          type: "function",
          function: { name: "fs__read_file", arguments: '{"path":"README.md"}' },
        }],
      }
      : { role: "assistant", content: "Read it." };
    return Response.json({
      choices: [{ index: 0, message, finish_reason: requests === 1 ? "tool_calls" : "stop" }],
      usage: { prompt_tokens: 11 * requests, completion_tokens: 7 },
    });
  });
  await using project = await createProject({
    config: {
      model: {
        provider: "openai",
        model: "test-model",
        base_url: `http://127.0.0.1:${model.addr.port}/v1`,
        api_key_env: "KAGENT_TEST_OPENAI_KEY",
        retries: 0,
      },
      task: "Read the README",
      audit: { trace_hosts: [receiver.host] },
    },
  });
  const { code, stderr } = await runKagent(project, {
    ...TRACING(receiver.host),
    KAGENT_TEST_OPENAI_KEY: "sk-test-key-not-real-1234567890",
  });
  assert.equal(code, 0, stderr);
  const chats = ours(receiver.take().spans).filter((span) => span.name === "chat test-model");
  assert.deepEqual(
    chats.map((span) => ({
      provider: span.attributes["gen_ai.provider.name"],
      model: span.attributes["gen_ai.request.model"],
      server: `${span.attributes["server.address"]}:${span.attributes["server.port"]}`,
      input: span.attributes["gen_ai.usage.input_tokens"],
      output: span.attributes["gen_ai.usage.output_tokens"],
      finish: span.attributes["gen_ai.response.finish_reasons"],
    })).sort((a, b) => Number(a.input) - Number(b.input)),
    [11, 22].map((input, index) => ({
      provider: "openai",
      model: "test-model",
      server: `127.0.0.1:${model.addr.port}`,
      input,
      output: 7,
      finish: [index === 0 ? "tool_calls" : "stop"],
    })),
  );
});

Deno.test("a child agent's invoke_agent span nests under the parent's call that started it", async () => {
  await using receiver = otlpReceiver();
  await using project = await createProject({
    plan: [
      JSON.stringify({
        tool_calls: [{
          id: "spawn",
          name: "agent.create_sub_agent",
          arguments: { agent_id: "reader", task: "Read the README" },
        }],
      }),
      JSON.stringify({ content: "done" }),
    ],
    config: {
      audit: { trace_hosts: [receiver.host] },
      agents: {
        reader: {
          description: "Reads a file.",
          agent_type: "sub",
          model: { provider: "script", script: "reader.jsonl" },
        },
      },
    },
  });
  await Deno.writeTextFile(
    nodePath.join(project.configDir, "reader.jsonl"),
    [
      JSON.stringify({
        tool_calls: [{ id: "read", name: "fs.read_file", arguments: { path: "README.md" } }],
      }),
      JSON.stringify({ content: "read" }),
    ].join("\n") + "\n",
  );
  const { code, stderr } = await runKagent(project, TRACING(receiver.host));
  assert.equal(code, 0, stderr);
  const spans = ours(receiver.take().spans);
  const named = (name: string) => spans.find((span) => span.name === name) as Span;
  const main = named("invoke_agent main");
  const spawn = named("execute_tool agent.create_sub_agent");
  const child = named("invoke_agent reader");
  const childRead = named("execute_tool fs.read_file");
  assert.ok(main && spawn && child && childRead, spans.map((span) => span.name).join(", "));
  assert.equal(spawn.parentSpanId, main.spanId);
  assert.equal(child.parentSpanId, spawn.spanId);
  assert.equal(childRead.parentSpanId, child.spanId);
  assert.ok(spans.every((span) => span.traceId === main.traceId));
  // The child is a run of its own: its spans name its run id, not the parent's.
  assert.notEqual(child.attributes["kagent.run_id"], main.attributes["kagent.run_id"]);
  assert.equal(childRead.attributes["kagent.run_id"], child.attributes["kagent.run_id"]);
});
