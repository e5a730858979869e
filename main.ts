/**
 * kagent-run: a sandboxed tool runtime and agent runner for LLM agents.
 *
 * Parses the command line and dispatches to src/cli; nothing else.
 *
 * @module
 */

import { main, processIo } from "./src/cli/mod.ts";

if (import.meta.main) {
  Deno.exit(await main(Deno.args, processIo()));
}
