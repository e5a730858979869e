/**
 * Okapi BM25 ranking, small and dependency-free, for the file memory provider.
 *
 * @module
 */

/** Term-frequency saturation. */
export const BM25_K1 = 1.2;
/** Length normalisation. */
export const BM25_B = 0.75;

/**
 * Splits text into lower-case words: runs of Unicode letters and digits.
 *
 * @example
 * ```ts
 * import { tokenize } from "./_bm25.ts";
 * console.assert(tokenize("Deno's TEST-suite").join(" ") === "deno s test suite");
 * ```
 */
export function tokenize(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * Scores each document against the query with BM25 (k1 = 1.2, b = 0.75, idf
 * `ln(1 + (N - n + 0.5) / (n + 0.5))`, always positive). Repeated query words count once.
 *
 * @param query Free text.
 * @param documents Texts to score.
 * @returns One score per document, in the same order; 0 when no query word occurs.
 */
export function bm25Scores(query: string, documents: readonly string[]): number[] {
  const terms = [...new Set(tokenize(query))];
  const tokenized = documents.map(tokenize);
  const count = tokenized.length;
  if (count === 0 || terms.length === 0) return tokenized.map(() => 0);
  const averageLength = tokenized.reduce((sum, words) => sum + words.length, 0) / count || 1;
  const frequencies = tokenized.map((words) => {
    const counts = new Map<string, number>();
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
    return counts;
  });
  const idf = new Map<string, number>();
  for (const term of terms) {
    const containing = frequencies.filter((counts) => counts.has(term)).length;
    idf.set(term, Math.log(1 + (count - containing + 0.5) / (containing + 0.5)));
  }
  return tokenized.map((words, index) => {
    const counts = frequencies[index] ?? new Map<string, number>();
    const norm = BM25_K1 * (1 - BM25_B + BM25_B * words.length / averageLength);
    let score = 0;
    for (const term of terms) {
      const frequency = counts.get(term) ?? 0;
      if (frequency === 0) continue;
      score += (idf.get(term) ?? 0) * frequency * (BM25_K1 + 1) / (frequency + norm);
    }
    return score;
  });
}
