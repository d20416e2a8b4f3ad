import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { createBaseClient } from "../../core/client.ts";
import {
  createJwksResolver,
  JWKS_DEFAULTS,
  type JwksCacheEntry,
  requestJwks,
} from "../../auth/jwks.ts";
import { jsonResponse } from "../support/recording_fetch.ts";
import {
  API_KEY,
  BASE_URL,
  claims,
  deferred,
  harness,
  jwksBody,
  makeKey,
  never,
  signEs256,
} from "./_helpers.ts";
import { getClaims } from "../../auth/get_claims.ts";

Deno.test("the JWKS request: GET with the API key, manual redirect, path under /auth/v1", async () => {
  const seen: { url: string; init: RequestInit }[] = [];
  const fetchImpl = (input: RequestInfo | URL, init?: RequestInit) => {
    seen.push({ url: String(input), init: init ?? {} });
    return Promise.resolve(jsonResponse({ keys: [] }));
  };
  const client = createBaseClient(BASE_URL, API_KEY, {
    fetch: fetchImpl as typeof fetch,
    accessToken: "user-token",
  });
  const r = await requestJwks(client);
  assert.ok(r.ok);
  assert.equal(r.value, '{"keys":[]}');
  assert.equal(seen.length, 1);
  assert.equal(seen[0].url, `${BASE_URL}/auth/v1/.well-known/jwks.json`);
  assert.equal(seen[0].init.method, "GET");
  assert.equal(seen[0].init.redirect, "manual");
  const headers = new Headers(seen[0].init.headers);
  assert.equal(headers.get("apikey"), API_KEY);
  assert.equal(headers.get("authorization"), `Bearer ${API_KEY}`);
  assert.equal(createJwksResolver(client).url, `${BASE_URL}/auth/v1/.well-known/jwks.json`);
});

Deno.test("resolveSigningKey returns the key, or null when absent after one refetch", async () => {
  const k1 = await makeKey("k1");
  const h = harness({ jwks: () => jwksBody(k1.jwk), options: { cooldownMs: 0 } });
  const r = await h.jwks.resolveSigningKey("k1");
  assert.ok(r.ok);
  assert.equal(r.value?.keyType, "EC");
  assert.equal(r.value?.curve, "P-256");
  assert.equal(r.value?.keyId, "k1");
  assert.equal(r.value?.x, k1.jwk.x);
  assert.equal(r.value?.use, "sig");
  assert.equal(r.value?.algorithm, "ES256");
  assert.equal(r.value?.modulus, null);
  assert.equal(h.jwksCalls(), 1);
  // A miss on a fresh set forces exactly one refetch.
  const miss = await h.jwks.resolveSigningKey("nope");
  assert.ok(miss.ok);
  assert.equal(miss.value, null);
  assert.equal(h.jwksCalls(), 2);
  // A malformed kid is a Failure, never thrown, and fetches nothing.
  for (
    const r of [
      await h.jwks.resolveSigningKey(""),
      await h.jwks.resolveSigningKey(7 as unknown as string),
      await h.jwks.verificationKey("  "),
    ]
  ) {
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
    assert.match(r.errorOrNull()?.message ?? "", /'kid' must be a non-blank string/);
  }
  assert.equal(h.jwksCalls(), 2);
});

Deno.test("a failing JWKS fetch is a Failure: network, status, garbage, redirect, oversize", async () => {
  const cases: [string, () => Response | Promise<Response>, string][] = [
    ["network", () => Promise.reject(new TypeError("refused")), "NETWORK"],
    ["500", () => jsonResponse({ msg: "boom" }, { status: 500 }), "SERVER"],
    ["404", () => jsonResponse({ msg: "nope" }, { status: 404 }), "NOT_FOUND"],
    ["203", () => jsonResponse({ keys: [] }, { status: 203 }), "DECODE"],
    ["html", () => new Response("<html>hi</html>"), "DECODE"],
    ["array", () => jsonResponse([{ kty: "EC" }]), "DECODE"],
    ["no keys", () => jsonResponse({ key: [] }), "DECODE"],
    ["keys object", () => jsonResponse({ keys: { a: 1 } }), "DECODE"],
    ["null", () => new Response("null"), "DECODE"],
    [
      "redirect",
      () => new Response(null, { status: 302, headers: { location: "https://evil.example/j" } }),
      "UNKNOWN",
    ],
    [
      "oversized",
      () => jsonResponse({ keys: [], pad: "x".repeat(JWKS_DEFAULTS.maxBodyBytes) }),
      "DECODE",
    ],
  ];
  for (const [name, answer, category] of cases) {
    const h = harness({ jwks: answer });
    const r = await h.jwks.resolveSigningKey("k1");
    assert.equal(r.ok, false, name);
    assert.equal(!r.ok && r.error.category, category, name);
    assert.equal(h.jwksCalls(), 1, `${name}: no retry, no redirect followed`);
    assert.equal(h.rec.requests.length, 1, name);
  }
  // A custom cap.
  const small = harness({
    jwks: () => jwksBody({ kty: "EC", kid: "k1", crv: "P-256", x: "a", y: "b" }),
    options: { maxBodyBytes: 16 },
  });
  assert.equal((await small.jwks.resolveSigningKey("k1")).ok, false);
});

