/**
 * `kagent-run worker` and `kagent-run task show` refuse what cannot work, saying what to set
 * (issue 28); the full story against a database is tests/tasks_across_machines_test.ts.
 */

import assert from "node:assert/strict";
import { SqliteTaskStore } from "../src/tasks/mod.ts";
import { createProject, runCli } from "./_cli_helpers.ts";

const WORKER_AGENT = {
  worker: {
    description: "Does one step",
    agent_type: "worker",
    model: { provider: "script", script: "plan.jsonl" },
  },
};

Deno.test("kagent-run worker refuses a missing --task, a run-folder store and an unset URL variable, each with exit 2", async () => {
  await using sqlite = await createProject({ config: { agents: WORKER_AGENT }, plan: ["{}"] });
  const noTask = await runCli(["worker", "--config", sqlite.configPath]);
  assert.equal(noTask.code, 2);
  assert.match(noTask.stderr, /--task is missing/);
  const local = await runCli(["worker", "--config", sqlite.configPath, "--task", "task-1"]);
  assert.equal(local.code, 2);
  assert.match(local.stderr, /workers on other machines need a shared store: set tasks\.store/);
  await using shared = await createProject({
    config: {
      agents: WORKER_AGENT,
      tasks: { store: { kind: "postgres", url_env: "KAGENT_NO_SUCH_TASKS_URL" } },
    },
    plan: ["{}"],
  });
  const unset = await runCli(["worker", "--config", shared.configPath, "--task", "task-1"], {
    env: { KAGENT_NO_SUCH_TASKS_URL: "" },
  });
  assert.equal(unset.code, 2);
  assert.match(unset.stderr, /the variable "KAGENT_NO_SUCH_TASKS_URL" \(tasks\.store\.url_env\)/);
  const wrongAgent = await runCli([
    "worker",
    "--config",
    shared.configPath,
    "--task",
    "task-1",
    "--agent",
    "nobody",
  ]);
  assert.equal(wrongAgent.code, 2);
  assert.match(
    wrongAgent.stderr,
    /has no agents\.nobody of agent_type "worker" \(workers: worker\)/,
  );
  // Near miss: the help is printed, exit 0.
  const help = await runCli(["worker", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Usage: kagent-run worker --config FILE --task TASK_ID/);
});

Deno.test("kagent-run task show reads a run folder's tasks.sqlite and names an unknown task", async () => {
  await using project = await createProject();
  const runDir = await Deno.makeTempDir({ prefix: "kagent-task-show-" });
  try {
    const store = new SqliteTaskStore(`${runDir}/tasks.sqlite`);
    const { id } = await store.createTask({ agent_id: "main", run_id: "run-main" }, {
      title: "Show me",
      steps: [{ id: "a", title: "A" }, { id: "b", title: "B", depends_on: ["a"] }],
    });
    await store.claimStep({ agent_id: "worker", run_id: "run-w", machine: "host-a" }, id);
    await store.close();
    const shown = await runCli([
      "task",
      "show",
      id,
      "--config",
      project.configPath,
      "--run",
      runDir,
    ]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^Task task-1 "Show me" \(open, created by main in run run-main\)/);
    assert.match(
      shown.stdout,
      /a: claimed; owner worker \(run run-w, machine host-a\); fencing token 1; lease until /,
    );
    assert.match(shown.stdout, /b: pending; after a\n/);
    const missing = await runCli(["task", "show", "task-9", "--run", runDir]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /Cannot find task "task-9"/);
  } finally {
    await Deno.remove(runDir, { recursive: true });
  }
});
