/**
 * The ripgrep fast path can only hide a match, never show a file the built-in would not: a
 * hostile `rg` naming files outside the folder, through links, or invented leaks nothing (and a
 * real match it names is still found); an `rg` that fails, hangs or is missing leaves the
 * built-in alone; no `rg` process survives its search.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { createTempSandbox, writeTree } from "../../testing/temp_sandbox.ts";
import { createTestContext } from "../../testing/tool_context.ts";
import { ripgrepPattern } from "./_ripgrep_pattern.ts";
import { candidatesOf, ripgrepArguments } from "./ripgrep_prefilter.ts";
import {
  grepWith,
  processesWith,
  RIPGREP,
  testPrefilter,
  writeScript,
} from "./_ripgrep_test_support.ts";

/** A workspace with a real match, and a secret outside it reachable through a link. */
async function hostileTree() {
  const sandbox = await createTempSandbox();
  await writeTree(sandbox.workspace, { "real.txt": "needle in the workspace\n" });
  await writeTree(sandbox.outside, { "secret.txt": "needle SECRET-OUTSIDE\n" });
  await Deno.symlink(`${sandbox.outside}/secret.txt`, `${sandbox.workspace}/link_to_secret`);
  const context = await createTestContext({ workspace: sandbox.workspace });
  return { sandbox, context, root: context.guard.workspace };
}

Deno.test("a hostile rg naming files outside the folder, through links or invented leaks nothing", async () => {
  const { sandbox, context, root } = await hostileTree();
  await using _ = sandbox;
  const outside = Deno.realPathSync(sandbox.outside);
  const fake = nodePath.join(outside, "bin", "rg");
  const names = [
    `${root}/../outside/secret.txt`,
    `${outside}/secret.txt`,
    `${root}/link_to_secret`,
    "/etc/passwd",
    `${root}/invented.txt`,
    `${root}/real.txt`,
  ];
  await writeScript(fake, `printf '%s\\0' ${names.map((name) => `'${name}'`).join(" ")}`);
  const { outcome, data } = await grepWith(
    testPrefilter({ ripgrepPath: fake }),
    { pattern: "needle" },
    context,
  );
  assert.equal(data.engine, "ripgrep");
  const shown = JSON.stringify(outcome);
  assert.ok(!shown.includes("SECRET-OUTSIDE"), shown);
  assert.ok(!shown.includes("root:"), shown);
  // The near miss: the real match it named is found; the link is still refused by the guard.
  assert.deepEqual(data.matches.map((match) => match.path), ["real.txt"]);
  assert.equal(data.skipped.links, 1);
});

Deno.test("an rg that names nothing hides matches in regular files only; links are still read", async () => {
  await using sandbox = await createTempSandbox();
  await writeTree(sandbox.workspace, { "a.txt": "needle a\n", "b.txt": "needle b\n" });
  await Deno.symlink("a.txt", `${sandbox.workspace}/link_to_a`);
  const context = await createTestContext({ workspace: sandbox.workspace });
  const fake = nodePath.join(Deno.realPathSync(sandbox.outside), "bin", "rg");
  await writeScript(fake, "exit 0");
  const { data } = await grepWith(
    testPrefilter({ ripgrepPath: fake }),
    { pattern: "needle" },
    context,
  );
  assert.equal(data.engine, "ripgrep");
  // rg never follows links, so the Worker reads a link's target itself, as the built-in does.
  assert.deepEqual(data.matches.map((match) => match.path), ["link_to_a"]);
  assert.equal(data.files_scanned, 3);
});

Deno.test("a real rg never names a file reached through a symlink to outside the workspace", {
  ignore: RIPGREP === null,
}, async () => {
  const { sandbox, context } = await hostileTree();
  await using _ = sandbox;
  const found = await testPrefilter().candidates({ pattern: "needle" }, context.guard);
  assert.deepEqual(found?.files, ["real.txt"]);
  const { outcome, data } = await grepWith(testPrefilter(), { pattern: "needle" }, context);
  assert.equal(data.engine, "ripgrep");
  assert.ok(!JSON.stringify(outcome).includes("SECRET-OUTSIDE"));
  assert.deepEqual(data.matches.map((match) => match.path), ["real.txt"]);
});

Deno.test("an rg that fails, prints a name that is not UTF-8, or is missing leaves the built-in alone", async () => {
  await using sandbox = await createTempSandbox();
  await writeTree(sandbox.workspace, { "a.txt": "needle a\n" });
  const context = await createTestContext({ workspace: sandbox.workspace });
  const bin = nodePath.join(Deno.realPathSync(sandbox.outside), "bin");
  const scripts: Record<string, string> = {
    exit2: "exit 2",
    exit2_with_names: `printf '%s\\0' '${context.guard.workspace}/nothing'; exit 2`,
    killed: "kill -9 $$",
    not_utf8: `printf '${context.guard.workspace}/\\377\\0'`,
  };
  for (const [name, body] of Object.entries(scripts)) {
    await writeScript(nodePath.join(bin, name), body);
    const { data } = await grepWith(
      testPrefilter({ ripgrepPath: nodePath.join(bin, name) }),
      { pattern: "needle" },
      context,
    );
    assert.equal(data.engine, "builtin", name);
    assert.deepEqual(data.matches.map((match) => match.path), ["a.txt"], name);
  }
  const missing = testPrefilter({ ripgrepPath: nodePath.join(bin, "absent") });
  const { data } = await grepWith(missing, { pattern: "needle" }, context);
  assert.equal(data.engine, "builtin");
  assert.equal(data.matches.length, 1);
});

