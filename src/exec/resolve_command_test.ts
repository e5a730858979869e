import assert from "node:assert/strict";
import { PathGuard } from "../sandbox/path_guard.ts";
import { createTempSandbox } from "../testing/temp_sandbox.ts";
import { pathArgumentFindings, shebangProgram } from "./resolve_command.ts";

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
