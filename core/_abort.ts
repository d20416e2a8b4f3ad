/** Internal: waiting on a promise only as long as the caller's signal allows. */

import { type Failure, failure, type ServiceResult } from "./result.ts";

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
  // A signal that is no AbortSignal is not waited on; the public entry points refuse it first
  // (refusedSignal), as the transport does.
  if (typeof signal?.addEventListener !== "function") return promise;
  // Already aborted: ABORTED, unless the work has already failed (a synchronous refusal wins),
  // and the work's later rejection is handled here, never left unhandled.
  if (signal.aborted) return Promise.race([promise, Promise.resolve(ABORTED)]);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * `Failure(INVALID_ARGUMENT)` for a `signal` that is not an AbortSignal (the
 * transport's refusal, for calls that wait before they send), else null. The
 * transport keeps its own inline check: calling this one from it costs the
 * verify-only bundle 26 bytes it does not have.
 */
export function refusedSignal(signal: unknown): Failure | null {
  return signal != null && typeof (signal as AbortSignal).addEventListener !== "function"
    ? failure({
      message: "Cannot send the request as 'signal' is not an AbortSignal",
      category: "INVALID_ARGUMENT",
    })
    : null;
}

/** The Failure of a call whose caller's signal fired before it could answer. */
export function cancelled(cause?: unknown): Failure {
  return failure({ message: "Request was cancelled", category: "CANCELLED", cause });
}

/** The Failure of a call that ran out its `ms` of time (the transport's words for it). */
export function timedOut(ms: number, cause?: unknown): Failure {
  return failure({ message: `Request timed out after ${ms} ms`, category: "TIMEOUT", cause });
}

/** What {@linkcode bounded} answers: the outcome, or why the wait ended without it. */
export type Bounded<T> =
  | { kind: "done"; value: T }
  | { kind: "failed"; error: unknown }
  | { kind: "timeout" }
  | { kind: "aborted" };

/**
 * Waits for `promise` at most `ms` (`Infinity`, or anything past
 * `setTimeout`'s limit: no bound; 0: only for what has already settled) and
 * until `signal` aborts;
 * the timer and the listener are removed whichever comes first. A rejection
 * is an outcome too (`failed`), never an unhandled one.
 *
 * @param promise The work to wait on.
 * @param ms The longest wait in milliseconds; `Infinity` for no bound.
 * @param signal The caller's signal.
 * @returns The outcome, or why there is none.
 */
export function bounded<T>(
  promise: Promise<T>,
  ms: number,
  signal?: AbortSignal,
): Promise<Bounded<T>> {
  if (signal?.aborted) return Promise.resolve({ kind: "aborted" });
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Settled once: the work's later outcome, after a timeout or an abort, resolves nothing. In
    // Workers the work may be another request's (a shared key-set fetch), and resolving this
    // request's promise from there once it has ended logs a cross-request warning.
    let settled = 0;
    const finish = (out: Bounded<T>) =>
      settled++ || (
        clearTimeout(timer), // a no-op for undefined
          signal?.removeEventListener?.("abort", onAbort),
          resolve(out)
      );
    const onAbort = () => finish({ kind: "aborted" });
    // A signal that is no AbortSignal (the caller's `true`) is not waited on: the entry points
    // refuse it (refusedSignal), but for getClaims' JWKS wait, where a check would cost the
    // verify-only bundle more than it has left.
    // (Not `once`: the first call of `finish`, this one's included, removes it.)
    signal?.addEventListener?.("abort", onAbort);
    // 0 (a setting that asks for no wait) times out at once, never waits for ever; a wait past
    // setTimeout's limit (about 24.8 days) is no bound, as the transport's timeout, since a
    // larger delay would fire at once.
    if (ms <= 2_147_483_647) timer = setTimeout(() => finish({ kind: "timeout" }), ms);
    promise.then(
      (value) => finish({ kind: "done", value }),
      (error) => finish({ kind: "failed", error }),
    );
  });
}

/**
 * The result of a shared operation, or `Failure(CANCELLED)` as soon as the
 * caller's signal fires, or `Failure(TIMEOUT)` once its `timeout` (ms, when
 * positive) has passed (the operation itself goes on for its other callers).
 */
export function untilCancelled<T>(
  start: () => Promise<ServiceResult<T>>,
  signal?: AbortSignal,
  timeout?: number,
): Promise<ServiceResult<T>> {
  const refused = refusedSignal(signal);
  if (refused) return Promise.resolve(refused);
  if (signal?.aborted) return Promise.resolve(cancelled()); // nothing is started
  // No positive timeout: no bound (bounded takes Infinity for that).
  const ms = typeof timeout === "number" && timeout > 0 ? timeout : Infinity;
  return bounded(start(), ms, signal).then((r) =>
    r.kind === "done"
      ? r.value
      : r.kind === "aborted"
      ? cancelled()
      : r.kind === "timeout"
      ? timedOut(ms)
      : Promise.reject(r.error)
  );
}
