import assert from "node:assert/strict";
import { createRunId } from "./create_run_id.ts";

Deno.test("createRunId formats UTC time and 6 hex digits when given a date", () => {
  const id = createRunId(new Date("2026-11-21T05:34:12.987Z"), () => 0.6392822265625);
  assert.equal(id, "20261121T053412Z-a3a800");
  assert.match(createRunId(new Date()), /^\d{8}T\d{6}Z-[0-9a-f]{6}$/);
});

Deno.test("createRunId pads and bounds the random part when random returns edges", () => {
  const now = new Date("2026-01-02T03:04:05Z");
  assert.equal(createRunId(now, () => 0), "20260102T030405Z-000000");
  assert.equal(createRunId(now, () => 0.9999999999), "20260102T030405Z-ffffff");
  assert.equal(createRunId(now, () => 1), "20260102T030405Z-ffffff");
});

Deno.test("createRunId ids sort by start time when compared as strings", () => {
  const times = [
    "2025-12-31T23:59:59Z",
    "2026-01-01T00:00:00Z",
    "2026-01-01T00:00:01Z",
    "2026-11-21T05:34:12Z",
    "2027-02-03T10:00:00Z",
  ];
  const ids = times.map((time, index) => createRunId(new Date(time), () => 1 - (index + 1) / 10));
  assert.deepEqual([...ids].sort(), ids);
});

Deno.test("createRunId ids differ when runs start in the same second with different draws", () => {
  const now = new Date("2026-11-21T05:34:12Z");
  let draw = 0;
  const ids = Array.from(
    { length: 1000 },
    () => createRunId(now, () => (draw++ * 16_777) / 2 ** 24),
  );
  assert.equal(new Set(ids).size, 1000);
});

Deno.test("createRunId draws a random suffix when no random source is given", () => {
  const now = new Date("2026-11-21T05:34:12Z");
  const suffixes = new Set(Array.from({ length: 20 }, () => createRunId(now).slice(-6)));
  assert.ok(suffixes.size > 1);
});

Deno.test("createRunId throws a RangeError when the date is invalid", () => {
  assert.throws(() => createRunId(new Date("not a date")), RangeError);
});
