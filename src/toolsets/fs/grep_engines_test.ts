/**
 * The two engines of `fs.grep_files` on the same trees: the built-in searcher alone, and ripgrep
 * (the real `rg`, unconfined and under bubblewrap) naming the files the built-in then reads. The
 * same `matches` for every pattern, on edge files where the dialects differ (CRLF, invalid UTF-8,
 * NUL bytes late in a file, files at and over the size cap, UTF-16 and UTF-8 byte order marks,
 * Unicode case folds, Unicode word characters). Skips with a printed reason where `rg` is missing.
 */

import assert from "node:assert/strict";
import { createTempSandbox, writeTree } from "../../testing/temp_sandbox.ts";
import { createTestContext } from "../../testing/tool_context.ts";
import { MAX_FILE_BYTES } from "./_limits.ts";
import type { GrepFilesData } from "./grep_files.ts";
import { BWRAP_WORKS, grepWith, RIPGREP, testPrefilter } from "./_ripgrep_test_support.ts";

const encoder = new TextEncoder();

/** A tree of the files where the two dialects could part. */
async function edgeTree(workspace: string): Promise<void> {
  await writeTree(workspace, {
    "crlf.txt": "foo\r\nbar foo\r\nfoo bar\r\nfoo\r\r\nend\r",
    "bom_utf8.txt": "\ufefffoo at the start\nfoo again\n",
    "fold.txt": "\u212Aelvin sign\n\u017Fong s\nplain k and s\nKS\n",
    "unicode.txt": "naïve café\néa word\nxéy\nx\u0663y digit\nfoo\u00a0bar\n",
    "tabs.txt": "a\tb\nx y\nvertical\u000btab\nline 42\n",
    ".hidden/deep/x.txt": "needle in a hidden folder\n",
    "src/a.ts": "const token = process.env.API_TOKEN;\n// process.env but no name\n",
  });
  const bytes = (...parts: (string | number[])[]) =>
    parts.map((part) => typeof part === "string" ? encoder.encode(part) : new Uint8Array(part));
  const join = (parts: Uint8Array[]) => {
    const out = new Uint8Array(parts.reduce((total, part) => total + part.byteLength, 0));
    let offset = 0;
    for (const part of parts) {
      out.set(part, offset);
      offset += part.byteLength;
    }
    return out;
  };
  // Invalid UTF-8: a lone byte, a cut sequence, an overlong form, a Latin-1 word.
  await Deno.writeFile(
    `${workspace}/invalid.txt`,
    join(
      bytes(
        "x",
        [0xff],
        "y\n",
        "x",
        [0xe2, 0x82],
        "y\n",
        "a",
        [0xc0, 0xaf],
        "b\n",
        "caf",
        [0xe9],
        " needle\n",
      ),
    ),
  );
  // A NUL byte after the binary sniff: the built-in searches the file.
  await Deno.writeFile(
    `${workspace}/late_nul.txt`,
    join(bytes("needle early\n", "a".repeat(9000), "\n", [0], "needle after nul\n")),
  );
  // UTF-16 with a byte order mark: binary for the built-in, transcoded by ripgrep.
  const utf16 = [0xff, 0xfe, ...[..."needle foo\n"].flatMap((char) => [char.charCodeAt(0), 0])];
  await Deno.writeFile(`${workspace}/utf16.txt`, new Uint8Array(utf16));
  // UTF-16 without a NUL byte (U+6F61 U+6F62): text for the built-in ("\ufffd\ufffdaobo").
  await Deno.writeFile(
    `${workspace}/utf16_no_nul.txt`,
    new Uint8Array([0xff, 0xfe, 0x61, 0x6f, 0x62, 0x6f]),
  );
  // At the size cap (searched) and one byte over it (skipped by both).
  const filled = (size: number) => {
    const data = new Uint8Array(size).fill(0x61);
    data.set(encoder.encode("\nneedle at the cap\n"), size - 20);
    return data;
  };
  await Deno.writeFile(`${workspace}/at_cap.txt`, filled(MAX_FILE_BYTES));
  await Deno.writeFile(`${workspace}/over_cap.txt`, filled(MAX_FILE_BYTES + 1));
  await Deno.symlink("src/a.ts", `${workspace}/link_to_a.ts`);
}

/** Patterns inside the gate: ripgrep must run, and agree. */
const GATED: [string, boolean][] = [
  ["foo$", true], // CRLF lines, a CR CR LF line, a last line ending in CR
  ["^foo", true], // a UTF-8 byte order mark before the first line
  ["x.y", true], // `.` over invalid bytes, a cut sequence, a two-byte character
  ["a.b", true], // an overlong form (two invalid bytes)
  ["x\\Wy", true], // \W over non-ASCII and invalid bytes
  ["x[^a]y", true], // a negated class over the same
  ["x\\Sy", true],
  ["x\\Dy", true],
  ["caf.", true],
  ["k", false], // K, k and the Kelvin sign fold together
  ["s", false], // S, s and the long s fold together
  ["[^k]ong s", false], // a negated class under folding (the long s is not a k)
  ["[^s]elvin", false], // (the Kelvin sign is not an s)
  ["\\W", false],
  ["(?i)ks", true],
  ["\\w+ \\w+", true],
  ["a\\sb", true], // \s is ASCII in RE2 (no vertical tab)
  ["vertical\\stab", true],
  ["\\d", true], // \d is ASCII in RE2 (no U+0663)
  ["foo.bar", true], // a no-break space
  ["needle", true], // late NUL, UTF-16, the size cap, a hidden folder
  ["aobo", true], // UTF-16 bytes without NUL, which ripgrep would transcode
  ["^..aobo", true], // and its byte order mark (not a UTF-8 one: two U+FFFD for the built-in)
  ["process\\.env\\.[A-Z_]+", true], // also through a link to a file
  ["[[:alpha:]]+ sign", true],
  ["(?P<word>ne+dle) [a-z]{2,}", true],
  ["absent_[a-z]+", true],
];

