import assert from "node:assert/strict";
import { compileLinePattern, type LinePattern } from "./_line_pattern.ts";

function compile(pattern: string, caseSensitive = true): LinePattern {
  const compiled = compileLinePattern(pattern, caseSensitive);
  if (!("search" in compiled)) throw new Error(compiled.reason);
  return compiled;
}

/** Whether any line of `bytes` matches, line by line as `fs.grep_files` matches them. */
function lineMatches(pattern: LinePattern, bytes: Uint8Array): boolean {
  const lines = new TextDecoder().decode(bytes).split("\n");
  return lines.some((line) => pattern.search(line.endsWith("\r") ? line.slice(0, -1) : line) >= 0);
}

const encode = (text: string) => new TextEncoder().encode(text);

Deno.test("the grep prefilters never rule out a file that has a matching line", () => {
  const cases: [string, boolean, Uint8Array][] = [
    ["needle_[0-9]{4}", true, encode("a\nb needle_1234 c\n")],
    ["^foo$", true, encode("x\r\nfoo\r\ny\r\n")], // `$` before a carriage return the line loses
    ["\\Afoo", true, encode("bar\nfoo\n")], // \A is the start of each line, not of the file
    ["foo\\z", true, encode("foo\nbar\n")],
    ["(?-m)^b", true, encode("a\nb\n")],
    ["HELLO (world|there)", false, encode("say hello there\n")],
    ["(?i)tag", true, encode("a TAG b\n")],
    ["\ufffd", true, new Uint8Array([0x61, 0xff, 0x62, 0x0a])], // invalid UTF-8 decodes to U+FFFD
    ["a\\bb|x\\b", true, encode("zz x\r\n")],
    ["(foo|bar)baz", true, encode("1\n2 barbaz\n")],
  ];
  for (const [source, caseSensitive, bytes] of cases) {
    const pattern = compile(source, caseSensitive);
    assert.ok(lineMatches(pattern, bytes), `the case for ${source} must have a matching line`);
    assert.ok(pattern.mayMatchBytes(bytes), `bytes prefilter ruled out ${source}`);
    assert.ok(
      pattern.mayMatchText(new TextDecoder().decode(bytes)),
      `text test ruled out ${source}`,
    );
  }
});

Deno.test("the grep prefilters rule out files without the literal or without a match", () => {
  const text = "alpha beta\ngamma needle_12 delta\n";
  const literal = compile("needle_[0-9]{4}");
  // Near miss first: the literal is there, so the bytes cannot rule the file out.
  assert.equal(literal.mayMatchBytes(encode(text)), true);
  assert.equal(literal.mayMatchText(text), false); // …but the whole-text test can.
  assert.equal(literal.mayMatchBytes(encode("alpha beta\n")), false);
  const alternatives = compile("(omega|sigma)_x");
  assert.equal(alternatives.mayMatchBytes(encode(text)), false);
  assert.equal(alternatives.mayMatchBytes(encode("a sigma_x b")), true);
  // No literal at all: only the whole-text test can rule the file out.
  const classes = compile("[0-9]{5}");
  assert.equal(classes.mayMatchBytes(encode(text)), true);
  assert.equal(classes.mayMatchText(text), false);
});