Deno.test("the JWKS request times out", async () => {
  const h = harness({ jwks: (_i, signal) => never(signal), options: { timeout: 40 } });
  const r = await h.jwks.resolveSigningKey("k1");
  assert.equal(!r.ok && r.error.category, "TIMEOUT");
});

Deno.test("100 concurrent callers on a slow JWKS share exactly one fetch", async () => {
  const k1 = await makeKey("k1");
  const gate = deferred<void>();
  const h = harness({
    jwks: async () => {
      await gate.promise;
      return jwksBody(k1.jwk);
    },
  });
  const pending = Array.from(
    { length: 100 },
    (_, i) => i % 2 ? h.jwks.resolveSigningKey("k1") : h.jwks.verificationKey("k1"),
  );
  await new Promise((r) => setTimeout(r, 20));
  gate.resolve();
  const results = await Promise.all(pending);
  assert.ok(results.every((r) => r.ok && r.value !== null));
  assert.equal(h.jwksCalls(), 1);
  // Imported once and cached.
  const keys = new Set(results.filter((_, i) => i % 2 === 0).map((r) => r.ok && r.value));
  assert.equal(keys.size, 1);
  assert.ok(h.jwks.cachedVerificationKey("k1") instanceof CryptoKey);
});

Deno.test("a caller never hangs on a shared fetch that does not settle", async () => {
  const k1 = await makeKey("k1");
  const h = harness({
    jwks: (i, signal) => (i === 0 ? never(signal) : jwksBody(k1.jwk)),
    options: { inflightWaitMs: 30, timeout: 2_000 },
  });
  const first = h.jwks.resolveSigningKey("k1");
  const started = Date.now();
  const second = await h.jwks.resolveSigningKey("k1");
  assert.ok(second.ok && second.value !== null);
  // About 30 ms; waiting for the shared fetch would take its whole 2 s timeout.
  assert.ok(Date.now() - started < 1_000, "bounded wait");
  assert.equal(h.jwksCalls(), 2);
  // Later callers are served from the cache the second fetch filled.
  assert.ok((await h.jwks.resolveSigningKey("k1")).ok);
  assert.equal(h.jwksCalls(), 2);
  const f = await first;
  assert.equal(!f.ok && f.error.category, "TIMEOUT");
});

Deno.test("many callers on a stuck shared fetch replace it once, not one fetch each", async () => {
  const k1 = await makeKey("k1");
  const h = harness({
    jwks: (i, signal) => (i === 0 ? never(signal) : jwksBody(k1.jwk)),
    options: { inflightWaitMs: 30, timeout: 300 },
  });
  const first = h.jwks.resolveSigningKey("k1");
  const rest = await Promise.all(Array.from({ length: 20 }, () => h.jwks.resolveSigningKey("k1")));
  assert.ok(rest.every((r) => r.ok && r.value !== null));
  assert.equal(h.jwksCalls(), 2);
  await first;
});

Deno.test("a caller whose wait for a stalled fetch ends after another fetch failed starts no new one", async () => {
  // A stalled key set: each fetch ends at its 600 ms timeout. F1 (at 0) fails at 600; a caller
  // that gave up on it started F2 at 200; a caller joining F2 at 500 gives up at 700, after F1
  // failed, and started a third fetch there, in the cooldown of the failure (the Hono review saw
  // four fetches and 8 to 11 s answers behind a hanging key set).
  const h = harness({
    jwks: (_, signal) => never(signal),
    options: { inflightWaitMs: 200, timeout: 600 },
  });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const a = h.jwks.resolveSigningKey("k1");
  const x = h.jwks.resolveSigningKey("k1");
  await sleep(500);
  const b = await h.jwks.resolveSigningKey("k1");
  assert.equal(b.ok, false);
  assert.equal(h.jwksCalls(), 2);
  await Promise.all([a, x]);
  assert.equal(h.jwksCalls(), 2);
});

Deno.test("a caller whose wait ends after one fetch succeeded and another failed takes the fresh set", async () => {
  // F1 answers at 700 ms; F2, started at 200 by a caller that gave up on F1, fails at 750; a
  // caller waiting on a stalled F3 gives up at 850: the set F1 brought is its answer, not F2's
  // failure (the check for a recent failure comes after the one for a new set).
  const k1 = await makeKey("k1");
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const h = harness({
    jwks: async (i, signal) => {
      if (i === 0) return await sleep(700).then(() => jwksBody(k1.jwk));
      if (i === 1) return await sleep(550).then(() => jsonResponse({}, { status: 500 }));
      return never(signal);
    },
    options: { inflightWaitMs: 200, timeout: 1200 },
  });
  const a = h.jwks.resolveSigningKey("k1");
  const b = h.jwks.resolveSigningKey("k1");
  await sleep(250);
  const e = h.jwks.resolveSigningKey("k1");
  await sleep(400);
  const c = await h.jwks.resolveSigningKey("k1");
  assert.ok(c.ok && c.value !== null, c.ok ? "no key" : c.error.message);
  await Promise.all([a, b, e]);
});

