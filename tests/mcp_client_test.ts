/**
 * The MCP client (issue 13 §1) against software nobody here wrote: the reference server
 * `@modelcontextprotocol/server-everything` over stdio, fetched by `npx` (skipped, with the reason
 * printed, when npx or the download fails), and a server that never answers.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError, loadConfig } from "../src/config/mod.ts";
import { probeBubblewrap } from "../src/exec/mod.ts";
import { openRunSession, type RunSession } from "../src/session/mod.ts";

const EVERYTHING = ["-y", "@modelcontextprotocol/server-everything"];
const SILENT_SERVER = fileURLToPath(
  new URL("./testdata/mcp/silent_server.sh", import.meta.url),
);

/** Why the npx tests cannot run here, or null when they can. */
const npxProblem = await (async () => {
  try {
    const probe = await new Deno.Command("npx", {
      args: [...EVERYTHING, "--help"],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(180_000),
    }).output();
    // `--help` prints the launcher's usage (and exits 1): the package is there and runs.
    const printed = new TextDecoder().decode(probe.stdout) + new TextDecoder().decode(probe.stderr);
    return printed.includes("Everything") ? null : `npx failed: ${printed.trim().slice(-500)}`;
  } catch (error) {
    return `npx cannot run: ${error}`;
  }
})();
if (npxProblem !== null) console.log(`Skipping the server-everything tests: ${npxProblem}`);

const PROBE_SERVER = fileURLToPath(new URL("./testdata/mcp/probe_server.mjs", import.meta.url));

/** Why the confinement tests cannot run here (no node, no working bubblewrap), or null. */
const confinementProblem = await (async () => {
  const bubblewrap = await probeBubblewrap("/usr/bin/bwrap");
  if (!bubblewrap.usable) return bubblewrap.reason;
  try {
    await new Deno.Command("node", { args: ["--version"], stdout: "null" }).output();
    return null;
  } catch (error) {
    return `node cannot run: ${error}`;
  }
})();
if (confinementProblem !== null) {
  console.log(`Skipping the MCP confinement tests: ${confinementProblem}`);
}

/** Opens a run whose config has `servers` and allows every MCP tool by a rule. */
async function openMcpRun(
  servers: Record<string, unknown>,
  env: (name: string) => string | undefined = (name) => Deno.env.get(name),
  setUp: (dir: string) => Promise<void> = () => Promise.resolve(),
): Promise<{ session: RunSession; dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "kagent-mcp-" });
  await setUp(dir);
  await Deno.writeTextFile(
    nodePath.join(dir, "agent.jsonc"),
    JSON.stringify({
      mcp_servers: servers,
      permissions: { rules: [{ id: "mcp-allowed", tools: ["mcp.*"], decision: "allow" }] },
    }),
  );
  const config = await loadConfig(nodePath.join(dir, "agent.jsonc"));
  try {
    return { session: await openRunSession(config, { env }), dir };
  } catch (error) {
    await Deno.remove(dir, { recursive: true });
    throw error;
  }
}

/** Reads the run's events. */
async function events(session: RunSession): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(nodePath.join(session.folder.dir, "events.jsonl"));
  return text.trim().split("\n").map((line) => JSON.parse(line));
}

/** Tells whether a process whose command line or environment contains `marker` is running. */
async function running(marker: string): Promise<boolean> {
  const { stdout } = await new Deno.Command("ps", { args: ["-e", "-ww", "-o", "args=", "e"] })
    .output();
  return new TextDecoder().decode(stdout).split("\n").some((line) => line.includes(marker));
}

let callCount = 0;
const call = (session: RunSession, name: string, args: unknown) =>
  session.runtime.call({ id: `call_${++callCount}`, name, arguments: JSON.stringify(args) });

Deno.test({
  name: "mcp client registers server-everything's tools and records the server when a run opens",
  ignore: npxProblem !== null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // Other test files run server-everything at the same time: this one's processes carry a marker.
    const marker = `KAGENT_TEST_MCP_MARKER=registers-${crypto.randomUUID()}`;
    const { session, dir } = await openMcpRun({
      everything: {
        command: "npx",
        args: EVERYTHING,
        env: { KAGENT_TEST_MCP_MARKER: marker.split("=")[1] as string },
        startup_timeout_ms: 120_000,
        network: true,
      },
    });
    assert.equal(await running(marker), true, "the marker finds the server's processes");
    try {
      const echo = session.registry.get("mcp.everything.echo");
      assert.ok(echo !== undefined);
      assert.deepEqual(echo.definition.tags, ["mcp"]);
      // Untrusted hints: a write tool of risk 3.
      assert.equal(echo.definition.permission, "write");
      assert.equal(echo.definition.annotations.risk_level, 3);
      const started = (await events(session)).find((event) => event.type === "mcp_server.started");
      assert.ok(started !== undefined);
      assert.equal(started.server, "everything");
      assert.equal(started.protocol_version, "2025-11-25");
      assert.equal(typeof started.name, "string");
      assert.ok((started.offered as string[]).includes("echo"));
      assert.ok((started.registered as string[]).includes("mcp.everything.get-tiny-image"));
    } finally {
      await session.close();
      await Deno.remove(dir, { recursive: true });
    }
    // No process of the server survives the run (npx and the node it started).
    assert.equal(await running(marker), false);
  },
});

