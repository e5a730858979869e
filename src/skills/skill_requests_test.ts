import assert from "node:assert/strict";
import { skillRequestFor } from "./skill_requests.ts";

Deno.test("skillRequestFor narrows to allowed-tools when the skill names them", () => {
  assert.deepEqual(skillRequestFor({ name: "demo", allowed_tools: ["fs.read_file", "fs.*"] }), {
    skill: "demo",
    allowed_tools: ["fs.read_file", "fs.*"],
  });
});

Deno.test("skillRequestFor narrows nothing when the skill has no allowed-tools", () => {
  const request = skillRequestFor({ name: "demo", allowed_tools: [] });
  assert.deepEqual(request, { skill: "demo" });
  assert.equal("rules" in request, false);
});
