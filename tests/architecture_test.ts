/**
 * The house's walls (issue 12, docs/ARCHITECTURE.md "Layers"): folders of `src/` import each other
 * in one direction only, through each folder's door (`mod.ts`), never a `_` file of another folder,
 * never the test helpers of `src/testing/` from production code; and no source file grows past 400
 * lines unless it is listed below with its reason. Each rule is checked on the real tree and on a
 * small fake one that breaks it (the near miss: the checker does see a violation).
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../src", import.meta.url));

/** Most lines a source file may have (STYLE.md: "keep files under ~400 lines"). */
const MAX_LINES = 400;

/**
 * Files allowed past {@linkcode MAX_LINES}, each with why splitting it would not serve the reader.
 * Keep this list short; shrink it when a file is split.
 */
const LONG_FILES: Readonly<Record<string, string>> = {
  // One hand-written shell lexer: its states (quotes, substitutions, here-documents, comments)
  // call each other, and splitting them would make the reader jump between files mid-token.
  "toolsets/declarative/_shell_scanner.ts":
    "one shell lexer whose states call each other; split, a token would span files",
  // OpenAI strict-mode conversion and its way back share the private predicates (allowsNull,
  // isRecord); a split would make the two halves import each other.
  "agent/providers/_strict_schema.ts":
    "strict-mode schema conversion and its inverse share private predicates",
};

/** A source file and the relative imports it makes, as paths relative to `src/`. */
export interface SourceFile {
  path: string;
  lines: number;
  imports: string[];
}

/** Reads every `.ts` file under `root` (tests included, marked by their name). */
function readTree(root: string): SourceFile[] {
  const files: SourceFile[] = [];
  const pending = [root];
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    for (const entry of Deno.readDirSync(folder)) {
      const path = nodePath.join(folder, entry.name);
      if (entry.isDirectory) pending.push(path);
      else if (entry.isFile && path.endsWith(".ts")) {
        const text = Deno.readTextFileSync(path);
        const imports = [
          ...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.{1,2}\/[^"]+)"/g),
          ...text.matchAll(/\bimport\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g),
        ].map((match) => nodePath.relative(root, nodePath.resolve(folder, match[1] as string)));
        files.push({
          path: nodePath.relative(root, path),
          lines: text.split("\n").length - (text.endsWith("\n") ? 1 : 0),
          imports: imports.filter((target) => !target.startsWith("..")),
        });
      }
    }
  }
  return files.sort((left, right) => left.path.localeCompare(right.path));
}

/** Tests, and their helpers and fixtures kept beside them (`_test_support.ts`, `_fixture.ts`…). */
const isTest = (path: string) =>
  path.endsWith("_test.ts") || /^_.*(test|fixture|probe)/.test(nodePath.basename(path));
const topFolder = (path: string) => path.split("/")[0] as string;
const folderOf = (path: string) => nodePath.dirname(path);

/** The folder-level import graph of production files: top folder → top folders it imports. */
function folderGraph(files: readonly SourceFile[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    if (isTest(file.path) || !file.path.includes("/")) continue;
    for (const target of file.imports) {
      const from = topFolder(file.path);
      const to = topFolder(target);
      if (from === to || !target.includes("/")) continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from)?.add(to);
    }
  }
  return graph;
}

/** The folder cycles (strongly connected components of more than one folder), each sorted. */
export function folderCycles(files: readonly SourceFile[]): string[][] {
  const graph = folderGraph(files);
  const nodes = new Set([...graph.keys(), ...[...graph.values()].flatMap((set) => [...set])]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;
  // Tarjan's algorithm, iterative over an explicit stack of frames.
  for (const start of nodes) {
    if (index.has(start)) continue;
    const frames: { node: string; next: string[] }[] = [];
    const enter = (node: string) => {
      index.set(node, counter);
      low.set(node, counter);
      counter++;
      stack.push(node);
      onStack.add(node);
      frames.push({ node, next: [...(graph.get(node) ?? [])] });
    };
    enter(start);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as { node: string; next: string[] };
      const target = frame.next.shift();
      if (target !== undefined) {
        if (!index.has(target)) enter(target);
        else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node) ?? 0, index.get(target) ?? 0));
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent !== undefined) {
        low.set(parent.node, Math.min(low.get(parent.node) ?? 0, low.get(frame.node) ?? 0));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop();
          if (member === undefined) break;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1) cycles.push(component.sort());
      }
    }
  }
  return cycles;
}