Deno.test({
  name: "mcp client returns text, keeps an image as an artifact and fails an error result " +
    "when server-everything's tools are called",
  ignore: npxProblem !== null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { session, dir } = await openMcpRun({
      everything: { command: "npx", args: EVERYTHING, startup_timeout_ms: 120_000, network: true },
    });
    try {
      const echoed = await call(session, "mcp.everything.echo", { message: "hello from kagent" });
      assert.equal(echoed.ok, true, echoed.output);
      assert.match(echoed.output, /hello from kagent/);

      const image = await call(session, "mcp.everything.get-tiny-image", {});
      assert.equal(image.ok, true, image.output);
      const png = image.artifacts.find((artifact) => artifact.media_type === "image/png");
      assert.ok(png !== undefined, JSON.stringify(image.artifacts));
      assert.match(png.sha256, /^[0-9a-f]{64}$/);
      const bytes = await Deno.readFile(nodePath.join(session.folder.dir, png.ref));
      assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
      assert.ok(!image.output.includes("iVBOR"), "no inlined base64 blob");

      // A tool that throws at the server answers isError: a failed result, tool_error.
      const thrown = await call(session, "mcp.everything.gzip-file-as-resource", {
        name: "x.gz",
        data: "file:///etc/passwd",
      });
      assert.equal(thrown.ok, false, thrown.output);
      assert.equal(thrown.error?.type, "tool_error");
      assert.match(thrown.error?.message ?? "", /MCP server answered with an error/);
      const sum = await call(session, "mcp.everything.get-sum", { a: 2, b: 3 });
      assert.equal(sum.ok, true, sum.output);
      assert.match(sum.output, /5/);
      const bad = await call(session, "mcp.everything.get-sum", { a: "two", b: 3 });
      assert.equal(bad.ok, false);
      assert.equal(bad.error?.type, "invalid_arguments"); // our own schema check, before the server
    } finally {
      await session.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "mcp client keeps kagent-run's secrets out of a server's environment when the parent has them",
  ignore: npxProblem !== null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const canary = "sk-ant-canary-0123456789abcdef";
    const passed = "passed-value-0123456789";
    const env = (name: string) =>
      name === "ANTHROPIC_API_KEY"
        ? canary
        : name === "MY_SERVER_TOKEN"
        ? passed
        : Deno.env.get(name);
    const { session, dir } = await openMcpRun({
      everything: {
        command: "npx",
        args: EVERYTHING,
        env: { SERVER_TOKEN: "${MY_SERVER_TOKEN}", PLAIN: "plain-value" },
        startup_timeout_ms: 120_000,
        network: true,
      },
    }, env);
    try {
      const printed = await call(session, "mcp.everything.get-env", {});
      assert.equal(printed.ok, true, printed.output);
      assert.ok(!printed.output.includes(canary), "the canary must not reach the server");
      assert.ok(!printed.output.includes("ANTHROPIC_API_KEY"));
      // Near miss: the configured variables do reach it; the ${VAR} one is a secret, redacted.
      assert.match(printed.output, /plain-value/);
      assert.match(printed.output, /SERVER_TOKEN/);
      assert.ok(!printed.output.includes(passed), "an expanded ${VAR} value is redacted");
      const logs = await Deno.readTextFile(nodePath.join(session.folder.dir, "tools.jsonl"))
        .catch(() => "");
      assert.ok(!logs.includes(passed) && !logs.includes(canary));
    } finally {
      await session.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "mcp client fails the run's start naming the server when a server never answers",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await assert.rejects(
      () => openMcpRun({ silent: { command: SILENT_SERVER, startup_timeout_ms: 500 } }),
      (error: Error) =>
        error instanceof ConfigError && error.code === "mcp_server_failed" &&
        error.message.includes('"silent"') && error.message.includes("500 ms"),
    );
    assert.equal(await running(SILENT_SERVER), false, "no server process survives");
  },
});

Deno.test({
  name: "mcp client records a warning and goes on when an optional server never answers",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { session, dir } = await openMcpRun({
      silent: { command: SILENT_SERVER, startup_timeout_ms: 500, required: false },
    });
    try {
      const skipped = (await events(session)).find((event) => event.type === "mcp_server.skipped");
      assert.equal(skipped?.server, "silent");
      assert.equal(
        session.registry.list().some((tool) => tool.definition.name.startsWith("mcp.")),
        false,
      );
    } finally {
      await session.close();
      await Deno.remove(dir, { recursive: true });
    }
    assert.equal(await running(SILENT_SERVER), false);
  },
});

