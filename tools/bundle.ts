/**
 * Builds the bundle users run (`deno task bundle`): `deno bundle --code-splitting` of the four
 * entry points into one folder, so that code the command at hand does not need (other
 * subcommands, the MCP SDK, the YAML parser, the report renderer) stays in chunks that load only
 * when imported. Start-up measured with `bench/startup_bench.ts` (issue 16).
 *
 * The folder, after a build (chunk names carry content hashes and change from build to build):
 *
 * ```text
 * <out>/kagent-run.js                          the entry: deno run <flags> <out>/kagent-run.js …
 * <out>/src/worker/worker_main.js              the tool Worker's entry
 * <out>/src/network/network_worker_main.js     the network Worker's entry
 * <out>/src/tasks/postgres_worker_main.js      the shared task store's Worker entry
 * <out>/chunk-*.js, <out>/*-<hash>.js           shared and lazily loaded code
 * ```
 *
 * The whole folder is the program: copy or pack it whole. `defaultWorkerEntry()` and
 * `defaultNetworkWorkerEntry()` find the Worker entries from the chunk they are in (chunks are
 * always at the folder's top).
 *
 * Usage: `deno run --allow-read --allow-write --allow-run --allow-env tools/bundle.ts [OUT_DIR]`
 * (default `dist`, relative to the repository). The folder is emptied first. Exits 1 with
 * `deno bundle`'s own message when it fails.
 *
 * @module
 */

import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root folder. */
const REPOSITORY = nodePath.resolve(nodePath.dirname(fileURLToPath(import.meta.url)), "..");

/** The entry points, relative to the repository; the first is the program users start. */
export const BUNDLE_ENTRIES: readonly string[] = Object.freeze([
  "main.ts",
  "src/worker/worker_main.ts",
  "src/network/network_worker_main.ts",
  "src/tasks/postgres_worker_main.ts",
]);

/** The file users start, relative to the bundle folder. */
export const BUNDLE_MAIN = "kagent-run.js";

/**
 * Builds the bundle into `outDir` (created, or emptied first).
 *
 * @param outDir Folder to write; absolute, or relative to the repository.
 * @returns The absolute path of the entry users start (`<outDir>/kagent-run.js`).
 * @throws {Error} When `deno bundle` fails, with its message.
 */
export async function buildBundle(outDir: string): Promise<string> {
  const folder = nodePath.resolve(REPOSITORY, outDir);
  await Deno.remove(folder, { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  const result = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--platform",
      "deno",
      "--code-splitting",
      "--outdir",
      folder,
      ...BUNDLE_ENTRIES,
    ],
    cwd: REPOSITORY,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!result.success) {
    throw new Error(`deno bundle failed: ${new TextDecoder().decode(result.stderr).trim()}`);
  }
  await lazyRequireShim(folder);
  const entry = nodePath.join(folder, BUNDLE_MAIN);
  // No chunk imports an entry, so the entry can take the program's name.
  await Deno.rename(nodePath.join(folder, "main.js"), entry);
  return entry;
}

/** The `require` shim `deno bundle` writes (esbuild's, for CommonJS code that requires built-ins). */
const REQUIRE_SHIM =
  'import { createRequire as __deno_internal_createRequire } from "node:module";\n' +
  "var __require = __deno_internal_createRequire(import.meta.url);\n";

/**
 * The same shim, loading nothing until a `require` runs: `process.getBuiltinModule` is Node's
 * synchronous import of a built-in module (Node 22.3+, Deno 2). Only the YAML parser's CommonJS
 * build requires built-ins (`node:process`, `node:buffer`), and only when a skill's front matter is
 * parsed; the eager `node:module` import cost every start 10 – 20 ms in each of the main thread
 * and the tool Worker (issue 16).
 */
const LAZY_REQUIRE_SHIM = "var __require = (id) => globalThis.process.getBuiltinModule(id);\n";

/**
 * Replaces the eager `require` shim in the chunk that holds it (exactly one, or none when no
 * CommonJS code requires a built-in).
 *
 * @throws {Error} When the shim appears in more than one file, or a chunk still imports
 *   `node:module` in another shape (a new `deno bundle` output to look at).
 */
async function lazyRequireShim(folder: string): Promise<void> {
  let replaced = 0;
  for await (const file of javascriptFiles(folder)) {
    const text = await Deno.readTextFile(file);
    if (!text.includes('from "node:module"')) continue;
    if (!text.includes(REQUIRE_SHIM)) {
      throw new Error(`Cannot make the require shim lazy: "${file}" imports node:module otherwise`);
    }
    await Deno.writeTextFile(file, text.replace(REQUIRE_SHIM, LAZY_REQUIRE_SHIM));
    replaced++;
  }
  if (replaced > 1) {
    throw new Error(`Cannot make the require shim lazy: found in ${replaced} files`);
  }
}

/** Every `.js` file below `folder`. */
async function* javascriptFiles(folder: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(folder)) {
    const path = nodePath.join(folder, entry.name);
    if (entry.isDirectory) yield* javascriptFiles(path);
    else if (entry.isFile && entry.name.endsWith(".js")) yield path;
  }
}

if (import.meta.main) {
  try {
    console.log(`Bundled: ${await buildBundle(Deno.args[0] ?? "dist")}`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    Deno.exit(1);
  }
}
