/**
 * The MCP client against reference servers nobody here wrote, fetched by `npx` (skipped, with the
 * reason printed, when npx cannot run them): `@modelcontextprotocol/server-filesystem` with the
 * workspace as its allowed folder, the same server allowed `/` (so only the OS boundary stands
 * between it and the host), and `@modelcontextprotocol/server-everything`, killed from outside in
 * the middle of a call. One run holds the three servers; every process of theirs carries a marker
 * variable (set through their `env`), so `ps` finds exactly this test's processes.
 *
 * (tests/mcp_client_test.ts covers server-everything's text, image, error and timeout results, the
 * configured-secret canary and start-up failures; this file does not repeat them.)
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { loadConfig } from "../src/config/mod.ts";
import { probeBubblewrap } from "../src/exec/mod.ts";
import { openRunSession, type RunSession } from "../src/session/mod.ts";
import { exists } from "../src/testing/path_exists.ts";

const FILESYSTEM = "@modelcontextprotocol/server-filesystem";
const EVERYTHING = "@modelcontextprotocol/server-everything";
const MARKER_NAME = "KAGENT_TEST_MCP_MARKER";
const MARKER = `reference-${crypto.randomUUID()}`;
/** In kagent-run's own environment: must not reach any server. */
const CANARY_NAME = "KAGENT_TEST_PARENT_SECRET";
const CANARY = `parent-canary-${crypto.randomUUID()}`;

/** Why the npx servers cannot run here, or null when they can. */
const npxProblem = await (async () => {
  for (
    const [name, args, expected] of [
      [EVERYTHING, ["--help"], "Everything"],
      [FILESYSTEM, [], "Usage"],
    ] as const
  ) {
    try {
      const probe = await new Deno.Command("npx", {
        args: ["-y", name, ...args],
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(180_000),
      }).output();
      // Both print their usage (and exit 1): the package is there and runs.
      const printed = new TextDecoder().decode(probe.stdout) +
        new TextDecoder().decode(probe.stderr);
      if (!printed.includes(expected)) return `npx ${name} failed: ${printed.trim().slice(-300)}`;
    } catch (error) {
      return `npx cannot run: ${error}`;
    }
  }
  return null;
})();
if (npxProblem !== null) console.log(`Skipping the MCP reference server tests: ${npxProblem}`);

/** Why the servers cannot be confined here (the confinement steps are then left out), or null. */
const bubblewrapProblem = await probeBubblewrap("/usr/bin/bwrap").then((probe) =>
  probe.usable ? null : probe.reason
);
if (bubblewrapProblem !== null) {
  console.log(`Running the MCP reference servers unconfined: ${bubblewrapProblem}`);
}

/** The marked processes still running: `[pid, process group, command line]`. */
async function markedProcesses(): Promise<[number, number, string][]> {
  const { stdout } = await new Deno.Command("ps", {
    args: ["-e", "-ww", "-o", "pid=", "-o", "pgid=", "-o", "args=", "e"],
  }).output();
  const found: [number, number, string][] = [];
  for (const line of new TextDecoder().decode(stdout).split("\n")) {
    if (!line.includes(`${MARKER_NAME}=${MARKER}`)) continue;
    const [, pid, group, args] = line.match(/^\s*(\d+)\s+(\d+)\s+(.*)$/) ?? [];
    if (pid !== undefined && group !== undefined && Number(pid) !== Deno.pid) {
      found.push([Number(pid), Number(group), args ?? ""]);
    }
  }
  return found;
}

