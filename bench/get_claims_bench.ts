/**
 * getClaims with a cached key against bare WebCrypto (the floor), jose's
 * jwtVerify with a pre-imported key and @supabase/auth-js getClaims (which
 * re-imports the key on every call); plus generatePkceParams and
 * parseJwtClaims against auth-js's helpers (`generatePKCEVerifier` +
 * `generatePKCEChallenge`, `decodeJWT`; not exported from the package root,
 * imported from its CommonJS build `dist/main/lib/helpers.js`).
 *
 * Run: deno bench --allow-all bench/get_claims_bench.ts
 */

import { AuthClient } from "@supabase/auth-js";
import authHelpers from "@supabase/auth-js/dist/main/lib/helpers.js";
import { jwtVerify } from "jose";
import { createBaseClient } from "../core/client.ts";
import { encodeBase64Url } from "../core/encoding.ts";
import type { ServiceResult } from "../core/result.ts";
import { type ClaimsSource, getClaims } from "../auth/get_claims.ts";
import { createJwksResolver } from "../auth/jwks.ts";
import { parseJwtClaims } from "../auth/jwt.ts";
import { generatePkceParams } from "../auth/pkce.ts";

const BASE = "https://bench.example";
const KEY = "anon-key";

const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
  "sign",
  "verify",
]) as CryptoKeyPair;
const pub = await crypto.subtle.exportKey("jwk", pair.publicKey);
const jwk = {
  kty: "EC",
  crv: "P-256",
  x: pub.x,
  y: pub.y,
  kid: "bench-key",
  alg: "ES256",
  use: "sig",
};
const jwksText = JSON.stringify({ keys: [jwk] });

const now = Math.floor(Date.now() / 1000);
const payload = {
  aud: "authenticated",
  exp: now + 24 * 3600,
  iat: now,
  iss: `${BASE}/auth/v1`,
  sub: "11111111-1111-1111-1111-111111111111",
  email: "ada@example.com",
  phone: "",
  app_metadata: { provider: "email", providers: ["email"] },
  user_metadata: { email_verified: true },
  role: "authenticated",
  aal: "aal1",
  amr: [{ method: "password", timestamp: now }],
  session_id: "22222222-2222-2222-2222-222222222222",
  is_anonymous: false,
};
const input = `${encodeBase64Url(JSON.stringify({ alg: "ES256", kid: "bench-key", typ: "JWT" }))}.${
  encodeBase64Url(JSON.stringify(payload))
}`;
const sig = await crypto.subtle.sign(
  { name: "ECDSA", hash: "SHA-256" },
  pair.privateKey,
  new TextEncoder().encode(input),
);
const token = `${input}.${encodeBase64Url(new Uint8Array(sig))}`;

const answer = (url: string) =>
  url.endsWith("/.well-known/jwks.json")
    ? new Response(jwksText, { headers: { "content-type": "application/json" } })
    : new Response("{}", { status: 401 });
const fakeFetch =
  ((input: RequestInfo | URL) =>
    Promise.resolve(answer(String(input instanceof Request ? input.url : input)))) as typeof fetch;

// fetchbase: a stand-in auth client (AuthClient has the same two members).
const client = createBaseClient(BASE, KEY, { fetch: fakeFetch });
const auth: ClaimsSource = {
  jwks: createJwksResolver(client),
  getUser: (t) =>
    client.request({ area: "auth", path: "/user", accessToken: t }) as Promise<
      ServiceResult<unknown>
    >,
};
if (!(await getClaims(auth, token)).ok) throw new Error("fetchbase getClaims failed in setup");

// auth-js.
const authJs = new AuthClient({
  url: `${BASE}/auth/v1`,
  headers: { apikey: KEY },
  fetch: fakeFetch,
  persistSession: false,
  autoRefreshToken: false,
  detectSessionInUrl: false,
});
const warm = await authJs.getClaims(token);
if (warm.error) throw new Error(`auth-js getClaims failed in setup: ${warm.error.message}`);

