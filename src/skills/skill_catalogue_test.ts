import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { discoverSkills, MAX_RESOURCES } from "./skill_catalogue.ts";

const REPO_SKILLS = nodePath.resolve(import.meta.dirname ?? ".", "../../skills");

const skillText = (name: string, extra = "") =>
  `---\nname: ${name}\ndescription: Does ${name}\n${extra}---\n# ${name}\n`;

async function tempDir(): Promise<string & AsyncDisposable> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix: "kagent-skills-" }));
  return Object.assign(Object(path), {
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }),
  }) as string & AsyncDisposable;
}

async function write(path: string, text: string): Promise<void> {
  await Deno.mkdir(nodePath.dirname(path), { recursive: true });
  await Deno.writeTextFile(path, text);
}

Deno.test("discoverSkills loads a skill with its body and sorted resources", async () => {
  await using dir = await tempDir();
  const root = `${dir}`;
  await write(`${root}/demo/SKILL.md`, skillText("demo", "allowed-tools: fs.read_file\n"));
  await write(`${root}/demo/scripts/run.sh`, "echo\n");
  await write(`${root}/demo/references/b.md`, "b\n");
  await write(`${root}/demo/references/deep/a.md`, "a\n");
  await write(`${root}/demo/assets/logo.txt`, "x\n");
  await write(`${root}/demo/notes.txt`, "not a resource\n");
  await write(`${root}/not-a-skill/README.md`, "no SKILL.md here\n");

  const { skills, invalid } = await discoverSkills([root]);
  assert.deepEqual(invalid, []);
  assert.equal(skills.length, 1);
  const skill = skills[0]!;
  assert.equal(skill.name, "demo");
  assert.equal(skill.path, `${root}/demo`);
  assert.equal(skill.body, "# demo\n");
  assert.deepEqual(skill.allowed_tools, ["fs.read_file"]);
  assert.deepEqual(skill.resources, [
    "assets/logo.txt",
    "references/b.md",
    "references/deep/a.md",
    "scripts/run.sh",
  ]);
  assert.equal(skill.resources_truncated, false);
});

Deno.test("discoverSkills skips invalid skills with the file and reason", async () => {
  await using dir = await tempDir();
  const root = `${dir}`;
  await write(`${root}/good/SKILL.md`, skillText("good"));
  await write(`${root}/bad-name/SKILL.md`, skillText("Bad_Name"));
  await write(`${root}/mismatch/SKILL.md`, skillText("other"));
  await write(`${root}/extra/SKILL.md`, skillText("extra", "version: 1\n"));
  await write(`${root}/nofront/SKILL.md`, "# nothing\n");

  const { skills, invalid } = await discoverSkills([root]);
  // A key outside the spec is a warning, not a refusal.
  assert.deepEqual(skills.map((skill) => skill.name), ["extra", "good"]);
  assert.deepEqual(invalid.map((entry) => entry.path), [
    `${root}/bad-name/SKILL.md`,
    `${root}/mismatch/SKILL.md`,
    `${root}/nofront/SKILL.md`,
  ]);
  assert.match(
    invalid[0]!.reason,
    /^Cannot load skill "bad-name\/SKILL.md": key "name" must be a skill name/,
  );
  assert.match(skills[0]!.warnings.join("\n"), /key "version" is not in the Agent Skills spec/);
  assert.match(invalid[1]!.reason, /must equal the folder name "mismatch"/);
  assert.match(invalid[2]!.reason, /must start with a "---" line/);
});

Deno.test("discoverSkills keeps the first skill of a name across folders", async () => {
  await using first = await tempDir();
  await using second = await tempDir();
  await write(`${first}/demo/SKILL.md`, skillText("demo"));
  await write(`${second}/demo/SKILL.md`, skillText("demo"));
  await write(`${second}/other/SKILL.md`, skillText("other"));

  const { skills, invalid } = await discoverSkills([`${first}`, `${second}`]);
  assert.deepEqual(skills.map((skill) => [skill.name, skill.path]), [
    ["demo", `${first}/demo`],
    ["other", `${second}/other`],
  ]);
  assert.equal(invalid.length, 1);
  assert.equal(invalid[0]!.path, `${second}/demo/SKILL.md`);
  assert.match(invalid[0]!.reason, /a skill named "demo" was already loaded from/);
});

Deno.test("discoverSkills reports a missing skills folder without throwing", async () => {
  await using dir = await tempDir();
  const { skills, invalid } = await discoverSkills([`${dir}/missing`]);
  assert.deepEqual(skills, []);
  assert.match(invalid[0]!.reason, /^Cannot read skill folder ".*\/missing": it does not exist$/);
});

