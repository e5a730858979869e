import assert from "node:assert/strict";
import { PathGuard } from "../sandbox/path_guard.ts";
import { createTempSandbox } from "../testing/temp_sandbox.ts";
import { pathArgumentFindings, resolveCommand, shebangProgram } from "./resolve_command.ts";

/** A guard over a fresh sandbox whose home is the outside folder, and a findings summary. */
async function openGuard() {
  const sandbox = await createTempSandbox();
  const guard = await PathGuard.create({ workspace: sandbox.workspace, home: sandbox.outside });
  const ids = (argv: string[]) =>
    pathArgumentFindings(argv, sandbox.workspace, guard).map((finding) =>
      `${finding.index}:${finding.id}`
    );
  return { sandbox, guard, ids, [Symbol.asyncDispose]: () => sandbox[Symbol.asyncDispose]() };
}

Deno.test("pathArgumentFindings flags path arguments outside the roots or in protected paths", async () => {
  await using sandbox = await createTempSandbox();
  await Deno.mkdir(`${sandbox.workspace}/.git`);
  const guard = await PathGuard.create({ workspace: sandbox.workspace, home: sandbox.outside });
  const ids = (argv: string[]) =>
    pathArgumentFindings(argv, sandbox.workspace, guard).map((finding) =>
      `${finding.index}:${finding.id}`
    );
  assert.deepEqual(ids(["cp", "a", `${sandbox.outside}/x`]), ["2:argv:path-outside-roots"]);
  assert.deepEqual(ids(["cat", "../outside/secret"]), ["1:argv:path-outside-roots"]);
  assert.deepEqual(ids(["cat", "~/.ssh/id_rsa"]), ["1:argv:path-outside-roots"]);
  assert.deepEqual(ids(["rg", "x", "/proc"]), ["2:argv:path-outside-roots"]);
  assert.deepEqual(ids(["git", "diff", "--output=/etc/x"]), ["2:argv:path-outside-roots"]);
  assert.deepEqual(ids(["cp", "p.sh", ".git/hooks/pre-commit"]), ["2:argv:protected-path"]);
  // Near misses: inside the workspace, options, words, URLs and revisions.
  assert.deepEqual(ids(["cp", "src/a.ts", "./b.ts"]), []);
  assert.deepEqual(ids(["git", "log", "--oneline", "-5", "origin/main", "HEAD:src/a.ts"]), []);
  assert.deepEqual(ids(["git", "clone", "https://example.com/r.git", "dest"]), []);
  assert.deepEqual(ids(["echo", "hello"]), []);
});

Deno.test("shebangProgram reads the interpreter, through env too, and refuses env options", async () => {
  await using sandbox = await createTempSandbox();
  const script = `${sandbox.workspace}/s`;
  for (
    const [text, expected] of [
      ["#!/bin/sh\necho", "/bin/sh"],
      ["#!/usr/bin/env python3\n", "python3"],
      ["#! /usr/bin/env -S python3 -u\n", null],
      ["echo no shebang\n", null],
    ] as const
  ) {
    await Deno.writeTextFile(script, text);
    assert.equal(await shebangProgram(script), expected, text);
  }
});

Deno.test("pathArgumentFindings checks values attached to options when they name paths outside the roots", async () => {
  await using opened = await openGuard();
  const { ids } = opened;
  const out = opened.sandbox.outside;
  const outside = (argv: string[], index: number) =>
    assert.deepEqual(ids(argv), [`${index}:argv:path-outside-roots`], JSON.stringify(argv));
  outside(["tar", "-cf/abs/outside.tar", "src"], 1);
  outside(["tar", `-czf${out}/a.tgz`, "src"], 1);
  outside(["tar", "-T/etc/list", "-cf", "a.tar"], 1);
  outside(["tar", "-xf", "a.tar", "-C/"], 3);
  outside(["tar", "-xf", "a.tar", "-C", "/elsewhere"], 4);
  outside(["sort", "-T/abs", "f"], 1);
  outside(["sort", "-T../outside", "f"], 1);
  outside(["cp", "-t/abs", "a"], 1);
  outside(["tar", "--file=/abs/a.tar", "-c", "src"], 1);
  outside(["dd", "if=/etc/passwd", "of=out.txt"], 1);
  outside(["dd", "if=in.txt", `of=${out}/copy`], 2);
  outside(["curl", "-d@/etc/passwd", "https://example.com"], 1);
  outside(["curl", "-F", "file=@/etc/passwd", "https://example.com"], 2);
  outside(["git", "checkout-index", "-a", "--prefix=/tmp/"], 3);
  outside(["git", "init", "--separate-git-dir=/x"], 2);
  outside(["git", "-c", "core.hooksPath=/abs/hooks", "status"], 2);
  assert.deepEqual(ids(["tar", "-cf.git/hooks/x", "src"]), ["1:argv:protected-path"]);
  // Near misses: attached values inside the workspace, separators and search text.
  assert.deepEqual(ids(["tar", "-czfgood.tgz", "src"]), []);
  assert.deepEqual(ids(["tar", "-xzf", "a.tgz", "-C", "dir"]), []);
  assert.deepEqual(ids(["tar", "-Tlist", "-cf", "out/a.tar"]), []);
  assert.deepEqual(ids(["dd", "if=in.txt", "of=out.txt"]), []);
  assert.deepEqual(ids(["sort", "-t/", "-k2", "-T./tmp", "f"]), []);
  assert.deepEqual(ids(["cut", "-d/", "-f2", "f"]), []);
  assert.deepEqual(ids(["git", "log", "-S/api", "-G/v1/", "-L/main/,+3:src/a.ts"]), []);
  assert.deepEqual(ids(["rg", "-e/usr/lib", "src"]), []);
  assert.deepEqual(ids(["git", "commit", "-m", "set PATH=/usr/bin"]), []);
});

