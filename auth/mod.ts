/**
 * The auth area: a stateless GoTrue client (`/auth/v1`) with every sign-in
 * method, MFA, passkeys and OAuth consent; local PKCE, OAuth state, OAuth
 * and SSO URLs, fragment parsing; and local ES256 verification of access
 * tokens against a cached JWKS (`getClaims`).
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
