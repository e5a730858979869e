/**
 * Per-call time of two calls through `kagent-run mcp` (the whole pipeline: schema, policy, path
 * guard, Worker, audit) against `@modelcontextprotocol/server-filesystem`, with the same official
 * SDK client, calls interleaved so all sides see the same machine load:
 *
 * - read: `fs.read_file` of a 2,000-byte file against `read_text_file` of the same file;
 * - list: `fs.list_files` of a folder of 573 entries (`_fs_trees.ts`, the fs_tools bench's) against
 *   `list_directory` of the same folder (which names entries and their kind; `fs.list_files` also
 *   gives each file's size, an lstat each).
 *
 * A third side is `kagent-run mcp --http 127.0.0.1:0` (Streamable HTTP with the bearer token),
 * compared with stdio. Not a `Deno.bench` file (`deno bench` skips it); run it alone:
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
import { LISTING_ENTRIES, writeListingFolder } from "./_fs_trees.ts";

/** Calls timed on each side. @default 300 */
const CALLS = Number(Deno.args[0] ?? 300);
/** Untimed calls first on each side (Worker start, JIT). */
const WARMUP = 20;
const repository = nodePath.resolve(nodePath.dirname(fileURLToPath(import.meta.url)), "..");

/** What each side is timed on. */
type Operation = "read" | "list";
const OPERATIONS: readonly Operation[] = ["read", "list"];

/** One side: a connected client and how to call its read and list tools. */
interface Side {
  name: string;
  client: Client;
  call: Record<Operation, () => Promise<CallToolResult>>;
  /** Milliseconds of each timed call, by operation. */
  times: Record<Operation, number[]>;
  /** Ends a server the client does not own (the HTTP one). */
  close?: () => Promise<void>;
}

/** Where the sides read and list: the file and the folder (real paths, the filesystem server's). */
interface Targets {
  file: string;
  folder: string;
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

function kagentTools(
  name: string,
  client: Client,
  targets: Targets,
  close?: () => Promise<void>,
): Side {
  const call = (tool: string, args: Record<string, unknown>) => () =>
    client.callTool({ name: tool, arguments: args }) as Promise<CallToolResult>;
  return {
    name,
    client,
    call: {
      read: call("fs.read_file", { path: nodePath.basename(targets.file) }),
      list: call("fs.list_files", { path: nodePath.basename(targets.folder), limit: 1000 }),
    },
    times: { read: [], list: [] },
    ...(close === undefined ? {} : { close }),
  };
}

async function kagentSide(configPath: string, targets: Targets): Promise<Side> {
  const client = new Client({ name: "mcp-compare", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: kagentArgs(["mcp", "--config", configPath]),
      stderr: "ignore",
    }),
  );
  return kagentTools("kagent-run mcp", client, targets);
}

/** `kagent-run mcp --http 127.0.0.1:0` with a fresh token; the client sends it. */
async function kagentHttpSide(configPath: string, targets: Targets): Promise<Side> {
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
  return kagentTools("kagent-run mcp --http", client, targets, async () => {
    child.kill("SIGTERM");
    await child.status;
  });
}

async function filesystemSide(workspace: string, targets: Targets): Promise<Side | string> {
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
  const call = (tool: string, path: string) => () =>
    client.callTool({ name: tool, arguments: { path } }) as Promise<CallToolResult>;
  return {
    name: `server-filesystem ${version?.version ?? "?"}`,
    client,
    call: {
      read: call("read_text_file", targets.file),
      list: call("list_directory", targets.folder),
    },
    times: { read: [], list: [] },
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
  writeListingFolder(nodePath.join(workspace, "listing"));
  const realWorkspace = await Deno.realPath(workspace);
  const targets: Targets = {
    file: nodePath.join(realWorkspace, "small.txt"),
    folder: nodePath.join(realWorkspace, "listing"),
  };
  const configPath = nodePath.join(root, "config", "agent.jsonc");
  await Deno.mkdir(nodePath.dirname(configPath));
  await Deno.writeTextFile(
    configPath,
    JSON.stringify({ workspace: "../workspace", runs_dir: "../runs" }),
  );
  const kagent = await kagentSide(configPath, targets);
  const http = await kagentHttpSide(configPath, targets);
  const sides: Side[] = [kagent, http];
  const filesystem = await filesystemSide(realWorkspace, targets);
  if (typeof filesystem === "string") console.log(`skipped the filesystem server: ${filesystem}`);
  else sides.push(filesystem);
  try {
    for (const side of sides) {
      for (const operation of OPERATIONS) {
        const first = await side.call[operation]();
        if (first.isError) {
          throw new Error(`${side.name} ${operation} failed: ${JSON.stringify(first)}`);
        }
        for (let index = 0; index < WARMUP; index += 1) await side.call[operation]();
      }
    }
    const listed = await kagent.call.list();
    const lines = (listed.content as { text?: string }[])[0]?.text?.split("\n").length ?? 0;
    if (lines !== LISTING_ENTRIES) {
      throw new Error(`fs.list_files listed ${lines} lines, not ${LISTING_ENTRIES}`);
    }
    for (let index = 0; index < CALLS; index += 1) {
      for (const operation of OPERATIONS) {
        for (const side of sides) {
          const start = performance.now();
          await side.call[operation]();
          side.times[operation].push(performance.now() - start);
        }
      }
    }
    const described: Record<Operation, string> = {
      read: "read a 2,000-byte file (fs.read_file, read_text_file)",
      list: `list a folder of ${LISTING_ENTRIES} entries (fs.list_files, list_directory)`,
    };
    for (const operation of OPERATIONS) {
      console.log(`${CALLS} calls each, interleaved: ${described[operation]}, ms per call:`);
      for (const side of sides) {
        const times = side.times[operation];
        console.log(
          `  ${side.name.padEnd(40)} median ${median(times).toFixed(3)}  mean ${
            mean(times).toFixed(3)
          }`,
        );
      }
      const ratio = (label: string, top: Side, bottom: Side) => {
        const [above, below] = [top.times[operation], bottom.times[operation]];
        console.log(
          `  ratio ${label}: median ${(median(above) / median(below)).toFixed(2)}x, ` +
            `mean ${(mean(above) / mean(below)).toFixed(2)}x`,
        );
      };
      if (typeof filesystem !== "string") {
        ratio("kagent-run / server-filesystem", kagent, filesystem);
      }
      ratio("kagent-run over HTTP / over stdio", http, kagent);
    }
  } finally {
    for (const side of sides) {
      await side.client.close();
      await side.close?.();
    }
    await Deno.remove(root, { recursive: true });
  }
}

if (import.meta.main) await main();
