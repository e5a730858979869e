/**
 * Issue 28's "Done when", end to end against a real PostgreSQL: a main run creates a 20-step task
 * in the shared store; four `kagent-run worker` processes share it (two with another runs folder,
 * as two machines would); one is SIGKILLed mid-step. Every step ends done exactly once, the killed
 * step is claimed again after its lease, the dead worker's late report is refused `conflict`, and
 * every run folder verifies (the killed one says incomplete, never tampered).
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";
import { PostgresTaskStore, TaskStoreError } from "../src/tasks/mod.ts";
import { verifyRun } from "../src/verify/mod.ts";
import {
  dropSchema,
  freshSchema,
  postgresIgnoreReason,
  requireDatabaseUrl,
} from "../src/tasks/_postgres_test_support.ts";
import { createProject, readJsonl, runCli } from "./_cli_helpers.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const STEPS = 20;
const LEASE_MS = 1_500;
const URL_ENV = "KAGENT_TASKS_DATABASE_URL";

/** Starts `kagent-run worker` as its own process. */
function startWorker(configPath: string, agent: string, url: string): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--unstable-worker-options",
      "--allow-all",
      MAIN,
      "worker",
      "--config",
      configPath,
      "--task",
      "task-1",
      "--agent",
      agent,
      "--non-interactive",
    ],
    env: { [URL_ENV]: url, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Every run folder under `runsDir`. */
async function runFolders(runsDir: string): Promise<string[]> {
  const folders: string[] = [];
  for await (const entry of Deno.readDir(runsDir)) {
    if (entry.isDirectory) folders.push(nodePath.join(runsDir, entry.name));
  }
  return folders.sort();
}

Deno.test({
  name: "four worker processes on two runs folders share a 20-step task; a killed worker's step " +
    "is claimed again after its lease and its late report is refused",
  ignore: postgresIgnoreReason() !== false,
  fn: async () => {
    const url = requireDatabaseUrl();
    const schema = freshSchema("machines");
    const config = {
      agents: {
        worker: {
          description: "Does one step",
          agent_type: "worker",
          model: { provider: "script", script: "worker.jsonl" },
        },
        slow: {
          description: "Works a step for a long time (and is killed)",
          agent_type: "worker",
          model: { provider: "script", script: "slow.jsonl" },
          allowed_tools: ["exec.run_command"],
        },
      },
      commands: ["sleep"],
      tasks: {
        store: { kind: "postgres", url_env: URL_ENV, schema },
        lease_ms: LEASE_MS,
        renew_ms: 300,
      },
    };
    const steps = Array.from({ length: STEPS }, (_, index) => ({
      id: `s${index + 1}`,
      title: `Step ${index + 1}`,
    }));
    await using project = await createProject({
      config,
      plan: [
        JSON.stringify({
          tool_calls: [{
            id: "create",
            name: "agent.task_create",
            arguments: { title: "Twenty steps", steps },
          }],
        }),
        JSON.stringify({ content: "Created {{create.data.task.id}}" }),
      ],
      permissions: {
        rules: [{
          id: "sleep",
          tools: ["exec.run_command"],
          commands: ["sleep"],
          decision: "allow",
        }],
      },
    });
    const dir = project.configDir;
    await Deno.writeTextFile(
      nodePath.join(dir, "worker.jsonl"),
      JSON.stringify({ content: "Done by {{run.id}}" }) + "\n",
    );
    await Deno.writeTextFile(
      nodePath.join(dir, "slow.jsonl"),
      [
        JSON.stringify({
          tool_calls: [{
            id: "work",
            name: "exec.run_command",
            arguments: { argv: ["sleep", "8"] },
          }],
        }),
        JSON.stringify({ content: "never reached" }),
      ].join("\n") + "\n",
    );
    // The second machine: the same config, another runs folder.
    const configB = nodePath.join(dir, "machine_b.jsonc");
    const written = JSON.parse(await Deno.readTextFile(project.configPath));
    await Deno.writeTextFile(configB, JSON.stringify({ ...written, runs_dir: "../runs-b" }));
    const runsB = nodePath.join(nodePath.dirname(project.runsDir), "runs-b");
    const store = await PostgresTaskStore.open({ url, schema });
    try {
      // The planner: a main run creates the task in the shared store.
      const main = await runCli(["run", "--config", project.configPath, "--non-interactive"], {
        env: { [URL_ENV]: url },
      });
      assert.equal(main.code, 0, main.stderr);
      assert.equal((await store.getTask("task-1")).steps.length, STEPS);

      // The victim claims a step and starts working; it is killed mid-step.
      const victim = startWorker(project.configPath, "slow", url);
      let claimed = null;
      for (let waited = 0; claimed === null; waited += 100) {
        assert.ok(waited < 60_000, "the slow worker never claimed a step");
        await new Promise((resolve) => setTimeout(resolve, 100));
        claimed = (await store.querySteps("task-1", { states: ["claimed"] }))[0] ?? null;
      }
      const victimRunDir = nodePath.join(project.runsDir, claimed.owner_run_id as string);
      for (let waited = 0;; waited += 100) {
        assert.ok(waited < 60_000, "the slow worker's command never started");
        const events = await readJsonl(nodePath.join(victimRunDir, "events.jsonl")).catch(() => []);
        if (events.some((event) => event.type === "tool.started")) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      victim.kill("SIGKILL");
      const victimStatus = await victim.output();
      assert.equal(victimStatus.signal, "SIGKILL");

      // Three more workers, one on the first machine's runs folder and two on the second's.
      const workers = [
        startWorker(project.configPath, "worker", url),
        startWorker(configB, "worker", url),
        startWorker(configB, "worker", url),
      ];
      const outputs = await Promise.all(workers.map((worker) => worker.output()));
      const decoder = new TextDecoder();
      for (const output of outputs) {
        assert.equal(output.code, 0, decoder.decode(output.stderr));
      }

      // Every step done, exactly once: one accepted report per step over all run folders.
      const task = await store.getTask("task-1");
      assert.deepEqual(task.steps.map((step) => step.state), Array(STEPS).fill("done"));
      const folders = [...await runFolders(project.runsDir), ...await runFolders(runsB)];
      const accepted: string[] = [];
      for (const folder of folders) {
        const events = await readJsonl(nodePath.join(folder, "events.jsonl"));
        for (const event of events) {
          if (event.type === "task.step_reported" && event.accepted === true) {
            accepted.push(String(event.step_id));
          }
        }
      }
      assert.deepEqual(accepted.sort(), steps.map((step) => step.id).sort());
      // Both machines' runs folders did work.
      assert.ok((await runFolders(runsB)).length > 0);

      // The killed step was claimed again after its lease, with the next fencing token.
      const again = task.steps.find((step) => step.id === claimed.id);
      assert.equal(again?.fencing_token, 2);
      assert.notEqual(again?.owner_run_id, claimed.owner_run_id);
      assert.equal(again?.owner, "worker");

      // The dead worker wakes up late: its report under its old token is refused.
      const late = await store.updateStep(
        { agent_id: "slow", run_id: claimed.owner_run_id as string },
        "task-1",
        claimed.id,
        { state: "done", result: "late", fencing_token: 1 },
      ).then(() => null, (error) => error);
      assert.ok(late instanceof TaskStoreError && late.code === "conflict", String(late));
      assert.equal(
        (await store.getTask("task-1")).steps.find((s) => s.id === claimed.id)?.result?.startsWith(
          "Done by",
        ),
        true,
      );

      // Every run folder verifies; the killed worker's says incomplete (never tampered).
      for (const folder of folders) {
        const report = await verifyRun(folder);
        if (folder === victimRunDir) assert.equal(report.verdict, "incomplete", folder);
        else {assert.equal(
            report.verdict,
            "verified",
            `${folder}: ${JSON.stringify(report.problems)}`,
          );}
      }

      // task show names each step's owner run and machine.
      const shown = await runCli(["task", "show", "task-1", "--config", configB], {
        env: { [URL_ENV]: url },
      });
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(
        shown.stdout,
        new RegExp(
          `${claimed.id}: done; owner worker \\(run ${again?.owner_run_id}, machine \\S+\\); fencing token 2`,
        ),
      );
    } finally {
      await store.close();
      await dropSchema(url, schema);
    }
  },
});
