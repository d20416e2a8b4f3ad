/**
 * Tests written from a second mutation review of `auth/jwks.ts` (twenty-eighth session): each pins
 * a behaviour of the key-set cache that a one-line change left unnoticed. Each test name starts with
 * its mutant's id.
 */
import assert from "node:assert/strict";
import { withClock } from "../session/_helpers.ts";
import { JWKS_DEFAULTS } from "../../auth/mod.ts";
import { harness, jwksBody, makeKey } from "../auth_jwt/_helpers.ts";

// JK01 auth/jwks.ts:427  a set exactly maxAgeMs old is stale: no cached key is served from it.
Deno.test("JK01 cachedVerificationKey is null at exactly maxAgeMs", async () => {
  await withClock(async (clock) => {
    const k1 = await makeKey("k1");
    const h = harness({ jwks: () => jwksBody(k1.jwk) });
    assert.ok((await h.jwks.verificationKey("k1")).getOrThrow());
    clock.tick(JWKS_DEFAULTS.maxAgeMs);
    assert.equal(h.jwks.cachedVerificationKey("k1"), null);
  });
});

// JK03 auth/jwks.ts:460  a kid remembered as missing is forgotten exactly negativeCacheMs later:
// the next look-up fetches the set again.
Deno.test("JK03 the negative cache entry ends at exactly negativeCacheMs", async () => {
  await withClock(async (clock) => {
    const k1 = await makeKey("k1");
    const h = harness({ jwks: () => jwksBody(k1.jwk) });
    assert.equal((await h.jwks.resolveSigningKey("kx")).getOrThrow(), null);
    assert.equal(h.jwksCalls(), 1);
    clock.tick(JWKS_DEFAULTS.negativeCacheMs);
    assert.equal((await h.jwks.resolveSigningKey("kx")).getOrThrow(), null);
    assert.equal(h.jwksCalls(), 2, "refetched once the negative entry ended");
  });
});

// JK14 auth/jwks.ts:548  an external cache entry dated ahead of this clock counts as fetched now
// (not in the future): it goes stale maxAgeMs after it was read, not later.
Deno.test("JK14 an external entry dated ahead is stale maxAgeMs after it was adopted", async () => {
  await withClock(async (clock) => {
    const k1 = await makeKey("k1");
    let reads = 0;
    const entry = { jwks: JSON.stringify({ keys: [k1.jwk] }), fetchedAt: Date.now() + 5_000 };
    const cache = { get: () => (reads++ === 0 ? entry : null), set: () => {} };
    const h = harness({ jwks: () => jwksBody(k1.jwk), options: { cache } });
    assert.ok((await h.jwks.resolveSigningKey("k1")).getOrThrow());
    assert.equal(h.jwksCalls(), 0);
    clock.tick(JWKS_DEFAULTS.maxAgeMs);
    assert.ok((await h.jwks.resolveSigningKey("k1")).getOrThrow());
    assert.equal(h.jwksCalls(), 1, "the adopted set was stale and refetched");
  });
});

// JK16 auth/jwks.ts:522  an external cache read still unanswered after inflightWaitMs is skipped by
// later callers, who do not wait on it again.
import { track } from "../session/_helpers.ts";
Deno.test("JK16 a stuck external cache read is not waited on twice", async () => {
  await withClock(async (clock) => {
    const cache = { get: () => new Promise<null>(() => {}), set: () => {} };
    const h = harness({ jwks: () => new Response("down", { status: 500 }), options: { cache } });
    const first = track(clock, () => h.jwks.resolveSigningKey("k1"));
    await clock.tickAsync(JWKS_DEFAULTS.inflightWaitMs + 1);
    await first.done;
    assert.equal(first.out.r?.ok, false);
    const second = track(clock, () => h.jwks.resolveSigningKey("k1"));
    await clock.tickAsync(0);
    assert.notEqual(
      second.out.r,
      null,
      "answered at once (the failed fetch's cooldown), without waiting",
    );
    await clock.tickAsync(JWKS_DEFAULTS.inflightWaitMs);
    await second.done;
  });
});

