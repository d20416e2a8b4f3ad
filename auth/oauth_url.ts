/**
 * Local OAuth helpers: the provider authorize URL (`signInWithOAuth`,
 * `getOAuthSignInUrl`). No network.
 *
 * @module
 */

import type { BaseClient } from "../core/client.ts";
import type { OAuthResponse } from "./models.ts";
import type { PkceParams } from "./pkce.ts";
import { encodeComponent } from "../core/_uri.ts";
import { challengeMethod } from "./_request.ts";

/** Options of the OAuth URL builders. */
export interface OAuthUrlOptions {
  /** Where the provider returns (`redirect_to`). */
  redirectTo?: string | null;
  /** Scopes, space-joined on the wire. Default none. */
  scopes?: readonly string[];
  /** Extra query parameters for the provider (e.g. `prompt`); a `state` key is refused (`TypeError`). */
  queryParams?: Readonly<Record<string, string>>;
  /** Ask the endpoint for JSON instead of a 302 (`skip_http_redirect=true`). Default false. */
  skipBrowserRedirect?: boolean;
  /** PKCE parameters: their challenge goes into the URL. */
  pkceParams?: PkceParams | null;
  /** An invite token (`invite_token`). */
  inviteToken?: string | null;
}

/** Builds a provider authorize URL; shared by the OAuth and link-identity builders. */
export function _providerUrl(base: string, provider: string, o: OAuthUrlOptions): string {
  if (typeof provider !== "string" || provider.trim() === "") {
    throw new TypeError("Cannot build the OAuth URL as 'provider' is blank");
  }
  const e = encodeComponent;
  const parts = [`provider=${e(provider)}`];
  if (o.redirectTo) parts.push(`redirect_to=${e(o.redirectTo)}`);
  if (o.scopes && o.scopes.length > 0) parts.push(`scopes=${e(o.scopes.join(" "))}`);
  if (o.pkceParams) {
    parts.push(`code_challenge=${e(o.pkceParams.codeChallenge)}`);
    parts.push(`code_challenge_method=${e(challengeMethod(o.pkceParams))}`);
  }
  for (const [k, v] of Object.entries(o.queryParams ?? {})) {
    // Older GoTrue hands extra parameters to the provider, where a `state` replaces its own
    // signed state and the callback fails; current GoTrue drops it. It never comes back.
    if (k === "state") {
      throw new TypeError(
        "Cannot build the OAuth URL as 'queryParams' holds 'state': GoTrue keeps its own; put yours in redirectTo's query",
      );
    }
    parts.push(`${e(k)}=${e(v)}`);
  }
  if (o.inviteToken) parts.push(`invite_token=${e(o.inviteToken)}`);
  if (o.skipBrowserRedirect) parts.push("skip_http_redirect=true");
  return `${base}?${parts.join("&")}`;
}

/**
 * The absolute `/authorize` URL for a provider (no I/O). Throws `TypeError`
 * for a blank provider.
 *
 * @example Google with PKCE
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, generatePkceParams, getOAuthSignInUrl } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * const pkce = await generatePkceParams();
 * const url = getOAuthSignInUrl(auth, "google", { redirectTo: "https://app.example/cb", pkceParams: pkce });
 * ```
 *
 * @param auth Anything holding the base client (the auth client).
 * @param provider The provider slug.
 * @param options Redirect, scopes, query params, PKCE, invite token.
 * @returns The URL.
 */
export function getOAuthSignInUrl(
  auth: { readonly client: BaseClient },
  provider: string,
  options: OAuthUrlOptions = {},
): string {
  return _providerUrl(`${auth.client.url}/auth/v1/authorize`, provider, options);
}

/**
 * The authorize URL with its provider, to open in a browser (no I/O).
 *
 * @example GitHub
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, signInWithOAuth } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * const { url } = signInWithOAuth(auth, "github", { scopes: ["read:user", "repo"] });
 * ```
 *
 * @param auth The auth client.
 * @param provider The provider slug.
 * @param options Redirect, scopes, query params, PKCE, invite token.
 * @returns The URL and provider.
 */
export function signInWithOAuth(
  auth: { readonly client: BaseClient },
  provider: string,
  options: OAuthUrlOptions = {},
): OAuthResponse {
  return { url: getOAuthSignInUrl(auth, provider, options), provider };
}
