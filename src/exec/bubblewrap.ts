/**
 * Bubblewrap (`bwrap`) command lines that confine a command: read-only system, writable paths
 * only where asked, no network unless asked, its own PID namespace and session.
 *
 * @module
 */

import { isAbsolute, normalize } from "node:path";

/** How to confine a command with bubblewrap. */
export interface BwrapPlan {
  /** Tells this plan from `{ mode: "none" }`. */
  mode: "bwrap";
  /** Absolute path of the `bwrap` program, e.g. `/usr/bin/bwrap`. */
  bwrapPath: string;
  /** Absolute paths bound read-write (they must exist), e.g. the workspace and the run folder. */
  writablePaths: string[];
  /**
   * Absolute paths bound read-only on top of the rest (they must exist): needed only under
   * `/tmp`, which is otherwise an empty tmpfs, or inside a writable path to make part of it
   * read-only. Default: none.
   */
  readablePaths?: string[];
  /**
   * Absolute folders replaced by an empty tmpfs (the runtime user's home: `~/.ssh`, `~/.aws` and
   * the rest stay out of sight); writable and readable paths inside them are bound again on top.
   * Default: none.
   */
  hiddenPaths?: string[];
  /** True to keep the host network; false leaves only an isolated loopback. */
  network: boolean;
}

/** What to run inside the sandbox. */
export interface BwrapTarget {
  /** Absolute working folder inside the sandbox; must be visible there. */
  cwd: string;
  /** Absolute path of the program. */
  program: string;
  /** argv[1..], passed as separate elements. */
  args: readonly string[];
  /** The child's `HOME` when it is a run-private folder: bound read-write. Default: not bound. */
  home?: string;
  /** The child's `TMPDIR` when it is a run-private folder: bound read-write. Default: not bound. */
  tmpDir?: string;
}

/**
 * Builds the arguments of `bwrap` (not including the program path of `bwrap` itself):
 *
 * 1. `--ro-bind / /`, `--dev /dev`, `--proc /proc`, `--tmpfs /tmp`: the host file system read-only,
 *    a minimal `/dev`, a `/proc` of the sandbox's own PID namespace, an empty `/tmp`;
 * 2. `--ro-bind p p` for each readable path and `--bind p p` for each writable path, `home` and
 *    `tmpDir`, after `/tmp` (so that a path under `/tmp` stays visible) and parents before children
 *    (so a nested bind wins); a path both readable and writable is writable;
 * 3. `--unshare-all` (user, IPC, PID, network, UTS, cgroup namespaces), `--share-net` only when
 *    `network` is true, `--unshare-pid` (already implied; kept explicit), `--cap-drop ALL` (no
 *    capabilities even when started as root), `--new-session` (no terminal injection),
 *    `--die-with-parent` (the sandbox dies with its parent);
 * 4. `--chdir cwd`, `--`, the program and its arguments.
 *
 * The environment is not set here: pass it to the spawn of `bwrap`, which hands it on.
 *
 * @param plan The confinement; see {@linkcode BwrapPlan}.
 * @param target The command; see {@linkcode BwrapTarget}.
 * @returns The argument list for `bwrap`.
 * @throws {TypeError} When a path is not absolute or contains a NUL character.
 * @example
 * ```ts
 * import { buildBwrapArgs } from "./bubblewrap.ts";
 * const args = buildBwrapArgs(
 *   { mode: "bwrap", bwrapPath: "/usr/bin/bwrap", writablePaths: ["/srv/work"], network: false },
 *   { cwd: "/srv/work", program: "/usr/bin/git", args: ["status"] },
 * );
 * console.assert(args.join(" ").includes("--tmpfs /tmp --bind /srv/work /srv/work"));
 * ```
 */
export function buildBwrapArgs(plan: BwrapPlan, target: BwrapTarget): string[] {
  const binds = new Map<string, "--bind" | "--ro-bind">();
  for (const path of plan.readablePaths ?? []) {
    binds.set(checkedPath("readable path", path), "--ro-bind");
  }
  const writable = [...plan.writablePaths];
  if (target.home !== undefined) writable.push(target.home);
  if (target.tmpDir !== undefined) writable.push(target.tmpDir);
  for (const path of writable) binds.set(checkedPath("writable path", path), "--bind");
  const ordered = [...binds.entries()].sort(([left], [right]) => depth(left) - depth(right));

  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  for (const path of plan.hiddenPaths ?? []) args.push("--tmpfs", checkedPath("hidden path", path));
  for (const [path, option] of ordered) args.push(option, path, path);
  args.push("--unshare-all");
  if (plan.network) args.push("--share-net");
  args.push("--unshare-pid", "--cap-drop", "ALL", "--new-session", "--die-with-parent");
  args.push("--chdir", checkedPath("working folder", target.cwd));
  args.push("--", checkedPath("program", target.program));
  for (const arg of target.args) {
    if (arg.includes("\0")) {
      throw new TypeError(`Cannot build the bwrap command: an argument contains a NUL character`);
    }
    args.push(arg);
  }
  return args;
}

