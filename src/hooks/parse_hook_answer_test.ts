import assert from "node:assert/strict";
import { checkHookAnswer, parseHookAnswer } from "./parse_hook_answer.ts";

Deno.test("parseHookAnswer accepts a decision with a reason", () => {
  assert.deepEqual(parseHookAnswer('  {"decision": "deny", "reason": "no writes"}\n'), {
    ok: true,
    answer: { decision: "deny", reason: "no writes" },
  });
});

Deno.test("parseHookAnswer accepts each decision without a reason", () => {
  for (const decision of ["allow", "deny", "ask"]) {
    assert.deepEqual(parseHookAnswer(JSON.stringify({ decision })), {
      ok: true,
      answer: { decision },
    });
  }
});

Deno.test("parseHookAnswer refuses an unknown key such as changed arguments", () => {
  const parsed = parseHookAnswer('{"decision": "allow", "arguments": {"path": "x"}}');
  assert.equal(parsed.ok, false);
  assert.match(!parsed.ok ? parsed.reason : "", /unknown key "arguments"/);
});

Deno.test("parseHookAnswer refuses a decision outside allow, deny and ask", () => {
  for (const text of ['{"decision": "yes"}', '{"decision": "ALLOW"}', '{"reason": "x"}']) {
    const parsed = parseHookAnswer(text);
    assert.equal(parsed.ok, false, text);
    assert.match(!parsed.ok ? parsed.reason : "", /no valid "decision"/);
  }
});

Deno.test("parseHookAnswer refuses a reason that is not a string", () => {
  assert.equal(parseHookAnswer('{"decision": "deny", "reason": 3}').ok, false);
});

Deno.test("parseHookAnswer refuses empty output", () => {
  assert.deepEqual(parseHookAnswer(" \n"), { ok: false, reason: "it printed nothing" });
});

Deno.test("parseHookAnswer refuses garbage and JSON that is not an object", () => {
  const garbage = parseHookAnswer("allow please");
  assert.match(!garbage.ok ? garbage.reason : "", /not JSON: "allow please"/);
  for (const text of ['"allow"', "[]", "null", "42"]) {
    assert.equal(parseHookAnswer(text).ok, false, text);
  }
});

Deno.test("checkHookAnswer refuses a non-object from an in-process hook", () => {
  assert.equal(checkHookAnswer(undefined).ok, false);
  assert.equal(checkHookAnswer("allow").ok, false);
});
