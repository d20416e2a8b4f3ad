// The cookie-session example (edge_examples/deno/cookie_app.ts) against the local backend, in
// process with app.request(): sign-in writes the session's cookies, a lapsed session is refreshed
// and written back, rows are read as the user, and sign-out revokes the session on the server.
import assert from "node:assert/strict";
import { createLocalBackend } from "../../demo/local_backend/mod.ts";
import { createClient } from "../../client.ts";
import { createCookieApp } from "../../edge_examples/deno/cookie_app.ts";
import { withClock } from "../session/_helpers.ts";

const URL_ = "http://backend.test";

/** The `Cookie` header a browser would send back after `res` (deleted cookies left out). */
function cookiesAfter(res: Response, before = ""): string {
  const jar = new Map(
    before.split("; ").filter(Boolean).map((p) => p.split("=", 2) as [string, string]),
  );
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const eq = pair.indexOf("=");
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    if (value === "" || /max-age=0/i.test(line)) jar.delete(name);
    else jar.set(name, value);
  }
  return [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
}

/** What a page of the app's own origin sends with its JSON posts. */
const JSON_POST = { "content-type": "application/json", origin: "http://localhost" };

Deno.test("cookie app: sign-in, rows as the user, a lapsed session refreshed into new cookies, and a sign-out the server honours", async () => {
  const backend = await createLocalBackend({ accessTokenTtl: 60 });
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) =>
    await backend.app.fetch(new Request(input, init));
  const app = createCookieApp({ url: URL_, apiKey: backend.apiKey, clientOptions: { fetch } });
  const direct = () => createClient(URL_, backend.apiKey, { fetch });

  await withClock(async (clock) => {
    assert.ok((await direct().auth.signUpWithEmail("c@example.test", "secret-pw")).ok);
    // Another user's row, which row-level security must keep out of this user's list.
    const other = direct();
    assert.ok((await other.auth.signUpWithEmail("o@example.test", "secret-pw")).ok);
    const otherSession = (await other.auth.signInWithEmail("o@example.test", "secret-pw"))
      .getOrThrow();
    other.setAccessToken(otherSession.accessToken);
    assert.ok((await other.database.insert("todos", '{"title":"not mine","done":false}')).ok);

    assert.equal((await app.request("/todos")).status, 401, "no cookies, no rows");
    const refused = await app.request("/signin", {
      method: "POST",
      headers: JSON_POST,
      body: JSON.stringify({ email: "c@example.test", password: "wrong-pw" }),
    });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.getSetCookie().length, 0, "a refused sign-in sets no cookie");

    const signIn = await app.request("/signin", {
      method: "POST",
      headers: JSON_POST,
      body: JSON.stringify({ email: "c@example.test", password: "secret-pw" }),
    });
    assert.equal(signIn.status, 200);
    let cookie = cookiesAfter(signIn);
    assert.match(cookie, /^__Host-fb-session=/, "a sibling subdomain cannot plant it");
    for (const line of signIn.headers.getSetCookie()) {
      assert.match(line, /HttpOnly/i, "the browser's scripts never see the session");
      assert.match(line, /; Secure/i);
      assert.match(line, /; Path=\//i);
    }

    // Rows as the user: a row of their own (written in a session of their own), not the other's.
    const mine = direct();
    const mineSession = (await mine.auth.signInWithEmail("c@example.test", "secret-pw"))
      .getOrThrow();
    mine.setAccessToken(mineSession.accessToken);
    assert.ok((await mine.database.insert("todos", '{"title":"milk","done":false}')).ok);
    const rows = await app.request("/todos", { headers: { cookie } });
    assert.equal(rows.status, 200);
    assert.deepEqual((await rows.json()).map((r: { title: string }) => r.title), ["milk"]);

    // The access token lapses: the next request refreshes it and writes the new session back.
    clock.tick(120_000);
    const later = await app.request("/todos", { headers: { cookie } });
    assert.equal(later.status, 200, await later.clone().text());
    const refreshed = cookiesAfter(later, cookie);
    assert.notEqual(refreshed, cookie, "the refreshed session goes back to the browser");
    cookie = refreshed;

    // Sign-out deletes the cookies and revokes the session: a browser that kept the old cookies
    // (a copy, a leak) cannot refresh them once their access token lapses.
    const out = await app.request("/signout", {
      method: "POST",
      headers: { cookie, origin: "http://localhost" },
    });
    assert.equal(out.status, 204);
    assert.equal(cookiesAfter(out, cookie), "", "every session cookie is deleted");
    clock.tick(120_000);
    const kept = await app.request("/todos", { headers: { cookie } });
    assert.equal(kept.status, 401, "the revoked session cannot be refreshed");
  });
});

