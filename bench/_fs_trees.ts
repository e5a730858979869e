/**
 * The trees of `fs_tools_bench.ts`: a real `node_modules` (7k – 19k files), a folder of 573
 * entries, and a flat folder of 200,000 empty files. Each says where it came from.
 *
 * @module
 */

import * as nodePath from "node:path";

/** Where the bench keeps its installed `node_modules` between runs. */
const NODE_MODULES_CACHE = nodePath.join(
  Deno.env.get("TMPDIR") ?? "/tmp",
  "kagent-run-bench-node-modules",
);
/** What `npm install` installs: about 13,400 files, 147 MB (242 packages). */
/** The pattern the grep rows search the `node_modules` tree for (171 lines with the package below). */
export const GREP_PATTERN = "process\\.env\\.[A-Z_]+";

/**
 * `rg` as the grep rows run it on `folder`: every file as the tool sees it: hidden ones too, no
 * ignore files, a 10 MiB cap, and links to files followed (`-L`: the tool searches a link's target
 * when the guard accepts it; the tree's links are the 19 files of `node_modules/.bin`, it has no
 * linked folders).
 */
export function ripgrepAnchorArgs(folder: string): string[] {
  return [
    "-n",
    "-L",
    "--no-config",
    "--no-ignore",
    "--hidden",
    "-g",
    "!.git",
    "--max-filesize",
    "10M",
    GREP_PATTERN,
    folder,
  ];
}

export const NODE_MODULES_PACKAGE = "@modelcontextprotocol/inspector@0.15.0";

/** A `node_modules` tree ready to copy, and what it is. */
export interface NodeModulesTree {
  /** The `node_modules` folder. */
  path: string;
  /** Regular files below it. */
  files: number;
  /** How it was obtained, for the bench's output. */
  source: string;
}

function countFiles(folder: string): number {
  let files = 0;
  for (const entry of Deno.readDirSync(folder)) {
    if (entry.isFile) files += 1;
    else if (entry.isDirectory) files += countFiles(nodePath.join(folder, entry.name));
  }
  return files;
}

/**
 * Finds the bench's `node_modules` (installed once into `$TMPDIR/kagent-run-bench-node-modules`
 * by `npm install --prefer-offline` of {@linkcode NODE_MODULES_PACKAGE}, from npm's cache when it
 * holds the packages) or, without npm, Deno's own npm cache when it holds 7,000 – 19,000 files.
 *
 * @throws {Error} when neither is available.
 */
export async function findNodeModules(): Promise<NodeModulesTree> {
  const installed = nodePath.join(NODE_MODULES_CACHE, "node_modules");
  const marker = nodePath.join(NODE_MODULES_CACHE, "installed");
  const describe = (path: string, source: string): NodeModulesTree => {
    const files = countFiles(path);
    return { path, files, source: `${source}: ${files} files` };
  };
  try {
    await Deno.stat(marker);
    return describe(installed, `npm install ${NODE_MODULES_PACKAGE} (kept in ${installed})`);
  } catch {
    // Not installed yet.
  }
  await Deno.mkdir(NODE_MODULES_CACHE, { recursive: true });
  await Deno.writeTextFile(
    nodePath.join(NODE_MODULES_CACHE, "package.json"),
    JSON.stringify({ name: "kagent-run-bench-tree", private: true }),
  );
  const npm = await new Deno.Command("npm", {
    args: [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      "--loglevel=error",
      NODE_MODULES_PACKAGE,
    ],
    cwd: NODE_MODULES_CACHE,
    stdout: "null",
    stderr: "piped",
  }).output().catch((error) => ({ success: false, stderr: new TextEncoder().encode(`${error}`) }));
  if (npm.success) {
    await Deno.writeTextFile(marker, new Date().toISOString());
    return describe(installed, `npm install ${NODE_MODULES_PACKAGE} (kept in ${installed})`);
  }
  const denoCache = nodePath.join(
    Deno.env.get("DENO_DIR") ?? nodePath.join(Deno.env.get("HOME") ?? "/root", ".cache", "deno"),
    "npm",
    "registry.npmjs.org",
  );
  const fallback = describe(denoCache, `Deno's npm cache ${denoCache} (npm install failed)`);
  if (fallback.files >= 7000 && fallback.files <= 19000) return fallback;
  throw new Error(
    `Cannot find a node_modules tree: npm install failed (${
      new TextDecoder().decode(npm.stderr).trim().slice(0, 300)
    }) and ${fallback.source}, not 7,000 – 19,000`,
  );
}

/** Copies `from` to `to` as real files (`cp -R`: no hard links, which the tools skip). */
export async function copyTree(from: string, to: string): Promise<void> {
  const copy = await new Deno.Command("cp", { args: ["-R", from, to], stderr: "piped" }).output();
  if (!copy.success) {
    throw new Error(`Cannot copy "${from}": ${new TextDecoder().decode(copy.stderr)}`);
  }
}

/** Entries of the listing folder: 500 files and 73 sub-folders. */
export const LISTING_ENTRIES = 573;

/** Writes the folder of {@linkcode LISTING_ENTRIES} entries (files of 100 bytes). */
export function writeListingFolder(folder: string): void {
  Deno.mkdirSync(folder);
  const content = new TextEncoder().encode("x".repeat(99) + "\n");
  for (let index = 0; index < 500; index += 1) {
    Deno.writeFileSync(nodePath.join(folder, `file_${String(index).padStart(3, "0")}.ts`), content);
  }
  for (let index = 0; index < LISTING_ENTRIES - 500; index += 1) {
    Deno.mkdirSync(nodePath.join(folder, `folder_${String(index).padStart(2, "0")}`));
  }
}

/** Files of the flat folder. */
export const FLAT_FILES = 200_000;

/** Writes {@linkcode FLAT_FILES} empty files into `folder`, names in no sorted order. */
export function writeFlatFolder(folder: string): void {
  Deno.mkdirSync(folder);
  const empty = new Uint8Array(0);
  for (let index = 0; index < FLAT_FILES; index += 1) {
    // A scrambled number, so that directory order and name order differ.
    const name = String((index * 7919) % FLAT_FILES).padStart(6, "0");
    Deno.writeFileSync(nodePath.join(folder, `f${name}.txt`), empty);
  }
}
