/**
 * A deadline for test steps that could hang (a FIFO opened for reading, a walk that loops).
 *
 * @module
 */

/**
 * Resolves like `promise`, or rejects once `milliseconds` have passed, so a hanging step fails
 * the test instead of stalling the run. The timer is cleared either way.
 *
 * @param promise What to wait for.
 * @param milliseconds The deadline, in milliseconds.
 * @param what Names the step in the error: `Cannot finish "read a FIFO": it took over 5000 ms`.
 * @throws {Error} when the deadline passes first.
 * @example
 * ```ts
 * import { withTimeout } from "./with_timeout.ts";
 * const value = await withTimeout(Promise.resolve(42), 1000, "answer");
 * ```
 */
export async function withTimeout<T>(
  promise: Promise<T>,
  milliseconds: number,
  what: string,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Cannot finish "${what}": it took over ${milliseconds} ms`)),
      milliseconds,
    );
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