/** Resolves once `events.jsonl` holds a `tool.started` of `callId`. */
async function started(session: RunSession, callId: string): Promise<void> {
  const file = nodePath.join(session.folder.dir, "events.jsonl");
  for (;;) {
    const text = await Deno.readTextFile(file);
    if (text.includes(`"tool.started"`) && text.includes(`"${callId}"`)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

Deno.test({
  name: "mcp client works with the reference servers when they answer, refuse, escape and crash",
  ignore: npxProblem !== null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "kagent-mcp-reference-" });
    const outside = await Deno.makeTempDir({ prefix: "kagent-mcp-outside-" });
    const secret = `outside-secret-${crypto.randomUUID()}`;
    await Deno.writeTextFile(nodePath.join(outside, "secret.txt"), secret);
    await Deno.writeTextFile(nodePath.join(dir, "notes.md"), "# Notes\nthe workspace file\n");
    const marked = { env: { [MARKER_NAME]: MARKER }, network: true, startup_timeout_ms: 120_000 };
    await Deno.writeTextFile(
      nodePath.join(dir, "agent.jsonc"),
      JSON.stringify({
        ...(bubblewrapProblem === null ? {} : { sandbox: { command_isolation: "none" } }),
        tools: { max_processes: 300 },
        mcp_servers: {
          files: { command: "npx", args: ["-y", FILESYSTEM, dir], ...marked },
          root: { command: "npx", args: ["-y", FILESYSTEM, "/"], ...marked },
          everything: { command: "npx", args: ["-y", EVERYTHING], ...marked },
        },
        permissions: { rules: [{ tools: ["mcp.*"], decision: "allow" }] },
      }),
    );
    Deno.env.set(CANARY_NAME, CANARY);
    let session: RunSession | null = null;
    try {
      session = await openRunSession(await loadConfig(nodePath.join(dir, "agent.jsonc")), {});
      const run = session;
      let count = 0;
      const call = (name: string, args: unknown, id = `call_${++count}`) =>
        run.runtime.call({ id, name, arguments: JSON.stringify(args) });

      await t.step(
        "server-filesystem's tools are listed and recorded when the run opens",
        async () => {
          for (const tool of ["read_text_file", "write_file", "list_directory", "search_files"]) {
            assert.ok(run.registry.get(`mcp.files.${tool}`) !== undefined, tool);
          }
          const text = await Deno.readTextFile(nodePath.join(run.folder.dir, "events.jsonl"));
          const record = text.trim().split("\n").map((line) => JSON.parse(line))
            .find((event) => event.type === "mcp_server.started" && event.server === "files");
          assert.equal(record?.protocol_version, "2025-11-25");
          assert.equal(typeof record?.version, "string");
          assert.deepEqual(record?.refused, []);
          assert.ok((record?.offered as string[]).includes("read_text_file"));
        },
      );

      await t.step(
        "read_text_file returns a workspace file when it is in the allowed folder",
        async () => {
          const read = await call("mcp.files.read_text_file", {
            path: nodePath.join(dir, "notes.md"),
          });
          assert.equal(read.ok, true, read.output);
          assert.match(read.output, /the workspace file/);
        },
      );

      await t.step(
        "a path outside the allowed folder is a failed result and the run goes on",
        async () => {
          const refused = await call("mcp.files.read_text_file", {
            path: nodePath.join(outside, "secret.txt"),
          });
          assert.equal(refused.ok, false);
          assert.equal(refused.error?.type, "tool_error");
          assert.match(refused.output, /Access denied - path outside allowed directories/);
          assert.ok(!refused.output.includes(secret));
          // The same server's next call works.
          const listed = await call("mcp.files.list_directory", { path: dir });
          assert.equal(listed.ok, true, listed.output);
          assert.match(listed.output, /notes\.md/);
        },
      );

      await t.step({
        name: "a server allowed / still cannot read or write the host outside its mounts",
        ignore: bubblewrapProblem !== null,
        async fn() {
          // The server's own check lets everything through; bubblewrap's mounts do not.
          const read = await call("mcp.root.read_text_file", {
            path: nodePath.join(outside, "secret.txt"),
          });
          assert.equal(read.ok, false, read.output);
          assert.match(read.output, /ENOENT|no such file/i);
          assert.ok(!read.output.includes(secret));
          const planted = nodePath.join(dir, "planted.txt");
          const write = await call("mcp.root.write_file", { path: planted, content: "planted" });
          assert.equal(write.ok, false, write.output);
          assert.match(write.output, /EROFS|read-only/i);
          assert.equal(await Deno.stat(planted).then(() => true, () => false), false);
          // The commands' TMPDIR is another confinement domain's: not writable (hidden) here.
          const commandsTmp = nodePath.join(run.folder.dir, "tmp", "scratch.txt");
          const crossed = await call("mcp.root.write_file", { path: commandsTmp, content: "x" });
          assert.equal(crossed.ok, false, crossed.output);
          assert.equal(await Deno.stat(commandsTmp).then(() => true, () => false), false);
          // Near miss: the workspace is readable through "/", and the server's own TMPDIR writable.
          const near = await call("mcp.root.read_text_file", {
            path: nodePath.join(dir, "notes.md"),
          });
          assert.equal(near.ok, true, near.output);
          assert.match(near.output, /the workspace file/);
          const scratch = nodePath.join(
            run.folder.dir,
            "domains",
            "mcp-root",
            "tmp",
            "scratch.txt",
          );
          const wrote = await call("mcp.root.write_file", { path: scratch, content: "scratch" });
          assert.equal(wrote.ok, true, wrote.output);
        },
      });

      await t.step({
        name: "a confined server runs with the commands' process limit when prlimit is there",
        ignore: bubblewrapProblem !== null || !await exists("/usr/bin/prlimit"),
        async fn() {
          const server = (await markedProcesses()).find(([, , args]) =>
            args.startsWith("node ") && args.includes("mcp-server-filesystem")
          );
          assert.ok(server !== undefined, "the filesystem server's node process is running");
          const { stdout } = await new Deno.Command("cat", { args: [`/proc/${server[0]}/limits`] })
            .output();
          // tools.max_processes, as set above (the host's own limit is another number).
          assert.match(new TextDecoder().decode(stdout), /Max processes\s+300\s+300\s/);
        },
      });

      await t.step("kagent-run's own environment does not reach a server", async () => {
        const printed = await call("mcp.everything.get-env", {});
        assert.equal(printed.ok, true, printed.output);
        assert.ok(!printed.output.includes(CANARY), "the parent's variable must not reach it");
        assert.ok(!printed.output.includes(CANARY_NAME));
        // Near miss: the allowlisted PATH and the configured marker do reach it.
        assert.match(printed.output, /"PATH"/);
        assert.ok(printed.output.includes(MARKER));
      });

      await t.step(
        "a server killed mid-call fails that call naming it and the run goes on",
        async () => {
          const before = await markedProcesses();
          assert.ok(before.length > 0, "the servers' processes carry the marker");
          const slow = call("mcp.everything.trigger-long-running-operation", {
            duration: 60,
            steps: 2,
          }, "call_slow");
          await started(run, "call_slow");
          // From outside, like an OOM kill: every process group holding server-everything.
          const groups = new Set(
            before.filter(([, , args]) => args.includes("server-everything")).map(([, group]) =>
              group
            ),
          );
          assert.ok(groups.size > 0, JSON.stringify(before));
          for (const group of groups) Deno.kill(-group, "SIGKILL");
          const failed = await slow;
          assert.equal(failed.ok, false);
          assert.equal(failed.error?.type, "tool_error");
          assert.match(failed.error?.message ?? "", /MCP server "everything" failed/);
          // Its next call fails fast too; another server's call works.
          const again = await call("mcp.everything.echo", { message: "anyone there" });
          assert.equal(again.ok, false);
          assert.match(again.error?.message ?? "", /MCP server "everything"/);
          const other = await call("mcp.files.read_text_file", {
            path: nodePath.join(dir, "notes.md"),
          });
          assert.equal(other.ok, true, other.output);
        },
      );
    } finally {
      Deno.env.delete(CANARY_NAME);
      await session?.close();
      await Deno.remove(dir, { recursive: true });
      await Deno.remove(outside, { recursive: true });
    }
    // No process of any of the three servers survives the run (npx, node, bwrap).
    assert.deepEqual(await markedProcesses(), []);
  },
});
