// Auth clients made without JWKS options keep the key sets they fetch in memory for one another,
// as auth-js keeps one key set per project: an app that makes a client per request (cookie
// sessions on a server, an edge function) fetched the key set and imported its key before every
// local verification. Only the fetched set is shared, never a fetch under way: in Workers a fetch
// belongs to the request that started it and ends with it (auth/_shared_jwks.ts).
import assert from "node:assert/strict";
import { createAuthClient } from "../../auth/client.ts";
import { getClaims } from "../../auth/get_claims.ts";
import { createClient } from "../../client.ts";
import { API_KEY, claims, jwksBody, makeKey, signEs256 } from "./_helpers.ts";

/** A project whose requests are counted; its fetch is one function for all its clients. */
async function project() {
  const k1 = await makeKey("k1");
  const token = await signEs256({ alg: "ES256", kid: "k1" }, claims(), k1.privateKey);
  const seen: string[] = [];
  /** Answers to hold back: the JWKS fetch with that index answers after 2.5 s. */
  const slow = new Set<number>();
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    const index = seen.filter((s) => s.includes("/jwks.json")).length;
    seen.push(
      `${new URL(req.url).host}${new URL(req.url).pathname} ${req.headers.get("authorization")}`,
    );
    if (!req.url.endsWith("/jwks.json")) return Promise.resolve(Response.json({ id: "u" }));
    if (slow.has(index)) {
      return new Promise<Response>((resolve) => setTimeout(() => resolve(jwksBody(k1.jwk)), 2_500));
    }
    return Promise.resolve(jwksBody(k1.jwk));
  };
  return {
    token,
    seen,
    slow,
    fetch,
    jwks: () => seen.filter((s) => s.includes("/jwks.json")).length,
  };
}

Deno.test("auth clients made per request over one fetch fetch the key set once; each has its own resolver, which keeps no user token", async () => {
  const p = await project();
  for (let i = 0; i < 5; i++) {
    // A request's client, carrying its user's token (as a session manager sets it).
    const client = createClient("https://shared-1.example", API_KEY, { fetch: p.fetch });
    client.setAccessToken(`user-token-${i}`);
    const r = await getClaims(client.auth, p.token);
    assert.ok(r.ok, r.ok ? "" : r.error.message);
  }
  assert.equal(p.jwks(), 1);
  assert.deepEqual(p.seen, [`shared-1.example/auth/v1/.well-known/jwks.json Bearer ${API_KEY}`]);
  const a = createClient("https://shared-1.example", API_KEY, { fetch: p.fetch }).auth.jwks;
  const b = createClient("https://shared-1.example", API_KEY, { fetch: p.fetch }).auth.jwks;
  assert.notEqual(a, b);
});

Deno.test("a client does not wait for another client's fetch of the key set under way: it fetches its own", async () => {
  const p = await project();
  p.slow.add(0); // the first client's fetch takes 2.5 s (in Workers it may never answer: its request ended)
  const first = createClient("https://shared-4.example", API_KEY, { fetch: p.fetch });
  const stalled = getClaims(first.auth, p.token);
  // The first client's fetch is under way before the second starts (polled: a busy machine's
  // fixed sleep could let the second fetch first, and take the slow answer).
  while (p.jwks() === 0) await new Promise((r) => setTimeout(r, 1));
  const t0 = performance.now();
  const second = createClient("https://shared-4.example", API_KEY, { fetch: p.fetch });
  const r = await getClaims(second.auth, p.token);
  const ms = performance.now() - t0;
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.ok(ms < 1_500, `waited ${ms.toFixed(0)} ms for the first client's fetch`);
  assert.equal(p.jwks(), 2);
  // The set the second fetched serves the next client.
  const third = createClient("https://shared-4.example", API_KEY, { fetch: p.fetch });
  assert.ok((await getClaims(third.auth, p.token)).ok);
  assert.equal(p.jwks(), 2);
  assert.ok((await stalled).ok);
});

Deno.test("key sets are kept by JWKS URL, API key, headers and fetch: not across any of them, nor for clients given JWKS options", async () => {
  const p = await project();
  const verify = async (client: ReturnType<typeof createClient>, auth = client.auth) => {
    const r = await getClaims(auth, p.token);
    assert.ok(r.ok, r.ok ? "" : r.error.message);
  };
  const base = () => createClient("https://shared-2.example", API_KEY, { fetch: p.fetch });
  await verify(base());
  await verify(base());
  assert.equal(p.jwks(), 1);
  await verify(createClient("https://shared-2b.example", API_KEY, { fetch: p.fetch }));
  assert.equal(p.jwks(), 2, "another project");
  await verify(createClient("https://shared-2.example", "another-key-0123", { fetch: p.fetch }));
  assert.equal(p.jwks(), 3, "another API key (a gateway may serve each tenant its own set)");
  await verify(
    createClient("https://shared-2.example", API_KEY, { fetch: p.fetch, headers: { "x-a": "1" } }),
  );
  assert.equal(p.jwks(), 4, "other client-wide headers");
  await verify(
    createClient("https://shared-2.example", API_KEY, { fetch: (i, o) => p.fetch(i, o) }),
  );
  assert.equal(p.jwks(), 5, "another fetch");
  const own = base();
  await verify(own, createAuthClient(own, { jwks: { maxAgeMs: 60_000 } }));
  assert.equal(p.jwks(), 6, "JWKS options of its own");
  await verify(base());
  assert.equal(p.jwks(), 6, "the shared set is still there");
});

Deno.test("at most 16 key sets are kept per fetch: the least recently stored goes first", async () => {
  const p = await project();
  const verify = async (n: number) => {
    const client = createClient(`https://p${n}.shared-3.example`, API_KEY, { fetch: p.fetch });
    assert.ok((await getClaims(client.auth, p.token)).ok);
  };
  for (let n = 0; n < 16; n++) await verify(n);
  assert.equal(p.jwks(), 16);
  await verify(15);
  assert.equal(p.jwks(), 16, "kept");
  await verify(16); // a 17th: project 0's set is dropped
  assert.equal(p.jwks(), 17);
  await verify(1);
  assert.equal(p.jwks(), 17, "project 1 kept");
  await verify(0);
  assert.equal(p.jwks(), 18, "project 0 fetched again");
});

Deno.test("clients over the runtime's fetch share key sets through the fetch as it is now: a test that replaces globalThis.fetch starts afresh", async () => {
  const first = await project();
  const second = await project(); // another key under the same kid
  const saved = globalThis.fetch;
  try {
    for (const p of [first, second]) {
      globalThis.fetch = p.fetch;
      for (let i = 0; i < 2; i++) {
        const client = createClient("https://shared-5.example", API_KEY);
        const r = await getClaims(client.auth, p.token);
        assert.ok(r.ok, r.ok ? "" : r.error.message);
      }
      assert.equal(p.jwks(), 1);
    }
  } finally {
    globalThis.fetch = saved;
  }
});
