/**
 * The Agent Skills specification's edge cases: for each case in `testdata/skills_spec/`, the
 * official validator's verdict (`skills-ref`, recorded in the case's `expected.json` by
 * `record_reference.py`) must be kagent-run's, unless the case documents a difference kept on
 * purpose. Skills are loaded as a run loads them (`discoverSkills` reads the file from disk).
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";
import { discoverSkills } from "../src/skills/mod.ts";
import { splitAllowedTools } from "../src/skills/allowed_tools.ts";

const SPEC_DIR = fileURLToPath(new URL("./testdata/skills_spec/", import.meta.url));

interface ExpectedCase {
  case: string;
  about: string;
  folder: string;
  reference: {
    valid: boolean;
    errors: string[];
    properties?: Record<string, unknown>;
    how: string;
  };
  difference: string | null;
}

async function readCases(): Promise<{ dir: string; expected: ExpectedCase }[]> {
  const cases = [];
  for await (const entry of Deno.readDir(SPEC_DIR)) {
    if (!entry.isDirectory) continue;
    const dir = nodePath.join(SPEC_DIR, entry.name);
    const expected = JSON.parse(
      await Deno.readTextFile(nodePath.join(dir, "expected.json")),
    ) as ExpectedCase;
    cases.push({ dir, expected });
  }
  return cases.sort((a, b) => a.expected.case.localeCompare(b.expected.case));
}

const cases = await readCases();

Deno.test("skills spec cases: there are at least 32, each with the reference's verdict", () => {
  assert.ok(cases.length >= 32, `only ${cases.length} cases`);
  for (const { expected } of cases) {
    assert.equal(typeof expected.reference.valid, "boolean", expected.case);
    assert.match(expected.reference.how, /^run: skills_ref\.validate\(\)/, expected.case);
    assert.equal(expected.reference.valid, expected.reference.errors.length === 0, expected.case);
  }
  // The differences kept on purpose are few and each says why.
  const differences = cases.filter(({ expected }) => expected.difference !== null);
  assert.deepEqual(differences.map(({ expected }) => expected.case), [
    "allowed-tools-flow-list",
    "bom",
    "bom-crlf",
    "description-1025",
    "description-dashes",
    "unknown-key",
  ]);
});

for (const { dir, expected } of cases) {
  Deno.test(`skills spec case "${expected.case}": kagent-run's verdict is the reference's`, async () => {
    const catalogue = await discoverSkills([dir]);
    const loaded = catalogue.skills.length === 1;
    const reason = catalogue.invalid.map((entry) => entry.reason).join("; ");
    // A difference kept on purpose: kagent-run decides the other way.
    const wanted = expected.difference === null
      ? expected.reference.valid
      : !expected.reference.valid;
    assert.equal(
      loaded,
      wanted,
      `${expected.about}: reference ${expected.reference.valid ? "valid" : "invalid"} ` +
        `(${expected.reference.errors.join("; ")}), kagent-run ${loaded ? "valid" : reason}`,
    );
    if (!loaded) {
      assert.equal(catalogue.invalid.length, 1);
      assert.match(catalogue.invalid[0]!.reason, /^Cannot load skill "/);
      return;
    }
    const skill = catalogue.skills[0]!;
    const properties = expected.reference.properties;
    if (properties === undefined) return;
    // What the reference read, kagent-run reads too.
    assert.equal(skill.name, properties.name);
    assert.equal(skill.description, properties.description);
    if (typeof properties.license === "string" && properties.license !== "") {
      assert.equal(skill.license, properties.license);
    }
    if (typeof properties.compatibility === "string" && properties.compatibility !== "") {
      assert.equal(skill.compatibility, properties.compatibility);
    }
    const metadata = properties.metadata;
    if (typeof metadata === "object" && metadata !== null) {
      assert.deepEqual(skill.metadata, metadata);
    } else if (metadata !== undefined) {
      // Metadata the reference passes through as it is (a string): ignored, with a warning.
      assert.deepEqual(skill.metadata, {});
      assert.ok(skill.warnings.some((warning) => /"metadata" is not a mapping/.test(warning)));
    }
    const allowed = properties["allowed-tools"];
    if (typeof allowed === "string") {
      assert.deepEqual(skill.allowed_tools, splitAllowedTools(allowed));
    } else if (Array.isArray(allowed)) {
      assert.deepEqual(skill.allowed_tools, allowed);
    } else {
      assert.deepEqual(skill.allowed_tools, []);
    }
  });
}
