import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { CLAIMS_LEEWAY_SECONDS, getClaims } from "../../auth/get_claims.ts";
import { encodeBase64Url } from "../../core/encoding.ts";
import { jsonResponse } from "../support/recording_fetch.ts";
import {
  b64json,
  BASE_URL,
  claims,
  harness,
  jwksBody,
  makeKey,
  nowSeconds,
  signEs256,
  signHs256,
} from "./_helpers.ts";

const USER = { id: "11111111-1111-1111-1111-111111111111", aud: "authenticated" };

Deno.test("getClaims verifies a valid ES256 token locally and decodes every field", async () => {
  const key = await makeKey("k1");
  const h = harness({ jwks: () => jwksBody(key.jwk), user: () => jsonResponse(USER) });
  const payload = claims({ custom: "x" });
  const token = await signEs256({ alg: "ES256", typ: "JWT", kid: "k1" }, payload, key.privateKey);

  const r = await getClaims(h.auth, token);
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  const v = r.value;
  assert.deepEqual(v.header, { algorithm: "ES256", type: "JWT", keyId: "k1" });
  assert.equal(v.claims.subject, payload.sub);
  assert.equal(v.claims.email, "ada@example.com");
  assert.equal(v.claims.phone, "");
  assert.equal(v.claims.role, "authenticated");
  assert.equal(v.claims.issuer, `${BASE_URL}/auth/v1`);
  assert.equal(v.claims.expiresAt, payload.exp);
  assert.equal(v.claims.notBefore, null);
  assert.equal(v.claims.issuedAt, payload.iat);
  assert.equal(v.claims.sessionId, payload.session_id);
  assert.equal(v.claims.authenticatorAssuranceLevel, "aal1");
  assert.equal(v.claims.isAnonymous, false);
  assert.deepEqual(v.claims.appMetadata, { provider: "email" });
  assert.deepEqual(v.claims.userMetadata, { name: "Ada" });
  assert.equal(v.signature, token.split(".")[2]);
  assert.equal(v.raw.custom, "x");
  assert.equal(v.raw.aud, "authenticated");
  assert.equal(h.userCalls(), 0);
  assert.equal(h.jwksCalls(), 1);

  // The key is cached: no further request.
  for (let i = 0; i < 5; i++) assert.ok((await getClaims(h.auth, token)).ok);
  assert.equal(h.jwksCalls(), 1);
  assert.equal(h.rec.requests.length, 1);
});

Deno.test("getClaims rejects a wrong or tampered signature without asking the server", async () => {
  const key = await makeKey("k1");
  const other = await makeKey("k1");
  const h = harness({ jwks: () => jwksBody(key.jwk), user: () => jsonResponse(USER) });
  const forged = await signEs256({ alg: "ES256", kid: "k1" }, claims(), other.privateKey);
  const r = await getClaims(h.auth, forged);
  assert.equal(r.ok, false);
  assert.equal(!r.ok && r.error.category, "UNAUTHORIZED");
  assert.equal(!r.ok && r.error.code, "invalid_signature");

  const good = await signEs256({ alg: "ES256", kid: "k1" }, claims(), key.privateKey);
  const [hd, , sig] = good.split(".");
  const tampered = `${hd}.${b64json(claims({ role: "service_role" }))}.${sig}`;
  const t = await getClaims(h.auth, tampered);
  assert.equal(!t.ok && t.error.code, "invalid_signature");

  // A DER-encoded or truncated signature is not raw r||s.
  const short = `${hd}.${good.split(".")[1]}.${sig.slice(0, 40)}`;
  assert.equal((await getClaims(h.auth, short)).ok, false);
  const empty = `${hd}.${good.split(".")[1]}.`;
  assert.equal((await getClaims(h.auth, empty)).ok, false);
  assert.equal(h.userCalls(), 0);
});

