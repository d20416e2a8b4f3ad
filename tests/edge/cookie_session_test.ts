// Server-side auth over cookies in a Hono app, as the session docs describe it: a base client,
// a CookieSessionStorage and a manager per request; `initialize` refreshes a lapsed session
// before the handler runs, and the response carries the new cookies.
import assert from "node:assert/strict";
import { Hono } from "hono";
import { createLocalBackend } from "../../demo/local_backend/mod.ts";
import { createClient } from "../../client.ts";
import {
  CookieSessionStorage,
  createSessionManager,
  getClaimsForCurrentSession,
  signInWithEmailAndSaveSession,
} from "../../session/mod.ts";
import { withClock } from "../session/_helpers.ts";

Deno.test("cookie sessions in Hono: parallel requests carrying one lapsed session all refresh it", async () => {
  const backend = await createLocalBackend({ accessTokenTtl: 60 });
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) =>
    await backend.app.fetch(new Request(input, init));
  const client = () => createClient("http://backend.test", backend.apiKey, { fetch });
  const verifier = client().auth; // one JWKS cache for every request
  const app = new Hono();
  const perRequest = (req: Request) => {
    const c = client();
    const storage = new CookieSessionStorage(req);
    return { c, storage, manager: createSessionManager(c.auth, c, { storage }) };
  };
  const withCookies = (res: Response, storage: CookieSessionStorage) => {
    for (const cookie of storage.setCookieHeaders()) res.headers.append("set-cookie", cookie);
    return res;
  };
  app.post("/signin", async (ctx) => {
    const { c, storage, manager } = perRequest(ctx.req.raw);
    const r = await signInWithEmailAndSaveSession(c.auth, manager, "p@example.test", "secret-pw");
    manager.dispose();
    return withCookies(ctx.json({ ok: r.ok }, r.ok ? 200 : 401), storage);
  });
  app.get("/me", async (ctx) => {
    const { storage, manager } = perRequest(ctx.req.raw);
    const restored = await manager.initialize();
    const claims = await getClaimsForCurrentSession(manager, verifier);
    manager.dispose();
    const body = { restored: restored.ok || restored.error.code, sub: claims.ok };
    return withCookies(ctx.json(body, claims.ok ? 200 : 401), storage);
  });
  const cookieOf = (res: Response) =>
    res.headers.getSetCookie().map((c) => c.split(";")[0]).filter((c) => !c.endsWith("=")).join(
      "; ",
    );

  await withClock(async (clock) => {
    assert.ok((await client().auth.signUpWithEmail("p@example.test", "secret-pw")).ok);
    const signIn = await app.request("/signin", { method: "POST" });
    assert.equal(signIn.status, 200);
    const cookie = cookieOf(signIn);
    assert.match(cookie, /^__Host-fb-session=/);
    clock.tick(120_000); // the access token lapses
    const answers = await Promise.all(
      [1, 2, 3].map(() => app.request("/me", { headers: { cookie } })),
    );
    for (const res of answers) {
      assert.equal(res.status, 200, await res.clone().text());
      assert.match(cookieOf(res), /^__Host-fb-session=/, "the refreshed session is written back");
    }
  });
});
