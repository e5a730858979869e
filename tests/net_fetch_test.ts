// net.fetch (issue 18 §1): requests only through the tools network Worker, to hosts network.hosts
// admits, every redirect hop checked, size and time capped, per-host grants, TLS verified; against
// loopback servers on 127.0.0.1 (A, listed; B, listed or not). In-process sessions narrow the tools
// Worker to 127.0.0.1 (this process may reach nothing else); the last test runs kagent-run call as
// a process, whose tools Worker resolves "localhost" with the system resolver. A rebinding resolver
// is tested in src/network/pinned_fetch_test.ts.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { loadConfig } from "../src/config/mod.ts";
import { networkChannels, NetworkGateway } from "../src/network/mod.ts";
import { openRunSession, preparePolicy, type RunSession } from "../src/session/mod.ts";
import type { ApprovalRequest, Approver, Grant } from "../src/approval/mod.ts";
import { createProject, repository, taskFlags } from "./_cli_helpers.ts";

const BINARY = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);

/** A loopback server that records the paths it was asked for. */
function server(handler: (request: Request, url: URL) => Response | Promise<Response>) {
  const seen: string[] = [];
  const instance = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const url = new URL(request.url);
    seen.push(`${request.method} ${url.pathname}`);
    return handler(request, url);
  });
  return { seen, port: instance.addr.port, close: () => instance.shutdown() };
}

/** Server A's answers, by path; `b` is server B's port. */
function serverA(bPort: () => number) {
  return server(async (request, url) => {
    switch (url.pathname) {
      case "/text":
        return new Response("hello from A", { headers: { "content-type": "text/plain" } });
      case "/binary":
        return new Response(BINARY, { headers: { "content-type": "image/png" } });
      case "/echo":
        return new Response(`echo ${request.method} ${await request.text()}`);
      case "/big":
        return new Response("x".repeat(5000));
      case "/to-b":
        return Response.redirect(`http://127.0.0.1:${bPort()}/landed`, 302);
      case "/loop":
        return Response.redirect(`http://127.0.0.1:${url.port}/loop`, 307);
      case "/drip":
        // Headers at once, then a byte at a time until the client goes away (slowloris).
        return new Response(
          new ReadableStream<Uint8Array>({
            async pull(controller) {
              await new Promise((resolve) => setTimeout(resolve, 50));
              if (!request.signal.aborted) controller.enqueue(new Uint8Array([120]));
            },
          }),
        );
      case "/gzip-bomb":
        // 500 KB of zeros, gzip-compressed to about 500 bytes: the cap counts the bytes received.
        return new Response(
          await new Response(
            new Blob([new Uint8Array(500_000)]).stream().pipeThrough(
              new CompressionStream("gzip"),
            ),
          ).arrayBuffer(),
          { headers: { "content-encoding": "gzip", "content-type": "text/plain" } },
        );
      case "/slow":
        // Answers only when the client goes away.
        await new Promise((resolve) => request.signal.addEventListener("abort", resolve));
        return new Response("late");
      default:
        return new Response("no", { status: 404 });
    }
  });
}

/** A config with `network` and `rules` in a folder of its own. */
async function writeConfig(network: Record<string, unknown>, rules: Record<string, unknown>[]) {
  const dir = await Deno.makeTempDir({ prefix: "kagent-net-fetch-" });
  await Deno.writeTextFile(
    nodePath.join(dir, "agent.jsonc"),
    JSON.stringify({ network, permissions: { rules } }),
  );
  return await loadConfig(nodePath.join(dir, "agent.jsonc"));
}

/** The policy of a config with `network` and `rules`, without a run. */
async function policyOf(network: Record<string, unknown>, rules: Record<string, unknown>[]) {
  const config = await writeConfig(network, rules);
  try {
    return (await preparePolicy(config)).policy;
  } finally {
    await Deno.remove(config.configDir, { recursive: true });
  }
}

/** A run whose config has `network` and `rules`, its tools channel through a gateway. */
async function openNetRun(
  network: Record<string, unknown>,
  rules: Record<string, unknown>[],
  options: { approver?: Approver; grants?: Grant[]; ca?: string[] } = {},
): Promise<{ session: RunSession } & AsyncDisposable> {
  const config = await writeConfig(network, rules);
  const gateway = await NetworkGateway.start({
    channels: networkChannels(config),
    // The test process may reach 127.0.0.1 only; a real run's tools Worker has net for all hosts.
    tools: {
      maxResponseBytes: config.network.max_response_bytes,
      permission: ["127.0.0.1"],
      ...(options.ca === undefined ? {} : { caCertificates: options.ca }),
    },
  });
  const session = await openRunSession(config, {
    toolsFetch: gateway.fetchFor("tools"),
    ...(options.approver === undefined ? {} : { approver: options.approver }),
    ...(options.grants === undefined ? {} : {
      grants: options.grants.map((grant) => ({ grant, source: "test" })),
    }),
  }).catch((error) => {
    gateway.close();
    throw error;
  });
  return {
    session,
    async [Symbol.asyncDispose]() {
      await session.close();
      gateway.close();
      await Deno.remove(config.configDir, { recursive: true });
    },
  };
}

