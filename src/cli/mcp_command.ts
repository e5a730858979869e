/**
 * `kagent-run mcp --config F [--http HOST:PORT]`: kagent-run as an MCP server, over stdio or over
 * Streamable HTTP on a loopback address behind a bearer token. One server process is one run (one
 * run folder), whatever the number of HTTP sessions; every `tools/call` goes through the whole
 * pipeline and is recorded like any run. Ends when stdin closes (stdio), on SIGINT or SIGTERM,
 * recording `run.completed`.
 *
 * @module
 */

import { programWords } from "./launch_form.ts";
import process from "node:process";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  BearerToken,
  type LoopbackAddress,
  McpHttpServer,
  McpRunServer,
  MIN_TOKEN_CHARS,
  parseLoopbackAddress,
  SESSION_IDLE_TIMEOUT_MS,
} from "../mcp/mod.ts";
import type { LoadedConfig } from "../config/mod.ts";
import { assembleRun } from "../assembly/mod.ts";
import { preloadNativeSha256 } from "../audit/mod.ts";
import { checkTelemetryHosts } from "./_telemetry_check.ts";
import {
  type CommandIo,
  EXIT,
  grantsFromOptions,
  guarded,
  loadConfigFromOptions,
  openNetworkBoundary,
  parseOptions,
  UsageError,
} from "./_common.ts";
import { cliRunServices } from "./_run_services.ts";
import { VERSION } from "./main_command.ts";

/** The variable holding the bearer token of `--http` when `--token-env` is not given. */
export const DEFAULT_TOKEN_ENV = "KAGENT_RUN_MCP_TOKEN";

