/**
 * `getClaims`: decodes a JWT locally and, unless told otherwise, verifies it:
 * ES256 tokens against the project's JWKS with WebCrypto, every other token
 * by asking the auth server (`getUser`).
 *
 * @module
 */

import { failure, type ServiceResult, success } from "../core/result.ts";
import type { JsonObject } from "../core/decode.ts";
import { base64UrlToBytes, type DecodedJwt, decodeJwt } from "./_jwt_decode.ts";
import { AUTH_BODY_LIMIT } from "./_body_limit.ts";
import { createJwksResolver, type JwksOptions, type JwksResolver } from "./jwks.ts";
import type { BaseClient } from "../core/client.ts";
import { decodeJwtClaims, decodeJwtHeader, type JwtClaimsResult } from "./jwt.ts";
import { checkTimes, rejected } from "./_claim_times.ts";
import { API_VERSION } from "./_api_version.ts";
import { redactCause, redactSecrets } from "../core/http_error.ts";
import { describeThrown } from "../core/_thrown.ts";

export { CLAIMS_LEEWAY_SECONDS } from "./_claim_times.ts";

/** What `getClaims` needs from an auth client; `AuthClient` satisfies it. */
export interface ClaimsSource {
  /** The auth client's JWKS resolver. */
  readonly jwks: JwksResolver;
  /**
   * Fetches the user of `accessToken` from the auth server itself (no
   * redirect followed). A success accepts the token only when it holds the
   * token's own user: an object whose `id` is the token's `sub`.
   *
   * @param accessToken The token.
   * @param options A cancellation signal.
   * @returns The user (an object with its `id`) or a failure.
   */
  getUser(
    accessToken: string,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<ServiceResult<unknown>>;
}

/** Options of {@linkcode getClaims}. */
export interface GetClaimsOptions {
  /** Verify the token (locally for ES256, else through the server). Default true. */
  verify?: boolean | undefined;
  /**
   * Accept a token past `exp`. Default false. Only a token verified locally
   * (ES256 with a `kid` the JWKS holds) can pass expired: the server, which
   * checks every other token, refuses an expired one (`UNAUTHORIZED`).
   */
  allowExpired?: boolean | undefined;
  /** When given, the `iss` claim must equal it. */
  expectedIssuer?: string | null | undefined;
  /** When given, `aud` (a string or an array) must be or contain it. */
  expectedAudience?: string | null | undefined;
  /** Cancels the JWKS or server call. */
  signal?: AbortSignal | undefined;
}

const SIGNATURE_ALGORITHM: EcdsaParams = { name: "ECDSA", hash: "SHA-256" };

let encoder: TextEncoder | undefined;

function buildResult(d: DecodedJwt): JwtClaimsResult {
  return {
    claims: decodeJwtClaims(d.payload),
    header: decodeJwtHeader(d.header),
    signature: d.signatureText,
    raw: d.payload,
  };
}

function checkIssuerAudience(payload: JsonObject, options?: GetClaimsOptions) {
  const iss = options?.expectedIssuer;
  if (iss !== undefined && iss !== null && payload.iss !== iss) {
    return rejected(
      "Cannot accept the JWT as its issuer is not the expected one",
      "invalid_issuer",
    );
  }
  const aud = options?.expectedAudience;
  if (aud !== undefined && aud !== null) {
    const claim = payload.aud;
    const ok = typeof claim === "string"
      ? claim === aud
      : Array.isArray(claim) && claim.includes(aud);
    if (!ok) {
      return rejected(
        "Cannot accept the JWT as its audience does not contain the expected one",
        "invalid_audience",
      );
    }
  }
  return null;
}

/** `crit` (RFC 7515 §4.1.11): this library understands no extension, so any listed one fails. */
function checkCritical(header: JsonObject) {
  const crit = header.crit;
  if (crit === undefined) return null;
  if (!Array.isArray(crit) || crit.length === 0 || crit.some((c) => typeof c !== "string")) {
    return rejected("Cannot accept the JWT as its 'crit' header is malformed", "bad_jwt");
  }
  return rejected(
    // As JSON, cut: the token's own text never reaches a log raw or whole.
    `Cannot accept the JWT as its critical header parameters are not supported: ${
      JSON.stringify(crit).slice(0, 100)
    }`,
    "unsupported_critical_header",
  );
}

async function serverValidate(
  auth: ClaimsSource,
  jwt: string,
  decoded: DecodedJwt,
  signal: AbortSignal | undefined,
): Promise<ServiceResult<JwtClaimsResult>> {
  const r = await auth.getUser(jwt, { signal });
  // The server accepts the token when it answers with the token's own user: any other answer (a
  // 2xx from a host a redirect or a proxy put in its place) proves nothing.
  if (r.ok) {
    const id = (r.value as { id?: unknown } | null)?.id;
    // A string on both sides: `{}` against a token without `sub` is no user.
    return typeof id === "string" && id && id === decoded.payload.sub
      ? success(buildResult(decoded))
      : rejected("Cannot accept the JWT as its user is not the server's", "bad_jwt");
  }
  // GoTrue refuses a token it read with 401 or 403 (`bad_jwt`, `session_not_found`, ...), and
  // with 400 one whose `sub` is no UUID or whose audience is another (`GET /user` carries nothing
  // else to refuse): the same refusal as a local one, so the same category.
  const e = r.error;
  return e.status === 400 || e.status === 401 || e.status === 403
    ? failure({ ...e, category: "UNAUTHORIZED" })
    : r;
}

/**
 * Reads and checks the claims of a JWT.
 *
 * The header and payload are decoded locally (a malformed token gives
 * `Failure(INVALID_ARGUMENT)`, code `bad_jwt`). `exp` is required and
 * checked unless `allowExpired`, `nbf` is checked when present, both with
 * {@linkcode CLAIMS_LEEWAY_SECONDS} of leeway; `iss` and `aud` are compared
 * only when `expectedIssuer` / `expectedAudience` are given. These checks run
 * before any I/O, so an expired token is rejected without a network call.
 *
 * With `verify` (default), an unknown `crit` header parameter or `alg: none`
 * (or no `alg`) fails. An `ES256` token with a `kid` is verified locally with
 * the key the client's JWKS resolver gives; a bad signature fails. Every
 * other case (HS256 and other algorithms, no `kid`, a `kid` the JWKS does not
 * hold, an unreachable JWKS, no WebCrypto) is validated by the server:
 * `auth.getUser(jwt)` answering with the token's own user (its `id` equal to
 * the token's `sub`) accepts the token; another user is `UNAUTHORIZED`
 * (`bad_jwt`), an answer that is no user is `DECODE` from an `AuthClient`
 * (its decoder) and `bad_jwt` from the verify-only source, and a failure is
 * returned (a 400, 401 or 403, the server refusing the token, as `UNAUTHORIZED`).
 * No redirect is followed: an answer from elsewhere would pass for the auth
 * server's.
 * Rejections have category `UNAUTHORIZED` and a code (`token_expired`,
 * `token_not_yet_valid`, `invalid_issuer`, `invalid_audience`,
 * `invalid_signature`, `unsupported_algorithm`,
 * `unsupported_critical_header`, `bad_jwt`). A hand-built `auth` whose
 * `getUser` or resolver throws or rejects is `Failure(UNKNOWN)`, the token
 * redacted from its message and cause: the call never rejects.
 *
 * @example Checking a token in a server handler
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, getClaims } from "@fetchbase/fetchbase/auth";
 *
 * // One auth client per project, kept across requests: its JWKS cache lives with it.
 * const auth = createAuthClient(createBaseClient("https://project.example", "anon-key"));
 * const token = "eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJ1MSJ9.c2ln";
 * const r = await getClaims(auth, token, { expectedAudience: "authenticated" });
 * console.log(r.ok ? r.value.claims.subject : r.error.code);
 * ```
 *
 * @param auth The auth client (anything with `jwks` and `getUser`).
 * @param jwt The token.
 * @param options Verification switches, expected issuer and audience, signal.
 * @returns The claims, header, signature and raw payload, or a failure.
 */
export function getClaims(
  auth: ClaimsSource,
  jwt: string,
  options?: GetClaimsOptions,
): Promise<ServiceResult<JwtClaimsResult>> {
  return verifyClaims(auth, jwt, options).catch((error: unknown) =>
    failure({
      message: redactSecrets(
        `Cannot verify the JWT as its claims source failed: ${describeThrown(error)}`,
        [jwt],
      ),
      category: "UNKNOWN",
      cause: redactCause(error, [jwt]),
    })
  );
}

async function verifyClaims(
  auth: ClaimsSource,
  jwt: string,
  options?: GetClaimsOptions,
): Promise<ServiceResult<JwtClaimsResult>> {
  const signal = options?.signal;
  const decoded = decodeJwt(jwt);
  if (!decoded.ok) return decoded;
  const d = decoded.value;
  const early = checkTimes(d.payload, options?.allowExpired === true, Date.now() / 1000) ??
    checkIssuerAudience(d.payload, options);
  if (early !== null) return early;
  if (options?.verify === false) return success(buildResult(d));

  const header = d.header;
  const critical = checkCritical(header);
  if (critical !== null) return critical;
  const alg = header.alg;
  if (
    alg === undefined || alg === null || alg === "" || (typeof alg === "string" &&
      alg.toLowerCase() === "none")
  ) {
    return rejected(
      "Cannot accept the JWT as it is not signed ('alg' none)",
      "unsupported_algorithm",
    );
  }
  if (typeof alg !== "string") {
    return rejected("Cannot accept the JWT as its 'alg' header is not a string", "bad_jwt");
  }
  const kid = header.kid;
  if (
    // A `kid` of more than 256 characters is none a key set names (GoTrue's are UUIDs): looked
    // up, a token could make the resolver remember 23,000 characters as unknown, and 1024 such
    // tokens held 24 MB for as long as it lived.
    alg !== "ES256" || typeof kid !== "string" || kid.trim() === "" || kid[256] ||
    // No WebCrypto (probed through globalThis): the server checks the token.
    typeof globalThis.crypto?.subtle?.verify !== "function"
  ) {
    return serverValidate(auth, jwt, d, signal);
  }

  let key = auth.jwks.cachedVerificationKey(kid);
  if (key === null) {
    const r = await auth.jwks.verificationKey(kid, { signal });
    if (!r.ok && r.error.category === "CANCELLED") return r;
    if (!r.ok || r.value === null) return serverValidate(auth, jwt, d, signal);
    key = r.value;
  }

  encoder ??= new TextEncoder();
  let valid = false;
  // Raw r||s of P-256 is 64 bytes: 86 base64url characters.
  if (d.signatureText.length === 86) {
    const signature = base64UrlToBytes(d.signatureText);
    try {
      valid = signature.length === 64 && await crypto.subtle.verify(
        SIGNATURE_ALGORITHM,
        key,
        signature,
        encoder.encode(jwt.slice(0, d.signingEnd)),
      );
    } catch {
      // A signature or key WebCrypto refuses is an invalid signature.
    }
  }
  if (!valid) {
    return rejected("Cannot accept the JWT as its signature is invalid", "invalid_signature");
  }
  return success(buildResult(d));
}

/**
 * A verify-only {@linkcode ClaimsSource} for edge functions that check tokens
 * and nothing else: the JWKS resolver plus a bare `GET /user` fallback,
 * without the rest of the auth client (a smaller bundle). Keep one per
 * project and reuse it so its key cache lives across requests.
 *
 * @example Verifying in a Worker
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createClaimsVerifier, getClaims } from "@fetchbase/fetchbase/auth";
 *
 * const verifier = createClaimsVerifier(createBaseClient("https://p.example", "anon-key"));
 * const r = await getClaims(verifier, "eyJ...");
 * ```
 *
 * @param client The base client.
 * @param options JWKS cache settings.
 * @returns The claims source.
 */
export function createClaimsVerifier(
  client: BaseClient,
  options?: { jwks?: JwksOptions | undefined },
): ClaimsSource {
  const jwks = createJwksResolver(client, options?.jwks);
  return {
    jwks,
    // Never redirected: only the auth server's own answer counts. The user is the body.
    getUser: (accessToken, o) =>
      client.request({
        area: "auth",
        path: "/user",
        accessToken,
        headers: API_VERSION,
        signal: o?.signal,
        redirect: "manual",
        // As every GoTrue answer: a body that never ends is cut.
        maxBodyBytes: AUTH_BODY_LIMIT,
      }).then((r) => r.ok ? success(r.value.body) : r),
  };
}