Deno.test("entries with private members are refused; only ES256 P-256 verify keys are imported", async () => {
  const good = await makeKey("good", { key_ops: ["verify"] });
  const bare = await makeKey("bare");
  delete bare.jwk.use;
  delete bare.jwk.alg;
  const base = { ...good.jwk };
  const variants: Record<string, unknown>[] = [
    { ...base, kid: "private", d: "c2VjcmV0" },
    { ...base, kid: "sym", kty: "oct", k: "c2VjcmV0" },
    { ...base, kid: "enc", use: "enc" },
    { ...base, kid: "es384", alg: "ES384" },
    { ...base, kid: "rs", alg: "RS256" },
    { ...base, kid: "sign-only", key_ops: ["sign"] },
    { ...base, kid: "ops-string", key_ops: "verify" },
    { ...base, kid: "p384", crv: "P-384" },
    { ...base, kid: "okp", kty: "OKP", crv: "Ed25519" },
    { kty: "RSA", kid: "rsa", n: "AQAB", e: "AQAB", alg: "RS256" },
    { ...base, kid: "short-x", x: "AAAA" },
    { ...base, kid: "padded-y", y: base.y + "=" },
    { ...base, kid: "number-y", y: 5 },
  ];
  const h = harness({
    jwks: () => jwksBody(good.jwk, bare.jwk, ...variants, null, 5, { no: "kty" }),
    options: { cooldownMs: 60_000 },
  });
  const set = await h.jwks.keySet();
  assert.ok(set.ok);
  const kids = set.value.keys.map((k) => k.keyId);
  assert.ok(!kids.includes("private") && !kids.includes("sym"), "private entries dropped");
  assert.ok(kids.includes("rsa"));
  // "private" was dropped: its miss forces the one refetch; later misses come from the cooldown.
  assert.equal((await h.jwks.resolveSigningKey("private")).getOrThrow(), null);
  const rsa = (await h.jwks.resolveSigningKey("rsa")).getOrThrow();
  assert.equal(rsa?.modulus, "AQAB");
  assert.equal(rsa?.exponent, "AQAB");
  assert.ok((await h.jwks.verificationKey("good")).getOrThrow() instanceof CryptoKey);
  assert.ok((await h.jwks.verificationKey("bare")).getOrThrow() instanceof CryptoKey);
  for (const v of variants) {
    const r = await h.jwks.verificationKey(v.kid as string);
    assert.ok(r.ok);
    assert.equal(r.value, null, v.kid as string);
  }
  assert.equal(h.jwksCalls(), 2);
});

Deno.test("cooldown: many unknown kids right after a fetch share one refetch, then none until the cooldown ends", async () => {
  const clock = FakeTimers.install({ toFake: ["Date"], now: Date.now() });
  try {
    const k1 = await makeKey("k1");
    const h = harness({
      jwks: () => jwksBody(k1.jwk),
      options: { cooldownMs: 10_000, negativeCacheMs: 60_000 },
    });
    assert.ok((await h.jwks.resolveSigningKey("k1")).ok);
    const misses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => h.jwks.resolveSigningKey(`random-${i}`)),
    );
    assert.ok(misses.every((r) => r.ok && r.value === null));
    // The misses force one refetch, shared by all 50.
    assert.equal(h.jwksCalls(), 2);
    // Within the cooldown of that fruitless refetch, new unknown kids fetch nothing.
    clock.tick(5_000);
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => h.jwks.resolveSigningKey(`more-${i}`)),
    );
    assert.equal(h.jwksCalls(), 2);
    // After the cooldown, 50 new unknown kids at once share one refetch.
    clock.tick(5_001);
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => h.jwks.resolveSigningKey(`other-${i}`)),
    );
    assert.equal(h.jwksCalls(), 3);
    // A miss answered from the cooldown is not negatively cached: once the
    // cooldown has passed again, the same kid is looked for once more.
    clock.tick(10_001);
    await h.jwks.resolveSigningKey("more-0");
    assert.equal(h.jwksCalls(), 4);
    // ...whereas kids missing after their own refetch are remembered.
    clock.tick(10_001);
    await h.jwks.resolveSigningKey("random-0");
    assert.equal(h.jwksCalls(), 4);
  } finally {
    clock.uninstall();
  }
});

Deno.test("negative cache: a kid missing after a refetch is answered null for a while", async () => {
  const clock = FakeTimers.install({ toFake: ["Date"], now: Date.now() });
  try {
    const k1 = await makeKey("k1");
    const h = harness({
      jwks: () => jwksBody(k1.jwk),
      options: { cooldownMs: 1_000, negativeCacheMs: 60_000 },
    });
    assert.ok((await h.jwks.resolveSigningKey("k1")).ok);
    clock.tick(2_000);
    assert.equal((await h.jwks.resolveSigningKey("ghost")).getOrThrow(), null);
    assert.equal(h.jwksCalls(), 2);
    clock.tick(10_000); // past the cooldown, within the negative cache
    assert.equal((await h.jwks.resolveSigningKey("ghost")).getOrThrow(), null);
    assert.equal(h.jwksCalls(), 2);
    clock.tick(60_000); // negative entry expired
    assert.equal((await h.jwks.resolveSigningKey("ghost")).getOrThrow(), null);
    assert.equal(h.jwksCalls(), 3);
  } finally {
    clock.uninstall();
  }
});

