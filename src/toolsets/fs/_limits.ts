/**
 * Limits shared by the fs tools. Private to the folder.
 *
 * @module
 */

/** Largest file the tools read whole, edit, write or search, in bytes (10 MiB). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Deepest folder level a recursive walk enters (1 = the start folder's entries). */
export const MAX_WALK_DEPTH = 64;

/** Bytes at the start of a file inspected for NUL bytes (and invalid UTF-8) to call it binary. */
export const BINARY_SNIFF_BYTES = 8192;

/** Human-readable byte count: `512 bytes`, `1.5 KiB`, `10.0 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? "byte" : "bytes"}`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  return `${(bytes / 1024 / 1024 / 1024).toFixed(1)} GiB`;
}
