/** Test helpers for the JWT/JWKS area: keys, signed tokens, a stand-in auth client. */

import { createBaseClient } from "../../core/client.ts";
import { encodeBase64Url } from "../../core/encoding.ts";
import { type ClaimsSource, createClaimsVerifier } from "../../auth/get_claims.ts";
import type { JwksOptions, JwksResolver } from "../../auth/jwks.ts";
import { jsonResponse, type Recorder, recordingFetch } from "../support/recording_fetch.ts";

export const BASE_URL = "https://project.example";
export const API_KEY = "anon-key-0123456789";

/** An ES256 key pair with its public JWK. */
export interface TestKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JsonWebKey & { kid: string };
}

export async function makeKey(kid: string, extra: Record<string, unknown> = {}): Promise<TestKey> {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const exported = await crypto.subtle.exportKey("jwk", pair.publicKey);
  const jwk = {
    kty: "EC",
    crv: "P-256",
    x: exported.x,
    y: exported.y,
    kid,
    alg: "ES256",
    use: "sig",
    ...extra,
  } as JsonWebKey & { kid: string };
  return { kid, privateKey: pair.privateKey, publicKey: pair.publicKey, jwk };
}

export function b64json(value: unknown): string {
  return encodeBase64Url(JSON.stringify(value));
}

/** Signs `header.payload` with ES256 (raw r||s), as GoTrue does. */
export async function signEs256(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  privateKey: CryptoKey,
): Promise<string> {
  const input = `${b64json(header)}.${b64json(payload)}`;
  const sig = await crypto.subtle.sign(
    { name: "ECDSA", hash: "SHA-256" },
    privateKey,
    new TextEncoder().encode(input),
  );
  return `${input}.${encodeBase64Url(new Uint8Array(sig))}`;
}

/** Signs with HS256 using `secret` as the HMAC key. */
export async function signHs256(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  secret: Uint8Array,
): Promise<string> {
  const input = `${b64json(header)}.${b64json(payload)}`;
  const key = await crypto.subtle.importKey(
    "raw",
    secret as Uint8Array<ArrayBuffer>,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const sig = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(input));
  return `${input}.${encodeBase64Url(new Uint8Array(sig))}`;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

export function claims(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const now = nowSeconds();
  return {
    sub: "11111111-1111-1111-1111-111111111111",
    aud: "authenticated",
    iss: `${BASE_URL}/auth/v1`,
    exp: now + 3600,
    iat: now,
    email: "ada@example.com",
    phone: "",
    role: "authenticated",
    aal: "aal1",
    session_id: "22222222-2222-2222-2222-222222222222",
    is_anonymous: false,
    app_metadata: { provider: "email" },
    user_metadata: { name: "Ada" },
    amr: [{ method: "password", timestamp: now }],
    ...extra,
  };
}

export function jwksBody(...keys: unknown[]): Response {
  return jsonResponse({ keys });
}

/** A stand-in auth client over a recording fetch. */
export interface Harness {
  auth: ClaimsSource;
  jwks: JwksResolver;
  rec: Recorder;
  /** Requests to the JWKS route. */
  jwksCalls(): number;
  /** Requests to GET /user. */
  userCalls(): number;
}

export interface HarnessOptions {
  /** Answers the JWKS route; `index` counts JWKS requests only. */
  jwks?: (index: number, signal: AbortSignal | null) => Response | Promise<Response>;
  /** Answers GET /user. */
  user?: (token: string) => Response | Promise<Response>;
  options?: JwksOptions;
  baseUrl?: string;
}

export function harness(h: HarnessOptions = {}): Harness {
  let jwksIndex = 0;
  const rec = recordingFetch((req) => {
    if (req.url.pathname === "/auth/v1/.well-known/jwks.json") {
      return h.jwks ? h.jwks(jwksIndex++, req.signal) : jwksBody();
    }
    if (req.url.pathname === "/auth/v1/user") {
      const token = (req.headers.get("authorization") ?? "").replace(/^Bearer /, "");
      return h.user ? h.user(token) : jsonResponse({ msg: "invalid JWT" }, { status: 401 });
    }
    return jsonResponse({ msg: "not found" }, { status: 404 });
  });
  const client = createBaseClient(h.baseUrl ?? BASE_URL, API_KEY, { fetch: rec.fetch });
  // The verify-only source: its JWKS resolver and its bare GET /user.
  const auth: ClaimsSource = createClaimsVerifier(client, { jwks: h.options });
  const jwks = auth.jwks;
  const count = (path: string) => rec.requests.filter((r) => r.url.pathname === path).length;
  return {
    auth,
    jwks,
    rec,
    jwksCalls: () => count("/auth/v1/.well-known/jwks.json"),
    userCalls: () => count("/auth/v1/user"),
  };
}

/** A promise with its resolve function exposed. */
export function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A fetch answer that never settles unless `signal` aborts (then it rejects). */
export function never(signal: AbortSignal | null): Promise<Response> {
  return new Promise((_resolve, reject) => {
    signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}
