/** Internal: waiting on a promise only as long as the caller's signal allows. */

import { type Failure, failure } from "./result.ts";

/** What {@linkcode untilAborted} answers once the signal has aborted. */
export const ABORTED: unique symbol = Symbol("aborted");

/**
 * `promise`'s outcome, or {@linkcode ABORTED} as soon as `signal` aborts; the
 * work behind the promise goes on (it may serve other callers), and the
 * listener is removed once either side settles.
 *
 * @param promise The work to wait on.
 * @param signal The caller's signal.
 * @returns The outcome, or ABORTED.
 */
export function untilAborted<T>(
  promise: Promise<T>,
  signal?: AbortSignal,
): Promise<T | typeof ABORTED> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The Failure of a call whose caller's signal fired before it could answer. */
export function cancelled(): Failure {
  return failure({ message: "Request was cancelled", category: "CANCELLED" });
}
