/**
 * Issue 23, first "Done when": the work a coding agent exists for runs unattended. A fresh
 * repository with `package.json` (`"test": "node test.js"`), a tracked `.env.example`, a tracked
 * `test.key` and an untracked `.env`; a config whose only command rule allows `npm`. A scripted
 * agent reads, edits, runs `npm test` and `git diff` in ONE run with `CI=true`: exit 0, no grant.
 *
 * The test script itself tries the three things the kernel must stop, and the test checks the
 * effects: the file it writes outside the workspace does not exist, the loopback server it
 * dials saw no connection, and it read the untracked `.env` as empty (the secret is in no file of
 * the run folder).
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { exists, git, programOnPath } from "./_attack_helpers.ts";
import { createProject, onlyRunDir, readJsonl, runCli } from "./_cli_helpers.ts";

const HAS_NPM = (await programOnPath("npm")) !== null && (await programOnPath("node")) !== null;
const HAS_BWRAP = await bubblewrapWorks();
const SECRET = "untracked-env-secret-5d21c9";

const call = (id: string, name: string, args: Record<string, unknown>) =>
  JSON.stringify({ tool_calls: [{ id, name, arguments: args }] });

/** The project's test: checks `sum`, then tries to escape and prints what it met. */
function testScript(outsideFile: string, port: number): string {
  return `const fs = require("fs");
const net = require("net");
const sum = require("./sum.js");
const report = (what, value) => console.log(what + ": " + value);
try {
  fs.writeFileSync(${JSON.stringify(outsideFile)}, "escaped");
  report("outside write", "succeeded");
} catch (error) {
  report("outside write", "blocked " + error.code);
}
let env = "";
try {
  env = fs.readFileSync(".env", "utf8");
} catch (error) {
  env = "";
}
report(".env bytes", env.length);
if (env.length > 0) console.log(env);
const socket = net.connect(${port}, "127.0.0.1");
socket.on("connect", () => {
  report("network", "connected");
  socket.end();
  finish();
});
socket.on("error", (error) => {
  report("network", "blocked " + error.code);
  finish();
});
function finish() {
  if (sum(1, 2) !== 3) {
    console.error("sum(1, 2) is " + sum(1, 2));
    process.exit(1);
  }
  console.log("1 passed, 0 failed");
}
`;
}

Deno.test({
  name:
    "a scripted agent reads, edits, runs npm test and git diff in one unattended run, and npm test stays inside",
  ignore: !HAS_NPM || !HAS_BWRAP, // needs node, npm and a working bubblewrap
  fn: async () => {
    let connections = 0;
    await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
      connections++;
      return new Response("reached");
    });
    await using project = await createProject({
      config: {
        commands: ["npm", "node", "git"],
        sandbox: { command_isolation: "bwrap" },
        audit: { secret_env: [] },
      },
      permissions: {
        rules: [
          { id: "files", tools: ["fs.*"], decision: "allow" },
          { id: "npm", tools: ["exec.run_command"], commands: ["npm"], decision: "allow" },
        ],
      },
      plan: [
        call("read", "fs.read_file", { path: "sum.js" }),
        call("edit", "fs.edit_file", {
          path: "sum.js",
          edits: [{ old: "return a - b;", new: "return a + b;" }],
        }),
        call("test", "exec.run_command", { argv: ["npm", "test"] }),
        call("diff", "exec.run_command", { argv: ["git", "diff"] }),
        JSON.stringify({ content: "Fixed sum; the tests pass." }),
      ],
    });
    const workspace = project.sandbox.workspace;
    const outsideFile = nodePath.join(project.sandbox.outside, "escaped.txt");
    const port = server.addr.port;
    await Deno.writeTextFile(
      nodePath.join(workspace, "package.json"),
      JSON.stringify({ name: "demo", version: "1.0.0", scripts: { test: "node test.js" } }),
    );
    await Deno.writeTextFile(
      nodePath.join(workspace, "sum.js"),
      "module.exports = function sum(a, b) {\n  return a - b;\n};\n",
    );
    await Deno.writeTextFile(nodePath.join(workspace, "test.js"), testScript(outsideFile, port));
    await Deno.writeTextFile(nodePath.join(workspace, ".env.example"), "API_TOKEN=\n");
    await Deno.writeTextFile(nodePath.join(workspace, "test.key"), "not a real key\n");
    await git(workspace, "init", "-q", "-b", "main");
    await git(workspace, "config", "user.email", "agent@example.invalid");
    await git(workspace, "config", "user.name", "Agent");
    await git(workspace, "add", "-A");
    await git(workspace, "commit", "-q", "-m", "first");
    // Untracked, after the commit: the file a CI job would hold its secrets in.
    await Deno.writeTextFile(nodePath.join(workspace, ".env"), `API_TOKEN=${SECRET}\n`);

    const done = await runCli(["--config", project.configPath], { env: { CI: "true" } });
    assert.equal(done.code, 0, `exit ${done.code}: ${done.stderr}`);

    const runDir = await onlyRunDir(project);
    const tools = await readJsonl(nodePath.join(runDir, "logs", "tools.jsonl"));
    const byId = (id: string) => tools.find((line) => line.tool_call_id === id);
    for (const id of ["read", "edit", "test"]) {
      const line = byId(id);
      assert.ok(line !== undefined, `no record of call "${id}"`);
      const result = line.result as { ok?: boolean; error?: unknown } | undefined;
      assert.equal(result?.ok ?? line.ok, true, `${id}: ${JSON.stringify(line).slice(0, 600)}`);
    }
    // No grant and no ask: every decision of the run was an allow.
    const events = await readJsonl(nodePath.join(runDir, "events.jsonl"));
    const asked = events.filter((event) =>
      String(event.type).startsWith("approval.") || event.type === "tool.denied"
    );
    assert.deepEqual(asked, [], "a call asked or was denied");

    // The edit is in the workspace, and npm test ran it.
    assert.match(await Deno.readTextFile(nodePath.join(workspace, "sum.js")), /a \+ b/);
    const testOutput = JSON.stringify(byId("test"));
    assert.match(testOutput, /1 passed, 0 failed/);
    // What the kernel held: no write outside, no network, the untracked .env read as empty.
    assert.match(testOutput, /outside write: blocked/);
    assert.equal(await exists(outsideFile), false, "npm test wrote outside the workspace");
    assert.match(testOutput, /network: blocked/);
    assert.equal(connections, 0, "npm test reached the loopback server");
    assert.match(testOutput, /\.env bytes: 0/);
    for await (const file of filesUnder(runDir)) {
      const text = await Deno.readTextFile(file).catch(() => "");
      assert.ok(!text.includes(SECRET), `the .env secret is in ${file}`);
    }

    // git diff with a tracked .env.example and test.key: the tracked sensitive files must stay
    // readable to git (the "watch" helper's change); on a branch without it this fails here.
    const diff = byId("diff");
    assert.ok(diff !== undefined, "no record of git diff");
    assert.match(JSON.stringify(diff), /- {2}return a - b;.*\+ {2}return a \+ b;/s);
  },
});

async function* filesUnder(folder: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(folder)) {
    const path = nodePath.join(folder, entry.name);
    if (entry.isDirectory) yield* filesUnder(path);
    else if (entry.isFile) yield path;
  }
}

/** Whether bubblewrap can start a sandbox here (the run would refuse commands without it). */
async function bubblewrapWorks(): Promise<boolean> {
  const { probeBubblewrap } = await import("../src/exec/mod.ts");
  return (await probeBubblewrap("/usr/bin/bwrap")).usable;
}
