import assert from "node:assert/strict";
import { Redactor } from "../audit/mod.ts";
import { type AgentType, EffectivePolicy } from "../policy/mod.ts";
import { NO_TARGETS } from "../policy/policy_rule.ts";
import type { ToolOutcome } from "../result/mod.ts";
import { describeTool, ToolRegistry } from "../tools/mod.ts";
import {
  changesTaskStore,
  SqliteTaskStore,
  type StepUpdate,
  type Task,
  TASK_TOOL_NAMES,
  taskToolDefinitions,
  TaskTools,
} from "./mod.ts";
import { CHILD_TASK_TOOL_NAMES } from "./task_tool_definitions.ts";
import { TASK_EXAMPLE } from "./templates.ts";

/** A store on a new file, with TaskTools for any agent, all removed afterwards. */
async function withTools(
  body: (
    as: (agent: string, type?: AgentType) => TaskTools,
    store: SqliteTaskStore,
    folder: string,
  ) => Promise<void>,
  redactor?: Redactor,
): Promise<void> {
  const folder = await Deno.makeTempDir({ prefix: "kagent-task-tools-" });
  const store = new SqliteTaskStore(`${folder}/tasks.sqlite`);
  const as = (agent: string, type: AgentType = agent === "main" ? "main" : "worker") =>
    new TaskTools(
      store,
      { agent_id: agent, agent_type: type, run_id: `run-${agent}` },
      redactor === undefined ? {} : { redactor },
    );
  try {
    await body(as, store, folder);
  } finally {
    await store.close();
    await Deno.remove(folder, { recursive: true });
  }
}

const call = (tools: TaskTools, name: string, args: Record<string, unknown> = {}) =>
  tools.execute(name, "call-1", args, undefined);

function failed(outcome: ToolOutcome, type: string): string {
  assert.equal(outcome.ok, false, outcome.output);
  assert.equal(outcome.error?.type, type, outcome.output);
  return outcome.error?.message ?? "";
}

const THREE_STEPS = {
  title: "Report",
  steps: [
    { id: "count", title: "Count the files" },
    { id: "sizes", title: "Measure the files" },
    { id: "write", title: "Write the report", depends_on: ["count", "sizes"] },
  ],
};

Deno.test("the task tools register within the schema subset: readonly, tagged, the changing ones not idempotent", () => {
  const registry = new ToolRegistry();
  for (const definition of taskToolDefinitions()) registry.register(definition);
  assert.deepEqual(registry.list().map((tool) => tool.definition.name), [...TASK_TOOL_NAMES]);
  for (const { definition } of registry.list()) {
    assert.equal(definition.permission, "readonly", definition.name);
    assert.ok(definition.tags.includes("agent"), definition.name);
    assert.equal(definition.annotations.idempotent, !changesTaskStore(definition.name));
    assert.equal(definition.annotations.risk_level, changesTaskStore(definition.name) ? 1 : 0);
    assert.throws(() => definition.handler({}, {} as never), /runs on the main thread/);
  }
  assert.deepEqual(
    TASK_TOOL_NAMES.filter((name) => !changesTaskStore(name)),
    [
      "agent.plan_template",
      "agent.task_template",
      "agent.task_get",
      "agent.task_list",
      "agent.task_query_steps",
    ],
  );
  // The template's example is valid arguments (the registry's own validator)…
  const create = registry.get("agent.task_create");
  assert.equal(create?.validate(structuredClone(TASK_EXAMPLE)), true);
  // …and an unknown key is not (near miss of the same arguments).
  assert.equal(create?.validate({ ...TASK_EXAMPLE, owner: "me" }), false);
});

Deno.test("the default policy lets the main agent call every task tool without asking", () => {
  const policy = EffectivePolicy.compute({
    tools: taskToolDefinitions().map(describeTool),
    workspace: "/w/project",
    configRules: [],
    configSource: null,
    sandbox: {},
  });
  for (const definition of taskToolDefinitions()) {
    const decision = policy.decide(describeTool(definition), NO_TARGETS);
    assert.equal(decision.decision, "allow", `${definition.name}: ${decision.reason}`);
  }
});

