import assert from "node:assert/strict";
import { MAX_TOKEN_MATCH_CHARS, Redactor } from "../audit/redactor.ts";
import { BATCH_CHARS, StreamRedactor } from "./_stream_redactor.ts";
import { PieceRedactor } from "./_piece_redactor.ts";

const encoder = new TextEncoder();
const SECRET = "kagent-stream-secret-9c41e07b";
const NEAR_MISS = "kagent-stream-vapour-9c41e07b";
const redactor = new Redactor({ secrets: [SECRET] });
const MARKER = "[REDACTED:secret_env]";

/** Streams `text` through a StreamRedactor in chunks of `size` bytes; returns the output text. */
function stream(text: string, size: number, redaction = redactor.forStreams()): string {
  const bytes = encoder.encode(text);
  const redactorStream = new StreamRedactor(redaction);
  const pieces: Uint8Array[] = [];
  let held = 0;
  for (let offset = 0; offset < bytes.length; offset += size) {
    pieces.push(redactorStream.push(bytes.subarray(offset, offset + size)));
    held = Math.max(held, redactorStream.heldChars);
  }
  pieces.push(redactorStream.flush());
  const limit = 2 * redaction.maxMatchChars + BATCH_CHARS + size;
  assert.ok(held <= limit, `held ${held} code units, more than ${limit}`);
  const out = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.length, 0));
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return new TextDecoder().decode(out);
}

/**
 * One long line: filler with `value` at every offset of `starts` (sorted, not overlapping), in
 * code units. A filler cut inside a surrogate pair leaves U+FFFD, as the stream would decode it.
 */
function lineWith(value: string, starts: number[], length: number, filler = "x"): string {
  let text = "";
  const fill = (count: number) =>
    filler.repeat(Math.ceil(count / filler.length) + 1).slice(0, Math.max(0, count));
  for (const start of starts) text += fill(start - text.length) + value;
  return new TextDecoder().decode(encoder.encode(text + fill(length - text.length)));
}

/** Asserts two long texts are equal, naming the first difference instead of printing both. */
function assertSame(actual: string, expected: string, label: string): void {
  if (actual === expected) return;
  let at = 0;
  while (at < actual.length && actual[at] === expected[at]) at++;
  assert.fail(
    `${label}: lengths ${actual.length} and ${expected.length}, first difference at ${at}: ` +
      `${JSON.stringify(actual.slice(at - 20, at + 40))} instead of ` +
      JSON.stringify(expected.slice(at - 20, at + 40)),
  );
}

/** Secret starts so that every offset from 1 to the secret's length falls inside one of them. */
function sweepStarts(boundaries: number[], length: number): number[] {
  return boundaries.map((boundary, index) => boundary - 1 - (index % (length - 1)));
}

Deno.test("StreamRedactor redacts a secret at every offset across chunk and piece boundaries", () => {
  const boundaries = Array.from({ length: 60 }, (_, index) => (index + 1) * 16_384);
  const dense = Array.from({ length: 900 }, (_, index) => 700 + index * 1_091);
  const starts = [...new Set([...sweepStarts(boundaries, SECRET.length), ...dense])]
    .sort((left, right) => left - right)
    .filter((start, index, all) => index === 0 || start - (all[index - 1] ?? 0) > SECRET.length);
  const text = lineWith(SECRET, starts, 1_000_000);
  const expected = redactor.redactText(text);
  assert.ok(expected.split(MARKER).length - 1 === starts.length);
  for (const size of [65_536, 65_535, 4_099, 1_000_000]) {
    const out = stream(text, size);
    assert.ok(!out.includes(SECRET.slice(0, 10)) && !out.includes(SECRET.slice(-10)), `${size}`);
    assertSame(out, expected, `chunks of ${size} bytes`);
  }
});

Deno.test("StreamRedactor keeps a near miss byte for byte when it sits where secrets were cut", () => {
  const boundaries = Array.from({ length: 60 }, (_, index) => (index + 1) * 16_384);
  const starts = sweepStarts(boundaries, NEAR_MISS.length);
  const text = lineWith(NEAR_MISS, starts, 1_000_000, "é€😀 ord ");
  for (const size of [65_536, 4_099, 7]) {
    assertSame(stream(text, size), text, `chunks of ${size} bytes`);
  }
});

Deno.test("StreamRedactor redacts a token longer than a piece when it crosses a cut", () => {
  const token = ` ghp_${"A1b2".repeat(1_000)} `; // one match of 4,004 characters
  const starts = Array.from({ length: 40 }, (_, index) => 3_000 + index * 24_577);
  const text = lineWith(token, starts, 1_000_000, "word ");
  const out = stream(text, 65_536);
  assert.ok(!out.includes("A1b2A1b2"), "a part of the token was written");
  assertSame(out, redactor.redactText(text), "token");
});

Deno.test("StreamRedactor holds back a secret longer than the default overlap and redacts it whole", () => {
  const long = `long-secret-${"q7".repeat(MAX_TOKEN_MATCH_CHARS)}`;
  const withLong = new Redactor({ secrets: [long] });
  assert.equal(withLong.maxMatchChars, long.length);
  const text = lineWith(long, [10_000, 150_000, 299_990], 400_000, "ordinary ");
  const out = stream(text, 65_536, withLong.forStreams());
  assert.ok(!out.includes("q7q7q7q7"), "a part of the long secret was written");
  assertSame(out, withLong.redactText(text), "long secret");
});

