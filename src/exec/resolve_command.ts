/**
 * Resolves what a command call will run, before it runs: the allowlisted program, the working
 * folder through the path guard, the argument findings, and for skill scripts the script file and
 * its interpreter. The main thread decides on the result; the Worker resolves again before it
 * spawns (never trusting the first answer).
 *
 * @module
 */

import * as nodePath from "node:path";
import type { CommandScope } from "../policy/mod.ts";
import { isWithin, type PathGuard, printable } from "../sandbox/mod.ts";
import type { ToolError } from "../result/mod.ts";
import { analyzeArgv } from "./argv_analysis.ts";
import { isKnownSafeCommand } from "./known_safe_command.ts";
import { pathArgumentFindings } from "./path_argument_findings.ts";
import { type AllowedProgram, matchProgram } from "./program_allowlist.ts";
import { skillNameProblem } from "./skill_name.ts";

export { pathArgumentFindings };

/** Longest shebang line read, in bytes. */
const MAX_SHEBANG_BYTES = 256;

/** A resolved command: the scope the policy decides on, or why it cannot run. */
export type CommandResolution =
  | { ok: true; command: CommandScope }
  | { ok: false; error: ToolError };

function refuse(
  type: ToolError["type"],
  message: string,
  details: Record<string, unknown> = {},
): { ok: false; error: ToolError } {
  return { ok: false, error: { type, message, details } };
}

/**
 * Resolves `argv` run in `cwd`: argv[0] must equal an allowlisted name or its resolved path
 * exactly (no PATH lookup from the request), `cwd` must be a folder the guard accepts for listing.
 * With `declared`, the program comes from a tool definition and is not judged as unrestricted
 * execution (its arguments still are); without it the scope says whether the argv is known-safe
 * (`readOnly`).
 *
 * @returns the scope, or `permission_denied` (program not allowlisted, with rule
 * `sandbox:command-allowlist`), `invalid_arguments` (empty argv, NUL), or the guard's refusal.
 */
export async function resolveCommand(
  argv: readonly string[],
  cwd: string | undefined,
  guard: PathGuard,
  programs: readonly AllowedProgram[],
  options: { declared?: boolean } = {},
): Promise<CommandResolution> {
  const first = argv[0];
  if (first === undefined || first === "") {
    return refuse("invalid_arguments", "Cannot run a command: argv is empty");
  }
  if (argv.some((argument) => argument.includes("\0"))) {
    return refuse("invalid_arguments", "Cannot run a command: an argument contains a NUL byte");
  }
  const program = matchProgram(first, programs);
  if (program === null) {
    const names = programs.map((allowed) => allowed.name).join(", ") || "none";
    return refuse(
      "permission_denied",
      `Cannot run "${
        printable(first)
      }": it is not an allowlisted program (allowlisted: ${names}); ` +
        `add it to "commands" in the config to allow it`,
      { rule: "sandbox:command-allowlist", layer: "sandbox", program: first },
    );
  }
  const folder = await resolveWorkingFolder(cwd ?? ".", guard);
  if (!folder.ok) return folder;
  return {
    ok: true,
    command: {
      program: program.name,
      path: program.path,
      argv: [...argv],
      cwd: folder.path,
      findings: [
        ...findingsFor(program, argv).filter((finding) =>
          !(options.declared && finding.kind === "unrestricted_execution" && finding.index === 0)
        ),
        ...pathArgumentFindings(argv, folder.path.real, guard),
      ],
      // A program a tool file fixed is the file's; an argv the request chose is judged here.
      ...(options.declared ? {} : { readOnly: knownSafe(program, argv) }),
    },
  };
}

/**
 * Known-safe by the program as named and as it really is (an `ls` that resolves to busybox is
 * not `ls`).
 */
function knownSafe(program: AllowedProgram, argv: readonly string[]): boolean {
  return isKnownSafeCommand([program.name, ...argv.slice(1)]) &&
    isKnownSafeCommand([program.path, ...argv.slice(1)]);
}