Deno.test("cookie app: a backend that cannot be reached is the backend's trouble (502), not refused credentials (401)", async () => {
  const offline = (() => Promise.reject(new TypeError("connection refused"))) as typeof fetch;
  const app = createCookieApp({
    url: URL_,
    apiKey: "anon-key",
    clientOptions: { fetch: offline, retry: { maxAttempts: 1 } },
  });
  const res = await app.request("/signin", {
    method: "POST",
    headers: JSON_POST,
    body: JSON.stringify({ email: "c@example.test", password: "secret-pw" }),
  });
  assert.equal(res.status, 502);
  assert.deepEqual(await res.json(), { error: "NETWORK" });
});

Deno.test("cookie app: a backend rate limit is a 503 with its Retry-After, not a 502; bad cookie options throw at creation, not as a 500 per request", async () => {
  const limited = (() =>
    Promise.resolve(
      Response.json(
        { code: 429, error_code: "over_request_rate_limit", msg: "Request rate limit reached" },
        { status: 429, headers: { "retry-after": "30" } },
      ),
    )) as typeof fetch;
  const app = createCookieApp({
    url: URL_,
    apiKey: "anon-key",
    clientOptions: { fetch: limited, retry: { maxAttempts: 1 } },
  });
  const res = await app.request("/signin", {
    method: "POST",
    headers: JSON_POST,
    body: JSON.stringify({ email: "c@example.test", password: "secret-pw" }),
  });
  assert.equal(res.status, 503);
  assert.equal(res.headers.get("retry-after"), "30");
  assert.deepEqual(await res.json(), { error: "RATE_LIMITED" });
  assert.throws(
    () =>
      createCookieApp({
        url: URL_,
        apiKey: "anon-key",
        cookie: { sameSite: "none" as "None" },
      }),
    { name: "TypeError", message: /'sameSite' must be Lax, Strict or None/ },
  );
});

Deno.test("cookie app: a cross-site form cannot sign a browser in; sign-in takes JSON only, at most 4 KiB; answers are never cached", async () => {
  const backend = await createLocalBackend();
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) =>
    await backend.app.fetch(new Request(input, init));
  const app = createCookieApp({ url: URL_, apiKey: backend.apiKey, clientOptions: { fetch } });
  assert.ok(
    (await createClient(URL_, backend.apiKey, { fetch }).auth.signUpWithEmail(
      "attacker@example.test",
      "secret-pw",
    )).ok,
  );
  const credentials = JSON.stringify({ email: "attacker@example.test", password: "secret-pw" });
  // A form on another site (`enctype="text/plain"`, no preflight) posting JSON-looking text.
  const forged = await app.request("/signin", {
    method: "POST",
    headers: { "content-type": "text/plain", origin: "https://evil.example" },
    body: credentials,
  });
  assert.equal(forged.status, 403);
  assert.equal(forged.headers.getSetCookie().length, 0, "no session set by another site");
  // Sent by the browser as a cross-site form, whatever the Origin.
  const marked = await app.request("/signin", {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "sec-fetch-site": "cross-site",
    },
    body: credentials,
  });
  assert.equal(marked.status, 403);
  // Same origin, but not JSON: 415 (text/plain needs no preflight from any site).
  const text = await app.request("/signin", {
    method: "POST",
    headers: { "content-type": "text/plain", origin: "http://localhost" },
    body: credentials,
  });
  assert.equal(text.status, 415);
  const huge = await app.request("/signin", {
    method: "POST",
    headers: JSON_POST,
    body: JSON.stringify({ email: "a@example.test", password: "x".repeat(8192) }),
  });
  assert.equal(huge.status, 413);
  const ok = await app.request("/signin", {
    method: "POST",
    headers: JSON_POST,
    body: credentials,
  });
  assert.equal(ok.status, 200);
  for (const r of [ok, huge, text, await app.request("/todos")]) {
    assert.equal(r.headers.get("cache-control"), "private, no-store");
  }
  // A proxy's public origin is configurable.
  const behind = createCookieApp({
    url: URL_,
    apiKey: backend.apiKey,
    clientOptions: { fetch },
    origin: "https://app.example",
  });
  const viaProxy = await behind.request("/signin", {
    method: "POST",
    headers: { "content-type": "text/plain", origin: "https://app.example" },
    body: credentials,
  });
  assert.equal(viaProxy.status, 415, "past the CSRF check, refused as not JSON");
});