Deno.test("pathArgumentFindings reads file: URLs as paths when spelled in any case and host form", async () => {
  await using opened = await openGuard();
  const { ids, sandbox } = opened;
  for (
    const url of [
      "file:///etc/passwd",
      "FILE:///etc/passwd",
      "file://localhost/etc/passwd",
      "File://LOCALHOST/etc/passwd",
      "file://127.0.0.1/etc/passwd",
      "file:/etc/passwd",
      "file:////etc/passwd",
      "file:///%65tc/passwd",
      `file://${sandbox.outside}/repo`,
      `file://${sandbox.workspace}/../outside/repo`,
      "file:///etc/passwd?x#y",
    ]
  ) {
    assert.deepEqual(ids(["curl", url]), ["1:argv:path-outside-roots"], url);
  }
  assert.deepEqual(ids(["git", "clone", "file:///outside/repo", "d"]), [
    "2:argv:path-outside-roots",
  ]);
  assert.deepEqual(ids(["git", "fetch", `--upload-pack=x`, `file://${sandbox.outside}/r`]), [
    "3:argv:path-outside-roots",
  ]);
  assert.deepEqual(ids(["curl", `--url=file:///etc/passwd`]), ["1:argv:path-outside-roots"]);
  assert.deepEqual(ids(["curl", `file://${sandbox.workspace}/.git/config`]), [
    "1:argv:protected-path",
  ]);
  // Near misses: a file URL inside the workspace, and other schemes.
  assert.deepEqual(ids(["git", "clone", `file://${sandbox.workspace}/repo`, "copy"]), []);
  assert.deepEqual(ids(["curl", "file:notes/a.txt"]), []);
  assert.deepEqual(ids(["curl", "https://example.com/etc/passwd"]), []);
  assert.deepEqual(ids(["git", "clone", "ssh://git@example.com/etc/repo.git"]), []);
});

Deno.test("pathArgumentFindings reports sensitive files when an argument names one inside the roots", async () => {
  await using opened = await openGuard();
  const { ids, sandbox } = opened;
  const sensitive = (argv: string[], index: number) =>
    assert.deepEqual(ids(argv), [`${index}:argv:sensitive-path`], JSON.stringify(argv));
  sensitive(["cat", ".env"], 1);
  sensitive(["cat", "./config/.env.production"], 1);
  sensitive(["cat", `${sandbox.workspace}/certs/server.key`], 1);
  sensitive(["tar", "-czf", "out.tgz", "x.pem"], 3);
  sensitive(["git", "log", "-p", "--", ".env"], 4);
  sensitive(["cp", "--target-directory=out", "id.key"], 2);
  sensitive(["dd", "if=.env", "of=copy.txt"], 1);
  sensitive(["curl", `file://${sandbox.workspace}/.env`], 1);
  sensitive(["tar", "-cfsecrets.pem", "src"], 1);
  const finding = pathArgumentFindings(["cat", ".env"], sandbox.workspace, opened.guard)[0];
  assert.equal(finding?.kind, "sensitive");
  assert.match(finding?.reason ?? "", /sensitive pattern "\.env"/);
  // Outside the roots the path is refused as such, not asked for.
  assert.deepEqual(ids(["cat", "~/.ssh/id_rsa"]), ["1:argv:path-outside-roots"]);
  // Near misses: names that only look alike, patterns, and text with blanks.
  for (
    const argv of [
      ["cat", "env.txt", ".environment", "keys.md", "notes.key.txt", "pem.txt"],
      ["find", ".", "-name", "*.pem"],
      ["git", "commit", "-m", "rotate the api.key"],
      ["rg", "-g", "!.env", "TOKEN"],
    ]
  ) assert.deepEqual(ids(argv), [], JSON.stringify(argv));
});

Deno.test("resolveCommand finds no false denial when tar bundles values and one path finding when they leave", async () => {
  await using opened = await openGuard();
  const { sandbox, guard } = opened;
  const programs = ["tar", "dd", "curl", "git", "sort"].map((name) => ({
    name,
    path: `/usr/bin/${name}`,
  }));
  const findings = async (argv: string[]) => {
    const resolved = await resolveCommand(argv, undefined, guard, programs);
    assert.ok(resolved.ok, JSON.stringify(argv));
    return resolved.command.findings.map((finding) => `${finding.kind} ${finding.id}`);
  };
  const outside = "unchecked argv:path-outside-roots";
  assert.deepEqual(await findings(["tar", "-czfgood.tgz", "src"]), []);
  assert.deepEqual(await findings(["tar", "-cf/abs/outside.tar", "src"]), [outside]);
  assert.deepEqual(await findings(["tar", "-xzf", "a.tgz", "-C", "dir"]), []);
  assert.deepEqual(await findings(["dd", "if=/etc/passwd", "of=out.txt"]), [outside]);
  assert.deepEqual(await findings(["dd", "if=in.txt", "of=out.txt"]), []);
  assert.deepEqual(await findings(["curl", "file:///etc/passwd"]), [outside]);
  assert.deepEqual(await findings(["curl", "https://example.com/"]), []);
  assert.deepEqual(await findings(["git", "clone", "file:///outside/repo", "d"]), [outside]);
  assert.deepEqual(
    await findings(["git", "clone", `file://${sandbox.workspace}/repo`, "d"]),
    [],
  );
  assert.deepEqual(await findings(["sort", "-T/abs", "f"]), [outside]);
  assert.deepEqual(await findings(["sort", "-T.", "f"]), []);
  assert.deepEqual(await findings(["tar", "-czf", "out.tgz", ".env"]), [
    "sensitive argv:sensitive-path",
  ]);
});
