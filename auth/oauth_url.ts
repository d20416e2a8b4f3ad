/**
 * Local OAuth helpers: the provider authorize URL (`signInWithOAuth`,
 * `getOAuthSignInUrl`). No network.
 *
 * @module
 */

import type { BaseClient } from "../core/client.ts";
import type { OAuthResponse } from "./models.ts";
import type { PkceParams } from "./pkce.ts";
import { providerUrl } from "./_provider_url.ts";

/** Options of the OAuth URL builders. */
export interface OAuthUrlOptions {
  /** Where the provider returns (`redirect_to`). */
  redirectTo?: string | null | undefined;
  /** Scopes, space-joined on the wire. Default none. */
  scopes?: readonly string[] | undefined;
  /** Extra query parameters for the provider (e.g. `prompt`); a `state` key is refused (`TypeError`). */
  queryParams?: Readonly<Record<string, string>> | undefined;
  /**
   * Adds `skip_http_redirect=true`, as the document asks. Default false. GoTrue's `/authorize`
   * does not read it: it answers a 302 to the provider either way (and passes the parameter on
   * to it); only `/user/identities/authorize` (`linkIdentity`) answers JSON with it.
   */
  skipBrowserRedirect?: boolean | undefined;
  /** PKCE parameters: their challenge goes into the URL. */
  pkceParams?: PkceParams | null | undefined;
  /** An invite token (`invite_token`). */
  inviteToken?: string | null | undefined;
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
  options?: OAuthUrlOptions,
): string {
  options ??= {};
  return providerUrl(`${auth.client.url}/auth/v1/authorize`, provider, options);
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
  options?: OAuthUrlOptions,
): OAuthResponse {
  options ??= {};
  return { url: getOAuthSignInUrl(auth, provider, options), provider };
}