/** Options of {@linkcode resolveScript}. */
export interface ScriptResolutionOptions {
  guard: PathGuard;
  /** Interpreters (and any allowlisted program) a script may name. */
  programs: readonly AllowedProgram[];
  /** Extension → program name, for scripts without a shebang. */
  interpreters: Readonly<Record<string, string>>;
  /** Absolute real skill folders, searched in order. */
  skillDirs: readonly string[];
  /** The run's workspace/ folder: scripts run there. */
  runWorkspace: string;
  /**
   * Commands can write the write roots freely (isolation "none"): then a script inside a write root
   * is refused even in a protected skill folder, since an allowlisted program could rewrite it.
   * Under bubblewrap skill folders are bound read-only. @default true
   */
  commandsWriteFreely?: boolean;
}

/**
 * Resolves a skill script: the skill id must follow the Agent Skills name rule, the script must
 * resolve (realpath) to a regular file inside `<skill dir>/<skill>/scripts/`, never in a write
 * root unless protected (the agent could otherwise write the script it then runs), and name an allowlisted
 * interpreter by its shebang or its extension. The command runs in the run's workspace/ folder.
 * Scripts get no program findings (their code is fixed by the skill), only path findings on the
 * arguments the request passes.
 */
export async function resolveScript(
  request: { skill: string; script: string; args: readonly string[] },
  options: ScriptResolutionOptions,
): Promise<CommandResolution> {
  const { skill, script, args } = request;
  const nameProblem = skillNameProblem(skill);
  if (nameProblem !== null) {
    return refuse(
      "invalid_arguments",
      `Cannot run a script of skill "${printable(skill)}": a skill id is a skill name, not a ` +
        `path: ${nameProblem}`,
    );
  }
  if (script === "" || script.includes("\0") || nodePath.isAbsolute(script)) {
    return refuse(
      "path_outside_sandbox",
      `Cannot run script "${printable(script)}" of skill "${skill}": name a file inside the ` +
        `skill's scripts/ folder, relative to it`,
    );
  }
  if (args.some((argument) => argument.includes("\0"))) {
    return refuse(
      "invalid_arguments",
      `Cannot run script "${script}": an argument contains a NUL byte`,
    );
  }
  let scriptsDir: string | null = null;
  for (const dir of options.skillDirs) {
    const candidate = await realOrNull(nodePath.join(dir, skill, "scripts"));
    if (candidate !== null && isWithin(candidate, dir)) {
      scriptsDir = candidate;
      break;
    }
  }
  if (scriptsDir === null) {
    return refuse(
      "file_not_found",
      `Cannot run a script of skill "${skill}": it has no scripts/ folder`,
    );
  }
  const real = await realOrNull(nodePath.join(scriptsDir, script));
  if (real === null || !isWithin(real, scriptsDir) || real === scriptsDir) {
    return refuse(
      real === null ? "file_not_found" : "path_outside_sandbox",
      real === null
        ? `Cannot run script "${printable(script)}" of skill "${skill}": it does not exist`
        : `Cannot run script "${printable(script)}" of skill "${skill}": it resolves outside the ` +
          `skill's scripts/ folder`,
    );
  }
  const stat = await Deno.stat(real);
  if (!stat.isFile) {
    return refuse(
      "not_a_regular_file",
      `Cannot run script "${script}" of skill "${skill}": it is not a regular file`,
    );
  }
  // A script the agent could have written is refused: one in a write root, unless it lies in a
  // protected skill folder AND commands run under bubblewrap (which binds skill folders read-only;
  // without it an allowlisted program, even git through its index, could rewrite the script).
  const inWriteRoot = options.guard.allWriteRoots.some((root) => isWithin(real, root));
  const shielded = options.guard.protectedMatch(real) !== null &&
    options.commandsWriteFreely === false;
  if (inWriteRoot && !shielded) {
    return refuse(
      "permission_denied",
      `Cannot run script "${script}" of skill "${skill}": it lies in a write root, where the agent ` +
        `could have written it; keep skills outside the workspace, or run commands under bubblewrap ` +
        `("sandbox.command_isolation": "bwrap"), which keeps skill folders read-only`,
      { rule: "sandbox:script-in-write-root", layer: "sandbox" },
    );
  }
  const interpreterName = (await shebangProgram(real)) ??
    options.interpreters[nodePath.extname(real)] ?? null;
  if (interpreterName === null) {
    return refuse(
      "invalid_arguments",
      `Cannot run script "${script}" of skill "${skill}": it has no shebang and its extension ` +
        `"${nodePath.extname(real)}" is not in "tools.interpreters"`,
    );
  }
  const interpreter = matchProgram(interpreterName, options.programs) ??
    options.programs.find((program) => program.name === nodePath.basename(interpreterName)) ?? null;
  if (interpreter === null) {
    return refuse(
      "permission_denied",
      `Cannot run script "${script}" of skill "${skill}": its interpreter "${interpreterName}" is ` +
        `not allowlisted; add it to "commands" or "tools.interpreters"`,
      { rule: "sandbox:command-allowlist", layer: "sandbox", program: interpreterName },
    );
  }
  const folder = await resolveWorkingFolder(options.runWorkspace, options.guard);
  if (!folder.ok) return folder;
  return {
    ok: true,
    command: {
      program: interpreter.name,
      path: interpreter.path,
      argv: [interpreter.path, real, ...args],
      cwd: folder.path,
      // The script's code is fixed by the skill; its arguments come from the request.
      findings: pathArgumentFindings([interpreter.path, ...args], folder.path.real, options.guard)
        .map((finding) => ({ ...finding, index: finding.index + 1 })),
    },
  };
}

