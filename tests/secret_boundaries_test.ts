/**
 * Secrets across buffer boundaries (attacks/CASES.md, issue 10): a secret inside one long line of
 * command output, placed across every internal edge a stream meets on its way — the 64 KiB pipe
 * reads, the redaction pieces, the inline head and tail windows, the artifact writer — must be
 * absent from the artifact, the inline head and tail and the result; an ordinary value placed the
 * same way must come out byte for byte, with the byte counts right.
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as nodePath from "node:path";
import { MAX_TOKEN_MATCH_CHARS, Redactor } from "../src/audit/redactor.ts";
import { redactionMarginBytes } from "../src/exec/output_capture.ts";
import { runConfined } from "../src/exec/spawn_confined.ts";
import { baseSpec, SH, tempDir } from "../src/exec/_test_support.ts";
import { openTestRun } from "../src/testing/run_harness.ts";
import { assertLogsClean } from "./_attack_helpers.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const SECRET = "kagent-boundary-secret-5d0c9a71e4";
const NEAR_MISS = "kagent-boundary-plain-5d0c9a71e4x";
const MARKER = "[REDACTED:secret_env]";
const redactor = new Redactor({ secrets: [SECRET] });
const LIMIT = 65_536;
const HALF = LIMIT / 2;
const MARGIN = redactionMarginBytes(MAX_TOKEN_MATCH_CHARS);
const LENGTH = 1_048_576 + 777;
const PIPE_READ = 65_536;

/** Pieces of the secret that must never be written: its halves and its whole. */
const FRAGMENTS = [SECRET, SECRET.slice(0, 17), SECRET.slice(17)];

/**
 * Starts of a value of `length` code units so that each edge falls inside one copy, at offsets
 * 1 … length-1 in turn (shifted by `shift`), plus a dense run every 1,091 code units.
 */
function starts(edges: number[], length: number, shift: number): number[] {
  const swept = edges.map((edge, index) => edge - 1 - ((index + shift) % (length - 1)));
  const dense = Array.from({ length: 900 }, (_, index) => 500 + index * 1_091);
  const sorted = [...swept, ...dense].sort((left, right) => left - right);
  return sorted.filter((start, index) =>
    start >= 0 && start + length <= LENGTH &&
    (index === 0 || start - (sorted[index - 1] ?? -Infinity) > length)
  );
}

/** Every edge of the stream's way: pipe reads, head window, head buffer, tail window, ring. */
function edges(): number[] {
  const pipe = Array.from({ length: 16 }, (_, index) => (index + 1) * PIPE_READ);
  return [...pipe, HALF, HALF + MARGIN, LENGTH - HALF, LENGTH - HALF - MARGIN];
}

/**
 * One line of `LENGTH` code units (ASCII filler, so code units are bytes) holding `value`. No
 * blanks: nothing offers a redactor a harmless place to cut.
 */
function line(value: string, shift: number, filler = "ordinary-output-"): string {
  let text = "";
  for (const start of starts(edges(), value.length, shift)) {
    text += filler.repeat(Math.ceil((start - text.length) / filler.length) + 1)
      .slice(0, start - text.length) + value;
  }
  return text + filler.repeat(Math.ceil((LENGTH - text.length) / filler.length) + 1)
    .slice(0, LENGTH - text.length);
}

/** Asserts two long texts are equal, naming the first difference instead of printing both. */
function assertSame(actual: string, expected: string, label: string): void {
  if (actual === expected) return;
  let at = 0;
  while (at < actual.length && actual[at] === expected[at]) at++;
  assert.fail(
    `${label}: lengths ${actual.length} and ${expected.length}, first difference at ${at}: ` +
      `${JSON.stringify(actual.slice(at - 30, at + 40))} instead of ` +
      JSON.stringify(expected.slice(at - 30, at + 40)),
  );
}

function firstBytes(text: string, count: number): string {
  return decoder.decode(encoder.encode(text).subarray(0, count));
}

function lastBytes(text: string, count: number): string {
  const bytes = encoder.encode(text);
  return decoder.decode(bytes.subarray(bytes.length - count));
}

function assertNoSecret(text: string, where: string): void {
  for (const fragment of FRAGMENTS) {
    assert.ok(!text.includes(fragment), `${where} holds "${fragment}"`);
  }
}

/** Runs `cat payload` (or `cat payload >&2`) confined, with the stream redaction of `redactor`. */
async function catConfined(payload: string, stream: "stdout" | "stderr") {
  const runDir = await tempDir("kagent-boundaries-");
  const path = nodePath.join(runDir, "payload.txt");
  await Deno.writeTextFile(path, payload);
  const artifactsDir = nodePath.join(runDir, "artifacts");
  const program = stream === "stdout" ? "/usr/bin/cat" : SH;
  const args = stream === "stdout" ? [path] : ["-c", 'cat "$1" >&2', "sh", path];
  const outcome = await runConfined(baseSpec(program, args, runDir, {
    stdoutLimitBytes: LIMIT,
    stderrLimitBytes: LIMIT,
    artifact: { artifactsDir, runDir, maxBytes: 8 * 1_048_576 },
    redact: redactor.forStreams(),
  }));
  const [artifact] = outcome.artifacts;
  assert.ok(artifact !== undefined && outcome.artifacts.length === 1, "one artifact");
  assert.equal(artifact.stream, stream);
  const stored = await Deno.readFile(nodePath.join(runDir, artifact.ref));
  const files = [...Deno.readDirSync(artifactsDir)].map((entry) => entry.name);
  await Deno.remove(runDir, { recursive: true });
  assert.deepEqual(files, [`${artifact.sha256}.txt`], "no partial artifact is left");
  assert.equal(createHash("sha256").update(stored).digest("hex"), artifact.sha256);
  assert.equal(artifact.bytes, stored.length);
  return { outcome, result: outcome[stream], artifact, stored: decoder.decode(stored) };
}

