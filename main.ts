/**
 * kagent-run: a sandboxed tool runtime and agent runner for LLM agents.
 *
 * Parses the command line and dispatches to src/cli; nothing else.
 *
 * @module
 */

import { enterUserFolder, main, processIo } from "./src/cli/mod.ts";

if (import.meta.main) {
  // Under `deno task`, relative paths mean the folder the user typed the command in.
  enterUserFolder();
  Deno.exit(await main(Deno.args, processIo()));
}