Deno.test("getClaims rejects alg none and a missing alg without any request", async () => {
  const h = harness({ user: () => jsonResponse(USER) });
  for (const header of [{ alg: "none" }, { alg: "NONE", kid: "k1" }, { typ: "JWT" }, { alg: "" }]) {
    const token = `${b64json(header)}.${b64json(claims())}.`;
    const r = await getClaims(h.auth, token);
    assert.equal(r.ok, false, JSON.stringify(header));
    assert.equal(!r.ok && r.error.category, "UNAUTHORIZED");
  }
  const numeric = `${b64json({ alg: 256 })}.${b64json(claims())}.c2ln`;
  assert.equal((await getClaims(h.auth, numeric)).ok, false);
  assert.equal(h.rec.requests.length, 0);
});

Deno.test("getClaims sends an HS256 token to the server: accepted only if getUser succeeds", async () => {
  const secret = new TextEncoder().encode("super-secret-jwt-token-with-at-least-32-characters");
  const token = await signHs256({ alg: "HS256", typ: "JWT" }, claims(), secret);
  const ok = harness({ user: () => jsonResponse(USER) });
  const r = await getClaims(ok.auth, token);
  assert.ok(r.ok);
  assert.equal(r.value.header.algorithm, "HS256");
  assert.equal(ok.userCalls(), 1);
  assert.equal(ok.jwksCalls(), 0);
  assert.equal(ok.rec.only.headers.get("authorization"), `Bearer ${token}`);

  const bad = harness({ user: () => jsonResponse({ msg: "bad jwt" }, { status: 401 }) });
  const f = await getClaims(bad.auth, token);
  assert.equal(!f.ok && f.error.category, "UNAUTHORIZED");
  assert.equal(bad.userCalls(), 1);

  // GoTrue answers a token it refuses with 403 and a code: the same category as a local refusal.
  const forbidden = harness({
    user: () => jsonResponse({ code: "bad_jwt", message: "invalid JWT" }, { status: 403 }),
  });
  const g = await getClaims(forbidden.auth, token);
  assert.equal(!g.ok && g.error.category, "UNAUTHORIZED");
  assert.equal(!g.ok && g.error.code, "bad_jwt");
  assert.equal(!g.ok && g.error.status, 403);
  // An outage is not a refusal.
  const down = harness({ user: () => jsonResponse({ message: "down" }, { status: 503 }) });
  const h = await getClaims(down.auth, token);
  assert.equal(!h.ok && h.error.category, "SERVER");
});

Deno.test("an HS256 token forged with the public key is never accepted locally", async () => {
  const key = await makeKey("k1");
  const h = harness({
    jwks: () => jwksBody(key.jwk),
    user: () => jsonResponse({ msg: "invalid JWT" }, { status: 401 }),
  });
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", key.publicKey));
  const secrets = [
    new TextEncoder().encode(JSON.stringify(key.jwk)),
    spki,
    new TextEncoder().encode(key.jwk.x!),
  ];
  for (const secret of secrets) {
    for (const kid of ["k1", undefined]) {
      const token = await signHs256({ alg: "HS256", kid }, claims(), secret);
      const r = await getClaims(h.auth, token);
      assert.equal(r.ok, false);
    }
  }
  // Every one of them went to the server.
  assert.equal(h.userCalls(), secrets.length * 2);
  // An ES256-labelled token carrying an HMAC signature fails locally too.
  const hmacAsEs = await signHs256({ alg: "ES256", kid: "k1" }, claims(), spki);
  assert.equal((await getClaims(h.auth, hmacAsEs)).ok, false);
});

Deno.test("getClaims falls back to the server for a missing kid, an unknown kid or no JWKS", async () => {
  const key = await makeKey("k1");
  const noKid = await signEs256({ alg: "ES256" }, claims(), key.privateKey);
  const h = harness({ jwks: () => jwksBody(key.jwk), user: () => jsonResponse(USER) });
  assert.ok((await getClaims(h.auth, noKid)).ok);
  assert.equal(h.userCalls(), 1);
  assert.equal(h.jwksCalls(), 0);

  const stranger = await makeKey("k9");
  const unknown = await signEs256({ alg: "ES256", kid: "k9" }, claims(), stranger.privateKey);
  const u = harness({
    jwks: () => jwksBody(key.jwk),
    user: () => jsonResponse({ msg: "bad" }, { status: 403 }),
  });
  const ur = await getClaims(u.auth, unknown);
  // The server's refusal is the same refusal as a local one: UNAUTHORIZED, status kept.
  assert.equal(!ur.ok && ur.error.category, "UNAUTHORIZED");
  assert.equal(!ur.ok && ur.error.status, 403);
  assert.equal(u.jwksCalls(), 1);
  assert.equal(u.userCalls(), 1);

  const down = harness({
    jwks: () => {
      throw new TypeError("connection refused");
    },
    user: () => jsonResponse(USER),
  });
  const good = await signEs256({ alg: "ES256", kid: "k1" }, claims(), key.privateKey);
  assert.ok((await getClaims(down.auth, good)).ok);
  assert.equal(down.jwksCalls(), 1);
  assert.equal(down.userCalls(), 1);

  const garbage = harness({
    jwks: () => new Response("<html>", { status: 200 }),
    user: () => jsonResponse({ msg: "bad" }, { status: 401 }),
  });
  assert.equal((await getClaims(garbage.auth, good)).ok, false);
  assert.equal(garbage.userCalls(), 1);
});

