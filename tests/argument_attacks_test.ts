/**
 * Black-box attack pairs for arguments and policy logic (attacks/CASES.md "Arguments and policy
 * logic", and "Paths the argument checker never sees" for command arguments). Every call goes
 * through the whole pipeline with `run.call`, often with raw JSON text so that the parser sees
 * exactly what a model could send.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { ConfigError } from "../src/config/mod.ts";
import { openTestRun, type TestRun } from "../src/testing/run_harness.ts";
import type { ToolResult } from "../src/result/tool_result.ts";
import { writeTree } from "../src/testing/temp_sandbox.ts";
import {
  ALLOW_ALL,
  assertAudited,
  assertDenied,
  assertNoLeak,
  assertRefused,
  assertWorked,
  CANARY,
  exists,
  git,
  PATH_GUARD,
  PROTECTED,
  SENSITIVE,
} from "./_attack_helpers.ts";

/** Own property names of Object.prototype, to compare before and after. */
function prototypeKeys(): string[] {
  return Object.getOwnPropertyNames(Object.prototype).sort();
}

function assertPrototypeClean(before: string[]): void {
  assert.deepEqual(prototypeKeys(), before);
  const probe = {} as Record<string, unknown>;
  for (const key of ["approved", "x", "sandbox", "path", "polluted"]) {
    assert.equal(probe[key], undefined, `Object.prototype.${key} was set`);
  }
}

// ---------------------------------------------------------------------------------------------
// Prototype keys
// ---------------------------------------------------------------------------------------------

Deno.test("fs tools refuse __proto__ and constructor keys in arguments and leave Object.prototype unchanged", async () => {
  const before = prototypeKeys();
  await using run = await openTestRun({
    prepare: async (sandbox) => {
      await writeTree(sandbox.workspace, { "a.txt": "alpha\n" });
      await writeTree(sandbox.outside, { "secret.txt": `${CANARY}\n` });
    },
  });
  const deliverables = run.session.folder.paths.deliverables;
  const attacks: [string, string][] = [
    ["fs.read_file", '{"path":"a.txt","__proto__":{"approved":true}}'],
    ["fs.read_file", '{"constructor":{"prototype":{"x":1}}}'],
    ["fs.read_file", '{"path":"a.txt","constructor":{"prototype":{"x":1}}}'],
    ["fs.read_file", '{"__proto__":{"path":"../outside/secret.txt"}}'],
    ["fs.list_files", '{"__proto__":{"path":"../outside"}}'],
    ["fs.list_files", '{"path":".","__proto__":{"recursive":true,"polluted":1}}'],
    ["fs.grep_files", `{"pattern":"KAGENT","__proto__":{"path":"../outside"}}`],
    [
      "fs.write_file",
      `{"path":"../outside/new.txt","content":"x","__proto__":{"approved":true,"sandbox":false}}`,
    ],
    [
      "fs.write_file",
      `{"path":${JSON.stringify(`${deliverables}/p.txt`)},"content":"x","__proto__":{"x":1}}`,
    ],
    [
      "fs.edit_file",
      '{"path":"a.txt","edits":[{"old":"alpha","new":"beta","__proto__":{"polluted":1}}]}',
    ],
    ["fs.edit_file", '{"path":"a.txt","edits":[{"old":"alpha","new":"beta"}],"prototype":{}}'],
  ];
  for (const [tool, text] of attacks) {
    const result = await run.call(tool, text);
    assertRefused(result, "invalid_arguments");
    await assertAudited(run, result, "tool.failed", null);
    assertPrototypeClean(before);
  }
  assert.equal(await Deno.readTextFile(`${run.sandbox.workspace}/a.txt`), "alpha\n");
  assert.equal(await exists(`${run.sandbox.outside}/new.txt`), false);
  assert.equal(await exists(`${deliverables}/p.txt`), false);
});

Deno.test("fs.write_file writes content and names that contain __proto__ and constructor (near miss)", async () => {
  const before = prototypeKeys();
  await using run = await openTestRun();
  const deliverables = run.session.folder.paths.deliverables;
  const content = '{"__proto__":{"approved":true},"constructor":{"prototype":{"x":1}}}\n' +
    "Object.prototype.polluted = constructor.prototype.__proto__;\n";
  for (const name of ["proto.json", "__proto__", "constructor", "prototype.txt"]) {
    const path = `${deliverables}/${name}`;
    assertWorked(await run.call("fs.write_file", { path, content }));
    assert.equal(await Deno.readTextFile(path), content);
    const read = await run.call("fs.read_file", { path });
    assertWorked(read);
    assert.ok(read.output.includes('"__proto__"'), read.output);
  }
  assertWorked(
    await run.call(
      "fs.edit_file",
      JSON.stringify({
        path: `${deliverables}/proto.json`,
        edits: [{ old: '"approved":true', new: '"__proto__":"constructor"' }],
      }),
    ),
  );
  assert.match(await Deno.readTextFile(`${deliverables}/proto.json`), /"__proto__":"constructor"/);
  assertPrototypeClean(before);
});

