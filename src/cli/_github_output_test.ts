import assert from "node:assert/strict";
import { formatGithubOutput } from "./_github_output.ts";

Deno.test("formatGithubOutput keeps a multi-line value whole and refuses a value holding the delimiter", () => {
  assert.equal(
    formatGithubOutput({ run_dir: "/a\nb", calls: "2" }, "EOF"),
    "run_dir<<EOF\n/a\nb\nEOF\ncalls<<EOF\n2\nEOF\n",
  );
  assert.throws(() => formatGithubOutput({ end: "x\nEOF\ninjected=1" }, "EOF"), RangeError);
  assert.throws(() => formatGithubOutput({ "bad name": "x" }, "EOF"), RangeError);
  // The default delimiter is fresh each time, so a value cannot know it in advance.
  const first = formatGithubOutput({ a: "1" }).split("\n")[0];
  const second = formatGithubOutput({ a: "1" }).split("\n")[0];
  assert.match(first ?? "", /^a<<ghadelimiter_[0-9a-f-]{36}$/);
  assert.notEqual(first, second);
});