/** Patterns that find no line (RE2's `\s` has no vertical tab; nothing is absent_x). */
const FIND_NOTHING = ["vertical\\stab", "absent_[a-z]+"];

/** Patterns outside the gate: the built-in runs alone. */
const UNGATED: [string, boolean][] = [
  ["\\bword", true],
  ["café", true],
  ["\\pL+", true],
  ["\\x{e9}", true],
];

/** Files a search skipped, all reasons. */
function skippedCount(result: { data: GrepFilesData }): number {
  return Object.values(result.data.skipped).reduce((sum: number, count: number) => sum + count, 0);
}

/** Files a search considered: searched or skipped. */
function totalConsidered(result: { data: GrepFilesData }): number {
  return result.data.files_scanned + skippedCount(result);
}

for (const isolation of ["none", "bwrap"] as const) {
  Deno.test({
    name:
      `fs.grep_files finds the same lines with ripgrep (${isolation}) and without, on edge files`,
    ignore: RIPGREP === null || (isolation === "bwrap" && !BWRAP_WORKS),
    async fn() {
      await using sandbox = await createTempSandbox();
      await edgeTree(sandbox.workspace);
      const context = await createTestContext({ workspace: sandbox.workspace });
      const prefilter = testPrefilter({ isolation });
      for (const [pattern, caseSensitive] of [...GATED, ...UNGATED]) {
        const args = { pattern, case_sensitive: caseSensitive };
        const builtin = await grepWith(null, args, context);
        const fast = await grepWith(prefilter, args, context);
        const what = `${pattern} (case sensitive: ${caseSensitive})`;
        assert.equal(builtin.data.engine, "builtin", what);
        assert.equal(
          fast.data.engine,
          UNGATED.some(([p]) => p === pattern) ? "builtin" : "ripgrep",
          what,
        );
        assert.deepEqual(fast.data.matches, builtin.data.matches, what);
        // With ripgrep only the files it names are lstat'ed or opened here: a file it passed over
        // (no matching line, binary, over the size cap) counts as searched, never as skipped.
        assert.ok(fast.data.skipped.too_large <= builtin.data.skipped.too_large, what);
        assert.equal(fast.data.files_scanned + skippedCount(fast), totalConsidered(builtin), what);
        // An empty agreement proves nothing: only the patterns meant to find nothing find nothing.
        assert.equal(builtin.data.matches.length === 0, FIND_NOTHING.includes(pattern), what);
      }
    },
  });
}

Deno.test({
  name: "fs.grep_files with ripgrep: a match in a file ripgrep names is found at the size cap",
  ignore: RIPGREP === null,
  async fn() {
    await using sandbox = await createTempSandbox();
    await edgeTree(sandbox.workspace);
    const context = await createTestContext({ workspace: sandbox.workspace });
    const fast = await grepWith(testPrefilter(), { pattern: "needle at the cap" }, context);
    assert.equal(fast.data.engine, "ripgrep");
    assert.deepEqual(fast.data.matches.map((match) => match.path), ["at_cap.txt"]);
    // The file one byte over the cap: the built-in skips it as too large; ripgrep passes over it
    // (--max-filesize), so it is never lstat'ed here and counts as searched.
    const builtin = await grepWith(null, { pattern: "needle at the cap" }, context);
    assert.deepEqual(builtin.data.matches, fast.data.matches);
    assert.equal(builtin.data.skipped.too_large, 1);
    assert.equal(fast.data.skipped.too_large, 0);
  },
});

Deno.test({
  name: "fs.grep_files with ripgrep keeps the glob, the limit and the walk order of the built-in",
  ignore: RIPGREP === null,
  async fn() {
    await using sandbox = await createTempSandbox();
    await edgeTree(sandbox.workspace);
    const context = await createTestContext({ workspace: sandbox.workspace });
    for (const extra of [{ glob: "*.txt" }, { limit: 3 }, { glob: "src/**", limit: 1 }]) {
      const args = { pattern: "needle|foo|process", ...extra };
      const builtin = await grepWith(null, args, context);
      const fast = await grepWith(testPrefilter(), args, context);
      const what = JSON.stringify(extra);
      assert.equal(fast.data.engine, "ripgrep", what);
      assert.deepEqual(fast.data.matches, builtin.data.matches, what);
      assert.equal(fast.data.truncated_reason, builtin.data.truncated_reason, what);
      assert.equal(fast.data.not_matching_glob, builtin.data.not_matching_glob, what);
      // The match lines of the output too (a binary file ripgrep does not name is counted as
      // searched, not skipped: it is never opened).
      const matchLines = (output: string) =>
        output.split("\n").filter((line) => !line.startsWith("["));
      assert.deepEqual(matchLines(fast.outcome.output), matchLines(builtin.outcome.output), what);
    }
  },
});
