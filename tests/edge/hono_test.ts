import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { Hono } from "hono";
import {
  fetchbaseAuth,
  type FetchbaseAuthOptions,
  type FetchbaseVariables,
} from "../../hono/mod.ts";
import { createLocalBackend, signJwt } from "../../demo/local_backend/mod.ts";
import { createApp } from "../../edge_examples/deno/app.ts";
import { serve } from "../support/serve.ts";

async function project() {
  const backend = await createLocalBackend();
  const server = await serve(backend.app.fetch);
  let calls = 0;
  const countingFetch: typeof fetch = (input, init) => {
    calls++;
    return fetch(input, init);
  };
  const signUp = async (email: string) => {
    const r = await fetch(`${server.url}/auth/v1/signup`, {
      method: "POST",
      headers: { apikey: backend.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ email, password: "secret-pw" }),
    });
    return (await r.json()) as { access_token: string; user: { id: string } };
  };
  const mint = (claims: Record<string, unknown>) =>
    signJwt(backend.key, {
      sub: "u-minted",
      aud: "authenticated",
      role: "authenticated",
      iat: Math.floor(Date.now() / 1000),
      exp: Math.floor(Date.now() / 1000) + 600,
      aal: "aal1",
      ...claims,
    });
  return { backend, server, signUp, mint, countingFetch, calls: () => calls };
}

Deno.test("middleware: 401 JSON for missing, malformed, expired and forged tokens; claims and client on the context", async () => {
  const p = await project();
  try {
    const app = new Hono<{ Variables: FetchbaseVariables }>();
    app.use(
      "*",
      fetchbaseAuth({
        url: p.server.url,
        apiKey: p.backend.apiKey,
        clientOptions: { fetch: p.countingFetch },
      }),
    );
    app.get(
      "/me",
      (c) =>
        c.json({
          sub: c.get("claims").claims.subject,
          token: c.get("fetchbase").accessToken !== null,
        }),
    );
    const call = (auth?: string) =>
      app.request("/me", { headers: auth ? { authorization: auth } : {} });

    const missing = await call();
    assert.equal(missing.status, 401);
    assert.equal((await missing.json()).error, "missing_token");
    assert.match(missing.headers.get("www-authenticate") ?? "", /Bearer/);
    // RFC 6750 §3: another scheme is no Bearer credentials at all (no error code) ...
    const basic = await call("Basic dXNlcjpwYXNz");
    assert.equal(basic.status, 401);
    assert.equal((await basic.json()).error, "missing_token");
    assert.equal(basic.headers.get("www-authenticate"), 'Bearer realm=""');
    // ... and §3.1: a Bearer header without exactly one token is a malformed request.
    for (const header of ["Bearer", "Bearer a.b.c extra", "Bearer a.b.c, Bearer d.e.f"]) {
      const bad = await call(header);
      assert.equal(bad.status, 400, header);
      assert.equal((await bad.json()).error, "invalid_request", header);
      assert.equal(bad.headers.get("www-authenticate"), 'Bearer error="invalid_request"');
    }
    const malformed = await call("Bearer not.a.jwt");
    assert.equal(malformed.status, 401);
    assert.ok((await malformed.json()).message);

    const session = await p.signUp("mw@example.test");
    const ok = await call(`Bearer ${session.access_token}`);
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { sub: session.user.id, token: true });

    const before = p.calls();
    assert.equal((await call(`Bearer ${session.access_token}`)).status, 200);
    assert.equal(p.calls(), before, "a valid ES256 token with a cached key makes no network call");

    const forged = session.access_token.slice(0, -6) +
      (session.access_token.endsWith("AAAAAA") ? "BBBBBB" : "AAAAAA");
    assert.equal((await call(`Bearer ${forged}`)).status, 401);
    const expired = await p.mint({ exp: Math.floor(Date.now() / 1000) - 3600 });
    const exp = await call(`Bearer ${expired}`);
    assert.equal(exp.status, 401);
    assert.equal((await exp.json()).error, "token_expired");
    const wrongAud = await p.mint({ aud: "someone-else" });
    assert.equal((await call(`Bearer ${wrongAud}`)).status, 401);
  } finally {
    await p.server.close();
  }
});

Deno.test("middleware: issuer and AAL2 options", async () => {
  const p = await project();
  try {
    const app = new Hono<{ Variables: FetchbaseVariables }>();
    app.use(
      "*",
      fetchbaseAuth({
        url: p.server.url,
        apiKey: p.backend.apiKey,
        requireAal2: true,
        issuer: "https://issuer.example",
      }),
    );
    app.get("/admin", (c) => c.text("ok"));
    const call = async (t: string) =>
      (await app.request("/admin", { headers: { authorization: `Bearer ${t}` } })).status;
    const low = await app.request("/admin", {
      headers: { authorization: `Bearer ${await p.mint({ iss: "https://issuer.example" })}` },
    });
    assert.equal(low.status, 403);
    assert.equal(low.headers.get("www-authenticate"), 'Bearer error="insufficient_scope"');
    assert.equal((await low.json()).error, "insufficient_aal");
    assert.equal(await call(await p.mint({ iss: "https://issuer.example", aal: "aal1" })), 403);
    assert.equal(await call(await p.mint({ iss: "https://issuer.example", aal: "aal2" })), 200);
    assert.equal(await call(await p.mint({ iss: "https://other.example", aal: "aal2" })), 401);
  } finally {
    await p.server.close();
  }
});

