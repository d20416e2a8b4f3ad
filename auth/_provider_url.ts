/**
 * The provider authorize URL, shared by the OAuth and link-identity
 * builders (internal: not part of the public API).
 *
 * @module
 */

import type { OAuthUrlOptions } from "./oauth_url.ts";
import { encodeComponent } from "../core/_uri.ts";
import { challengeMethod } from "./_request.ts";
import { showValue } from "../core/_show.ts";

/** The parameters the builder sets from its own options. */
const BUILT: ReadonlySet<string> = new Set([
  "provider",
  "redirect_to",
  "scopes",
  "code_challenge",
  "code_challenge_method",
  "invite_token",
  "skip_http_redirect",
]);

/** Builds a provider authorize URL; shared by the OAuth and link-identity builders. */
export function providerUrl(base: string, provider: string, o: OAuthUrlOptions): string {
  if (typeof provider !== "string" || provider.trim() === "") {
    throw new TypeError("Cannot build the OAuth URL as 'provider' is blank");
  }
  const parts = [`provider=${encodeComponent(provider)}`];
  // An object would go as its text ("[object Object]"), as supabase-js sends it.
  const text = (name: string, v: unknown): string => {
    if (typeof v !== "string") {
      throw new TypeError(
        `Cannot build the OAuth URL as ${name} must be a string: current value is ${showValue(v)}`,
      );
    }
    return encodeComponent(v);
  };
  if (o.redirectTo) parts.push(`redirect_to=${text("'redirectTo'", o.redirectTo)}`);
  // supabase-js takes one space-separated string; a list is asked for here.
  if (o.scopes != null && !Array.isArray(o.scopes)) {
    throw new TypeError(
      `Cannot build the OAuth URL as 'scopes' must be a list of strings: current value is ${
        showValue(o.scopes)
      }`,
    );
  }
  if (o.scopes && o.scopes.length > 0) {
    for (const scope of o.scopes) text("each of 'scopes'", scope);
    parts.push(`scopes=${encodeComponent(o.scopes.join(" "))}`);
  }
  if (o.pkceParams) {
    parts.push(
      `code_challenge=${encodeComponent(o.pkceParams.codeChallenge)}`,
      `code_challenge_method=${encodeComponent(challengeMethod(o.pkceParams))}`,
    );
  }
  const given: unknown = o.queryParams ?? {};
  // Pairs from a record, and from the `URLSearchParams` or `Map` a JavaScript caller (or code
  // ported from supabase-js, which wraps them in URLSearchParams) may pass: read as a record,
  // either went as nothing, and a string as one parameter per character.
  const pairs = typeof given !== "object" || given === null
    ? null
    : Symbol.iterator in given
    ? [...(given as Iterable<[string, unknown]>)]
    : Object.entries(given);
  if (pairs === null || !pairs.every((p) => Array.isArray(p) && typeof p[0] === "string")) {
    throw new TypeError(
      `Cannot build the OAuth URL as 'queryParams' must be a record of names and values: current value is ${
        showValue(given)
      }`,
    );
  }
  for (const [k, v] of pairs) {
    // Older GoTrue hands extra parameters to the provider, where a `state` replaces its own
    // signed state and the callback fails; current GoTrue drops it. It never comes back.
    if (k.toLowerCase() === "state") {
      throw new TypeError(
        "Cannot build the OAuth URL as 'queryParams' holds 'state': GoTrue keeps its own; put yours in redirectTo's query",
      );
    }
    // A parameter this builder sets would go twice, and GoTrue reads the first: an untrusted
    // `queryParams` could not change the redirect, but neither is it what the caller meant.
    if (BUILT.has(k.toLowerCase())) {
      throw new TypeError(
        `Cannot build the OAuth URL as 'queryParams' holds ${
          showValue(k)
        }, which the builder sets from its own option`,
      );
    }
    // A number or a boolean in the query goes as its text, as every query value does.
    const value = typeof v === "number" || typeof v === "boolean" ? String(v) : v;
    parts.push(`${encodeComponent(k)}=${text(`'queryParams.${k}'`, value)}`);
  }
  if (o.inviteToken) parts.push(`invite_token=${text("'inviteToken'", o.inviteToken)}`);
  if (o.skipBrowserRedirect) parts.push("skip_http_redirect=true");
  return `${base}?${parts.join("&")}`;
}
