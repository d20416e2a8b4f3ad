// Auth clients of one project made without JWKS options share its key set, as auth-js keeps one
// per project: an app that makes a client per request (cookie sessions on a server, an edge
// function) fetched the key set and imported its key before every local verification.
import assert from "node:assert/strict";
import { createAuthClient } from "../../auth/client.ts";
import { getClaims } from "../../auth/get_claims.ts";
import { createClient } from "../../client.ts";
import { API_KEY, claims, jwksBody, makeKey, signEs256 } from "./_helpers.ts";

/** A project whose JWKS and `/user` answers are counted; its fetch is one function for all. */
async function project() {
  const k1 = await makeKey("k1");
  const token = await signEs256({ alg: "ES256", kid: "k1" }, claims(), k1.privateKey);
  const seen: string[] = [];
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    seen.push(`${new URL(req.url).pathname} ${req.headers.get("authorization")}`);
    return Promise.resolve(
      req.url.endsWith("/jwks.json") ? jwksBody(k1.jwk) : Response.json({ id: "u" }),
    );
  };
  return { token, seen, fetch, jwks: () => seen.filter((s) => s.includes("/jwks.json")).length };
}

Deno.test("auth clients made per request over one fetch share the project's key set: one JWKS fetch, and the user's token is not kept", async () => {
  const p = await project();
  for (let i = 0; i < 5; i++) {
    // A request's client, carrying its user's token (as a session manager sets it).
    const client = createClient("https://shared-1.example", API_KEY, { fetch: p.fetch });
    client.setAccessToken(`user-token-${i}`);
    const r = await getClaims(client.auth, p.token);
    assert.ok(r.ok, r.ok ? "" : r.error.message);
  }
  assert.equal(p.jwks(), 1);
  assert.deepEqual(p.seen, [`/auth/v1/.well-known/jwks.json Bearer ${API_KEY}`]);
  assert.equal(
    createAuthClient(createClient("https://shared-1.example", API_KEY, { fetch: p.fetch })).jwks,
    createClient("https://shared-1.example", API_KEY, { fetch: p.fetch }).auth.jwks,
  );
});

Deno.test("the key set is not shared across projects, API keys, client-wide headers, fetches or clients given JWKS options", async () => {
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
  assert.equal(p.jwks(), 3, "another API key");
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
  assert.equal(p.jwks(), 6, "the shared one is still there");
});

Deno.test("at most 16 projects are kept per fetch: the oldest goes first", async () => {
  const p = await project();
  const verify = async (n: number) => {
    const client = createClient(`https://p${n}.shared-3.example`, API_KEY, { fetch: p.fetch });
    assert.ok((await getClaims(client.auth, p.token)).ok);
  };
  for (let n = 0; n < 16; n++) await verify(n);
  assert.equal(p.jwks(), 16);
  await verify(15);
  assert.equal(p.jwks(), 16, "kept");
  await verify(16); // a 17th: project 0 is dropped
  assert.equal(p.jwks(), 17);
  await verify(1);
  assert.equal(p.jwks(), 17, "project 1 kept");
  await verify(0);
  assert.equal(p.jwks(), 18, "project 0 fetched again");
});
