/**
 * The stdio transport of an MCP server kagent-run starts: a process of its own group (`setsid`),
 * started by the confinement module (`startConfinedProcess`) under the server's isolation plan,
 * with exactly the environment it is given (nothing inherited), newline-delimited JSON-RPC on its
 * stdin and stdout, its stderr drained and kept short. Closing it kills the whole group.
 *
 * @module
 */

import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import {
  endConfinedProcess,
  type IsolationPlan,
  killProcessGroup,
  startConfinedProcess,
} from "../exec/mod.ts";

/** Most stderr bytes kept (the tail), for start-up error messages. */
const STDERR_TAIL_BYTES = 4096;

/** How to start a stdio MCP server. */
export interface StdioProcessOptions {
  /** Absolute path of `setsid`, so the server leads its own process group. */
  setsidPath: string;
  /** The program (a name searched in `env.PATH`, or a path) and its arguments. */
  command: string;
  args: readonly string[];
  /** The server's whole environment: nothing else is inherited. */
  env: Record<string, string>;
  /** Absolute working folder. */
  cwd: string;
  /** The confinement (`McpLaunch.isolation`). @default `{ mode: "none" }` */
  isolation?: IsolationPlan;
}

/**
 * A {@linkcode Transport} over a child process in its own process group.
 *
 * @example
 * ```ts ignore
 * const transport = new StdioProcessTransport({
 *   setsidPath: "/usr/bin/setsid", command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"],
 *   env: { PATH: "/usr/bin:/bin" }, cwd: "/tmp",
 * });
 * await client.connect(transport);
 * ```
 */
export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The protocol version the client negotiated (set by the SDK's client after `initialize`). */
  protocolVersion: string | null = null;
  readonly #options: StdioProcessOptions;
  #child: Deno.ChildProcess | null = null;
  #writer: WritableStreamDefaultWriter<Uint8Array> | null = null;
  #stderrTail = "";
  #closed = false;
  readonly #exited = Promise.withResolvers<void>();

  constructor(options: StdioProcessOptions) {
    this.#options = options;
  }

  /** The last few KiB the server wrote on stderr. */
  get stderrTail(): string {
    return this.#stderrTail;
  }

  /** Settles when the server's process has exited (never before {@linkcode start}). */
  get exited(): Promise<void> {
    return this.#exited.promise;
  }

  /** The server's process id (its process group's id), or null before start. */
  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  /** Records the negotiated protocol version. */
  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  /** Starts the process. @throws {Deno.errors.NotFound} when `setsid` cannot be run. */
  start(): Promise<void> {
    const { setsidPath, command, args, env, cwd } = this.#options;
    const child = startConfinedProcess({
      program: command,
      args,
      cwd,
      env,
      isolation: this.#options.isolation ?? { mode: "none" },
      setsidPath,
    });
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    void this.#readStdout(child.stdout);
    void this.#readStderr(child.stderr);
    child.status.then(() => this.#finish(), () => this.#finish()).finally(() =>
      this.#exited.resolve()
    );
    return Promise.resolve();
  }

  /** Writes one message as a line. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#writer === null || this.#closed) throw new Error("the server is not running");
    await this.#writer.write(new TextEncoder().encode(serializeMessage(message)));
  }

  /** Kills the server's whole process group and waits for the server to exit. */
  async close(): Promise<void> {
    const child = this.#child;
    if (child === null) return;
    const ended = endConfinedProcess(child);
    try {
      await this.#writer?.close();
    } catch {
      // The pipe is closed already.
    }
    await ended;
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#child !== null) {
      try {
        killProcessGroup(this.#child.pid);
      } catch {
        // Nothing of the group is left.
      }
    }
    this.onclose?.();
  }

  async #readStdout(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let pending = "";
    try {
      for await (const chunk of stream) {
        pending += decoder.decode(chunk, { stream: true });
        let newline = pending.indexOf("\n");
        while (newline !== -1) {
          const line = pending.slice(0, newline).replace(/\r$/, "");
          pending = pending.slice(newline + 1);
          newline = pending.indexOf("\n");
          if (line.trim() === "") continue;
          let message: JSONRPCMessage;
          try {
            message = deserializeMessage(line);
          } catch (error) {
            this.onerror?.(new Error(`the server wrote a line that is not JSON-RPC: ${error}`));
            continue;
          }
          this.onmessage?.(message);
        }
      }
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  async #readStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of stream) {
        this.#stderrTail = (this.#stderrTail + decoder.decode(chunk, { stream: true }))
          .slice(-STDERR_TAIL_BYTES);
      }
    } catch {
      // The stream ended with the process.
    }
  }
}