/** Checks one confined run of `payload`: every output is the redacted payload, exactly. */
async function assertRedactedEverywhere(payload: string, stream: "stdout" | "stderr") {
  const expected = redactor.redactText(payload);
  const { outcome, result, artifact, stored } = await catConfined(payload, stream);
  const label = `${stream}, ${payload === expected ? "near miss" : "secret"}`;
  assert.equal(outcome.exit_code, 0, label);
  assert.equal(result.bytes, encoder.encode(payload).length, `${label}: bytes read`);
  assert.equal(artifact.original_bytes, result.bytes, label);
  assert.equal(artifact.truncated, false, label);
  assertSame(stored, expected, `${label}: artifact`);
  assertSame(result.head, firstBytes(expected, HALF), `${label}: inline head`);
  assertSame(result.tail, lastBytes(expected, HALF), `${label}: inline tail`);
  assert.equal(result.truncated, true, label);
  for (const [where, text] of [["artifact", stored], ["result", JSON.stringify(outcome)]]) {
    assertNoSecret(text as string, `${label}: ${where}`);
  }
  return expected;
}

for (const shift of [0, 11, 22]) {
  Deno.test(`runConfined never writes a secret split at a 64 KiB read, a piece or a window edge (offsets shifted by ${shift})`, async () => {
    const payload = line(SECRET, shift);
    const expected = await assertRedactedEverywhere(payload, "stdout");
    const copies = starts(edges(), SECRET.length, shift).length;
    assert.equal(expected.split(MARKER).length - 1, copies, "every copy was redacted once");
  });

  Deno.test(`runConfined keeps an ordinary value split at the same edges byte for byte (offsets shifted by ${shift})`, async () => {
    const payload = line(NEAR_MISS, shift);
    const expected = await assertRedactedEverywhere(payload, "stdout");
    assert.equal(expected, payload);
  });
}

/** One line of `LENGTH` code units packed with `value`, a comma between copies. */
function packed(value: string): string {
  return `${value},`.repeat(Math.ceil(LENGTH / (value.length + 1))).slice(0, LENGTH);
}

Deno.test("runConfined never writes a secret when the line is packed with it, whatever the edges", async () => {
  // Almost every cut a stream meets falls inside a copy: the reads, the redaction pieces (held
  // back by the overlap), the windows.
  await assertRedactedEverywhere(packed(SECRET), "stdout");
});

Deno.test("runConfined keeps a line packed with an ordinary value byte for byte (near miss)", async () => {
  const payload = packed(NEAR_MISS);
  assert.equal(await assertRedactedEverywhere(payload, "stdout"), payload);
});

Deno.test("runConfined never writes a secret split at an edge of stderr", async () => {
  await assertRedactedEverywhere(line(SECRET, 5), "stderr");
});

Deno.test("runConfined keeps multi-byte text intact around the edges (near miss)", async () => {
  // Characters of 2, 3 and 4 bytes: the edges fall inside them and inside surrogate pairs.
  // The filler is cut by code units, so a pair cut in the payload itself is U+FFFD there already.
  const payload = decoder.decode(encoder.encode(line(NEAR_MISS, 3, "é€😀-ordinary-")));
  const expected = await assertRedactedEverywhere(payload, "stdout");
  assert.equal(expected, payload);
});

Deno.test("exec.run_command never shows a secret_env value split across a stream edge", async () => {
  const secretEnv = "KAGENT_BOUNDARY_SECRET";
  await using run = await openTestRun({
    permissions: {
      rules: [{ tools: ["exec.run_command"], commands: ["cat"], decision: "allow" }],
    },
    config: {
      commands: ["cat"],
      sandbox: { command_isolation: "none" },
      audit: { secret_env: [secretEnv] },
      limits: { max_output_bytes: 8_192 },
    },
    env: (name) => name === secretEnv ? SECRET : Deno.env.get(name),
    // Commands without OS confinement always ask: a person allows this one.
    approver: { name: "test", approve: () => Promise.resolve({ decision: "allow_once" }) },
  });
  // Both values, the secret and the near miss, across every edge of the way.
  const payload = packed(SECRET).slice(0, 600_000) + line(NEAR_MISS, 7).slice(600_000);
  await Deno.writeTextFile(nodePath.join(run.sandbox.workspace, "payload.txt"), payload);
  const result = await run.call("exec.run_command", { argv: ["cat", "payload.txt"] });
  assert.equal(result.ok, true, result.output);
  assertNoSecret(JSON.stringify(result), "the result");
  assert.ok(result.artifacts.length >= 1, "the stream was stored");
  const expected = redactor.redactText(payload);
  for (const artifact of result.artifacts) {
    const stored = await Deno.readTextFile(nodePath.join(run.session.folder.dir, artifact.ref));
    assertNoSecret(stored, artifact.ref);
    if (artifact.bytes === encoder.encode(expected).length) {
      assertSame(stored, expected, "the stored stream");
    }
  }
  assert.ok(
    result.artifacts.some((artifact) => artifact.bytes === encoder.encode(expected).length),
    "the whole redacted stream, near miss included, is stored",
  );
  await assertLogsClean(run, FRAGMENTS);
});