// Bare WebCrypto: the floor any verifying getClaims must pay.
const bareKey = await crypto.subtle.importKey(
  "jwk",
  { kty: "EC", crv: "P-256", x: pub.x!, y: pub.y! },
  { name: "ECDSA", namedCurve: "P-256" },
  false,
  ["verify"],
);
const enc = new TextEncoder();
function b64uToBytes(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
async function bare(jwt: string): Promise<unknown> {
  const [h, p, s] = jwt.split(".");
  const header = JSON.parse(new TextDecoder().decode(b64uToBytes(h)));
  const claims = JSON.parse(new TextDecoder().decode(b64uToBytes(p)));
  const ok = await crypto.subtle.verify(
    { name: "ECDSA", hash: "SHA-256" },
    bareKey,
    b64uToBytes(s),
    enc.encode(`${h}.${p}`),
  );
  if (!ok || header.alg !== "ES256") throw new Error("bare verify failed");
  return claims;
}

async function sixteen(fn: () => Promise<unknown>) {
  await Promise.all(Array.from({ length: 16 }, fn));
}

Deno.bench({
  name: "bare WebCrypto (split, decode, parse, verify)",
  group: "getClaims x1",
  baseline: true,
  fn: async () => {
    await bare(token);
  },
});
Deno.bench({
  name: "fetchbase getClaims (cached key)",
  group: "getClaims x1",
  fn: async () => {
    const r = await getClaims(auth, token);
    if (!r.ok) throw new Error(r.error.message);
  },
});
Deno.bench({
  name: "jose jwtVerify (pre-imported key)",
  group: "getClaims x1",
  fn: async () => {
    await jwtVerify(token, bareKey);
  },
});
Deno.bench({
  name: "@supabase/auth-js getClaims",
  group: "getClaims x1",
  fn: async () => {
    const r = await authJs.getClaims(token);
    if (r.error) throw r.error;
  },
});

Deno.bench({
  name: "bare WebCrypto x16",
  group: "getClaims x16",
  baseline: true,
  fn: () => sixteen(() => bare(token)),
});
Deno.bench({
  name: "fetchbase getClaims x16",
  group: "getClaims x16",
  fn: () => sixteen(() => getClaims(auth, token)),
});
Deno.bench({
  name: "jose jwtVerify x16",
  group: "getClaims x16",
  fn: () => sixteen(() => jwtVerify(token, bareKey)),
});
Deno.bench({
  name: "@supabase/auth-js getClaims x16",
  group: "getClaims x16",
  fn: () => sixteen(() => authJs.getClaims(token)),
});

Deno.bench({
  name: "fetchbase generatePkceParams",
  group: "pkce",
  baseline: true,
  fn: async () => {
    await generatePkceParams();
  },
});
Deno.bench({
  name: "auth-js generatePKCEVerifier + generatePKCEChallenge",
  group: "pkce",
  fn: async () => {
    const v = authHelpers.generatePKCEVerifier();
    await authHelpers.generatePKCEChallenge(v);
  },
});

Deno.bench({
  name: "fetchbase parseJwtClaims",
  group: "parse",
  baseline: true,
  fn: () => {
    if (!parseJwtClaims(token).ok) throw new Error("parse failed");
  },
});
Deno.bench({
  name: "auth-js decodeJWT",
  group: "parse",
  fn: () => {
    authHelpers.decodeJWT(token);
  },
});

// `deno run --allow-all bench/get_claims_bench.ts --interleaved` measures the
// same candidates in interleaved rounds (median ops/s), which is steadier than
// Deno.bench on a loaded machine; the Node runner in bench/node/ does the same.
async function rate(fn: () => unknown, ms: number): Promise<number> {
  let n = 0;
  const start = performance.now();
  let t = start;
  while (t - start < ms) {
    for (let i = 0; i < 20; i++) await fn();
    n += 20;
    t = performance.now();
  }
  return (n * 1000) / (t - start);
}

async function group(title: string, candidates: [string, () => unknown][]): Promise<void> {
  const rates: number[][] = candidates.map(() => []);
  for (const [, fn] of candidates) await rate(fn, 100);
  for (let r = 0; r < 7; r++) {
    for (let i = 0; i < candidates.length; i++) rates[i].push(await rate(candidates[i][1], 250));
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const base = median(rates[0]);
  console.log(`\n${title}`);
  candidates.forEach(([name], i) => {
    const m = median(rates[i]);
    console.log(
      `  ${name.padEnd(52)} ${m.toFixed(0).padStart(9)} ops/s  ${(m / base).toFixed(2)}x`,
    );
  });
}

if (Deno.args.includes("--interleaved")) {
  console.log(`Deno ${Deno.version.deno}`);
  await group("getClaims x1 (ratio = throughput / bare WebCrypto)", [
    ["bare WebCrypto (split, decode, parse, verify)", () => bare(token)],
    ["fetchbase getClaims (cached key)", () => getClaims(auth, token)],
    ["jose jwtVerify (pre-imported key)", () => jwtVerify(token, bareKey)],
    ["@supabase/auth-js getClaims", () => authJs.getClaims(token)],
  ]);
  await group("getClaims x16", [
    ["bare WebCrypto x16", () => sixteen(() => bare(token))],
    ["fetchbase getClaims x16", () => sixteen(() => getClaims(auth, token))],
    ["jose jwtVerify x16", () => sixteen(() => jwtVerify(token, bareKey))],
    ["@supabase/auth-js getClaims x16", () => sixteen(() => authJs.getClaims(token))],
  ]);
  await group("pkce (ratio = throughput / fetchbase)", [
    ["fetchbase generatePkceParams", () => generatePkceParams()],
    [
      "auth-js generatePKCEVerifier + generatePKCEChallenge",
      () => authHelpers.generatePKCEChallenge(authHelpers.generatePKCEVerifier()),
    ],
  ]);
  await group("parse (ratio = throughput / fetchbase)", [
    ["fetchbase parseJwtClaims", () => parseJwtClaims(token)],
    ["auth-js decodeJWT", () => authHelpers.decodeJWT(token)],
  ]);
}