Deno.test("the set expires after maxAgeMs so rotated keys are picked up and removed ones dropped", async () => {
  const clock = FakeTimers.install({ toFake: ["Date"], now: Date.now() });
  try {
    const k1 = await makeKey("k1");
    const k2 = await makeKey("k2");
    const h = harness({ jwks: (i) => (i === 0 ? jwksBody(k1.jwk) : jwksBody(k2.jwk)) });
    assert.ok((await h.jwks.verificationKey("k1")).getOrThrow());
    clock.tick(JWKS_DEFAULTS.maxAgeMs - 1);
    assert.ok(h.jwks.cachedVerificationKey("k1"));
    assert.ok((await h.jwks.verificationKey("k1")).getOrThrow());
    assert.equal(h.jwksCalls(), 1);
    clock.tick(2);
    assert.equal(h.jwks.cachedVerificationKey("k1"), null);
    assert.equal((await h.jwks.verificationKey("k1")).getOrThrow(), null, "k1 was removed");
    assert.equal(h.jwksCalls(), 2);
    assert.ok((await h.jwks.verificationKey("k2")).getOrThrow());
    assert.equal(h.jwksCalls(), 2);
  } finally {
    clock.uninstall();
  }
});

Deno.test("while a refresh of a stale set is under way, other callers get the cached key", async () => {
  const clock = FakeTimers.install({ toFake: ["Date"], now: Date.now() });
  try {
    const k1 = await makeKey("k1");
    const gate = deferred<void>();
    const h = harness({
      jwks: async (i) => {
        if (i > 0) await gate.promise;
        return jwksBody(k1.jwk);
      },
    });
    assert.ok((await h.jwks.resolveSigningKey("k1")).ok);
    clock.tick(JWKS_DEFAULTS.maxAgeMs + 1);
    const refreshing = h.jwks.resolveSigningKey("k1");
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(h.jwksCalls(), 2);
    const served = await h.jwks.resolveSigningKey("k1");
    assert.ok(served.ok && served.value?.keyId === "k1");
    gate.resolve();
    assert.ok((await refreshing).ok);
    assert.equal(h.jwksCalls(), 2);
  } finally {
    clock.uninstall();
  }
});

/**
 * A resolver (no fetch timeout) whose JWKS endpoint answers k1 once, verified, then stalls until
 * `stalled` is resolved (k1 removed behind it).
 */
async function stallingAfterFirstAnswer() {
  const k1 = await makeKey("k1");
  const stalled = deferred<Response>();
  const h = harness({
    jwks: (i) => (i === 0 ? jwksBody(k1.jwk) : stalled.promise),
    options: { timeout: 0 },
  });
  assert.ok((await h.jwks.verificationKey("k1")).getOrThrow());
  return { h, stalled };
}

Deno.test("a stale set serves callers while its refresh runs, for 10 s and the wait at most, and never after a failed refresh: a key removed while the JWKS endpoint stalls stops verifying", async () => {
  const clock = FakeTimers.install({ toFake: ["Date"], now: Date.now() });
  try {
    const { h, stalled } = await stallingAfterFirstAnswer();
    // A quiet spell: the first call comes long after the set aged, and starts the refresh.
    clock.tick(JWKS_DEFAULTS.maxAgeMs + 60_000);
    const refreshing = h.jwks.verificationKey("k1");
    await new Promise((r) => setTimeout(r, 5));
    // While it runs, the stale key serves at once (a normal refresh holds nobody up).
    assert.ok((await h.jwks.verificationKey("k1")).getOrThrow());
    clock.tick(10_000 + JWKS_DEFAULTS.inflightWaitMs + 1);
    // Past the window, with the refresh still hanging: no longer served; the caller waits for
    // the refresh (`inflightWaitMs` at most), then falls back.
    const late = h.jwks.verificationKey("k1");
    let settled = false;
    late.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(settled, false, "not served from the stale set");
    stalled.resolve(jwksBody());
    assert.equal((await late).getOrThrow(), null, "k1 was removed");
    assert.equal((await refreshing).getOrThrow(), null);
  } finally {
    clock.uninstall();
  }
});

Deno.test("a stalled endpoint with no fetch timeout: the stale set serves for 12 s from its first refresh, however many later refreshes callers start", async () => {
  const clock = FakeTimers.install({
    toFake: ["Date", "setTimeout", "clearTimeout"],
    now: Date.now(),
  });
  try {
    const k1 = await makeKey("k1");
    const h = harness({
      jwks: (i, signal) => (i === 0 ? jwksBody(k1.jwk) : never(signal)),
      options: { timeout: 0 },
    });
    assert.ok((await h.jwks.verificationKey("k1")).getOrThrow());
    await clock.tickAsync(JWKS_DEFAULTS.maxAgeMs + 1);
    // A caller each second for a minute: those that give up on a stalled fetch start another.
    const served: number[] = [];
    for (let second = 0; second < 60; second++) {
      let key: unknown = undefined;
      h.jwks.verificationKey("k1").then((r) => (key = r.ok ? r.value : null));
      await clock.tickAsync(1_000);
      if (key) served.push(second);
    }
    assert.ok(served.length > 0, "served while the first refresh runs");
    // 12 s from the first refresh's start, whatever refreshes start after.
    assert.ok(served.at(-1)! <= 12, `served at ${served.join(",")}`);
  } finally {
    clock.uninstall();
  }
});