// JK18 auth/jwks.ts:580  a caller that has waited on two shared fetches in vain gives up (TIMEOUT)
// instead of starting a fetch of its own against a stalled endpoint.
import { never } from "../auth_jwt/_helpers.ts";
Deno.test("JK18 a caller gives up after two shared fetches stalled", async () => {
  await withClock(async (clock) => {
    const h = harness({ jwks: (_i, signal) => never(signal) });
    const a = track(clock, () => h.jwks.resolveSigningKey("k1")); // starts fetch 1
    const b = track(clock, () => h.jwks.resolveSigningKey("k1")); // joins it; at 2 s starts fetch 2
    await clock.tickAsync(1_000);
    const c = track(clock, () => h.jwks.resolveSigningKey("k1")); // joins 1, then 2, then gives up
    await clock.tickAsync(4_000);
    assert.notEqual(c.out.r, null, "settled 4 s after it started");
    assert.equal(c.out.at, 4_000);
    assert.equal(c.out.r?.errorOrNull()?.category, "TIMEOUT");
    await clock.tickAsync(20_000);
    await Promise.all([a.done, b.done, c.done]);
  });
});

// JK20 auth/jwks.ts:613  a successful fetch clears the memory of an earlier failed one: while the
// next refresh is under way, callers are served the set past its age, as if nothing had failed.
Deno.test("JK20 after a failure then a success, a stale set is served during the next refresh", async () => {
  await withClock(async (clock) => {
    const k1 = await makeKey("k1");
    let release: (r: Response) => void = () => {};
    const h = harness({
      jwks: (i) =>
        i === 0
          ? new Response("down", { status: 500 })
          : i === 1
          ? jwksBody(k1.jwk)
          : new Promise<Response>((r) => (release = r)),
    });
    assert.equal((await h.jwks.resolveSigningKey("k1")).ok, false); // fetch 1 fails
    clock.tick(JWKS_DEFAULTS.cooldownMs + 1);
    assert.ok((await h.jwks.resolveSigningKey("k1")).getOrThrow()); // fetch 2 succeeds
    clock.tick(JWKS_DEFAULTS.maxAgeMs + 1);
    const a = track(clock, () => h.jwks.resolveSigningKey("k1")); // starts fetch 3 (slow)
    await clock.tickAsync(0);
    const b = track(clock, () => h.jwks.resolveSigningKey("k1"));
    await clock.tickAsync(0);
    assert.ok(b.out.r?.ok && b.out.r.value !== null, "served the set past its age at once");
    release(jwksBody(k1.jwk));
    await clock.tickAsync(0);
    await Promise.all([a.done, b.done]);
  });
});

// JK31 auth/jwks.ts:283  an imported key is carried over to a refetched set only when both
// coordinates are unchanged: a key rotated under the same kid and x (another y) is not the old key.
Deno.test("JK31 a key whose y changed under the same kid and x is not reused", async () => {
  await withClock(async (clock) => {
    const k1 = await makeKey("k1");
    const y = k1.jwk.y as string;
    const rotated = { ...k1.jwk, y: (y[0] === "A" ? "B" : "A") + y.slice(1) };
    const h = harness({ jwks: (i) => jwksBody(i === 0 ? k1.jwk : rotated) });
    const before = (await h.jwks.verificationKey("k1")).getOrThrow();
    assert.ok(before);
    clock.tick(JWKS_DEFAULTS.maxAgeMs + 1);
    const after = (await h.jwks.verificationKey("k1")).getOrThrow();
    assert.equal(h.jwksCalls(), 2);
    assert.notEqual(after, before);
  });
});

// JK40 auth/jwks.ts (reuse of imported keys)  a refetched set keeps the key already imported for an
// unchanged kid: the synchronous cachedVerificationKey has it right after the refetch.
Deno.test("JK40 an unchanged key stays imported across a refetch", async () => {
  await withClock(async (clock) => {
    const k1 = await makeKey("k1");
    const h = harness({ jwks: () => jwksBody(k1.jwk) });
    const before = (await h.jwks.verificationKey("k1")).getOrThrow();
    clock.tick(JWKS_DEFAULTS.maxAgeMs + 1);
    assert.ok((await h.jwks.keySet()).ok); // the refetch
    assert.equal(h.jwksCalls(), 2);
    assert.equal(h.jwks.cachedVerificationKey("k1"), before);
  });
});

// JK42 auth/jwks.ts:519  while the set in memory is fresh, the external cache is not read again.
Deno.test("JK42 a fresh set in memory means no external cache read", async () => {
  const k1 = await makeKey("k1");
  let gets = 0;
  const cache = { get: () => void gets++, set: () => {} };
  const h = harness({ jwks: () => jwksBody(k1.jwk), options: { cache } });
  assert.ok((await h.jwks.resolveSigningKey("k1")).getOrThrow());
  assert.ok((await h.jwks.resolveSigningKey("k1")).getOrThrow());
  assert.ok((await h.jwks.keySet()).ok);
  assert.equal(gets, 1);
});
