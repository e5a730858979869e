// The MCP Inspector's CLI (`@modelcontextprotocol/inspector --cli`, software nobody here wrote)
// against `kagent-run mcp` over stdio, started from a client config file holding the same
// `mcpServers` entry docs/MCP.md gives. Fetched by npx (CI warms its cache); skipped, with the
// reason printed, when npx cannot run it.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { exists as pathExists } from "../src/testing/path_exists.ts";
import { createProject, readJsonl, repository, taskFlags } from "./_cli_helpers.ts";

const INSPECTOR = "@modelcontextprotocol/inspector";

/**
 * The Inspector's program as npx installed it (found from npx's cache first, then fetched), or
 * why it cannot run here. Calls run it directly: npx takes seconds to resolve it each time.
 */
const inspector: { program: string } | { problem: string } = await (async () => {
  let problem = "";
  for (const cache of [["--offline"], []]) {
    try {
      const probe = await new Deno.Command("npx", {
        args: [...cache, "-y", "-p", INSPECTOR, "-c", "command -v mcp-inspector"],
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(180_000),
      }).output();
      const program = new TextDecoder().decode(probe.stdout).trim();
      if (probe.success && program.startsWith("/")) return { program };
      problem = `npx failed: ${new TextDecoder().decode(probe.stderr).trim().slice(-500)}`;
    } catch (error) {
      problem = `npx cannot run: ${error}`;
    }
  }
  return { problem };
})();
if ("problem" in inspector) console.log(`Skipping the MCP Inspector test: ${inspector.problem}`);

/** Runs the Inspector CLI on the config's `kagent-run` server; @returns its parsed JSON answer. */
async function inspect(
  clientConfig: string,
  cwd: string,
  method: string[],
): Promise<Record<string, unknown>> {
  if (!("program" in inspector)) throw new Error(inspector.problem);
  const output = await new Deno.Command(inspector.program, {
    args: ["--cli", "--config", clientConfig, "--server", "kagent-run", ...method],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  assert.equal(output.code, 0, stdout + new TextDecoder().decode(output.stderr));
  return JSON.parse(stdout);
}

Deno.test({
  name:
    "the MCP Inspector CLI lists kagent-run's tools, reads a file and gets the grant for a write over stdio",
  ignore: "problem" in inspector,
  async fn() {
    await using project = await createProject();
    const clientConfig = nodePath.join(project.sandbox.root, "mcp.json");
    // docs/MCP.md's mcpServers entry, with "kagent-run" spelled as `deno run … main.ts`.
    await Deno.writeTextFile(
      clientConfig,
      JSON.stringify({
        mcpServers: {
          "kagent-run": {
            command: Deno.execPath(),
            args: [
              "run",
              ...taskFlags("kagent-run"),
              nodePath.join(repository, "main.ts"),
              "mcp",
              "--config",
              project.configPath,
            ],
          },
        },
      }),
    );
    const cwd = project.sandbox.root;

    const target = nodePath.join(project.sandbox.workspace, "notes.txt");
    // Three Inspector runs side by side: each is its own server process and run folder.
    const [listed, answer, write] = await Promise.all([
      inspect(clientConfig, cwd, ["--method", "tools/list"]),
      inspect(clientConfig, cwd, [
        "--method",
        "tools/call",
        "--tool-name",
        "fs.read_file",
        "--tool-arg",
        "path=README.md",
      ]),
      inspect(clientConfig, cwd, [
        "--method",
        "tools/call",
        "--tool-name",
        "fs.write_file",
        "--tool-arg",
        "path=notes.txt",
        "content=hello",
      ]),
    ]);
    const tools = listed.tools as { name: string; annotations?: Record<string, unknown> }[];
    const read = tools.find((tool) => tool.name === "fs.read_file");
    assert.equal(read?.annotations?.readOnlyHint, true);
    assert.equal(
      tools.find((tool) => tool.name === "fs.write_file")?.annotations?.readOnlyHint,
      false,
    );

    assert.equal(answer.isError, false);
    assert.ok(JSON.stringify(answer.content).includes("A small project."));

    assert.equal(write.isError, true);
    const error = (write.structuredContent as { error: Record<string, unknown> }).error;
    assert.equal(error.type, "approval_required");
    assert.equal((error.details as { grant: { tool: string } }).grant.tool, "fs.write_file");
    assert.equal(await pathExists(target), false);

    // One run folder a server process, each recording its call (tools/list records none).
    const recorded: unknown[] = [];
    for (const name of [...Deno.readDirSync(project.runsDir)].map((entry) => entry.name).sort()) {
      const log = nodePath.join(project.runsDir, name, "logs/tools.jsonl");
      const entries = await pathExists(log) ? await readJsonl(log) : [];
      recorded.push(...entries.map((entry) => [
        entry.tool,
        (entry.result as { error_type: string | null }).error_type,
      ]));
    }
    assert.equal(recorded.length, 2);
    assert.deepEqual(
      new Set(recorded.map((entry) => JSON.stringify(entry))),
      new Set([
        JSON.stringify(["fs.read_file", null]),
        JSON.stringify(["fs.write_file", "approval_required"]),
      ]),
    );
  },
});
