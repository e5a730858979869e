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
import { runAgent, ScriptProvider } from "../agent/mod.ts";
import { countResults } from "../runtime/mod.ts";
import type { RunContext } from "../agent/mod.ts";
import { recordSystemPrompt } from "../child_agents/mod.ts";
import { openRunSession, recordStartFailure } from "../session/mod.ts";
import { displayRunDir } from "./display_run_dir.ts";
import { publishRunEnd } from "./_run_end.ts";
import type { LoadedConfig } from "../config/mod.ts";
import type { NetworkGateway } from "../network/mod.ts";
import { providerFor } from "./_provider_for.ts";
import { runTracing } from "./_run_tracing.ts";
import { withRunBoundary } from "./_run_boundary.ts";
import { painter, type Tone } from "./_colour.ts";
import { describeTool } from "../tools/mod.ts";
import type { ToolResult } from "../result/mod.ts";
import { preloadNativeSha256, Redactor } from "../audit/mod.ts";
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
import { gatewayFetches } from "./_gateway_fetches.ts";
import { dynamicSystemFor } from "./_dynamic_system.ts";
import { mainAgent } from "./_main_agent.ts";
import type { TaskStore } from "../tasks/mod.ts";
import { progressLine, RunFeed } from "./_run_feed.ts";
import { applyRunOverrides, outputFormat, readTask } from "./_run_options.ts";
import { checkGithubOutput } from "./_github_output.ts";
import { RUN_HELP } from "./_run_help.ts";
import type { ResumePlan } from "./_resume_plan.ts";

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
    const model = config.model;
    return await withRunBoundary(config, io, output, (gateway, sharedTasks) =>
      runWithNetwork(
        config,
        model,
        task,
        values,
        io,
        gateway,
        args,
        outputSchema,
        sharedTasks,
      ));
  });
}

type RunOptionValues = Record<string, string | boolean | undefined>;

/**
 * The run once the network boundary is open: provider, session, loop, reports. With `resume`
 * (`kagent-run resume`), the sealed run goes on as its next segment.
 */