Deno.test("discoverSkills refuses a SKILL.md symlinked outside the skill folder", async () => {
  await using dir = await tempDir();
  const root = `${dir}/skills`;
  await write(`${dir}/outside/SKILL.md`, skillText("evil"));
  await Deno.mkdir(`${root}/evil`, { recursive: true });
  await Deno.symlink(`${dir}/outside/SKILL.md`, `${root}/evil/SKILL.md`);

  const { skills, invalid } = await discoverSkills([root]);
  assert.deepEqual(skills, []);
  assert.equal(invalid.length, 1);
  assert.match(invalid[0]!.reason, /SKILL.md is a symlink pointing outside the skill folder/);
});

Deno.test("discoverSkills accepts a SKILL.md symlinked inside the skill folder", async () => {
  await using dir = await tempDir();
  const root = `${dir}`;
  await write(`${root}/demo/docs/main.md`, skillText("demo"));
  await Deno.symlink("docs/main.md", `${root}/demo/SKILL.md`);
  const { skills, invalid } = await discoverSkills([root]);
  assert.deepEqual(invalid, []);
  assert.deepEqual(skills.map((skill) => skill.name), ["demo"]);
});

Deno.test("discoverSkills refuses a skill folder symlinked outside the skills folder", async () => {
  await using dir = await tempDir();
  await write(`${dir}/elsewhere/demo/SKILL.md`, skillText("demo"));
  await Deno.mkdir(`${dir}/skills`);
  await Deno.symlink(`${dir}/elsewhere/demo`, `${dir}/skills/demo`);
  const { skills, invalid } = await discoverSkills([`${dir}/skills`]);
  assert.deepEqual(skills, []);
  assert.match(invalid[0]!.reason, /symlink pointing outside the skills folder/);
});

Deno.test("discoverSkills lists no resource that leaves the skill through a symlink", async () => {
  await using dir = await tempDir();
  const root = `${dir}/skills`;
  await write(`${dir}/secret/key.txt`, "secret\n");
  await write(`${root}/demo/SKILL.md`, skillText("demo"));
  await write(`${root}/demo/references/real.md`, "ok\n");
  await Deno.symlink(`${dir}/secret/key.txt`, `${root}/demo/references/key.txt`);
  await Deno.symlink(`${dir}/secret`, `${root}/demo/references/secret-dir`);
  await Deno.symlink(`${dir}/secret`, `${root}/demo/assets`);
  await Deno.symlink("real.md", `${root}/demo/references/alias.md`);

  const { skills } = await discoverSkills([root]);
  assert.deepEqual(skills[0]!.resources, ["references/alias.md", "references/real.md"]);
});

Deno.test("discoverSkills stops listing resources at the limit", async () => {
  await using dir = await tempDir();
  const root = `${dir}`;
  await write(`${root}/demo/SKILL.md`, skillText("demo"));
  await Deno.mkdir(`${root}/demo/assets`);
  for (let index = 0; index < MAX_RESOURCES + 5; index += 1) {
    await Deno.writeTextFile(`${root}/demo/assets/f${String(index).padStart(4, "0")}`, "");
  }
  const { skills } = await discoverSkills([root]);
  assert.equal(skills[0]!.resources.length, MAX_RESOURCES);
  assert.equal(skills[0]!.resources_truncated, true);
});

Deno.test("discoverSkills loads both skills of the repository", async () => {
  const { skills, invalid } = await discoverSkills([REPO_SKILLS]);
  assert.deepEqual(invalid, []);
  assert.deepEqual(skills.map((skill) => skill.name), ["review-changes", "survey-repository"]);
  assert.ok(skills[1]!.resources.includes("scripts/count_lines.sh"));
  assert.deepEqual(skills[0]!.allowed_tools, [
    "fs.read_file",
    "fs.list_files",
    "fs.grep_files",
    "exec.run_command",
    "fs.write_file",
  ]);
});

Deno.test("discoverSkills reads skill.md when a folder has no SKILL.md, and prefers SKILL.md", async () => {
  await using dir = await tempDir();
  const root = `${dir}`;
  await write(`${root}/lower/skill.md`, skillText("lower"));
  await write(`${root}/both/SKILL.md`, skillText("both"));
  await write(`${root}/both/skill.md`, skillText("other-name"));
  await write(`${root}/neither/README.md`, skillText("neither"));
  const { skills, invalid } = await discoverSkills([root]);
  assert.deepEqual(skills.map((skill) => skill.name), ["both", "lower"]);
  assert.deepEqual(invalid, []);
});