function fetchCall(session: RunSession, id: string, args: Record<string, unknown>) {
  return session.runtime.call({ id, name: "net.fetch", arguments: JSON.stringify(args) });
}

Deno.test("net.fetch reaches a listed loopback host (text, POST, binary as an artifact) and nothing else", async () => {
  let bPort = 0;
  const a = serverA(() => bPort);
  const b = server(() => new Response("B"));
  bPort = b.port;
  try {
    await using run = await openNetRun({ hosts: [`127.0.0.1:${a.port}`] }, [
      { tools: ["net.fetch"], hosts: [`127.0.0.1:${a.port}`], decision: "allow" },
    ]);
    const text = await fetchCall(run.session, "t1", { url: `http://127.0.0.1:${a.port}/text` });
    assert.equal(text.ok, true, text.output);
    assert.match(text.output, /^HTTP 200 OK\n\nhello from A$/);

    const posted = await fetchCall(run.session, "t2", {
      url: `http://127.0.0.1:${a.port}/echo`,
      method: "POST",
      body: "ping",
    });
    assert.match(posted.output, /echo POST ping/);

    const binary = await fetchCall(run.session, "t3", { url: `http://127.0.0.1:${a.port}/binary` });
    assert.equal(binary.ok, true, binary.output);
    const artifact = binary.artifacts[0];
    assert.ok(artifact !== undefined);
    const stored = await Deno.readFile(nodePath.join(run.session.folder.dir, artifact.ref));
    assert.deepEqual(stored, BINARY);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", BINARY));
    assert.equal(artifact.sha256, [...digest].map((x) => x.toString(16).padStart(2, "0")).join(""));
    assert.match(binary.output, new RegExp(`sha256 ${artifact.sha256}`));

    // Near miss: the same address on B's port is not in network.hosts.
    const other = await fetchCall(run.session, "t4", { url: `http://127.0.0.1:${b.port}/` });
    assert.equal(other.error?.type, "permission_denied");
    assert.equal(other.error?.details.rule, "sandbox:network-allowlist");
    assert.deepEqual(b.seen, []);
    assert.deepEqual(a.seen, ["GET /text", "POST /echo", "GET /binary"]);
  } finally {
    await a.close();
    await b.close();
  }
});

