// The terminal approval question shows hostile names as text (CASES: a model-chosen file name is
// untrusted): a path holding escape sequences, carriage returns, new lines or bidi overrides
// reaches the approver as it is, and the question written to the terminal shows each as a \u
// escape, so the name can neither erase nor forge a line of it. Near miss: a name with spaces
// and accents is shown verbatim. A real run session asks through the approver.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { loadConfig } from "../src/config/mod.ts";
import { openRunSession } from "../src/session/mod.ts";
import type { ApprovalRequest } from "../src/approval/mod.ts";
import { describeRequest } from "../src/approval/terminal_approver.ts";
import { createProject } from "./_cli_helpers.ts";

Deno.test("the terminal approval question writes control characters and bidi overrides of a path as \\u escapes, and a plain accented name as it is", async () => {
  await using project = await createProject();
  const asked: ApprovalRequest[] = [];
  const session = await openRunSession(await loadConfig(project.configPath), {
    approver: {
      name: "test",
      approve: (request) => {
        asked.push(request);
        return Promise.resolve({ decision: "deny", reason: "test" });
      },
    },
  });
  const forged = "notes\u001b[1A\u001b[2K\r  path:     write harmless.txt\n\u202etxt.exe";
  const plain = "café notes.md";
  try {
    for (const [id, path] of [["forged", forged], ["plain", plain]] as const) {
      const result = await session.runtime.call({
        id,
        name: "fs.write_file",
        arguments: JSON.stringify({ path, content: "x" }),
      });
      assert.equal(result.error?.type, "approval_denied", result.output);
    }
  } finally {
    await session.close();
  }
  assert.equal(asked.length, 2);
  // The raw name reaches the approver: only the terminal text is made safe.
  assert.ok(asked[0]?.target_scope.paths[0]?.real.endsWith(forged));
  const question = describeRequest(asked[0] as ApprovalRequest);
  // deno-lint-ignore no-control-regex -- control characters are what this matches
  assert.doesNotMatch(question, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  assert.equal(question.split("\n").filter((line) => line.startsWith("  path:")).length, 1);
  assert.ok(
    question.includes(
      "notes\\u001b[1A\\u001b[2K\\u000d  path:     write harmless.txt\\u000a\\u202etxt.exe",
    ),
    question,
  );
  // Near miss: nothing to escape in a plain name.
  const plainQuestion = describeRequest(asked[1] as ApprovalRequest);
  assert.ok(
    plainQuestion.includes(`  path:     write ${nodePath.join(project.sandbox.workspace, plain)}`),
    plainQuestion,
  );
  assert.equal(
    await Deno.stat(nodePath.join(project.sandbox.workspace, plain)).catch(() => null),
    null,
  );
});
