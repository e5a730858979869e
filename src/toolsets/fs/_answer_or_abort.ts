/**
 * The wait of a search for ripgrep's answer (`_grep_search.ts`): it ends when the answer is in
 * (ripgrep has its own deadline) or the call is aborted. Private to the folder.
 *
 * @module
 */

/**
 * Waits until `pending` settles, `answered()` says it has, or `signal` aborts; never throws.
 *
 * @param pending ripgrep's answer, or null when none is coming.
 * @param answered Whether the answer's own handler (attached before this wait) has run.
 * @param signal The call's abort signal.
 */
export async function answerOrAbort(
  pending: Promise<unknown> | null,
  answered: () => boolean,
  signal: AbortSignal,
): Promise<void> {
  if (pending === null || answered() || signal.aborted) return;
  let onAbort = () => {};
  const aborted = new Promise<void>((resolve) => onAbort = resolve);
  signal.addEventListener("abort", onAbort, { once: true });
  // The answer's own handler was attached first: it has run when this wait ends.
  await Promise.race([pending.then(() => {}, () => {}), aborted]);
  signal.removeEventListener("abort", onAbort);
}
