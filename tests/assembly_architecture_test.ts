/**
 * One way to assemble a run (issue 26 §3, docs/ARCHITECTURE.md "Assembling a run"): production
 * code opens a run's session (`openRunSession`) and runs an agent loop (`runAgent`) only in
 * `src/assembly/`; every surface that runs something — `run`, `resume`, child agents, worker
 * steps, `mcp`, `call` — goes through `assembleRun`. Checked on the real tree and, as a near miss,
 * on a fake tree where a surface opens a session itself.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Where a run is assembled: the only production files that may call these. */
const ASSEMBLY = "src/assembly/";

/** The calls that put a run together, each allowed only in {@linkcode ASSEMBLY}. */
const ASSEMBLY_CALLS = ["openRunSession(", "runAgent("] as const;

/** Where each is defined (its own definition is not a call). */
const DEFINED_IN: Readonly<Record<string, string>> = {
  "openRunSession(": "src/session/open_run_session.ts",
  "runAgent(": "src/agent/agent_loop.ts",
};

/** The surfaces that run something, and that each assembles its run with `assembleRun(`. */
export const SURFACES: readonly string[] = [
  "src/cli/run_command.ts",
  "src/cli/mcp_command.ts",
  "src/cli/call_command.ts",
  "src/child_agents/run_child.ts",
  "src/child_agents/task_step_run.ts",
];

interface SourceText {
  path: string;
  text: string;
}

/** Production `.ts` files under `src/` (tests, test helpers and `src/testing/` left out). */
function productionFiles(): SourceText[] {
  const files: SourceText[] = [];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      const path = nodePath.join(dir, entry.name);
      const relative = nodePath.relative(ROOT, path);
      if (entry.isDirectory) {
        if (relative !== "src/testing") walk(path);
      } else if (
        entry.isFile && path.endsWith(".ts") && !path.endsWith("_test.ts") &&
        !/^_.*(test|fixture|probe)/.test(entry.name)
      ) {
        files.push({ path: relative, text: Deno.readTextFileSync(path) });
      }
    }
  };
  walk(nodePath.join(ROOT, "src"));
  return files;
}

/** The code of a file without its comments (a docstring's example is not a call). */
function code(text: string): string {
  return text.replaceAll(/\/\*[\s\S]*?\*\//g, "").replaceAll(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

/** Each call of {@linkcode ASSEMBLY_CALLS} outside the assembly, as `file: call`. */
export function strayAssemblies(files: readonly SourceText[]): string[] {
  const stray: string[] = [];
  for (const file of files) {
    if (file.path.startsWith(ASSEMBLY)) continue;
    const body = code(file.text);
    for (const call of ASSEMBLY_CALLS) {
      const definition = new RegExp(`function\\s+${call.slice(0, -1)}\\(`, "g");
      const count = body.split(call).length - 1 -
        (DEFINED_IN[call] === file.path ? (body.match(definition) ?? []).length : 0);
      if (count > 0) stray.push(`${file.path}: ${call}`);
    }
  }
  return stray;
}

/** Each surface of {@linkcode SURFACES} that does not call `assembleRun(`. */
export function surfacesOutsideAssembly(
  files: readonly SourceText[],
  surfaces: readonly string[],
): string[] {
  return surfaces.filter((path) => {
    const file = files.find((candidate) => candidate.path === path);
    return file === undefined || !code(file.text).includes("assembleRun(");
  });
}

Deno.test("only src/assembly/ opens a run's session or runs an agent loop", () => {
  assert.deepEqual(strayAssemblies(productionFiles()), []);
});

Deno.test("run, resume, child agents, worker steps, mcp and call each assemble with assembleRun", () => {
  const files = productionFiles();
  assert.deepEqual(surfacesOutsideAssembly(files, SURFACES), []);
  // resume goes through run's assembly (runInBoundary), not a way of its own.
  const resume = files.find((file) => file.path === "src/cli/resume_command.ts");
  assert.ok(resume !== undefined && code(resume.text).includes("runInBoundary("));
});

Deno.test("near miss: a surface that opens a session or runs a loop itself is named", () => {
  const fake: SourceText[] = [
    {
      path: "src/cli/rogue_command.ts",
      text: "const session = await openRunSession(config, {});\nawait runAgent({});",
    },
    {
      path: "src/child_agents/run_child.ts",
      // A call in a comment or a docstring's example is not a call.
      text: "/** ```ts\n * await openRunSession(config)\n * ``` */\n// runAgent(x)\nconst a = 1;",
    },
    { path: "src/assembly/assemble_run.ts", text: "await openRunSession(config, options);" },
    {
      path: "src/session/open_run_session.ts",
      text: "export async function openRunSession(config) {}",
    },
  ];
  assert.deepEqual(strayAssemblies(fake), [
    "src/cli/rogue_command.ts: openRunSession(",
    "src/cli/rogue_command.ts: runAgent(",
  ]);
  assert.deepEqual(
    surfacesOutsideAssembly(fake, ["src/child_agents/run_child.ts", "src/cli/missing.ts"]),
    ["src/child_agents/run_child.ts", "src/cli/missing.ts"],
  );
});