Deno.test("getClaims picks up a rotated key after the cooldown", async () => {
  const clock = FakeTimers.install({ toFake: ["Date"], now: Date.now() });
  try {
    const k1 = await makeKey("k1");
    const k2 = await makeKey("k2");
    const h = harness({
      jwks: (i) => (i === 0 ? jwksBody(k1.jwk) : jwksBody(k1.jwk, k2.jwk)),
      user: () => jsonResponse({ msg: "bad" }, { status: 401 }),
      options: { cooldownMs: 30_000 },
    });
    const t1 = await signEs256({ alg: "ES256", kid: "k1" }, claims(), k1.privateKey);
    assert.ok((await getClaims(h.auth, t1)).ok);
    clock.tick(31_000);
    const t2 = await signEs256({ alg: "ES256", kid: "k2" }, claims(), k2.privateKey);
    const r = await getClaims(h.auth, t2);
    assert.ok(r.ok);
    assert.equal(h.jwksCalls(), 2);
    assert.equal(h.userCalls(), 0);
  } finally {
    clock.uninstall();
  }
});

Deno.test("getClaims without WebCrypto falls back to the server", async () => {
  const key = await makeKey("k1");
  const token = await signEs256({ alg: "ES256", kid: "k1" }, claims(), key.privateKey);
  const h = harness({ jwks: () => jwksBody(key.jwk), user: () => jsonResponse(USER) });
  const original = Object.getOwnPropertyDescriptor(globalThis, "crypto")!;
  Object.defineProperty(globalThis, "crypto", {
    value: { getRandomValues: crypto.getRandomValues.bind(crypto) },
    configurable: true,
    writable: true,
  });
  try {
    const r = await getClaims(h.auth, token);
    assert.ok(r.ok);
  } finally {
    Object.defineProperty(globalThis, "crypto", original);
  }
  assert.equal(h.userCalls(), 1);
  assert.equal(h.jwksCalls(), 0);
});

