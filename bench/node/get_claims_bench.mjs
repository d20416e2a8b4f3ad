// @ts-nocheck -- runs under Node against the npm build, not type-checked by Deno
// Node runner for the getClaims benchmark: bundles the fetchbase TypeScript
// with esbuild (into the OS temp directory), then measures the same
// candidates as bench/get_claims_bench.ts in interleaved rounds.
//
// Run from the repository root: node bench/node/get_claims_bench.mjs

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createRequire } from "node:module";
import * as esbuild from "esbuild";
import { jwtVerify } from "jose";

const root = fileURLToPath(new URL("../../", import.meta.url));
const require = createRequire(join(root, "package.json"));
const { AuthClient } = require("@supabase/auth-js");
const authHelpers = require("@supabase/auth-js/dist/main/lib/helpers.js");

const dir = mkdtempSync(join(tmpdir(), "fetchbase-bench-"));
const outfile = join(dir, "fetchbase.mjs");
await esbuild.build({
  stdin: {
    contents: [
      'export { createBaseClient } from "./core/client.ts";',
      'export { encodeBase64Url } from "./core/encoding.ts";',
      'export { getClaims } from "./auth/get_claims.ts";',
      'export { createJwksResolver } from "./auth/jwks.ts";',
      'export { parseJwtClaims } from "./auth/jwt.ts";',
      'export { generatePkceParams } from "./auth/pkce.ts";',
    ].join("\n"),
    resolveDir: root,
    loader: "ts",
  },
  bundle: true,
  format: "esm",
  platform: "neutral",
  outfile,
  logLevel: "error",
});
const fb = await import(pathToFileURL(outfile).href);
rmSync(dir, { recursive: true, force: true });

const BASE = "https://bench.example";
const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
  "sign",
  "verify",
]);
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
const input = `${
  fb.encodeBase64Url(JSON.stringify({ alg: "ES256", kid: "bench-key", typ: "JWT" }))
}.${fb.encodeBase64Url(JSON.stringify(payload))}`;
const sig = await crypto.subtle.sign(
  { name: "ECDSA", hash: "SHA-256" },
  pair.privateKey,
  new TextEncoder().encode(input),
);
const token = `${input}.${fb.encodeBase64Url(new Uint8Array(sig))}`;

const fakeFetch = (input) => {
  const url = String(input instanceof Request ? input.url : input);
  return Promise.resolve(
    url.endsWith("/.well-known/jwks.json")
      ? new Response(jwksText, { headers: { "content-type": "application/json" } })
      : new Response("{}", { status: 401 }),
  );
};
const client = fb.createBaseClient(BASE, "anon-key", { fetch: fakeFetch });
const auth = {
  jwks: fb.createJwksResolver(client),
  getUser: (t) => client.request({ area: "auth", path: "/user", accessToken: t }),
};
if (!(await fb.getClaims(auth, token)).ok) throw new Error("fetchbase setup failed");
const authJs = new AuthClient({
  url: `${BASE}/auth/v1`,
  headers: { apikey: "anon-key" },
  fetch: fakeFetch,
  persistSession: false,
  autoRefreshToken: false,
  detectSessionInUrl: false,
});
if ((await authJs.getClaims(token)).error) throw new Error("auth-js setup failed");

const bareKey = await crypto.subtle.importKey(
  "jwk",
  { kty: "EC", crv: "P-256", x: pub.x, y: pub.y },
  { name: "ECDSA", namedCurve: "P-256" },
  false,
  ["verify"],
);
const enc = new TextEncoder();
const b64uToBytes = (s) => {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
};
async function bare(jwt) {
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
const x16 = (fn) => () => Promise.all(Array.from({ length: 16 }, fn));

/** Ops per second of `fn` over about `ms` milliseconds. */
async function rate(fn, ms) {
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

/** Interleaved rounds; median ops/s per candidate. */
async function group(title, candidates, { rounds = 7, ms = 250 } = {}) {
  const rates = candidates.map(() => []);
  for (const [, fn] of candidates) await rate(fn, 100); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < candidates.length; i++) rates[i].push(await rate(candidates[i][1], ms));
  }
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const base = median(rates[0]);
  console.log(`\n${title}`);
  for (let i = 0; i < candidates.length; i++) {
    const m = median(rates[i]);
    console.log(
      `  ${candidates[i][0].padEnd(52)} ${m.toFixed(0).padStart(9)} ops/s  ${
        (m / base).toFixed(2)
      }x`,
    );
  }
}

console.log(`Node ${process.version}`);
await group("getClaims x1 (ratio = throughput / bare WebCrypto)", [
  ["bare WebCrypto (split, decode, parse, verify)", () => bare(token)],
  ["fetchbase getClaims (cached key)", () => fb.getClaims(auth, token)],
  ["jose jwtVerify (pre-imported key)", () => jwtVerify(token, bareKey)],
  ["@supabase/auth-js getClaims", () => authJs.getClaims(token)],
]);
await group("getClaims x16", [
  ["bare WebCrypto x16", x16(() => bare(token))],
  ["fetchbase getClaims x16", x16(() => fb.getClaims(auth, token))],
  ["jose jwtVerify x16", x16(() => jwtVerify(token, bareKey))],
  ["@supabase/auth-js getClaims x16", x16(() => authJs.getClaims(token))],
]);
await group("pkce (ratio = throughput / fetchbase)", [
  ["fetchbase generatePkceParams", () => fb.generatePkceParams()],
  ["auth-js generatePKCEVerifier + generatePKCEChallenge", async () => {
    await authHelpers.generatePKCEChallenge(authHelpers.generatePKCEVerifier());
  }],
]);
await group("parse (ratio = throughput / fetchbase)", [
  ["fetchbase parseJwtClaims", () => fb.parseJwtClaims(token)],
  ["auth-js decodeJWT", () => authHelpers.decodeJWT(token)],
]);
