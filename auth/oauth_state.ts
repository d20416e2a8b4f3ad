/**
 * OAuth `state` (CSRF protection): generate an opaque random value before the
 * redirect, compare it in constant time when the provider sends it back.
 *
 * @module
 */

import { randomBytes, timingSafeEqual } from "../core/crypto.ts";
import { encodeBase64Url } from "../core/encoding.ts";
import { failure, type ServiceResult, success } from "../core/result.ts";

/**
 * Random bytes behind a generated state (256 bits, 43 base64url characters).
 *
 * @example The state's length
 * ```ts
 * import { generateOAuthState, OAUTH_STATE_BYTES } from "@fetchbase/fetchbase/auth";
 *
 * console.log(generateOAuthState().length === Math.ceil(OAUTH_STATE_BYTES * 4 / 3)); // true
 * ```
 */
export const OAUTH_STATE_BYTES = 32;

/**
 * Generates a random opaque OAuth `state` from the secure random generator.
 * Put it in the query of `redirectTo` (`https://app.example/cb?state=...`)
 * and keep it until the redirect comes back: GoTrue keeps that query and adds
 * its `code`. Never pass it in `queryParams`: GoTrue hands those to the
 * provider, where a `state` would replace GoTrue's own (the URL builders
 * refuse it).
 *
 * @example Generating a state
 * ```ts
 * import { generateOAuthState } from "@fetchbase/fetchbase/auth";
 *
 * const state = generateOAuthState();
 * console.log(state.length); // 43
 * ```
 *
 * @returns 43 base64url characters (256 random bits).
 */
export function generateOAuthState(): string {
  return encodeBase64Url(randomBytes(OAUTH_STATE_BYTES));
}

/**
 * Checks the `state` returned by the provider against the one sent, in
 * constant time. A blank or absent returned state fails, as does a blank
 * expected one; neither value appears in the error.
 *
 * @example Checking the callback
 * ```ts
 * import { generateOAuthState, verifyOAuthState } from "@fetchbase/fetchbase/auth";
 *
 * const sent = generateOAuthState();
 * const returned = new URL(`https://app.example/cb?state=${sent}`).searchParams.get("state");
 * console.log(verifyOAuthState(sent, returned).ok); // true
 * ```
 *
 * @param expected The state generated before the redirect.
 * @param returned The state from the callback URL (null when absent).
 * @returns Success, or a `Failure(INVALID_ARGUMENT)` with code
 * `oauth_state_missing` or `oauth_state_mismatch`.
 */
export function verifyOAuthState(
  expected: string,
  returned: string | null | undefined,
): ServiceResult<void> {
  if (typeof returned !== "string" || returned.trim() === "") {
    return failure({
      message: "Cannot verify the OAuth state as the returned state is blank or absent",
      category: "INVALID_ARGUMENT",
      code: "oauth_state_missing",
    });
  }
  if (typeof expected !== "string" || expected.trim() === "") {
    return failure({
      message: "Cannot verify the OAuth state as the expected state is blank",
      category: "INVALID_ARGUMENT",
      code: "oauth_state_missing",
    });
  }
  if (!timingSafeEqual(expected, returned)) {
    return failure({
      message: "Cannot verify the OAuth state as the returned state does not match",
      category: "INVALID_ARGUMENT",
      code: "oauth_state_mismatch",
    });
  }
  return success(undefined);
}
