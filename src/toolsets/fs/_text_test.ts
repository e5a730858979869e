import assert from "node:assert/strict";
import { guessMediaType, looksBinary } from "./_binary.ts";
import {
  countOccurrences,
  cutAround,
  lineEnding,
  lineOfIndex,
  toCrlf,
  utf8CutLength,
} from "./_text.ts";

Deno.test("fs text helpers cut UTF-8 only between characters when the limit falls inside one", () => {
  const bytes = new TextEncoder().encode("a€b"); // 61 e2 82 ac 62
  assert.equal(utf8CutLength(bytes, 2), 1);
  assert.equal(utf8CutLength(bytes, 3), 1);
  assert.equal(utf8CutLength(bytes, 4), 4);
  assert.equal(utf8CutLength(bytes, 10), 5);
});

Deno.test("fs text helpers keep the match visible when they cut a long line", () => {
  assert.equal(cutAround("short", 10), "short");
  assert.equal(cutAround("abcdefghij", 4), "abcd… […cut 6 characters]");
  const line = "x".repeat(500) + "HIT" + "y".repeat(500);
  const cut = cutAround(line, 300, 500);
  assert.ok(cut.startsWith("…") && cut.includes("HIT"));
});

Deno.test("fs text helpers tell CRLF from LF and mixed line endings", () => {
  assert.equal(lineEnding("a\r\nb\r\n"), "crlf");
  assert.equal(lineEnding("a\nb\r\n"), "lf");
  assert.equal(lineEnding("a"), "none");
  assert.equal(toCrlf("a\nb\r\nc"), "a\r\nb\r\nc");
  assert.equal(countOccurrences("aaaa", "aa"), 2);
  assert.equal(countOccurrences("abc", ""), 0);
  assert.equal(lineOfIndex("a\nb\nc", 4), 3);
});

Deno.test("fs binary helpers flag NUL bytes and invalid UTF-8 but accept a cut character at the end", () => {
  assert.equal(looksBinary(new TextEncoder().encode("plain €")), false);
  assert.equal(looksBinary(new Uint8Array([0x61, 0xe2, 0x82])), false);
  assert.equal(looksBinary(new Uint8Array([0x61, 0x00])), true);
  assert.equal(looksBinary(new Uint8Array([0xff, 0xfe, 0x61])), true);
  assert.equal(
    guessMediaType(new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31])),
    "application/pdf",
  );
  assert.equal(guessMediaType(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2])), "application/x-elf");
  assert.equal(guessMediaType(new Uint8Array([1, 2, 3])), "application/octet-stream");
});
