/**
 * Retry policy, backoff with jitter and `Retry-After` parsing for the
 * transport. Pure functions; the transport does the waiting.
 *
 * @module
 */

import { describeSetting } from "./_thrown.ts";

/** How the transport retries a request that allows it. */
export interface RetryPolicy {
  /** Attempts in all, first one included (1 disables retrying). Default 3. */
  maxAttempts: number;
  /** Backoff base in milliseconds; attempt n waits about `base * 2^(n-1)`. Default 200. */
  baseDelayMs: number;
  /** Upper bound of one backoff delay in milliseconds. Default 5000. */
  maxDelayMs: number;
  /**
   * The longest `Retry-After` the transport waits for, in milliseconds. A server
   * asking for longer gets no retry: its answer is returned. Default 20000.
   */
  maxRetryAfterMs: number;
}

/**
 * The default {@linkcode RetryPolicy}.
 *
 * @example Overriding one field
 * ```ts
 * import { DEFAULT_RETRY_POLICY } from "@fetchbase/fetchbase/core";
 *
 * const policy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 5 };
 * ```
 */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = /* @__PURE__ */ Object.freeze({
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 5000,
  maxRetryAfterMs: 20000,
});

/**
 * HTTP statuses the transport retries: 408, 429, 502, 503, 504, and 520 (Cloudflare's "unknown
 * error" from the origin). Not 500: it is a server's verdict more often than a passing fault
 * (PostgREST's statement timeout, 57014, and a function's own error are 500), and a read that
 * timed out was run three times, tripling the database's load and the caller's wait
 * (postgrest-js retries only 503 and 520).
 *
 * @example Checking a status
 * ```ts
 * import { RETRYABLE_STATUSES } from "@fetchbase/fetchbase/core";
 *
 * console.log(RETRYABLE_STATUSES.has(503), RETRYABLE_STATUSES.has(501)); // true false
 * ```
 */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([
  408,
  429,
  502,
  503,
  504,
  520,
]);

/**
 * Validates a partial policy and merges it over the defaults.
 *
 * @example Building a policy
 * ```ts
 * import { resolveRetryPolicy } from "@fetchbase/fetchbase/core";
 *
 * console.log(resolveRetryPolicy({ maxAttempts: 1 }).maxAttempts); // 1
 * ```
 *
 * @param partial Fields to override.
 * @returns The complete policy.
 */
export function resolveRetryPolicy(
  partial?: { [K in keyof RetryPolicy]?: RetryPolicy[K] | undefined },
): RetryPolicy {
  // A field given as undefined takes its default, as an absent one does.
  const given = Object.fromEntries(
    Object.entries(partial ?? {}).filter(([, v]) => v !== undefined),
  );
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...given };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new RangeError(
      `Cannot retry as 'maxAttempts' must be a positive integer: current value is ${
        describeSetting(policy.maxAttempts)
      }`,
    );
  }
  for (const key of ["baseDelayMs", "maxDelayMs", "maxRetryAfterMs"] as const) {
    const v = policy[key];
    if (!(Number.isFinite(v) && v >= 0)) {
      throw new RangeError(
        `Cannot retry as '${key}' must be a finite non-negative number: current value is ${
          describeSetting(v)
        }`,
      );
    }
  }
  return policy;
}

/**
 * The backoff delay before attempt `attempt + 1`: exponential, capped, with
 * "equal jitter" (half fixed, half random) so that clients spread out.
 *
 * @example Delays grow
 * ```ts
 * import { backoffDelay, DEFAULT_RETRY_POLICY } from "@fetchbase/fetchbase/core";
 *
 * console.log(backoffDelay(1, DEFAULT_RETRY_POLICY, () => 0)); // 100
 * ```
 *
 * @param attempt The attempt that just failed, from 1.
 * @param policy The policy.
 * @param random A source of numbers in [0, 1); `Math.random` by default.
 * @returns The delay in milliseconds.
 */
export function backoffDelay(
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const exp = Math.min(
    policy.maxDelayMs,
    // The exponent is capped so that a zero base never meets an infinite factor (NaN).
    policy.baseDelayMs * 2 ** Math.min(1000, Math.max(0, attempt - 1)),
  );
  return Math.round(exp / 2 + (exp / 2) * random());
}

/**
 * Parses a `Retry-After` header (delta seconds, or an HTTP date in the
 * IMF-fixdate form) into
 * milliseconds. Garbage, negative numbers and past dates give null or 0;
 * huge values are returned as they are, for the caller to cap.
 *
 * @example Both forms
 * ```ts
 * import { parseRetryAfter } from "@fetchbase/fetchbase/core";
 *
 * console.log(parseRetryAfter("3")); // 3000
 * console.log(parseRetryAfter("soon")); // null
 * ```
 *
 * @param value The header value.
 * @param now The current time in milliseconds since the epoch.
 * @returns Milliseconds to wait, or null when the header says nothing usable.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
): number | null {
  if (value === null || value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    // Any count of digits is a wait; one too large to hold is a very long one.
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds * 1000 : Number.MAX_SAFE_INTEGER;
  }
  // An HTTP date in its preferred form (IMF-fixdate, RFC 9110 §5.6.7), strictly: only that
  // form renders back the same (`toUTCString` writes it), so any other form, a date that does
  // not exist (30 Feb) or a wrong weekday is ignored.
  const date = Date.parse(text);
  if (Number.isNaN(date) || new Date(date).toUTCString() !== text) return null;
  return Math.max(0, date - now);
}