/**
 * Findings for the program as named and as it really is: an allowlisted `ls` that resolves to
 * `/bin/busybox` is a multi-call binary that runs `sh` when asked (`["ls", "sh", "-c", …]`).
 */
function findingsFor(program: AllowedProgram, argv: readonly string[]) {
  const named = analyzeArgv([program.name, ...argv.slice(1)]);
  if (nodePath.basename(program.path) === nodePath.basename(program.name)) return named;
  const real = analyzeArgv([program.path, ...argv.slice(1)]);
  const seen = new Set(named.map((finding) => `${finding.id}@${finding.index}`));
  return [...named, ...real.filter((finding) => !seen.has(`${finding.id}@${finding.index}`))];
}

async function resolveWorkingFolder(cwd: string, guard: PathGuard) {
  const check = await guard.check(cwd, "list");
  if (!check.ok) return { ok: false as const, error: check.error };
  if (check.path.type !== "directory") {
    return refuse(
      "not_a_regular_file",
      `Cannot run a command in "${check.path.display}": it is not a folder`,
    );
  }
  return { ok: true as const, path: check.path };
}

/**
 * The program a shebang names: `#!/bin/sh` → `/bin/sh`; `#!/usr/bin/env python3` → `python3`
 * (env's own options are refused: `env -S` would take a command line). Null without a shebang.
 */
export async function shebangProgram(path: string): Promise<string | null> {
  const file = await Deno.open(path, { read: true });
  try {
    const buffer = new Uint8Array(MAX_SHEBANG_BYTES);
    const read = await file.read(buffer);
    if (read === null) return null;
    const text = new TextDecoder().decode(buffer.subarray(0, read));
    if (!text.startsWith("#!")) return null;
    const words = (text.slice(2).split("\n", 1)[0] ?? "").trim().split(/\s+/);
    const [first, second] = words;
    if (first === undefined || first === "") return null;
    if (nodePath.basename(first) === "env") {
      return second !== undefined && !second.startsWith("-") ? second : null;
    }
    return first;
  } finally {
    file.close();
  }
}

async function realOrNull(path: string): Promise<string | null> {
  try {
    return await Deno.realPath(path);
  } catch {
    return null;
  }
}
