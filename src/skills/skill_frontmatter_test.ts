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
    warnings: [],
  });
  assert.equal(parsed.body, "# Body\n");
});

Deno.test("parseSkillDocument accepts CRLF line ends and a BOM", () => {
  const parsed = parseSkillDocument(
    "\uFEFF---\r\nname: demo\r\ndescription: d\r\nallowed-tools: Read\r\n---\r\nx",
    "demo",
  );
  assert.ok(parsed.ok);
  assert.equal(parsed.frontmatter.description, "d");
  assert.deepEqual(parsed.frontmatter.allowed_tools, ["Read"]);
});

Deno.test("parseSkillDocument refuses a file without frontmatter", () => {
  assert.match(reasonOf("# Just markdown\n"), /must start with a "---" line/);
  assert.match(reasonOf("---\nname: demo\n"), /no closing "---" line/);
});

Deno.test("parseSkillDocument refuses a missing name", () => {
  assert.equal(reasonOf(doc("description: d")), 'key "name" is missing');
});

Deno.test("parseSkillDocument refuses a name that breaks the rule", () => {
  for (const name of ["Demo", "demo_x", "-demo", "demo-", "de--mo", "../demo", '"a/b"', "a.b"]) {
    assert.match(
      reasonOf(doc(`name: ${name}\ndescription: d`)),
      /key "name" must be a skill/,
      name,
    );
  }
  assert.match(reasonOf(doc(`name: ${"a".repeat(65)}\ndescription: d`)), /1 to 64 characters/);
  assert.match(reasonOf(doc("name: [a]\ndescription: d")), /key "name" must be a string/);
});

Deno.test("parseSkillDocument accepts Unicode letters and counts code points", () => {
  const astral = "\u{20000}".repeat(64);
  const parsed = parseSkillDocument(doc(`name: ${astral}\ndescription: d`), astral);
  assert.ok(parsed.ok, "64 astral letters are 64 characters (128 UTF-16 units)");
  assert.match(
    reasonOf(doc(`name: ${astral}a\ndescription: d`), `${astral}a`),
    /got 65/,
  );
  assert.ok(parseSkillDocument(doc("name: données\ndescription: d"), "données").ok);
  // The folder is in NFD, the name in NFC: equal once both are in NFKC, as in the reference.
  assert.ok(parseSkillDocument(doc("name: caf\u00e9\ndescription: d"), "cafe\u0301").ok);
  assert.match(reasonOf(doc("name: Données\ndescription: d"), "Données"), /lower-case/);
});

Deno.test("parseSkillDocument refuses a name that differs from the folder", () => {
  assert.equal(
    reasonOf(doc("name: other\ndescription: d")),
    'key "name" must equal the folder name "demo", got "other"',
  );
});

Deno.test("parseSkillDocument refuses an empty description, warns over 1024 characters, refuses over 8192", () => {
  assert.equal(reasonOf(doc("name: demo")), 'key "description" is missing');
  assert.equal(reasonOf(doc('name: demo\ndescription: ""')), 'key "description" must not be empty');
  const long = parseSkillDocument(doc(`name: demo\ndescription: ${"x".repeat(1068)}`), "demo");
  assert.ok(long.ok);
  assert.match(long.frontmatter.warnings.join("\n"), /1068 characters long, over the spec's 1024/);
  assert.equal(long.frontmatter.description.length, 1068);
  assert.match(
    reasonOf(doc(`name: demo\ndescription: ${"x".repeat(8193)}`)),
    /at most 8192 characters long, got 8193/,
  );
  const exact = parseSkillDocument(doc(`name: demo\ndescription: ${"x".repeat(1024)}`), "demo");
  assert.ok(exact.ok);
  assert.deepEqual(exact.frontmatter.warnings, []);
});

Deno.test("parseSkillDocument ignores keys outside the spec with a warning, refuses values too long", () => {
  const versioned = parseSkillDocument(
    doc("name: demo\ndescription: d\nversion: 2\nauthor: Someone"),
    "demo",
  );
  assert.ok(versioned.ok);
  assert.equal(versioned.frontmatter.warnings.length, 2);
  assert.match(versioned.frontmatter.warnings[0]!, /key "version" is not in the Agent Skills spec/);
  assert.match(
    reasonOf(doc(`name: demo\ndescription: d\ncompatibility: ${"c".repeat(501)}`)),
    /"compatibility" must be at most 500/,
  );
  assert.match(reasonOf(doc("name: demo\ndescription: d\nlicense: [a]")), /"license" must be/);
});

Deno.test("parseSkillDocument reads every scalar as a string, as the reference does", () => {
  const parsed = parseSkillDocument(
    doc(
      "name: demo\ndescription: 42\nlicense: 2\ncompatibility: ''\nmetadata:\n  version: 1.0\n" +
        "  beta: true\n  count: 3\n  nested:\n    a: 1\n",
    ),
    "demo",
  );
  assert.ok(parsed.ok);
  assert.equal(parsed.frontmatter.description, "42");
  assert.equal(parsed.frontmatter.license, "2");
  assert.equal(parsed.frontmatter.compatibility, null);
  assert.deepEqual(parsed.frontmatter.metadata, {
    version: "1.0",
    beta: "true",
    count: "3",
    nested: '{"a":"1"}',
  });
});

Deno.test("parseSkillDocument ignores metadata that is not a mapping, with a warning", () => {
  const parsed = parseSkillDocument(doc("name: demo\ndescription: d\nmetadata: hello"), "demo");
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.frontmatter.metadata, {});
  assert.match(parsed.frontmatter.warnings[0] ?? "", /"metadata" is not a mapping/);
});

Deno.test("parseSkillDocument reads allowed-tools as a string or a list", () => {
  const entries = (value: string) => {
    const parsed = parseSkillDocument(
      doc(`name: demo\ndescription: d\nallowed-tools:${value}`),
      "demo",
    );
    assert.ok(parsed.ok, value);
    return parsed.frontmatter.allowed_tools;
  };
  assert.deepEqual(entries(" Read Grep Bash(git:*)"), ["Read", "Grep", "Bash(git:*)"]);
  assert.deepEqual(entries(" Read, Grep, Bash(git diff:*)"), ["Read", "Grep", "Bash(git diff:*)"]);
  assert.deepEqual(entries("\n  - Read\n  - Bash(git diff:*)"), ["Read", "Bash(git diff:*)"]);
  assert.deepEqual(entries(" [Read, Grep]"), ["Read", "Grep"]);
  assert.deepEqual(entries(" |\n  fs.read_file\n  exec.run_command fs.read_file"), [
    "fs.read_file",
    "exec.run_command",
  ]);
  assert.deepEqual(entries(' ""'), []);
  assert.match(
    reasonOf(doc("name: demo\ndescription: d\nallowed-tools:\n  a: b")),
    /"allowed-tools" must be a space-separated string/,
  );
});

Deno.test("parseSkillDocument refuses aliases, duplicate keys and custom tags", () => {
  assert.match(reasonOf(doc("name: &n demo\ndescription: *n")), /not valid/);
  assert.match(reasonOf(doc("name: &n demo\ndescription: d")), /anchors and tags/);
  assert.match(reasonOf(doc("name: demo\ndescription: !!str d")), /anchors and tags/);
  assert.match(reasonOf(doc("name: demo\nname: demo\ndescription: d")), /not valid/);
  assert.match(reasonOf(doc("name: demo\ndescription: !!js/function d")), /not valid/);
  assert.match(reasonOf(doc("- name\n- demo")), /must be a mapping/);
});
