#!/usr/bin/env bash
# Installs Deno from npm for the kagent-run action (action.yml), unless that version is on PATH.
# Input: DENO_VERSION (e.g. 2.9.6).
set -euo pipefail
version="${DENO_VERSION:?DENO_VERSION is not set: give the deno-version input}"
if command -v deno >/dev/null 2>&1 && deno --version | head -n 1 | grep -q "^deno ${version} "; then
  echo "Deno ${version} is already installed"
  exit 0
fi
npm install -g "deno@${version}"
hash -r
deno --version | head -n 1
