/**
 * The run command's help text, apart from the command, so that `kagent-run --help` and the other
 * commands do not load the agent loop to print it.
 *
 * @module
 */

import { APPROVAL_HELP, EXIT_HELP } from "./_common.ts";

/** Help text of the run command. */
export const RUN_HELP = `Usage: kagent-run [run] --config FILE [options] ["TASK"]

Runs an agent: the config's model proposes tool calls, kagent-run checks, runs and records each.
The task is, first found: --task-file, --task, the TASK argument, standard input when it is a pipe
or a file (then nobody is asked for approvals: as --non-interactive), the config's "task".

Options:
  --config FILE       Config file (JSONC). Default: agent.jsonc
  --task TEXT         The task; overrides the config's "task"
  --task-file FILE    The task, read from a file; "-" reads it from standard input (then nobody
                      is asked for approvals: as --non-interactive)
  --model NAME        The model's name; overrides "model.model" (not for the script provider)
  --max-turns N       Model turns before the run stops (1-1000); overrides "agent.max_turns"
  --output FORMAT     text: the answer on stdout (default); json: the final result as one JSON
                      object; stream-json: one JSON object a line as the run goes
                      (docs/STREAM_JSON.md), the last one the final result
  --output-schema FILE
                      A JSON Schema the final answer must match (JSON, or a json fenced block):
                      --output json gives it as structured_output; otherwise exit 8
  --workspace DIR     Sandbox root; overrides the config's "workspace" (relative to the current folder)
  --mcp-config FILE   MCP servers to add, from a file of {"mcpServers": {…}} as other clients
                      write it (relative to the current folder)
  --runs-dir DIR      Where run folders go; overrides the config's "runs_dir" (relative to the
                      current folder)
${APPROVAL_HELP}
  --quiet             No progress lines (one a model turn, one a call) on stderr
  --report            When the run ends, write report.html and report.md into the run folder
  -h, --help          This help

${EXIT_HELP}
Under GitHub Actions (GITHUB_ACTIONS=true) the values of the "audit.secret_env" variables are
masked first (::add-mask::, on stdout; on stderr with --output json or stream-json), progress
lines are grouped (::group::), the answer is printed between ::stop-commands:: and a fresh token
(a line of it is never a workflow command), failed or denied calls become annotations, and GITHUB_OUTPUT gets
run_id, run_dir, end_reason, calls, denied and approval_required. Every output is redacted.
The run folder (runs/<run-id>/) holds events.jsonl, logs/, artifacts/, deliverables/ and policy.json.
`;