// ---------------------------------------------------------------------------------------------
// Type confusion
// ---------------------------------------------------------------------------------------------

Deno.test("fs tools refuse confused argument types without coercion", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    prepare: async (sandbox) => {
      await writeTree(sandbox.workspace, { "a.txt": "one\ntwo\nthree\n", "sub/b.txt": "bee\n" });
      await writeTree(sandbox.outside, { "secret.txt": `${CANARY}\n` });
    },
  });
  const workspace = run.sandbox.workspace;
  const attacks: [string, string][] = [
    ["fs.read_file", '{"path":["a","/etc/passwd"]}'],
    ["fs.read_file", '{"path":["a.txt"]}'],
    ["fs.read_file", '{"path":{"toString":"/etc/passwd"}}'],
    ["fs.read_file", '{"path":{"0":"a.txt","length":1}}'],
    ["fs.read_file", '{"path":null}'],
    ["fs.read_file", '{"path":42}'],
    ["fs.read_file", '{"path":true}'],
    ["fs.read_file", '{"path":""}'],
    ["fs.read_file", '{"path":"a.txt","max_lines":-1}'],
    ["fs.read_file", '{"path":"a.txt","max_lines":0}'],
    ["fs.read_file", '{"path":"a.txt","max_lines":1e309}'],
    ["fs.read_file", '{"path":"a.txt","max_lines":-1e309}'],
    ["fs.read_file", '{"path":"a.txt","max_lines":1.5}'],
    ["fs.read_file", '{"path":"a.txt","max_lines":"10"}'],
    ["fs.read_file", '{"path":"a.txt","max_lines":1001}'],
    ["fs.read_file", '{"path":"a.txt","start_line":"1"}'],
    ["fs.read_file", '{"path":"a.txt","start_line":0}'],
    ["fs.read_file", '{"path":"a.txt","start_line":9007199254740993}'],
    ["fs.read_file", '{"path":"a.txt","start_line":[1]}'],
    ["fs.read_file", '{"path":"a.txt","start_line":null}'],
    ["fs.read_file", '{"path":"a.txt","max_lines":NaN}'],
    ["fs.read_file", '{"path":"a.txt","max_lines":Infinity}'],
    ["fs.read_file", "{path:'a.txt'}"],
    ["fs.read_file", '["a.txt"]'],
    ["fs.read_file", '"a.txt"'],
    ["fs.read_file", "null"],
    ["fs.read_file", "42"],
    ["fs.list_files", '{"path":".","recursive":"false"}'],
    ["fs.list_files", '{"path":".","recursive":1}'],
    ["fs.list_files", '{"path":".","limit":"5"}'],
    ["fs.grep_files", '{"pattern":["KAGENT"],"path":"."}'],
    ["fs.grep_files", '{"pattern":"x","path":".","case_sensitive":"false"}'],
    ["fs.write_file", '{"path":"a.txt","content":"owned\\n","overwrite":"true"}'],
    ["fs.write_file", '{"path":"a.txt","content":"owned\\n","overwrite":1}'],
    ["fs.write_file", '{"path":"n.txt","content":123}'],
    ["fs.write_file", '{"path":"n.txt","content":null}'],
    ["fs.write_file", '{"path":"n.txt","content":["owned"]}'],
    ["fs.write_file", '{"path":"n.txt","content":{"toString":"owned"}}'],
    ["fs.edit_file", '{"path":"a.txt","edits":{"old":"one","new":"owned"}}'],
    ["fs.edit_file", '{"path":"a.txt","edits":[{"old":1,"new":"owned"}]}'],
    ["fs.edit_file", '{"path":"a.txt","edits":[["one","owned"]]}'],
    ["fs.delete_file", '{"path":["a.txt"]}'],
  ];
  for (const [tool, text] of attacks) {
    const result = await run.call(tool, text);
    assert.equal(result.ok, false, `${tool} ${text} worked: ${result.summary}`);
    assert.equal(
      result.error?.type,
      "invalid_arguments",
      `${tool} ${text}: ${result.error?.message}`,
    );
    assertNoLeak(result);
    await assertAudited(run, result, "tool.failed", null);
  }
  assert.equal(await Deno.readTextFile(`${workspace}/a.txt`), "one\ntwo\nthree\n");
  assert.equal(await exists(`${workspace}/n.txt`), false);
});