Deno.test("cookie app: an auth server that cannot answer is a prompt 503, not 'sign in first'; a client-wide Authorization is refused at creation", async () => {
  assert.throws(
    () =>
      createCookieApp({
        url: URL_,
        apiKey: "anon-key",
        clientOptions: { headers: { Authorization: "Bearer service-key" } },
      }),
    { name: "TypeError", message: /must not hold Authorization/ },
  );
  const backend = await createLocalBackend();
  let authDown = false;
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    if (authDown && new URL(req.url).pathname.startsWith("/auth/v1/")) {
      return new Response("unavailable", { status: 503 });
    }
    return await backend.app.fetch(req);
  };
  const app = createCookieApp({ url: URL_, apiKey: backend.apiKey, clientOptions: { fetch } });
  assert.ok(
    (await createClient(URL_, backend.apiKey, { fetch }).auth.signUpWithEmail(
      "down@example.test",
      "secret-pw",
    )).ok,
  );
  const signIn = await app.request("/signin", {
    method: "POST",
    headers: JSON_POST,
    body: JSON.stringify({ email: "down@example.test", password: "secret-pw" }),
  });
  const cookie = cookiesAfter(signIn);
  // A new isolate (no JWKS cached yet) while the auth server is down: neither the key set nor
  // the server's check of the token can answer.
  const fresh = createCookieApp({ url: URL_, apiKey: backend.apiKey, clientOptions: { fetch } });
  authDown = true;
  const started = Date.now();
  const r = await fresh.request("/todos", { headers: { cookie } });
  assert.equal(r.status, 503, await r.clone().text());
  assert.deepEqual(await r.json(), { error: "the auth server is unavailable" });
  assert.ok(Date.now() - started < 2_000, `${Date.now() - started} ms`);
  assert.equal(r.headers.getSetCookie().length, 0, "the session is kept for when it is back");
  assert.equal((await fresh.request("/todos")).status, 401, "no cookies: 'sign in first'");
  authDown = false;
  assert.equal((await fresh.request("/todos", { headers: { cookie } })).status, 200);
  // A gateway refusing this server's key is this server's trouble too, not the user's.
  const badKey = createCookieApp({
    url: URL_,
    apiKey: backend.apiKey,
    clientOptions: {
      fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
        const req = new Request(input, init);
        return new URL(req.url).pathname.startsWith("/auth/v1/")
          ? Response.json({ message: "Invalid API key" }, { status: 401 })
          : await backend.app.fetch(req);
      }) as typeof fetch,
    },
  });
  const misconfigured = await badKey.request("/todos", { headers: { cookie } });
  assert.equal(misconfigured.status, 503);
  await misconfigured.body?.cancel();
});

