// Helpers for runs against loopback fakes of the cloud model providers: a server that records
// every request (URL, headers, JSON body) and answers from a handler, and a run of the CLI with a
// given `model` section and environment that returns what the run folder holds.
import * as nodePath from "node:path";
import { createProject, onlyRunDir, readJsonl, runCli } from "./_cli_helpers.ts";

/** One request the fake received. */
export interface FakeRequest {
  url: URL;
  headers: Headers;
  /** The body as JSON (`{}` when it is not JSON, e.g. a form). */
  body: Record<string, unknown>;
  text: string;
}

/** A server-sent-events response of `events` (each already framed), with extra headers. */
export function sse(events: string[], headers: Record<string, string> = {}): Response {
  return new Response(events.join(""), {
    headers: { "content-type": "text/event-stream", ...headers },
  });
}

/** One `event: <type>` / `data: <JSON>` frame, the type taken from the data's `type`. */
export function typedEvent(data: { type: string; [key: string]: unknown }): string {
  return `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A plain `data: <JSON>` frame. */
export function dataEvent(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/** What {@linkcode cloudRun} returns. */
export interface CloudRun {
  code: number;
  stdout: string;
  stderr: string;
  requests: FakeRequest[];
  events: Record<string, unknown>[];
  runDir: string;
  /** Every file of the run folder, as text. */
  files: Map<string, string>;
  /** The workspace folder (deleted after the run; its files are read into `workspaceFiles`). */
  workspaceFiles: Map<string, string>;
}

/**
 * Runs the CLI with `model` (or the one made from the fake's origin; its `base_url` pointed at the
 * fake), the
 * task, and `env`, against a fake answering `handler`; permissions allow writing `notes.md`.
 */
export async function cloudRun(
  model: Record<string, unknown> | ((origin: string) => Record<string, unknown>),
  handler: (request: FakeRequest, index: number) => Response | Promise<Response>,
  env: Record<string, string>,
  basePath = "",
): Promise<CloudRun> {
  const requests: FakeRequest[] = [];
  await using server = serveFake(requests, handler);
  const origin = `http://127.0.0.1:${server.port}`;
  await using project = await createProject({
    config: {
      model: {
        base_url: `${origin}${basePath}`,
        retries: 0,
        ...(typeof model === "function" ? model(origin) : model),
      },
      task: "Read the README, then answer",
    },
    permissions: {
      rules: [{ tools: ["fs.write_file"], paths: ["notes.md"], decision: "allow" }],
    },
  });
  const run = await runCli(["--config", project.configPath], { env });
  const runDir = await onlyRunDir(project);
  const files = new Map<string, string>();
  for await (const path of walk(runDir)) files.set(path, await Deno.readTextFile(path));
  const workspaceFiles = new Map<string, string>();
  for await (const path of walk(project.sandbox.workspace)) {
    workspaceFiles.set(
      nodePath.relative(project.sandbox.workspace, path),
      await Deno.readTextFile(path),
    );
  }
  return {
    ...run,
    requests,
    events: await readJsonl(nodePath.join(runDir, "events.jsonl")),
    runDir,
    files,
    workspaceFiles,
  };
}

function serveFake(
  requests: FakeRequest[],
  handler: (request: FakeRequest, index: number) => Response | Promise<Response>,
): { port: number } & AsyncDisposable {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const text = await request.text();
      const received: FakeRequest = {
        url: new URL(request.url),
        headers: request.headers,
        body: parseObject(text),
        text,
      };
      requests.push(received);
      return await handler(received, requests.length - 1);
    },
  );
  return {
    port: server.addr.port,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

async function* walk(folder: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(folder)) {
    const path = nodePath.join(folder, entry.name);
    if (entry.isDirectory) yield* walk(path);
    else if (entry.isFile) yield path;
  }
}

function parseObject(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
