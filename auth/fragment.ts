/**
 * Parsing session tokens out of an implicit-flow redirect (no network).
 *
 * @module
 */

import { failure, type ServiceResult, success } from "../core/result.ts";
import { withMaskedFields } from "../core/mask.ts";
import type { ParsedSessionTokens } from "./models.ts";

/**
 * Parses `access_token`, `refresh_token`, `expires_in` and `token_type` from
 * a fragment; a leading `#` is tolerated and components are percent-decoded.
 * A missing field is a `Failure`.
 *
 * @example Parsing a fragment
 * ```ts
 * import { parseSessionTokensFromFragment } from "@fetchbase/fetchbase/auth";
 *
 * const r = parseSessionTokensFromFragment("#access_token=a&refresh_token=r&expires_in=3600&token_type=bearer");
 * console.log(r.ok && r.value.expiresIn); // 3600
 * ```
 *
 * @param fragment The fragment.
 * @returns The tokens.
 */
export function parseSessionTokensFromFragment(
  fragment: string,
): ServiceResult<ParsedSessionTokens> {
  const text = (typeof fragment === "string" ? fragment : "").replace(/^#/, "");
  const params = new Map<string, string>();
  for (const part of text.split("&")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    const k = eq < 0 ? part : part.slice(0, eq);
    const v = eq < 0 ? "" : part.slice(eq + 1);
    try {
      params.set(
        decodeURIComponent(k.replace(/\+/g, " ")),
        decodeURIComponent(v.replace(/\+/g, " ")),
      );
    } catch {
      return failure({
        message: "Cannot parse the fragment as it holds malformed percent-encoding",
        category: "DECODE",
      });
    }
  }
  // An empty description still reports the error; so does an error code alone.
  const error = params.get("error_description") || params.get("error") ||
    params.get("error_code");
  if (error) {
    return failure({
      message: error,
      category: "UNAUTHORIZED",
      code: params.get("error_code") ?? params.get("error") ?? null,
    });
  }
  // The first of an email change's two links confirms one address and brings no session: the
  // server's notice (confirm the other address) is said as it is, not as a broken link.
  // GoTrue marks its redirects with an empty `sb`: a page's own `#message=` is not its notice.
  const notice = params.get("message");
  if (notice && params.has("sb") && !params.get("access_token")) {
    return failure({ message: notice, category: "NO_SESSION" });
  }
  for (const key of ["access_token", "refresh_token", "expires_in", "token_type"]) {
    if (!params.get(key)) {
      return failure({
        message: `Cannot parse the fragment as '${key}' is missing`,
        category: "DECODE",
      });
    }
  }
  const expiresText = params.get("expires_in")!;
  const expiresIn = Number(expiresText);
  if (!/^\d+$/.test(expiresText) || !Number.isSafeInteger(expiresIn)) {
    return failure({
      message: "Cannot parse the fragment as 'expires_in' is not a number",
      category: "DECODE",
    });
  }
  return success(withMaskedFields({
    accessToken: params.get("access_token")!,
    refreshToken: params.get("refresh_token")!,
    expiresIn,
    tokenType: params.get("token_type")!,
    // The provider's tokens (OAuth sign-in with provider scopes), only when sent.
    ...(params.get("provider_token") ? { providerToken: params.get("provider_token")! } : {}),
    ...(params.get("provider_refresh_token")
      ? { providerRefreshToken: params.get("provider_refresh_token")! }
      : {}),
    // What the link was for (`recovery`, `signup`, `magiclink`, ...): decoded, the last value.
    ...(params.get("type") ? { type: params.get("type")! } : {}),
  }, ["accessToken", "refreshToken"]));
}

/**
 * Extracts the fragment of a URL and parses it like
 * {@linkcode parseSessionTokensFromFragment}. Where the fragment holds no
 * tokens (or there is none), an error GoTrue put in the query alone (a failed
 * OAuth state check: `error` with `error_description` or `error_code`) is
 * reported as the fragment's would be.
 *
 * @example Parsing a redirect URL
 * ```ts
 * import { parseSessionTokensFromUrl } from "@fetchbase/fetchbase/auth";
 *
 * const r = parseSessionTokensFromUrl("https://app.example/cb#access_token=a&refresh_token=r&expires_in=60&token_type=bearer");
 * console.log(r.ok); // true
 * ```
 *
 * @param url The URL.
 * @returns The tokens.
 */
export function parseSessionTokensFromUrl(url: string): ServiceResult<ParsedSessionTokens> {
  const hash = typeof url === "string" ? url.indexOf("#") : -1;
  const r = hash < 0
    ? failure({ message: "Cannot parse the URL as it has no fragment", category: "DECODE" })
    : parseSessionTokensFromFragment(url.slice(hash + 1));
  if (r.ok || r.error.category !== "DECODE") return r;
  // GoTrue's query errors carry `error` with `error_description` (and mostly `error_code`): a
  // page's own `?error=0` is not one.
  const query = queryOf(url);
  if (!query?.get("error") || !(query.get("error_description") || query.get("error_code"))) {
    return r;
  }
  const reported = parseSessionTokensFromFragment(query.toString());
  return reported.ok || reported.error.category === "DECODE" ? r : reported;
}

/** The query of `url` (a relative one read against a placeholder origin), or null. */
function queryOf(url: string): URLSearchParams | null {
  try {
    const u = new URL(url, "http://relative.invalid");
    return u.search ? u.searchParams : null;
  } catch {
    return null;
  }
}