export async function runWithNetwork(
  config: LoadedConfig,
  model: NonNullable<LoadedConfig["model"]>,
  task: string,
  values: RunOptionValues,
  io: CommandIo,
  gateway: NetworkGateway | null,
  args: readonly string[],
  outputSchema: OutputSchema | null,
  sharedTasks: TaskStore | null,
  resume: ResumePlan | null = null,
): Promise<number> {
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
  const modelProvider = await providerFor(model, io, gateway);
  // A script plan goes on where the earlier segments stopped.
  if (modelProvider instanceof ScriptProvider) modelProvider.skip(resume?.answers ?? 0);
  const provider = feed.provider(modelProvider);

  // Checked before the run folder exists: a run must not work and then fail to report.
  const summaryFile = await checkStepSummary(io.env);
  const outputFile = await checkGithubOutput(io.env);
  const approver = approverFor(values, io);
  // With `agents`: the agent and task tools, whose children get the same approver and boundary.
  const agents = mainAgent(config, io, gateway, {
    env: io.env,
    approver,
    ...gatewayFetches(gateway),
  }, sharedTasks);
  const session = await openRunSession(config, {
    env: io.env,
    approver,
    grants: await grantsFromOptions(values),
    ...gatewayFetches(gateway),
    task: resume === null ? task : resume.start.task,
    resume: resume?.session ?? null,
    ...(agents === null ? {} : { mainThreadTools: agents.tools }),
  });
  agents?.attach(session);
  // From here on, what is printed is redacted with every secret of the run, as its audit is: the
  // values of audit.secret_env, the MCP servers' ${VAR} and the roots' sensitive files.
  const runRedactor = new Redactor({ secrets: session.secrets });
  // A run lives for many calls and turns: hash natively from now on (audit/sha256.ts).
  preloadNativeSha256();
  // Each pending approval carries the exact command that re-runs this run with its grant.
  session.approvals.setReplayCommand([...programWords(), resume ? "resume" : "run", ...args]);
  await resume?.keepPreviousSeal().catch(async (error) => {
    await session.close();
    throw error;
  });
  await session.recorder.event("network_boundary.measured", {
    model_hosts: gateway?.channels.model ?? [],
    memory_hosts: gateway?.channels.memory ?? [],
    mcp_hosts: gateway?.channels.mcp ?? [],
    tool_hosts: gateway?.channels.tools ?? [],
    tool_worker_net: session.workerPermissions.net,
    // Measured, not assumed: "granted" only when the process kept its own net permission.
    main_thread_net: Deno.permissions.querySync({ name: "net" }).state,
  }).catch(async (error) => {
    await session.close();
    throw await recordStartFailure(session.folder, config, error, io.env);
  });
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
    const run: RunContext = {
      run_id: session.folder.id,
      workspace: session.guard.workspace,
      deliverables: session.folder.paths.deliverables,
      scratch: session.folder.paths.workspace,
    };
    const currentTools = () =>
      session.registry.list()
        .map((registered) => describeTool(registered.definition))
        .filter((tool) => session.runtime.policy.isAvailable(tool.name));
    const tools = currentTools();
    // A run folder that refuses the start-up records is a config error naming runs_dir (exit 2).
    const systemPrompt = await recordSystemPrompt(session, run, config.agent.instructions).catch(
      async (error) => {
        throw await recordStartFailure(session.folder, config, error, io.env);
      },
    );
    // memory_context (memories recalled for the task) and instruction files as they are read.
    const dynamicSystem = await dynamicSystemFor(session, config, task, io.env, gateway).catch(
      async (error) => {
        throw await recordStartFailure(session.folder, config, error, io.env);
      },
    );
    // Once the run is under way, a refused audit write stops it: running calls end and are
    // recorded wherever a record still fits, and the run exits failed saying which file and why.
    session.recorder.reportWriteFailuresTo((error) =>
      controller.abort(`the run folder refused a write: ${error.message}`)
    );
    if (!values.quiet) {
      const dir = runRedactor.redactText(displayRunDir(session.folder.dir));
      io.stderr(`kagent-run: run ${session.folder.id} in ${dir}\n`);
    }
    await feed.begin(session.recorder, session.folder.paths.events);
    // Printed even with --quiet: a run without its command tools must say why and how to fix it.
    if (session.commands?.isolation.effective === "off") {
      io.stderr(`kagent-run: ${paint("denied", session.commands.isolation.reason)}\n`);
    }
    const outcome = await runAgent({
      provider,
      runtime: session.runtime,
      recorder: session.recorder,
      tools,
      currentTools,
      system: systemPrompt.text,
      dynamicSystem,
      task,
      run,
      maxTurns: config.agent.max_turns,
      ...(resume === null ? {} : { resume: resume.start }),
      ...(config.limits.max_total_tokens === null
        ? {}
        : { maxTotalTokens: config.limits.max_total_tokens }),
      retryTruncated: model.provider !== "script" && model.retry_truncated === true,
      concurrency: config.agent.max_parallel_tools,
      childConcurrency: config.agent.max_concurrent_children,
      ...(agents === null ? {} : { conversation: agents.conversation }),
      toolPermission: (name) => session.registry.get(name)?.definition.permission,
      tracing: runTracing(session, config, model),
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
    });
    feed.endProgress();
    const counts = countResults(outcome.results);
    const answerCheck = outputSchema !== null && outcome.end_reason === "completed"
      ? checkAnswer(outputSchema, outcome.final_text)
      : null;
    // The children's asks nobody could answer are the run's too (their grants name this policy).
    const pending = [...session.approvals.pending, ...(agents?.pending ?? [])];
    await session.recorder.event("run.completed", {
      end_reason: outcome.end_reason,
      turns: outcome.turns,
      ...counts,
      duration_ms: outcome.duration_ms,
      final_text: outcome.final_text,
      error: outcome.error,
      error_code: outcome.error_code,
      error_details: outcome.error_details,
      usage: outcome.usage,
      ...(answerCheck === null ? {} : { output_schema: answerCheck }),
      replay: pending.length === 0
        ? null
        : session.approvals.replayFor(pending.map((entry) => entry.grant)),
    });
    const seconds = (outcome.duration_ms / 1000).toFixed(2);
    const endTone: Tone = outcome.end_reason === "completed" ? "ok" : "failed";
    io.stderr(
      `kagent-run: run ${
        paint(endTone, outcome.end_reason)
      } in ${seconds} s: ${counts.calls} tool calls, ${counts.denied} denied, ` +
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
    await agents?.close();
    await session.close();
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
