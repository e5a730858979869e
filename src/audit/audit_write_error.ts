/**
 * The error the audit reports when the file system refuses a record: a full disk, a read-only
 * file system, a folder that is a file. Its message says which file, why, and what to change.
 *
 * @module
 */

/**
 * Why the file system refused:
 *
 * - `no_space`: the disk (or its quota) is full (`ENOSPC`, `EDQUOT`).
 * - `read_only`: the file system is mounted read-only (`EROFS`).
 * - `permission_denied`: the process may not write there (`EACCES`, `EPERM`).
 * - `not_a_folder`: a path component that must be a folder is a file (`ENOTDIR`, `EEXIST`).
 * - `not_found`: the folder is gone (the run folder was removed while the run wrote into it).
 * - `io`: anything else (`EIO`, a file that took no bytes, ...).
 */
export type AuditWriteFailure =
  | "no_space"
  | "read_only"
  | "permission_denied"
  | "not_a_folder"
  | "not_found"
  | "io";

const REASONS: Record<AuditWriteFailure, string> = {
  no_space: "the disk is full",
  read_only: "the file system is read-only",
  permission_denied: "this process may not write there",
  not_a_folder: "a part of the path is a file, not a folder",
  not_found: "its folder does not exist",
  io: "the file system failed",
};

/**
 * A record of the run folder could not be written. `message` follows the house style and ends with
 * what to change; it never carries a stack trace. The original error is kept as `cause`.
 *
 * @example
 * ```ts
 * import { AuditWriteError } from "./audit_write_error.ts";
 * const cause = Object.assign(new Error("No space left on device (os error 28)"), { code: "ENOSPC" });
 * const error = AuditWriteError.from("/runs/r1/events.jsonl", cause);
 * console.assert(error.failure === "no_space");
 * console.assert(error.message.startsWith('Cannot write "/runs/r1/events.jsonl": the disk is full'));
 * ```
 */
export class AuditWriteError extends Error {
  override readonly name = "AuditWriteError";
  /** Why; see {@linkcode AuditWriteFailure}. */
  readonly failure: AuditWriteFailure;
  /** The file or folder that could not be written, as given. */
  readonly path: string;

  /**
   * @param path The file or folder that could not be written.
   * @param failure Why; see {@linkcode AuditWriteFailure}.
   * @param detail The system's own words (e.g. `No space left on device (os error 28)`).
   * @param cause The original error, if any.
   */
  constructor(path: string, failure: AuditWriteFailure, detail: string, cause?: unknown) {
    super(
      `Cannot write "${path}": ${REASONS[failure]}${detail === "" ? "" : ` (${detail})`}; ` +
        `${remedy(failure)}`,
      cause === undefined ? undefined : { cause },
    );
    this.failure = failure;
    this.path = path;
  }

  /**
   * Classifies a file-system error thrown while writing `path`. An {@linkcode AuditWriteError} is
   * returned as it is.
   *
   * @param path The file or folder being written.
   * @param error What the file system threw (a `Deno.errors.*` with its `code`, or anything).
   */
  static from(path: string, error: unknown): AuditWriteError {
    if (error instanceof AuditWriteError) return error;
    const code = typeof error === "object" && error !== null
      ? String((error as { code?: unknown }).code ?? "")
      : "";
    const detail = error instanceof Error ? error.message : String(error);
    return new AuditWriteError(path, failureOf(code, error), firstLine(detail), error);
  }
}

function failureOf(code: string, error: unknown): AuditWriteFailure {
  if (code === "ENOSPC" || code === "EDQUOT") return "no_space";
  if (code === "EROFS") return "read_only";
  if (
    code === "EACCES" || code === "EPERM" || error instanceof Deno.errors.PermissionDenied ||
    error instanceof Deno.errors.NotCapable
  ) {
    return "permission_denied";
  }
  if (
    code === "ENOTDIR" || code === "EEXIST" || error instanceof Deno.errors.NotADirectory ||
    error instanceof Deno.errors.AlreadyExists
  ) {
    return "not_a_folder";
  }
  if (code === "ENOENT" || error instanceof Deno.errors.NotFound) return "not_found";
  return "io";
}

function remedy(failure: AuditWriteFailure): string {
  switch (failure) {
    case "no_space":
      return 'free space on that disk or point "runs_dir" at another one';
    case "read_only":
    case "permission_denied":
      return 'point "runs_dir" at a folder this process can write';
    case "not_a_folder":
      return 'point "runs_dir" at a folder (or remove the file in its way)';
    case "not_found":
      return 'keep "runs_dir" and the run folder in place while the run writes it';
    case "io":
      return 'check the disk, or point "runs_dir" at another folder';
  }
}

function firstLine(text: string): string {
  return (text.split("\n", 1)[0] ?? "").trim();
}
