// A child agent's call that waited for an approval (issue 26): the root run ends exit 3 with the
// child's grant; `kagent-run resume --approve-pending` finds that grant in the child's folder, runs
// the root's agent call again first (its new child gets the grant through the root), and the model
// goes on to exit 0; the joined run verifies. Near miss: a resume without the grant refuses the
// child's write again and ends exit 3.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { createProject, onlyRunDir, readJsonl, runCli } from "./_cli_helpers.ts";

const CHILD_PLAN = [
  {
    tool_calls: [{
      id: "w",
      name: "fs.write_file",
      arguments: { path: "child.txt", content: "ok" },
    }],
  },
  { content: "{{w.summary}}" },
];

const ROOT_PLAN = [
  {
    tool_calls: [{
      id: "start-writer",
      name: "agent.create_sub_agent",
      arguments: { agent_id: "writer", task: "Write child.txt" },
    }],
  },
  { content: "The writer is done." },
  { content: "After the resume: {{start-writer.summary}}" },
];

async function project(rootPlan = ROOT_PLAN) {
  const created = await createProject({
    config: {
      agents: {
        writer: {
          description: "Writes files",
          agent_type: "sub",
          model: { provider: "script", script: "writer.jsonl" },
        },
      },
    },
    plan: rootPlan.map((turn) => JSON.stringify(turn)),
  });
  await Deno.writeTextFile(
    nodePath.join(created.configDir, "writer.jsonl"),
    CHILD_PLAN.map((turn) => JSON.stringify(turn)).join("\n") + "\n",
  );
  return created;
}

Deno.test("a child agent's waiting call: resume --approve-pending runs the agent call again first and the run goes on", async () => {
  await using created = await project();
  const written = nodePath.join(created.sandbox.workspace, "child.txt");
  const first = await runCli(["run", "--config", created.configPath, "--non-interactive"]);
  assert.equal(first.code, 3, first.stderr);
  await assert.rejects(Deno.stat(written), Deno.errors.NotFound);
  const runDir = await onlyRunDir(created);
  // The root's own pending list is empty: the grant is in the child's folder alone.
  const rootPending = await Deno.readTextFile(nodePath.join(runDir, "approvals/pending.jsonl"))
    .catch(() => "");
  assert.equal(rootPending.trim(), "");

  const resumed = await runCli(["resume", runDir, "--approve-pending"]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(await Deno.readTextFile(written), "ok");
  assert.match(resumed.stdout, /After the resume: sub agent writer-\d+ .* ended completed/);

  const events = await readJsonl(nodePath.join(runDir, "events.jsonl"));
  const resumedEvent = events.find((event) => event.type === "run.resumed");
  assert.deepEqual(resumedEvent?.rerun, ["start-writer"]);
  // Two children: the first waited, the second (the re-run) wrote with the root's grant.
  const children = events.filter((event) => event.type === "agent.started");
  assert.equal(children.length, 2);
  const second = nodePath.join(runDir, "agents", String(children[1]?.child_run_id));
  const childEvents = await readJsonl(nodePath.join(second, "events.jsonl"));
  assert.ok(
    childEvents.some((event) =>
      event.type === "approval.granted" && event.tool_call_id === "w" &&
      event.source === "parent_grant"
    ),
    JSON.stringify(childEvents.filter((event) => String(event.type).startsWith("approval"))),
  );
  const verified = await runCli(["verify", runDir]);
  assert.equal(verified.code, 0, verified.stdout);
});

Deno.test("near miss: a resume without the child's grant refuses its write again and ends exit 3", async () => {
  await using created = await project([
    ...ROOT_PLAN.slice(0, 2),
    { content: "Still waiting for the writer." },
  ]);
  const first = await runCli(["run", "--config", created.configPath, "--non-interactive"]);
  assert.equal(first.code, 3, first.stderr);
  const runDir = await onlyRunDir(created);
  const resumed = await runCli(["resume", runDir]);
  assert.equal(resumed.code, 3, resumed.stderr);
  assert.match(resumed.stderr, /--approve '/);
  await assert.rejects(
    Deno.stat(nodePath.join(created.sandbox.workspace, "child.txt")),
    Deno.errors.NotFound,
  );
  const events = await readJsonl(nodePath.join(runDir, "events.jsonl"));
  assert.deepEqual(events.find((event) => event.type === "run.resumed")?.rerun, ["start-writer"]);
});
