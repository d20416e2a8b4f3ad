/**
 * Internal: getClaims' checks of a token's times (`iat`, `exp`, `nbf`), by a
 * clock the caller gives: this device's for `getClaims`, the server's where a
 * session manager measured how far the two are apart.
 *
 * `CLAIMS_LEEWAY_SECONDS` is public, exported by `get_claims.ts`.
 *
 * @module
 */

import { type Failure, failure } from "../core/result.ts";
import type { JsonObject } from "../core/decode.ts";

/**
 * Clock-skew leeway applied to `exp` and `nbf`, in seconds.
 *
 * @example A token just past its expiry
 * ```ts
 * import { CLAIMS_LEEWAY_SECONDS } from "@fetchbase/fetchbase/auth";
 *
 * const now = Math.floor(Date.now() / 1000);
 * const exp = now - 10;
 * console.log(now < exp + CLAIMS_LEEWAY_SECONDS); // true: still accepted
 * ```
 */
export const CLAIMS_LEEWAY_SECONDS = 30;

/** A refusal of the token: `UNAUTHORIZED` with `code`. */
export function rejected(message: string, code: string): Failure {
  return failure({ message, category: "UNAUTHORIZED", code });
}

/**
 * Why the token's times refuse it at `now` (seconds since the epoch), or null: a time claim that
 * is not a number, a missing or passed `exp` (unless `allowExpired`), an `nbf` still ahead.
 *
 * @param payload The token's payload.
 * @param allowExpired Whether a passed or missing `exp` is accepted.
 * @param now The time to judge by, in seconds.
 * @returns The refusal, or null.
 */
export function checkTimes(
  payload: JsonObject,
  allowExpired: boolean,
  now: number,
): Failure | null {
  for (const name of ["iat", "exp", "nbf"]) {
    const value = payload[name];
    // Number.isFinite is false for anything but a finite number.
    if (value !== undefined && !Number.isFinite(value)) {
      return rejected(`Cannot accept the JWT as its '${name}' claim is not a number`, "bad_jwt");
    }
  }
  const exp = payload.exp as number | undefined;
  const nbf = payload.nbf as number | undefined;
  if (!allowExpired) {
    if (exp === undefined) {
      return rejected("Cannot accept the JWT as its 'exp' claim is missing", "bad_jwt");
    }
    if (exp + CLAIMS_LEEWAY_SECONDS <= now) {
      return rejected("Cannot accept the JWT as it has expired", "token_expired");
    }
  }
  if (nbf !== undefined && nbf - CLAIMS_LEEWAY_SECONDS > now) {
    return rejected("Cannot accept the JWT as it is not valid yet", "token_not_yet_valid");
  }
  return null;
}
