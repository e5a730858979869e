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
import { analyzeArgv, type ArgumentFinding, argumentValues } from "./argv_analysis.ts";
import { type AllowedProgram, matchProgram } from "./program_allowlist.ts";

/** The Agent Skills name rule (agentskills.io specification): lower-case words joined by hyphens. */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

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
 * execution (its arguments still are).
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
    },
  };
}

/**
 * Arguments that name paths are checked like the request's own paths, on every value they carry
 * ({@linkcode argumentValues}: operands, `--option=value`, a value attached in a short cluster such
 * as `-T/x` or `-cf/x`, dd-style `if=/x`). A value is a path when it is absolute, starts with `~`,
 * `./` or `../`, or contains a `/`; a `file:` URL (any case, any host form, percent-decoded) is
 * the path it names; `@/x` (curl's `-d @file`, response files) is `/x`. Other URLs are not paths.
 *
 * - A path that resolves (as text, from the working folder) outside every root, or into /proc,
 *   /sys or /dev: `argv:path-outside-roots` (`unchecked`).
 * - Else one inside a protected path (the runs folder, the config, skill folders, any `.git`):
 *   `argv:protected-path` (`file_write`).
 * - Else one the guard calls sensitive (`.env`, `*.pem`, `~/.ssh/...`; a bare file name counts
 *   too, unless it holds blanks or glob characters): `argv:sensitive-path` (`sensitive`).
 *
 * At most one finding per argument and rule. Checked as spelled, not followed through links: this
 * gives the policy meaning; the mount profile decides what a command can reach.
 *
 * @example
 * ```ts
 * import { PathGuard } from "../sandbox/path_guard.ts";
 * import { pathArgumentFindings } from "./resolve_command.ts";
 * const guard = await PathGuard.create({ workspace: Deno.cwd(), home: null });
 * pathArgumentFindings(["curl", "file:///etc/passwd"], Deno.cwd(), guard)[0]?.id;
 * // "argv:path-outside-roots"
 * ```
 */
export function pathArgumentFindings(
  argv: readonly string[],
  cwd: string,
  guard: PathGuard,
): ArgumentFinding[] {
  const findings: ArgumentFinding[] = [];
  const seen = new Set<string>();
  for (const { index, value } of argumentValues(argv)) {
    const argument = argv[index] ?? "";
    const found = valueFinding(value, cwd, guard);
    if (found === null || seen.has(`${index}:${found.id}`)) continue;
    seen.add(`${index}:${found.id}`);
    findings.push({ ...found, index, argument });
  }
  return findings;
}

/** The finding one value gives, without its index and argument, or null. */
function valueFinding(
  value: string,
  cwd: string,
  guard: PathGuard,
): Omit<ArgumentFinding, "index" | "argument"> | null {
  const spelled = spelledPath(value);
  if (spelled === null) return null;
  const named = spelled.url || spelled.path !== value
    ? `"${printable(value)}" (the path "${printable(spelled.path)}")`
    : `"${printable(value)}"`;
  const expanded = spelled.path === "~" || spelled.path.startsWith("~/")
    ? (guard.home === null ? null : guard.home + spelled.path.slice(1))
    : spelled.path.startsWith("~")
    ? null
    : spelled.path;
  const absolute = expanded === null ? null : nodePath.resolve(cwd, expanded);
  if (spelled.url || looksLikePath(spelled.path)) {
    if (
      absolute === null || !guard.allReadRoots.some((root) => isWithin(absolute, root)) ||
      isSpecial(absolute)
    ) {
      return {
        id: "argv:path-outside-roots",
        kind: "unchecked",
        reason: `it names ${named}, outside the workspace and every root`,
      };
    }
    const protectedPath = guard.protectedMatch(absolute);
    if (protectedPath !== null) {
      return {
        id: "argv:protected-path",
        kind: "file_write",
        reason: `it names ${named}, inside the protected path "${protectedPath}"`,
      };
    }
  }
  const pattern = absolute === null || /[\s*?[]/.test(spelled.path)
    ? null
    : guard.sensitiveMatch(absolute);
  if (pattern === null) return null;
  return {
    id: "argv:sensitive-path",
    kind: "sensitive",
    reason: `it names ${named}, which matches the sensitive pattern "${pattern}"`,
    ...(absolute === null ? {} : { path: absolute }),
  };
}

/**
 * The path a value spells: a `file:` URL's path (host dropped, percent-decoded), the file after
 * `@`, or the value itself; null for another URL or an empty value.
 */
function spelledPath(value: string): { path: string; url: boolean } | null {
  if (/^file:/i.test(value)) {
    // RFC 8089: file:/path, file:///path, file://host/path; the query and fragment are no part.
    let path = value.slice("file:".length).replace(/[?#].*$/s, "");
    if (path.startsWith("//")) {
      const slash = path.indexOf("/", 2);
      path = slash === -1 ? "/" : path.slice(slash);
    }
    return { path: decoded(path === "" ? "/" : path), url: true };
  }
  if (value === "" || /^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return null;
  if (value.startsWith("@") && looksLikePath(value.slice(1))) {
    return { path: value.slice(1), url: false };
  }
  return { path: value, url: false };
}

/** `%2e%2e` → `..`, as curl and git read a file URL; the text as given when it does not decode. */
function decoded(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function looksLikePath(value: string): boolean {
  return value.startsWith("/") || value.startsWith("~") || value.startsWith("./") ||
    value.startsWith("../") || value === ".." || value.includes("/");
}

function isSpecial(path: string): boolean {
  return ["/proc", "/sys", "/dev"].some((special) => isWithin(path, special));
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
  if (!SKILL_NAME_PATTERN.test(skill) || skill.length > 64) {
    return refuse(
      "invalid_arguments",
      `Cannot run a script of skill "${
        printable(skill)
      }": skill ids are 1-64 lower-case letters, ` +
        `digits and single hyphens`,
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