Deno.test("a caller arriving long after a hung refresh of a stale set began is not served from it", async () => {
  const clock = FakeTimers.install({ toFake: ["Date"], now: Date.now() });
  try {
    const { h, stalled } = await stallingAfterFirstAnswer();
    clock.tick(JWKS_DEFAULTS.maxAgeMs + 1);
    const first = h.jwks.verificationKey("k1"); // starts the refresh, which hangs
    await new Promise((r) => setTimeout(r, 5));
    clock.tick(3_600_000);
    const late = h.jwks.verificationKey("k1");
    let settled = false;
    late.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(settled, false, "not served: the refresh has hung for an hour");
    stalled.resolve(jwksBody());
    assert.equal((await late).getOrThrow(), null);
    assert.equal((await first).getOrThrow(), null);
  } finally {
    clock.uninstall();
  }
});

Deno.test("after a failed refresh a stale set serves nobody, not even during the next refresh (a removed key verified again with each)", async () => {
  const clock = FakeTimers.install({ toFake: ["Date"], now: Date.now() });
  try {
    const k1 = await makeKey("k1");
    const next = deferred<Response>();
    const h = harness({
      jwks: (i) =>
        i === 0 ? jwksBody(k1.jwk) : i === 1 ? jsonResponse({}, { status: 503 }) : next.promise,
    });
    assert.ok((await h.jwks.verificationKey("k1")).getOrThrow());
    clock.tick(JWKS_DEFAULTS.maxAgeMs + 1);
    assert.equal((await h.jwks.verificationKey("k1")).ok, false, "the refresh failed");
    clock.tick(JWKS_DEFAULTS.cooldownMs + 1);
    // The next refresh starts; a caller meanwhile is not served the stale k1.
    const refreshing = h.jwks.verificationKey("k1");
    await new Promise((r) => setTimeout(r, 5));
    const meanwhile = h.jwks.verificationKey("k1");
    let settled = false;
    meanwhile.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(settled, false);
    next.resolve(jwksBody());
    assert.equal((await meanwhile).getOrThrow(), null);
    assert.equal((await refreshing).getOrThrow(), null);
    assert.equal(h.jwksCalls(), 3);
  } finally {
    clock.uninstall();
  }
});

Deno.test("a cancelled caller stops waiting; the fetch goes on for the others", async () => {
  const k1 = await makeKey("k1");
  const gate = deferred<void>();
  const h = harness({
    jwks: async () => {
      await gate.promise;
      return jwksBody(k1.jwk);
    },
  });
  const controller = new AbortController();
  const a = h.jwks.resolveSigningKey("k1", { signal: controller.signal });
  const b = h.jwks.resolveSigningKey("k1");
  controller.abort();
  const ra = await a;
  assert.equal(!ra.ok && ra.error.category, "CANCELLED");
  gate.resolve();
  assert.ok((await b).ok);
  assert.equal(h.jwksCalls(), 1);
  const aborted = new AbortController();
  aborted.abort();
  const fresh = harness({ jwks: () => jwksBody(k1.jwk) });
  const rc = await fresh.jwks.resolveSigningKey("k1", { signal: aborted.signal });
  assert.equal(!rc.ok && rc.error.category, "CANCELLED");
  assert.equal(fresh.jwksCalls(), 0);
});

Deno.test("pluggable cache: sync or async, keyed by URL, survives a new resolver", async () => {
  const k1 = await makeKey("k1");
  for (const mode of ["sync", "async"] as const) {
    const store = new Map<string, JwksCacheEntry>();
    const cache = mode === "sync"
      ? {
        get: (k: string) => store.get(k),
        set: (k: string, e: JwksCacheEntry) => void store.set(k, e),
      }
      : {
        get: (k: string) => Promise.resolve(store.get(k)),
        set: async (k: string, e: JwksCacheEntry) => {
          await Promise.resolve();
          store.set(k, e);
        },
      };
    const a = harness({ jwks: () => jwksBody(k1.jwk), options: { cache } });
    assert.ok((await a.jwks.verificationKey("k1")).getOrThrow());
    assert.equal(a.jwksCalls(), 1);
    const entry = store.get(`${BASE_URL}/auth/v1/.well-known/jwks.json`);
    assert.ok(entry, mode);
    assert.deepEqual(JSON.parse(entry.jwks).keys[0].kid, "k1");
    assert.ok(Math.abs(entry.fetchedAt - Date.now()) < 5_000);

    // A "cold start": a new resolver reads the stored set and does not fetch.
    const b = harness({ jwks: () => jwksBody(), options: { cache } });
    assert.ok((await b.jwks.verificationKey("k1")).getOrThrow(), mode);
    assert.equal(b.jwksCalls(), 0, mode);

    // Another project never sees this entry.
    const other = harness({
      jwks: () => jwksBody(),
      options: { cache, cooldownMs: 0 },
      baseUrl: "https://other.example",
    });
    assert.equal((await other.jwks.resolveSigningKey("k1")).getOrThrow(), null);
    assert.equal(other.jwksCalls(), 1);
  }
});