/** Help text of the mcp command. */
export const MCP_HELP =
  `Usage: kagent-run mcp --config FILE [--workspace DIR] [--approve GRANT]... [--approvals FILE]
                      [--http HOST:PORT [--token-env NAME] [--session-idle-timeout SECONDS]]

Serves the run's effective tool set as an MCP server over stdio (JSON-RPC on stdin/stdout, logs
on stderr), so any MCP client (Claude Code, Codex, Cursor, the MCP Inspector) can use kagent-run's
sandboxed, audited tools. One server process is one run folder; every call goes through the whole
pipeline (schema, hooks, policy, path guard, approvals) and is recorded in it.

With --http, serves MCP Streamable HTTP at http://HOST:PORT/mcp instead (printed on stderr at
start; port 0 picks a free one), for as many client sessions as connect, all in the one run.
HOST must be loopback: 127.0.0.1, [::1] or localhost. Clients must send "Authorization: Bearer
<token>", the token being the value of ${DEFAULT_TOKEN_ENV} (or of the variable --token-env
names; at least ${MIN_TOKEN_CHARS} characters; without it the server does not start). The token is
redacted like audit.secret_env. Requests from a browser page of another site (Host or Origin not
loopback) get 403; without the token, 401. Stops on SIGINT or SIGTERM.

Tool names are the canonical dotted names (fs.read_file); MCP annotations come from the tools'
(readOnlyHint, destructiveHint, idempotentHint, openWorldHint). A refused or failed call is an
isError result with the message, error type, rule and layer. An "ask": when the client supports
elicitation its user is asked (allow_once, allow_for_session, deny); otherwise the call ends
approval_required and the result carries the grant (restart the server with --approve GRANT).

  --approve GRANT     Allow exactly the call a grant names (JSON, as printed in a result); repeatable
  --approvals FILE    Grants, one JSON object a line
  --http HOST:PORT    Serve over Streamable HTTP on this loopback address instead of stdio
  --token-env NAME    The variable holding the bearer token (default ${DEFAULT_TOKEN_ENV})
  --session-idle-timeout SECONDS
                      Close an HTTP session with no request in flight (an open event stream
                      counts) for this long: its client left without DELETE (default ${
    SESSION_IDLE_TIMEOUT_MS / 1000
  })

Client configuration (Claude Code .mcp.json, Cursor, Claude Desktop "mcpServers"):
  {"mcpServers": {"kagent-run": {"command": "kagent-run",
    "args": ["mcp", "--config", "/path/to/agent.jsonc"]}}}
Over HTTP (Claude Code; see docs/MCP.md for Cursor and Codex):
  claude mcp add --transport http kagent-run http://127.0.0.1:8931/mcp \\
    --header "Authorization: Bearer $${DEFAULT_TOKEN_ENV}"

Exit status:
    0  the client closed the connection (stdio)
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
      "mcp-config": { type: "string" },
      approve: { type: "string", multiple: true },
      approvals: { type: "string" },
      http: { type: "string" },
      "token-env": { type: "string" },
      "session-idle-timeout": { type: "string" },
    });
    if (values.help) {
      io.stdout(MCP_HELP);
      return EXIT.ok;
    }
    if (values["session-idle-timeout"] !== undefined && values.http === undefined) {
      throw new UsageError(
        `Cannot use --session-idle-timeout without --http: only HTTP sessions expire; add ` +
          `--http 127.0.0.1:PORT, or drop --session-idle-timeout to serve over stdio`,
      );
    }
    if (values["token-env"] !== undefined && values.http === undefined) {
      throw new UsageError(
        `Cannot use --token-env without --http: the token guards the HTTP server only; add ` +
          `--http 127.0.0.1:PORT, or drop --token-env to serve over stdio`,
      );
    }
    const http = typeof values.http === "string" ? httpSettings(values, io) : null;
    const loaded = await loadConfigFromOptions(values);
    // The token is a secret of the run: redacted wherever it would be written, kept from commands.
    const config = http === null ? loaded : withSecretEnv(loaded, http.tokenEnv);
    const grants = await grantsFromOptions(values);
    checkTelemetryHosts(config, io);
    // The listener is bound before the process gives up its net permission (a bound socket keeps
    // accepting); only then is the permission revoked.
    const gateway = await openNetworkBoundary(config, { ...io, revokeNetwork: () => {} }, {
      model: false,
    });
    let startFailure: unknown = null;
    const ended = Promise.withResolvers<string>();
    const server = new McpRunServer({
      version: VERSION,
      openSession: async (approver) => {
        try {
          const { session } = await assembleRun(config, cliRunServices(io, gateway, approver), {
            // A run without an agent loop: the client's calls are its tool calls.
            task: null,
            grants,
            // No agent loop runs here to start child agents: their tools are not offered.
            agentTools: false,
            replayCommand: [...programWords(), "mcp", ...args],
          });
          io.stderr(`kagent-run mcp: run folder ${session.folder.dir}\n`);
          return session;
        } catch (error) {
          startFailure = error;
          setTimeout(() => ended.resolve("start_failed"), 0);
          throw error;
        }
      },
    });
    let listener: McpHttpServer | null = null;
    const signals: [Deno.Signal, () => void][] = [
      ["SIGINT", () => ended.resolve("SIGINT")],
      ["SIGTERM", () => ended.resolve("SIGTERM")],
    ];
    // The SDK's stdio transport does not watch for the end of stdin: the client went away.
    const onEnd = () => ended.resolve("closed");
    try {
      if (http !== null) {
        listener = listen(http, server, io);
        io.stderr(
          `kagent-run mcp: serving MCP at ${listener.url} (send "Authorization: Bearer $` +
            `${http.tokenEnv}")\n`,
        );
      }
      io.revokeNetwork?.();
      // A server lives for many calls: hash natively from now on (audit/sha256.ts).
      preloadNativeSha256();
      for (const [signal, handler] of signals) Deno.addSignalListener(signal, handler);
      if (listener === null) {
        process.stdin.once("end", onEnd);
        const connection = await server.connect(
          new StdioServerTransport(process.stdin, process.stdout),
        );
        connection.closed.then(() => ended.resolve("closed"));
      }
      const reason = await ended.promise;
      await server.close(reason === "closed" ? "completed" : "aborted");
      if (startFailure !== null) throw startFailure;
      if (reason === "SIGINT") return EXIT.interrupted;
      return reason === "SIGTERM" ? EXIT.terminated : EXIT.ok;
    } finally {
      for (const [signal, handler] of signals) Deno.removeSignalListener(signal, handler);
      process.stdin.off("end", onEnd);
      await server.close("aborted");
      await listener?.shutdown();
      gateway?.close();
    }
  });
}

