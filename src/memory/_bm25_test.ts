import assert from "node:assert/strict";
import { bm25Scores, tokenize } from "./_bm25.ts";

Deno.test("tokenize lower-cases and splits on punctuation when words are joined", () => {
  assert.deepEqual(tokenize("Hello, WORLD! foo_bar-baz 42 café"), [
    "hello",
    "world",
    "foo",
    "bar",
    "baz",
    "42",
    "café",
  ]);
  assert.deepEqual(tokenize("  ...  "), []);
});

Deno.test("bm25Scores matches a hand-computed value when one document has the term", () => {
  // N = 2, n = 1: idf = ln(1 + 1.5 / 1.5) = ln 2; lengths 2 and 2, avg 2: norm = k1.
  // tf = 1: score = ln 2 * 1 * 2.2 / (1 + 1.2) = ln 2.
  const [first, second] = bm25Scores("apple", ["apple pie", "banana split"]);
  assert.ok(Math.abs((first ?? 0) - Math.LN2) < 1e-12);
  assert.equal(second, 0);
});

Deno.test("bm25Scores ranks the rarer term higher when both documents match one term", () => {
  const scores = bm25Scores("common rare", [
    "common words here",
    "common rare words",
    "common other words",
  ]);
  assert.ok((scores[1] ?? 0) > (scores[0] ?? 0));
  assert.equal(scores[0], scores[2]);
});

Deno.test("bm25Scores favours the shorter document when term frequency is equal", () => {
  const scores = bm25Scores("deno", ["deno", "deno and many other words in a long text"]);
  assert.ok((scores[0] ?? 0) > (scores[1] ?? 0));
});

Deno.test("bm25Scores saturates when a term repeats", () => {
  const scores = bm25Scores("x", ["x y", "x x y y", "x x x x y y y y", "z"]);
  const [one, two, four] = scores;
  assert.ok((two ?? 0) >= (one ?? 0) && (four ?? 0) >= (two ?? 0));
  assert.ok((four ?? 0) < 2.2 * 2, "bounded by idf * (k1 + 1)");
});

Deno.test("bm25Scores returns zeros when the query has no words or there are no documents", () => {
  assert.deepEqual(bm25Scores("!!", ["a b"]), [0]);
  assert.deepEqual(bm25Scores("a", []), []);
});