Deno.test("pluggable cache: stale, corrupt or failing entries lead to a fetch", async () => {
  const k1 = await makeKey("k1");
  const url = `${BASE_URL}/auth/v1/.well-known/jwks.json`;
  const entries: unknown[] = [
    {
      jwks: JSON.stringify({ keys: [k1.jwk] }),
      fetchedAt: Date.now() - JWKS_DEFAULTS.maxAgeMs - 1,
    },
    { jwks: "not json", fetchedAt: Date.now() },
    { jwks: 5, fetchedAt: Date.now() },
    { jwks: "{}", fetchedAt: "now" },
    // A time that is no finite number: a string of one, NaN, Infinity.
    { jwks: JSON.stringify({ keys: [k1.jwk] }), fetchedAt: String(Date.now()) },
    { jwks: JSON.stringify({ keys: [k1.jwk] }), fetchedAt: Number.NaN },
    { jwks: JSON.stringify({ keys: [k1.jwk] }), fetchedAt: -Infinity },
    null,
  ];
  for (const entry of entries) {
    const h = harness({
      jwks: () => jwksBody(k1.jwk),
      options: {
        cache: { get: (k) => (k === url ? entry as JwksCacheEntry : null), set: () => {} },
      },
    });
    assert.ok((await h.jwks.resolveSigningKey("k1")).getOrThrow());
    assert.equal(h.jwksCalls(), 1, JSON.stringify(entry));
  }
  const throwing = harness({
    jwks: () => jwksBody(k1.jwk),
    options: {
      cache: {
        get: () => {
          throw new Error("kv down");
        },
        set: () => Promise.reject(new Error("kv down")),
      },
    },
  });
  assert.ok((await throwing.jwks.resolveSigningKey("k1")).getOrThrow());
  // A cache that never answers costs at most inflightWaitMs.
  const hanging = harness({
    jwks: () => jwksBody(k1.jwk),
    options: {
      inflightWaitMs: 20,
      cache: { get: () => new Promise(() => {}), set: () => new Promise(() => {}) },
    },
  });
  assert.ok((await hanging.jwks.resolveSigningKey("k1")).getOrThrow());
});

Deno.test("a stuck cache store is skipped after one bounded wait", async () => {
  const clock = FakeTimers.install({ toFake: ["Date"], now: Date.now() });
  try {
    const k1 = await makeKey("k1");
    let reads = 0;
    const h = harness({
      jwks: () => jwksBody(k1.jwk),
      options: {
        inflightWaitMs: 20,
        cache: {
          get: () => {
            reads++;
            return new Promise(() => {});
          },
          set: () => {},
        },
      },
    });
    const started = performance.now();
    assert.ok((await h.jwks.resolveSigningKey("k1")).getOrThrow());
    clock.tick(JWKS_DEFAULTS.maxAgeMs + 1);
    assert.ok((await h.jwks.resolveSigningKey("k1")).getOrThrow());
    assert.equal(reads, 1);
    assert.equal(h.jwksCalls(), 2);
    assert.ok(performance.now() - started < 1_000);
  } finally {
    clock.uninstall();
  }
});

Deno.test("resolvers never share state across base URLs", async () => {
  const k1 = await makeKey("k1");
  const a = harness({ jwks: () => jwksBody(k1.jwk) });
  const b = harness({ jwks: () => jwksBody(), baseUrl: "https://b.example" });
  assert.ok((await a.jwks.resolveSigningKey("k1")).getOrThrow());
  assert.equal((await b.jwks.resolveSigningKey("k1")).getOrThrow(), null);
  assert.equal(b.rec.only.url.origin, "https://b.example");
});

Deno.test("resolver options are validated eagerly", () => {
  const client = createBaseClient(BASE_URL, API_KEY);
  for (const name of ["maxAgeMs", "cooldownMs", "negativeCacheMs", "inflightWaitMs", "timeout"]) {
    assert.throws(() => createJwksResolver(client, { [name]: -1 }), RangeError, name);
    assert.throws(() => createJwksResolver(client, { [name]: Number.NaN }), RangeError, name);
    // A duration may be fractional or endless.
    createJwksResolver(client, { [name]: 1.5 });
    createJwksResolver(client, { [name]: Infinity });
  }
  // A byte cap is a whole number, as the transport takes it: a fraction or Infinity would pass
  // here and fail every fetch later (as a CANCELLED, with no server fallback).
  for (const bad of [-1, Number.NaN, 1.5, Infinity, 2 ** 53]) {
    assert.throws(
      () => createJwksResolver(client, { maxBodyBytes: bad }),
      (e: unknown) =>
        e instanceof RangeError && /'maxBodyBytes' must be a non-negative integer/.test(e.message),
      String(bad),
    );
  }
  assert.equal(String(createJwksResolver(client)).includes(API_KEY), false);
});

Deno.test("the resolver's maxBodyBytes reaches the JWKS fetch: a body over it is a DECODE failure, one within it is read", async () => {
  const k = await makeKey("k1");
  const body = JSON.stringify({ keys: [k.jwk] });
  for (const [cap, ok] of [[body.length, true], [body.length - 1, false]] as const) {
    const h = harness({
      jwks: () => jsonResponse({ keys: [k.jwk] }),
      options: { maxBodyBytes: cap },
    });
    const r = await h.jwks.keySet();
    assert.equal(r.ok, ok, String(cap));
    if (!r.ok) assert.equal(r.error.category, "DECODE");
  }
});