Deno.test("the task template's example creates a task; the plan template names its sections", async () => {
  await withTools(async (as) => {
    const main = as("main");
    const template = await call(main, "agent.task_template");
    assert.ok(template.ok);
    const example = (template.data as { example: Record<string, unknown> }).example;
    const created = await call(main, "agent.task_create", structuredClone(example));
    assert.ok(created.ok, created.output);
    const plan = await call(main, "agent.plan_template");
    assert.match(plan.output, /## Steps/);
    assert.deepEqual((plan.data as { sections: string[] }).sections.at(-1), "Verification");
  });
});

Deno.test("two workers share a task: claims never collide, reports make steps ready, the creator completes it", async () => {
  await withTools(async (as) => {
    const main = as("main");
    const [first, second] = [as("worker-1"), as("worker-2")];
    const created = await call(main, "agent.task_create", THREE_STEPS);
    assert.ok(created.ok, created.output);
    assert.match(
      created.summary,
      /^Created task task-1 "Report" \(open, created by main\): 1 pending, 2 ready$/,
    );
    assert.match(created.output, /- write \[pending\] Write the report \(after count, sizes\)/);
    const ready = await call(first, "agent.task_query_steps", {
      task_id: "task-1",
      states: ["ready"],
    });
    assert.deepEqual((ready.data as { steps: { id: string }[] }).steps.map((step) => step.id), [
      "count",
      "sizes",
    ]);
    const claimed = await call(first, "agent.task_claim_step", {
      task_id: "task-1",
      step_id: "count",
    });
    assert.ok(claimed.ok, claimed.output);
    assert.match(claimed.output, /agent\.task_update_step/);
    const collision = await call(second, "agent.task_claim_step", {
      task_id: "task-1",
      step_id: "count",
    });
    assert.match(failed(collision, "state_conflict"), /already claimed by "worker-1"/);
    const next = await call(second, "agent.task_claim_step", { task_id: "task-1" });
    assert.equal((next.data as { step: { id: string } }).step.id, "sizes");
    // worker-2 cannot report worker-1's step, and the step is unchanged.
    const stolen = await call(second, "agent.task_update_step", {
      task_id: "task-1",
      step_id: "count",
      state: "done",
      result: "42",
    });
    assert.match(
      failed(stolen, "not_owner"),
      /claimed by "worker-1" \(run "[^"]+"\), not by "worker-2"/,
    );
    const mine = await call(first, "agent.task_query_steps", { task_id: "task-1", mine: true });
    assert.equal((mine.data as { steps: { state: string }[] }).steps[0]?.state, "claimed");
    const counted = await call(first, "agent.task_update_step", {
      task_id: "task-1",
      step_id: "count",
      state: "done",
      result: "12 files",
    });
    assert.ok(counted.ok);
    assert.deepEqual((counted.data as StepUpdate).became_ready, []);
    const sized = await call(second, "agent.task_update_step", {
      task_id: "task-1",
      step_id: "sizes",
      state: "done",
      result: "3 MB",
    });
    assert.match(sized.output, /Now ready: write\./);
    failed(await call(main, "agent.task_complete", { task_id: "task-1" }), "state_conflict");
    await call(first, "agent.task_claim_step", { task_id: "task-1" });
    const written = await call(first, "agent.task_update_step", {
      task_id: "task-1",
      step_id: "write",
      state: "done",
      result: "report.md",
    });
    assert.match(written.output, /Every step is done/);
    const got = await call(main, "agent.task_get", { task_id: "task-1" });
    assert.match(got.output, /- count \[done by worker-1\] Count the files\n {4}result: 12 files/);
    const completed = await call(main, "agent.task_complete", { task_id: "task-1", summary: "ok" });
    assert.equal((completed.data as { task: Task }).task.state, "completed");
    const listed = await call(main, "agent.task_list", { states: ["completed"] });
    assert.match(listed.output, /^Task task-1 "Report" \(completed, created by main\): 3 done$/);
  });
});

Deno.test("a worker cannot create, change or close a task: tool_not_available, the store unchanged", async () => {
  await withTools(async (as, store) => {
    const worker = as("worker-1");
    for (const name of ["agent.task_create", "agent.plan_template", "agent.task_cancel"]) {
      const refused = await call(worker, name, name === "agent.task_create" ? THREE_STEPS : {});
      assert.match(failed(refused, "tool_not_available"), /as a worker agent/);
    }
    failed(
      await call(as("fork-1", "fork"), "agent.task_update", { task_id: "task-1" }),
      "tool_not_available",
    );
    assert.deepEqual(await store.listTasks(), []);
    // Near miss: the main agent creates it, and the worker reads it with a child's tool.
    assert.ok((await call(as("main"), "agent.task_create", THREE_STEPS)).ok);
    assert.ok((await call(worker, "agent.task_get", { task_id: "task-1" })).ok);
    assert.deepEqual([...CHILD_TASK_TOOL_NAMES], [
      "agent.task_get",
      "agent.task_query_steps",
      "agent.task_claim_step",
      "agent.task_update_step",
    ]);
    // Another main-type agent is still not the creator.
    failed(
      await call(as("main-2", "main"), "agent.task_cancel", { task_id: "task-1" }),
      "not_owner",
    );
  });
});

Deno.test("bad arguments, cycles, unknown tasks, an abort and a closed store are failed outcomes", async () => {
  await withTools(async (as, store) => {
    const main = as("main");
    const extra = await call(main, "agent.task_get", { task_id: "task-1", verbose: true });
    assert.match(failed(extra, "invalid_arguments"), /do not fit its schema/);
    const cycle = await call(main, "agent.task_create", {
      title: "Loop",
      steps: [{ id: "a", title: "A", depends_on: ["b"] }, {
        id: "b",
        title: "B",
        depends_on: ["a"],
      }],
    });
    assert.match(failed(cycle, "invalid_arguments"), /form a cycle \(a → b → a\)/);
    assert.deepEqual(cycle.error?.details.cycle, ["a", "b", "a"]);
    assert.match(
      failed(await call(main, "agent.task_get", { task_id: "task-7" }), "not_found"),
      /task-7/,
    );
    const controller = new AbortController();
    controller.abort();
    const aborted = await main.execute(
      "agent.task_create",
      "call-2",
      THREE_STEPS,
      controller.signal,
    );
    failed(aborted, "aborted");
    assert.deepEqual(await store.listTasks(), []);
    failed(await call(main, "fs.read_file", {}), "tool_not_available");
    await store.close();
    failed(await call(main, "agent.task_list"), "io_error");
  });
});

Deno.test("a secret written into a step result never reaches the store file (near miss: plain text does)", async () => {
  const secret = "kagent-canary-4f1d9c2b7e";
  const redactor = new Redactor({ secrets: [secret] });
  await withTools(async (as, store, folder) => {
    const worker = as("worker-1");
    await call(as("main"), "agent.task_create", THREE_STEPS);
    await call(worker, "agent.task_claim_step", { task_id: "task-1", step_id: "count" });
    const reported = await call(worker, "agent.task_update_step", {
      task_id: "task-1",
      step_id: "count",
      state: "done",
      result: `found the token ${secret} in .env; plain-marker-7731`,
    });
    assert.ok(reported.ok);
    await store.close();
    let bytes = "";
    for await (const entry of Deno.readDir(folder)) {
      bytes += new TextDecoder().decode(await Deno.readFile(`${folder}/${entry.name}`));
    }
    assert.ok(!bytes.includes(secret), "the secret is absent from tasks.sqlite and its WAL");
    assert.ok(bytes.includes("plain-marker-7731"), "the rest of the result is stored");
  }, redactor);
});

Deno.test("a claim through the tool keeps its lease while the agent works; released, it runs out", async () => {
  const folder = await Deno.makeTempDir({ prefix: "kagent-task-tools-" });
  const store = new SqliteTaskStore(`${folder}/tasks.sqlite`, { leaseMs: 300 });
  const tool = (agent: string) =>
    new TaskTools(store, { agent_id: agent, agent_type: "worker", run_id: `run-${agent}` }, {
      renewMs: 50,
    });
  try {
    const { id } = await store.createTask({ agent_id: "main", run_id: "run-main" }, {
      title: "Leases",
      steps: [{ id: "a", title: "A" }],
    });
    const holder = tool("worker-1");
    const claimed = await holder.execute("agent.task_claim_step", "c", { task_id: id }, undefined);
    assert.ok(claimed.ok, JSON.stringify(claimed));
    // Three lease lengths later the renewals still hold the step.
    await new Promise((resolve) => setTimeout(resolve, 900));
    const other = await tool("worker-2").execute(
      "agent.task_claim_step",
      "c2",
      { task_id: id, step_id: "a" },
      undefined,
    );
    assert.equal(other.ok, false);
    // Near miss: once the holder stops renewing (its run ended), the lease runs out.
    holder.releaseLeases();
    await new Promise((resolve) => setTimeout(resolve, 400));
    const again = await store.claimStep({ agent_id: "worker-2", run_id: "run-worker-2" }, id);
    assert.deepEqual([again.id, again.fencing_token], ["a", 2]);
    // The first holder's late report is refused: the step has a new owner, who keeps it.
    const late = await holder.execute("agent.task_update_step", "u", {
      task_id: id,
      step_id: "a",
      state: "done",
      result: "late",
    }, undefined);
    assert.match(failed(late, "not_owner"), /claimed by "worker-2"/);
    assert.equal((await store.getTask(id)).steps[0]?.owner, "worker-2");
  } finally {
    await store.close();
    await Deno.remove(folder, { recursive: true });
  }
});
