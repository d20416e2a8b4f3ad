/**
 * When the sessions decoded from the auth server's answers arrived, by this
 * device's clock. A session manager compares that with the session's
 * `expiresAt` (the server's clock) and its `expiresIn` to tell how far the
 * two clocks are apart, and so when the token lapses by this device's clock.
 * Only the auth client's own answers are stamped: a session decoded later from
 * stored JSON says nothing of when it was issued.
 *
 * @module
 */

const RECEIVED = new WeakMap<object, number>();

/** Whether `value` has a session's tokens and lifetime (a `Session` or `MfaVerifyResponse`). */
function sessionShaped(value: unknown): value is object {
  const v = value as { accessToken?: unknown; expiresIn?: unknown } | null;
  return typeof v?.accessToken === "string" && typeof v.expiresIn === "number";
}

/**
 * Stamps a decoded answer, or the session it holds (`session`), as received at `at`.
 *
 * @param value The decoded answer.
 * @param at When it arrived (ms, this device's clock).
 * @returns `value`.
 */
export function noteReceived<T>(value: T, at: number): T {
  const inner = (value as { session?: unknown } | null)?.session;
  if (sessionShaped(value)) RECEIVED.set(value, at);
  else if (sessionShaped(inner)) RECEIVED.set(inner, at);
  return value;
}

/**
 * When the auth client received `session` (ms, this device's clock), or
 * undefined for a session it did not decode from an answer.
 *
 * @param session A session object as the auth client returned it.
 * @returns The time, or undefined.
 */
export function receivedAt(session: object): number | undefined {
  return RECEIVED.get(session);
}

/**
 * Gives `copy` the arrival of `original` (a session rebuilt from an answer, as
 * an MFA verification's is).
 *
 * @param original The session the auth client decoded.
 * @param copy The session made from it.
 * @returns `copy`.
 */
export function sameArrival<T extends object>(original: object, copy: T): T {
  const at = RECEIVED.get(original);
  if (at !== undefined) RECEIVED.set(copy, at);
  return copy;
}
