#!/usr/bin/env bash
# Names Deno's cache folder for the composite action (action.yml) and the actions/cache key it is
# saved under: the runner's OS and architecture, the Deno version and the sha256 of the action's
# deno.lock (hashFiles() cannot read the action's own folder). A second job with the same lock starts
# with the npm packages already fetched and the modules already compiled.
# Writes `dir=` and `key=` to GITHUB_OUTPUT (or stdout when it is unset).
set -euo pipefail
action_path="${GITHUB_ACTION_PATH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
lock="${action_path}/deno.lock"
if command -v sha256sum >/dev/null 2>&1; then
  digest=$(sha256sum "$lock" | cut -d' ' -f1)
else
  digest=$(shasum -a 256 "$lock" | cut -d' ' -f1)
fi
dir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/kagent-run-deno"
key="kagent-run-deno-${RUNNER_OS:-unknown}-${RUNNER_ARCH:-unknown}-${DENO_VERSION:-unknown}-${digest}"
printf 'dir=%s\nkey=%s\n' "$dir" "$key" >>"${GITHUB_OUTPUT:-/dev/stdout}"
