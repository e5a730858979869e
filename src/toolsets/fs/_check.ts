/**
 * The second path check, inside the tool Worker: every handler calls the guard again, whatever
 * the main thread decided. Private to the folder.
 *
 * @module
 */

import type { PathGuard, ResolvedPath } from "../../sandbox/mod.ts";
import type { PathAccess } from "../../tools/mod.ts";
import { failure, type ToolOutcome } from "../../result/mod.ts";
import { ioFailure } from "../../sandbox/mod.ts";

/**
 * Resolves `requested` through the guard, synchronously (`PathGuard.checkSync`). The guard's refusals become failure outcomes with its
 * type, message and details; an error thrown while resolving (Deno's permissions refusing an
 * `lstat`, say) becomes `sandbox_violation` or `io_error`, so the handler never throws.
 *
 * @param action For the message of a thrown error, e.g. `read file`.
 */
export function checkPath(
  guard: PathGuard,
  requested: string,
  access: PathAccess,
  action: string,
): ResolvedPath | ToolOutcome {
  try {
    const check = guard.checkSync(requested, access);
    if (!check.ok) return failure(check.error.type, check.error.message, check.error.details);
    return check.path;
  } catch (error) {
    return ioFailure(action, requested, error);
  }
}

/** Tells whether a {@linkcode checkPath} answer is a refusal. */
export function isOutcome(value: ResolvedPath | ToolOutcome): value is ToolOutcome {
  return "ok" in value;
}