Deno.test("Deno edge example: todos as the caller (row-level security), streamed upload, signed URL", async () => {
  const p = await project();
  try {
    const app = createApp({ url: p.server.url, apiKey: p.backend.apiKey });
    const alice = await p.signUp("alice@example.test");
    const bob = await p.signUp("bob@example.test");
    await fetch(`${p.server.url}/storage/v1/bucket`, {
      method: "POST",
      headers: {
        apikey: p.backend.apiKey,
        authorization: `Bearer ${alice.access_token}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ id: "uploads", name: "uploads" }),
    }).then((r) => r.body?.cancel());
    const as = (t: string) => ({
      authorization: `Bearer ${t}`,
      "content-type": "application/json",
    });

    assert.equal((await app.request("/api/todos")).status, 401);
    for (const title of ["buy milk", "write docs", "buy bread"]) {
      const r = await app.request("/api/todos", {
        method: "POST",
        headers: as(alice.access_token),
        body: JSON.stringify({ title }),
      });
      assert.equal(r.status, 201);
    }
    assert.equal(
      (await app.request("/api/todos", {
        method: "POST",
        headers: as(bob.access_token),
        body: "{}",
      })).status,
      400,
    );
    await app.request("/api/todos", {
      method: "POST",
      headers: as(bob.access_token),
      body: JSON.stringify({ title: "bob's buy" }),
    });

    const list = await (await app.request("/api/todos?q=buy", { headers: as(alice.access_token) }))
      .json();
    assert.equal(list.count, 2);
    assert.deepEqual(list.todos.map((t: { title: string }) => t.title), ["buy milk", "buy bread"]);
    const bobs = await (await app.request("/api/todos", { headers: as(bob.access_token) })).json();
    assert.deepEqual(bobs.todos.map((t: { title: string }) => t.title), ["bob's buy"]);

    const payload = new Uint8Array(200_000).map((_, i) => i % 256);
    const up = await app.request("/api/files/photo.bin", {
      method: "PUT",
      headers: {
        authorization: `Bearer ${alice.access_token}`,
        "content-type": "application/octet-stream",
      },
      body: new Blob([payload]).stream(),
      duplex: "half",
    } as RequestInit);
    assert.equal(up.status, 201);
    const { key, signedUrl } = await up.json();
    assert.equal(key, `uploads/${alice.user.id}/photo.bin`);
    const dl = await fetch(signedUrl);
    assert.deepEqual(new Uint8Array(await dl.arrayBuffer()), payload);

    // A caller's HTML is stored as bytes: its signed URL must not serve a page that runs script
    // on the storage origin. An image keeps its type.
    for (
      const [type, stored] of [
        ["text/html", "application/octet-stream"],
        ["image/png", "image/png"],
        ["TEXT/HTML", "application/octet-stream"],
        ["Image/PNG; charset=x", "image/png"],
      ]
    ) {
      const put = await app.request("/api/files/page", {
        method: "PUT",
        headers: { authorization: `Bearer ${alice.access_token}`, "content-type": type },
        body: "<script>alert(1)</script>",
      });
      assert.equal(put.status, 201);
      const served = await fetch((await put.json()).signedUrl);
      await served.body?.cancel();
      assert.equal(served.headers.get("content-type"), stored);
    }

    // A file past the limit is refused: by its declared length before anything is sent, and
    // counted as it streams when it declares none (chunked); nothing of it is stored.
    const small = createApp({ url: p.server.url, apiKey: p.backend.apiKey, maxFileBytes: 1000 });
    const put = (name: string, body: BodyInit, headers: Record<string, string> = {}) =>
      small.request(`/api/files/${name}`, {
        method: "PUT",
        headers: { authorization: `Bearer ${alice.access_token}`, ...headers },
        body,
        duplex: "half",
      } as RequestInit);
    const declared = await put("big-declared", new Uint8Array(1001), { "content-length": "1001" });
    assert.equal(declared.status, 413);
    const streamed = await put("big-streamed", new Blob([new Uint8Array(5000)]).stream());
    assert.equal(streamed.status, 413);
    assert.deepEqual(await streamed.json(), { error: "the file is larger than 1000 bytes" });
    const fits = await put("fits", new Blob([new Uint8Array(1000)]).stream());
    assert.equal(fits.status, 201);
    for (const name of ["big-declared", "big-streamed"]) {
      const info = await fetch(
        `${p.server.url}/storage/v1/object/info/authenticated/uploads/${alice.user.id}/${name}`,
        { headers: { apikey: p.backend.apiKey, authorization: `Bearer ${alice.access_token}` } },
      );
      await info.body?.cancel();
      assert.notEqual(info.status, 200, `${name} was stored`);
    }
  } finally {
    await p.server.close();
  }
});

Deno.test("middleware: an auth outage is 503 without internals; no error code without credentials", async () => {
  const down: typeof fetch = () =>
    Promise.reject(new TypeError("connection refused (internal host 10.0.0.5:9999)"));
  const app = new Hono<{ Variables: FetchbaseVariables }>();
  app.use(
    "*",
    fetchbaseAuth({
      url: "https://p.example",
      apiKey: "anon-key",
      clientOptions: { fetch: down, retry: { maxAttempts: 1 } },
    }),
  );
  app.get("/me", (c) => c.text("ok"));
  const p = await project();
  try {
    const token = await p.mint({});
    const r = await app.request("/me", { headers: { authorization: `Bearer ${token}` } });
    assert.equal(r.status, 503);
    const body = await r.json();
    assert.equal(body.error, "auth_unavailable");
    assert.doesNotMatch(JSON.stringify(body), /10\.0\.0\.5|refused/);
    assert.equal(r.headers.get("www-authenticate"), null);
    const none = await app.request("/me");
    assert.equal(none.status, 401);
    assert.equal(none.headers.get("www-authenticate"), 'Bearer realm=""');
  } finally {
    await p.server.close();
  }
});

Deno.test("middleware: only a refused token is 401; an auth server answering anything else is 503 with its Retry-After and without its words", async () => {
  // An HS256 token cannot be checked locally, so every call asks the auth server's /user.
  const hs256 = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." +
    "eyJzdWIiOiJ1MSIsImF1ZCI6ImF1dGhlbnRpY2F0ZWQiLCJleHAiOjQxMDI0NDQ4MDB9.c2lnbmF0dXJl";
  const cases: Array<[Response, number, string, string | null]> = [
    [
      new Response("<html>route not found at 10.0.0.5</html>", { status: 404 }),
      503,
      "auth_unavailable",
      "5",
    ],
    [Response.json({ message: "Invalid API key" }, { status: 401 }), 503, "auth_unavailable", "5"],
    [
      new Response("slow down", { status: 429, headers: { "retry-after": "120" } }),
      503,
      "auth_unavailable",
      "120",
    ],
    [
      Response.json({ code: 400, msg: "no such route" }, { status: 400 }),
      503,
      "auth_unavailable",
      "5",
    ],
    [
      Response.json({ error_code: "bad_jwt", msg: "sub claim must be a UUID, 10.0.0.5" }, {
        status: 400,
      }),
      401,
      "bad_jwt",
      null,
    ],
    [
      Response.json({ error_code: "bad_jwt", msg: "invalid JWT at 10.0.0.5" }, { status: 403 }),
      401,
      "bad_jwt",
      null,
    ],
    [
      Response.json({ error_code: "session_not_found", msg: "gone" }, { status: 404 }),
      401,
      "session_not_found",
      null,
    ],
  ];
  for (const [answer, status, error, retryAfter] of cases) {
    const app = new Hono<{ Variables: FetchbaseVariables }>();
    app.use(
      "*",
      fetchbaseAuth({
        url: "https://p.example",
        apiKey: "anon-key",
        clientOptions: { fetch: () => Promise.resolve(answer.clone()), retry: { maxAttempts: 1 } },
      }),
    );
    app.get("/me", (c) => c.text("ok"));
    const r = await app.request("/me", { headers: { authorization: `Bearer ${hs256}` } });
    const text = await r.text();
    assert.equal(r.status, status, text);
    assert.equal(JSON.parse(text).error, error);
    assert.doesNotMatch(text, /10\.0\.0\.5|html|Invalid API key|slow down/);
    assert.equal(r.headers.get("retry-after"), retryAfter);
    if (status === 401) {
      assert.equal(r.headers.get("www-authenticate"), 'Bearer error="invalid_token"');
    }
  }
});

Deno.test("Deno edge example: an upstream failure answers its category, never its message (no internal URL)", async () => {
  const p = await project();
  try {
    const app = createApp({
      url: p.server.url,
      apiKey: p.backend.apiKey,
      clientOptions: {
        fetch: (input, init) => {
          const url = input instanceof Request ? input.url : String(input);
          // The database is unreachable; auth (JWKS) still answers.
          if (url.includes("/rest/v1/")) {
            return Promise.reject(
              new TypeError("error sending request for url (http://10.1.2.3:1/rest/v1/todos)"),
            );
          }
          return fetch(input, init);
        },
        retry: { maxAttempts: 1 },
      },
    });
    const alice = await p.signUp("leak@example.test");
    const r = await app.request("/api/todos", {
      headers: { authorization: `Bearer ${alice.access_token}` },
    });
    assert.equal(r.status, 502);
    const body = await r.text();
    assert.ok(!body.includes("10.1.2.3"), body);
    assert.equal(JSON.parse(body).category, "NETWORK");
  } finally {
    await p.server.close();
  }
});

Deno.test("middleware: by default an auth server in trouble is asked once and answered 503 at once, its Retry-After passed on; clientOptions can restore retries", async () => {
  const hs256 = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." +
    "eyJzdWIiOiJ1MSIsImF1ZCI6ImF1dGhlbnRpY2F0ZWQiLCJleHAiOjQxMDI0NDQ4MDB9.c2lnbmF0dXJl";
  let calls = 0;
  const busy: typeof fetch = () => {
    calls++;
    return Promise.resolve(new Response("busy", { status: 503, headers: { "retry-after": "8" } }));
  };
  const app = new Hono<{ Variables: FetchbaseVariables }>();
  app.use(
    "*",
    fetchbaseAuth({ url: "https://p.example", apiKey: "k", clientOptions: { fetch: busy } }),
  );
  app.get("/me", (c) => c.text("ok"));
  const started = Date.now();
  const r = await app.request("/me", { headers: { authorization: `Bearer ${hs256}` } });
  assert.equal(r.status, 503);
  assert.equal(r.headers.get("retry-after"), "8");
  assert.equal(calls, 1, "no retry against a failing auth server");
  assert.ok(Date.now() - started < 2_000, "the Retry-After is not waited out");
  // A 502 without Retry-After is not retried either; an explicit policy is honoured.
  calls = 0;
  const flaky: typeof fetch = () => (calls++, Promise.resolve(new Response("x", { status: 502 })));
  const retrying = new Hono<{ Variables: FetchbaseVariables }>();
  retrying.use(
    "*",
    fetchbaseAuth({
      url: "https://p.example",
      apiKey: "k",
      clientOptions: { fetch: flaky, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 } },
    }),
  );
  retrying.get("/me", (c) => c.text("ok"));
  const again = await retrying.request("/me", { headers: { authorization: `Bearer ${hs256}` } });
  assert.equal(again.status, 503);
  assert.equal(calls, 2);
});

Deno.test("middleware: a retry or timeout given as undefined keeps the fail-fast defaults (one attempt, 5 s)", async () => {
  const hs256 = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." +
    "eyJzdWIiOiJ1MSIsImF1ZCI6ImF1dGhlbnRpY2F0ZWQiLCJleHAiOjQxMDI0NDQ4MDB9.c2lnbmF0dXJl";
  let calls = 0;
  let signal: AbortSignal | null = null;
  const busy: typeof fetch = (_input, init) => {
    calls++;
    signal = init?.signal ?? null;
    return Promise.resolve(new Response("x", { status: 503 }));
  };
  // As `{ timeout: env.TIMEOUT ? Number(env.TIMEOUT) : undefined }` gives it.
  const env: { RETRIES?: number; TIMEOUT?: number } = {};
  for (
    const clientOptions of [{ fetch: busy, retry: undefined, timeout: undefined }, {
      fetch: busy,
      retry: env.RETRIES ? { maxAttempts: env.RETRIES } : undefined,
      timeout: env.TIMEOUT,
    }]
  ) {
    calls = 0;
    const app = new Hono<{ Variables: FetchbaseVariables }>();
    app.use("*", fetchbaseAuth({ url: "https://p.example", apiKey: "k", clientOptions }));
    app.get("/me", (c) => c.text("ok"));
    const r = await app.request("/me", { headers: { authorization: `Bearer ${hs256}` } });
    assert.equal(r.status, 503);
    assert.equal(calls, 1, "no retry against a failing auth server");
    assert.ok(signal, "the call is bounded by a timeout signal");
  }
});

Deno.test("middleware: an API key that cannot go in a header throws at creation, and no local failure but a refused token is a 401", async () => {
  for (const apiKey of ["\u201csb_publishable_abc\u201d", "key\nwith-newline"]) {
    assert.throws(() => fetchbaseAuth({ url: "https://p.example", apiKey }), {
      name: "TypeError",
      message: "Cannot create the middleware as 'apiKey' cannot be sent in a header",
    });
  }
  // A request the runtime refuses to send (here a fetch that refuses the key header, as a
  // runtime's does) is this server's trouble: 503, not the caller's token refused.
  const hs256 = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." +
    "eyJzdWIiOiJ1MSIsImF1ZCI6ImF1dGhlbnRpY2F0ZWQiLCJleHAiOjQxMDI0NDQ4MDB9.c2lnbmF0dXJl";
  const refusing: typeof fetch = () => {
    throw new TypeError("Headers.append: invalid header value");
  };
  const app = new Hono<{ Variables: FetchbaseVariables }>();
  app.use(
    "*",
    fetchbaseAuth({ url: "https://p.example", apiKey: "k", clientOptions: { fetch: refusing } }),
  );
  app.get("/me", (c) => c.text("ok"));
  const r = await app.request("/me", { headers: { authorization: `Bearer ${hs256}` } });
  assert.equal(r.status, 503);
  assert.equal(r.headers.get("www-authenticate"), null);
  // A token that does not decode is still the caller's: 401.
  const bad = await app.request("/me", { headers: { authorization: "Bearer not.a.jwt" } });
  assert.equal(bad.status, 401);
  assert.match(bad.headers.get("www-authenticate") ?? "", /invalid_token/);
});

Deno.test("Deno edge example: a backend 401 carries the Bearer challenge; the caller's own mistakes keep their 4xx", async () => {
  const p = await project();
  try {
    let answer: Response | null = null;
    const app = createApp({
      url: p.server.url,
      apiKey: p.backend.apiKey,
      clientOptions: {
        fetch: (input, init) => {
          const url = input instanceof Request ? input.url : String(input);
          if (url.includes("/rest/v1/") && answer) return Promise.resolve(answer.clone());
          return fetch(input, init);
        },
        retry: { maxAttempts: 1 },
      },
    });
    const alice = await p.signUp("codes@example.test");
    const headers = { authorization: `Bearer ${alice.access_token}` };
    answer = Response.json({ code: "PGRST301", message: "JWT expired" }, { status: 401 });
    const expired = await app.request("/api/todos", { headers });
    assert.equal(expired.status, 401);
    assert.equal(expired.headers.get("www-authenticate"), 'Bearer error="invalid_token"');
    answer = Response.json({ code: "23505", message: "duplicate key" }, { status: 409 });
    assert.equal((await app.request("/api/todos", { headers })).status, 409);
    answer = Response.json({ code: "PGRST100", message: "bad filter" }, { status: 400 });
    assert.equal((await app.request("/api/todos", { headers })).status, 400);
    answer = new Response("down", { status: 500 });
    const down = await app.request("/api/todos", { headers });
    assert.equal(down.status, 502);
    assert.equal(down.headers.get("www-authenticate"), null);
    // A backend asking this server to slow down: 503 with its Retry-After (a 502 dropped it).
    answer = Response.json({ message: "slow down" }, {
      status: 429,
      headers: { "retry-after": "12" },
    });
    const limited = await app.request("/api/todos", { headers });
    assert.equal(limited.status, 503);
    assert.equal(limited.headers.get("retry-after"), "12");
    assert.equal((await limited.json()).category, "RATE_LIMITED");
    // The backend refusing this server's API key (a rotated key) is no fault of the caller's
    // token: 502 without the challenge that would make clients refresh or sign out.
    for (const status of [401, 403]) {
      answer = Response.json({ message: "Invalid API key" }, { status });
      const key = await app.request("/api/todos", { headers });
      assert.equal(key.status, 502, `${status}`);
      assert.equal(key.headers.get("www-authenticate"), null);
    }
    // A file name the storage client refuses (a path escaping the folder) is the caller's: 400.
    const bad = await app.request("/api/files/..%2F..%2Fother%2Fx", {
      method: "PUT",
      headers,
      body: "hi",
    });
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).category, "INVALID_ARGUMENT");
    // A refusal that echoes the caller's words ("apikey" in a path) stays the caller's 400.
    const echoed = await app.request("/api/files/..%2F..%2Fapikey%2Fx", {
      method: "PUT",
      headers,
      body: "hi",
    });
    assert.equal(echoed.status, 400);
    await echoed.body?.cancel();
  } finally {
    await p.server.close();
  }
});

Deno.test("Deno edge example: an upload to a Storage API that stalls ends when the caller leaves (it held the request for ever)", async () => {
  const p = await project();
  try {
    let reached = false;
    const app = createApp({
      url: p.server.url,
      apiKey: p.backend.apiKey,
      clientOptions: {
        fetch: (input, init) => {
          const url = input instanceof Request ? input.url : String(input);
          if (!url.includes("/storage/v1/object/")) return fetch(input, init);
          reached = true;
          // Takes the request and never answers; only the signal ends the wait.
          return new Promise<Response>((_, reject) =>
            init?.signal?.addEventListener("abort", () => reject(init.signal!.reason))
          );
        },
        retry: { maxAttempts: 1 },
      },
    });
    const alice = await p.signUp("stall@example.test");
    const caller = new AbortController();
    const pending = app.request("/api/files/a.txt", {
      method: "PUT",
      headers: { authorization: `Bearer ${alice.access_token}` },
      body: "hello",
      signal: caller.signal,
    });
    while (!reached) await new Promise((r) => setTimeout(r, 5));
    const started = performance.now();
    caller.abort();
    const res = await pending;
    assert.ok(performance.now() - started < 1_000);
    assert.equal((await res.json()).category, "CANCELLED");
  } finally {
    await p.server.close();
  }
});

Deno.test("middleware: missing options, or a url, key or client option the client refuses, throw at creation, not as a 500 per request", async () => {
  const { createAuthClient } = await import("../../auth/client.ts");
  const { createClient } = await import("../../client.ts");
  for (const bad of [undefined, null, "https://p.example"]) {
    assert.throws(() => fetchbaseAuth(bad as never), {
      name: "TypeError",
      message:
        "Cannot create the middleware as 'options' must be an object with 'url' and 'apiKey'",
    });
  }
  // A shared auth client does not make the per-request client's url and key optional.
  const auth = createAuthClient(createClient("https://p.example", "anon-key"));
  for (
    const options of [
      { auth },
      { auth, url: "ftp://p.example", apiKey: "k" },
      { url: "https://p.example", apiKey: " " },
      { url: "https://p.example", apiKey: "k", clientOptions: { timeout: -1 } },
    ]
  ) {
    assert.throws(() => fetchbaseAuth(options as never), (e: Error) => {
      assert.ok(e instanceof TypeError || e instanceof RangeError, String(e));
      assert.match(e.message, /^Cannot create the client as/);
      return true;
    });
  }
  // The per-request client carries the caller's token: a client-wide Authorization would
  // replace it on every database and storage call.
  for (const headers of [{ Authorization: "Bearer service-key" }, [["AUTHORIZATION", "x"]]]) {
    assert.throws(
      () =>
        fetchbaseAuth({
          url: "https://p.example",
          apiKey: "k",
          clientOptions: { headers: headers as never },
        }),
      {
        name: "TypeError",
        message:
          "Cannot create the middleware as 'clientOptions.headers' must not hold Authorization: each request's client acts for its caller",
      },
    );
  }
  // A valid one still builds and answers.
  const app = new Hono<{ Variables: FetchbaseVariables }>();
  app.use("*", fetchbaseAuth({ url: "https://p.example", apiKey: "k", auth }));
  app.get("/", (c) => c.text("ok"));
  assert.equal((await app.request("/")).status, 401);
});

Deno.test("middleware: a JWKS that never answers holds a request for the verifying client's timeout, not the resolver's 10 s", async () => {
  const backend = await createLocalBackend();
  const token = await signJwt(backend.key, {
    sub: "u1",
    aud: "authenticated",
    role: "authenticated",
    exp: Math.floor(Date.now() / 1000) + 600,
  });
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const asked: Array<[string, number]> = [];
    const silent = ((input: RequestInfo | URL, init?: RequestInit) => {
      asked.push([
        new URL(String(input instanceof Request ? input.url : input)).pathname,
        Date.now(),
      ]);
      return new Promise<Response>((_resolve, reject) =>
        init?.signal?.addEventListener("abort", () => reject(init.signal!.reason))
      );
    }) as typeof fetch;
    const answer = async (clientOptions: Record<string, unknown>) => {
      asked.length = 0;
      const app = new Hono<{ Variables: FetchbaseVariables }>();
      app.use("*", fetchbaseAuth({ url: "https://p.example", apiKey: "k", clientOptions }));
      app.get("/", (c) => c.text("ok"));
      const started = Date.now();
      let status = 0;
      const pending = Promise.resolve(app.request("/", {
        headers: { authorization: `Bearer ${token}` },
      })).then((r) => status = r.status);
      while (status === 0) await clock.tickAsync(250);
      await pending;
      return {
        status,
        elapsed: Date.now() - started,
        asked: asked.map(([p, at]) => [p, at - started]),
      };
    };
    // Default: 5 s for the JWKS, then 5 s for the /user fallback (it was 10 s + 5 s).
    const byDefault = await answer({ fetch: silent });
    assert.equal(byDefault.status, 503);
    assert.deepEqual(byDefault.asked.map(([p]) => p), [
      "/auth/v1/.well-known/jwks.json",
      "/auth/v1/user",
    ]);
    assert.ok(Number(byDefault.asked[1][1]) <= 5_250, JSON.stringify(byDefault));
    assert.ok(byDefault.elapsed <= 10_500, JSON.stringify(byDefault));
    // A timeout and retry given as undefined are left out: the same 5 s each, not 30 s.
    const undefinedGiven = await answer({ fetch: silent, timeout: undefined, retry: undefined });
    assert.equal(undefinedGiven.status, 503);
    assert.deepEqual(undefinedGiven.asked.map(([p]) => p), byDefault.asked.map(([p]) => p));
    assert.ok(undefinedGiven.elapsed <= 10_500, JSON.stringify(undefinedGiven));
    // A timeout given in clientOptions reaches the JWKS fetch too.
    const short = await answer({ fetch: silent, timeout: 1_000 });
    assert.equal(short.status, 503);
    assert.ok(short.elapsed <= 2_500, JSON.stringify(short));
  } finally {
    clock.uninstall();
  }
});

Deno.test("middleware: the claims on the context log without the signature (with header and claims it is the token again)", async () => {
  const p = await project();
  try {
    const app = new Hono<{ Variables: FetchbaseVariables }>();
    app.use("*", fetchbaseAuth({ url: p.server.url, apiKey: p.backend.apiKey }));
    let seen: FetchbaseVariables["claims"] | undefined;
    app.get("/me", (c) => {
      seen = c.get("claims");
      return c.text("ok");
    });
    const session = await p.signUp("log@example.test");
    const signature = session.access_token.split(".")[2];
    const r = await app.request("/me", {
      headers: { authorization: `Bearer ${session.access_token}` },
    });
    assert.equal(r.status, 200);
    assert.ok(seen);
    // What a logger writes: JSON, Deno's inspection, the keys.
    for (const logged of [JSON.stringify(seen), Deno.inspect(seen, { depth: 9 })]) {
      assert.ok(!logged.includes(signature), "the signature is not logged");
      assert.ok(logged.includes(session.user.id), "the claims are");
    }
    assert.deepEqual(Object.keys(seen).sort(), ["claims", "header", "raw"]);
    // Still there for code that asks for it.
    assert.equal(seen.signature, signature);
  } finally {
    await p.server.close();
  }
});

Deno.test("Deno edge example: a search matches its text literally and cannot stall the backend; a todo body is bounded", async () => {
  const p = await project();
  try {
    const app = createApp({ url: p.server.url, apiKey: p.backend.apiKey });
    const alice = await p.signUp("search@example.test");
    const headers = { authorization: `Bearer ${alice.access_token}` };
    for (const title of ["50% off", "500 off", "a_b", "axb", "star*", "stars"]) {
      const r = await app.request("/api/todos", {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ title }),
      });
      assert.equal(r.status, 201, title);
    }
    const found = async (q: string) => {
      const r = await app.request(`/api/todos?q=${encodeURIComponent(q)}`, { headers });
      assert.equal(r.status, 200, q);
      return ((await r.json()).todos as Array<{ title: string }>).map((t) => t.title).sort();
    };
    assert.deepEqual(await found("50%"), ["50% off"]);
    assert.deepEqual(await found("a_b"), ["a_b"]);
    // `*` is PostgREST's `%`: the example lets it match any one character.
    assert.deepEqual(await found("star*"), ["star*", "stars"]);
    // The 100-character cap counts code points: an emoji at the cut is kept whole, not a 400.
    assert.deepEqual(await found("x".repeat(99) + "😀"), []);
    // Many wildcards: answered at once, not after seconds of backtracking.
    const started = performance.now();
    assert.deepEqual(await found("%".repeat(40) + "zzz"), []);
    assert.ok(performance.now() - started < 1000);
    // A body past 16 KiB is refused before it is read whole; a long title is refused.
    const huge = await app.request("/api/todos", {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ title: "x".repeat(20 * 1024) }),
    });
    assert.equal(huge.status, 413);
    await huge.body?.cancel();
    const long = await app.request("/api/todos", {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ title: "x".repeat(501) }),
    });
    assert.equal(long.status, 400);
    await long.body?.cancel();
  } finally {
    await p.server.close();
  }
});

Deno.test("middleware: a CORS preflight is answered by cors() registered first (as the JSDoc says); without it, 401", async () => {
  const { cors } = await import("hono/cors");
  const preflight = {
    method: "OPTIONS",
    headers: {
      origin: "https://app.example",
      "access-control-request-method": "GET",
      "access-control-request-headers": "authorization",
    },
  };
  const options = { url: "https://p.example", apiKey: "anon-key" };
  const withCors = new Hono<{ Variables: FetchbaseVariables }>();
  withCors.use("/api/*", cors({ origin: "https://app.example" }));
  withCors.use("/api/*", fetchbaseAuth(options));
  withCors.get("/api/me", (c) => c.text("me"));
  const ok = await withCors.request("/api/me", preflight);
  assert.equal(ok.status, 204);
  assert.equal(ok.headers.get("access-control-allow-origin"), "https://app.example");
  // The middleware's refusals keep the headers cors() set: the page can read its 401.
  const denied = await withCors.request("/api/me", { headers: { origin: "https://app.example" } });
  assert.equal(denied.status, 401);
  assert.equal(denied.headers.get("access-control-allow-origin"), "https://app.example");
  await denied.body?.cancel();
  // Registered after the middleware, cors() never runs for a preflight (nor for any refusal).
  const late = new Hono<{ Variables: FetchbaseVariables }>();
  late.use("/api/*", fetchbaseAuth(options));
  late.use("/api/*", cors({ origin: "https://app.example" }));
  late.get("/api/me", (c) => c.text("me"));
  const lost = await late.request("/api/me", preflight);
  assert.equal(lost.status, 401);
  assert.equal(lost.headers.get("access-control-allow-origin"), null);
  await lost.body?.cancel();
  const bare = new Hono<{ Variables: FetchbaseVariables }>();
  bare.use("/api/*", fetchbaseAuth(options));
  bare.get("/api/me", (c) => c.text("me"));
  const refused = await bare.request("/api/me", preflight);
  assert.equal(refused.status, 401);
  await refused.body?.cancel();
});

Deno.test("middleware: every challenge carries an auth-param (RFC 6750 §3), the realm quoted; a realm that cannot go in a header throws at creation", async () => {
  const hs256 = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." +
    "eyJzdWIiOiJ1MSIsImF1ZCI6ImF1dGhlbnRpY2F0ZWQiLCJleHAiOjQxMDI0NDQ4MDB9.c2lnbmF0dXJl";
  const refuse: typeof fetch = () =>
    Promise.resolve(Response.json({ error_code: "bad_jwt", msg: "no" }, { status: 401 }));
  const challenges = async (realm?: string) => {
    const app = new Hono<{ Variables: FetchbaseVariables }>();
    app.use(
      "*",
      fetchbaseAuth({
        url: "https://p.example",
        apiKey: "k",
        realm,
        clientOptions: { fetch: refuse },
      }),
    );
    app.get("/", (c) => c.text("ok"));
    const out: Array<[number, string | null]> = [];
    for (const authorization of [undefined, "Basic eDp5", "Bearer a b", `Bearer ${hs256}`]) {
      const r = await app.request("/", { headers: authorization ? { authorization } : {} });
      await r.body?.cancel();
      out.push([r.status, r.headers.get("www-authenticate")]);
    }
    return out;
  };
  // Without credentials no error code may be given, yet the scheme must be followed by a
  // parameter: an empty realm, as Hono's bearerAuth sends.
  assert.deepEqual(await challenges(), [
    [401, 'Bearer realm=""'],
    [401, 'Bearer realm=""'],
    [400, 'Bearer error="invalid_request"'],
    [401, 'Bearer error="invalid_token"'],
  ]);
  // A realm given goes in every challenge, its quote and backslash escaped.
  const quoted = 'Bearer realm="api \\\\ \\"v2\\""';
  assert.deepEqual(await challenges('api \\ "v2"'), [
    [401, quoted],
    [401, quoted],
    [400, `${quoted}, error="invalid_request"`],
    [401, `${quoted}, error="invalid_token"`],
  ]);
  for (const realm of ["line\r\nX-Injected: 1", "caf\u00e9", 42]) {
    assert.throws(
      () => fetchbaseAuth({ url: "https://p.example", apiKey: "k", realm: realm as string }),
      (e: Error) => {
        assert.ok(e instanceof TypeError);
        assert.match(
          e.message,
          /^Cannot create the middleware as 'realm' must be a string of printable ASCII characters: current value is /,
        );
        return true;
      },
    );
  }
});

/** A local project whose server counts the JWKS fetches it answers. */
async function jwksCountingProject() {
  const backend = await createLocalBackend();
  let jwks = 0;
  const server = await serve((req) => {
    if (new URL(req.url).pathname.endsWith("/.well-known/jwks.json")) jwks++;
    return backend.app.fetch(req);
  });
  const mint = (claims: Record<string, unknown> = {}) =>
    signJwt(backend.key, {
      sub: "u-env",
      aud: "authenticated",
      role: "authenticated",
      exp: Math.floor(Date.now() / 1000) + 600,
      aal: "aal1",
      ...claims,
    });
  return { backend, server, mint, jwks: () => jwks };
}

/** A Worker's bindings in these tests. */
interface TestEnv {
  PROJECT_URL: string;
  PROJECT_KEY: string;
  REALM?: string;
}

Deno.test("middleware from a function of c.env: verifies as the object form; one JWKS fetch per configuration across requests; two envs get two clients", async () => {
  const a = await jwksCountingProject();
  const b = await jwksCountingProject();
  try {
    let reads = 0;
    const app = new Hono<{ Bindings: TestEnv; Variables: FetchbaseVariables }>();
    app.use(
      "*",
      fetchbaseAuth<TestEnv>((c) => {
        reads++;
        return { url: c.env.PROJECT_URL, apiKey: c.env.PROJECT_KEY, realm: c.env.REALM };
      }),
    );
    app.get("/me", (c) =>
      c.json({
        sub: c.get("claims").claims.subject,
        url: c.get("fetchbase").url,
        token: c.get("fetchbase").accessToken !== null,
      }));
    // A new bindings object for every request, as a platform may hand each request its own.
    const envA = (): TestEnv => ({ PROJECT_URL: a.server.url, PROJECT_KEY: a.backend.apiKey });
    const envB = (): TestEnv => ({ PROJECT_URL: b.server.url, PROJECT_KEY: b.backend.apiKey });
    const call = async (env: TestEnv, token?: string) => {
      const r = await app.request(
        "/me",
        { headers: token ? { authorization: `Bearer ${token}` } : {} },
        env,
      );
      return {
        status: r.status,
        challenge: r.headers.get("www-authenticate"),
        body: await r.json(),
      };
    };

    const tokenA = await a.mint({ sub: "alice" });
    const tokenB = await b.mint({ sub: "bob" });
    // As the object form: the claims and a per-request client of the env's project on the context.
    assert.deepEqual((await call(envA(), tokenA)).body, {
      sub: "alice",
      url: a.server.url,
      token: true,
    });
    for (let i = 0; i < 4; i++) assert.equal((await call(envA(), tokenA)).status, 200);
    assert.equal(a.jwks(), 1, "five requests with the same bindings share one JWKS fetch");
    assert.equal(reads, 5, "the options are read for every request");

    // Another env is another configuration: its own client and JWKS cache.
    assert.equal((await call(envB(), tokenB)).body.url, b.server.url);
    assert.equal((await call(envB(), tokenB)).status, 200);
    assert.equal(b.jwks(), 1);
    assert.equal(a.jwks(), 1);
    // The realm and the other checks are read from each result, and make no client of their own.
    assert.deepEqual(await call({ ...envA(), REALM: "a" }), {
      status: 401,
      challenge: 'Bearer realm="a"',
      body: {
        error: "missing_token",
        message: "An Authorization: Bearer <token> header is required",
      },
    });
    assert.equal((await call(envA())).challenge, 'Bearer realm=""');
    assert.equal((await call({ ...envA(), REALM: "a" }, tokenA)).status, 200);
    assert.equal(a.jwks(), 1, "the realm is no new client");
    // Each token verifies only against its own project's keys.
    assert.equal((await call(envB(), tokenA)).status, 401);
    assert.equal((await call(envA(), tokenB)).status, 401);
    const expired = await a.mint({ exp: Math.floor(Date.now() / 1000) - 600 });
    assert.equal((await call(envA(), expired)).body.error, "token_expired");
  } finally {
    await a.server.close();
    await b.server.close();
  }
});

Deno.test("middleware from a function: client options compare by value, a fetch or an auth client by identity; a fetch made per request gets a client per request", async () => {
  const p = await jwksCountingProject();
  try {
    const token = await p.mint();
    const sharedFetch: typeof fetch = (input, init) => fetch(input, init);
    const statuses = async (options: () => FetchbaseAuthOptions) => {
      const app = new Hono<{ Variables: FetchbaseVariables }>();
      app.use("*", fetchbaseAuth(options));
      app.get("/", (c) => c.text("ok"));
      const out: number[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await app.request("/", { headers: { authorization: `Bearer ${token}` } });
        await r.body?.cancel();
        out.push(r.status);
      }
      return out;
    };
    // New literals, a new Headers and a new retry object each time, the same fetch: one client.
    assert.deepEqual(
      await statuses(() => ({
        url: p.server.url,
        apiKey: p.backend.apiKey,
        clientOptions: {
          fetch: sharedFetch,
          headers: new Headers({ "x-app": "worker" }),
          retry: { maxAttempts: 2 },
          timeout: 4_000,
        },
      })),
      [200, 200, 200],
    );
    assert.equal(p.jwks(), 1);
    // A fetch made inside the function is a new configuration every time (documented).
    assert.deepEqual(
      await statuses(() => ({
        url: p.server.url,
        apiKey: p.backend.apiKey,
        clientOptions: { fetch: (input, init) => fetch(input, init) },
      })),
      [200, 200, 200],
    );
    assert.equal(p.jwks(), 4);
    // A shared auth client counts by identity: two of them are two configurations.
    const { createAuthClient } = await import("../../auth/client.ts");
    const { createClient } = await import("../../client.ts");
    const shared = [0, 1].map(() => createAuthClient(createClient(p.server.url, p.backend.apiKey)));
    let turn = 0;
    assert.deepEqual(
      await statuses(() => ({
        url: p.server.url,
        apiKey: p.backend.apiKey,
        auth: shared[turn++ % 2],
      })),
      [200, 200, 200],
    );
    // Two configurations, but auth clients of one project made without JWKS options share its
    // key set (auth/_shared_jwks.ts): one fetch for both.
    assert.equal(p.jwks(), 5, "the two auth clients share the project's key set");
  } finally {
    await p.server.close();
  }
});

Deno.test("middleware from a function: at most 8 configurations are kept, the least recently used dropped first", async () => {
  const p = await jwksCountingProject();
  try {
    const token = await p.mint();
    const app = new Hono<{ Bindings: TestEnv; Variables: FetchbaseVariables }>();
    app.use(
      "*",
      fetchbaseAuth<TestEnv>((c) => ({ url: c.env.PROJECT_URL, apiKey: c.env.PROJECT_KEY })),
    );
    app.get("/", (c) => c.text("ok"));
    // Trailing slashes make distinct configurations of the same project (the client drops them).
    const use = async (n: number) => {
      const env = { PROJECT_URL: p.server.url + "/".repeat(n), PROJECT_KEY: p.backend.apiKey };
      const r = await app.request("/", { headers: { authorization: `Bearer ${token}` } }, env);
      assert.equal(r.status, 200, await r.text());
      return p.jwks();
    };
    for (let n = 0; n < 8; n++) assert.equal(await use(n), n + 1);
    assert.equal(await use(0), 8, "configuration 0 is kept, and now the most recently used");
    assert.equal(await use(8), 9, "a ninth configuration drops the least recently used (1)");
    assert.equal(await use(0), 9, "0 was used after 1, so it stays");
    assert.equal(await use(1), 10, "1 was dropped: its JWKS is fetched again (and 2 dropped)");
    assert.equal(await use(8), 10);
    assert.equal(await use(2), 11);
    // However many configurations a function returns, no more than 8 clients are held.
    for (let n = 9; n < 40; n++) await use(n);
    assert.equal(await use(39), 42);
    assert.equal(await use(32), 42);
    assert.equal(await use(31), 43, "only the last 8 are kept");
  } finally {
    await p.server.close();
  }
});

Deno.test("middleware from a function: a throw or a refused result is thrown for that request (the object form's error, never the url or key); a refused result is not kept", async () => {
  const key = "sb_secret_never-in-a-message";
  let result: () => unknown = () => ({});
  const app = new Hono<{ Variables: FetchbaseVariables }>();
  // Creating the middleware reads nothing yet.
  app.use("*", fetchbaseAuth(() => result() as FetchbaseAuthOptions));
  app.get("/", (c) => c.text("ok"));
  const thrown: unknown[] = [];
  app.onError((e, c) => {
    thrown.push(e);
    return c.json({ error: "internal", message: e.message }, 500);
  });
  const answer = async (value: () => unknown, authorization = "Bearer a.b.c") => {
    result = value;
    thrown.length = 0;
    const r = await app.request("/", { headers: { authorization } });
    const text = await r.text();
    assert.equal(r.status, 500);
    assert.equal(thrown.length, 1);
    assert.ok(!text.includes(key) && !text.includes("secret-host"), text);
    return thrown[0] as Error;
  };
  const boom = new Error("bindings missing");
  assert.equal(
    await answer(() => {
      throw boom;
    }),
    boom,
    "the function's own throw propagates as it is",
  );
  const refused = (value: unknown) =>
    `Cannot verify the request as the result of 'options' must be an object with 'url' and 'apiKey': current value is ${value}`;
  for (
    const [value, message] of [
      [key, refused("a string")],
      [undefined, refused("undefined")],
      [null, refused("null")],
      [
        { url: `ftp://secret-host/${key}`, apiKey: key },
        "Cannot create the client as 'url' must be an http or https URL",
      ],
      [
        { url: "https://secret-host", apiKey: " " },
        "Cannot create the client as 'apiKey' must be a non-blank string",
      ],
      [
        { url: "https://secret-host", apiKey: key, clientOptions: { fetch: key } },
        "Cannot create the client as 'fetch' must be a function",
      ],
      [
        {
          url: "https://secret-host",
          apiKey: key,
          clientOptions: { headers: { authorization: key } },
        },
        "Cannot create the middleware as 'clientOptions.headers' must not hold Authorization: each request's client acts for its caller",
      ],
      [
        {
          url: "https://secret-host",
          apiKey: key,
          clientOptions: { headers: { "x-a": `\u2028${key}` } },
        },
        "Cannot create the client as 'headers' is invalid",
      ],
      [
        { url: "https://secret-host", apiKey: key, realm: "caf\u00e9" },
        `Cannot create the middleware as 'realm' must be a string of printable ASCII characters: current value is "caf\u00e9"`,
      ],
    ] as Array<[unknown, string]>
  ) {
    const e = await answer(() => value);
    assert.ok(e instanceof TypeError, String(e));
    assert.equal(e.message, message);
    // A request without a token reads the options too, and is refused the same way (the
    // refused result was not kept).
    assert.equal((await answer(() => value, "")).message, message);
  }
  const e = await answer(() => ({
    url: "https://secret-host",
    apiKey: key,
    clientOptions: { timeout: -1 },
  }));
  assert.ok(e instanceof RangeError);
  // A refused result is not kept (each above was refused twice); a good one then answers.
  result = () => ({ url: "https://p.example", apiKey: key });
  const r = await app.request("/");
  assert.equal(r.status, 401);
  assert.equal((await r.json()).error, "missing_token");

  // Without an onError, Hono answers a bare 500 with no details.
  const plain = new Hono();
  plain.use("*", fetchbaseAuth(() => ({ url: `ftp://secret-host/${key}`, apiKey: key })));
  plain.get("/", (c) => c.text("ok"));
  const logged: unknown[] = [];
  const error = console.error;
  console.error = (...args: unknown[]) => logged.push(...args);
  try {
    const bare = await plain.request("/", { headers: { authorization: "Bearer a.b.c" } });
    assert.equal(bare.status, 500);
    assert.equal(await bare.text(), "Internal Server Error");
  } finally {
    console.error = error;
  }
  assert.ok(!String(logged[0]).includes(key));
  // A value that is neither options nor a function is still refused at creation.
  assert.throws(() => fetchbaseAuth(42 as never), TypeError);
});

Deno.test("middleware from an async function (a key from a secrets store): its options are awaited and verify as the object form; a rejection propagates; a promise of a refused value is refused", async () => {
  const a = await jwksCountingProject();
  try {
    // A secrets store answering later, as a KV namespace or a vault does.
    const secrets = new Map([["PROJECT_KEY", a.backend.apiKey]]);
    const secret = (name: string) =>
      new Promise<string | undefined>((resolve) => setTimeout(() => resolve(secrets.get(name)), 1));
    let result: () => Promise<unknown> = async () => ({
      url: a.server.url,
      apiKey: await secret("PROJECT_KEY"),
    });
    const app = new Hono<{ Variables: FetchbaseVariables }>();
    app.use("*", fetchbaseAuth(() => result() as Promise<FetchbaseAuthOptions>));
    app.get(
      "/me",
      (c) => c.json({ sub: c.get("claims").claims.subject, url: c.get("fetchbase").url }),
    );
    const thrown: unknown[] = [];
    app.onError((e, c) => {
      thrown.push(e);
      return c.json({ error: "internal" }, 500);
    });
    const token = await a.mint({ sub: "carol" });
    const call = () => app.request("/me", { headers: { authorization: `Bearer ${token}` } });
    const first = await call();
    assert.equal(first.status, 200);
    assert.deepEqual(await first.json(), { sub: "carol", url: a.server.url });
    for (let i = 0; i < 3; i++) assert.equal((await call()).status, 200);
    assert.equal(a.jwks(), 1, "awaited options are one configuration: one JWKS fetch");
    assert.equal(thrown.length, 0);

    const gone = new Error("secrets store unreachable");
    result = () => Promise.reject(gone);
    assert.equal((await call()).status, 500);
    assert.equal(thrown.pop(), gone, "the rejection propagates as it is");
    result = () => Promise.resolve(a.backend.apiKey);
    assert.equal((await call()).status, 500);
    const refused = thrown.pop() as Error;
    assert.ok(refused instanceof TypeError);
    assert.equal(
      refused.message,
      "Cannot verify the request as the result of 'options' must be an object with 'url' and 'apiKey': current value is a string",
    );
  } finally {
    await a.server.close();
  }
});

Deno.test("middleware: localOnly refuses what it cannot verify here without asking the auth server; a JWKS down is 503", async () => {
  const p = await project();
  const paths: string[] = [];
  let jwksDown = false;
  const fetching: typeof fetch = (input, init) => {
    const path = new URL(input instanceof Request ? input.url : String(input)).pathname;
    paths.push(path);
    if (jwksDown && path.endsWith("/jwks.json")) {
      return Promise.resolve(new Response("down", { status: 503 }));
    }
    return p.countingFetch(input, init);
  };
  // A middleware of its own (its own JWKS cache) verifying only here.
  const localApp = () => {
    const app = new Hono<{ Variables: FetchbaseVariables }>();
    app.use(
      "*",
      fetchbaseAuth({
        url: p.server.url,
        apiKey: p.backend.apiKey,
        localOnly: true,
        clientOptions: { fetch: fetching },
      }),
    );
    app.get("/me", (c) => c.json({ sub: c.get("claims").claims.subject }));
    return app;
  };
  try {
    const app = localApp();
    const call = (token: string) =>
      app.request("/me", { headers: { authorization: `Bearer ${token}` } });
    const session = await p.signUp("local@example.test");
    assert.equal((await call(session.access_token)).status, 200);
    // Any HS256 token (no secret needed to write one) made this server ask GET /user each time.
    const b64 = (o: unknown) => btoa(JSON.stringify(o)).replace(/=+$/, "");
    const hs256 = `${b64({ alg: "HS256", typ: "JWT" })}.${
      b64({ sub: "x", aud: "authenticated", exp: 4e9 })
    }.c2ln`;
    const otherKid = await signJwt(
      { ...p.backend.key, kid: "not-in-the-jwks" },
      { sub: "x", aud: "authenticated", exp: Math.floor(Date.now() / 1000) + 600 },
    );
    for (const token of [hs256, otherKid]) {
      const r = await call(token);
      assert.equal(r.status, 401);
      assert.equal((await r.json()).error, "invalid_token");
    }
    assert.ok(!paths.some((path) => path.endsWith("/user")), paths.join(" "));
    // A middleware whose key set cannot be read now: the server's trouble (503), not the token's.
    jwksDown = true;
    const cold = localApp();
    const unavailable = await cold.request("/me", {
      headers: { authorization: `Bearer ${session.access_token}` },
    });
    assert.equal(unavailable.status, 503);
    // What needs no key is checked first: an expired token is the caller's (401), key set or not.
    const expired = await p.mint({ exp: Math.floor(Date.now() / 1000) - 3600 });
    const stale = await cold.request("/me", { headers: { authorization: `Bearer ${expired}` } });
    assert.equal(stale.status, 401);
    assert.equal((await stale.json()).error, "token_expired");
    assert.ok(!paths.some((path) => path.endsWith("/user")), paths.join(" "));
  } finally {
    await p.server.close();
  }
});

Deno.test("middleware: localOnly looks a token's key up once; a failed lookup is the 503's cause, not asked again", async () => {
  // Asked again from its refusal path, a lookup that had timed out waited through the shared
  // fetches a second time: 8 to 11 s for a 503 from a hanging key set.
  const { createAuthClient } = await import("../../auth/client.ts");
  const { createClient } = await import("../../client.ts");
  const p = await project();
  try {
    const down: typeof fetch = (input, init) =>
      new URL(input instanceof Request ? input.url : String(input)).pathname.endsWith("/jwks.json")
        ? Promise.resolve(new Response("down", { status: 503 }))
        : p.countingFetch(input, init);
    const auth = createAuthClient(createClient(p.server.url, p.backend.apiKey, { fetch: down }));
    let lookups = 0;
    const lookup = auth.jwks.verificationKey.bind(auth.jwks);
    auth.jwks.verificationKey = (kid, o) => (lookups++, lookup(kid, o));
    const app = new Hono<{ Variables: FetchbaseVariables }>();
    app.use(
      "*",
      fetchbaseAuth({ url: p.server.url, apiKey: p.backend.apiKey, localOnly: true, auth }),
    );
    app.get("/me", (c) => c.json({ sub: c.get("claims").claims.subject }));
    const token = await p.mint({ exp: Math.floor(Date.now() / 1000) + 600 });
    const r = await app.request("/me", { headers: { authorization: `Bearer ${token}` } });
    assert.equal(r.status, 503);
    assert.equal(lookups, 1);
  } finally {
    await p.server.close();
  }
});

Deno.test("middleware: only spaces and tabs separate Bearer from its token, as in every runtime", async () => {
  // A no-break space passed in Deno (\s) where workerd's header parsing refused it.
  const app = new Hono<{ Variables: FetchbaseVariables }>();
  app.use("*", fetchbaseAuth({ url: "https://p.example", apiKey: "anon-key" }));
  app.get("/me", (c) => c.text("ok"));
  const r = await app.request("/me", { headers: { authorization: "Bearer\u00a0eyJ.x.y" } });
  assert.equal(r.status, 401);
  assert.match(r.headers.get("www-authenticate") ?? "", /^Bearer realm=""$/);
});

Deno.test("middleware in Workers (an execution context): a verification runs to its end past its request's abort, kept alive by waitUntil, so requests joining its key-set fetch get it", async () => {
  const p = await project();
  let jwksFetches = 0;
  const slowJwks: typeof fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.endsWith("/jwks.json")) {
      jwksFetches++;
      await new Promise((r) => setTimeout(r, 150));
    }
    return await fetch(input, init);
  };
  try {
    const app = new Hono<{ Variables: FetchbaseVariables }>();
    app.use(
      "*",
      fetchbaseAuth({
        url: p.server.url,
        apiKey: p.backend.apiKey,
        localOnly: true,
        clientOptions: { fetch: slowJwks },
      }),
    );
    app.get("/", (c) => c.text("ok"));
    const token = await p.mint({});
    const kept: Promise<unknown>[] = [];
    const ctx = { waitUntil: (promise: Promise<unknown>) => void kept.push(promise) };
    // The first request starts the key-set fetch, and its client goes away 20 ms later.
    const gone = new AbortController();
    const first = app.request(
      "/",
      {
        headers: { authorization: `Bearer ${token}` },
        signal: gone.signal,
      },
      undefined,
      ctx as never,
    );
    await new Promise((r) => setTimeout(r, 10));
    const second = app.request(
      "/",
      { headers: { authorization: `Bearer ${token}` } },
      undefined,
      ctx as never,
    );
    await new Promise((r) => setTimeout(r, 10));
    gone.abort();
    // Not cut short by its abort: its verification (and the fetch it owns) went on to the end.
    assert.equal((await first).status, 200);
    assert.equal((await second).status, 200);
    assert.equal(kept.length, 2);
    for (const r of await Promise.all(kept)) assert.equal((r as { ok: boolean }).ok, true);
    assert.equal(jwksFetches, 1);
    // Without an execution context (Deno, Node, Bun) the request's abort ends its wait (a
    // middleware of its own: its key set not fetched yet).
    const cold = new Hono<{ Variables: FetchbaseVariables }>();
    cold.use(
      "*",
      fetchbaseAuth({
        url: p.server.url,
        apiKey: p.backend.apiKey,
        localOnly: true,
        clientOptions: { fetch: (i, o) => slowJwks(i, o) },
      }),
    );
    cold.get("/", (c) => c.text("ok"));
    const elsewhere = new AbortController();
    const cut = cold.request("/", {
      headers: { authorization: `Bearer ${token}` },
      signal: elsewhere.signal,
    });
    await new Promise((r) => setTimeout(r, 20));
    elsewhere.abort();
    assert.equal((await cut).status, 503);
    await new Promise((r) => setTimeout(r, 200)); // its fetch ends (Deno does not cancel it)
  } finally {
    await p.server.close();
  }
});

