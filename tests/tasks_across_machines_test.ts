/**
 * Issue 28's "Done when", end to end against a real PostgreSQL: a main run creates a 20-step task
 * in the shared store; four `kagent-run worker` processes share it (two on another runs folder,
 * as two machines would); one is SIGKILLed mid-step, another stopped mid-step (SIGSTOP, a paused
 * VM) and woken after its lease. Every step ends done exactly once, both held steps are claimed
 * again after their leases, the late worker's report is refused `conflict`, and every run folder
 * verifies (the killed one says incomplete, never tampered).
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";
import { PostgresTaskStore, type Step } from "../src/tasks/mod.ts";
import { exists } from "./_attack_helpers.ts";
import { verifyRun } from "../src/verify/mod.ts";
import {
  dropSchema,
  freshSchema,
  postgresIgnoreReason,
  requireDatabaseUrl,
  runSql,
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
  name: "four worker processes on two runs folders share a 20-step task; a killed and a paused " +
    "worker's steps are claimed again after their leases, and the late report is refused",
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
      // The planner: a main run (its own process) creates the task in the shared store. The
      // process gave up its net before the agent ran: only the store's Worker reached the database.
      const main = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--unstable-worker-options",
          "--allow-all",
          MAIN,
          "run",
          "--config",
          project.configPath,
          "--non-interactive",
        ],
        env: { [URL_ENV]: url, NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(main.code, 0, new TextDecoder().decode(main.stderr));
      assert.equal((await store.getTask("task-1")).steps.length, STEPS);
      const [plannerRun] = await runFolders(project.runsDir);
      const measured = (await readJsonl(nodePath.join(plannerRun as string, "events.jsonl")))
        .find((event) => event.type === "network_boundary.measured");
      assert.notEqual(measured?.main_thread_net, "granted");

      // Two slow workers claim a step each and start working: the victim (first runs folder) is
      // killed mid-step, the sleeper (second runs folder) is stopped mid-step, as a paused VM.
      const victim = startWorker(project.configPath, "slow", url);
      const sleeper = startWorker(configB, "slow", url);
      let held: Step[] = [];
      for (let waited = 0; held.length < 2; waited += 100) {
        assert.ok(waited < 90_000, "the slow workers never claimed two steps");
        await new Promise((resolve) => setTimeout(resolve, 100));
        held = await store.querySteps("task-1", { states: ["claimed"] });
      }
      const runDirOf = async (step: Step) => {
        const inA = nodePath.join(project.runsDir, step.owner_run_id as string);
        return await exists(inA) ? inA : nodePath.join(runsB, step.owner_run_id as string);
      };
      for (const step of held) {
        const events = nodePath.join(await runDirOf(step), "events.jsonl");
        for (let waited = 0;; waited += 100) {
          assert.ok(waited < 60_000, "a slow worker's command never started");
          const lines = await readJsonl(events).catch(() => []);
          if (lines.some((event) => event.type === "tool.started")) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      const killedStep = (await Promise.all(held.map(async (step) =>
        nodePath.dirname(await runDirOf(step)) === project.runsDir ? step : null
      ))).find((step) =>
        step !== null
      ) as Step;
      const stoppedStep = held.find((step) =>
        step.id !== killedStep.id
      ) as Step;
      const victimRunDir = await runDirOf(killedStep);
      const sleeperRunDir = await runDirOf(stoppedStep);
      victim.kill("SIGKILL");
      sleeper.kill("SIGSTOP");
      assert.equal((await victim.output()).signal, "SIGKILL");

      // Two more workers, one on each runs folder; they claim the two held steps after the leases.
      const workers = [
        startWorker(project.configPath, "worker", url),
        startWorker(configB, "worker", url),
      ];
      const outputs = await Promise.all(workers.map((worker) => worker.output()));
      const decoder = new TextDecoder();
      for (const output of outputs) {
        assert.equal(output.code, 0, decoder.decode(output.stderr));
      }
      // The sleeper wakes up late: its renewal and its report name fencing token 1, refused.
      sleeper.kill("SIGCONT");
      const woken = await sleeper.output();
      assert.equal(woken.code, 1, decoder.decode(woken.stderr));
      assert.match(decoder.decode(woken.stderr), /was superseded by claim 2/);
      const reported = (await readJsonl(nodePath.join(sleeperRunDir, "events.jsonl")))
        .find((event) => event.type === "task.step_reported") as Record<string, unknown>;
      assert.equal(reported.accepted, false);
      assert.equal((reported.refused as { code: string }).code, "conflict");

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

      // Both held steps were claimed again after their leases, with the next fencing token, and
      // keep the new owner's result.
      for (const held of [killedStep, stoppedStep]) {
        const again = task.steps.find((step) => step.id === held.id);
        assert.equal(again?.fencing_token, 2, held.id);
        assert.notEqual(again?.owner_run_id, held.owner_run_id);
        assert.equal(again?.owner, "worker");
        assert.match(again?.result ?? "", /^Done by /);
      }

      // Every run folder verifies; the killed worker's says incomplete (never tampered).
      for (const folder of folders) {
        const report = await verifyRun(folder);
        const expected = folder === victimRunDir ? "incomplete" : "verified";
        assert.equal(report.verdict, expected, `${folder}: ${JSON.stringify(report.problems)}`);
      }

      // task show names each step's owner run and machine.
      const shown = await runCli(["task", "show", "task-1", "--config", configB], {
        env: { [URL_ENV]: url },
      });
      assert.equal(shown.code, 0, shown.stderr);
      const again = task.steps.find((step) => step.id === killedStep.id);
      assert.match(
        shown.stdout,
        new RegExp(
          `${killedStep.id}: done; owner worker \\(run ${again?.owner_run_id}, machine \\S+\\); ` +
            "fencing token 2",
        ),
      );

      // The store against the sealed reports: as it is, every report matches; a step's owner,
      // state and result rewritten in the database after the run are found (exit 6).
      const runsFlags = ["--runs", project.runsDir, "--runs", runsB];
      const clean = await runCli(["task", "verify", "task-1", "--config", configB, ...runsFlags], {
        env: { [URL_ENV]: url },
      });
      assert.equal(clean.code, 0, clean.stdout + clean.stderr);
      assert.match(clean.stdout, new RegExp(`^verified: ${STEPS} sealed step reports`, "m"));
      const forged = task.steps.find((step) => step.fencing_token === 1) as Step;
      await runSql(
        url,
        `UPDATE "${schema}".steps SET owner = 'mallory', state = 'failed', result = 'forged'
         WHERE task_id = 'task-1' AND id = $1`,
        [forged.id],
      );
      const caught = await runCli(["task", "verify", "task-1", "--config", configB, ...runsFlags], {
        env: { [URL_ENV]: url },
      });
      assert.equal(caught.code, 6, caught.stdout + caught.stderr);
      assert.match(caught.stdout, new RegExp(`step ${forged.id}: the store says owner "mallory"`));
      assert.match(caught.stdout, new RegExp(`step ${forged.id}: the store says result "forged"`));
    } finally {
      await store.close();
      await dropSchema(url, schema);
    }
  },
});
