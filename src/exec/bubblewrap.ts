/**
 * Bubblewrap (`bwrap`) command lines that confine a command: read-only system, writable paths
 * only where asked, no network unless asked, its own PID namespace and session.
 *
 * @module
 */

import { isAbsolute, normalize } from "node:path";
import { hostSystemMounts, type SystemMount } from "./system_mounts.ts";

/** How to confine a command with bubblewrap: the mount profile and the namespaces. */
export interface BwrapPlan {
  /** Tells this plan from `{ mode: "none" }`. */
  mode: "bwrap";
  /** Absolute path of the `bwrap` program, e.g. `/usr/bin/bwrap`. */
  bwrapPath: string;
  /**
   * The host's system folders and `/etc` entries, read-only (see `system_mounts.ts`). Nothing
   * else of the host exists inside besides the paths below.
   */
  system: readonly SystemMount[];
  /** Absolute paths bound read-write (they must exist), e.g. the workspace and the run folder. */
  writablePaths: string[];
  /**
   * Absolute paths bound read-only (they must exist): read roots, the programs' own folders,
   * skill folders, and protected paths inside a writable path (`.git`, the config, the runs
   * folder), which then stay read-only there. Default: none.
   */
  readablePaths?: string[];
  /**
   * Existing files and folders replaced by an empty read-only one (sensitive files such as
   * `.env` and keys inside a root). Default: none.
   */
  maskedPaths?: { path: string; type: "file" | "directory" }[];
  /**
   * Existing files shown read-only with another file's content (`source`, a file of the run):
   * a repository's `.git/config` without credentials. Default: none.
   */
  replacedFiles?: { path: string; source: string }[];
  /** True to keep the host network; false leaves only an isolated loopback. */
  network: boolean;
  /**
   * Most processes the command's user may run inside the sandbox (`RLIMIT_NPROC`, set by
   * `prlimitPath` inside the user namespace, so it counts only the sandbox's processes). Linux
   * does not enforce it for root. Default: no limit.
   */
  processLimit?: { prlimitPath: string; max: number };
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
 * Builds the arguments of `bwrap` (not including the program path of `bwrap` itself). The new
 * root is an empty tmpfs; on it:
 *
 * 1. the system mounts, read-only (`--ro-bind` or `--symlink`), then `--dev /dev` (null, zero,
 *    random, tty…), `--proc /proc` (of the sandbox's own PID namespace), `--tmpfs /tmp`;
 * 2. `--bind p p` for each writable path, `home` and `tmpDir`, `--ro-bind p p` for each readable
 *    path, parents before children (so a nested bind wins) and, for one path, read-only after
 *    read-write (so a protected path stays read-only);
 * 3. masks: `--ro-bind /dev/null f` over each masked file, `--tmpfs d` + `--remount-ro d` over
 *    each masked folder; then `--remount-ro /`, so nothing but the writable paths, `home`,
 *    `tmpDir` and `/tmp` can be written;
 * 4. `--unshare-all` (user, IPC, PID, network, UTS, cgroup namespaces), `--share-net` only when
 *    `network` is true, `--unshare-pid` (explicit), `--cap-drop ALL` (no capabilities even when
 *    started as root), `--new-session` (no terminal injection), `--die-with-parent`;
 * 5. `--chdir cwd` (bubblewrap then sets `PWD` to it), `--`, then `prlimit --nproc=N --` when a process limit is set, the program
 *    and its arguments.
 *
 * When the command's first process exits, bubblewrap's init ends the PID namespace, and the
 * kernel kills every process left in it: nothing started inside outlives the command.
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
 *   {
 *     mode: "bwrap",
 *     bwrapPath: "/usr/bin/bwrap",
 *     system: [{ kind: "ro-bind", path: "/usr", source: "/usr" }],
 *     writablePaths: ["/srv/work"],
 *     readablePaths: ["/srv/work/.git"],
 *     network: false,
 *   },
 *   { cwd: "/srv/work", program: "/usr/bin/git", args: ["status"] },
 * );
 * console.assert(args.join(" ").includes("--bind /srv/work /srv/work --ro-bind /srv/work/.git"));
 * console.assert(!args.join(" ").includes("--ro-bind / /"));
 * ```
 */
export function buildBwrapArgs(plan: BwrapPlan, target: BwrapTarget): string[] {
  const args: string[] = [];
  for (const mount of plan.system) {
    if (mount.kind === "symlink") {
      args.push("--symlink", mount.target, checkedPath("system path", mount.path));
    } else {
      args.push(
        "--ro-bind",
        checkedPath("system path", mount.source),
        checkedPath("system path", mount.path),
      );
    }
  }
  args.push("--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");

  const binds = new Map<string, "--bind" | "--ro-bind">();
  const writable = [...plan.writablePaths];
  if (target.home !== undefined) writable.push(target.home);
  if (target.tmpDir !== undefined) writable.push(target.tmpDir);
  for (const path of writable) binds.set(checkedPath("writable path", path), "--bind");
  for (const path of plan.readablePaths ?? []) {
    const checked = checkedPath("readable path", path);
    // Read-only wins over read-write for the same path: a protected path stays protected.
    binds.set(checked, "--ro-bind");
  }
  const ordered = [...binds.entries()].sort(([left], [right]) => depth(left) - depth(right));
  for (const [path, option] of ordered) args.push(option, path, path);
  const masks = [...(plan.maskedPaths ?? [])].sort((left, right) =>
    depth(left.path) - depth(right.path)
  );
  for (const mask of masks) {
    const path = checkedPath("masked path", mask.path);
    if (mask.type === "file") args.push("--ro-bind", "/dev/null", path);
    else args.push("--tmpfs", path, "--remount-ro", path);
  }
  for (const replaced of plan.replacedFiles ?? []) {
    args.push(
      "--ro-bind",
      checkedPath("replacement file", replaced.source),
      checkedPath("replaced path", replaced.path),
    );
  }

  // The new root itself (a tmpfs holding the mount points) is read-only too.
  args.push("--remount-ro", "/");
  args.push("--unshare-all");
  if (plan.network) args.push("--share-net");
  args.push("--unshare-pid", "--cap-drop", "ALL", "--new-session", "--die-with-parent");
  args.push("--chdir", checkedPath("working folder", target.cwd));
  args.push("--");
  if (plan.processLimit !== undefined) {
    const { prlimitPath, max } = plan.processLimit;
    if (!Number.isSafeInteger(max) || max < 1) {
      throw new TypeError(`Cannot build the bwrap command: the process limit "${max}" is not >= 1`);
    }
    args.push(checkedPath("prlimit path", prlimitPath), `--nproc=${max}`, "--");
  }
  args.push(checkedPath("program", target.program));
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
 * (the host's system mounts, `--dev`, `--proc`, `--tmpfs /tmp`, `--unshare-all`, `--cap-drop ALL`,
 * `--new-session`, `--die-with-parent`), with an empty environment and a
 * {@linkcode PROBE_TIMEOUT_MS} deadline. Namespaces may be forbidden (containers, a
 * `kernel.unprivileged_userns_clone` of 0, AppArmor), which this detects.
 *
 * Needs run permission for `bwrapPath` and read permission for the system folders (main thread).
 * On Ubuntu 24.04 (GitHub's runners) AppArmor forbids unprivileged user namespaces until a profile
 * for `/usr/bin/bwrap` allows `userns` or `kernel.apparmor_restrict_unprivileged_userns=0`: the
 * reason then says so.
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
    { mode: "bwrap", bwrapPath, system: hostSystemMounts(), writablePaths: [], network: false },
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
      }${namespaceHint(message)}`,
    };
  } catch (error: unknown) {
    return { usable: false, reason: `Cannot run "${bwrapPath}": ${reasonOf(error)}` };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The fix for the usual reason bubblewrap cannot start: user namespaces are forbidden (AppArmor on
 * Ubuntu 24.04, `kernel.unprivileged_userns_clone=0` on older Debian, or a container without them).
 */
function namespaceHint(message: string): string {
  if (!/uid map|namespace|Operation not permitted|Permission denied/i.test(message)) return "";
  return "; unprivileged user namespaces are not allowed here: on Ubuntu 24.04 load an AppArmor " +
    "profile for /usr/bin/bwrap that allows userns (or set " +
    "kernel.apparmor_restrict_unprivileged_userns=0), on Debian set " +
    "kernel.unprivileged_userns_clone=1, in a container allow user namespaces";
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
