#!/usr/bin/env bash
# Runs kagent-run for the composite action (action.yml), from the action's own checkout, with the
# flags of deno.json's "kagent-run" task (tests/github_action_test.ts keeps them equal). kagent-run
# itself writes the step outputs (GITHUB_OUTPUT) and the step summary; this script adds exit_code.
# Inputs (as action.yml passes them): INPUT_CONFIG, INPUT_TASK, INPUT_TASK_FILE, INPUT_WORKSPACE,
# INPUT_RUNS_DIR, INPUT_APPROVALS. Exits with kagent-run's exit status.
# The workspace defaults to the checkout (GITHUB_WORKSPACE, else the job's folder), not the config
# file's folder: a config in .github/ must not give the agent only .github/. Run folders default to
# the runner's temporary folder (RUNNER_TEMP), so they never land in the checkout; the upload step
# takes them from there.
set -uo pipefail
action_path="${GITHUB_ACTION_PATH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
flags=(--no-prompt --unstable-worker-options --allow-read --allow-write --allow-env --allow-run --allow-net)
args=(run --config "${INPUT_CONFIG:-agent.jsonc}" --non-interactive)
if [ -n "${INPUT_TASK:-}" ]; then args+=(--task "$INPUT_TASK"); fi
if [ -n "${INPUT_TASK_FILE:-}" ]; then args+=(--task-file "$INPUT_TASK_FILE"); fi
args+=(--workspace "${INPUT_WORKSPACE:-${GITHUB_WORKSPACE:-$PWD}}")
if [ -n "${INPUT_RUNS_DIR:-}" ]; then
  args+=(--runs-dir "$INPUT_RUNS_DIR")
elif [ -n "${RUNNER_TEMP:-}" ]; then
  args+=(--runs-dir "$RUNNER_TEMP/kagent-run/runs")
fi
if [ -n "${INPUT_APPROVALS:-}" ]; then args+=(--approvals "$INPUT_APPROVALS"); fi

# The action's own deno.json (import map, lock), whatever the job's folder holds.
# Standard input is /dev/null: the task comes from the inputs or the config, never from the runner.
deno run --config "${action_path}/deno.json" "${flags[@]}" "${action_path}/main.ts" "${args[@]}" </dev/null
code=$?
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  printf 'exit_code=%s\n' "$code" >>"$GITHUB_OUTPUT" ||
    echo "kagent-run action: Cannot append exit_code to GITHUB_OUTPUT \"$GITHUB_OUTPUT\"" >&2
fi
exit "$code"
