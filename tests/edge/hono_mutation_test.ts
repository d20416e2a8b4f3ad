/**
 * Tests written from a mutation review of `hono/mod.ts` (twenty-eighth session): each pins a
 * behaviour of the middleware that a one-line change left unnoticed. Each test name starts with its
 * mutant's id.
 */
import assert from "node:assert/strict";
import {
  fetchbaseAuth,
  type FetchbaseAuthOptions,
  type MiddlewareContext,
} from "../../hono/mod.ts";
import { createAuthClient } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import { jwt } from "../session/_helpers.ts";

const URL_ = "https://project.example.com";
const KEY = "anon-key-0123456789";
const exp = () => Math.floor(Date.now() / 1000) + 600;
/** A fetch answering GET /auth/v1/user (the server check of an HS256 token). */
const userFetch = (answer: () => Response): typeof fetch => () => Promise.resolve(answer());
const okUser = () => Response.json({ id: "u1" });

async function run(mw: ReturnType<typeof fetchbaseAuth>, authorization: string) {
  let passed = false;
  const c: MiddlewareContext = {
    req: {
      header: (n: string) => (n.toLowerCase() === "authorization" ? authorization : undefined),
      raw: new Request(`${URL_}/me`, { headers: { authorization } }),
    },
    set: () => {},
    env: {},
  };
  const res = await mw(c, () => Promise.resolve(void (passed = true)));
  return { passed, status: res instanceof Response ? res.status : 200, res };
}
const opts = (
  o: Partial<FetchbaseAuthOptions> & { fetch?: typeof fetch },
): FetchbaseAuthOptions => ({
  url: URL_,
  apiKey: KEY,
  clientOptions: { fetch: o.fetch ?? userFetch(okUser) },
  ...o,
});

// HN12 hono/mod.ts:296  audience: null turns the audience check off (undefined means "authenticated").
Deno.test("HN12 audience null accepts a token of another audience", async () => {
  const mw = fetchbaseAuth(opts({ audience: null }));
  const r = await run(mw, `Bearer ${jwt({ sub: "u1", aud: "other", exp: exp() })}`);
  assert.equal(r.passed, true, String(r.status));
});

// HN19 hono/mod.ts:377  the verifier cache tells configurations apart by their 'auth' client.
Deno.test("HN19 two configurations differing only by 'auth' do not share a verifier", async () => {
  const authOf = (answer: () => Response) =>
    createAuthClient(createBaseClient(URL_, KEY, { fetch: userFetch(answer) }));
  const accepting = authOf(okUser);
  const refusing = authOf(() =>
    Response.json({ code: "bad_jwt", msg: "invalid JWT" }, { status: 401 })
  );
  let n = 0;
  const mw = fetchbaseAuth(() => ({
    url: URL_,
    apiKey: KEY,
    auth: n++ === 0 ? accepting : refusing,
  }));
  const token = `Bearer ${jwt({ sub: "u1", aud: "authenticated", exp: exp() })}`;
  assert.equal((await run(mw, token)).passed, true);
  const second = await run(mw, token);
  assert.equal(second.passed, false);
  assert.equal(second.status, 401);
});

// HN23 hono/mod.ts:582  a Bearer credential holding a comma is a malformed request (400).
Deno.test("HN23 'Bearer a,b' is invalid_request", async () => {
  const r = await run(fetchbaseAuth(opts({})), "Bearer abc,def");
  assert.equal(r.status, 400);
  assert.equal((await r.res!.json()).error, "invalid_request");
});

// HN30 hono/mod.ts:636  requireAal2 refuses a token with no aal claim (not only aal1).
Deno.test("HN30 requireAal2 refuses a token without an aal claim", async () => {
  const mw = fetchbaseAuth(opts({ requireAal2: true }));
  const r = await run(mw, `Bearer ${jwt({ sub: "u1", aud: "authenticated", exp: exp() })}`);
  assert.equal(r.passed, false);
  assert.equal(r.status, 403);
});

// HN09 hono/mod.ts:233  the server refusing the token with 400 token_expired is a 401, not a 503.
Deno.test("HN09 a 400 token_expired from the auth server is a 401", async () => {
  const mw = fetchbaseAuth(opts({
    fetch: userFetch(() =>
      Response.json({ code: "token_expired", msg: "expired" }, { status: 400 })
    ),
  }));
  const r = await run(mw, `Bearer ${jwt({ sub: "u1", aud: "authenticated", exp: exp() })}`);
  assert.equal(r.status, 401);
});

// HN39 hono/mod.ts:176  waitUntil is called on its execution context (Workers' needs its `this`).
Deno.test("HN39 the pending verification is handed to executionCtx.waitUntil with its this", async () => {
  const kept: unknown[] = [];
  const ctx = {
    waitUntil(this: { kept: unknown[] } | undefined, p: Promise<unknown>) {
      if (!this || this.kept !== kept) throw new TypeError("Illegal invocation");
      kept.push(p);
    },
    kept,
  };
  const mw = fetchbaseAuth(opts({}));
  const authorization = `Bearer ${jwt({ sub: "u1", aud: "authenticated", exp: exp() })}`;
  const c: MiddlewareContext = {
    req: { header: () => authorization, raw: new Request(`${URL_}/me`) },
    set: () => {},
    env: {},
    executionCtx: ctx,
  };
  await mw(c, async () => {});
  assert.equal(kept.length, 1);
});

// HN42 hono/mod.ts:349 and HN43 hono/mod.ts:347  options given by a function keep localOnly and
// audience.
Deno.test("HN42 localOnly from an options function refuses a token only the server could check", async () => {
  const mw = fetchbaseAuth(() => opts({ localOnly: true }));
  const r = await run(mw, `Bearer ${jwt({ sub: "u1", aud: "authenticated", exp: exp() })}`);
  assert.equal(r.passed, false);
  assert.equal(r.status, 401);
});
Deno.test("HN43 audience from an options function is the one checked", async () => {
  const mw = fetchbaseAuth(() => opts({ audience: "partner-api" }));
  const r = await run(mw, `Bearer ${jwt({ sub: "u1", aud: "partner-api", exp: exp() })}`);
  assert.equal(r.passed, true, String(r.status));
});
