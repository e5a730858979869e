/**
 * Runs {@linkcode runConfined} inside a permission-narrowed Worker, for tests. Started as a
 * program (`deno run --unstable-worker-options --allow-all _confined_worker_fixture.ts <json>`,
 * with `{ spec, programs, dir }`), it starts itself as a Worker allowed to run only `setsid`,
 * `kill` and `programs` and to read and write only `dir`, and prints one JSON line: the outcome
 * (or the error), and what `Deno.kill` (a harmless SIGCONT to the parent) does in that Worker.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { type CommandSpec, runConfined } from "./spawn_confined.ts";

interface Request {
  spec: CommandSpec;
  programs: string[];
  dir: string;
  setsidPath: string;
  killPath: string;
}

const inWorker = typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !==
  "undefined";

if (inWorker) {
  self.onmessage = async (event: MessageEvent<CommandSpec>) => {
    let denoKill = "allowed";
    try {
      Deno.kill(Deno.ppid, "SIGCONT");
    } catch (error: unknown) {
      denoKill = error instanceof Error ? error.name : String(error);
    }
    try {
      self.postMessage({ outcome: await runConfined(event.data), denoKill });
    } catch (error: unknown) {
      self.postMessage({
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      });
    }
  };
} else if (import.meta.main) {
  const request = JSON.parse(Deno.args[0] ?? "{}") as Request;
  const worker = new Worker(import.meta.url, {
    type: "module",
    deno: {
      permissions: {
        run: [request.setsidPath, request.killPath, ...request.programs],
        read: [request.dir],
        write: [request.dir],
        env: false,
        net: false,
        ffi: false,
        sys: false,
        import: false,
      },
    },
  } as WorkerOptions);
  worker.onmessage = (event) => {
    console.log(JSON.stringify(event.data));
    worker.terminate();
  };
  worker.onerror = (event) => {
    event.preventDefault();
    console.log(JSON.stringify({ error: event.message }));
    worker.terminate();
  };
  worker.postMessage(request.spec);
}