Deno.test("exp and nbf are checked with the leeway; an expired token makes no request", async () => {
  const clock = FakeTimers.install({ toFake: ["Date"], now: 1_800_000_000_000 });
  try {
    const key = await makeKey("k1");
    const h = harness({ jwks: () => jwksBody(key.jwk), user: () => jsonResponse(USER) });
    const now = nowSeconds();
    const sign = (extra: Record<string, unknown>) =>
      signEs256({ alg: "ES256", kid: "k1" }, claims(extra), key.privateKey);

    const expired = await sign({ exp: now - CLAIMS_LEEWAY_SECONDS - 1 });
    const e = await getClaims(h.auth, expired);
    assert.equal(!e.ok && e.error.code, "token_expired");
    assert.equal(!e.ok && e.error.category, "UNAUTHORIZED");
    // Also through the server path: still no request.
    const hsExpired = await signHs256(
      { alg: "HS256" },
      claims({ exp: now - 3600 }),
      new Uint8Array(32),
    );
    assert.equal((await getClaims(h.auth, hsExpired)).ok, false);
    assert.equal((await getClaims(h.auth, expired, { verify: false })).ok, false);
    assert.equal(h.rec.requests.length, 0);

    assert.ok((await getClaims(h.auth, await sign({ exp: now - 10 }))).ok, "within leeway");
    assert.ok((await getClaims(h.auth, expired, { allowExpired: true })).ok);

    const early = await sign({ nbf: now + CLAIMS_LEEWAY_SECONDS + 5 });
    const n = await getClaims(h.auth, early);
    assert.equal(!n.ok && n.error.code, "token_not_yet_valid");
    assert.equal((await getClaims(h.auth, early, { allowExpired: true })).ok, false);
    assert.ok((await getClaims(h.auth, await sign({ nbf: now + 10 }))).ok, "nbf within leeway");
    // The exact edges (the clock is frozen on a whole second): expired once exp + leeway is
    // reached, valid from nbf - leeway on.
    const at = async (extra: Record<string, unknown>) =>
      (await getClaims(h.auth, await sign(extra))).errorOrNull()?.code ?? "ok";
    assert.equal(await at({ exp: now - CLAIMS_LEEWAY_SECONDS }), "token_expired");
    assert.equal(await at({ exp: now - CLAIMS_LEEWAY_SECONDS + 1 }), "ok");
    assert.equal(await at({ nbf: now + CLAIMS_LEEWAY_SECONDS }), "ok");
    assert.equal(await at({ nbf: now + CLAIMS_LEEWAY_SECONDS + 1 }), "token_not_yet_valid");

    const noExp = await sign({ exp: undefined });
    assert.equal((await getClaims(h.auth, noExp)).ok, false);
    assert.ok((await getClaims(h.auth, noExp, { allowExpired: true })).ok);
    assert.equal(
      (await getClaims(h.auth, await sign({ exp: "soon" }), { allowExpired: true })).ok,
      false,
    );
    assert.equal((await getClaims(h.auth, await sign({ nbf: "later" }))).ok, false);

    // Time moves: a valid token expires.
    const valid = await sign({ exp: now + 60 });
    assert.ok((await getClaims(h.auth, valid)).ok);
    clock.tick((60 + CLAIMS_LEEWAY_SECONDS + 1) * 1000);
    const before = h.rec.requests.length;
    assert.equal((await getClaims(h.auth, valid)).ok, false);
    assert.equal(h.rec.requests.length, before);
  } finally {
    clock.uninstall();
  }
});

Deno.test("issuer and audience are compared only when expected values are given", async () => {
  const key = await makeKey("k1");
  const h = harness({ jwks: () => jwksBody(key.jwk) });
  const sign = (extra: Record<string, unknown>) =>
    signEs256({ alg: "ES256", kid: "k1" }, claims(extra), key.privateKey);
  const token = await sign({});
  const iss = `${BASE_URL}/auth/v1`;
  assert.ok((await getClaims(h.auth, token, { expectedIssuer: iss })).ok);
  const wrongIss = await getClaims(h.auth, token, { expectedIssuer: "https://evil.example" });
  assert.equal(!wrongIss.ok && wrongIss.error.code, "invalid_issuer");
  const noIss = await sign({ iss: undefined });
  assert.ok((await getClaims(h.auth, noIss)).ok);
  assert.equal((await getClaims(h.auth, noIss, { expectedIssuer: iss })).ok, false);

  assert.ok((await getClaims(h.auth, token, { expectedAudience: "authenticated" })).ok);
  const wrongAud = await getClaims(h.auth, token, { expectedAudience: "anon" });
  assert.equal(!wrongAud.ok && wrongAud.error.code, "invalid_audience");
  const arr = await sign({ aud: ["a", "authenticated"] });
  assert.ok((await getClaims(h.auth, arr, { expectedAudience: "authenticated" })).ok);
  assert.equal((await getClaims(h.auth, arr, { expectedAudience: "b" })).ok, false);
  const noAud = await sign({ aud: undefined });
  assert.ok((await getClaims(h.auth, noAud)).ok);
  assert.equal((await getClaims(h.auth, noAud, { expectedAudience: "authenticated" })).ok, false);
  // Null means "not given".
  assert.ok((await getClaims(h.auth, token, { expectedIssuer: null, expectedAudience: null })).ok);
  // Mismatches need no request.
  const fresh = harness({ jwks: () => jwksBody(key.jwk) });
  assert.equal((await getClaims(fresh.auth, token, { expectedAudience: "x" })).ok, false);
  assert.equal(fresh.rec.requests.length, 0);
});

