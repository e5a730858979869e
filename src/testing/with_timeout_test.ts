import assert from "node:assert/strict";
import { withTimeout } from "./with_timeout.ts";

Deno.test("withTimeout resolves with the value when the promise settles in time", async () => {
  assert.equal(await withTimeout(Promise.resolve(42), 1000, "answer"), 42);
});

Deno.test("withTimeout rejects naming the step when the deadline passes", async () => {
  let release = () => {};
  const never = new Promise<void>((resolve) => (release = resolve));
  await assert.rejects(withTimeout(never, 20, "wait forever"), {
    message: 'Cannot finish "wait forever": it took over 20 ms',
  });
  release();
});
