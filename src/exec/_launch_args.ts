/**
 * The checks of a command spec, and the `setsid` command line built from it.
 *
 * @module
 */

import { isAbsolute, relative, resolve, sep } from "node:path";
import { buildBwrapArgs } from "./bubblewrap.ts";
import type { CommandSpec, IsolationPlan } from "./spawn_confined.ts";

/** Longest `setTimeout` delay, in milliseconds. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Checks a {@linkcode CommandSpec} and builds the arguments of `setsid`:
 * `-- <program> args…`, or `-- <bwrap> <bwrap args> -- <program> args…`.
 *
 * @throws {TypeError} When a path is not absolute, or an argument, a name or a value is malformed.
 * @throws {RangeError} When a time or a limit is out of range, or `artifactsDir` is not inside
 *   `runDir`.
 */
export function launchArgs(spec: CommandSpec): string[] {
  const paths: [string, string][] = [
    ["program", spec.program],
    ["working folder", spec.cwd],
    ["setsid path", spec.setsidPath],
    ["kill path", spec.killPath],
  ];
  for (const [what, path] of paths) {
    if (typeof path !== "string" || !isAbsolute(path) || path.includes("\0")) {
      throw new TypeError(`Cannot run a command: the ${what} "${path}" is not an absolute path`);
    }
  }
  if (
    !Array.isArray(spec.args) ||
    spec.args.some((arg) => typeof arg !== "string" || arg.includes("\0"))
  ) {
    throw new TypeError(
      `Cannot run "${spec.program}": every argument must be a string without NUL`,
    );
  }
  for (const [name, value] of Object.entries(spec.env)) {
    if (
      name === "" || name.includes("=") || name.includes("\0") || typeof value !== "string" ||
      value.includes("\0")
    ) {
      throw new TypeError(
        `Cannot run "${spec.program}": the environment variable "${name}" is malformed`,
      );
    }
  }
  checkMilliseconds("timeoutMs", spec.timeoutMs, 1);
  if (spec.killGraceMs !== undefined) checkMilliseconds("killGraceMs", spec.killGraceMs, 0);
  const sizes: [string, number][] = [
    ["stdoutLimitBytes", spec.stdoutLimitBytes],
    ["stderrLimitBytes", spec.stderrLimitBytes],
    ["artifact.maxBytes", spec.artifact?.maxBytes ?? 0],
  ];
  for (const [name, value] of sizes) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(
        `Cannot run a command: ${name} must be a non-negative integer, got "${value}"`,
      );
    }
  }
  if (spec.artifact !== null) {
    const { artifactsDir, runDir } = spec.artifact;
    if (!isAbsolute(artifactsDir) || !isAbsolute(runDir)) {
      throw new TypeError(
        `Cannot run a command: the artifact folders "${artifactsDir}" and "${runDir}" must be absolute`,
      );
    }
    const inside = relative(resolve(runDir), resolve(artifactsDir));
    if (inside === "" || isAbsolute(inside) || inside.split(sep)[0] === "..") {
      throw new RangeError(
        `Cannot run a command: the artifacts folder "${artifactsDir}" must be inside the run folder "${runDir}"`,
      );
    }
  }
  return setsidArguments(spec.isolation, spec);
}

/**
 * The arguments of `setsid` that start `target` under `isolation`: `-- <program> args…`, or
 * `-- <bwrap> <bwrap args> -- <program> args…` with an absolute `HOME` and `TMPDIR` of
 * `target.env` bound read-write (the domain's private folders).
 *
 * @throws {TypeError} When the bwrap path is not absolute, or a path of the plan is malformed.
 */
export function setsidArguments(
  isolation: IsolationPlan,
  target: {
    program: string;
    args: readonly string[];
    cwd: string;
    env: Readonly<Record<string, string>>;
  },
): string[] {
  if (isolation.mode === "none") return ["--", target.program, ...target.args];
  if (!isAbsolute(isolation.bwrapPath)) {
    throw new TypeError(
      `Cannot run a command: the bwrap path "${isolation.bwrapPath}" is not an absolute path`,
    );
  }
  const home = target.env.HOME;
  const tmpDir = target.env.TMPDIR;
  return [
    "--",
    isolation.bwrapPath,
    ...buildBwrapArgs(isolation, {
      cwd: target.cwd,
      program: target.program,
      args: target.args,
      ...(home !== undefined && isAbsolute(home) ? { home } : {}),
      ...(tmpDir !== undefined && isAbsolute(tmpDir) ? { tmpDir } : {}),
    }),
  ];
}

function checkMilliseconds(name: string, value: number, minimum: number): void {
  if (!Number.isFinite(value) || value < minimum || value > MAX_TIMER_MS) {
    throw new RangeError(
      `Cannot run a command: ${name} must be between ${minimum} and ${MAX_TIMER_MS} ms, got "${value}"`,
    );
  }
}
