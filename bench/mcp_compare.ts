/**
 * Per-call time of reading one file through `kagent-run mcp` (`fs.read_file`, the whole pipeline:
 * schema, policy, path guard, Worker, audit) against `@modelcontextprotocol/server-filesystem`'s
 * `read_text_file`, on the same file with the same official SDK client, calls interleaved so all
 * sides see the same machine load. A third side is `kagent-run mcp --http 127.0.0.1:0` (Streamable
 * HTTP with the bearer token), compared with stdio. Not a `Deno.bench` file (`deno bench` skips
 * it); run it alone:
 *
 * ```sh
 * deno run --unstable-worker-options --allow-read --allow-write --allow-env --allow-run \
 *   --allow-net=127.0.0.1 bench/mcp_compare.ts [CALLS]
 * ```
 *
 * The filesystem server is started with `npx -y` (npm fetches it on first use); when npx is
 * missing or the server cannot start, that side is skipped with a printed reason.
 *
 * @module
 */

import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** Calls timed on each side. @default 300 */
const CALLS = Number(Deno.args[0] ?? 300);
/** Untimed calls first on each side (Worker start, JIT). */
const WARMUP = 20;
const repository = nodePath.resolve(nodePath.dirname(fileURLToPath(import.meta.url)), "..");

/** One side: a connected client and how to call its read tool on the file. */
interface Side {
  name: string;
  client: Client;
  read(): Promise<CallToolResult>;
  times: number[];
  /** Ends a server the client does not own (the HTTP one). */
  close?: () => Promise<void>;
}

/** `deno run` with the `kagent-run` task's flags, then main.ts and `args`. */
function kagentArgs(args: string[]): string[] {
  return [
    "run",
    "--no-prompt",
    "--unstable-worker-options",
    "--allow-read",
    "--allow-write",
    "--allow-env",
    "--allow-run",
    "--allow-net",
    nodePath.join(repository, "main.ts"),
    ...args,
  ];
}

function readSide(
  name: string,
  client: Client,
  file: string,
  close?: () => Promise<void>,
): Side {
  return {
    name,
    client,
    read: () =>
      client.callTool({
        name: "fs.read_file",
        arguments: { path: nodePath.basename(file) },
      }) as Promise<CallToolResult>,
    times: [],
    ...(close === undefined ? {} : { close }),
  };
}

async function kagentSide(configPath: string, file: string): Promise<Side> {
  const client = new Client({ name: "mcp-compare", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: kagentArgs(["mcp", "--config", configPath]),
      stderr: "ignore",
    }),
  );
  return readSide("kagent-run mcp fs.read_file", client, file);
}

/** `kagent-run mcp --http 127.0.0.1:0` with a fresh token; the client sends it. */
async function kagentHttpSide(configPath: string, file: string): Promise<Side> {
  const token = crypto.randomUUID();
  const child = new Deno.Command(Deno.execPath(), {
    args: kagentArgs(["mcp", "--config", configPath, "--http", "127.0.0.1:0"]),
    env: { KAGENT_RUN_MCP_TOKEN: token },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const lines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let printed = "";
  let url: string | null = null;
  while (url === null) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`kagent-run mcp --http did not start: ${printed}`);
    printed += value;
    url = /serving MCP at (\S+)/.exec(printed)?.[1] ?? null;
  }
  (async () => {
    while (!(await lines.read()).done);
  })();
  const client = new Client({ name: "mcp-compare", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return readSide("kagent-run mcp --http fs.read_file", client, file, async () => {
    child.kill("SIGTERM");
    await child.status;
  });
}

async function filesystemSide(workspace: string, file: string): Promise<Side | string> {
  try {
    await new Deno.Command("npx", { args: ["--version"], stdout: "null", stderr: "null" })
      .output();
  } catch (error) {
    return `npx cannot run here (${(error as Error).message})`;
  }
  const client = new Client({ name: "mcp-compare", version: "1.0.0" });
  try {
    await client.connect(
      new StdioClientTransport({
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-filesystem", workspace],
        stderr: "ignore",
      }),
    );
  } catch (error) {
    return `npx -y @modelcontextprotocol/server-filesystem did not start (${
      (error as Error).message
    })`;
  }
  const version = client.getServerVersion();
  return {
    name: `server-filesystem (serverInfo ${version?.version ?? "?"}) read_text_file`,
    client,
    read: () =>
      client.callTool({ name: "read_text_file", arguments: { path: file } }) as Promise<
        CallToolResult
      >,
    times: [],
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

function mean(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

async function main(): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "mcp-compare-" });
  const workspace = nodePath.join(root, "workspace");
  await Deno.mkdir(workspace);
  // 2,000 bytes, 50 lines: the read_file bench's small file.
  const file = nodePath.join(workspace, "small.txt");
  await Deno.writeTextFile(
    file,
    Array.from({ length: 50 }, (_, index) => `line ${index} `.padEnd(39, "x") + "\n").join(""),
  );
  const realWorkspace = await Deno.realPath(workspace);
  const realFile = nodePath.join(realWorkspace, "small.txt");
  const configPath = nodePath.join(root, "config", "agent.jsonc");
  await Deno.mkdir(nodePath.dirname(configPath));
  await Deno.writeTextFile(
    configPath,
    JSON.stringify({ workspace: "../workspace", runs_dir: "../runs" }),
  );
  const kagent = await kagentSide(configPath, realFile);
  const http = await kagentHttpSide(configPath, realFile);
  const sides: Side[] = [kagent, http];
  const filesystem = await filesystemSide(realWorkspace, realFile);
  if (typeof filesystem === "string") console.log(`skipped the filesystem server: ${filesystem}`);
  else sides.push(filesystem);
  try {
    for (const side of sides) {
      const first = await side.read();
      if (first.isError) throw new Error(`${side.name} failed: ${JSON.stringify(first)}`);
      for (let index = 0; index < WARMUP; index += 1) await side.read();
    }
    for (let index = 0; index < CALLS; index += 1) {
      for (const side of sides) {
        const start = performance.now();
        await side.read();
        side.times.push(performance.now() - start);
      }
    }
    console.log(`${CALLS} calls each, interleaved, on a 2,000-byte file (ms per call):`);
    for (const side of sides) {
      console.log(
        `  ${side.name.padEnd(52)} median ${median(side.times).toFixed(3)}  mean ${
          mean(side.times).toFixed(3)
        }`,
      );
    }
    const ratio = (label: string, top: Side, bottom: Side) =>
      console.log(
        `ratio ${label}: median ${(median(top.times) / median(bottom.times)).toFixed(2)}x, ` +
          `mean ${(mean(top.times) / mean(bottom.times)).toFixed(2)}x`,
      );
    if (typeof filesystem !== "string") {
      ratio("kagent-run / server-filesystem", kagent, filesystem);
    }
    ratio("kagent-run over HTTP / over stdio", http, kagent);
  } finally {
    for (const side of sides) {
      await side.client.close();
      await side.close?.();
    }
    await Deno.remove(root, { recursive: true });
  }
}

if (import.meta.main) await main();
