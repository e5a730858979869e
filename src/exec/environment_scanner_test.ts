import * as assert from "node:assert/strict";
import { EnvironmentScanner } from "./environment_scanner.ts";
import { CALL_MARKER_ENV, sweepMarked } from "./process_sweep.ts";
import { escapedSleep, killProcessesWith, processesWith, sleepMarker } from "./_test_support.ts";

const PERL = "/usr/bin/perl";

/** The pids of `sleep <duration>` processes. */
async function sleeps(duration: string): Promise<number[]> {
  return await processesWith(duration);
}

Deno.test("EnvironmentScanner finds whole entries and entry starts, and nothing else", async () => {
  const runId = `test-${crypto.randomUUID()}`;
  const [own, longer, inValue, otherRun] = [0, 1, 2, 3].map(() => sleepMarker()) as [
    string,
    string,
    string,
    string,
  ];
  const scanner = EnvironmentScanner.start(PERL);
  assert.ok(scanner !== null);
  try {
    await escapedSleep(own, { [CALL_MARKER_ENV]: `${runId}/call_1` });
    await escapedSleep(longer, { [CALL_MARKER_ENV]: `${runId}/call_10` });
    await escapedSleep(inValue, { OTHER: `${CALL_MARKER_ENV}=${runId}/call_1` });
    await escapedSleep(otherRun, { [CALL_MARKER_ENV]: `${runId}0/call_1` });
    const exact = await scanner.scan(`${CALL_MARKER_ENV}=${runId}/call_1`, false);
    assert.deepEqual(exact, await sleeps(own));
    const run = await scanner.scan(`${CALL_MARKER_ENV}=${runId}/`, true);
    assert.deepEqual(
      run?.sort(),
      [...await sleeps(own), ...await sleeps(longer)].sort(),
    );
    // Near miss: a marker nothing carries finds nothing, and the scanner answers again.
    assert.deepEqual(await scanner.scan(`${CALL_MARKER_ENV}=${runId}/call_2`, false), []);
  } finally {
    scanner.close();
    for (const duration of [own, longer, inValue, otherRun]) await killProcessesWith(duration);
  }
});

Deno.test("sweepMarked with a scanner kills a setsid process carrying the marker; a killed scanner falls back to the next reader", async () => {
  const runId = `test-${crypto.randomUUID()}`;
  const [first, second] = [sleepMarker(), sleepMarker()];
  const scanner = EnvironmentScanner.start(PERL);
  assert.ok(scanner !== null);
  try {
    await escapedSleep(first, { [CALL_MARKER_ENV]: `${runId}/call_1` });
    const killed = await sweepMarked(`${runId}/call_1`, { psPath: "/usr/bin/ps", scanner });
    assert.equal(killed.length, 1);
    assert.deepEqual(await sleeps(first), []);
    // A command of the same user kills the scanner: the sweep still finds what it must.
    Deno.kill(scanner.pid, "SIGKILL");
    await escapedSleep(second, { [CALL_MARKER_ENV]: `${runId}/call_2` });
    assert.equal(await scanner.scan(`${CALL_MARKER_ENV}=${runId}/call_2`, false), null);
    const fallback = await sweepMarked(`${runId}/call_2`, { psPath: "/usr/bin/ps", scanner });
    assert.equal(fallback.length, 1);
    assert.deepEqual(await sleeps(second), []);
  } finally {
    scanner.close();
    await killProcessesWith(first);
    await killProcessesWith(second);
  }
});

Deno.test("EnvironmentScanner answers null when the program is not a scanner or is missing", async () => {
  // /usr/bin/true reads nothing and exits: no answer line, so the scan cannot pass for empty.
  const fake = EnvironmentScanner.start("/usr/bin/true");
  assert.ok(fake !== null);
  assert.equal(await fake.scan(`${CALL_MARKER_ENV}=x/y`, false), null);
  fake.close();
  assert.equal(EnvironmentScanner.start("/nonexistent/perl"), null);
});

Deno.test("sweepMarked with a stopped scanner gives up on it after its time limit and still kills", async () => {
  const runId = `test-${crypto.randomUUID()}`;
  const duration = sleepMarker();
  const scanner = EnvironmentScanner.start(PERL);
  assert.ok(scanner !== null);
  try {
    // Near miss first: the scanner answers while it runs.
    assert.deepEqual(await scanner.scan(`${CALL_MARKER_ENV}=${runId}/call_1`, false), []);
    await escapedSleep(duration, { [CALL_MARKER_ENV]: `${runId}/call_1` });
    Deno.kill(scanner.pid, "SIGSTOP");
    const killed = await sweepMarked(`${runId}/call_1`, { psPath: "/usr/bin/ps", scanner });
    assert.equal(killed.length, 1);
    assert.deepEqual(await sleeps(duration), []);
  } finally {
    scanner.close();
    await killProcessesWith(duration);
  }
});
