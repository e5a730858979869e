/**
 * The host's system folders that a confined command sees, read-only: the programs and libraries
 * (`/usr`, `/bin`, `/sbin`, `/lib*`) and the few files of `/etc` that programs read to start
 * (the dynamic loader's cache, user and group names, time zone, TLS certificates, locale and
 * alternatives links). Nothing else of the host exists inside the sandbox: no home folders, no
 * `/var`, `/srv`, `/opt`, `/run`, `/mnt`, other repositories, or the rest of `/etc`.
 *
 * Computed once on the main thread (the tool Worker cannot look outside its roots) and handed to
 * the Worker as plain data.
 *
 * @module
 */

import * as nodePath from "node:path";

/** One system entry of the mount profile. */
export type SystemMount =
  /** Bind `source` (a real host path) read-only at `path`. */
  | { kind: "ro-bind"; path: string; source: string }
  /** A symbolic link `path` → `target` (merged-/usr systems: `/bin` → `usr/bin`). */
  | { kind: "symlink"; path: string; target: string };

/** Top-level folders of programs and libraries, bound read-only when they exist. */
export const SYSTEM_FOLDERS: readonly string[] = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
];

/**
 * Entries of `/etc` a program may need to start or to do its job offline, bound read-only when
 * they exist. Chosen from what glibc (`ld.so.cache`, `nsswitch.conf`, `passwd`, `group`,
 * `localtime`, `hosts`, `resolv.conf`, `gai.conf`), Debian's `alternatives` links, OpenSSL and
 * curl (`ssl/`, `ca-certificates`), `file` (`magic`) and locales read; shell start-up files,
 * credentials and service configs are left out.
 */
export const ETC_ENTRIES: readonly string[] = [
  "alternatives",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "passwd",
  "group",
  "nsswitch.conf",
  "localtime",
  "timezone",
  "ssl",
  "ca-certificates",
  "ca-certificates.conf",
  "pki",
  "crypto-policies",
  "mime.types",
  "magic",
  "magic.mime",
  "locale.alias",
  "locale.conf",
  "os-release",
  "debian_version",
  "hosts",
  "host.conf",
  "resolv.conf",
  "gai.conf",
  "services",
  "protocols",
  "terminfo",
];

/**
 * Looks at this host and lists its system mounts: each of {@linkcode SYSTEM_FOLDERS} that is a
 * folder (bound) or a symlink (recreated as the same link), then each of {@linkcode ETC_ENTRIES}
 * that exists (a link such as `/etc/resolv.conf` → `/run/...` is bound from its real path, so the
 * sandbox needs no `/run`). Missing entries are skipped.
 *
 * Needs read permission for `/` (main thread).
 *
 * @param root Where the host file system starts (tests pass a fake tree). @default "/"
 * @returns The mounts, system folders first, in a stable order.
 * @example
 * ```ts
 * import { hostSystemMounts } from "./system_mounts.ts";
 * const mounts = hostSystemMounts();
 * console.assert(mounts.some((mount) => mount.path === "/usr"));
 * ```
 */
export function hostSystemMounts(root = "/"): SystemMount[] {
  const mounts: SystemMount[] = [];
  const hostPath = (path: string) => nodePath.join(root, path);
  for (const path of SYSTEM_FOLDERS) {
    const info = lstatOrNull(hostPath(path));
    if (info === null) continue;
    if (info.isSymlink) {
      const target = readLinkOrNull(hostPath(path));
      if (target !== null) mounts.push({ kind: "symlink", path, target });
    } else if (info.isDirectory) {
      mounts.push({ kind: "ro-bind", path, source: hostPath(path) });
    }
  }
  for (const name of ETC_ENTRIES) {
    const path = `/etc/${name}`;
    const info = lstatOrNull(hostPath(path));
    if (info === null) continue;
    if (!info.isSymlink) {
      mounts.push({ kind: "ro-bind", path, source: hostPath(path) });
      continue;
    }
    // A link into /etc/alternatives or /run: bind what it points at, when that exists.
    const real = realPathOrNull(hostPath(path));
    if (real !== null) mounts.push({ kind: "ro-bind", path, source: real });
  }
  return mounts;
}

function lstatOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch {
    return null;
  }
}

function readLinkOrNull(path: string): string | null {
  try {
    return Deno.readLinkSync(path);
  } catch {
    return null;
  }
}

function realPathOrNull(path: string): string | null {
  try {
    return Deno.realPathSync(path);
  } catch {
    return null;
  }
}