Deno.test("middleware: an execution context that refuses waitUntil (its request over, a test double) does not fail a valid token", async () => {
  const p = await project();
  try {
    const app = new Hono<{ Variables: FetchbaseVariables }>();
    app.use("*", fetchbaseAuth({ url: p.server.url, apiKey: p.backend.apiKey, localOnly: true }));
    app.get("/", (c) => c.text("ok"));
    const token = await p.mint({});
    const refusing = {
      waitUntil: () => {
        throw new Error("the context is closed");
      },
    };
    const r = await app.request(
      "/",
      { headers: { authorization: `Bearer ${token}` } },
      undefined,
      refusing as never,
    );
    assert.equal(r.status, 200, await r.text());
  } finally {
    await p.server.close();
  }
});

Deno.test("middleware: an API key's own JWT (no aud, no sub) is refused by default; with audience null it passes with a null subject", async () => {
  const p = await project();
  try {
    const appWith = (audience?: null) => {
      const app = new Hono<{ Variables: FetchbaseVariables }>();
      app.use(
        "*",
        fetchbaseAuth({
          url: p.server.url,
          apiKey: p.backend.apiKey,
          localOnly: true,
          clientOptions: { fetch: p.countingFetch },
          ...(audience === null ? { audience } : {}),
        }),
      );
      app.get("/me", (c) => c.json({ sub: c.get("claims").claims.subject }));
      return app;
    };
    const keyJwt = await p.mint({ sub: undefined, aud: undefined, role: "anon" });
    const headers = { authorization: `Bearer ${keyJwt}` };
    assert.equal((await appWith().request("/me", { headers })).status, 401);
    const open = await appWith(null).request("/me", { headers });
    assert.equal(open.status, 200);
    assert.deepEqual(await open.json(), { sub: null });
    // A user's token carries its id as the subject.
    const user = await p.mint({});
    const me = await appWith().request("/me", { headers: { authorization: `Bearer ${user}` } });
    assert.deepEqual(await me.json(), { sub: "u-minted" });
  } finally {
    await p.server.close();
  }
});