/** Whether bubblewrap can confine commands on this machine, and why not. */
export type BubblewrapProbe = { usable: true } | { usable: false; reason: string };

/** How long {@linkcode probeBubblewrap} waits for `bwrap`, in milliseconds. */
export const PROBE_TIMEOUT_MS = 5000;

/**
 * Tells whether bubblewrap works here by running `true` in a sandbox built like a real one
 * (`--ro-bind / /`, `--dev`, `--proc`, `--tmpfs /tmp`, `--unshare-all`, `--cap-drop ALL`,
 * `--new-session`, `--die-with-parent`), with an empty environment and a
 * {@linkcode PROBE_TIMEOUT_MS} deadline. Namespaces may be forbidden (containers, a
 * `kernel.unprivileged_userns_clone` of 0, AppArmor), which this detects.
 *
 * Needs run permission for `bwrapPath` only.
 *
 * @param bwrapPath Absolute path of `bwrap`.
 * @returns `{ usable: true }`, or `{ usable: false, reason }` with a house-style sentence.
 *   Never throws.
 * @example
 * ```ts
 * import { probeBubblewrap } from "./bubblewrap.ts";
 * const probe = await probeBubblewrap("/usr/bin/bwrap");
 * if (!probe.usable) console.log(probe.reason);
 * ```
 */
export async function probeBubblewrap(bwrapPath: string): Promise<BubblewrapProbe> {
  if (!isAbsolute(bwrapPath)) {
    return { usable: false, reason: `Cannot use "${bwrapPath}": the path is not absolute` };
  }
  const args = buildBwrapArgs(
    { mode: "bwrap", bwrapPath, writablePaths: [], network: false },
    { cwd: "/", program: await truePath(), args: [] },
  );
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(bwrapPath, {
      args,
      clearEnv: true,
      env: {},
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
  } catch (error: unknown) {
    return { usable: false, reason: `Cannot start "${bwrapPath}": ${reasonOf(error)}` };
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  }, PROBE_TIMEOUT_MS);
  try {
    const output = await child.output();
    if (timedOut) {
      return {
        usable: false,
        reason: `Cannot run "${bwrapPath}": it took over ${PROBE_TIMEOUT_MS} ms to run "true"`,
      };
    }
    if (output.success) return { usable: true };
    const message = new TextDecoder().decode(output.stderr).trim().split("\n", 1)[0] ?? "";
    return {
      usable: false,
      reason: `Cannot run "${bwrapPath}": exit code "${output.code}"${
        message === "" ? "" : `, "${message.slice(0, 300)}"`
      }`,
    };
  } catch (error: unknown) {
    return { usable: false, reason: `Cannot run "${bwrapPath}": ${reasonOf(error)}` };
  } finally {
    clearTimeout(timer);
  }
}

/** `/usr/bin/true` or `/bin/true`, whichever exists (the latter when neither can be checked). */
async function truePath(): Promise<string> {
  for (const candidate of ["/usr/bin/true", "/bin/true"]) {
    try {
      if ((await Deno.stat(candidate)).isFile) return candidate;
    } catch {
      // Missing or not readable here: try the next.
    }
  }
  return "/bin/true";
}

function checkedPath(what: string, path: string): string {
  if (path.includes("\0")) {
    throw new TypeError(`Cannot build the bwrap command: the ${what} contains a NUL character`);
  }
  if (!isAbsolute(path)) {
    throw new TypeError(`Cannot build the bwrap command: the ${what} "${path}" is not absolute`);
  }
  const normalized = normalize(path);
  return normalized.length > 1 && normalized.endsWith("/") ? normalized.slice(0, -1) : normalized;
}

function depth(path: string): number {
  return path === "/" ? 0 : path.split("/").length - 1;
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.charAt(0).toLowerCase() + message.slice(1);
}
