/**
 * Waits `ms` milliseconds; an abort of `signal` ends the wait early.
 *
 * @module
 */

/** Resolves true after `ms`, or false at once when `signal` is (or becomes) aborted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    // Beyond setTimeout's limit (2^31 - 1 ms) the timer would fire at once.
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, Math.min(ms, 2_147_483_647));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
