/**
 * The file tree of the grep benchmark: 50 folders of 100 files, each about 40 lines of varied
 * text; 5% of the files hold two lines matching {@linkcode GREP_PATTERN}. Deterministic, so every
 * run searches the same bytes.
 *
 * @module
 */

import * as nodePath from "node:path";

/** Folders in the tree. */
export const FOLDERS = 50;
/** Files per folder. */
export const FILES_PER_FOLDER = 100;
/** Every file, all folders together. */
export const TOTAL_FILES = FOLDERS * FILES_PER_FOLDER;
/** The searched pattern, valid for JavaScript and ripgrep alike; the filler text never matches. */
export const GREP_PATTERN = "needle_[0-9]{4}";
/** Matching lines in a file that has any. */
const MATCHES_PER_FILE = 2;
/** One file in 20 (5%) holds matches. */
const MATCH_EVERY = 20;

/** Filler words; none of them matches {@linkcode GREP_PATTERN}. */
const WORDS = [
  "alpha bravo config delta export function return const value index",
  "buffer stream worker policy sandbox record event string number await",
  "import module result error summary output folder window limit guard",
  "path tool call read write match line text file search",
].join(" ").split(" ");

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What {@linkcode writeGrepTree} wrote. */
export interface GrepTree {
  /** Lines matching {@linkcode GREP_PATTERN} in the whole tree. */
  expectedMatches: number;
  /** Files holding at least one match. */
  matchingFiles: number;
  /** Bytes written. */
  bytes: number;
}

/**
 * Writes the tree below `base` (which must exist): `dir00/file000.txt` … `dir49/file099.txt`.
 */
export async function writeGrepTree(base: string): Promise<GrepTree> {
  const next = random(20261121);
  const pick = () => WORDS[Math.floor(next() * WORDS.length)] as string;
  let expectedMatches = 0;
  let matchingFiles = 0;
  let bytes = 0;
  const encoder = new TextEncoder();
  for (let folder = 0; folder < FOLDERS; folder += 1) {
    const dir = nodePath.join(base, `dir${String(folder).padStart(2, "0")}`);
    await Deno.mkdir(dir);
    const writes: Promise<void>[] = [];
    for (let file = 0; file < FILES_PER_FOLDER; file += 1) {
      const lineCount = 36 + Math.floor(next() * 9); // 36..44 lines
      const lines: string[] = [];
      for (let line = 0; line < lineCount; line += 1) {
        const wordCount = 3 + Math.floor(next() * 10);
        const words: string[] = [];
        for (let word = 0; word < wordCount; word += 1) words.push(pick());
        lines.push(`${"  ".repeat(Math.floor(next() * 3))}${words.join(" ")}`);
      }
      if ((folder * FILES_PER_FOLDER + file) % MATCH_EVERY === 7) {
        matchingFiles += 1;
        for (let match = 0; match < MATCHES_PER_FILE; match += 1) {
          const at = match * Math.floor(lineCount / MATCHES_PER_FILE) + Math.floor(next() * 10);
          const id = String(Math.floor(next() * 10_000)).padStart(4, "0");
          lines[at] = `${lines[at]} // needle_${id} found here`;
          expectedMatches += 1;
        }
      }
      const content = lines.join("\n") + "\n";
      bytes += encoder.encode(content).byteLength;
      const name = `file${String(file).padStart(3, "0")}.txt`;
      writes.push(Deno.writeTextFile(nodePath.join(dir, name), content));
    }
    await Promise.all(writes);
  }
  return { expectedMatches, matchingFiles, bytes };
}
