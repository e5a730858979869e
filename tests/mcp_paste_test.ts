// Pasting an MCP block (issue 24 §5): `"mcpServers": {…}` as Claude Desktop, Claude Code and Cursor
// write it, and `--mcp-config FILE` holding one, are read as `mcp_servers`; `node /abs/server.js`
// (the shape server READMEs give) starts under bubblewrap because what the config's own arguments
// name is mounted read-only (here a package outside the workspace whose script requires a module
// beside it); a server that does not start says which fix applies (npx without "network": true).
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { probeBubblewrap } from "../src/exec/mod.ts";
import { createProject, repository, runCli } from "./_cli_helpers.ts";

const SERVER = nodePath.join(repository, "tests/testdata/mcp/tiny_package/dist/index.js");
const confinementProblem = await (async () => {
  const bubblewrap = await probeBubblewrap("/usr/bin/bwrap");
  if (!bubblewrap.usable) return bubblewrap.reason;
  const node = await new Deno.Command("node", { args: ["--version"], stdout: "null" }).output()
    .then((output) => output.success, () => false);
  return node ? null : "node cannot run";
})();

const TINY = { command: "node", args: [SERVER] };

Deno.test({
  name:
    "a pasted mcpServers block starts node /abs/server.js under bubblewrap, and its tool answers",
  ignore: confinementProblem !== null,
  async fn() {
    await using project = await createProject({
      config: { mcpServers: { tiny: TINY }, sandbox: { command_isolation: "bwrap" } },
    });
    const listed = await runCli(["tools", "--config", project.configPath, "--json"]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(
      (JSON.parse(listed.stdout) as { name: string }[]).some((tool) =>
        tool.name === "mcp.tiny.greet"
      ),
    );
    // The call asks (untrusted MCP tools do); the printed grant lets exactly it through.
    const call = (grants: string[]) =>
      runCli([
        "call",
        "mcp.tiny.greet",
        '{"name":"Ada"}',
        "--config",
        project.configPath,
        ...grants.flatMap((grant) => ["--approve", grant]),
      ]);
    const asked = JSON.parse((await call([])).stdout);
    const answered = await call([JSON.stringify(asked.error.details.grant)]);
    assert.equal(answered.code, 0, answered.stdout);
    assert.match(JSON.parse(answered.stdout).output, /Hello, Ada!/);
  },
});

Deno.test({
  name:
    "--mcp-config FILE adds the servers of an mcpServers file; a server id the config has is refused",
  ignore: confinementProblem !== null,
  async fn() {
    await using project = await createProject({ config: { mcp_servers: {} } });
    const file = nodePath.join(project.sandbox.root, "mcp.json");
    await Deno.writeTextFile(file, JSON.stringify({ mcpServers: { tiny: TINY } }));
    const listed = await runCli([
      "tools",
      "--config",
      project.configPath,
      "--mcp-config",
      file,
      "--json",
    ]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /"mcp\.tiny\.greet"/);

    await using twice = await createProject({ config: { mcp_servers: { tiny: TINY } } });
    const clash = await runCli(["tools", "--config", twice.configPath, "--mcp-config", file]);
    assert.equal(clash.code, 2);
    assert.match(clash.stderr, /names server "tiny", which the config already has/);
  },
});

Deno.test("mcpServers and mcp_servers together are refused: which one was meant is unknown", async () => {
  await using project = await createProject({
    config: { mcpServers: { a: TINY }, mcp_servers: { b: TINY } },
  });
  const result = await runCli(["tools", "--config", project.configPath]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /keys "mcpServers" and "mcp_servers" are both set/);
});

Deno.test({
  name: "an npx entry pasted without network: true times out saying which fix applies",
  ignore: confinementProblem !== null,
  async fn() {
    await using project = await createProject({
      config: {
        sandbox: { command_isolation: "bwrap" },
        mcpServers: {
          remote: {
            command: "npx",
            args: ["-y", "@modelcontextprotocol/server-everything"],
            startup_timeout_ms: 3000,
          },
        },
      },
    });
    const result = await runCli(["tools", "--config", project.configPath]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /Cannot start MCP server "remote"/);
    assert.match(
      result.stderr,
      /to fix: npx needs the network to fetch the server's package.*set "network": true in mcp_servers\.remote/,
    );
  },
});
