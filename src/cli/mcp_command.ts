/**
 * `kagent-run mcp --config F`: kagent-run as an MCP server over stdio. One server process is one
 * run (one run folder); every `tools/call` goes through the whole pipeline and is recorded like
 * any run. Ends when stdin closes, on SIGINT or SIGTERM, recording `run.completed`.
 *
 * @module
 */

import process from "node:process";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { McpRunServer } from "../mcp/mod.ts";
import { openRunSession } from "../session/mod.ts";
import {
  type CommandIo,
  EXIT,
  grantsFromOptions,
  guarded,
  loadConfigFromOptions,
  openNetworkBoundary,
  parseOptions,
} from "./_common.ts";
import { VERSION } from "./main_command.ts";

/** Help text of the mcp command. */
export const MCP_HELP =
  `Usage: kagent-run mcp --config FILE [--workspace DIR] [--approve GRANT]... [--approvals FILE]

Serves the run's effective tool set as an MCP server over stdio (JSON-RPC on stdin/stdout, logs
on stderr), so any MCP client (Claude Code, Codex, Cursor, the MCP Inspector) can use kagent-run's
sandboxed, audited tools. One server process is one run folder; every call goes through the whole
pipeline (schema, hooks, policy, path guard, approvals) and is recorded in it.

Tool names are the canonical dotted names (fs.read_file); MCP annotations come from the tools'
(readOnlyHint, destructiveHint, idempotentHint, openWorldHint). A refused or failed call is an
isError result with the message, error type, rule and layer. An "ask": when the client supports
elicitation its user is asked (allow_once, allow_for_session, deny); otherwise the call ends
approval_required and the result carries the grant (restart the server with --approve GRANT).

  --approve GRANT     Allow exactly the call a grant names (JSON, as printed in a result); repeatable
  --approvals FILE    Grants, one JSON object a line

Client configuration (Claude Code .mcp.json, Cursor, Codex "mcpServers"):
  {"mcpServers": {"kagent-run": {"command": "kagent-run",
    "args": ["mcp", "--config", "/path/to/agent.jsonc"]}}}

Exit status:
    0  the client closed the connection
    2  usage or configuration error; nothing was served
  130  SIGINT
  143  SIGTERM
`;

/** Runs the `mcp` command. @returns the exit status. */
export function mcpCommand(args: string[], io: CommandIo): Promise<number> {
  return guarded(io, async () => {
    const { values } = parseOptions("mcp", args, {
      config: { type: "string" },
      workspace: { type: "string" },
      approve: { type: "string", multiple: true },
      approvals: { type: "string" },
    });
    if (values.help) {
      io.stdout(MCP_HELP);
      return EXIT.ok;
    }
    const config = await loadConfigFromOptions(values);
    const grants = await grantsFromOptions(values);
    const gateway = await openNetworkBoundary(config, io, { model: false });
    let startFailure: unknown = null;
    const ended = Promise.withResolvers<string>();
    const server = new McpRunServer({
      version: VERSION,
      openSession: async (approver) => {
        try {
          const session = await openRunSession(config, {
            env: io.env,
            approver,
            grants,
            ...(gateway === null ? {} : { memoryFetch: gateway.fetchFor("memory") }),
          });
          session.approvals.setReplayCommand(["kagent-run", "mcp", ...args]);
          io.stderr(`kagent-run mcp: run folder ${session.folder.dir}\n`);
          return session;
        } catch (error) {
          startFailure = error;
          setTimeout(() => ended.resolve("start_failed"), 0);
          throw error;
        }
      },
    });
    const signals: [Deno.Signal, () => void][] = [
      ["SIGINT", () => ended.resolve("SIGINT")],
      ["SIGTERM", () => ended.resolve("SIGTERM")],
    ];
    for (const [signal, listener] of signals) Deno.addSignalListener(signal, listener);
    server.closed.then(() => ended.resolve("closed"));
    // The SDK's stdio transport does not watch for the end of stdin: the client went away.
    const onEnd = () => ended.resolve("closed");
    process.stdin.once("end", onEnd);
    try {
      await server.connect(new StdioServerTransport(process.stdin, process.stdout));
      const reason = await ended.promise;
      await server.close(reason === "closed" ? "completed" : "aborted");
      if (startFailure !== null) throw startFailure;
      if (reason === "SIGINT") return EXIT.interrupted;
      return reason === "SIGTERM" ? EXIT.terminated : EXIT.ok;
    } finally {
      for (const [signal, listener] of signals) Deno.removeSignalListener(signal, listener);
      process.stdin.off("end", onEnd);
      await server.close("aborted");
      gateway?.close();
    }
  });
}
