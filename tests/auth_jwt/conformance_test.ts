/**
 * The same calls through @supabase/auth-js and fetchbase into recording
 * fetches: the JWKS request, the server fallback for symmetric tokens, the
 * PKCE challenge and the decoded claims must agree.
 */

import assert from "node:assert/strict";
import { AuthClient as AuthJsClient } from "@supabase/auth-js";
import authHelpers from "@supabase/auth-js/dist/main/lib/helpers.js";
import { getClaims } from "../../auth/get_claims.ts";
import { parseJwtClaims } from "../../auth/jwt.ts";
import { generatePkceParams, pkceChallengeS256 } from "../../auth/pkce.ts";
import { jsonResponse, type RecordedRequest, recordingFetch } from "../support/recording_fetch.ts";
import {
  API_KEY,
  BASE_URL,
  claims,
  harness,
  jwksBody,
  makeKey,
  signEs256,
  signHs256,
} from "./_helpers.ts";

const USER = { id: "11111111-1111-1111-1111-111111111111", aud: "authenticated" };

function authJs(fetchImpl: typeof fetch) {
  return new AuthJsClient({
    url: `${BASE_URL}/auth/v1`,
    headers: { apikey: API_KEY, Authorization: `Bearer ${API_KEY}` },
    fetch: fetchImpl,
    persistSession: false,
    autoRefreshToken: false,
    detectSessionInUrl: false,
  });
}

function wire(r: RecordedRequest) {
  return {
    method: r.method,
    path: r.url.pathname,
    query: r.url.search,
    apikey: r.headers.get("apikey"),
    authorization: r.headers.get("authorization"),
    body: r.text,
  };
}

Deno.test("conformance: the JWKS request of getClaims matches auth-js", async () => {
  const key = await makeKey("k1");
  const token = await signEs256({ alg: "ES256", kid: "k1" }, claims(), key.privateKey);
  const theirs = recordingFetch(() => jwksBody(key.jwk));
  const r1 = await authJs(theirs.fetch).getClaims(token);
  assert.equal(r1.error, null);
  const ours = harness({ jwks: () => jwksBody(key.jwk) });
  assert.ok((await getClaims(ours.auth, token)).ok);
  assert.deepEqual(wire(ours.rec.only), wire(theirs.only));
  assert.equal(ours.rec.only.url.pathname, "/auth/v1/.well-known/jwks.json");
});

Deno.test("conformance: an HS256 token is checked with GET /user as auth-js does", async () => {
  const token = await signHs256({ alg: "HS256" }, claims(), new Uint8Array(32).fill(1));
  const theirs = recordingFetch(() => jsonResponse(USER));
  const r1 = await authJs(theirs.fetch).getClaims(token);
  assert.equal(r1.error, null);
  const ours = harness({ user: () => jsonResponse(USER) });
  const r2 = await getClaims(ours.auth, token);
  assert.ok(r2.ok);
  assert.deepEqual(wire(ours.rec.only), wire(theirs.only));
  assert.equal(ours.rec.only.headers.get("authorization"), `Bearer ${token}`);
  // Both hand back the same payload.
  assert.deepEqual(r2.value.raw, r1.data?.claims);
});

Deno.test("conformance: PKCE challenges and decoded claims agree with auth-js", async () => {
  for (let i = 0; i < 20; i++) {
    const theirVerifier: string = authHelpers.generatePKCEVerifier();
    assert.equal(
      await pkceChallengeS256(theirVerifier),
      await authHelpers.generatePKCEChallenge(theirVerifier),
    );
    const ours = await generatePkceParams();
    assert.equal(ours.codeChallenge, await authHelpers.generatePKCEChallenge(ours.codeVerifier));
  }
  const key = await makeKey("k1");
  const token = await signEs256(
    { alg: "ES256", kid: "k1" },
    claims({ name: "Zoë ✓" }),
    key.privateKey,
  );
  const mine = parseJwtClaims(token);
  assert.ok(mine.ok);
  assert.deepEqual(mine.value, authHelpers.decodeJWT(token).payload);
});