Deno.test("a crit header parameter is honoured: unknown or malformed crit is rejected", async () => {
  const key = await makeKey("k1");
  const h = harness({ jwks: () => jwksBody(key.jwk), user: () => jsonResponse(USER) });
  for (const crit of [["exp"], ["b64"], [], "exp", [1]]) {
    const token = await signEs256(
      { alg: "ES256", kid: "k1", crit, exp: 1, b64: true },
      claims(),
      key.privateKey,
    );
    const r = await getClaims(h.auth, token);
    assert.equal(r.ok, false, JSON.stringify(crit));
  }
  const hs = await signHs256({ alg: "HS256", crit: ["x"], x: 1 }, claims(), new Uint8Array(32));
  assert.equal((await getClaims(h.auth, hs)).ok, false);
  assert.equal(h.userCalls(), 0);
});

Deno.test("malformed tokens fail with INVALID_ARGUMENT and no request", async () => {
  const h = harness({ user: () => jsonResponse(USER) });
  const body = b64json(claims());
  const header = b64json({ alg: "ES256", kid: "k1" });
  const cases = [
    "",
    "abc",
    `${header}.${body}`,
    `${header}.${body}.sig.extra`,
    `${header}.${body}.a.b.c`,
    `${header}.${body}+.sig`,
    `${header}=.${body}.sig`,
    `${header}.${body}.si/g`,
    `${header}.x.sig`,
    `${header}.${encodeBase64Url("not json")}.sig`,
    `${header}.${encodeBase64Url("[1,2]")}.sig`,
    `${header}.${encodeBase64Url("null")}.sig`,
    `${encodeBase64Url("42")}.${body}.sig`,
    `${header}.${encodeBase64Url(new Uint8Array([0x22, 0xff, 0xfe, 0x22]))}.sig`,
    `${header}.${encodeBase64Url(JSON.stringify({ big: "a".repeat(40_000) }))}.sig`,
    `.${body}.sig`,
    `${header}..sig`,
  ];
  for (const token of cases) {
    const r = await getClaims(h.auth, token);
    assert.equal(r.ok, false, token.slice(0, 40));
    assert.equal(!r.ok && r.error.category, "INVALID_ARGUMENT", token.slice(0, 40));
  }
  for (const bad of [null, undefined, 42, {}]) {
    const r = await getClaims(h.auth, bad as unknown as string);
    assert.equal(!r.ok && r.error.category, "INVALID_ARGUMENT");
  }
  assert.equal(h.rec.requests.length, 0);
});

Deno.test("verify: false decodes without any request but still checks the times", async () => {
  const key = await makeKey("k1");
  const h = harness({ jwks: () => jwksBody(key.jwk) });
  const token = await signEs256({ alg: "ES256", kid: "k1" }, claims(), key.privateKey);
  const [hd, pl] = token.split(".");
  const unsigned = `${hd}.${pl}.AAAA`;
  const r = await getClaims(h.auth, unsigned, { verify: false });
  assert.ok(r.ok);
  assert.equal(r.value.signature, "AAAA");
  assert.equal(h.rec.requests.length, 0);
  assert.equal((await getClaims(h.auth, unsigned)).ok, false);
});

Deno.test("getClaims honours the caller's signal", async () => {
  const key = await makeKey("k1");
  const token = await signEs256({ alg: "ES256", kid: "k1" }, claims(), key.privateKey);
  const controller = new AbortController();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const h = harness({
    jwks: async () => {
      await gate;
      return jwksBody(key.jwk);
    },
  });
  const pending = getClaims(h.auth, token, { signal: controller.signal });
  controller.abort();
  const r = await pending;
  assert.equal(!r.ok && r.error.category, "CANCELLED");
  assert.equal(h.userCalls(), 0);
  release();
  // The shared fetch still completes for later callers.
  assert.ok((await getClaims(h.auth, token)).ok);
  assert.equal(h.jwksCalls(), 1);
});

