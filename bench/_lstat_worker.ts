/**
 * A Worker for `call_phases.ts`: lstats the names it is sent in their folder, `times` times, and
 * answers the median milliseconds of one pass, so that a pass under the tool Worker's Deno
 * permissions (a read allowlist) can be set beside the same pass in the main thread.
 *
 * @module
 */

/** The global scope of a module Worker, as far as this module needs it. */
interface WorkerScope {
  onmessage:
    | ((event: MessageEvent<{ folder: string; names: string[]; times: number }>) => void)
    | null;
  postMessage(message: number): void;
}

const scope = globalThis as unknown as WorkerScope;
scope.onmessage = (event) => {
  const { folder, names, times } = event.data;
  const passes: number[] = [];
  for (let index = 0; index < times; index += 1) {
    const started = performance.now();
    for (const name of names) Deno.lstatSync(`${folder}/${name}`);
    passes.push(performance.now() - started);
  }
  passes.sort((a, b) => a - b);
  scope.postMessage(passes[Math.floor(passes.length / 2)] ?? NaN);
};