Deno.test("fs tools accept well-typed numbers and booleans, including 1e2 and 1.0 (near miss)", async () => {
  await using run = await openTestRun({
    prepare: (sandbox) =>
      writeTree(sandbox.workspace, { "a.txt": "one\ntwo\nthree\n", "sub/b.txt": "bee\n" }),
  });
  const second = await run.call("fs.read_file", '{"path":"a.txt","start_line":2,"max_lines":1}');
  assertWorked(second);
  assert.match(second.output, /two/);
  assert.doesNotMatch(second.output, /one|three/);
  for (
    const text of [
      '{"path":"a.txt","max_lines":1e2}',
      '{"path":"a.txt","max_lines":1.0,"start_line":3}',
      '{"path":"a.txt","max_lines":1000}',
      '{"path":"a.txt"}',
    ]
  ) {
    assertWorked(await run.call("fs.read_file", text));
  }
  const listed = await run.call("fs.list_files", '{"path":".","recursive":false,"limit":5}');
  assertWorked(listed);
  assert.doesNotMatch(listed.output, /b\.txt/);
  const recursive = await run.call("fs.list_files", '{"path":".","recursive":true}');
  assertWorked(recursive);
  assert.match(recursive.output, /sub\/b\.txt/);
  const grep = await run.call("fs.grep_files", '{"pattern":"BEE","case_sensitive":false}');
  assertWorked(grep);
  assert.match(grep.output, /bee/);
});

Deno.test("a repeated key in arguments cannot smuggle a path past the guard", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    prepare: async (sandbox) => {
      await writeTree(sandbox.workspace, { "a.txt": "alpha\n" });
      await writeTree(sandbox.outside, { "secret.txt": `${CANARY}\n` });
    },
  });
  const result = await run.call(
    "fs.read_file",
    '{"path":"a.txt","path":"../outside/secret.txt"}',
  );
  assert.equal(result.ok, false, result.summary);
  assert.ok(
    result.error?.type === "invalid_arguments" || result.error?.type === "path_outside_sandbox",
    result.error?.message,
  );
  assertNoLeak(result);
  // Near miss: a repeated key whose last value stays inside the workspace reads that value.
  const near = await run.call("fs.read_file", '{"path":"../outside/secret.txt","path":"a.txt"}');
  assert.ok(near.ok || near.error?.type === "invalid_arguments", near.error?.message);
  assertNoLeak(near);
});

// ---------------------------------------------------------------------------------------------
// Oversized and over-deep arguments
// ---------------------------------------------------------------------------------------------

