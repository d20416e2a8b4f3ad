/**
 * JWT and JWK models, their tolerant decoders, and {@linkcode parseJwtClaims},
 * which reads a token's claims without verifying it.
 *
 * @module
 */

import {
  asObject,
  DecodeError,
  type JsonObject,
  optBoolean,
  optNumber,
  optObject,
  optString,
} from "../core/decode.ts";
import type { ServiceResult } from "../core/result.ts";
import { decodeJwt } from "./_jwt_decode.ts";

export { MAX_JWT_LENGTH } from "./_jwt_decode.ts";

/** The protected header of a JWT. */
export interface JwtHeader {
  /** `alg`: the signing algorithm, e.g. `ES256` or `HS256`. */
  algorithm: string | null;
  /** `typ`: usually `JWT`. */
  type: string | null;
  /** `kid`: the id of the signing key in the JWKS. */
  keyId: string | null;
}

/** The standard and GoTrue claims of an access token. */
export interface JwtClaims {
  /** `sub`: the user id. */
  subject: string | null;
  /** `email`. */
  email: string | null;
  /** `phone`. */
  phone: string | null;
  /** `role`, e.g. `authenticated`. */
  role: string | null;
  /** `iss`: the issuer. */
  issuer: string | null;
  /** `exp`: Unix time in seconds after which the token is invalid. */
  expiresAt: number | null;
  /** `nbf`: Unix time in seconds before which the token is invalid. */
  notBefore: number | null;
  /** `iat`: Unix time in seconds at which the token was issued. */
  issuedAt: number | null;
  /** `session_id`. */
  sessionId: string | null;
  /** `aal`: `aal1` or `aal2`. */
  authenticatorAssuranceLevel: string | null;
  /** `is_anonymous`. */
  isAnonymous: boolean | null;
  /** `app_metadata`. */
  appMetadata: JsonObject | null;
  /** `user_metadata`. */
  userMetadata: JsonObject | null;
}

/**
 * What `getClaims` returns: decoded claims and header, the signature and every claim raw. With
 * the header and payload beside it, the signature rebuilds the token: log `claims`, not the whole
 * result (the Hono middleware's context value keeps it non-enumerable).
 */
export interface JwtClaimsResult {
  /** The decoded claims. */
  claims: JwtClaims;
  /** The decoded header. */
  header: JwtHeader;
  /** The signature part as base64url text, as it came in the token. */
  signature: string;
  /** The whole payload as JSON, including every non-standard claim (`aud`, `amr`, custom ones). */
  raw: JsonObject;
}

/** One JSON Web Key (RFC 7517) as published in a JWKS. */
export interface Jwk {
  /** `kty`: `EC`, `RSA`, `OKP` or `oct`. */
  keyType: string;
  /** `alg`, e.g. `ES256`. */
  algorithm: string | null;
  /** `kid`. */
  keyId: string | null;
  /** `crv`, e.g. `P-256`. */
  curve: string | null;
  /** `use`, e.g. `sig`. */
  use: string | null;
  /** `x`: EC x coordinate (base64url). */
  x: string | null;
  /** `y`: EC y coordinate (base64url). */
  y: string | null;
  /** `n`: RSA modulus (base64url). */
  modulus: string | null;
  /** `e`: RSA exponent (base64url). */
  exponent: string | null;
}

/** A JSON Web Key Set. */
export interface JwkSet {
  /** The keys; empty when the server sent none. */
  keys: Jwk[];
}

/**
 * Decodes a JWT header object.
 *
 * @example Decoding a header
 * ```ts
 * import { decodeJwtHeader } from "@fetchbase/fetchbase/auth";
 *
 * console.log(decodeJwtHeader({ alg: "ES256", kid: "k1" }).keyId); // k1
 * ```
 *
 * @param value The header JSON.
 * @returns The header; throws `DecodeError` when `value` is not an object.
 */
export function decodeJwtHeader(value: unknown): JwtHeader {
  const o = asObject(value, "JWT header");
  return { algorithm: optString(o, "alg"), type: optString(o, "typ"), keyId: optString(o, "kid") };
}

