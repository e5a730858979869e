/**
 * Doors that say only what is so (issue 25 §12): a folder's `mod.ts` exports exactly what
 * production files of other folders import through it. It re-exports only files of its own folder
 * (never a second door onto another folder) and lists each name (no `export *`). Tests import the
 * files they test directly. Each check runs on the real tree and on a small fake one that breaks it
 * (the near miss: the checker does see a violation).
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../src", import.meta.url));
const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));

/** One `.ts` file: its path relative to `src/` (`../main.ts` for main.ts) and its text. */
export interface TextFile {
  path: string;
  text: string;
}

/** One name a door exports, and the file it comes from (relative to `src/`). */
interface DoorName {
  name: string;
  from: string;
}

const RE_EXPORT = /export\s+(?:type\s+)?\{([^}]*)\}\s*from\s*"([^"]+)";/g;
const NAMED_IMPORT = /(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s*"(\.{1,2}\/[^"]+)";/g;

/** `a, type B, c as d` → the names as seen by the importer (`a`, `B`, `d`) or exporter. */
function listedNames(list: string, side: "exported" | "original"): string[] {
  return list.split(",").map((item) => item.replace(/\/\/[^\n]*/g, "").trim()).filter(Boolean)
    .map((item) => {
      const words = item.replace(/^type\s+/, "").split(/\s+as\s+/);
      return (side === "exported" ? words[words.length - 1] : words[0]) as string;
    });
}

const isTest = (path: string) =>
  path.endsWith("_test.ts") || /^_.*(test|fixture|probe)/.test(nodePath.basename(path));

/** Every `.ts` file under `src/`, plus main.ts. */
function readFiles(): TextFile[] {
  const files: TextFile[] = [{ path: nodePath.relative(SRC, MAIN), text: "" }];
  files[0] = { path: files[0]?.path as string, text: Deno.readTextFileSync(MAIN) };
  const pending = [SRC];
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    for (const entry of Deno.readDirSync(folder)) {
      const path = nodePath.join(folder, entry.name);
      if (entry.isDirectory) pending.push(path);
      else if (entry.isFile && path.endsWith(".ts")) {
        files.push({ path: nodePath.relative(SRC, path), text: Deno.readTextFileSync(path) });
      }
    }
  }
  return files;
}

/** The names each door (`<folder>/mod.ts`) re-exports, with the file each comes from. */
function doorNames(files: readonly TextFile[]): Map<string, DoorName[]> {
  const doors = new Map<string, DoorName[]>();
  for (const file of files) {
    if (nodePath.basename(file.path) !== "mod.ts") continue;
    const names: DoorName[] = [];
    for (const match of file.text.matchAll(RE_EXPORT)) {
      const from = nodePath.join(nodePath.dirname(file.path), match[2] as string);
      for (const name of listedNames(match[1] as string, "exported")) names.push({ name, from });
    }
    doors.set(file.path, names);
  }
  return doors;
}

/** Door names that no production file of another folder imports through that door. */
export function unusedDoorNames(files: readonly TextFile[]): string[] {
  const doors = doorNames(files);
  const used = new Set<string>();
  for (const file of files) {
    if (isTest(file.path)) continue;
    for (const match of file.text.matchAll(NAMED_IMPORT)) {
      const target = nodePath.join(nodePath.dirname(file.path), match[2] as string)
        .replace(/^\.\.\/src\//, "");
      if (!doors.has(target)) continue;
      if (file.path.startsWith(`${nodePath.dirname(target)}/`)) continue; // its own folder
      for (const name of listedNames(match[1] as string, "original")) used.add(`${target}:${name}`);
    }
  }
  return [...doors].flatMap(([door, names]) =>
    names.filter(({ name }) => !used.has(`${door}:${name}`)).map(({ name }) => `${door}: ${name}`)
  ).sort();
}

/** Doors that re-export another folder's door, or use `export *`. */
export function secondDoors(files: readonly TextFile[]): string[] {
  const found: string[] = [];
  for (const [door, names] of doorNames(files)) {
    const folder = nodePath.dirname(door);
    for (const { name, from } of names) {
      if (nodePath.basename(from) === "mod.ts" && !from.startsWith(`${folder}/`)) {
        found.push(`${door}: ${name} from ${from}`);
      }
    }
  }
  for (const file of files) {
    if (nodePath.basename(file.path) === "mod.ts" && /export\s+\*/.test(file.text)) {
      found.push(`${file.path}: export *`);
    }
  }
  return found.sort();
}

const FILES = readFiles();

Deno.test("every name a folder's door exports is imported through it by another folder", () => {
  assert.deepEqual(unusedDoorNames(FILES), []);
});

Deno.test("no door re-exports another folder's door or uses export *", () => {
  assert.deepEqual(secondDoors(FILES), []);
});

Deno.test("the door checks see unused names and second doors in a fake tree (near miss)", () => {
  const fake: TextFile[] = [
    { path: "a/mod.ts", text: 'export { used, unused } from "./x.ts";\nexport * from "./y.ts";' },
    { path: "a/x.ts", text: "export const used = 1; export const unused = 2;" },
    { path: "a/x_test.ts", text: 'import { unused } from "./mod.ts";' },
    { path: "b/mod.ts", text: 'export { used as again } from "../a/mod.ts";' },
    { path: "b/z.ts", text: 'import { type used } from "../a/mod.ts";' },
    { path: "c/w.ts", text: 'import { again } from "../b/mod.ts";' },
  ];
  assert.deepEqual(unusedDoorNames(fake), ["a/mod.ts: unused"]);
  assert.deepEqual(secondDoors(fake), ["a/mod.ts: export *", "b/mod.ts: again from a/mod.ts"]);
});
