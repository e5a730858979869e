/**
 * What the values of sensitive files cost a run (issue 23 §5): the start-up scan
 * (`sensitiveFileSecrets`) over a small and a large tree, side by side with the mount-profile scan
 * one command under bubblewrap pays on the same tree (`commandProfile`, the anchor), and building
 * a `Redactor` (once a command) with no file values and with {@linkcode MAX_FILE_SECRETS} of them.
 * Not a `Deno.bench` file; run it alone (the argument is the large tree's file count):
 *
 * ```sh
 * deno run --allow-read --allow-write bench/sensitive_file_scan.ts 20000
 * ```
 *
 * @module
 */

import * as nodePath from "node:path";
import { Redactor } from "../src/audit/mod.ts";
import { commandProfile } from "../src/exec/command_profile.ts";
import { MAX_FILE_SECRETS, sensitiveFileSecrets } from "../src/session/sensitive_file_secrets.ts";

const sensitive = (path: string) => /\/\.env(\.[^/]*)?$|\.(?:key|pem)$/.test(path) ? "env" : null;

/** A tree of `files` files, 50 a folder, with a `.env` every 1,000 files. */
async function tree(files: number): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "kagent-scan-bench-" });
  for (let index = 0; index < files; index++) {
    const folder = nodePath.join(root, `d${Math.floor(index / 50)}`);
    if (index % 50 === 0) await Deno.mkdir(folder);
    const name = index % 1000 === 999 ? ".env" : `f${index}.ts`;
    const text = name === ".env" ? `API_TOKEN=token-${index}-abcdef\n` : "export {};\n";
    await Deno.writeTextFile(nodePath.join(folder, name), text);
  }
  return root;
}

/** Median milliseconds of each of `fns` over `runs` rounds, after one warm-up, run interleaved. */
function medians(fns: (() => void)[], runs = 9): number[] {
  for (const fn of fns) fn();
  const times: number[][] = fns.map(() => []);
  for (let run = 0; run < runs; run++) {
    for (const [index, fn] of fns.entries()) {
      const started = performance.now();
      fn();
      times[index]?.push(performance.now() - started);
    }
  }
  return times.map((list) => list.sort((left, right) => left - right)[Math.floor(runs / 2)] ?? 0);
}

const large = Number(Deno.args[0] ?? 20_000);
for (const files of [100, large]) {
  const root = await tree(files);
  try {
    const [scan = 0, profile = 0] = medians([() => {
      sensitiveFileSecrets({ roots: [root], sensitiveMatch: sensitive, exclusions: [] });
    }, () => {
      commandProfile({
        bwrapPath: "/usr/bin/bwrap",
        system: [],
        writeRoots: [root],
        readRoots: [],
        protectedPaths: [],
        writableExceptions: [],
        programFolders: [],
        skillDirs: [],
        home: nodePath.join(root, "home"),
        tmpDir: nodePath.join(root, "tmp"),
        sensitiveMatch: sensitive,
        unmasked: [],
        gitWrite: false,
        network: false,
        processLimit: null,
        scanExclusions: [],
      });
    }]);
    console.log(
      `${files} files: start-up scan ${scan.toFixed(2)} ms, one command's profile scan ` +
        `${profile.toFixed(2)} ms (ratio ${(scan / profile).toFixed(2)})`,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const values = Array.from({ length: MAX_FILE_SECRETS }, (_, index) => `value-${index}-Zq81kV03`);
const [none = 0, full = 0] = medians([
  () => new Redactor({ secrets: ["one-secret-env-value"] }).redactText("x".repeat(64)),
  () => new Redactor({ secrets: values }).redactText("x".repeat(64)),
]);
console.log(
  `Redactor built and used once: 1 secret ${none.toFixed(3)} ms, ${MAX_FILE_SECRETS} secrets ` +
    `${full.toFixed(3)} ms (ratio ${(full / none).toFixed(2)})`,
);