/**
 * Production imports that cross into another top folder without its door: the target must be
 * `<top>/mod.ts` or the `mod.ts` of a sub-folder (`toolsets/fs/mod.ts`).
 */
export function doorSkips(files: readonly SourceFile[]): string[] {
  const skips: string[] = [];
  for (const file of files) {
    if (isTest(file.path) || !file.path.includes("/")) continue;
    for (const target of file.imports) {
      if (topFolder(target) === topFolder(file.path) || !target.includes("/")) continue;
      if (nodePath.basename(target) !== "mod.ts") skips.push(`${file.path} → ${target}`);
    }
  }
  return skips;
}

/** Imports, from any file (tests included), of a `_` file of another folder. */
export function privateImports(files: readonly SourceFile[]): string[] {
  return files.flatMap((file) =>
    file.imports
      .filter((target) =>
        nodePath.basename(target).startsWith("_") && folderOf(target) !== folderOf(file.path)
      )
      .map((target) => `${file.path} → ${target}`)
  );
}

/** Production files (outside `testing/`) that import the test helpers of `testing/`. */
export function testingImports(files: readonly SourceFile[]): string[] {
  return files.flatMap((file) =>
    isTest(file.path) || topFolder(file.path) === "testing"
      ? []
      : file.imports.filter((target) => topFolder(target) === "testing").map((target) =>
        `${file.path} → ${target}`
      )
  );
}

/** Source files over {@linkcode MAX_LINES} that the exception list does not name. */
export function longFiles(files: readonly SourceFile[]): string[] {
  return files
    .filter((file) => !isTest(file.path) && file.lines > MAX_LINES && !(file.path in LONG_FILES))
    .map((file) => `${file.path} (${file.lines} lines)`);
}

const TREE = readTree(SRC);

Deno.test("src/ folders import each other in one direction only (no folder cycle)", () => {
  assert.deepEqual(folderCycles(TREE), []);
});

Deno.test("a cross-folder import of production code goes through the folder's mod.ts", () => {
  assert.deepEqual(doorSkips(TREE), []);
});

Deno.test("no file imports a _ file of another folder", () => {
  assert.deepEqual(privateImports(TREE), []);
});

Deno.test("production code never imports src/testing", () => {
  assert.deepEqual(testingImports(TREE), []);
});

Deno.test("no source file passes 400 lines unless the exception list names it with a reason", () => {
  assert.deepEqual(longFiles(TREE), []);
  for (const [path, reason] of Object.entries(LONG_FILES)) {
    assert.ok(reason.length > 0 && TREE.some((file) => file.path === path), path);
  }
});

Deno.test("the checks see each kind of violation in a fake tree (near miss: they are live)", () => {
  const fake: SourceFile[] = [
    { path: "a/mod.ts", lines: 10, imports: ["b/mod.ts"] },
    { path: "b/mod.ts", lines: 10, imports: ["a/x.ts"] },
    { path: "a/x.ts", lines: 401, imports: ["c/_private.ts", "testing/mod.ts"] },
    { path: "c/_private.ts", lines: 1, imports: [] },
    { path: "c/y_test.ts", lines: 900, imports: ["a/x.ts", "testing/mod.ts"] },
  ];
  assert.deepEqual(folderCycles(fake), [["a", "b"]]);
  assert.deepEqual(doorSkips(fake), ["b/mod.ts → a/x.ts", "a/x.ts → c/_private.ts"]);
  assert.deepEqual(privateImports(fake), ["a/x.ts → c/_private.ts"]);
  assert.deepEqual(testingImports(fake), ["a/x.ts → testing/mod.ts"]);
  assert.deepEqual(longFiles(fake), ["a/x.ts (401 lines)"]);
});