/** What `--http` serves with: the address, the token and the variable it came from. */
interface HttpSettings {
  address: LoopbackAddress;
  token: BearerToken;
  tokenEnv: string;
  /** `--session-idle-timeout` in milliseconds. */
  idleTimeoutMs: number;
}

/**
 * Reads `--http` and the token before anything opens.
 *
 * @throws {UsageError} for a non-loopback or malformed address, a bad variable name, or a token
 *   that is not set or too short (the message says how to set it, never the value).
 */
function httpSettings(
  values: Record<string, string | boolean | undefined>,
  io: CommandIo,
): HttpSettings {
  let address: LoopbackAddress;
  try {
    address = parseLoopbackAddress(String(values.http));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const tokenEnv = typeof values["token-env"] === "string"
    ? values["token-env"]
    : DEFAULT_TOKEN_ENV;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv)) {
    throw new UsageError(
      `Cannot use --token-env "${tokenEnv}": it must be an environment variable name (letters, ` +
        `digits and _, not starting with a digit)`,
    );
  }
  const value = io.env(tokenEnv) ?? "";
  const howToSet = `set it to a long random value before starting, for example ` +
    `export ${tokenEnv}="$(openssl rand -hex 32)", and give clients the header ` +
    `"Authorization: Bearer <that value>"`;
  if (value === "") {
    throw new UsageError(
      `Cannot serve MCP over HTTP on "${values.http}": the bearer token variable "${tokenEnv}" ` +
        `is not set; ${howToSet}`,
    );
  }
  const idle = values["session-idle-timeout"];
  const seconds = idle === undefined ? SESSION_IDLE_TIMEOUT_MS / 1000 : Number(idle);
  if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > 86_400) {
    throw new UsageError(
      `Cannot use --session-idle-timeout "${idle}": it must be a whole number of seconds from 1 ` +
        `to 86400`,
    );
  }
  try {
    return { address, token: new BearerToken(value), tokenEnv, idleTimeoutMs: seconds * 1000 };
  } catch (error) {
    throw new UsageError(
      `Cannot serve MCP over HTTP on "${values.http}": the bearer token in "${tokenEnv}" is too ` +
        `weak (${(error as Error).message}); ${howToSet}`,
    );
  }
}

/** The config with `name` added to `audit.secret_env`. */
function withSecretEnv(config: LoadedConfig, name: string): LoadedConfig {
  if (config.audit.secret_env.includes(name)) return config;
  return { ...config, audit: { ...config.audit, secret_env: [...config.audit.secret_env, name] } };
}

/**
 * Binds the HTTP listener.
 *
 * @throws {UsageError} when the address cannot be bound (taken, not available here).
 */
function listen(
  { address, token, idleTimeoutMs }: HttpSettings,
  runServer: McpRunServer,
  io: CommandIo,
): McpHttpServer {
  try {
    return McpHttpServer.start({
      address,
      token,
      runServer,
      idleTimeoutMs,
      onRefused: (message) => io.stderr(`kagent-run mcp: ${message}\n`),
    });
  } catch (error) {
    const host = address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname;
    throw new UsageError(
      `Cannot serve MCP on "${host}:${address.port}": ${(error as Error).message}; choose ` +
        `another port with --http, or 0 for a free one`,
    );
  }
}
