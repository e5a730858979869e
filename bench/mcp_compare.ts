/**
 * Per-call time of reading one file through `kagent-run mcp` (`fs.read_file`, the whole pipeline:
 * schema, policy, path guard, Worker, audit) against `@modelcontextprotocol/server-filesystem`'s
 * `read_text_file`, on the same file with the same official SDK client, calls interleaved so both
 * see the same machine load. Not a `Deno.bench` file (`deno bench` skips it); run it alone:
 *
 * ```sh
 * deno run --unstable-worker-options --allow-read --allow-write --allow-env --allow-run \
 *   bench/mcp_compare.ts [CALLS]
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
}

async function kagentSide(root: string, file: string): Promise<Side> {
  const configDir = nodePath.join(root, "config");
  await Deno.mkdir(configDir);
  const configPath = nodePath.join(configDir, "agent.jsonc");
  await Deno.writeTextFile(
    configPath,
    JSON.stringify({ workspace: "../workspace", runs_dir: "../runs" }),
  );
  const client = new Client({ name: "mcp-compare", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: [
        "run",
        "--no-prompt",
        "--unstable-worker-options",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        "--allow-run",
        "--allow-net",
        nodePath.join(repository, "main.ts"),
        "mcp",
        "--config",
        configPath,
      ],
      stderr: "ignore",
    }),
  );
  return {
    name: "kagent-run mcp fs.read_file",
    client,
    read: () =>
      client.callTool({
        name: "fs.read_file",
        arguments: { path: nodePath.basename(file) },
      }) as Promise<CallToolResult>,
    times: [],
  };
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
  const sides: Side[] = [await kagentSide(root, realFile)];
  const other = await filesystemSide(realWorkspace, realFile);
  if (typeof other === "string") console.log(`skipped the filesystem server: ${other}`);
  else sides.push(other);
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
        `  ${side.name.padEnd(44)} median ${median(side.times).toFixed(3)}  mean ${
          mean(side.times).toFixed(3)
        }`,
      );
    }
    const [kagent, filesystem] = sides;
    if (kagent !== undefined && filesystem !== undefined) {
      console.log(
        `ratio kagent-run / server-filesystem: median ${
          (median(kagent.times) / median(filesystem.times)).toFixed(2)
        }x, mean ${(mean(kagent.times) / mean(filesystem.times)).toFixed(2)}x`,
      );
    }
  } finally {
    for (const side of sides) await side.client.close();
    await Deno.remove(root, { recursive: true });
  }
}

if (import.meta.main) await main();