Deno.test("an rg that hangs is killed at half the time budget, and nothing it started survives", async () => {
  await using sandbox = await createTempSandbox();
  await writeTree(sandbox.workspace, { "a.txt": "needle a\n" });
  const context = await createTestContext({ workspace: sandbox.workspace });
  const marker = `kagent-rg-hang-${crypto.randomUUID()}`;
  const fake = nodePath.join(Deno.realPathSync(sandbox.outside), marker, "rg");
  await writeScript(fake, "sleep 30 &\nsleep 31");
  const prefilter = testPrefilter({ ripgrepPath: fake, timeBudgetMs: 1000 });
  const started = performance.now();
  const { data } = await grepWith(prefilter, { pattern: "needle" }, context);
  assert.ok(performance.now() - started < 20_000);
  assert.equal(data.engine, "builtin");
  assert.equal(data.matches.length, 1);
  assert.deepEqual(await processesWith(marker), []);
});

Deno.test("an aborted search kills its rg, and nothing it started survives", async () => {
  await using sandbox = await createTempSandbox();
  await writeTree(sandbox.workspace, { "a.txt": "needle a\n" });
  const context = await createTestContext({ workspace: sandbox.workspace });
  const marker = `kagent-rg-abort-${crypto.randomUUID()}`;
  const fake = nodePath.join(Deno.realPathSync(sandbox.outside), marker, "rg");
  await writeScript(fake, "sleep 30 &\nsleep 31");
  const prefilter = testPrefilter({ ripgrepPath: fake });
  const controller = new AbortController();
  const search = prefilter.plan({ pattern: "needle" }, context.guard);
  assert.ok(search !== null);
  const running = prefilter.run(search, controller.signal);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.notDeepEqual(await processesWith(marker), [], "the fake rg was running");
  controller.abort();
  assert.equal(await running, null);
  assert.deepEqual(await processesWith(marker), []);
});

Deno.test("single-file searches and patterns outside the gate never start rg", async () => {
  await using sandbox = await createTempSandbox();
  await writeTree(sandbox.workspace, { "a.txt": "needle a\nword\n" });
  const context = await createTestContext({ workspace: sandbox.workspace });
  const prefilter = testPrefilter({ ripgrepPath: "/nonexistent/rg" });
  assert.equal(prefilter.plan({ pattern: "needle", path: "a.txt" }, context.guard), null);
  assert.equal(prefilter.plan({ pattern: "\\bword" }, context.guard), null);
  assert.equal(prefilter.plan({ pattern: "(" }, context.guard), null);
  assert.equal(prefilter.plan({ pattern: "needle", path: "../outside" }, context.guard), null);
  assert.ok(prefilter.plan({ pattern: "needle" }, context.guard) !== null);
});

Deno.test("the gate rewrites what matches any character, and refuses what ripgrep reads otherwise", () => {
  const bytes = "(?-u:[\\x80-\\xFF])+";
  assert.equal(ripgrepPattern("a.b"), `a(?:(?-i:.)|${bytes})b`);
  assert.equal(ripgrepPattern("[^ab]"), `(?:(?-i:[^ab])|${bytes})`);
  assert.equal(ripgrepPattern("\\W"), `(?:(?-i:[^0-9A-Za-z_])|${bytes})`);
  assert.equal(ripgrepPattern("\\d\\w\\s"), "[0-9][0-9A-Za-z_][\\t\\n\\f\\r ]");
  assert.equal(ripgrepPattern("(?<n>a){2}\\/x{,3}}"), "(?P<n>a){2}/x\\{,3\\}\\}");
  assert.equal(ripgrepPattern("^a|b$"), "^(?-u:\\xEF\\xBB\\xBF)?a|b$");
  assert.equal(ripgrepPattern("(?i)a(?-i:b)(?s:.)"), `(?i)a(?-i:b)(?s:(?:(?-i:.)|${bytes}))`);
  assert.equal(ripgrepPattern("[]a&&b]"), null);
  assert.equal(ripgrepPattern("[]a]"), "[\\]a]");
  for (
    const refused of [
      "\\b",
      "\\B",
      "\\pL",
      "\\PL",
      "\\x{e9}",
      "\\xe9",
      "\\A",
      "\\z",
      "\\Q.\\E",
      "\\n",
      "é",
      "\\1",
      "[[:^alpha:]]",
      "[a[b]]",
      "[a--b]",
      "(?-m)^a",
      "(?m)^a",
      "(?=a)",
    ]
  ) {
    assert.equal(ripgrepPattern(refused), null, refused);
  }
});

Deno.test("ripgrep's command line names files only, follows nothing and reads no configuration", () => {
  const args = ripgrepArguments("a", true, "/w");
  for (
    const flag of [
      "--no-config",
      "--files-with-matches",
      "--null",
      "--no-follow",
      "--no-ignore",
      "--hidden",
      "--text",
      "--crlf",
    ]
  ) {
    assert.ok(args.includes(flag), flag);
  }
  assert.ok(!args.some((arg) => arg.startsWith("--pre") || arg === "-L" || arg === "--follow"));
  assert.deepEqual(args.slice(-4), ["--regexp", "a", "--", "/w"]);
  assert.deepEqual(candidatesOf("/w/a\0/w/../x\0/wx/y\0", "/w")?.files, ["a", "../x"]);
});
