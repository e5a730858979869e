/**
 * `kagent-run resume RUN_FOLDER [--approve GRANT]… [--approvals FILE] [--task TEXT]`: continues a
 * sealed run that stopped for an approval, its turn limit, its token budget or an interrupt, as the
 * next segment of the same run folder (see docs/RESUME.md).
 *
 * @module
 */

import { readRunSummary } from "../report/mod.ts";
import {
  APPROVAL_HELP,
  APPROVAL_OPTIONS,
  type CommandIo,
  EXIT,
  grantsFromOptions,
  guarded,
  loadConfigFromOptions,
  parseOptions,
  UsageError,
} from "./_common.ts";
import { planResume, readRunInfoFile } from "./_resume_plan.ts";
import { outputFormat } from "./_run_options.ts";
import { runInBoundary } from "./run_command.ts";
import { withRunBoundary } from "./_run_boundary.ts";

/** Help text of `kagent-run resume --help`. */
export const RESUME_HELP = `Usage: kagent-run resume RUN_FOLDER [options]

Continues a sealed run as its next segment: the calls that waited for an approval run first
(when their grants are given; refused again otherwise), then the model goes on from the recorded
conversation. Refused (exit 2) when the folder does not verify, or the config, permissions file,
policy or model changed since the run.

Options:
  --task TEXT         The user's next message, after the recorded conversation
  --config FILE       The config (default: the one run.json names; it must be unchanged)
  --workspace DIR, --runs-dir DIR, --mcp-config FILE
                      The overrides the run was started with (the policy must hash the same)
  --approve-pending   Grant every call the run (or a child agent of it) recorded as waiting:
                      for a CI job that a person approved (an environment's required reviewers)
  --output FORMAT     text (default), json or stream-json
  --quiet             No progress lines
  --report            Write report.html and report.md into the run folder at the end
${APPROVAL_HELP}
`;

/** Runs the `resume` command. @returns the exit status. */
export function resumeCommand(args: string[], io: CommandIo): Promise<number> {
  return guarded(io, async () => {
    const { values, positionals } = parseOptions("resume", args, {
      config: { type: "string" },
      task: { type: "string" },
      output: { type: "string" },
      workspace: { type: "string" },
      "runs-dir": { type: "string" },
      "mcp-config": { type: "string" },
      "approve-pending": { type: "boolean" },
      ...APPROVAL_OPTIONS,
      quiet: { type: "boolean" },
      report: { type: "boolean" },
    });
    if (values.help) {
      io.stdout(RESUME_HELP);
      return EXIT.ok;
    }
    const [runDir, ...extra] = positionals;
    if (runDir === undefined || extra.length > 0) {
      throw new UsageError(
        'Cannot resume: name exactly one run folder, as in "kagent-run resume runs/<run-id>"',
      );
    }
    const output = outputFormat(values);
    const info = await readRunInfoFile(runDir);
    // The run's own workspace (run.json), unless --workspace says otherwise: a run started with
    // --workspace goes on where it worked, not in the config's default folder.
    const config = await loadConfigFromOptions({
      ...values,
      config: typeof values.config === "string" ? values.config : info.config.path,
      ...(typeof values.workspace !== "string" && typeof info.workspace === "string"
        ? { workspace: info.workspace }
        : {}),
    });
    if (config.model === null) {
      throw new UsageError(`Cannot resume run folder "${runDir}": the config has no "model"`);
    }
    const keyEnv = config.audit.signing_key_env;
    const key = keyEnv === null ? null : io.env(keyEnv) ?? null;
    const task = typeof values.task === "string" && values.task.trim() !== "" ? values.task : null;
    const plan = await planResume(runDir, config, task, key);
    if (values["approve-pending"] === true) {
      const given = (values.approve ?? []) as unknown as string[];
      (values as Record<string, unknown>).approve = [
        ...given,
        ...await pendingGrants(plan.runDir),
      ];
    }
    // A grant for another policy is refused here, before the session would record it.
    for (const { grant, source } of await grantsFromOptions(values)) {
      if (plan.session.policyHash.startsWith(grant.policy)) continue;
      throw new UsageError(
        `Cannot resume run "${plan.session.folder.id}" with the grant for "${grant.tool}" from ` +
          `${source}: it was made for policy "${grant.policy.slice(0, 16)}", and the run's is ` +
          `"${plan.session.policyHash.slice(0, 16)}"; use the grants the run printed`,
      );
    }
    return await withRunBoundary(
      config,
      io,
      output,
      (gateway, sharedTasks) =>
        runInBoundary(
          { config, task: plan.task, values, args, outputSchema: null, resume: plan },
          io,
          {
            gateway,
            sharedTasks,
          },
        ),
    );
  });
}

/**
 * The grants of the calls the last segment of a sealed run recorded as waiting, its child agents'
 * included (the run's summary, read after the folder verified), as `--approve` texts.
 */
async function pendingGrants(runDir: string): Promise<string[]> {
  const summary = await readRunSummary(runDir);
  const grants = summary.pending.filter((entry) => entry.grant !== null).map((entry) =>
    JSON.stringify(entry.grant)
  );
  return [...new Set(grants)];
}
