/**
 * The auth area: a stateless GoTrue client (`/auth/v1`) with every sign-in
 * method, MFA, passkeys and OAuth consent; local PKCE, OAuth state, OAuth
 * and SSO URLs, fragment parsing; and local ES256 verification of access
 * tokens against a cached JWKS (`getClaims`).
 *
 * A failure carries GoTrue's `error_code` as `code`; branch on it rather than on the category
 * where GoTrue gives one code several statuses. `insufficient_aal` is 403 (`FORBIDDEN`) when a
 * factor is enrolled or passkeys are managed, 422 (`BAD_REQUEST`) when a verified factor is
 * unenrolled and 401 (`UNAUTHORIZED`) when `updateUser` changes an email, phone or password. A feature
 * switched off on the server is 404 (`NOT_FOUND`) with `passkey_disabled`, `feature_disabled`
 * (the OAuth server) or `manual_linking_disabled`. An access token GoTrue cannot verify (expired,
 * forged, malformed) is 403 `bad_jwt` (`FORBIDDEN`), where PostgREST and the Storage API answer 401
 * (`UNAUTHORIZED`) for the same token. GoTrue sends no `Retry-After`: `retryAfter`
 * stays null on its rate limits (`over_request_rate_limit`, `over_email_send_rate_limit`,
 * `over_sms_send_rate_limit`), whose message names the wait where GoTrue knows it.
 *
 * @example Verify a caller's token in an edge function
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, getClaims } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * const claims = await getClaims(auth, "eyJ...", { expectedAudience: "authenticated" });
 * if (claims.ok) console.log(claims.value.claims.subject);
 * ```
 *
 * @module
 */

export * from "../core/mod.ts";
export * from "./client.ts";
export * from "./enums.ts";
export * from "./extensions.ts";
export * from "./fragment.ts";
export * from "./get_claims.ts";
export * from "./jwks.ts";
export * from "./jwt.ts";
export * from "./models.ts";
export * from "./oauth_state.ts";
export * from "./oauth_url.ts";
export * from "./pkce.ts";