/**
 * Decodes a JWT payload into {@linkcode JwtClaims}; unknown claims are ignored.
 *
 * @example Decoding claims
 * ```ts
 * import { decodeJwtClaims } from "@fetchbase/fetchbase/auth";
 *
 * console.log(decodeJwtClaims({ sub: "u1", aal: "aal1" }).authenticatorAssuranceLevel); // aal1
 * ```
 *
 * @param value The payload JSON.
 * @returns The claims; throws `DecodeError` when `value` is not an object.
 */
export function decodeJwtClaims(value: unknown): JwtClaims {
  const o = asObject(value, "JWT payload");
  return {
    subject: optString(o, "sub"),
    email: optString(o, "email"),
    phone: optString(o, "phone"),
    role: optString(o, "role"),
    issuer: optString(o, "iss"),
    expiresAt: optNumber(o, "exp"),
    notBefore: optNumber(o, "nbf"),
    issuedAt: optNumber(o, "iat"),
    sessionId: optString(o, "session_id"),
    authenticatorAssuranceLevel: optString(o, "aal"),
    isAnonymous: optBoolean(o, "is_anonymous"),
    appMetadata: optObject(o, "app_metadata"),
    userMetadata: optObject(o, "user_metadata"),
  };
}

/**
 * Decodes one JWK. `kty` is required; the other members are nullable.
 *
 * @example Decoding a key
 * ```ts
 * import { decodeJwk } from "@fetchbase/fetchbase/auth";
 *
 * console.log(decodeJwk({ kty: "EC", crv: "P-256", x: "AA", y: "AA" }).curve); // P-256
 * ```
 *
 * @param value The key JSON.
 * @returns The key; throws `DecodeError` when `kty` is missing or `value` is no object.
 */
export function decodeJwk(value: unknown): Jwk {
  const o = asObject(value, "JWK");
  const keyType = optString(o, "kty");
  if (keyType === null) {
    throw new DecodeError("Expected field 'kty' of the JWK to be a string");
  }
  return {
    keyType,
    algorithm: optString(o, "alg"),
    keyId: optString(o, "kid"),
    curve: optString(o, "crv"),
    use: optString(o, "use"),
    x: optString(o, "x"),
    y: optString(o, "y"),
    modulus: optString(o, "n"),
    exponent: optString(o, "e"),
  };
}

/**
 * Decodes a JWKS. `keys` defaults to empty; entries that are not keys (no
 * `kty`) are skipped, so one odd entry does not hide the others.
 *
 * @example Decoding a key set
 * ```ts
 * import { decodeJwkSet } from "@fetchbase/fetchbase/auth";
 *
 * console.log(decodeJwkSet({ keys: [{ kty: "EC" }, { nope: 1 }] }).keys.length); // 1
 * ```
 *
 * @param value The key set JSON.
 * @returns The key set; throws `DecodeError` when `value` is not an object.
 */
export function decodeJwkSet(value: unknown): JwkSet {
  const o = asObject(value, "JWKS");
  const keys: Jwk[] = [];
  if (Array.isArray(o.keys)) {
    for (const entry of o.keys) {
      if (typeof entry === "object" && typeof entry?.kty === "string") {
        keys.push(decodeJwk(entry));
      }
    }
  }
  return { keys };
}

/**
 * Reads the claims of a JWT without verifying its signature or its times.
 * Use it to look at a token you already trust; use `getClaims` to check one.
 *
 * Every malformed token (not three parts, bad base64url, invalid UTF-8, a
 * header or payload that is not a JSON object, longer than
 * {@linkcode MAX_JWT_LENGTH}) gives a `Failure` with category
 * `INVALID_ARGUMENT` and code `bad_jwt`; nothing is thrown.
 *
 * @example Reading the subject
 * ```ts
 * import { parseJwtClaims } from "@fetchbase/fetchbase/auth";
 *
 * const token = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1MSJ9.c2ln";
 * const claims = parseJwtClaims(token);
 * if (claims.ok) console.log(claims.value.sub); // u1
 * ```
 *
 * @param jwt The token.
 * @returns Every claim of the payload as JSON, or a failure.
 */
export function parseJwtClaims(jwt: string): ServiceResult<JsonObject> {
  const decoded = decodeJwt(jwt);
  return decoded.map((d) => d.payload);
}