Deno.test({
  name: "mcp client fails a call with timeout and the run goes on when the server answers too late",
  ignore: npxProblem !== null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { session, dir } = await openMcpRun({
      everything: {
        command: "npx",
        args: EVERYTHING,
        timeout_ms: 500,
        startup_timeout_ms: 120_000,
        network: true,
      },
    });
    try {
      const slow = await call(session, "mcp.everything.trigger-long-running-operation", {
        duration: 5,
        steps: 2,
      });
      assert.equal(slow.ok, false);
      assert.equal(slow.error?.type, "timeout");
      assert.match(slow.error?.message ?? "", /mcp_servers\.everything\.timeout_ms/);
      // Near miss: the next call of the same server still works.
      const echoed = await call(session, "mcp.everything.echo", { message: "still here" });
      assert.equal(echoed.ok, true, echoed.output);
    } finally {
      await session.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/**
 * Opens a run with the probe server (copied into the workspace: its program is `node`), calls its
 * tool to read a secret outside every root and to write into the workspace, and reports.
 */
async function probeConfinement(write: boolean): Promise<{ output: string; wrote: boolean }> {
  const outside = await Deno.makeTempDir({ prefix: "kagent-mcp-outside-" });
  const secret = "outside-secret-canary-7f3a";
  await Deno.writeTextFile(nodePath.join(outside, "secret.txt"), secret);
  const { session, dir } = await openMcpRun(
    { probe: { command: "node", args: ["probe_server.mjs"], write } },
    (name) => Deno.env.get(name),
    (workspace) => Deno.copyFile(PROBE_SERVER, nodePath.join(workspace, "probe_server.mjs")),
  ).catch(async (error) => {
    await Deno.remove(outside, { recursive: true });
    throw error;
  });
  const target = nodePath.join(dir, "planted.txt");
  try {
    const started = (await events(session)).find((event) => event.type === "mcp_server.started");
    assert.deepEqual(started?.confinement, { mode: "bwrap", write, network: false });
    const result = await call(session, "mcp.probe.probe", {
      read: nodePath.join(outside, "secret.txt"),
      write: target,
    });
    assert.equal(result.ok, true, result.output);
    assert.ok(!result.output.includes(secret), "the outside file must not be readable");
    return { output: result.output, wrote: await Deno.stat(target).then(() => true, () => false) };
  } finally {
    await session.close();
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
}

Deno.test({
  name: "mcp client confines a server by bubblewrap when it reads outside and writes the workspace",
  ignore: confinementProblem !== null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { output, wrote } = await probeConfinement(false);
    assert.match(output, /read failed: ENOENT/);
    assert.match(output, /write failed: (EROFS|EACCES|EPERM)/);
    assert.equal(wrote, false, "the write into the read-only workspace left no file");
  },
});

Deno.test({
  name: "mcp client lets a confined server write the workspace when its config says write",
  ignore: confinementProblem !== null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { output, wrote } = await probeConfinement(true);
    assert.match(output, /read failed: ENOENT/, "still nothing outside the roots");
    assert.match(output, /write written/);
    assert.equal(wrote, true);
  },
});

Deno.test({
  name: "mcp client starts no server unconfined when isolation auto finds no working bubblewrap",
  ignore: confinementProblem !== null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "kagent-mcp-off-" });
    try {
      await Deno.copyFile(PROBE_SERVER, nodePath.join(dir, "probe_server.mjs"));
      const unusable = () =>
        Promise.resolve({
          usable: false as const,
          reason: 'Cannot run "/usr/bin/bwrap": setting up uid map: Permission denied',
        });
      const write = (required: boolean) =>
        Deno.writeTextFile(
          nodePath.join(dir, "agent.jsonc"),
          JSON.stringify({
            sandbox: { command_isolation: "auto" },
            mcp_servers: { probe: { command: "node", args: ["probe_server.mjs"], required } },
          }),
        );
      // A required server that cannot be confined stops the start, naming it and the fixes.
      await write(true);
      const config = await loadConfig(nodePath.join(dir, "agent.jsonc"));
      const error = await openRunSession(config, { probeBubblewrap: unusable }).then(
        (session) => session.close().then(() => null),
        (thrown: unknown) => thrown,
      );
      assert.ok(error instanceof ConfigError, `the run started: ${error}`);
      assert.equal(error.key, "mcp_servers.probe");
      assert.match(error.message, /cannot be confined here/);
      assert.match(error.message, /"sandbox\.command_isolation": "none"/);
      // Near miss: an optional one is skipped with the reason and the run opens without it.
      await write(false);
      const optional = await loadConfig(nodePath.join(dir, "agent.jsonc"));
      const session = await openRunSession(optional, { probeBubblewrap: unusable });
      try {
        const recorded = await events(session);
        assert.ok(!recorded.some((event) => event.type === "mcp_server.started"));
        const skipped = recorded.find((event) => event.type === "mcp_server.skipped");
        assert.match(String(skipped?.reason), /cannot be confined here/);
        assert.equal(session.registry.get("mcp.probe.probe"), undefined);
      } finally {
        await session.close();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
