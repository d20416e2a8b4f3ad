/**
 * ES256 signing keys and JWT minting for the local backend (WebCrypto only).
 */

import { decodeBase64Url, encodeBase64Url, utf8Decode, utf8Encode } from "../../core/encoding.ts";

/** An ES256 key pair with its public JWK. */
export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JsonWebKey & { kid: string; alg: string; use: string };
}

/** Generates a fresh ES256 (P-256) key pair. */
export async function generateSigningKey(kid: string): Promise<SigningKey> {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const jwk = await crypto.subtle.exportKey("jwk", pair.publicKey);
  return {
    kid,
    privateKey: pair.privateKey,
    publicKey: pair.publicKey,
    publicJwk: {
      // An exported P-256 public key has each of these.
      kty: jwk.kty!,
      crv: jwk.crv!,
      x: jwk.x!,
      y: jwk.y!,
      kid,
      alg: "ES256",
      use: "sig",
      key_ops: ["verify"],
    },
  };
}

/** Signs `payload` as a compact ES256 JWS. */
export async function signJwt(key: SigningKey, payload: Record<string, unknown>): Promise<string> {
  const header = encodeBase64Url(JSON.stringify({ alg: "ES256", kid: key.kid, typ: "JWT" }));
  const body = encodeBase64Url(JSON.stringify(payload));
  const input = `${header}.${body}`;
  const signature = await crypto.subtle.sign(
    { name: "ECDSA", hash: "SHA-256" },
    key.privateKey,
    utf8Encode(input),
  );
  return `${input}.${encodeBase64Url(new Uint8Array(signature))}`;
}

/** Verifies a compact ES256 JWS and returns its payload, or null when invalid or expired. */
export async function verifyJwt(
  key: SigningKey,
  token: string,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): Promise<Record<string, unknown> | null> {
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  try {
    const header = JSON.parse(utf8Decode(decodeBase64Url(parts[0])));
    if (header.alg !== "ES256" || header.kid !== key.kid) return null;
    const ok = await crypto.subtle.verify(
      { name: "ECDSA", hash: "SHA-256" },
      key.publicKey,
      decodeBase64Url(parts[2]),
      utf8Encode(`${parts[0]}.${parts[1]}`),
    );
    if (!ok) return null;
    const payload = JSON.parse(utf8Decode(decodeBase64Url(parts[1])));
    if (typeof payload.exp === "number" && payload.exp < nowSeconds) return null;
    return payload;
  } catch {
    return null;
  }
}
