/**
 * A child agent's asks go through the run's one approver and say who asks (agent, run, parent
 * agent, parent run, role); the parent's grants cover the child, the child's own session grants
 * never reach the parent; a worker writes only when its dispatch names the write tool.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { main } from "../src/cli/mod.ts";
import { createProject, onlyRunDir, type Project, readJsonl } from "./_cli_helpers.ts";

type Line = Record<string, unknown>;

/** Writes each child plan beside the config. */
async function writePlans(project: Project, plans: Record<string, unknown[]>): Promise<void> {
  for (const [name, turns] of Object.entries(plans)) {
    await Deno.writeTextFile(
      nodePath.join(project.configDir, name),
      turns.map((turn) => JSON.stringify(turn)).join("\n") + "\n",
    );
  }
}

const write = (id: string, path: string, content: string) => ({
  id,
  name: "fs.write_file",
  arguments: { path, content, overwrite: true },
});

/** The child run folders of a run, by agent id. */
async function childDirs(runDir: string): Promise<Map<string, string>> {
  const events = await readJsonl(nodePath.join(runDir, "events.jsonl"));
  return new Map(
    events.filter((event) => event.type === "agent.started").map((event) => [
      String(event.agent_id),
      nodePath.join(runDir, "agents", String(event.child_run_id)),
    ]),
  );
}

Deno.test("a child asks the same approver naming itself and its parent; parent grants cover it, its own session grants stay its own", async () => {
  await using project = await createProject({
    config: {
      agents: {
        writer: {
          description: "Writes files",
          agent_type: "sub",
          model: { provider: "script", script: "writer.jsonl" },
        },
      },
    },
    plan: [
      JSON.stringify({ tool_calls: [write("mine", "granted.txt", "main")] }),
      JSON.stringify({
        tool_calls: [{
          id: "child",
          name: "agent.create_sub_agent",
          arguments: { agent_id: "writer", task: "Write the files" },
        }],
      }),
      JSON.stringify({ tool_calls: [write("after", "child-session.txt", "main again")] }),
      JSON.stringify({ content: "done" }),
    ],
  });
  await writePlans(project, {
    "writer.jsonl": [
      { tool_calls: [write("inherited", "granted.txt", "child")] },
      { tool_calls: [write("own", "child-session.txt", "child")] },
      { tool_calls: [write("own-again", "child-session.txt", "child again")] },
      { content: "written" },
    ],
  });
  // The person at the terminal: allow main's write for the session, allow the child's other
  // write for the session, deny main's write of the child's file.
  const answers = ["s", "s", "n"];
  const asked: string[] = [];
  let stderr = "";
  const code = await main(["run", "--config", project.configPath], {
    stdout: () => {},
    stderr: (text) => void (stderr += text),
    stdoutIsTerminal: false,
    env: (name) => name === "CI" ? undefined : Deno.env.get(name),
    terminal: {
      write: (text) => void asked.push(text),
      readLine: () => Promise.resolve(answers.shift() ?? null),
    },
  });
  assert.equal(code, 0, stderr);
  assert.equal(asked.length, 3, asked.join("\n---\n"));
  const runDir = await onlyRunDir(project);
  const runId = nodePath.basename(runDir);
  assert.match(asked[0] as string, /agent: {4}main main, run /);
  assert.match(
    asked[1] as string,
    new RegExp(`agent: {4}sub writer-1, run \\S+, started by main \\(run ${runId}\\)`),
  );
  assert.match(asked[1] as string, /child-session\.txt/);
  assert.match(asked[2] as string, /agent: {4}main main/);

  const child = (await childDirs(runDir)).get("writer-1") as string;
  const childEvents = await readJsonl(nodePath.join(child, "events.jsonl"));
  const sources = (events: Line[]) =>
    events.filter((event) => event.type === "approval.granted").map((event) => [
      event.tool_call_id,
      event.source,
    ]);
  // The parent's session grant covered the child's write of the same file; the child's own
  // session grant covered its second write.
  assert.deepEqual(sources(childEvents), [
    ["inherited", "parent_grant"],
    ["own", "allow_for_session"],
    ["own-again", "session"],
  ]);
  // The child's grant never reached the parent: its write of that file asked, and was denied.
  const parentEvents = await readJsonl(nodePath.join(runDir, "events.jsonl"));
  assert.deepEqual(sources(parentEvents), [["mine", "allow_for_session"]]);
  assert.ok(
    parentEvents.some((event) =>
      event.type === "approval.denied" && event.tool_call_id === "after"
    ),
  );
  const workspace = project.sandbox.workspace;
  assert.equal(await Deno.readTextFile(nodePath.join(workspace, "granted.txt")), "child");
  assert.equal(
    await Deno.readTextFile(nodePath.join(workspace, "child-session.txt")),
    "child again",
  );
  // The child's session grant is in its own grants.jsonl, not the parent's.
  const childGrants = await readJsonl(nodePath.join(child, "grants.jsonl"));
  const parentGrants = await readJsonl(nodePath.join(runDir, "grants.jsonl"));
  assert.deepEqual(childGrants.map((grant) => grant.scope), [[
    "write:<workspace>/child-session.txt",
  ]]);
  assert.deepEqual(parentGrants.map((grant) => grant.scope), [["write:<workspace>/granted.txt"]]);
});