Deno.test("fs tools refuse arguments over 1 MiB or nested 40 levels deep", async () => {
  await using run = await openTestRun({
    prepare: (sandbox) => writeTree(sandbox.workspace, { "a.txt": "alpha\n" }),
  });
  const deliverables = run.session.folder.paths.deliverables;
  const big = `${deliverables}/big.txt`;
  const oversized = [
    JSON.stringify({ path: big, content: "x".repeat(1_048_577) }),
    JSON.stringify({ path: big, content: "€".repeat(400_000) }),
    JSON.stringify({ path: big, content: "\u0001".repeat(200_000) }),
  ];
  for (const text of oversized) {
    const result = await run.call("fs.write_file", text);
    assertRefused(result, "invalid_arguments");
    await assertAudited(run, result, "tool.failed", null);
  }
  assert.equal(await exists(big), false);

  const deepArray = `{"path":"a.txt","edits":${"[".repeat(40)}${"]".repeat(40)}}`;
  const deepObject = `{"path":"a.txt","x":${'{"a":'.repeat(40)}1${"}".repeat(40)}}`;
  const veryDeep = `{"path":"a.txt","edits":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
  const unbalanced = `{"path":"a.txt","edits":${"[".repeat(100_000)}`;
  for (const text of [deepArray, deepObject, veryDeep, unbalanced]) {
    const result = await run.call("fs.edit_file", text);
    assertRefused(result, "invalid_arguments");
    await assertAudited(run, result, "tool.failed", null);
  }
  assert.equal(await Deno.readTextFile(`${run.sandbox.workspace}/a.txt`), "alpha\n");
});

Deno.test("fs tools accept large flat arguments and brackets inside strings (near miss)", async () => {
  await using run = await openTestRun();
  const deliverables = run.session.folder.paths.deliverables;
  const big = `${deliverables}/big.txt`;
  const content = "x".repeat(1_000_000);
  assertWorked(await run.call("fs.write_file", { path: big, content }));
  assert.equal((await Deno.stat(big)).size, 1_000_000);

  const brackets = `${"[".repeat(100)}${"{".repeat(100)}"\\"${"}".repeat(100)}${"]".repeat(100)}\n`;
  const path = `${deliverables}/brackets.txt`;
  assertWorked(await run.call("fs.write_file", { path, content: brackets }));
  assert.equal(await Deno.readTextFile(path), brackets);
  assertWorked(
    await run.call("fs.edit_file", {
      path,
      edits: [{ old: "[{", new: "(<" }, { old: "}]", new: ">)" }],
    }),
  );
});

// ---------------------------------------------------------------------------------------------
// Request fields that try to change policy
// ---------------------------------------------------------------------------------------------

Deno.test("fs tools refuse request fields such as sandbox:false and approved:true", async () => {
  await using run = await openTestRun({
    // fs.delete_file is on (asking), so that its call reaches argument checking.
    permissions: { rules: [{ tools: ["fs.delete_file"], decision: "ask" }] },
    prepare: async (sandbox) => {
      await writeTree(sandbox.workspace, { "a.txt": "alpha\n", ".env": `${CANARY}\n` });
      await writeTree(sandbox.outside, { "secret.txt": `${CANARY}\n` });
    },
  });
  const workspace = run.sandbox.workspace;
  const outside = run.sandbox.outside;
  const attacks: [string, Record<string, unknown>][] = [
    ["fs.read_file", { path: "a.txt", sandbox: false }],
    ["fs.read_file", { path: "a.txt", approved: true }],
    ["fs.read_file", { path: "../outside/secret.txt", sandbox: false }],
    ["fs.read_file", { path: ".env", approved: true }],
    ["fs.read_file", { path: ".env", decision: "allow" }],
    ["fs.write_file", { path: "x.txt", content: "owned\n", approved: true }],
    ["fs.write_file", { path: `${outside}/x.txt`, content: "owned\n", sandbox: false }],
    ["fs.write_file", { path: "x.txt", content: "owned\n", dangerouslyDisableSandbox: true }],
    ["fs.write_file", { path: "x.txt", content: "owned\n", permissions: { rules: [] } }],
    ["fs.delete_file", { path: "a.txt", approved: true }],
    ["fs.list_files", { path: "/", sandbox: false }],
    ["fs.grep_files", { pattern: "KAGENT", path: "..", roots: ["/"] }],
  ];
  for (const [tool, args] of attacks) {
    const result = await run.call(tool, args);
    assertRefused(result, "invalid_arguments");
    await assertAudited(run, result, "tool.failed", null);
  }
  assert.equal(await exists(`${workspace}/x.txt`), false);
  assert.equal(await exists(`${outside}/x.txt`), false);
  assert.equal(await exists(`${workspace}/a.txt`), true);
  // The same calls without the extra fields get the ordinary decisions.
  assertDenied(
    await run.call("fs.write_file", { path: "x.txt", content: "owned\n" }),
    "approval_required",
    { rule: "default:write-ask", layer: "default" },
  );
  assertDenied(await run.call("fs.read_file", { path: ".env" }), "approval_required", SENSITIVE);
  assert.equal(await exists(`${workspace}/x.txt`), false);
});

Deno.test("fs tools run the same calls without extra request fields (near miss)", async () => {
  await using run = await openTestRun({
    prepare: (sandbox) => writeTree(sandbox.workspace, { "a.txt": "alpha\n" }),
  });
  const read = await run.call("fs.read_file", { path: "a.txt" });
  assertWorked(read);
  assert.match(read.output, /alpha/);
  const report = `${run.session.folder.paths.deliverables}/report.md`;
  assertWorked(await run.call("fs.write_file", { path: report, content: "report\n" }));
  assert.equal(await Deno.readTextFile(report), "report\n");
});

// ---------------------------------------------------------------------------------------------
// Allow must not short-circuit
// ---------------------------------------------------------------------------------------------

Deno.test("an allow-all rule still refuses paths outside the roots, protected paths and sensitive paths", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    prepare: async (sandbox) => {
      await writeTree(sandbox.workspace, {
        ".env": `${CANARY}\n`,
        ".env.local": `${CANARY}\n`,
        "config/.env.production": `${CANARY}\n`,
        "x.pem": `${CANARY}\n`,
        "certs/id.key": `${CANARY}\n`,
        ".git/config": "[core]\n",
        "plain.txt": "plain\n",
      });
      await writeTree(sandbox.outside, { "secret.txt": `${CANARY}\n` });
      await Deno.symlink(".env", `${sandbox.workspace}/innocent.txt`);
      await Deno.symlink("plain.txt", `${sandbox.workspace}/.env.test`);
    },
  });
  const workspace = run.sandbox.workspace;
  const outside = run.sandbox.outside;

  for (const path of ["/etc/passwd", "../outside/secret.txt", `${outside}/secret.txt`]) {
    const result = await run.call("fs.read_file", { path });
    assertDenied(result, "path_outside_sandbox", PATH_GUARD);
    await assertAudited(run, result, "tool.denied", PATH_GUARD);
  }
  assertDenied(
    await run.call("fs.write_file", { path: "../outside/new.txt", content: "owned\n" }),
    "path_outside_sandbox",
    PATH_GUARD,
  );
  assertDenied(
    await run.call("fs.delete_file", { path: "../outside/secret.txt" }),
    "path_outside_sandbox",
    PATH_GUARD,
  );

  const gitWrite = await run.call("fs.write_file", {
    path: ".git/hooks/pre-commit",
    content: "#!/bin/sh\n",
  });
  assertDenied(gitWrite, "permission_denied", PROTECTED);
  await assertAudited(run, gitWrite, "tool.denied", PROTECTED);
  assertDenied(
    await run.call("fs.delete_file", { path: ".git/config" }),
    "permission_denied",
    PROTECTED,
  );

  const sensitive = [
    ".env",
    ".env.local",
    "config/.env.production",
    "x.pem",
    "certs/id.key",
    `${workspace}/.env`,
    "innocent.txt",
    ".env.test",
  ];
  for (const path of sensitive) {
    const result = await run.call("fs.read_file", { path });
    assertDenied(result, "approval_required", SENSITIVE);
    await assertAudited(run, result, "tool.denied", SENSITIVE);
    assertDenied(
      await run.call("fs.grep_files", { pattern: "KAGENT", path }),
      "approval_required",
      SENSITIVE,
    );
  }
  assertDenied(
    await run.call("fs.write_file", { path: ".env", content: "OWNED=1\n", overwrite: true }),
    "approval_required",
    SENSITIVE,
  );
  assertDenied(
    await run.call("fs.edit_file", { path: "x.pem", edits: [{ old: "KAGENT", new: "OWNED" }] }),
    "approval_required",
    SENSITIVE,
  );
  assertDenied(
    await run.call("fs.delete_file", { path: "certs/id.key" }),
    "approval_required",
    SENSITIVE,
  );
  assertDenied(
    await run.call("fs.write_file", { path: "new.pem", content: "x\n" }),
    "approval_required",
    SENSITIVE,
  );

  // A walk from the workspace never reads sensitive files.
  const grep = await run.call("fs.grep_files", { pattern: "KAGENT", path: "." });
  assertWorked(grep);
  assertNoLeak(grep);
  assert.equal((grep.data as { matches: unknown[] }).matches.length, 0, grep.output);

  assert.equal(await Deno.readTextFile(`${workspace}/.env`), `${CANARY}\n`);
  assert.equal(await Deno.readTextFile(`${workspace}/x.pem`), `${CANARY}\n`);
  assert.equal(await exists(`${workspace}/certs/id.key`), true);
  assert.equal(await exists(`${workspace}/new.pem`), false);
  assert.equal(await exists(`${workspace}/.git/hooks`), false);
  assert.equal(await exists(`${outside}/new.txt`), false);
  assert.equal(await exists(`${outside}/secret.txt`), true);
  for (const log of ["events", "tools", "errors"] as const) {
    assert.ok(!JSON.stringify(await run.readLog(log)).includes(CANARY), `${log} leaks the canary`);
  }
});

Deno.test("a path-scoped allow rule naming outside or sensitive paths does not open them", async () => {
  await using run = await openTestRun({
    permissions: {
      rules: [
        {
          id: "allow-named",
          tools: ["fs.*"],
          paths: ["/etc/**", "../outside/**", "**/.env", "*.pem", "/tmp/**"],
          decision: "allow",
        },
        { id: "allow-delete", tools: ["fs.delete_file"], paths: ["**"], decision: "allow" },
      ],
    },
    prepare: async (sandbox) => {
      await writeTree(sandbox.workspace, { ".env": `${CANARY}\n`, "x.pem": `${CANARY}\n` });
      await writeTree(sandbox.outside, { "secret.txt": `${CANARY}\n` });
    },
  });
  for (const path of ["/etc/passwd", "../outside/secret.txt"]) {
    assertDenied(await run.call("fs.read_file", { path }), "path_outside_sandbox", PATH_GUARD);
  }
  assertDenied(
    await run.call("fs.write_file", { path: "../outside/x.txt", content: "owned\n" }),
    "path_outside_sandbox",
    PATH_GUARD,
  );
  for (const path of [".env", "x.pem"]) {
    assertDenied(await run.call("fs.read_file", { path }), "approval_required", SENSITIVE);
  }
  assert.equal(await exists(`${run.sandbox.outside}/x.txt`), false);
});

Deno.test("an allow-all rule reads, writes and deletes ordinary files with sensitive-looking names (near miss)", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    prepare: (sandbox) =>
      writeTree(sandbox.workspace, {
        "env.txt": "plain env\n",
        ".environment": "plain environment\n",
        ".envrc.md": "plain envrc\n",
        "pem.txt": "plain pem\n",
        "keys.md": "plain keys\n",
        "notes.key.txt": "plain key notes\n",
        "old.txt": "old\n",
      }),
  });
  const workspace = run.sandbox.workspace;
  for (
    const path of ["env.txt", ".environment", ".envrc.md", "pem.txt", "keys.md", "notes.key.txt"]
  ) {
    const read = await run.call("fs.read_file", { path });
    assertWorked(read);
    assert.match(read.output, /plain/);
  }
  assertWorked(await run.call("fs.write_file", { path: "notes.txt", content: "notes\n" }));
  assert.equal(await Deno.readTextFile(`${workspace}/notes.txt`), "notes\n");
  assertWorked(await run.call("fs.delete_file", { path: "old.txt" }));
  assert.equal(await exists(`${workspace}/old.txt`), false);
  const grep = await run.call("fs.grep_files", { pattern: "^plain", path: "." });
  assertWorked(grep);
  assert.equal((grep.data as { matches: unknown[] }).matches.length, 6, grep.output);
});

Deno.test("fs.delete_file stays off under a wildcard allow-all rule", async () => {
  await using run = await openTestRun({
    permissions: {
      rules: [{ tools: ["*"], decision: "allow" }, { tools: ["fs.*"], decision: "allow" }],
    },
    prepare: (sandbox) => writeTree(sandbox.workspace, { "a.txt": "alpha\n" }),
  });
  const result = await run.call("fs.delete_file", { path: "a.txt" });
  assert.equal(result.ok, false, result.summary);
  assert.ok(
    result.error?.type === "tool_not_available" || result.error?.type === "permission_denied",
    result.error?.message,
  );
  assert.equal(await exists(`${run.sandbox.workspace}/a.txt`), true);
  // Near miss: the other fs tools are allowed by the same rule.
  assertWorked(await run.call("fs.write_file", { path: "b.txt", content: "beta\n" }));
  assert.equal(await Deno.readTextFile(`${run.sandbox.workspace}/b.txt`), "beta\n");
});

// ---------------------------------------------------------------------------------------------
// Missing or malformed permissions files
// ---------------------------------------------------------------------------------------------

async function assertConfigRejected(
  open: () => Promise<TestRun>,
  code: string,
  fileName: string,
): Promise<void> {
  let run: TestRun | undefined;
  try {
    run = await open();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    assert.equal(nodePath.basename(error.file), fileName, error.message);
    assert.ok(error.message.includes(fileName), error.message);
    return;
  } finally {
    await run?.close();
  }
  assert.fail(`the run opened with a ${code} permissions file`);
}

Deno.test("a missing or malformed permissions file stops the run instead of allowing everything", async () => {
  await assertConfigRejected(
    () => openTestRun({ config: { permissions: "missing-permissions.json" } }),
    "permissions_not_found",
    "missing-permissions.json",
  );
  for (
    const [text, code] of [
      ['{"rules": [', "permissions_syntax"],
      ["", "permissions_syntax"],
      ["not json at all", "permissions_syntax"],
      ["{}", "permissions_invalid"],
      ["null", "permissions_invalid"],
      ['{"rules": "allow"}', "permissions_invalid"],
      ['{"rules": [{"tools": ["*"], "decision": "allow-all"}]}', "permissions_invalid"],
      ['{"rules": [{"tools": "*", "decision": "allow"}]}', "permissions_invalid"],
      ['{"rules": [], "default": "allow"}', "permissions_invalid"],
    ] as const
  ) {
    await assertConfigRejected(
      () =>
        openTestRun({
          config: { permissions: "broken-permissions.json" },
          prepare: (sandbox) =>
            Deno.writeTextFile(
              nodePath.join(sandbox.root, "config", "broken-permissions.json"),
              text,
            ),
        }),
      code,
      "broken-permissions.json",
    ).catch((error) => {
      throw new Error(`permissions file ${JSON.stringify(text)}: ${error.message}`);
    });
  }
});

Deno.test("an empty permissions file keeps the safe defaults and a valid one applies (near miss)", async () => {
  {
    await using run = await openTestRun({ permissions: { rules: [] } });
    assertDenied(
      await run.call("fs.write_file", { path: "x.txt", content: "x\n" }),
      "approval_required",
      { rule: "default:write-ask", layer: "default" },
    );
    assert.equal(await exists(`${run.sandbox.workspace}/x.txt`), false);
  }
  {
    await using run = await openTestRun({
      permissions: { rules: [{ id: "writes", tools: ["fs.write_file"], decision: "allow" }] },
    });
    assertWorked(await run.call("fs.write_file", { path: "x.txt", content: "x\n" }));
    assert.equal(await Deno.readTextFile(`${run.sandbox.workspace}/x.txt`), "x\n");
  }
});

Deno.test('a permissions rule with paths ["/**"] decides calls instead of failing them', async () => {
  await using run = await openTestRun({
    permissions: {
      rules: [
        { id: "deny-reads", tools: ["fs.read_file"], paths: ["/**"], decision: "deny" },
        { id: "allow-writes", tools: ["fs.write_file"], paths: ["/**"], decision: "allow" },
      ],
    },
    prepare: (sandbox) => writeTree(sandbox.workspace, { "a.txt": `${CANARY}\n` }),
  });
  const denied = await run.call("fs.read_file", { path: "a.txt" });
  assertDenied(denied, "permission_denied", { rule: "deny-reads", layer: "config" });
  await assertAudited(run, denied, "tool.denied", { rule: "deny-reads", layer: "config" });
  // Near miss: the allow rule with the same pattern lets a write through.
  assertWorked(await run.call("fs.write_file", { path: "b.txt", content: "beta\n" }));
  assert.equal(await Deno.readTextFile(`${run.sandbox.workspace}/b.txt`), "beta\n");
});

Deno.test("a path-scoped deny rule naming a symlinked folder denies calls spelled through it", async () => {
  await using run = await openTestRun({
    permissions: {
      rules: [{ id: "no-vendor", tools: ["fs.*"], paths: ["vendor-link/**"], decision: "deny" }],
    },
    prepare: async (sandbox) => {
      await writeTree(sandbox.workspace, {
        "vendor/a.txt": `${CANARY}\n`,
        "other/a.txt": "other\n",
      });
      await Deno.symlink("vendor", `${sandbox.workspace}/vendor-link`);
    },
  });
  // The rule names the spelling; policy_rule.ts says the requested spelling is matched too.
  const denied = await run.call("fs.read_file", { path: "vendor-link/a.txt" });
  assertDenied(denied, "permission_denied", { rule: "no-vendor", layer: "config" });
  await assertAudited(run, denied, "tool.denied", { rule: "no-vendor", layer: "config" });
  // Near miss: a folder the rule does not name reads normally.
  const read = await run.call("fs.read_file", { path: "other/a.txt" });
  assertWorked(read);
  assert.match(read.output, /other/);
});

// ---------------------------------------------------------------------------------------------
// Command arguments: values attached to options, key=value operands, file: URLs
// ---------------------------------------------------------------------------------------------

/** Programs the command pairs run; all are on the test machines (tests/command_attacks_test.ts). */
const COMMAND_PROGRAMS = ["tar", "dd", "curl", "git", "sort", "cat"];

/**
 * A run with the programs allowlisted and run_command allowed by a rule naming it and its
 * programs, under bubblewrap (under "none" every command call would ask besides).
 */
function openCommandRun(
  prepare: (sandbox: TestRun["sandbox"]) => Promise<void>,
  sandboxConfig: Record<string, unknown> = {},
) {
  return openTestRun({
    permissions: {
      rules: [{
        id: "allow-run-command",
        tools: ["exec.run_command"],
        commands: COMMAND_PROGRAMS,
        decision: "allow",
      }],
    },
    config: {
      commands: COMMAND_PROGRAMS,
      sandbox: { command_isolation: "bwrap", ...sandboxConfig },
    },
    prepare,
  });
}

/** A workspace with files, a repository inside it, and a secret and a repository outside. */
async function prepareCommandSandbox(sandbox: TestRun["sandbox"]): Promise<void> {
  await writeTree(sandbox.workspace, {
    "src/a.txt": "alpha\n",
    "in.txt": "b\na\n",
    ".env": `${CANARY}\n`,
    "repo/README.md": "# inside\n",
  });
  await writeTree(sandbox.outside, {
    "secret.txt": `${CANARY}\n`,
    "repo/README.md": `${CANARY}\n`,
  });
  for (const folder of [`${sandbox.workspace}/repo`, `${sandbox.outside}/repo`]) {
    await git(folder, "init", "-q", "-b", "main");
    await git(folder, "add", "README.md");
    await git(
      folder,
      "-c",
      "user.name=t",
      "-c",
      "user.email=t@example.invalid",
      "commit",
      "-qm",
      "x",
    );
  }
}

Deno.test("exec.run_command refuses attached values, key=value operands and file: URLs naming paths outside the roots", async () => {
  await using run = await openCommandRun(prepareCommandSandbox);
  const workspace = run.sandbox.workspace;
  const outside = run.sandbox.outside;
  const attacks: string[][] = [
    ["tar", `-cf${outside}/outside.tar`, "src"],
    ["tar", `-czf${outside}/outside.tgz`, "src"],
    ["tar", "-cf", "list.tar", `-T${outside}/secret.txt`],
    ["dd", `if=${outside}/secret.txt`, "of=copy.txt"],
    ["dd", "if=in.txt", `of=${outside}/dd-out.txt`],
    ["curl", "-s", `file://${outside}/secret.txt`],
    ["curl", "-s", `FILE://localhost${outside}/secret.txt`],
    ["curl", "-s", "-o", "passwd.txt", "file:///etc/passwd"],
    ["git", "clone", "-q", `file://${outside}/repo`, "clone"],
    ["git", "fetch", `file://${outside}/repo`],
    ["sort", `-T${outside}`, "-u", "in.txt"],
  ];
  for (const argv of attacks) {
    const result = await run.call("exec.run_command", { argv });
    assertDenied(result, "permission_denied", {
      rule: "runtime:unchecked-arguments",
      layer: "runtime",
    });
    assert.match(result.error?.message ?? "", /argv:path-outside-roots/, argv.join(" "));
    await assertAudited(run, result, "tool.denied", {
      rule: "runtime:unchecked-arguments",
      layer: "runtime",
    });
  }
  for (const name of ["outside.tar", "outside.tgz", "dd-out.txt"]) {
    assert.equal(await exists(`${outside}/${name}`), false, name);
  }
  for (const name of ["list.tar", "copy.txt", "passwd.txt", "clone"]) {
    assert.equal(await exists(`${workspace}/${name}`), false, name);
  }
  for (const log of ["events", "tools", "errors"] as const) {
    assert.ok(!JSON.stringify(await run.readLog(log)).includes(CANARY), `${log} leaks the canary`);
  }
});

