/**
 * `kagent-run [run] --config F [--task T] [--workspace DIR] [--non-interactive] [--quiet]`: runs
 * an agent with the config's model, prints a line per tool call on stderr and a summary at the end.
 *
 * @module
 */

import { programWords } from "./launch_form.ts";
import {
  checkAnswer,
  exitWithAnswer,
  type OutputSchema,
  readOutputSchema,
} from "./_output_schema.ts";
import { countResults } from "../runtime/mod.ts";
import { type AssembledRun, assembleRun } from "../assembly/mod.ts";
import { mainAgentTools } from "../child_agents/mod.ts";
import { TokenBudget } from "../agent/mod.ts";
import { displayRunDir } from "./display_run_dir.ts";
import { publishRunEnd } from "./_run_end.ts";
import type { LoadedConfig } from "../config/mod.ts";
import type { NetworkGateway } from "../network/mod.ts";
import { withRunBoundary } from "./_run_boundary.ts";
import { painter, type Tone } from "./_colour.ts";
import type { ToolResult } from "../result/mod.ts";
import { Redactor } from "../audit/mod.ts";
import { checkStepSummary } from "./_step_summary.ts";
import { writeReportAtEnd } from "./_run_report.ts";
import {
  APPROVAL_OPTIONS,
  approverFor,
  type CommandIo,
  EXIT,
  grantsFromOptions,
  guarded,
  loadConfigFromOptions,
  parseOptions,
  printPendingGrants,
  runExitCode,
  UsageError,
} from "./_common.ts";
import type { TaskStore } from "../tasks/mod.ts";
import { progressLine, RunFeed } from "./_run_feed.ts";
import { applyRunOverrides, outputFormat, readTask } from "./_run_options.ts";
import { checkGithubOutput } from "./_github_output.ts";
import { RUN_HELP } from "./_run_help.ts";
import type { ResumePlan } from "./_resume_plan.ts";
import { cliRunServices } from "./_run_services.ts";

/** Runs the `run` command. @returns the exit status. */
export function runCommand(args: string[], io: CommandIo): Promise<number> {
  return guarded(io, async () => {
    const { values, positionals } = parseOptions("run", args, {
      config: { type: "string" },
      task: { type: "string" },
      "task-file": { type: "string" },
      output: { type: "string" },
      "output-schema": { type: "string" },
      workspace: { type: "string" },
      "mcp-config": { type: "string" },
      "runs-dir": { type: "string" },
      model: { type: "string" },
      "max-turns": { type: "string" },
      ...APPROVAL_OPTIONS,
      quiet: { type: "boolean" },
      report: { type: "boolean" },
    });
    if (values.help) {
      io.stdout(RUN_HELP);
      return EXIT.ok;
    }
    const output = outputFormat(values);
    const outputSchema = await readOutputSchema(values);
    const config = applyRunOverrides(await loadConfigFromOptions(values), values);
    if (config.model === null) {
      throw new UsageError(
        `Cannot run an agent with config "${config.configPath}": it has no "model"; add for example {"provider": "script", "script": "plan.jsonl"}`,
      );
    }
    const { text: task, fromStdin } = await readTask(values, positionals, config, io);
    // Standard input held the task: nobody can answer an approval there.
    if (fromStdin) values["non-interactive"] = true;
    if (task === null || task.trim() === "") {
      throw new UsageError(
        `Cannot run an agent with config "${config.configPath}": there is no task; give it as an argument, with --task, on standard input or as "task"`,
      );
    }
    return await withRunBoundary(
      config,
      io,
      output,
      (gateway, sharedTasks) =>
        runInBoundary({ config, task, values, args, outputSchema, resume: null }, io, {
          gateway,
          sharedTasks,
        }),
    );
  });
}

type RunOptionValues = Record<string, string | boolean | undefined>;

