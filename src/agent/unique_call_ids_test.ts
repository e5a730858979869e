import assert from "node:assert/strict";
import { UniqueCallIds } from "./unique_call_ids.ts";

const call = (id: string, provider?: { name: string; id: string | null }) => ({
  id,
  name: "fs.read_file",
  arguments: "{}",
  ...(provider === undefined ? {} : { provider }),
});

Deno.test("UniqueCallIds renames an id repeated across turns and keeps the raw id", () => {
  const ids = new UniqueCallIds();
  const raw = { name: "fs__read_file", id: "call_1" };
  assert.deepEqual(ids.claim([call("call_1", raw)]), [call("call_1", raw)]);
  assert.deepEqual(ids.claim([call("call_1", raw)]), [call("call_1-2", raw)]);
  // A name already taken by a rename is skipped too.
  assert.deepEqual(ids.claim([call("call_1", raw), call("call_1-3")]), [
    call("call_1-3", raw),
    call("call_1-3-2", { name: "fs.read_file", id: "call_1-3" }),
  ]);
});

Deno.test("UniqueCallIds records the plan's id for a call that had no provider origin", () => {
  const ids = new UniqueCallIds();
  ids.claim([call("a")]);
  assert.deepEqual(ids.claim([call("a")]), [call("a-2", { name: "fs.read_file", id: "a" })]);
});

Deno.test("UniqueCallIds leaves distinct ids unchanged", () => {
  const ids = new UniqueCallIds();
  const calls = [call("a"), call("b")];
  assert.deepEqual(ids.claim(calls), calls);
  assert.deepEqual(ids.claim([call("c")]), [call("c")]);
});
