import assert from "node:assert/strict";
import { HostAllowlist } from "../config/mod.ts";
import { pinnedFetch, type ResolveHost } from "./pinned_fetch.ts";

/** A loopback server that counts its requests and answers with the request's Host header. */
function loopbackServer() {
  const seen: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => {
      seen.push(`${request.method} ${new URL(request.url).pathname}`);
      return new Response(`host=${request.headers.get("host")}`);
    },
  );
  return { seen, port: server.addr.port, close: () => server.shutdown() };
}

Deno.test("pinnedFetch connects a listed name to the address it checked, never resolving twice", async () => {
  const server = loopbackServer();
  try {
    let resolutions = 0;
    const resolve: ResolveHost = () => {
      resolutions += 1;
      // A rebinding resolver: the second answer would be another address.
      return Promise.resolve([{
        address: resolutions === 1 ? "127.0.0.1" : "10.9.9.9",
        family: 4,
      }]);
    };
    const allowlist = new HostAllowlist([`pinned.test:${server.port}`, `127.0.0.1:${server.port}`]);
    const response = await pinnedFetch({ allowlist, resolve })(
      `http://pinned.test:${server.port}/a`,
    );
    assert.equal(await response.text(), `host=pinned.test:${server.port}`);
    assert.equal(resolutions, 1);
    assert.deepEqual(server.seen, ["GET /a"]);
  } finally {
    await server.close();
  }
});

Deno.test("pinnedFetch refuses a name that resolves to a loopback address the allowlist does not list", async () => {
  const server = loopbackServer();
  try {
    const resolve: ResolveHost = () => Promise.resolve([{ address: "127.0.0.1", family: 4 }]);
    const allowlist = new HostAllowlist([`rebind.test:${server.port}`]);
    await assert.rejects(
      pinnedFetch({ allowlist, resolve })(`http://rebind.test:${server.port}/secret`),
      new RegExp(
        `resolves to 127\\.0\\.0\\.1, a loopback address.*"127\\.0\\.0\\.1:${server.port}"`,
      ),
    );
    // One address of several is enough to refuse: the public one is not taken instead.
    const mixed: ResolveHost = () =>
      Promise.resolve([{ address: "8.8.8.8", family: 4 }, {
        address: "169.254.169.254",
        family: 4,
      }]);
    await assert.rejects(
      pinnedFetch({ allowlist, resolve: mixed })(`http://rebind.test:${server.port}/`),
      /169\.254\.169\.254, a linkLocal address/,
    );
    // The deprecated IPv4-compatible form of loopback and private addresses, which ipaddr.js
    // alone calls unicast.
    for (const address of ["::7f00:1", "::a00:1", "::a9fe:a9fe"]) {
      const compatible: ResolveHost = () => Promise.resolve([{ address, family: 6 }]);
      await assert.rejects(
        pinnedFetch({ allowlist, resolve: compatible })(`http://rebind.test:${server.port}/`),
        new RegExp(`${address}, a ipv4Compatible address`),
      );
    }
    assert.deepEqual(server.seen, []);
  } finally {
    await server.close();
  }
});

Deno.test("pinnedFetch refuses hosts and ports the allowlist does not admit, before resolving", async () => {
  let resolutions = 0;
  const resolve: ResolveHost = () => {
    resolutions += 1;
    return Promise.resolve([{ address: "8.8.8.8", family: 4 }]);
  };
  const fetch = pinnedFetch({ allowlist: new HostAllowlist(["*.example.com"]), resolve });
  await assert.rejects(
    fetch("https://example.com/"),
    /"example\.com:443": network\.hosts does not admit it/,
  );
  await assert.rejects(fetch("https://api.example.com:8443/"), /"api\.example\.com:8443"/);
  await assert.rejects(fetch("ftp://api.example.com/"), /only http: and https:/);
  assert.equal(resolutions, 0);
});

Deno.test("pinnedFetch sends method, headers and body, and drops a Host header", async () => {
  let received: { method: string; body: string; host: string | null; token: string | null } | null =
    null;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      received = {
        method: request.method,
        body: await request.text(),
        host: request.headers.get("host"),
        token: request.headers.get("x-token"),
      };
      return new Response(new Uint8Array([0, 255, 1]), { status: 201 });
    },
  );
  try {
    const port = server.addr.port;
    const fetch = pinnedFetch({ allowlist: new HostAllowlist([`127.0.0.1:${port}`]) });
    const response = await fetch(`http://127.0.0.1:${port}/p`, {
      method: "POST",
      headers: { "x-token": "t", host: "elsewhere.test" },
      body: "payload",
    });
    assert.equal(response.status, 201);
    assert.deepEqual(new Uint8Array(await response.arrayBuffer()), new Uint8Array([0, 255, 1]));
    assert.deepEqual(received, {
      method: "POST",
      body: "payload",
      host: `127.0.0.1:${port}`,
      token: "t",
    });
  } finally {
    await server.shutdown();
  }
});
