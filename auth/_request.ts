/**
 * One helper for GoTrue calls: path under `/auth/v1`, JSON body, optional
 * per-call bearer token, decoding into `Failure(DECODE)` on bad shape.
 */

import type { BaseClient } from "../core/client.ts";
import { decodeResult } from "../core/decode.ts";
import { failure, type ServiceResult, success } from "../core/result.ts";
import { encodeQueryComponent, type QueryInit } from "../core/query.ts";
import type { PkceParams } from "./pkce.ts";
import { encodeComponent } from "../core/_uri.ts";
import { quotedQueryPairs } from "../core/_query_pairs.ts";
import { jsonLossAt } from "../core/_json_loss.ts";
import { noteReceived } from "./_received.ts";
import { API_VERSION } from "./_api_version.ts";
import { AUTH_BODY_LIMIT } from "./_body_limit.ts";
import { PASSWORD_FIELDS, withoutPasswords } from "./_passwords.ts";

/** Options every auth call accepts. */
export interface AuthCallOptions {
  /** Cancels the call. */
  signal?: AbortSignal | undefined;
  /** Timeout in milliseconds. */
  timeout?: number | undefined;
}

export interface GoTrueCall<T> {
  method?: string | undefined;
  /** The path, or a function building it (an id that cannot be encoded becomes a Failure). */
  path: string | (() => string);
  query?: QueryInit | undefined;
  body?: unknown;
  accessToken?: string | null | undefined;
  decode: (body: unknown) => T;
  options?: AuthCallOptions | undefined;
  /** Whether the transport may retry. Default: GET only. */
  retry?: boolean | undefined;
  /**
   * `"manual"` follows no redirect (a 3xx is a failure). Default: the
   * transport's (within the origin; to another one only GET and HEAD,
   * without credentials).
   */
  redirect?: "manual" | undefined;
}

export function gotrue<T>(client: BaseClient, call: GoTrueCall<T>): Promise<ServiceResult<T>> {
  const method = call.method ?? "GET";
  const anonymous = blank(call.accessToken);
  let path: string;
  try {
    path = typeof call.path === "function" ? call.path() : call.path;
  } catch (error) {
    return Promise.resolve(failure({
      message: error instanceof Error ? error.message : String(error),
      category: "INVALID_ARGUMENT",
      cause: error,
    }));
  }
  return client.request({
    method,
    area: "auth",
    path,
    query: call.query,
    json: call.body,
    headers: API_VERSION,
    // A call made for no user (sign-up, token grants, OTP, recovery, or an optional token
    // left blank) carries the API key as its bearer, as auth-js sends: never the client's
    // current token, which may have lapsed (a refresh) or belong to another user.
    accessToken: anonymous ? undefined : call.accessToken,
    credentials: anonymous ? "apikey" : "token",
    retry: call.retry ?? method === "GET",
    redirect: call.redirect,
    signal: call.options?.signal,
    timeout: call.options?.timeout,
    secrets: [...bodySecrets(call.body), ...redirectSecrets(call.query)],
    maxBodyBytes: AUTH_BODY_LIMIT,
  }).then((r) =>
    decodeResult(
      withoutPasswords(r, call.body),
      (v) => noteReceived(call.decode(v.body), Date.now()),
    )
  );
}

/**
 * Body fields that are secrets: the transport redacts an error echoing one, as a token. One-time
 * codes too (`/verify`'s `token` or `token_hash`, an MFA `code`, a reauthentication `nonce`),
 * while they are live. Passwords too, and their other echo forms after the transport
 * (`auth/_passwords.ts`), which also gives back a GoTrue code their redaction broke.
 */
const BODY_SECRETS = [
  "refresh_token",
  // A provider's tokens (`signInWithIdToken`: its ID token, opaque for some providers, and
  // access token) and the PKCE exchange's authorization code.
  "id_token",
  "access_token",
  "auth_code",
  ...PASSWORD_FIELDS,
  "code_verifier",
  "token",
  "token_hash",
  "code",
  "nonce",
] as const;

function bodySecrets(body: unknown): string[] {
  // An absent body has none of these fields, nor would a scalar.
  const o = (body ?? {}) as Record<string, unknown>;
  // The captcha token goes nested (`security`): a live single-use token, as a one-time code.
  const captcha = (o.gotrue_meta_security as { captcha_token?: unknown } | undefined)
    ?.captcha_token;
  return [...BODY_SECRETS.map((k) => o[k]), captcha].filter((v): v is string =>
    typeof v === "string"
  );
}

export const unit = (): void => undefined;

/**
 * An id as one path segment. `.` and `..` are refused: URL parsers resolve
 * them as dot segments, which would send the call, with its token, to
 * another route (an OAuth consent page's `authorization_id` is the
 * attacker's to choose).
 */