Deno.test("a stalled JWKS endpoint gets a bounded number of fetches, however many verifications wait on it", async () => {
  const k = await makeKey("k1");
  const h = harness({
    jwks: (_i, signal) => never(signal),
    user: () => jsonResponse({ id: claims().sub, aud: "authenticated" }),
    options: { timeout: 600, inflightWaitMs: 50 },
  });
  const token = await signEs256({ alg: "ES256", kid: "k1" }, claims(), k.privateKey);
  const results = await Promise.all(Array.from({ length: 40 }, () => getClaims(h.auth, token)));
  assert.ok(h.jwksCalls() <= 3, `${h.jwksCalls()} JWKS fetches`);
  // Each verification still gets an answer: the server's, as for an unreachable JWKS.
  assert.equal(results.filter((r) => r.ok).length, 40);
  await new Promise((r) => setTimeout(r, 700)); // let the shared fetch time out
});

Deno.test("an external cache entry dated further ahead than the clock skew is not taken as fresh for ever", async () => {
  const old = await makeKey("old");
  const fresh = await makeKey("new");
  for (const [ahead, expectFetch] of [[60 * 60_000, true], [2_000, false]] as const) {
    const stored = { jwks: JSON.stringify({ keys: [old.jwk] }), fetchedAt: Date.now() + ahead };
    const h = harness({
      jwks: () => jwksBody(fresh.jwk), // the server rotated "old" out
      options: { cache: { get: () => stored, set: () => {} } },
    });
    const token = await signEs256({ alg: "ES256", kid: "old" }, claims(), old.privateKey);
    const r = await getClaims(h.auth, token);
    if (expectFetch) {
      assert.equal(h.jwksCalls(), 1, "an entry an hour ahead is ignored: the server is asked");
      assert.equal(r.ok, false, "the rotated-out key no longer verifies");
    } else {
      assert.equal(h.jwksCalls(), 0, "an entry within the skew is used");
      assert.ok(r.ok);
    }
  }
});

Deno.test("default options: a key rotated in seconds after a fetch is found by the refetch its miss forces", async () => {
  const k1 = await makeKey("k1");
  const k2 = await makeKey("k2-rotated");
  let keys = [k1.jwk];
  const h = harness({ jwks: () => jwksBody(...keys) });
  assert.ok((await h.jwks.resolveSigningKey("k1")).getOrThrow());
  keys = [k1.jwk, k2.jwk];
  const rotated = (await h.jwks.resolveSigningKey("k2-rotated")).getOrThrow();
  assert.equal(rotated?.keyId, "k2-rotated");
  assert.equal(h.jwksCalls(), 2);
  // Both are now answered from the cache.
  assert.ok((await h.jwks.verificationKey("k2-rotated")).getOrThrow() instanceof CryptoKey);
  assert.equal(h.jwksCalls(), 2);
});

Deno.test("pluggable cache: an entry that throws when read (a getter, a proxy) is a miss: the set is fetched, nothing rejects", async () => {
  const k1 = await makeKey("k1");
  const throwing = {
    get jwks(): string {
      throw new Error("entry getter");
    },
    fetchedAt: Date.now(),
  };
  for (const inflightWaitMs of [0, 2_000]) {
    const h = harness({
      jwks: () => jwksBody(k1.jwk),
      options: { cache: { get: () => throwing, set: () => {} }, inflightWaitMs },
    });
    assert.ok((await h.jwks.resolveSigningKey("k1")).getOrThrow(), String(inflightWaitMs));
    assert.equal(h.jwksCalls(), 1);
  }
  // An unhandled rejection would fail this test once the microtasks have run.
  await new Promise((resolve) => setTimeout(resolve, 0));
});

Deno.test("inflightWaitMs 0 waits for no cache read or write: a cache that never answers cannot hold a verification", async () => {
  const k1 = await makeKey("k1");
  const token = await signEs256({ alg: "ES256", kid: "k1" }, claims(), k1.privateKey);
  const silent = new Promise<never>(() => {});
  for (
    const cache of [
      { get: () => silent, set: () => {} }, // reads never answer
      { get: () => null, set: () => silent }, // writes never answer
    ]
  ) {
    const h = harness({ jwks: () => jwksBody(k1.jwk), options: { cache, inflightWaitMs: 0 } });
    const results = await Promise.all([1, 2, 3].map(() => getClaims(h.auth, token)));
    for (const r of results) assert.ok(r.ok, r.ok ? "" : r.error.message);
    assert.equal(h.jwksCalls(), 1);
  }
});

Deno.test("a refresh that lands while the old entry's key is being imported still gets its key on the hot path", async () => {
  const k1 = await makeKey("k1");
  const token = await signEs256({ alg: "ES256", kid: "k1" }, claims(), k1.privateKey);
  const jwksText = JSON.stringify({ keys: [k1.jwk] });
  let gate = deferred<void>();
  const h = harness({
    jwks: async () => {
      await gate.promise;
      return jwksBody(k1.jwk);
    },
    user: () => jsonResponse({ id: claims().sub }),
    options: {
      // Long enough for the checks after each refresh to find the set fresh on a loaded machine.
      maxAgeMs: 250,
      // A cold start from a set another isolate stored a while ago: stale, so refreshed.
      cache: { get: () => ({ jwks: jwksText, fetchedAt: Date.now() - 5_000 }), set: () => {} },
    },
  });
  const first = getClaims(h.auth, token); // starts the refresh
  await new Promise((r) => setTimeout(r, 5));
  gate.resolve(); // the answer arrives while a second caller imports the stale entry's key
  const second = getClaims(h.auth, token);
  assert.ok((await first).ok);
  assert.ok((await second).ok);
  for (let round = 0; round < 2; round++) {
    await new Promise((r) => setTimeout(r, 260)); // stale again: the next call refreshes
    gate = deferred<void>();
    gate.resolve();
    assert.ok((await getClaims(h.auth, token)).ok);
    assert.ok((await getClaims(h.auth, token)).ok);
    assert.ok(h.jwks.cachedVerificationKey("k1") instanceof CryptoKey, `round ${round}`);
  }
});

