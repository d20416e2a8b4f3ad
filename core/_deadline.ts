/** Internal: one timeout for a call that sends several requests in turn. */

import type { ServiceResult } from "./result.ts";
import { timedOut } from "./_abort.ts";

/** The longest delay `setTimeout` honours; the transport takes a longer timeout for none. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Sends one of a call's requests with the time left before the call's deadline as its `timeout`.
 * Once no time is left it sends nothing and resolves `Failure(TIMEOUT)`, worded as the
 * transport's (`Request timed out after <the call's timeout> ms`); a request that times out
 * on the time left is worded the same way. A call with no bound (0, a timeout past
 * `setTimeout`'s limit) or an invalid `timeout` passes the caller's own on unchanged, so the
 * transport answers it as it would a single request.
 */
export type Within = <T>(
  send: (timeout: number | undefined) => Promise<ServiceResult<T>>,
) => Promise<ServiceResult<T>>;

/**
 * The deadline of a call that sends requests one after another: its `timeout` (the client's
 * when absent), counted from now, bounds them all, as it bounds a single request (retries,
 * waits and body included).
 *
 * @param timeout The call's `timeout`, as the caller gave it.
 * @param fallback The client's timeout.
 * @returns What sends each request under the deadline.
 */
export function deadline(timeout: number | undefined, fallback: number): Within {
  const ms = timeout ?? fallback;
  const at = typeof ms === "number" && ms > 0 && ms <= MAX_TIMER_MS ? Date.now() + ms : 0;
  return async (send) => {
    if (at === 0) return await send(timeout);
    const left = at - Date.now();
    if (left <= 0) return timedOut(ms);
    const r = await send(left);
    // The transport's own words for its timeout name the time it was given: the time left.
    return !r.ok && r.error.category === "TIMEOUT" && r.error.status === null &&
        r.error.message === timedOut(left).error.message
      ? timedOut(ms, r.error.cause)
      : r;
  };
}