Deno.test("cookie app: a refused session's cookies are deleted, a sign-out the server cannot make now keeps them for a retry, and a session too large for them is revoked", async () => {
  const backend = await createLocalBackend();
  let down = false;
  const logouts: string[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    if (down) throw new TypeError("connection refused");
    if (new URL(req.url).pathname.endsWith("/logout")) logouts.push(req.method);
    return await backend.app.fetch(req);
  };
  const options = {
    url: URL_,
    apiKey: backend.apiKey,
    clientOptions: { fetch, retry: { maxAttempts: 1 } },
  };
  const app = createCookieApp(options);
  const direct = createClient(URL_, backend.apiKey, { fetch });
  assert.ok((await direct.auth.signUpWithEmail("c@example.test", "secret-pw")).ok);
  const signIn = () =>
    app.request("/signin", {
      method: "POST",
      headers: JSON_POST,
      body: JSON.stringify({ email: "c@example.test", password: "secret-pw" }),
    });
  const cookie = cookiesAfter(await signIn());

  // The same cookies before another project's app: its token and its refresh token are refused,
  // and its cookies go (a refused access token alone is refreshed first: see below).
  const other = await createLocalBackend();
  const otherApp = createCookieApp({
    url: URL_,
    apiKey: other.apiKey,
    clientOptions: { fetch: async (i, n) => await other.app.fetch(new Request(i, n)) },
  });
  const refused = await otherApp.request("/todos", { headers: { cookie } });
  assert.equal(refused.status, 401);
  assert.equal(cookiesAfter(refused, cookie), "", "the refused session's cookies are deleted");

  // The auth server is down at sign-out: 502, and the cookies stay, so that the sign-out can be
  // tried again (deleted, the session would live on at the server, out of reach).
  down = true;
  const out = await app.request("/signout", {
    method: "POST",
    headers: { cookie, origin: "http://localhost" },
  });
  assert.equal(out.status, 502);
  assert.equal(cookiesAfter(out, cookie), cookie);
  down = false;
  const again = await app.request("/signout", {
    method: "POST",
    headers: { cookie, origin: "http://localhost" },
  });
  assert.equal(again.status, 204);
  assert.equal(cookiesAfter(again, cookie), "");

  // A user whose metadata outgrows the cookies: the session GoTrue issued is revoked, not left
  // alive on the server with no browser holding it.
  logouts.length = 0;
  const token = (await direct.auth.signInWithEmail("c@example.test", "secret-pw")).getOrThrow();
  const big = { notes: "x".repeat(20_000) };
  assert.ok((await direct.auth.updateUser(token.accessToken, { data: big })).ok);
  const tooLarge = await signIn();
  assert.equal(tooLarge.status, 500);
  assert.deepEqual(await tooLarge.json(), { error: "the session cannot be stored" });
  assert.equal(cookiesAfter(tooLarge), "", "no cookie written");
  assert.deepEqual(logouts, ["POST"], "the issued session is signed out");
});

Deno.test("cookie app: a refused access token is refreshed once: a good refresh token answers the rows, a rate-limited refresh keeps the cookies (503 with its Retry-After)", async () => {
  const backend = await createLocalBackend();
  // The verifier finds no key (a rotated key set) and GoTrue refuses the token this many times.
  let refuseUser = 0;
  let limitRefresh = false;
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    if (url.pathname.endsWith("/jwks.json")) return Response.json({ keys: [] });
    if (req.method === "GET" && url.pathname.endsWith("/user") && refuseUser > 0) {
      refuseUser--;
      return Response.json({ code: "bad_jwt", message: "invalid JWT" }, { status: 403 });
    }
    if (limitRefresh && url.searchParams.get("grant_type") === "refresh_token") {
      return Response.json({ code: "over_request_rate_limit", message: "slow down" }, {
        status: 429,
        headers: { "retry-after": "17" },
      });
    }
    return await backend.app.fetch(req);
  };
  const app = createCookieApp({
    url: URL_,
    apiKey: backend.apiKey,
    clientOptions: { fetch, retry: { maxAttempts: 1 } },
  });
  assert.ok(
    (await createClient(URL_, backend.apiKey, { fetch }).auth.signUpWithEmail(
      "r@example.test",
      "secret-pw",
    )).ok,
  );
  const signIn = await app.request("/signin", {
    method: "POST",
    headers: JSON_POST,
    body: JSON.stringify({ email: "r@example.test", password: "secret-pw" }),
  });
  const cookie = cookiesAfter(signIn);

  refuseUser = 1;
  const refreshed = await app.request("/todos", { headers: { cookie } });
  assert.equal(refreshed.status, 200, await refreshed.clone().text());
  const renewed = cookiesAfter(refreshed, cookie);
  assert.notEqual(renewed, cookie, "the refreshed session's cookies go back");

  refuseUser = 1;
  limitRefresh = true;
  const limited = await app.request("/todos", { headers: { cookie: renewed } });
  assert.equal(limited.status, 503);
  assert.equal(limited.headers.get("retry-after"), "17");
  assert.equal(cookiesAfter(limited, renewed), renewed, "the cookies stay");
});