Deno.test("a wall clock stepped back does not keep a key set fresh: a removed key is refetched and refused", async () => {
  const clock = FakeTimers.install({ toFake: ["Date"], now: 1_800_000_000_000 });
  try {
    const k1 = await makeKey("k1");
    const k2 = await makeKey("k2");
    let keys: unknown[] = [k1.jwk];
    const h = harness({
      jwks: () => jwksBody(...keys),
      user: () => jsonResponse({}, { status: 401 }),
    });
    const sign = async () =>
      await signEs256(
        { alg: "ES256", kid: "k1" },
        claims({ exp: Date.now() / 1000 + 3600 }),
        k1.privateKey,
      );
    assert.ok((await getClaims(h.auth, await sign())).ok);
    keys = [k2.jwk]; // k1 is revoked
    clock.setSystemTime(Date.now() - 3_600_000); // the clock steps back an hour...
    clock.tick(1_000); // ...and a second passes
    assert.equal(h.jwks.cachedVerificationKey("k1"), null, "the set is not fresh");
    const r = await getClaims(h.auth, await sign());
    assert.equal(r.ok, false);
    assert.equal(h.jwksCalls(), 2, "refetched");
    assert.equal(h.userCalls(), 1, "k1 is gone from the new set: the server decides (401)");
  } finally {
    clock.uninstall();
  }
});

Deno.test("the documented defaults are the ones a resolver without options uses: 10 min age, 30 s cooldown, 60 s negative cache, 10 s timeout", async () => {
  assert.deepEqual({ ...JWKS_DEFAULTS }, {
    maxAgeMs: 600_000,
    cooldownMs: 30_000,
    negativeCacheMs: 60_000,
    inflightWaitMs: 2_000,
    timeout: 10_000,
    maxBodyBytes: 65_536,
  });
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const k1 = await makeKey("k1");
    const h = harness({ jwks: () => jwksBody(k1.jwk) });
    assert.ok((await h.jwks.resolveSigningKey("k1")).getOrThrow());
    // An unknown kid forces one refetch; within 30 s of it no other is made (and within 60 s the
    // same kid is answered from the negative cache).
    assert.equal((await h.jwks.resolveSigningKey("nope")).getOrThrow(), null);
    assert.equal(h.jwksCalls(), 2);
    clock.tick(29_000);
    assert.equal((await h.jwks.resolveSigningKey("other")).getOrThrow(), null);
    assert.equal(h.jwksCalls(), 2, "cooldown");
    clock.tick(2_000); // 31 s after the refetch: the cooldown is over, "nope" still remembered
    assert.equal((await h.jwks.resolveSigningKey("nope")).getOrThrow(), null);
    assert.equal(h.jwksCalls(), 2, "negative cache");
    clock.tick(30_000); // 61 s: forgotten
    assert.equal((await h.jwks.resolveSigningKey("nope")).getOrThrow(), null);
    assert.equal(h.jwksCalls(), 3);
    // The set is used for 10 min after its fetch, then refreshed.
    clock.tick(600_000 - 1_000);
    assert.ok((await h.jwks.resolveSigningKey("k1")).getOrThrow());
    assert.equal(h.jwksCalls(), 3);
    clock.tick(2_000);
    assert.ok((await h.jwks.resolveSigningKey("k1")).getOrThrow());
    assert.equal(h.jwksCalls(), 4);
  } finally {
    clock.uninstall();
  }
});

Deno.test("a JWKS endpoint that never answers times out after the default 10 s", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const h = harness({ jwks: (_i, signal) => never(signal) });
    let settled = false;
    const r = h.jwks.keySet().then((x) => {
      settled = true;
      return x;
    });
    await clock.tickAsync(9_900);
    assert.equal(settled, false);
    await clock.tickAsync(200);
    assert.equal((await r).errorOrNull()?.category, "TIMEOUT");
  } finally {
    clock.uninstall();
  }
});

Deno.test("a key whose coordinates are no canonical 32-byte base64url is no ES256 key: the token goes to the server", async () => {
  const k = await makeKey("k1");
  const x = k.jwk.x as string;
  // Bits past the data set in the last character, or one character too many.
  const odd = x.slice(0, -1) + (x.endsWith("B") ? "C" : "B");
  for (const bad of [odd, x + "A"]) {
    const h = harness({
      jwks: () => jwksBody({ ...k.jwk, x: bad }),
      user: () => jsonResponse({ id: claims().sub }),
    });
    assert.equal((await h.jwks.verificationKey("k1")).getOrThrow(), null, bad);
    const token = await signEs256({ alg: "ES256", kid: "k1" }, claims(), k.privateKey);
    assert.ok((await getClaims(h.auth, token)).ok);
    assert.equal(h.userCalls(), 1, "validated by the server, not with the odd key");
  }
});
