import assert from "node:assert/strict";
import { describeBudget, TimeBudget } from "./time_budget.ts";

Deno.test("TimeBudget runs out at its limit and stays out when the clock passes it", () => {
  let now = 1000;
  const budget = TimeBudget.start(50, () => now);
  assert.equal(budget.limitMs, 50);
  now = 1049;
  assert.equal(budget.exhausted(), false);
  assert.equal(budget.ranOut, false);
  now = 1050;
  assert.equal(budget.exhausted(), true);
  assert.equal(budget.ranOut, true);
  now = 0; // A clock going back does not give time back.
  assert.equal(budget.exhausted(), true);
});

Deno.test("TimeBudget reports ranOut only when a check found the time over", () => {
  let now = 0;
  const budget = TimeBudget.start(10, () => now);
  now = 100;
  // Work that finished without looking again was not cut short.
  assert.equal(budget.ranOut, false);
});

Deno.test("TimeBudget refuses a limit that is not positive", () => {
  for (const limit of [0, -1, Number.NaN]) {
    assert.throws(() => TimeBudget.start(limit), RangeError);
  }
  assert.equal(TimeBudget.start(1).limitMs, 1);
});

Deno.test("describeBudget writes ms below a second and seconds above", () => {
  assert.equal(describeBudget(1), "1 ms");
  assert.equal(describeBudget(10_000), "10 s");
  assert.equal(describeBudget(1500), "1.5 s");
});
