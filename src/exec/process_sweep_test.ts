import * as assert from "node:assert/strict";
import { CALL_MARKER_ENV, killProcessGroup, sweepMarked } from "./process_sweep.ts";
import {
  escapedSleep,
  killProcessesWith,
  processesWith,
  SH,
  sleepMarker,
} from "./_test_support.ts";

const PS = "/usr/bin/ps";
const READER = { shPath: SH, grepPath: "/usr/bin/grep" };

/** A unique run id, and processes carrying its markers (and near misses), stopped at the end. */
async function withMarked(
  test: (runId: string, durations: Record<string, string>) => Promise<void>,
  layout: Record<string, (runId: string) => Record<string, string>>,
): Promise<void> {
  const runId = `test-${crypto.randomUUID()}`;
  const durations: Record<string, string> = {};
  try {
    for (const [name, env] of Object.entries(layout)) {
      durations[name] = sleepMarker();
      await escapedSleep(durations[name], env(runId));
    }
    await test(runId, durations);
  } finally {
    for (const duration of Object.values(durations)) await killProcessesWith(duration);
  }
}

const CALL_LAYOUT = {
  // The call's own process, which left the group (setsid): must be killed.
  own: (runId: string) => ({ [CALL_MARKER_ENV]: `${runId}/call_1`, OTHER: "x" }),
  // Near misses, left alone: a longer marker, the marker inside another variable's value,
  // another call of the same run.
  longer: (runId: string) => ({ [CALL_MARKER_ENV]: `${runId}/call_10` }),
  inValue: (runId: string) => ({ OTHER: `${CALL_MARKER_ENV}=${runId}/call_1` }),
  otherCall: (runId: string) => ({ [CALL_MARKER_ENV]: `${runId}/call_2` }),
};

for (const [reader, options] of [["grep", READER], ["ps", null]] as const) {
  Deno.test(`sweepMarked (${reader}) kills a setsid process carrying the call's marker, and only it`, async () => {
    await withMarked(async (runId, durations) => {
      const killed = await sweepMarked(`${runId}/call_1`, {
        psPath: PS,
        environmentReader: options,
      });
      assert.equal(killed.length, 1, `killed ${killed.join(", ")}`);
      assert.deepEqual(await processesWith(durations.own ?? ""), []);
      for (const nearMiss of ["longer", "inValue", "otherCall"]) {
        assert.equal((await processesWith(durations[nearMiss] ?? "")).length, 1, nearMiss);
      }
    }, CALL_LAYOUT);
  });
}

Deno.test("sweepMarked with a prefix kills every call of the run and nothing of another run", async () => {
  await withMarked(async (runId, durations) => {
    const killed = await sweepMarked(`${runId}/`, {
      psPath: PS,
      environmentReader: READER,
      prefix: true,
    });
    assert.equal(killed.length, 2, `killed ${killed.join(", ")}`);
    assert.deepEqual(await processesWith(durations.first ?? ""), []);
    assert.deepEqual(await processesWith(durations.second ?? ""), []);
    // Near misses: a run whose id starts with this one's, the marker inside another value.
    assert.equal((await processesWith(durations.longerRun ?? "")).length, 1);
    assert.equal((await processesWith(durations.inValue ?? "")).length, 1);
  }, {
    first: (runId) => ({ [CALL_MARKER_ENV]: `${runId}/call_1` }),
    second: (runId) => ({ A: "1", [CALL_MARKER_ENV]: `${runId}/hook-x` }),
    longerRun: (runId) => ({ [CALL_MARKER_ENV]: `${runId}0/call_1` }),
    inValue: (runId) => ({ OTHER: `${CALL_MARKER_ENV}=${runId}/call_1` }),
  });
});

Deno.test("sweepMarked with a prefix reads regular-expression characters of a marker literally", async () => {
  await withMarked(async (runId, durations) => {
    await sweepMarked(`${runId}.*/`, { psPath: PS, environmentReader: READER, prefix: true });
    assert.equal((await processesWith(durations.other ?? "")).length, 1);
    // Near miss: the marker itself, dots and star as written.
    await sweepMarked(`${runId}.*/`, { psPath: PS, environmentReader: READER, prefix: true });
    assert.deepEqual(await processesWith(durations.literal ?? ""), []);
  }, {
    other: (runId) => ({ [CALL_MARKER_ENV]: `${runId}xx/call_1` }),
    literal: (runId) => ({ [CALL_MARKER_ENV]: `${runId}.*/call_1` }),
  });
});

for (
  const [what, reader] of [
    ["a grep that is missing", { shPath: SH, grepPath: "/nonexistent/grep" }],
    ["a grep that reads nothing (another program)", { shPath: SH, grepPath: "/usr/bin/true" }],
    ["an sh that is missing", { shPath: "/nonexistent/sh", grepPath: "/usr/bin/grep" }],
  ] as const
) {
  Deno.test(`sweepMarked falls back to ps with ${what}`, async () => {
    await withMarked(async (runId, durations) => {
      const killed = await sweepMarked(`${runId}/call_1`, {
        psPath: PS,
        environmentReader: reader,
      });
      assert.equal(killed.length, 1);
      assert.deepEqual(await processesWith(durations.own ?? ""), []);
      assert.equal((await processesWith(durations.otherCall ?? "")).length, 1);
    }, { own: CALL_LAYOUT.own, otherCall: CALL_LAYOUT.otherCall });
  });
}

Deno.test("killProcessGroup kills every member of a group, and says when it had none", async () => {
  const marker = sleepMarker();
  try {
    const leader = new Deno.Command(SH, {
      args: ["-c", `sleep ${marker} & exec sleep ${marker}`],
      detached: true,
      stdin: "null",
    }).spawn();
    for (let attempt = 0; attempt < 100 && (await processesWith(marker)).length < 2; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal((await processesWith(marker)).length, 2);
    assert.equal(killProcessGroup(leader.pid), true);
    assert.equal((await leader.status).signal, "SIGKILL");
    for (let attempt = 0; attempt < 100 && (await processesWith(marker)).length > 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.deepEqual(await processesWith(marker), []);
  } finally {
    await killProcessesWith(marker);
  }
  // Near miss: a group that is gone is no error.
  assert.equal(killProcessGroup(2_147_483_646), false);
});

Deno.test("killProcessGroup refuses ids that would reach every process or this group", () => {
  for (const id of [-1, 0, 1, 1.5, Number.NaN]) {
    assert.throws(() => killProcessGroup(id), RangeError);
  }
});