Deno.test("a failing JWKS endpoint is asked once per cooldown, not once per verification", async () => {
  const clock = FakeTimers.install({ toFake: ["Date"], now: Date.now() });
  try {
    const key = await makeKey("k1");
    const token = await signEs256({ alg: "ES256", kid: "k1" }, claims(), key.privateKey);
    for (
      const answer of [
        () => new Response("boom", { status: 500 }),
        () => new Response("<html>", { status: 200 }),
        () => {
          throw new TypeError("connection refused");
        },
      ]
    ) {
      let down = true;
      const h = harness({
        jwks: () => (down ? answer() : jwksBody(key.jwk)),
        user: () => jsonResponse(USER),
        options: { cooldownMs: 30_000 },
      });
      for (let i = 0; i < 20; i++) assert.ok((await getClaims(h.auth, token)).ok);
      assert.equal(h.jwksCalls(), 1, "one fetch for twenty verifications");
      assert.equal(h.userCalls(), 20, "each verified by the server meanwhile");
      down = false;
      clock.tick(29_000);
      assert.ok((await getClaims(h.auth, token)).ok);
      assert.equal(h.jwksCalls(), 1);
      clock.tick(2_000);
      assert.ok((await getClaims(h.auth, token)).ok);
      assert.equal(h.jwksCalls(), 2, "asked again after the cooldown");
      assert.equal(h.userCalls(), 21, "then verified locally");
    }
  } finally {
    clock.uninstall();
  }
});

Deno.test("a signature with bits set past its data (a second spelling) is rejected", async () => {
  const key = await makeKey("k1");
  const token = await signEs256({ alg: "ES256", kid: "k1" }, claims(), key.privateKey);
  const h = harness({ jwks: () => jwksBody(key.jwk), user: () => jsonResponse(USER) });
  assert.ok((await getClaims(h.auth, token)).ok);
  // 64 bytes are 86 characters: the last one carries 2 data bits and 4 unused ones.
  const last = token[token.length - 1];
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const twin = token.slice(0, -1) + alphabet[alphabet.indexOf(last) + 1];
  const r = await getClaims(h.auth, twin);
  assert.equal(r.ok, false);
  assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(h.userCalls(), 0);
});

Deno.test("a payload starting with a UTF-8 BOM is not JSON (as GoTrue reads it)", async () => {
  const key = await makeKey("k1");
  const header = b64json({ alg: "ES256", kid: "k1" });
  const bom = new Uint8Array([
    0xef,
    0xbb,
    0xbf,
    ...new TextEncoder().encode(JSON.stringify(claims())),
  ]);
  const input = `${header}.${encodeBase64Url(bom)}`;
  const sig = await crypto.subtle.sign(
    { name: "ECDSA", hash: "SHA-256" },
    key.privateKey,
    new TextEncoder().encode(input),
  );
  const token = `${input}.${encodeBase64Url(new Uint8Array(sig))}`;
  const h = harness({ jwks: () => jwksBody(key.jwk), user: () => jsonResponse(USER) });
  const r = await getClaims(h.auth, token);
  assert.equal(r.ok, false);
  assert.match(r.errorOrNull()!.message, /payload is not base64url-encoded UTF-8 JSON/);
});

Deno.test("a non-numeric iat is rejected", async () => {
  const key = await makeKey("k1");
  const h = harness({ jwks: () => jwksBody(key.jwk), user: () => jsonResponse(USER) });
  for (const iat of ["abc", null, { n: 1 }]) {
    const token = await signEs256({ alg: "ES256", kid: "k1" }, claims({ iat }), key.privateKey);
    const r = await getClaims(h.auth, token);
    assert.equal(r.ok, false, String(iat));
    assert.match(r.errorOrNull()!.message, /'iat' claim is not a number/);
  }
});

Deno.test("a token of another algorithm naming the ES256 key's kid is never verified locally", async () => {
  const key = await makeKey("k1");
  const h = harness({ jwks: () => jwksBody(key.jwk) });
  // Signed with the ES256 key whatever the header says: only the server could accept it.
  for (const alg of ["ES384", "RS256", "PS256", "EdDSA", "es256", "none "]) {
    const token = await signEs256({ alg, kid: "k1" }, claims(), key.privateKey);
    const r = await getClaims(h.auth, token);
    assert.equal(!r.ok && r.error.category, "UNAUTHORIZED", alg);
  }
  assert.equal(h.jwksCalls(), 0);
  assert.equal(h.userCalls(), 6);
});

