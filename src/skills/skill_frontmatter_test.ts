import assert from "node:assert/strict";
import { parseSkillDocument } from "./skill_frontmatter.ts";

const doc = (frontmatter: string, body = "# Body\n") => `---\n${frontmatter}\n---\n${body}`;
const reasonOf = (text: string, folder = "demo") => {
  const parsed = parseSkillDocument(text, folder);
  assert.equal(parsed.ok, false, "expected an invalid skill");
  return parsed.ok ? "" : parsed.reason;
};

Deno.test("parseSkillDocument reads every key when the frontmatter is complete", () => {
  const parsed = parseSkillDocument(
    doc(
      "name: demo\ndescription: Does demo things\nlicense: MIT\ncompatibility: Needs git\n" +
        'metadata:\n  author: someone\n  version: "1.0"\nallowed-tools: fs.read_file  fs.*\n',
    ),
    "demo",
  );
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.frontmatter, {
    name: "demo",
    description: "Does demo things",
    license: "MIT",
    compatibility: "Needs git",
    metadata: { author: "someone", version: "1.0" },
    allowed_tools: ["fs.read_file", "fs.*"],
  });
  assert.equal(parsed.body, "# Body\n");
});

Deno.test("parseSkillDocument accepts CRLF line ends and a BOM", () => {
  const parsed = parseSkillDocument(
    "\uFEFF---\r\nname: demo\r\ndescription: d\r\n---\r\nx",
    "demo",
  );
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.frontmatter.allowed_tools, []);
});

Deno.test("parseSkillDocument refuses a file without frontmatter", () => {
  assert.match(reasonOf("# Just markdown\n"), /must start with a "---" line/);
  assert.match(reasonOf("---\nname: demo\n"), /no closing "---" line/);
});

Deno.test("parseSkillDocument refuses a missing name", () => {
  assert.equal(reasonOf(doc("description: d")), 'key "name" is missing');
});

Deno.test("parseSkillDocument refuses a name that breaks the rule", () => {
  for (const name of ["Demo", "demo_x", "-demo", "demo-", "de--mo", "../demo", '"a/b"']) {
    assert.match(reasonOf(doc(`name: ${name}\ndescription: d`)), /key "name" must match/, name);
  }
  assert.match(reasonOf(doc(`name: ${"a".repeat(65)}\ndescription: d`)), /1 to 64 characters/);
  assert.match(reasonOf(doc("name: 12\ndescription: d")), /key "name" must be a string/);
});

Deno.test("parseSkillDocument refuses a name that differs from the folder", () => {
  assert.equal(
    reasonOf(doc("name: other\ndescription: d")),
    'key "name" must equal the folder name "demo", got "other"',
  );
});

Deno.test("parseSkillDocument refuses an empty or too long description", () => {
  assert.equal(reasonOf(doc("name: demo")), 'key "description" is missing');
  assert.equal(reasonOf(doc('name: demo\ndescription: ""')), 'key "description" must not be empty');
  assert.match(
    reasonOf(doc(`name: demo\ndescription: ${"x".repeat(1025)}`)),
    /at most 1024 characters long, got 1025/,
  );
  assert.ok(parseSkillDocument(doc(`name: demo\ndescription: ${"x".repeat(1024)}`), "demo").ok);
});

Deno.test("parseSkillDocument refuses unknown keys and wrong types", () => {
  assert.match(reasonOf(doc("name: demo\ndescription: d\nversion: 2")), /key "version" is not/);
  assert.match(
    reasonOf(doc(`name: demo\ndescription: d\ncompatibility: ${"c".repeat(501)}`)),
    /"compatibility" must be at most 500/,
  );
  assert.match(reasonOf(doc("name: demo\ndescription: d\nmetadata: [a]")), /"metadata" must be/);
  assert.match(
    reasonOf(doc("name: demo\ndescription: d\nmetadata:\n  version: 1")),
    /"metadata.version" must be a string/,
  );
  assert.match(reasonOf(doc("name: demo\ndescription: d\nlicense: 3")), /"license" must be/);
});

Deno.test("parseSkillDocument splits allowed-tools and refuses bad patterns", () => {
  const parsed = parseSkillDocument(
    doc(
      "name: demo\ndescription: d\nallowed-tools: |\n  fs.read_file\n  exec.run_command fs.read_file",
    ),
    "demo",
  );
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.frontmatter.allowed_tools, ["fs.read_file", "exec.run_command"]);
  assert.match(
    reasonOf(doc("name: demo\ndescription: d\nallowed-tools: Bash(git:*)")),
    /invalid pattern "Bash\(git:\*\)"/,
  );
  assert.match(
    reasonOf(doc('name: demo\ndescription: d\nallowed-tools: " "')),
    /at least one tool pattern/,
  );
  assert.match(
    reasonOf(doc("name: demo\ndescription: d\nallowed-tools: [fs.read_file]")),
    /space-separated string/,
  );
});

Deno.test("parseSkillDocument refuses aliases, duplicate keys and custom tags", () => {
  assert.match(reasonOf(doc("name: &n demo\ndescription: *n")), /not valid/);
  assert.match(reasonOf(doc("name: demo\nname: demo\ndescription: d")), /not valid/);
  assert.match(reasonOf(doc("name: demo\ndescription: !!js/function d")), /not valid/);
  assert.match(reasonOf(doc("- name\n- demo")), /must be a mapping/);
});