Deno.test("without a person, a child's ask is pending in its own folder with who asked; a worker writes only when its dispatch names the tool", async () => {
  await using project = await createProject({
    config: {
      agents: {
        writer: {
          description: "Writes files",
          agent_type: "sub",
          model: { provider: "script", script: "writer.jsonl" },
        },
        worker: {
          description: "Writes a deliverable",
          agent_type: "worker",
          model: { provider: "script", script: "worker.jsonl" },
        },
      },
    },
    plan: [
      JSON.stringify({
        tool_calls: [{
          id: "create",
          name: "agent.task_create",
          arguments: { title: "t", steps: [{ id: "s", title: "s" }] },
        }],
      }),
      JSON.stringify({
        tool_calls: [
          {
            id: "child",
            name: "agent.create_sub_agent",
            arguments: { agent_id: "writer", task: "Write" },
          },
          {
            id: "asked",
            name: "agent.dispatch_worker",
            arguments: {
              agent_id: "worker",
              task_id: "task-1",
              allowed_tools: ["agent.task_*", "fs.write_file"],
            },
          },
          {
            id: "plain",
            name: "agent.dispatch_worker",
            arguments: { agent_id: "worker", task_id: "task-1" },
          },
        ],
      }),
      JSON.stringify({ content: "done" }),
    ],
  });
  await writePlans(project, {
    "writer.jsonl": [{ tool_calls: [write("w", "sub.txt", "x")] }, { content: "tried" }],
    "worker.jsonl": [
      { tool_calls: [write("w", "{{run.deliverables}}/out.txt", "x")] },
      { content: "tried" },
    ],
  });
  const code = await main(["run", "--config", project.configPath, "--non-interactive"], {
    stdout: () => {},
    stderr: () => {},
    stdoutIsTerminal: false,
    env: (name) => Deno.env.get(name),
    terminal: null,
  });
  // The child's ask nobody could answer is the run's: exit 3 (approval required).
  assert.equal(code, 3);
  const runDir = await onlyRunDir(project);
  const children = await childDirs(runDir);
  const writer = children.get("writer-1") as string;
  const [pending] = await readJsonl(nodePath.join(writer, "approvals", "pending.jsonl"));
  assert.deepEqual(pending?.agent, {
    agent_id: "writer-1",
    run_id: nodePath.basename(writer),
    parent_agent_id: "main",
    parent_run_id: nodePath.basename(runDir),
    parent_ids: [nodePath.basename(runDir)],
    role: "sub",
  });
  assert.equal(
    await Deno.stat(nodePath.join(project.sandbox.workspace, "sub.txt")).catch(() => null),
    null,
  );
  assert.equal(
    await Deno.stat(nodePath.join(runDir, "approvals", "pending.jsonl")).catch(() => null),
    null,
    "the child's pending approval is in its own folder only",
  );
  // The worker whose dispatch named fs.write_file wrote into its deliverables; the other got
  // tool_not_available and wrote nothing.
  const tools = async (agentId: string) =>
    await readJsonl(nodePath.join(children.get(agentId) as string, "logs", "tools.jsonl"));
  const results = new Map<string, unknown>();
  for (const agentId of ["worker-1", "worker-2"]) {
    const [line] = await tools(agentId);
    const result = line?.result as Line;
    results.set(agentId, result.ok === true ? "ok" : `${result.error_type}: ${result.summary}`);
  }
  const asked = (await readJsonl(nodePath.join(runDir, "events.jsonl")))
    .find((event) => event.type === "agent.started" && event.tool_call_id === "asked")?.agent_id;
  const plain = asked === "worker-1" ? "worker-2" : "worker-1";
  assert.equal(results.get(String(asked)), "ok");
  assert.match(String(results.get(plain)), /^tool_not_available: /);
  const written = (agentId: string) =>
    Deno.stat(nodePath.join(children.get(agentId) as string, "deliverables", "out.txt")).then(
      () => true,
      () => false,
    );
  assert.equal(await written(String(asked)), true);
  assert.equal(await written(plain), false);
});

Deno.test("a child's ask in CI makes the run exit 3 with its grant; the grant given to the next run covers the child", async () => {
  await using project = await createProject({
    config: {
      agents: {
        writer: {
          description: "Writes files",
          agent_type: "sub",
          model: { provider: "script", script: "writer.jsonl" },
        },
      },
    },
    plan: [
      JSON.stringify({
        tool_calls: [{
          id: "child",
          name: "agent.create_sub_agent",
          arguments: { agent_id: "writer", task: "Write" },
        }],
      }),
      JSON.stringify({ content: "done" }),
    ],
  });
  await writePlans(project, {
    "writer.jsonl": [{ tool_calls: [write("w", "notes.txt", "from the child")] }, {
      content: "tried",
    }],
  });
  const run = async (extra: string[]) => {
    let stderr = "";
    const code = await main(
      ["run", "--config", project.configPath, "--non-interactive", ...extra],
      {
        stdout: () => {},
        stderr: (text) => void (stderr += text),
        stdoutIsTerminal: false,
        env: (name) => Deno.env.get(name),
        terminal: null,
      },
    );
    return { code, stderr };
  };
  const first = await run([]);
  assert.equal(first.code, 3, first.stderr);
  const notes = nodePath.join(project.sandbox.workspace, "notes.txt");
  assert.equal(await Deno.stat(notes).catch(() => null), null);
  const runDirs = async () => await Array.fromAsync(Deno.readDir(project.runsDir));
  const [firstRun] = await runDirs();
  const child = (await childDirs(nodePath.join(project.runsDir, String(firstRun?.name))))
    .get("writer-1") as string;
  const [pending] = await readJsonl(nodePath.join(child, "approvals", "pending.jsonl"));
  const grant = JSON.stringify(pending?.grant);
  assert.match(first.stderr, /--approve/);
  // The grant names the root run's policy: the next run accepts it and its child inherits it.
  const second = await run(["--approve", grant]);
  assert.equal(second.code, 0, second.stderr);
  assert.equal(await Deno.readTextFile(notes), "from the child");
});
