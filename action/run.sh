#!/usr/bin/env bash
# Runs kagent-run for the composite action (action.yml), from the action's own checkout, with the
# flags of deno.json's "kagent-run" task (tests/github_action_test.ts keeps them equal). kagent-run
# itself writes the step outputs (GITHUB_OUTPUT) and the step summary; this script adds exit_code.
# Inputs (as action.yml passes them): INPUT_CONFIG, INPUT_TASK, INPUT_TASK_FILE, INPUT_WORKSPACE,
# INPUT_RUNS_DIR, INPUT_APPROVALS, INPUT_MODE (run, approval, resume), INPUT_RUN_FOLDER. Exits with
# kagent-run's exit status, except in mode approval, where a run waiting for approvals (3) passes
# the step (exit_code still says 3) so that a job behind a reviewer can resume it.
# The workspace defaults to the checkout (GITHUB_WORKSPACE, else the job's folder), not the config
# file's folder: a config in .github/ must not give the agent only .github/. Run folders default to
# the runner's temporary folder (RUNNER_TEMP), so they never land in the checkout; the upload step
# takes them from there.
set -uo pipefail
action_path="${GITHUB_ACTION_PATH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
flags=(--no-prompt --unstable-worker-options --allow-read --allow-write --allow-env --allow-run --allow-net)
mode="${INPUT_MODE:-run}"
case "$mode" in
  run | approval)
    args=(run --config "${INPUT_CONFIG:-agent.jsonc}" --non-interactive)
    if [ -n "${INPUT_TASK_FILE:-}" ]; then args+=(--task-file "$INPUT_TASK_FILE"); fi
    ;;
  resume)
    if [ -z "${INPUT_RUN_FOLDER:-}" ]; then
      echo "kagent-run action: Cannot resume: mode resume needs the run-folder input" >&2
      exit 2
    fi
    # The grants are the ones the run waited for: the environment's reviewers approved the job.
    args=(resume "$INPUT_RUN_FOLDER" --config "${INPUT_CONFIG:-agent.jsonc}" --non-interactive --approve-pending)
    ;;
  *)
    echo "kagent-run action: Cannot run: mode \"$mode\" is not run, approval or resume" >&2
    exit 2
    ;;
esac
if [ -n "${INPUT_TASK:-}" ]; then args+=(--task "$INPUT_TASK"); fi
args+=(--workspace "${INPUT_WORKSPACE:-${GITHUB_WORKSPACE:-$PWD}}")
if [ -n "${INPUT_RUNS_DIR:-}" ]; then
  args+=(--runs-dir "$INPUT_RUNS_DIR")
elif [ -n "${RUNNER_TEMP:-}" ]; then
  args+=(--runs-dir "$RUNNER_TEMP/kagent-run/runs")
fi
if [ -n "${INPUT_APPROVALS:-}" ]; then args+=(--approvals "$INPUT_APPROVALS"); fi

# actions/checkout persists the job's token in .git/config unless told not to
# (`persist-credentials: false`): `http.<url>.extraheader = AUTHORIZATION: basic <base64>`.
# kagent-run redacts it, but a command the agent runs can still use it: warn, never print it.
# The path is escaped as a workflow command's data (%, CR, LF), so it cannot end the command.
escape_data() {
  local text="${1//%/%25}"
  text="${text//$'\r'/%0D}"
  printf '%s' "${text//$'\n'/%0A}"
}
checked=()
for folder in "." "${INPUT_WORKSPACE:-.}"; do
  config_file="${folder%/}/.git/config"
  case " ${checked[*]-} " in *" ${config_file} "*) continue ;; esac
  checked+=("$config_file")
  if [ -f "$config_file" ] && grep -qiE '^[[:space:]]*extraheader[[:space:]]*=' "$config_file"; then
    printf '::warning title=kagent-run::%s\n' "$(escape_data "Set \"persist-credentials: false\" on actions/checkout: \"${config_file}\" holds an http extraheader, the job's credentials, which commands the agent runs can use (kagent-run redacts them from its logs)")"
  fi
done

# The action's own deno.json (import map, lock), whatever the job's folder holds.
# Standard input is /dev/null: the task comes from the inputs or the config, never from the runner.
deno run --config "${action_path}/deno.json" "${flags[@]}" "${action_path}/main.ts" "${args[@]}" </dev/null
code=$?
status="$code"
if [ "$mode" = approval ] && [ "$code" = 3 ]; then status=0; fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  printf 'exit_code=%s\n' "$code" >>"$GITHUB_OUTPUT" ||
    echo "kagent-run action: Cannot append exit_code to GITHUB_OUTPUT \"$GITHUB_OUTPUT\"" >&2
fi
exit "$status"
