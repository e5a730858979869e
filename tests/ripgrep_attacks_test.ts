/**
 * Attack pairs for the ripgrep fast path of `fs.grep_files`, through the whole pipeline
 * (`run.call`, the session's prefilter on the main thread, the tool Worker): an `rg` on PATH that
 * names files outside the workspace, through links, or `/etc/passwd` leaks nothing and the real
 * match is still found; an `rg` that hangs leaves no process behind and the built-in answers; an
 * `rg` inside the workspace is never started; the real `rg` runs and agrees.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { openTestRun } from "../src/testing/run_harness.ts";
import { writeTree } from "../src/testing/temp_sandbox.ts";
import type { GrepFilesData } from "../src/toolsets/fs/grep_files.ts";
import { assertLogsClean, assertNoLeak, CANARY, SECRETS } from "./_attack_helpers.ts";

const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";
const hasRipgrep = await new Deno.Command("rg", { args: ["--version"], stdout: "null" })
  .output().then((result) => result.success, () => false);

/** A fake `rg` in `folder`, first on the run's PATH. */
async function fakeRipgrep(folder: string, body: string): Promise<void> {
  await Deno.mkdir(folder, { recursive: true });
  await Deno.writeTextFile(nodePath.join(folder, "rg"), `#!/bin/sh\n${body}\n`);
  await Deno.chmod(nodePath.join(folder, "rg"), 0o755);
}

/** The command lines of the processes that mention `marker`. */
async function processesWith(marker: string): Promise<string[]> {
  const result = await new Deno.Command("ps", { args: ["-eo", "args="], stdout: "piped" })
    .output();
  return new TextDecoder().decode(result.stdout).split("\n")
    .filter((line) => line.includes(marker));
}

Deno.test("attack: an rg on PATH that names secrets outside the workspace leaks nothing (near miss: the real match)", async () => {
  let bin = "";
  await using run = await openTestRun({
    env: (name) => name === "PATH" ? `${bin}:${PATH}` : Deno.env.get(name),
    prepare: async (sandbox) => {
      const outside = Deno.realPathSync(sandbox.outside);
      const workspace = Deno.realPathSync(sandbox.workspace);
      bin = nodePath.join(outside, "fake-bin");
      await writeTree(sandbox.workspace, { "real.txt": "needle in the workspace\n" });
      await writeTree(sandbox.outside, { "secret.txt": `needle ${CANARY}\n` });
      await Deno.symlink(`${outside}/secret.txt`, `${workspace}/link_to_secret`);
      const names = [
        `${workspace}/../outside/secret.txt`,
        `${outside}/secret.txt`,
        `${workspace}/link_to_secret`,
        "/etc/passwd",
        `${workspace}/real.txt`,
      ];
      await fakeRipgrep(bin, `printf '%s\\0' ${names.map((name) => `'${name}'`).join(" ")}`);
    },
  });
  const result = await run.call("fs.grep_files", { pattern: "needle|root" });
  assert.ok(result.ok, result.summary);
  const data = result.data as GrepFilesData;
  assert.equal(data.engine, "ripgrep");
  assertNoLeak(result, SECRETS);
  assert.deepEqual(data.matches.map((match) => match.path), ["real.txt"]);
  await assertLogsClean(run);
});

for (const isolation of ["auto", "none"] as const) {
  Deno.test(`attack: an rg on PATH that hangs leaves no process behind (isolation ${isolation}); the built-in answers`, async () => {
    const marker = `kagent-rg-pipeline-${crypto.randomUUID()}`;
    let bin = "";
    await using run = await openTestRun({
      config: {
        limits: { search_time_budget_ms: 1000 },
        sandbox: { command_isolation: isolation },
      },
      env: (name) => name === "PATH" ? `${bin}:${PATH}` : Deno.env.get(name),
      prepare: async (sandbox) => {
        bin = nodePath.join(Deno.realPathSync(sandbox.outside), marker);
        await writeTree(sandbox.workspace, { "a.txt": "needle a\n" });
        // Under bubblewrap its own folder is read-only: the marker is only written without it.
        await fakeRipgrep(
          bin,
          `printf %s "$KAGENT_RUN_CALL" > '${bin}/marker'\nsleep 30 &\nsleep 31`,
        );
      },
    });
    const result = await run.call("fs.grep_files", { pattern: "needle" });
    assert.ok(result.ok, result.summary);
    const data = result.data as GrepFilesData;
    assert.equal(data.engine, "builtin");
    assert.deepEqual(data.matches.map((match) => match.path), ["a.txt"]);
    assert.deepEqual(await processesWith(marker), []);
    if (isolation === "none") {
      // It carried the call's marker, which the run's end sweeps too.
      const seen = await Deno.readTextFile(`${bin}/marker`);
      assert.ok(seen.startsWith(`${run.session.folder.id}/`), seen);
    }
  });
}

Deno.test("attack: an rg planted inside the workspace is never started (near miss: the real rg is)", async () => {
  const marker = `kagent-rg-planted-${crypto.randomUUID()}`;
  let bin = "";
  await using run = await openTestRun({
    env: (name) => name === "PATH" ? `${bin}:${PATH}` : Deno.env.get(name),
    prepare: async (sandbox) => {
      bin = nodePath.join(Deno.realPathSync(sandbox.workspace), marker);
      await writeTree(sandbox.workspace, { "a.txt": "needle a\n" });
      await fakeRipgrep(bin, `touch '${bin}/started'; exit 0`);
    },
  });
  const result = await run.call("fs.grep_files", { pattern: "needle" });
  assert.ok(result.ok, result.summary);
  const data = result.data as GrepFilesData;
  assert.deepEqual(data.matches.map((match) => match.path), ["a.txt"]);
  assert.equal(data.engine, hasRipgrep ? "ripgrep" : "builtin");
  assert.equal(await Deno.stat(`${bin}/started`).then(() => true, () => false), false);
});

Deno.test({
  name:
    "attack: a hard link inside the workspace to a secret outside is named by the real rg but never read (near miss: an ordinary file is)",
  ignore: !hasRipgrep,
  async fn() {
    await using run = await openTestRun({
      prepare: async (sandbox) => {
        await writeTree(sandbox.workspace, { "real.txt": "needle in the workspace\n" });
        await writeTree(sandbox.outside, { "secret.txt": `needle ${CANARY}\n` });
        // Same file system (one temporary folder): ripgrep sees an ordinary file with a match.
        await Deno.link(`${sandbox.outside}/secret.txt`, `${sandbox.workspace}/linked.txt`);
      },
    });
    const result = await run.call("fs.grep_files", { pattern: "needle" });
    assert.ok(result.ok, result.summary);
    const data = result.data as GrepFilesData;
    // The walk did not lstat it: the file ripgrep named is proven through the guard when read.
    assert.equal(data.engine, "ripgrep");
    assertNoLeak(result, SECRETS);
    assert.ok(!JSON.stringify(result).includes(CANARY));
    assert.equal(data.skipped.hard_links, 1);
    assert.deepEqual(data.matches.map((match) => match.path), ["real.txt"]);
  },
});
