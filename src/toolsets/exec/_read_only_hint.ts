/**
 * The hint a failed confined command's message ends with: why it met a read-only file system or a
 * missing path, and what to change. Private to the folder.
 *
 * @module
 */

import type { CommandOutcome } from "../../exec/mod.ts";

/**
 * Why a confined command met a read-only file system, and what to change: `.git` is read-only
 * unless `tools.git_write`; elsewhere only the workspace, write roots and the run's folders are
 * writable.
 */
export function readOnlyHint(outcome: CommandOutcome, readOnly: boolean): string {
  if (outcome.isolation === "bwrap" && outcome.exit_code === 127) {
    // A program or file the command needs lies outside what the profile mounts.
    const missing = /(\/[^\s:'"]+)[:'"]?\s*(?::\s*)?(?:No such file or directory|not found)/.exec(
      outcome.stderr.text,
    )?.[1];
    return ` (under bubblewrap only the system folders, the allowlisted programs' folders, the ` +
      `roots and the run's folders exist${
        missing === undefined ? "" : `; "${missing}" is not among them`
      }: allowlist the program in "commands", or add its folder to "sandbox.read_roots")`;
  }
  if (outcome.isolation !== "bwrap" || !outcome.stderr.text.includes("Read-only file system")) {
    return "";
  }
  if (readOnly) {
    return " (the call is read-only: a readonly tool or a known-safe command runs with every " +
      "root read-only; only /tmp is writable)";
  }
  if (/(^|[\s'"/])\.git(\/|['"\s:]|$)/m.test(outcome.stderr.text)) {
    return ' (.git is read-only for commands; set "tools.git_write": true in the config to let ' +
      "git write it, except its config, hooks, info, commondir and alternates)";
  }
  return " (commands may write only the workspace, the write roots and the run's folders; " +
    "protected paths such as the config and the runs folder stay read-only)";
}