Deno.test("net.fetch refuses a redirect to an unlisted host, or to a listed one the permissions do not allow outright, before it is sent, and follows a listed, allowed one", async () => {
  let bPort = 0;
  const a = serverA(() => bPort);
  const b = server(() => new Response("landed on B"));
  bPort = b.port;
  try {
    {
      await using run = await openNetRun({ hosts: [`127.0.0.1:${a.port}`] }, [
        { tools: ["net.fetch"], hosts: [`127.0.0.1:${a.port}`], decision: "allow" },
      ]);
      const refused = await fetchCall(run.session, "r1", {
        url: `http://127.0.0.1:${a.port}/to-b`,
      });
      assert.equal(refused.error?.type, "permission_denied", refused.output);
      assert.match(refused.error?.message ?? "", /redirect from .* to "127\.0\.0\.1:\d+"/);
      assert.deepEqual(b.seen, []);
      // Redirects are bounded.
      const looping = await fetchCall(run.session, "r2", {
        url: `http://127.0.0.1:${a.port}/loop`,
      });
      assert.equal(looping.error?.type, "io_error");
      assert.match(looping.error?.message ?? "", /more than 5 redirects/);
    }
    {
      // B listed in network.hosts but not allowed by the permissions (it would ask): a call
      // allowed for A is not carried to B by a redirect, nor a POST's body by a 307.
      await using run = await openNetRun(
        { hosts: [`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`] },
        [{ tools: ["net.fetch"], hosts: [`127.0.0.1:${a.port}`], decision: "allow" }],
      );
      for (const [id, method] of [["r4", "GET"], ["r5", "POST"]] as const) {
        const carried = await fetchCall(run.session, id, {
          url: `http://127.0.0.1:${a.port}/to-b`,
          method,
          ...(method === "POST" ? { body: "secret body" } : {}),
        });
        assert.equal(carried.error?.type, "permission_denied", carried.output);
        assert.match(
          carried.error?.message ?? "",
          /allowed for "127\.0\.0\.1:\d+" only, and the permissions do not allow "127\.0\.0\.1:\d+" outright \(default:write-ask/,
        );
        assert.equal(carried.error?.details.location, `http://127.0.0.1:${b.port}/landed`);
      }
      assert.deepEqual(b.seen, []);
    }
    // Near miss: with B listed and allowed the redirect is followed, and the hop is recorded.
    await using run = await openNetRun({ hosts: [`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`] }, [
      {
        tools: ["net.fetch"],
        hosts: [`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`],
        decision: "allow",
      },
    ]);
    const followed = await fetchCall(run.session, "r3", { url: `http://127.0.0.1:${a.port}/to-b` });
    assert.equal(followed.ok, true, followed.output);
    assert.match(followed.output, /landed on B/);
    assert.deepEqual(b.seen, ["GET /landed"]);
    const data = followed.data as { redirects: { url: string; status: number }[] };
    assert.deepEqual(data.redirects, [{ url: `http://127.0.0.1:${a.port}/to-b`, status: 302 }]);
  } finally {
    await a.close();
    await b.close();
  }
});

Deno.test("net.fetch is off until a rule names it, asks without hosts, and a grant or session approval covers one host only", async () => {
  let bPort = 0;
  const a = serverA(() => bPort);
  const b = server(() => new Response("B"));
  bPort = b.port;
  const hosts = [`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`];
  try {
    // Listed hosts, no rule: the tool is not in the tool set.
    const off = await policyOf({ hosts }, []);
    assert.equal(off.isAvailable("net.fetch"), false);
    assert.equal(off.toolPolicy("net.fetch")?.rule, "runtime:destructive-off");
    // An allow without hosts asks (high risk, unscoped); nobody approves: the result names the
    // grant that would allow the call, for A's host:port.
    const rules = [{ tools: ["net.fetch"], decision: "allow" }];
    let grant: Grant;
    {
      await using run = await openNetRun({ hosts }, rules);
      const asked = await fetchCall(run.session, "o2", { url: `http://127.0.0.1:${a.port}/text` });
      assert.equal(asked.error?.type, "approval_required");
      assert.equal(asked.error?.details.rule, "runtime:high-risk-unscoped");
      grant = asked.error?.details.grant as Grant;
      assert.deepEqual(grant.scope, [`host:127.0.0.1:${a.port}`]);
      assert.deepEqual(a.seen, []);
    }
    {
      // That grant covers A, whatever the path, and not B.
      await using run = await openNetRun({ hosts }, rules, { grants: [grant] });
      const granted = await fetchCall(run.session, "g1", {
        url: `http://127.0.0.1:${a.port}/echo`,
      });
      assert.equal(granted.ok, true, granted.output);
      const other = await fetchCall(run.session, "g2", { url: `http://127.0.0.1:${b.port}/` });
      assert.equal(other.error?.type, "approval_required");
      assert.deepEqual(b.seen, []);
    }
    // An approval for the session, given once for A, is asked again for B.
    const asked: ApprovalRequest[] = [];
    const approver: Approver = {
      name: "test",
      approve: (request) => {
        asked.push(request);
        return Promise.resolve({ decision: "allow_for_session" });
      },
    };
    await using run = await openNetRun({ hosts }, [{ tools: ["net.fetch"], decision: "ask" }], {
      approver,
    });
    for (const [id, port] of [["s1", a.port], ["s2", a.port], ["s3", b.port]] as const) {
      const result = await fetchCall(run.session, id, { url: `http://127.0.0.1:${port}/text` });
      assert.equal(result.ok, true, result.output);
    }
    assert.deepEqual(asked.map((request) => request.target_scope.hosts), [
      [`127.0.0.1:${a.port}`],
      [`127.0.0.1:${b.port}`],
    ]);
  } finally {
    await a.close();
    await b.close();
  }
});

Deno.test("net.fetch fails a body over network.max_response_bytes and a call over network.timeout_ms", async () => {
  const a = serverA(() => 0);
  try {
    await using run = await openNetRun(
      { hosts: [`127.0.0.1:${a.port}`], max_response_bytes: 1000, timeout_ms: 500 },
      [{ tools: ["net.fetch"], hosts: [`127.0.0.1:${a.port}`], decision: "allow" }],
    );
    const big = await fetchCall(run.session, "c1", { url: `http://127.0.0.1:${a.port}/big` });
    assert.equal(big.error?.type, "file_too_large", big.output);
    assert.match(big.error?.message ?? "", /larger than 1000 bytes/);
    const slow = await fetchCall(run.session, "c2", { url: `http://127.0.0.1:${a.port}/slow` });
    assert.equal(slow.error?.type, "timeout", slow.output);
    // A body that never ends, under the byte cap: network.timeout_ms covers the body too.
    const drip = await fetchCall(run.session, "c4", { url: `http://127.0.0.1:${a.port}/drip` });
    assert.equal(drip.error?.type, "timeout", drip.output);
    // A compressed body is never decoded: what comes back is the bytes sent, not 500 KB.
    const bomb = await fetchCall(run.session, "c5", {
      url: `http://127.0.0.1:${a.port}/gzip-bomb`,
      headers: [{ name: "Accept-Encoding", value: "gzip" }],
    });
    assert.equal(bomb.ok, true, bomb.output);
    const data = bomb.data as { bytes: number; headers: [string, string][] };
    assert.ok(data.bytes < 1000, String(data.bytes));
    assert.ok(
      data.headers.some(([name, value]) => name === "content-encoding" && value === "gzip"),
    );
    // Near miss: a body within the cap reads.
    const text = await fetchCall(run.session, "c3", { url: `http://127.0.0.1:${a.port}/text` });
    assert.equal(text.ok, true, text.output);
  } finally {
    await a.close();
  }
});

Deno.test("net.fetch speaks TLS to a listed https host and verifies its certificate", async () => {
  const testdata = new URL("./testdata/network/", import.meta.url);
  const cert = await Deno.readTextFile(new URL("loopback_tls.crt", testdata));
  const key = await Deno.readTextFile(new URL("loopback_tls.key", testdata));
  const seen: string[] = [];
  const secure = Deno.serve({ hostname: "127.0.0.1", port: 0, cert, key, onListen: () => {} }, (
    request,
  ) => {
    seen.push(new URL(request.url).pathname);
    return new Response("over tls");
  });
  const hosts = [`127.0.0.1:${secure.addr.port}`];
  const rules = [{ tools: ["net.fetch"], hosts, decision: "allow" }];
  const url = `https://127.0.0.1:${secure.addr.port}/secret`;
  try {
    {
      // The server's self-signed certificate is not in the host's bundle: refused, nothing read.
      await using run = await openNetRun({ hosts }, rules);
      const refused = await fetchCall(run.session, "tls1", { url });
      assert.equal(refused.ok, false, refused.output);
      assert.equal(refused.error?.type, "io_error");
      assert.match(refused.error?.message ?? "", /certificate/i);
      assert.deepEqual(seen, []);
    }
    // Near miss: with its certificate as the authority the request goes through, encrypted.
    await using run = await openNetRun({ hosts }, rules, { ca: [cert] });
    const read = await fetchCall(run.session, "tls2", { url });
    assert.equal(read.ok, true, read.output);
    assert.match(read.output, /over tls$/);
    assert.deepEqual(seen, ["/secret"]);
  } finally {
    await secure.shutdown();
  }
});

Deno.test("kagent-run call net.fetch resolves a name with the system resolver and refuses its loopback address unless listed", async () => {
  const target = server(() => new Response("reached"));
  /** `kagent-run call` as a process with the task's flags (its tools Worker holds net for all). */
  async function callWith(hosts: string[]) {
    await using project = await createProject({
      config: { network: { hosts } },
      permissions: { rules: [{ tools: ["net.fetch"], hosts: ["localhost:*"], decision: "allow" }] },
    });
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...taskFlags("kagent-run"),
        nodePath.join(repository, "main.ts"),
        "call",
        "--config",
        project.configPath,
        "net.fetch",
        JSON.stringify({ url: `http://localhost:${target.port}/x` }),
      ],
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    return JSON.parse(new TextDecoder().decode(output.stdout)) as {
      ok: boolean;
      output: string;
      error: { type: string; message: string } | null;
    };
  }
  try {
    // localhost resolves to 127.0.0.1 (/etc/hosts); the name is listed, the address is not.
    const refused = await callWith([`localhost:${target.port}`]);
    assert.equal(refused.error?.type, "permission_denied", refused.output);
    assert.match(
      refused.error?.message ?? "",
      /resolves to (127\.0\.0\.1|::1), a loopback address/,
    );
    assert.deepEqual(target.seen, []);
    // Near miss: with the addresses listed too the same call reaches the server.
    const reached = await callWith([
      `localhost:${target.port}`,
      `127.0.0.1:${target.port}`,
      `[::1]:${target.port}`,
    ]);
    assert.equal(reached.ok, true, reached.output);
    assert.match(reached.output, /reached$/);
    assert.deepEqual(target.seen, ["GET /x"]);
  } finally {
    await target.close();
  }
});