Deno.test("exec.run_command runs bundled tar values, dd operands and file: URLs inside the workspace (near miss)", async () => {
  // The clone below is a new nested repository: kept only with this switch (else quarantined).
  await using run = await openCommandRun(prepareCommandSandbox, {
    allow_nested_repositories: true,
  });
  const workspace = run.sandbox.workspace;
  const call = (argv: string[]) => run.call("exec.run_command", { argv });
  const stdout = (
    result: ToolResult,
  ) => ((result.data as { stdout?: { text?: string } }).stdout?.text ?? "");

  assertWorked(await call(["tar", "-czfgood.tgz", "src"]));
  assert.equal(await exists(`${workspace}/good.tgz`), true);
  const listed = await call(["tar", "-tzf", "good.tgz"]);
  assertWorked(listed);
  assert.match(stdout(listed), /src\/a\.txt/);
  await Deno.mkdir(`${workspace}/dir`);
  assertWorked(await call(["tar", "-xzf", "good.tgz", "-C", "dir"]));
  assert.equal(await Deno.readTextFile(`${workspace}/dir/src/a.txt`), "alpha\n");

  assertWorked(await call(["dd", "if=in.txt", "of=out.txt", "status=none"]));
  assert.equal(await Deno.readTextFile(`${workspace}/out.txt`), "b\na\n");

  const sorted = await call(["sort", "-T.", "in.txt"]);
  assertWorked(sorted);
  assert.equal(stdout(sorted), "a\nb\n");

  const read = await call(["curl", "-s", `file://${workspace}/in.txt`]);
  assertWorked(read);
  assert.equal(stdout(read), "b\na\n");

  assertWorked(await call(["git", "clone", "-q", `file://${workspace}/repo`, "clone"]));
  assert.equal(await Deno.readTextFile(`${workspace}/clone/README.md`), "# inside\n");
});

