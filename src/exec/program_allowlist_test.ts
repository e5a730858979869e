import assert from "node:assert/strict";
import * as nodePath from "node:path";
import {
  type AllowedProgram,
  AllowlistError,
  type AllowlistErrorCode,
  matchProgram,
  resolveAllowlist,
} from "./program_allowlist.ts";

/** A temp folder with helpers to create programs in it; removed after `body`. */
async function withFolder(body: (folder: string) => Promise<void>): Promise<void> {
  const folder = await Deno.realPath(await Deno.makeTempDir({ prefix: "allowlist-" }));
  try {
    await body(folder);
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
}

async function program(path: string, mode = 0o755): Promise<string> {
  await Deno.mkdir(nodePath.dirname(path), { recursive: true });
  await Deno.writeTextFile(path, "#!/bin/sh\nexit 0\n");
  await Deno.chmod(path, mode);
  return path;
}

async function assertRefused(
  names: string[],
  options: { searchPath: string; forbiddenRoots: string[] },
  code: AllowlistErrorCode,
  message: string | RegExp,
): Promise<void> {
  await assert.rejects(() => resolveAllowlist(names, options), (error: unknown) => {
    assert.ok(error instanceof AllowlistError, String(error));
    assert.equal(error.code, code);
    assert.equal(error.program, names.at(-1));
    if (typeof message === "string") assert.equal(error.message, message);
    else assert.match(error.message, message);
    assert.equal(error.message, `Cannot allow program "${error.program}": ${error.reason}`);
    return true;
  });
}

Deno.test("resolveAllowlist resolves a name to its real path when it is on the search path", async () => {
  await withFolder(async (folder) => {
    const tool = await program(`${folder}/bin/tool`);
    const programs = await resolveAllowlist(["tool"], {
      searchPath: `/nonexistent:${folder}/bin`,
      forbiddenRoots: [`${folder}/work`],
    });
    assert.deepEqual(programs, [{ name: "tool", path: tool }]);
  });
});

Deno.test("resolveAllowlist takes the first executable match when an earlier one cannot run", async () => {
  await withFolder(async (folder) => {
    await program(`${folder}/a/tool`, 0o644);
    await Deno.mkdir(`${folder}/b/tool`, { recursive: true });
    const good = await program(`${folder}/c/tool`);
    await program(`${folder}/d/tool`);
    const programs = await resolveAllowlist(["tool"], {
      searchPath: `${folder}/a:${folder}/b:${folder}/c:${folder}/d`,
      forbiddenRoots: [],
    });
    assert.equal(programs[0]?.path, good);
  });
});

Deno.test("resolveAllowlist resolves a symlinked program to its real path when found through a link", async () => {
  await withFolder(async (folder) => {
    const real = await program(`${folder}/real/tool-1.2`);
    await Deno.mkdir(`${folder}/bin`);
    await Deno.symlink(real, `${folder}/bin/tool`);
    const [byName] = await resolveAllowlist(["tool"], {
      searchPath: `${folder}/bin`,
      forbiddenRoots: [],
    });
    assert.deepEqual(byName, { name: "tool", path: real });
    const [byPath] = await resolveAllowlist([`${folder}/bin/tool`], {
      searchPath: "",
      forbiddenRoots: [],
    });
    assert.deepEqual(byPath, { name: `${folder}/bin/tool`, path: real });
  });
});

Deno.test("resolveAllowlist refuses a program when its real path is inside a write root", async () => {
  await withFolder(async (folder) => {
    await program(`${folder}/project/bin/tool`);
    const options = { searchPath: `${folder}/project/bin`, forbiddenRoots: [`${folder}/project`] };
    await assertRefused(
      ["tool"],
      options,
      "inside_write_root",
      `Cannot allow program "tool": its real path "${folder}/project/bin/tool" is inside the write root "${folder}/project", where the agent could rewrite it`,
    );
    await assertRefused(
      [`${folder}/project/bin/tool`],
      { searchPath: "", forbiddenRoots: [`${folder}/project/`] },
      "inside_write_root",
      /is inside the write root/,
    );
    // A link outside the roots to a program inside one: the real path decides.
    await Deno.mkdir(`${folder}/bin`);
    await Deno.symlink(`${folder}/project/bin/tool`, `${folder}/bin/tool`);
    await assertRefused(
      ["tool"],
      { searchPath: `${folder}/bin`, forbiddenRoots: [`${folder}/project`] },
      "inside_write_root",
      /its real path ".*\/project\/bin\/tool"/,
    );
  });
});

Deno.test("resolveAllowlist refuses a program when the write root is given through a symlink", async () => {
  await withFolder(async (folder) => {
    await program(`${folder}/project/bin/tool`);
    await Deno.symlink(`${folder}/project`, `${folder}/alias`);
    await assertRefused(
      ["tool"],
      { searchPath: `${folder}/project/bin`, forbiddenRoots: [`${folder}/alias`] },
      "inside_write_root",
      /is inside the write root/,
    );
  });
});

Deno.test("resolveAllowlist accepts a program when it is in a sibling-prefix folder of a root", async () => {
  await withFolder(async (folder) => {
    const tool = await program(`${folder}/project2/bin/tool`);
    const other = await program(`${folder}/project-old/tool`);
    const programs = await resolveAllowlist(["tool", other], {
      searchPath: `${folder}/project2/bin`,
      forbiddenRoots: [`${folder}/project`],
    });
    assert.deepEqual(programs.map((allowed) => allowed.path), [tool, other]);
  });
});

Deno.test("resolveAllowlist accepts a link inside a write root when its target is outside", async () => {
  await withFolder(async (folder) => {
    const real = await program(`${folder}/system/tool`);
    await Deno.mkdir(`${folder}/project/bin`, { recursive: true });
    await Deno.symlink(real, `${folder}/project/bin/tool`);
    const [found] = await resolveAllowlist(["tool"], {
      searchPath: `${folder}/project/bin`,
      forbiddenRoots: [`${folder}/project`],
    });
    // The runtime runs the real path, which the agent cannot rewrite.
    assert.equal(found?.path, real);
  });
});

Deno.test("resolveAllowlist refuses a program when it is not executable", async () => {
  await withFolder(async (folder) => {
    await program(`${folder}/bin/tool`, 0o644);
    await assertRefused(
      [`${folder}/bin/tool`],
      { searchPath: "", forbiddenRoots: [] },
      "not_executable",
      `Cannot allow program "${folder}/bin/tool": it is not executable`,
    );
    await assertRefused(
      ["tool"],
      { searchPath: `${folder}/bin`, forbiddenRoots: [] },
      "not_executable",
      `Cannot allow program "tool": it is not executable: found "${folder}/bin/tool" on the search path`,
    );
  });
});

Deno.test("resolveAllowlist refuses a program when it is missing or not a regular file", async () => {
  await withFolder(async (folder) => {
    await Deno.mkdir(`${folder}/bin/tool`, { recursive: true });
    await assertRefused(
      ["nosuch"],
      { searchPath: `${folder}/bin:/nonexistent`, forbiddenRoots: [] },
      "not_found",
      `Cannot allow program "nosuch": it is not on the search path "${folder}/bin:/nonexistent" (only absolute entries are searched)`,
    );
    await assertRefused(
      [`${folder}/nosuch`],
      { searchPath: "", forbiddenRoots: [] },
      "not_found",
      `Cannot allow program "${folder}/nosuch": it does not exist`,
    );
    await assertRefused(
      [`${folder}/bin/tool`],
      { searchPath: "", forbiddenRoots: [] },
      "not_regular_file",
      `Cannot allow program "${folder}/bin/tool": it is not a regular file`,
    );
    await Deno.symlink(`${folder}/gone`, `${folder}/dangling`);
    await assertRefused(
      [`${folder}/dangling`],
      { searchPath: "", forbiddenRoots: [] },
      "not_found",
      /it does not exist$/,
    );
  });
});

Deno.test("resolveAllowlist skips relative and empty PATH entries when searching", async () => {
  await withFolder(async (folder) => {
    await program(`${folder}/bin/tool`);
    // A relative entry that does lead to the program from the current directory.
    const relative = nodePath.relative(Deno.cwd(), `${folder}/bin`);
    assert.ok(!nodePath.isAbsolute(relative));
    await assertRefused(
      ["tool"],
      { searchPath: `:${relative}:.`, forbiddenRoots: [] },
      "not_found",
      /only absolute entries are searched/,
    );
  });
});

Deno.test("resolveAllowlist refuses a name when it is relative, empty or not normalised", async () => {
  const options = { searchPath: "/usr/bin:/bin", forbiddenRoots: [] };
  for (const name of ["./git", "bin/git", "../bin/git"]) {
    await assertRefused([name], options, "relative_path", /it is a relative path/);
  }
  for (
    const name of ["", " git", "git ", ".", "..", "/usr/bin/../bin/git", "//usr/bin/git", "/bin/"]
  ) {
    await assertRefused([name], options, "invalid_name", /^Cannot allow program/);
  }
  await assertRefused(["a\0b"], options, "invalid_name", /NUL/);
});

Deno.test("resolveAllowlist collapses duplicates when a name repeats", async () => {
  await withFolder(async (folder) => {
    const tool = await program(`${folder}/bin/tool`);
    const programs = await resolveAllowlist(["tool", tool, "tool", tool], {
      searchPath: `${folder}/bin`,
      forbiddenRoots: [],
    });
    assert.deepEqual(programs, [{ name: "tool", path: tool }, { name: tool, path: tool }]);
  });
});

Deno.test("resolveAllowlist throws a TypeError when a forbidden root is relative", async () => {
  await assert.rejects(
    () => resolveAllowlist(["sh"], { searchPath: "/bin", forbiddenRoots: ["work"] }),
    TypeError,
  );
});

Deno.test("resolveAllowlist refuses every program when a write root is the filesystem root", async () => {
  await withFolder(async (folder) => {
    await program(`${folder}/bin/tool`);
    await assertRefused(
      ["tool"],
      { searchPath: `${folder}/bin`, forbiddenRoots: ["/"] },
      "inside_write_root",
      /inside the write root "\/"/,
    );
  });
});

const ALLOWED: AllowedProgram[] = [
  { name: "git", path: "/usr/bin/git" },
  { name: "/usr/local/bin/rg", path: "/opt/ripgrep/rg" },
];

Deno.test("matchProgram finds a program when argv0 is its exact name or resolved path", () => {
  assert.equal(matchProgram("git", ALLOWED), ALLOWED[0]);
  assert.equal(matchProgram("/usr/bin/git", ALLOWED), ALLOWED[0]);
  assert.equal(matchProgram("/usr/local/bin/rg", ALLOWED), ALLOWED[1]);
  assert.equal(matchProgram("/opt/ripgrep/rg", ALLOWED), ALLOWED[1]);
});

Deno.test("matchProgram returns null when argv0 is any other spelling", () => {
  for (
    const argv0 of [
      "",
      "./git",
      "/usr/bin/../bin/git",
      "//usr/bin/git",
      "/bin/git",
      "git ",
      " git",
      "GIT",
      "git\0",
      "bin/git",
      "rg",
      "/usr/local/bin/../bin/rg",
      "bash",
    ]
  ) {
    assert.equal(matchProgram(argv0, ALLOWED), null, JSON.stringify(argv0));
  }
});

Deno.test("matchProgram prefers a name match when a path is also a configured name", () => {
  const allowed: AllowedProgram[] = [
    { name: "python3", path: "/usr/bin/python3.11" },
    { name: "/usr/bin/python3.11", path: "/usr/bin/python3.11" },
  ];
  assert.equal(matchProgram("/usr/bin/python3.11", allowed), allowed[1]);
  assert.equal(matchProgram("python3", allowed), allowed[0]);
});

Deno.test("AllowlistError carries code, program and reason when built", () => {
  const error = new AllowlistError("not_executable", "x", "it is not executable");
  assert.ok(error instanceof Error);
  assert.equal(error.name, "AllowlistError");
  assert.equal(error.message, 'Cannot allow program "x": it is not executable');
  assert.equal(error.program, "x");
  assert.equal(error.reason, "it is not executable");
  assert.equal(error.code, "not_executable");
});