/** What `run` (or `resume`) was asked to do. */
export interface RunCommandRequest {
  /** The loaded config, with the command's overrides; its `model` is set. */
  config: LoadedConfig;
  /** The task (for a resume: the run's original task, for the memory recall and the reports). */
  task: string;
  /** The parsed options (`--approve`, `--quiet`, `--output`, `--report`…). */
  values: RunOptionValues;
  /** The command's arguments: a pending approval's replay re-runs them with its grant. */
  args: readonly string[];
  /** `--output-schema`, or null. */
  outputSchema: OutputSchema | null;
  /** The sealed run that goes on as its next segment (`kagent-run resume`), or null. */
  resume: ResumePlan | null;
}

/**
 * The run inside its boundary (see `withRunBoundary`): the run assembled (`assembleRun`) with the
 * command's services, the loop, the end's records and reports. With a `resume` plan the sealed
 * run goes on as its next segment.
 *
 * @returns the exit status (`runExitCode`, or `exitWithAnswer` with `--output-schema`).
 */
export async function runInBoundary(
  command: RunCommandRequest,
  io: CommandIo,
  boundary: { gateway: NetworkGateway | null; sharedTasks: TaskStore | null },
): Promise<number> {
  const { config, task, values, resume, outputSchema } = command;
  const model = config.model as NonNullable<LoadedConfig["model"]>;
  const paint = painter(io);
  // Before the session exists, the values of audit.secret_env; after, all the run's (below).
  const redactor = Redactor.fromEnvironment(config.audit.secret_env, io.env);
  const output = outputFormat(values);
  const feed = new RunFeed({
    io,
    paint,
    redactor,
    quiet: values.quiet === true,
    output,
    model: model.provider === "script" ? null : model.model,
  });
  // Checked before the run folder exists: a run must not work and then fail to report.
  const summaryFile = await checkStepSummary(io.env);
  const outputFile = await checkGithubOutput(io.env);
  const services = {
    ...cliRunServices(io, boundary.gateway, approverFor(values, io), boundary.sharedTasks),
    // limits.max_total_tokens: one budget for the main agent and every child it starts.
    tokenBudget: config.limits.max_total_tokens === null
      ? null
      : new TokenBudget(config.limits.max_total_tokens),
  };
  // With `agents`: the agent and task tools, whose children are assembled with the same services.
  const agents = mainAgentTools(config, services);
  const run: AssembledRun = await assembleRun(config, services, {
    task,
    grants: await grantsFromOptions(values),
    resume,
    ...(agents === null ? {} : { agentTools: agents.tools }),
    // Each pending approval carries the exact command that re-runs this run with its grant.
    replayCommand: [...programWords(), resume ? "resume" : "run", ...command.args],
    watchProvider: (provider) => feed.provider(provider),
    measureNetwork: true,
  });
  const session = run.session;
  // From here on, what is printed is redacted with every secret of the run, as its audit is: the
  // values of audit.secret_env, the MCP servers' ${VAR} and the roots' sensitive files.
  const runRedactor = run.redactor;
  const controller = new AbortController();
  // The first signal decides the exit code (SIGINT 130, SIGTERM 143).
  let signalled: Deno.Signal | null = null;
  const listeners = (["SIGINT", "SIGTERM"] as const).map((signal) => ({
    signal,
    listener: () => {
      signalled ??= signal;
      controller.abort(`interrupted by ${signal}`);
    },
  }));
  for (const { signal, listener } of listeners) Deno.addSignalListener(signal, listener);
  // Set once the run's end is recorded; the outputs are published after the seal (below).
  let exitCode: number | null = null;
  try {
    const outcome = await run.loop({
      agent: { id: "main", name: "main" },
      instructions: config.agent.instructions,
      maxTurns: config.agent.max_turns,
      retryTruncated: model.provider !== "script" && model.retry_truncated === true,
      childConcurrency: config.agent.max_concurrent_children,
      // memory_context (memories recalled for the task) and instruction files as they are read.
      dynamicSystem: true,
      // SIGINT/SIGTERM: running tools are aborted, the turn's results are all collected and
      // recorded, and the run ends with `aborted_tools` (or `aborted` between turns): exit 130
      // (SIGINT) or 143 (SIGTERM).
      signal: controller.signal,
      ...(values.quiet ? {} : {
        onToolResult: (result: ToolResult) => {
          try {
            io.stderr(progressLine(result, paint));
          } catch {
            // Progress lines are best effort: a closed stderr must not stop the run.
          }
        },
      }),
      onStart: async () => {
        // Once the run is under way, a refused audit write stops it: running calls end and are
        // recorded wherever a record still fits, and the run exits failed saying which file and
        // why.
        session.recorder.reportWriteFailuresTo((error) =>
          controller.abort(`the run folder refused a write: ${error.message}`)
        );
        if (!values.quiet) {
          const dir = runRedactor.redactText(displayRunDir(session.folder.dir));
          io.stderr(`kagent-run: run ${session.folder.id} in ${dir}\n`);
        }
        await feed.begin(session.recorder, session.folder.paths.events);
        // Printed even with --quiet: a run without its command tools must say why and how to
        // fix it.
        if (session.commands?.isolation.effective === "off") {
          io.stderr(`kagent-run: ${paint("denied", session.commands.isolation.reason)}\n`);
        }
      },
    });
    feed.endProgress();
    const counts = countResults(outcome.results);
    const answerCheck = outputSchema !== null && outcome.end_reason === "completed"
      ? checkAnswer(outputSchema, outcome.final_text)
      : null;
    // The children's asks nobody could answer are the run's too (their grants name this policy).
    const pending = [...session.approvals.pending, ...(agents?.pending ?? [])];
    await run.complete(outcome, {
      ...(answerCheck === null ? {} : { output_schema: answerCheck }),
      replay: pending.length === 0
        ? null
        : session.approvals.replayFor(pending.map((entry) => entry.grant)),
    });
    const seconds = (outcome.duration_ms / 1000).toFixed(2);
    const endTone: Tone = outcome.end_reason === "completed" ? "ok" : "failed";
    io.stderr(
      `kagent-run: run ${paint(endTone, outcome.end_reason)} in ${seconds} s${
        // A resumed run's figures here are its new segment's (the JSON and reports: the whole run).
        resume === null
          ? ""
          : ` (segment ${resume.session.record.segment})`}: ${counts.calls} tool calls, ${counts.denied} denied, ` +
        `${counts.failed} failed, ${counts.skipped} skipped; run folder ${
          runRedactor.redactText(displayRunDir(session.folder.dir))
        }\n`,
    );
    if (outcome.error !== null) {
      io.stderr(`kagent-run: ${paint("failed", runRedactor.redactText(outcome.error))}\n`);
    }
    printPendingGrants(
      pending,
      io,
      (grants) => session.approvals.replayFor(grants),
      [...programWords(), "resume", displayRunDir(session.folder.dir)],
    );
    const auditFailure = session.recorder.writeFailure;
    if (auditFailure !== null) {
      await session.recorder.error({ source: "audit", message: auditFailure.message });
      io.stderr(`kagent-run: ${paint("failed", auditFailure.message)}\n`);
      exitCode = EXIT.failed;
    }
    if (exitCode === null && answerCheck !== null && !answerCheck.valid) {
      const reasons = redactor.redactText(answerCheck.errors.join("; "));
      io.stderr(
        `kagent-run: ${
          paint("failed", `Cannot accept the final answer: it does not match --output-schema`)
        } "${answerCheck.schema}": ${reasons}\n`,
      );
    }
    exitCode ??= exitWithAnswer(
      runExitCode(outcome.end_reason, pending.length, signalled),
      answerCheck,
    );
  } finally {
    feed.endProgress();
    for (const { signal, listener } of listeners) Deno.removeSignalListener(signal, listener);
    // The task store first: the seal then covers the whole tasks.sqlite.
    await run.close();
    if (values.report === true) {
      const keyEnv = config.audit.signing_key_env;
      await writeReportAtEnd(
        session.folder.dir,
        (line) => io.stderr(`${line}\n`),
        !!values.quiet,
        keyEnv === null ? null : io.env(keyEnv) ?? null,
      );
    }
  }
  // The run is sealed (and its report written): every output is read back from its folder.
  const published = await publishRunEnd(session.folder.dir, {
    io,
    output,
    feed,
    redactor: runRedactor,
    summaryFile,
    outputFile,
  });
  return published === null || exitCode === null ? EXIT.failed : exitCode;
}
