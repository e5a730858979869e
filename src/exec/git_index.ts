/**
 * The paths a repository tracks, read from its index file (`.git/index`, gitformat-index(5)) by
 * this process: no git runs, so nothing a repository's config names (fsmonitor, hooks, filters)
 * can run. Versions 2, 3 and 4 (prefix-compressed names) are read; anything else (a missing or
 * damaged index, a split index, an unknown version) gives `null`, and the caller treats every
 * file as untracked (masked): the failure is on the closed side.
 *
 * @module
 */

/** The largest index read, in bytes (a repository of about a million files). */
export const MAX_INDEX_BYTES = 256 * 1024 * 1024;

const ENTRY_FIXED_BYTES = 62; // ctime, mtime, dev, ino, mode, uid, gid, size (4 bytes each), oid (20), flags (2)
const EXTENDED_FLAG = 0x4000;

/**
 * Reads the paths of a git index, relative to the work tree, `/`-separated.
 *
 * @param indexPath The index file, e.g. `<repository>/.git/index`.
 * @returns The tracked paths, or null when the file cannot be read or is not an index of version
 *   2 – 4 with SHA-1 object names (a SHA-256 repository, a split index, a damaged file)
 * @example
 * ```ts
 * import { readIndexPaths } from "./git_index.ts";
 * const folder = await Deno.makeTempDir();
 * await new Deno.Command("git", { args: ["init", "-q", folder] }).output();
 * await Deno.writeTextFile(`${folder}/test.key`, "key");
 * await new Deno.Command("git", { args: ["-C", folder, "add", "test.key"] }).output();
 * console.assert(readIndexPaths(`${folder}/.git/index`)?.has("test.key") === true);
 * await Deno.remove(folder, { recursive: true });
 * ```
 */
export function readIndexPaths(indexPath: string): Set<string> | null {
  let bytes: Uint8Array;
  try {
    const file = Deno.statSync(indexPath);
    if (!file.isFile || file.size > MAX_INDEX_BYTES) return null;
    bytes = Deno.readFileSync(indexPath);
  } catch {
    return null;
  }
  return parseIndex(bytes);
}

/** Parses an index held in memory; see {@linkcode readIndexPaths}. */
export function parseIndex(bytes: Uint8Array): Set<string> | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 12 || new TextDecoder().decode(bytes.subarray(0, 4)) !== "DIRC") return null;
  const version = view.getUint32(4);
  if (version < 2 || version > 4) return null;
  const count = view.getUint32(8);
  const decoder = new TextDecoder("utf-8", { fatal: false });
  const paths = new Set<string>();
  let offset = 12;
  let previous: Uint8Array = new Uint8Array(0);
  // The trailing checksum (20 bytes) is never an entry.
  const end = bytes.length - 20;
  for (let index = 0; index < count; index++) {
    const start = offset;
    if (offset + ENTRY_FIXED_BYTES > end) return null;
    const flags = view.getUint16(offset + 60);
    offset += ENTRY_FIXED_BYTES;
    if ((flags & EXTENDED_FLAG) !== 0) {
      if (version < 3) return null;
      offset += 2;
    }
    let name: Uint8Array;
    if (version === 4) {
      // A varint (offset encoding of gitformat-index(5)): bytes to drop from the previous name.
      let strip = 0;
      let byte: number;
      let guard = 0;
      do {
        if (offset >= end || guard++ > 8) return null;
        byte = bytes[offset++] as number;
        strip = guard === 1 ? byte & 0x7f : ((strip + 1) << 7) | (byte & 0x7f);
      } while ((byte & 0x80) !== 0);
      if (strip > previous.length) return null;
      const nul = bytes.indexOf(0, offset);
      if (nul < 0 || nul >= end) return null;
      const suffix = bytes.subarray(offset, nul);
      name = new Uint8Array(previous.length - strip + suffix.length);
      name.set(previous.subarray(0, previous.length - strip));
      name.set(suffix, previous.length - strip);
      offset = nul + 1;
    } else {
      const nul = bytes.indexOf(0, offset);
      if (nul < 0 || nul >= end) return null;
      name = bytes.subarray(offset, nul);
      // Entries are padded with NULs to a multiple of 8 bytes (1 to 8 of them).
      offset = start + Math.ceil((nul - start + 1) / 8) * 8;
    }
    previous = name;
    paths.add(decoder.decode(name));
  }
  return paths;
}