Deno.test("exec.run_command does not run a command naming a sensitive file without approval", async () => {
  await using run = await openCommandRun(prepareCommandSandbox);
  const attacks: string[][] = [
    ["cat", ".env"],
    ["cat", "./.env"],
    ["dd", "if=.env", "status=none"],
    ["curl", "-s", `file://${run.sandbox.workspace}/.env`],
    ["tar", "-czf", "env.tgz", ".env"],
  ];
  for (const argv of attacks) {
    const result = await run.call("exec.run_command", { argv });
    assert.equal(result.ok, false, `${argv.join(" ")} ran: ${result.summary}`);
    // Denied until the policy maps the sensitive kind to an ask; either way it does not run.
    assert.ok(
      result.error?.type === "approval_required" || result.error?.type === "permission_denied",
      `${argv.join(" ")}: ${result.error?.type}: ${result.error?.message}`,
    );
    assert.match(result.error?.message ?? "", /argv:sensitive-path/, argv.join(" "));
    assertNoLeak(result);
  }
  assert.equal(await exists(`${run.sandbox.workspace}/env.tgz`), false);
  // Near miss: a plain file with a similar name is read.
  await Deno.writeTextFile(`${run.sandbox.workspace}/env.txt`, "plain\n");
  const plain = await run.call("exec.run_command", { argv: ["cat", "env.txt"] });
  assertWorked(plain);
});