Deno.test("duplicate JSON members: the last one counts, as in JSON.parse and GoTrue's Go", async () => {
  const key = await makeKey("k1");
  const h = harness({ jwks: () => jwksBody(key.jwk) });
  const payload = b64json(claims());
  const sign = async (headerJson: string) => {
    const input = `${encodeBase64Url(headerJson)}.${payload}`;
    const sig = await crypto.subtle.sign(
      { name: "ECDSA", hash: "SHA-256" },
      key.privateKey,
      new TextEncoder().encode(input),
    );
    return `${input}.${encodeBase64Url(new Uint8Array(sig))}`;
  };
  const none = await getClaims(h.auth, await sign(`{"alg":"ES256","kid":"k1","alg":"none"}`));
  assert.equal(!none.ok && none.error.code, "unsupported_algorithm");
  const es256 = await getClaims(h.auth, await sign(`{"alg":"none","kid":"k1","alg":"ES256"}`));
  assert.ok(es256.ok);
  assert.equal(h.userCalls(), 0);
});

Deno.test("aud: non-string members are ignored, an empty array matches nothing", async () => {
  const key = await makeKey("k1");
  const h = harness({ jwks: () => jwksBody(key.jwk) });
  const check = async (aud: unknown) =>
    (await getClaims(
      h.auth,
      await signEs256({ alg: "ES256", kid: "k1" }, claims({ aud }), key.privateKey),
      { expectedAudience: "authenticated" },
    )).ok;
  assert.equal(await check([1, null, { a: 1 }, "authenticated"]), true);
  assert.equal(await check([]), false);
  assert.equal(await check({ 0: "authenticated" }), false);
  assert.equal(await check("authenticated "), false);
});

Deno.test("b64 without crit is ignored (RFC 7797 §6); with crit it is refused", async () => {
  const key = await makeKey("k1");
  const h = harness({ jwks: () => jwksBody(key.jwk) });
  const sign = (extra: Record<string, unknown>) =>
    signEs256({ alg: "ES256", kid: "k1", b64: false, ...extra }, claims(), key.privateKey);
  assert.ok((await getClaims(h.auth, await sign({}))).ok);
  const crit = await getClaims(h.auth, await sign({ crit: ["b64"] }));
  assert.equal(!crit.ok && crit.error.code, "unsupported_critical_header");
});

Deno.test("a kid published twice: the first usable ES256 entry is its key", async () => {
  const first = await makeKey("k1");
  const second = await makeKey("k1");
  const h = harness({ jwks: () => jwksBody({ ...first.jwk, use: "enc" }, second.jwk, first.jwk) });
  const token = (k: typeof first) => signEs256({ alg: "ES256", kid: "k1" }, claims(), k.privateKey);
  // The unusable entry gives way to the usable one after it; a later duplicate does not.
  assert.ok((await getClaims(h.auth, await token(second))).ok);
  const r = await getClaims(h.auth, await token(first));
  assert.equal(!r.ok && r.error.code, "invalid_signature");
  assert.equal(h.userCalls(), 0);
});

Deno.test("getClaims sends a token whose kid has more than 256 characters to the server, never to the key set", async () => {
  // A kid no key set names (GoTrue's are UUIDs): looked up, each such token made the resolver
  // refetch (once per cooldown) and remember up to 23,000 characters as unknown.
  const key = await makeKey("k1");
  const h = harness({ jwks: () => jwksBody(key.jwk), user: () => jsonResponse(USER) });
  const long = "k".repeat(257);
  const token = await signEs256({ alg: "ES256", kid: long }, claims(), key.privateKey);
  const r = await getClaims(h.auth, token);
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.equal(h.userCalls(), 1);
  assert.equal(h.jwksCalls(), 0);
  // 256 characters is still a kid to look up.
  const fits = await signEs256({ alg: "ES256", kid: "k".repeat(256) }, claims(), key.privateKey);
  await getClaims(h.auth, fits);
  assert.equal(h.jwksCalls(), 1);
});
