/**
 * Cloudflare Workers: the edge example bundled with esbuild runs inside
 * miniflare (the real workerd runtime) and performs local JWT verification,
 * a streamed upload and a filtered select against the local backend.
 */
import assert from "node:assert/strict";
import { createLocalBackend, signJwt } from "../../demo/local_backend/mod.ts";
import { serve } from "../support/serve.ts";
import { startWorker } from "./support.ts";

const root = new URL("../../", import.meta.url).pathname;

Deno.test("the edge example runs in workerd: JWT verification, streamed upload, filtered select", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "fetchbase-worker-" });
  const backend = await createLocalBackend();
  // The JWKS requests the worker makes: its app is made once per isolate and its middleware reads
  // the bindings from each request's `c.env` (fetchbaseAuth's function form), keeping one
  // verifying client for them, so one fetch serves every request (a middleware built per request,
  // as Hono's docs show for `c.env`, would fetch it for each).
  let jwksFetches = 0;
  const server = await serve((req) => {
    if (new URL(req.url).pathname.endsWith("/.well-known/jwks.json")) jwksFetches++;
    return backend.app.fetch(req);
  });
  const worker = await startWorker(
    `${root}edge_examples/cloudflare_worker/worker.ts`,
    tmp,
    server.url,
    backend.apiKey,
  );
  try {
    const base = worker.url;
    const signUp = async (email: string) =>
      (await fetch(`${server.url}/auth/v1/signup`, {
        method: "POST",
        headers: { apikey: backend.apiKey, "content-type": "application/json" },
        body: JSON.stringify({ email, password: "secret-pw" }),
      }).then((r) => r.json())) as { access_token: string; user: { id: string } };
    const alice = await signUp("worker@example.test");
    const auth = { authorization: `Bearer ${alice.access_token}` };

    const me = await fetch(`${base}api/me`, { headers: auth });
    assert.equal(me.status, 200);
    assert.equal((await me.json()).id, alice.user.id);
    const forged = await fetch(`${base}api/me`, {
      headers: { authorization: `Bearer ${alice.access_token.slice(0, -4)}AAAA` },
    });
    assert.equal(forged.status, 401);
    await forged.body?.cancel();
    const expiredToken = await signJwt(backend.key, {
      sub: "x",
      aud: "authenticated",
      exp: Math.floor(Date.now() / 1000) - 600,
    });
    const expired = await fetch(`${base}api/me`, {
      headers: { authorization: `Bearer ${expiredToken}` },
    });
    assert.equal(expired.status, 401);
    await expired.body?.cancel();

    for (const title of ["ship worker", "test worker", "sleep"]) {
      const r: Response = await fetch(`${base}api/todos`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ title }),
      });
      assert.equal(r.status, 201);
      await r.body?.cancel();
    }
    const list = await fetch(`${base}api/todos?q=worker`, { headers: auth }).then((r) => r.json());
    assert.equal(list.count, 2);
    // Five verified requests so far, each reading the bindings from `c.env`, across which the
    // middleware kept one JWKS cache.
    assert.equal(jwksFetches, 1, "one JWKS fetch per isolate, not one per request");

    await fetch(`${server.url}/storage/v1/bucket`, {
      method: "POST",
      headers: { apikey: backend.apiKey, ...auth, "content-type": "application/json" },
      body: JSON.stringify({ id: "uploads", name: "uploads" }),
    }).then((r) => r.body?.cancel());
    const payload = new Uint8Array(100_000).map((_, i) => i % 199);
    const up = await fetch(`${base}api/files/w.bin`, {
      method: "PUT",
      headers: auth,
      body: payload,
    });
    assert.equal(up.status, 201, await up.clone().text());
    const { signedUrl } = (await up.json()) as { signedUrl: string };
    const dl: Response = await fetch(signedUrl);
    assert.deepEqual(new Uint8Array(await dl.arrayBuffer()), payload);
  } finally {
    await worker.stop();
    await server.close();
    await Deno.remove(tmp, { recursive: true });
  }
});