export function idSegment(id: string): string {
  if (id === "." || id === "..") {
    throw new TypeError(`Cannot send the request as the id must not be '${id}'`);
  }
  return encodeComponent(id);
}

export function invalid(message: string): Promise<ServiceResult<never>> {
  return Promise.resolve(failure({ message, category: "INVALID_ARGUMENT" }));
}

export function blank(v: unknown): boolean {
  return typeof v !== "string" || v.trim() === "";
}

/**
 * Why `v` cannot go as the text field `name`, by its type and never its value (it may be a
 * password): `'password' must be text, not a number`; with `blankToo`, also `'email' is blank`.
 * Null when it can.
 */
export function notText(v: unknown, name: string, blankToo = true): string | null {
  if (typeof v !== "string") {
    const kind = v === null || v === undefined
      ? String(v)
      : Array.isArray(v)
      ? "a list"
      : typeof v === "object"
      ? "an object"
      : `a ${typeof v}`;
    return `'${name}' must be text, not ${kind}`;
  }
  return blankToo && v.trim() === "" ? `'${name}' is blank` : null;
}

/**
 * Why `v` cannot go as the JSON object `name` (user metadata, a passkey credential): a list, a
 * scalar or a built-in object such as a `Map` (sent as `{}`) or a `Date` (sent as text), or one
 * holding such a built-in object at any depth (`jsonLossAt`). Null when it can (a plain object or
 * a class instance, sent with its own fields), or when it is absent.
 */
export function notObject(v: unknown, name: string): string | null {
  if (v == null) return null;
  const tag = Object.prototype.toString.call(v).slice(8, -1);
  if (typeof v === "object" && tag === "Object") {
    const loss = jsonLossAt(v, name);
    return loss && `'${loss[0]}' must be JSON, not a ${loss[1]}`;
  }
  return `'${name}' must be a JSON object, not ${
    Array.isArray(v) ? "a list" : typeof v !== "object" ? `a ${typeof v}` : `a ${tag}`
  }`;
}

export function security(
  captchaToken: string | null | undefined,
): { captcha_token?: string | undefined } {
  return captchaToken ? { captcha_token: captchaToken } : {};
}

export function pkceBody(p: PkceParams | null | undefined): Record<string, string> {
  return p
    ? {
      code_challenge: p.codeChallenge,
      code_challenge_method: challengeMethod(p),
    }
    : {};
}

/** The method as GoTrue spells it (`s256`, `plain`); S256 when absent, as the document's default. */
export function challengeMethod(p: PkceParams): string {
  return String(p.codeChallengeMethod ?? "S256").toLowerCase();
}

/**
 * The credentials in the query or fragment of a `redirect_to` (an OAuth `state` the app put there, as
 * `generateOAuthState` suggests), as written and decoded, each also percent-encoded as the request
 * URL carries it: secrets, since a runtime's network error quotes that URL. A credential is the
 * value of a key that names one (`state`, `token`, `code`, `nonce`, `secret`, `key`, `sig`...) or
 * a random-looking value (16 characters or more of letters and digits, both); the app's other
 * values (`type=signup`, `next=/home`) stay, since they would blank GoTrue's own words (its
 * `signup_disabled` code). `query` is a call's query pairs, or the redirect target itself.
 */
export function redirectSecrets(query: QueryInit | string | null | undefined): string[] {
  const targets = typeof query === "string"
    ? [query]
    : Array.isArray(query)
    ? query.filter((p) => p[0] === "redirect_to").map((p) => p[1])
    : [];
  const out: string[] = [];
  for (const to of targets) {
    if (typeof to !== "string") continue;
    // The fragment's pairs too (`#access_token=...`, `#state=...`): the request URL carries them.
    const at = to.indexOf("#");
    const pairs = at < 0 ? quotedQueryPairs(to) : [
      ...quotedQueryPairs(to.slice(0, at)),
      // A second `#` is no end of the pairs there (a fragment may hold one).
      ...quotedQueryPairs(`?${to.slice(at + 1).replace(/#/g, "&")}`),
    ];
    for (const [key, written, decoded] of pairs) {
      const credential = /state|token|code|nonce|secret|key|sig|pass|otp|auth/i.test(key) ||
        (/^[\w.~+/=-]{16,}$/.test(decoded) && /\d/.test(decoded) && /[a-z]/i.test(decoded));
      // As the request's query carries it (encodeQueryComponent: `!'()*` escaped too), and as
      // encodeURIComponent writes it.
      if (credential) {
        for (const v of [written, decoded]) {
          out.push(v);
          // (A lone surrogate, which neither encodes, is in no URL as such.)
          for (const encode of [encodeURIComponent, encodeQueryComponent]) {
            try {
              out.push(encode(v));
            } catch {
              // Not sent in this form.
            }
          }
        }
      }
    }
  }
  return out;
}

export function redirect(to: string | null | undefined): Array<[string, string]> {
  return to ? [["redirect_to", to]] : [];
}

export { success };