/**
 * Streams `text` as one push of `first` bytes, then the rest: with ASCII text the first piece is
 * cut at `first - maxMatchChars`, exactly (unless a secret crosses there).
 */
function streamCutAt(text: string, first: number, redaction = redactor.forStreams()): string {
  const bytes = encoder.encode(text);
  const cutter = new StreamRedactor(redaction);
  const head = new TextDecoder().decode(cutter.push(bytes.subarray(0, first)));
  const rest = new TextDecoder().decode(cutter.push(bytes.subarray(first)));
  return head + rest + new TextDecoder().decode(cutter.flush());
}

const FIRST = 2 * MAX_TOKEN_MATCH_CHARS + BATCH_CHARS + 1_000;
const CUT = FIRST - MAX_TOKEN_MATCH_CHARS;

Deno.test("StreamRedactor redacts a secret whatever offset its piece cut falls at", () => {
  for (let offset = -2; offset <= SECRET.length + 2; offset++) {
    const text = lineWith(SECRET, [CUT - offset], 200_000, "y");
    const out = streamCutAt(text, FIRST);
    assert.ok(!out.includes(SECRET.slice(0, 6)) && !out.includes(SECRET.slice(-6)), `${offset}`);
    assertSame(out, redactor.redactText(text), `secret ${offset} code units before the cut`);
    // Near miss: an ordinary value of the same length at the same place comes out as it was.
    const plain = lineWith(NEAR_MISS, [CUT - offset], 200_000, "y");
    assertSame(streamCutAt(plain, FIRST), plain, `near miss ${offset} code units before the cut`);
  }
});

Deno.test("StreamRedactor keeps a word that looks like a key's end when a cut falls before its sk-", () => {
  // "task-…" is no key: its "sk-" starts inside a word. A piece that starts at "sk-" must still
  // see the letters before it.
  const word = `task-${"abcdefghij".repeat(3)}`;
  for (let offset = -3; offset <= 3; offset++) {
    const text = lineWith(word, [CUT - 2 + offset], 200_000, "y");
    assertSame(streamCutAt(text, FIRST), text, `"sk-" ${offset} code units from the cut`);
  }
});

Deno.test("StreamRedactor redacts a key that follows a secret directly when a cut falls between", () => {
  // The key counts as one only because the secret before it is replaced (a marker is no word).
  const key = `sk-${"Zq9".repeat(10)}`;
  for (let offset = -1; offset <= 1; offset++) {
    const text = lineWith(`${SECRET}${key}`, [CUT - SECRET.length + offset], 200_000, " ");
    const out = streamCutAt(text, FIRST);
    assert.ok(!out.includes("Zq9Zq9"), `the key was written, cut ${offset} from it`);
    assertSame(out, redactor.redactText(text), `key ${offset} code units from the cut`);
  }
});

Deno.test("PieceRedactor.prefix moves a cut back to the start of a secret it would cross", () => {
  const pieces = new PieceRedactor(redactor.forStreams());
  const text = `ab ${SECRET} cd`;
  for (let wanted = 4; wanted < 3 + SECRET.length; wanted++) {
    const piece = pieces.prefix(text, wanted);
    assert.equal(piece.cut, 3);
    assert.equal(piece.text, "ab ");
  }
  // Near miss: a cut after the secret keeps it whole and redacted.
  assert.equal(pieces.prefix(text, 3 + SECRET.length).text, `ab ${MARKER}`);
  // Nor between the halves of a surrogate pair.
  assert.deepEqual(new PieceRedactor(null).prefix("a😀b", 2).cut, 1);
});

Deno.test("PieceRedactor.suffix drops the part of a window before a secret it would cut", () => {
  const pieces = new PieceRedactor(redactor.forStreams());
  const text = `${SECRET.slice(9)} ab ${SECRET} cd`;
  const shown = pieces.suffix(text, 4);
  assert.ok(!shown.includes(SECRET.slice(9)), shown);
  assert.equal(pieces.suffix(text, text.indexOf(SECRET) + 3), `${MARKER} cd`);
});

Deno.test("StreamRedactor removes Basic credentials at every offset across chunk and piece boundaries, as the whole text does", () => {
  // The line actions/checkout writes into .git/config, the way a command prints it: the
  // credentials decode to the job token, so the stream must agree with the redactor on a decoded
  // match (issue 23).
  const token = `ghs_${"Tq9x".repeat(9)}`;
  const line = `\textraheader = AUTHORIZATION: basic ${btoa(`x-access-token:${token}`)}\n`;
  const plain = `\textraheader = AUTHORIZATION: basic ${btoa("no password in here")}\n`;
  const boundaries = Array.from({ length: 40 }, (_, index) => (index + 1) * 16_384);
  const starts = sweepStarts(boundaries, line.length);
  const text = lineWith(line, starts, 700_000);
  const nearMiss = lineWith(plain, sweepStarts(boundaries, plain.length), 700_000);
  const expected = redactor.redactText(text);
  assert.equal(expected.split("[REDACTED:basic_credentials]").length - 1, starts.length);
  for (const size of [65_536, 4_099, 700_000]) {
    const out = stream(text, size);
    assert.ok(!out.includes(btoa(`x-access-token:${token}`).slice(20, 40)), `${size}`);
    assertSame(out, expected, `chunks of ${size} bytes`);
    assertSame(stream(nearMiss, size), nearMiss, `near miss in chunks of ${size} bytes`);
  }
});
