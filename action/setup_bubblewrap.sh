#!/usr/bin/env bash
# Makes bubblewrap usable on a Linux runner for the kagent-run action (action.yml): installs the
# package, and where AppArmor forbids unprivileged user namespaces (Ubuntu 24.04 runners:
# kernel.apparmor_restrict_unprivileged_userns=1), loads the narrow profile Ubuntu itself uses for
# such programs: /usr/bin/bwrap alone may create user namespaces. Nothing else changes, and the
# restriction stays on for every other program.
set -euo pipefail
sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

if ! command -v bwrap >/dev/null 2>&1; then
  sudo_if_needed apt-get update -qq
  sudo_if_needed apt-get install -y -qq bubblewrap
fi
restricted=/proc/sys/kernel/apparmor_restrict_unprivileged_userns
if [ -r "$restricted" ] && [ "$(cat "$restricted")" = "1" ] && [ ! -e /etc/apparmor.d/bwrap ]; then
  sudo_if_needed tee /etc/apparmor.d/bwrap >/dev/null <<'PROFILE'
abi <abi/4.0>,
include <tunables/global>

profile bwrap /usr/bin/bwrap flags=(unconfined) {
  userns,

  include if exists <local/bwrap>
}
PROFILE
  sudo_if_needed apparmor_parser -r /etc/apparmor.d/bwrap
fi
# Checked, not assumed: the sandbox kagent-run will use must start here.
if bwrap --ro-bind / / --unshare-all --die-with-parent true; then
  echo "bubblewrap works: commands run confined"
else
  echo "::warning title=kagent-run::bubblewrap cannot start on this runner; with sandbox.command_isolation \"auto\" the command tools are disabled (the run says why)"
fi
