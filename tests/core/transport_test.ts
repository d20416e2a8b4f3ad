import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { createBaseClient } from "../../core/client.ts";
import { VERSION } from "../../core/version.ts";
import { jsonResponse, recordingFetch } from "../support/recording_fetch.ts";

const API_KEY = "anon-key-0123456789";
const TOKEN = "user-access-token-abcdef";

function client(fetchImpl: typeof fetch, extra: Parameters<typeof createBaseClient>[2] = {}) {
  return createBaseClient("https://project.example.com//", API_KEY, { fetch: fetchImpl, ...extra });
}

Deno.test("URL = base (trailing slashes dropped) + area prefix + path + encoded query", async () => {
  const rec = recordingFetch();
  const c = client(rec.fetch);
  await c.request({
    area: "auth",
    path: "/token",
    query: [["grant_type", "password"], ["skip", null]],
  });
  await c.request({
    area: "storage",
    path: "/object/list/b",
    query: { a: "x y&z", n: 3, t: true },
  });
  await c.request({ area: "rest", path: "/todos?select=*", query: "id=eq.1" });
  await c.request({ url: "https://other.example/x", query: "q=1" });
  assert.equal(
    rec.requests[0].url.href,
    "https://project.example.com/auth/v1/token?grant_type=password",
  );
  assert.equal(
    rec.requests[1].url.href,
    "https://project.example.com/storage/v1/object/list/b?a=x%20y%26z&n=3&t=true",
  );
  assert.equal(
    rec.requests[2].url.href,
    "https://project.example.com/rest/v1/todos?select=*&id=eq.1",
  );
  assert.equal(rec.requests[3].url.href, "https://other.example/x?q=1");
});

Deno.test("createBaseClient rejects bad URL, blank key and bad timeout", () => {
  assert.throws(() => createBaseClient("not a url", API_KEY), TypeError);
  assert.throws(() => createBaseClient("ftp://x.example", API_KEY), TypeError);
  assert.throws(() => createBaseClient("https://x.example", "  "), TypeError);
  assert.throws(() => createBaseClient("https://x.example", API_KEY, { timeout: -1 }), RangeError);
  assert.throws(
    () => createBaseClient("https://x.example", API_KEY, { retry: { maxAttempts: 0 } }),
    RangeError,
  );
  assert.equal(createBaseClient("https://x.example/base/", API_KEY).url, "https://x.example/base");
});

Deno.test("headers: apikey, bearer falls back to API key, client info", async () => {
  const rec = recordingFetch();
  await client(rec.fetch).request({ area: "auth", path: "/settings" });
  const h = rec.only.headers;
  assert.equal(h.get("apikey"), API_KEY);
  assert.equal(h.get("authorization"), `Bearer ${API_KEY}`);
  assert.equal(h.get("x-client-info"), `fetchbase/${VERSION}`);
  assert.equal(h.get("content-type"), null);
});

Deno.test("token precedence: explicit per-call token > current token > API key; blank never applied", async () => {
  const rec = recordingFetch();
  const c = client(rec.fetch);
  c.setAccessToken("   ");
  c.setAccessToken("");
  assert.equal(c.accessToken, null);
  c.setAccessToken(TOKEN);
  await c.request({ path: "/a" });
  await c.request({ path: "/b", accessToken: "explicit-token-123" });
  await c.request({ path: "/c", accessToken: "  " });
  await c.request({ path: "/d", credentials: "apikey" });
  await c.request({ path: "/e", credentials: "none" });
  c.clearAccessToken();
  await c.request({ path: "/f" });
  const auth = rec.requests.map((r) => r.headers.get("authorization"));
  assert.deepEqual(auth, [
    `Bearer ${TOKEN}`,
    "Bearer explicit-token-123",
    `Bearer ${TOKEN}`,
    `Bearer ${API_KEY}`,
    null,
    `Bearer ${API_KEY}`,
  ]);
  assert.equal(rec.requests[4].headers.get("apikey"), null);
  const withInitial = createBaseClient("https://x.example", API_KEY, { accessToken: TOKEN });
  assert.equal(withInitial.accessToken, TOKEN);
});

Deno.test("a client-wide Authorization replaces the current token and the key, not a per-call token", async () => {
  const rec = recordingFetch();
  const c = client(rec.fetch, { headers: { Authorization: "Bearer from-header-1234" } });
  c.setAccessToken(TOKEN);
  await c.request({ path: "/current" });
  await c.request({ path: "/explicit", accessToken: "explicit-token-123" });
  await c.request({ path: "/blank", accessToken: "  " });
  await c.request({ path: "/key", credentials: "apikey" });
  await c.request({
    path: "/key-and-token",
    credentials: "apikey",
    accessToken: "explicit-token-123",
  });
  await c.request({
    path: "/per-call",
    accessToken: "explicit-token-123",
    headers: { authorization: "Bearer own" },
  });
  await c.request({ path: "/none", credentials: "none", accessToken: "explicit-token-123" });
  assert.deepEqual(rec.requests.map((r) => r.headers.get("authorization")), [
    "Bearer from-header-1234",
    "Bearer explicit-token-123",
    "Bearer from-header-1234",
    "Bearer from-header-1234",
    "Bearer from-header-1234",
    "Bearer own",
    null,
  ]);
});

Deno.test("client headers merge over computed ones and per-call headers win", async () => {
  const rec = recordingFetch();
  const c = client(rec.fetch, { headers: { "x-app": "a", "X-Client-Info": "custom/1" } });
  await c.request({ path: "/x", headers: { "x-app": "b", "x-more": "m" } });
  const h = rec.only.headers;
  assert.equal(h.get("x-app"), "b");
  assert.equal(h.get("x-more"), "m");
  assert.equal(h.get("x-client-info"), "custom/1");
});

Deno.test("bodies: JSON, text, bytes, Blob and streamed ReadableStream", async () => {
  const rec = recordingFetch();
  const c = client(rec.fetch);
  await c.request({ method: "POST", path: "/j", json: { a: 1 } });
  await c.request({ method: "POST", path: "/t", body: "hello" });
  await c.request({ method: "POST", path: "/b", body: new Uint8Array([1, 2, 3]) });
  await c.request({ method: "POST", path: "/blob", body: new Blob(["xy"], { type: "image/png" }) });
  await c.request({
    method: "POST",
    path: "/ab",
    body: new Uint8Array([9]).buffer,
    contentType: "x/y",
  });
  const stream = new ReadableStream<Uint8Array>({
    start(ctl) {
      ctl.enqueue(new Uint8Array([4, 5]));
      ctl.enqueue(new Uint8Array([6]));
      ctl.close();
    },
  });
  await c.request({ method: "PUT", path: "/s", body: stream, contentType: "video/mp4" });
  const [j, t, b, blob, ab, s] = rec.requests;
  assert.equal(j.headers.get("content-type"), "application/json");
  assert.deepEqual(j.json(), { a: 1 });
  assert.equal(t.headers.get("content-type"), "text/plain;charset=UTF-8");
  assert.equal(t.text, "hello");
  assert.equal(b.headers.get("content-type"), "application/octet-stream");
  assert.deepEqual([...b.bytes!], [1, 2, 3]);
  assert.equal(blob.headers.get("content-type"), "image/png");
  assert.equal(blob.text, "xy");
  assert.equal(ab.headers.get("content-type"), "x/y");
  assert.equal(s.streamed, true);
  assert.equal(s.duplex, "half");
  assert.deepEqual([...s.bytes!], [4, 5, 6]);
});

Deno.test("response types: json, text, bytes, stream, none; 204 and empty bodies", async () => {
  const rec = recordingFetch([
    jsonResponse({ a: 1 }),
    new Response("plain"),
    new Response(new Uint8Array([7, 8])),
    new Response("streamed"),
    new Response("ignored"),
    new Response(null, { status: 204 }),
    new Response("", { status: 200 }),
  ]);
  const c = client(rec.fetch);
  assert.deepEqual((await c.request({ path: "/1" })).getOrThrow().body, { a: 1 });
  assert.equal((await c.request({ path: "/2", responseType: "text" })).getOrThrow().body, "plain");
  assert.deepEqual(
    [...(await c.request({ path: "/3", responseType: "bytes" })).getOrThrow().body],
    [7, 8],
  );
  const stream = (await c.request({ path: "/4", responseType: "stream" })).getOrThrow().body;
  assert.equal(await new Response(stream).text(), "streamed");
  assert.equal((await c.request({ path: "/5", responseType: "none" })).getOrThrow().body, null);
  const noContent = (await c.request({ path: "/6" })).getOrThrow();
  assert.equal(noContent.status, 204);
  assert.equal(noContent.body, null);
  assert.equal((await c.request({ path: "/7" })).getOrThrow().body, null);
});

Deno.test("a 2xx body that is not JSON is Failure(DECODE); an oversized body too", async () => {
  const rec = recordingFetch([new Response("<html>oops</html>"), new Response("x".repeat(2000))]);
  const c = client(rec.fetch);
  const bad = await c.request({ path: "/x" });
  assert.equal(bad.ok, false);
  assert.equal(bad.errorOrNull()?.category, "DECODE");
  const big = await c.request({ path: "/y", responseType: "text", maxBodyBytes: 1000 });
  assert.equal(big.errorOrNull()?.category, "DECODE");
  assert.match(big.errorOrNull()!.message, /exceeds 1000 bytes/);
});

const statusRows: Array<[number, string]> = [
  [400, "BAD_REQUEST"],
  [401, "UNAUTHORIZED"],
  [403, "FORBIDDEN"],
  [404, "NOT_FOUND"],
  [406, "NOT_FOUND"],
  [408, "TIMEOUT"],
  [409, "CONFLICT"],
  [410, "NOT_FOUND"],
  [412, "CONFLICT"],
  [413, "PAYLOAD_TOO_LARGE"],
  [418, "BAD_REQUEST"],
  [422, "BAD_REQUEST"],
  [423, "CONFLICT"],
  [429, "RATE_LIMITED"],
  [500, "SERVER"],
  [502, "SERVER"],
  [503, "SERVER"],
  [504, "SERVER"],
  [520, "SERVER"],
  // PostgREST's 300 (ambiguous embed or function) is a request to change.
  [300, "BAD_REQUEST"],
  [302, "UNKNOWN"],
];

Deno.test("every status row maps to its category (no retry for POST)", async () => {
  for (const [status, category] of statusRows) {
    const rec = recordingFetch([new Response(`{"message":"m${status}"}`, { status })]);
    const r = await client(rec.fetch).request({ method: "POST", path: "/x", redirect: "manual" });
    const e = r.errorOrNull();
    assert.ok(e, `status ${status} must fail`);
    assert.equal(e.category, category, `status ${status}`);
    assert.equal(e.status, status);
    assert.equal(e.message, `m${status}`);
    assert.equal(rec.requests.length, 1);
  }
});

Deno.test("error bodies of each service give message and code", async () => {
  const cases: Array<[string, string, string | null, Record<string, unknown>?]> = [
    [
      '{"code":400,"error_code":"invalid_credentials","msg":"Invalid login credentials"}',
      "Invalid login credentials",
      "invalid_credentials",
    ],
    [
      '{"error":"invalid_grant","error_description":"Invalid Refresh Token: Refresh Token Not Found"}',
      "Invalid Refresh Token: Refresh Token Not Found",
      "invalid_grant",
    ],
    [
      '{"statusCode":"404","error":"not_found","message":"Object not found"}',
      "Object not found",
      "not_found",
    ],
    [
      '{"code":"PGRST116","details":"The result contains 0 rows","hint":null,"message":"JSON object requested, multiple (or no) rows returned"}',
      "JSON object requested, multiple (or no) rows returned",
      "PGRST116",
      { details: "The result contains 0 rows", hint: null },
    ],
    [
      '{"code":"42501","details":null,"hint":"h","message":"permission denied"}',
      "permission denied",
      "42501",
      {
        hint: "h",
      },
    ],
    ['{"error":"Bucket not found"}', "Bucket not found", null],
  ];
  const storage404 = recordingFetch([
    new Response('{"statusCode":"404","error":"not_found","message":"Object not found"}', {
      status: 400,
    }),
  ]);
  const s404 = (await client(storage404.fetch).request({ path: "/x" })).errorOrNull()!;
  assert.equal(s404.category, "NOT_FOUND");
  // The status the document names (404 for a missing object), not the wire's 400.
  assert.equal(s404.status, 404);
  const taken = recordingFetch([
    new Response(
      '{"statusCode":"409","error":"Duplicate","message":"The resource already exists"}',
      {
        status: 400,
      },
    ),
  ]);
  const s409 = (await client(taken.fetch).request({ method: "POST", path: "/x" })).errorOrNull()!;
  assert.equal(s409.category, "CONFLICT");
  assert.equal(s409.status, 409);
  // A plain 400 stays 400.
  const plain = recordingFetch([
    new Response('{"statusCode":"400","error":"InvalidKey","message":"bad key"}', { status: 400 }),
  ]);
  assert.equal((await client(plain.fetch).request({ path: "/x" })).errorOrNull()!.status, 400);
  for (const [body, message, code, extra] of cases) {
    const rec = recordingFetch([new Response(body, { status: 400 })]);
    const e = (await client(rec.fetch).request({ path: "/x" })).errorOrNull()!;
    assert.equal(e.message, message);
    assert.equal(e.code, code);
    for (const [k, v] of Object.entries(extra ?? {})) {
      assert.equal((e as unknown as Record<string, unknown>)[k], v);
    }
  }
});

Deno.test("non-JSON, empty and huge error bodies still give a clear, short message", async () => {
  const html = "<html><body>" + "Bad gateway from the proxy ".repeat(50) + "</body></html>";
  const rec = recordingFetch([
    new Response(html, { status: 502, statusText: "Bad Gateway" }),
    new Response(null, { status: 503, statusText: "Service Unavailable" }),
    new Response("x".repeat(100_000), { status: 400 }),
    new Response('{"message": "cut', { status: 400 }),
  ]);
  const c = client(rec.fetch);
  const e1 = (await c.request({ method: "POST", path: "/x" })).errorOrNull()!;
  assert.match(e1.message, /^HTTP 502 Bad Gateway: <html><body>Bad gateway/);
  assert.ok(e1.message.length < 260, `excerpt is cut: ${e1.message.length}`);
  assert.ok(e1.message.endsWith("…"));
  const e2 = (await c.request({ method: "POST", path: "/x" })).errorOrNull()!;
  assert.equal(e2.message, "HTTP 503 Service Unavailable (empty body)");
  const e3 = (await c.request({ method: "POST", path: "/x" })).errorOrNull()!;
  assert.ok(e3.message.length < 260);
  const e4 = (await c.request({ method: "POST", path: "/x" })).errorOrNull()!;
  assert.match(e4.message, /^HTTP 400: \{"message": "cut$/);
});

Deno.test("secrets never appear in error messages", async () => {
  const jwt = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl";
  const rec = recordingFetch([
    new Response(JSON.stringify({ message: `bad key ${API_KEY} for ${TOKEN} and ${jwt}` }), {
      status: 401,
    }),
    () => {
      throw new TypeError(`connect failed for ${TOKEN}`);
    },
  ]);
  const c = client(rec.fetch);
  c.setAccessToken(TOKEN);
  const e = (await c.request({ method: "POST", path: "/x" })).errorOrNull()!;
  assert.equal(e.message, "bad key *** for *** and ***");
  const n = (await c.request({ method: "POST", path: "/x" })).errorOrNull()!;
  assert.equal(n.category, "NETWORK");
  assert.ok(!n.message.includes(TOKEN));
  assert.ok(!String(c).includes(API_KEY) && !String(c).includes(TOKEN));
  assert.ok(!Deno.inspect(c).includes(API_KEY) && !Deno.inspect(c).includes(TOKEN));
});

Deno.test("a fetch TypeError is NETWORK; a redirect refused is NETWORK", async () => {
  const rec = recordingFetch([
    () => Promise.reject(new TypeError("fetch failed")),
    () => Response.redirect("https://elsewhere.example/", 302),
  ]);
  const c = client(rec.fetch);
  const e = (await c.request({ method: "POST", path: "/x" })).errorOrNull()!;
  assert.equal(e.category, "NETWORK");
  assert.match(e.message, /fetch failed/);
  const r = (await c.request({ method: "POST", path: "/x", redirect: "manual" })).errorOrNull()!;
  assert.equal(r.status, 302);
});

function hangingFetch(): { fetch: typeof fetch; calls: number } {
  const state = { calls: 0, fetch: undefined as unknown as typeof fetch };
  state.fetch = ((_input: RequestInfo | URL, init?: RequestInit) => {
    state.calls++;
    return new Promise<Response>((_resolve, reject) => {
      const signal = init?.signal;
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
  }) as typeof fetch;
  return state;
}

Deno.test("abort gives CANCELLED; an already-aborted signal sends nothing", async () => {
  const h = hangingFetch();
  const c = client(h.fetch);
  const ac = new AbortController();
  const pending = c.request({ path: "/x", signal: ac.signal });
  ac.abort();
  const e = (await pending).errorOrNull()!;
  assert.equal(e.category, "CANCELLED");
  const pre = await c.request({ path: "/x", signal: AbortSignal.abort() });
  assert.equal(pre.errorOrNull()?.category, "CANCELLED");
  assert.equal(h.calls, 1);
});

Deno.test("timeout gives TIMEOUT, and a timed-out GET is not retried", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const h = hangingFetch();
    const pending = client(h.fetch, { timeout: 1000 }).request({ path: "/x" });
    await clock.tickAsync(999);
    let settled = false;
    pending.then(() => settled = true);
    await clock.tickAsync(0);
    assert.equal(settled, false);
    await clock.tickAsync(1);
    const e = (await pending).errorOrNull()!;
    assert.equal(e.category, "TIMEOUT");
    assert.match(e.message, /1000 ms/);
    assert.equal(h.calls, 1);
  } finally {
    clock.uninstall();
  }
});

Deno.test("the timeout also covers reading the body", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const fetchImpl = ((_i: RequestInfo | URL, init?: RequestInit) => {
      const body = new ReadableStream<Uint8Array>({
        start(ctl) {
          ctl.enqueue(new TextEncoder().encode('{"partial":'));
          init?.signal?.addEventListener("abort", () => ctl.error(init.signal!.reason));
        },
      });
      return Promise.resolve(new Response(body, { status: 200 }));
    }) as typeof fetch;
    const pending = client(fetchImpl, { timeout: 500 }).request({ method: "POST", path: "/x" });
    await clock.tickAsync(500);
    assert.equal((await pending).errorOrNull()?.category, "TIMEOUT");
  } finally {
    clock.uninstall();
  }
});

Deno.test("GET retries 503/502/network up to 3 attempts with growing backoff", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const rec = recordingFetch([
      new Response("", { status: 503 }),
      () => Promise.reject(new TypeError("reset")),
      jsonResponse({ ok: 1 }),
    ]);
    const random = Math.random;
    Math.random = () => 0; // lowest jitter: delays are exactly 100 then 200 ms
    const pending = client(rec.fetch, { timeout: 0 }).request({ path: "/x" });
    await clock.tickAsync(0);
    assert.equal(rec.requests.length, 1);
    await clock.tickAsync(99);
    assert.equal(rec.requests.length, 1);
    await clock.tickAsync(1);
    assert.equal(rec.requests.length, 2);
    await clock.tickAsync(199);
    assert.equal(rec.requests.length, 2);
    await clock.tickAsync(1);
    const r = await pending;
    Math.random = random;
    assert.equal(rec.requests.length, 3);
    assert.deepEqual(r.getOrThrow().body, { ok: 1 });
  } finally {
    clock.uninstall();
  }
});

Deno.test("retries stop at maxAttempts and return the last failure", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const rec = recordingFetch([new Response("{}", { status: 504 })]);
    const pending = client(rec.fetch, { retry: { maxAttempts: 4 }, timeout: 0 }).request({
      path: "/x",
    });
    await clock.tickAsync(60_000);
    assert.equal((await pending).errorOrNull()?.status, 504);
    assert.equal(rec.requests.length, 4);
  } finally {
    clock.uninstall();
  }
});

Deno.test("no retry for POST, for 4xx other than 408/429, or for stream bodies", async () => {
  const c503 = recordingFetch([new Response("", { status: 503 })]);
  await client(c503.fetch).request({ method: "POST", path: "/x" });
  assert.equal(c503.requests.length, 1);
  const c400 = recordingFetch([new Response("", { status: 400 })]);
  await client(c400.fetch).request({ path: "/x" });
  assert.equal(c400.requests.length, 1);
  const cs = recordingFetch([new Response("", { status: 503 })]);
  await client(cs.fetch).request({
    method: "PUT",
    path: "/x",
    retry: true,
    body: new ReadableStream({ start: (ctl) => ctl.close() }),
  });
  assert.equal(cs.requests.length, 1);
});

Deno.test("a POST marked retry:true is retried (what an issue marks idempotent)", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const rec = recordingFetch([new Response("", { status: 503 }), jsonResponse([])]);
    const pending = client(rec.fetch).request({
      method: "POST",
      path: "/x",
      retry: true,
      json: {},
    });
    await clock.tickAsync(1000);
    assert.equal((await pending).ok, true);
    assert.equal(rec.requests.length, 2);
  } finally {
    clock.uninstall();
  }
});

Deno.test("Retry-After (seconds or HTTP date) is honoured; beyond the cap no retry", async () => {
  const clock = FakeTimers.install({
    toFake: ["setTimeout", "clearTimeout", "Date"],
    now: 1_700_000_000_000,
  });
  try {
    const rec = recordingFetch([
      new Response("", { status: 429, headers: { "retry-after": "3" } }),
      new Response("", {
        status: 503,
        headers: { "retry-after": new Date(1_700_000_005_000).toUTCString() },
      }),
      jsonResponse({}),
    ]);
    const pending = client(rec.fetch, { timeout: 0 }).request({ path: "/x" });
    await clock.tickAsync(2999);
    assert.equal(rec.requests.length, 1);
    await clock.tickAsync(1);
    assert.equal(rec.requests.length, 2);
    await clock.tickAsync(1900);
    assert.equal(rec.requests.length, 2);
    await clock.tickAsync(100);
    assert.equal(rec.requests.length, 3);
    assert.equal((await pending).ok, true);

    const capped = recordingFetch([
      new Response("", { status: 429, headers: { "retry-after": "99999999999999999999" } }),
    ]);
    const r = await client(capped.fetch).request({ path: "/x" });
    assert.equal(capped.requests.length, 1);
    assert.equal(r.errorOrNull()?.category, "RATE_LIMITED");
  } finally {
    clock.uninstall();
  }
});

Deno.test("garbage Retry-After falls back to backoff", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const rec = recordingFetch([
      new Response("", { status: 429, headers: { "retry-after": "soon-ish" } }),
      jsonResponse({}),
    ]);
    const pending = client(rec.fetch).request({ path: "/x" });
    await clock.tickAsync(200);
    assert.equal(rec.requests.length, 2);
    assert.equal((await pending).ok, true);
  } finally {
    clock.uninstall();
  }
});

Deno.test("cancelling during a backoff wait resolves CANCELLED at once", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const rec = recordingFetch([new Response("", { status: 503 })]);
    const ac = new AbortController();
    const pending = client(rec.fetch).request({ path: "/x", signal: ac.signal });
    await clock.tickAsync(10);
    ac.abort();
    assert.equal((await pending).errorOrNull()?.category, "CANCELLED");
    assert.equal(rec.requests.length, 1);
  } finally {
    clock.uninstall();
  }
});

Deno.test("against a real server: JSON round trip and 404 mapping", async () => {
  const { serve } = await import("../support/serve.ts");
  await using server = await serve((req) => {
    const url = new URL(req.url);
    if (url.pathname === "/rest/v1/echo") return req.json().then((b) => Response.json({ got: b }));
    return Response.json({ message: "nope" }, { status: 404 });
  });
  const c = createBaseClient(server.url, API_KEY);
  const ok = await c.request({ method: "POST", area: "rest", path: "/echo", json: [1, "é"] });
  assert.deepEqual(ok.getOrThrow().body, { got: [1, "é"] });
  const missing = await c.request({ area: "rest", path: "/missing" });
  assert.equal(missing.errorOrNull()?.category, "NOT_FOUND");
});

Deno.test("an answer within a few microtask turns arms no timeout timer; a slow one does", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const fast = client(() => Promise.resolve(jsonResponse({ ok: true })), { timeout: 1000 });
    for (let i = 0; i < 5; i++) assert.equal((await fast.request({ path: "/x" })).ok, true);
    assert.equal(clock.countTimers(), 0);
    assert.equal(clock.now, 0);

    let seen: AbortSignal | undefined;
    const slow = client((_i, init) => {
      seen = init?.signal ?? undefined;
      return new Promise<Response>((_, reject) =>
        seen?.addEventListener("abort", () => reject(seen!.reason))
      );
    }, { timeout: 1000 });
    const pending = slow.request({ path: "/x" });
    await clock.tickAsync(0);
    assert.equal(clock.countTimers(), 1, "a pending fetch arms the timer");
    assert.ok(seen instanceof AbortSignal, "the fetch reads a real AbortSignal");
    assert.equal(seen!.aborted, false);
    await clock.tickAsync(1000);
    assert.equal((await pending).errorOrNull()?.category, "TIMEOUT");
    assert.equal(seen!.aborted, true, "the timeout aborts the fetch");
    assert.equal(clock.countTimers(), 0);
  } finally {
    clock.uninstall();
  }
});

Deno.test("a fetch that ignores its signal and answers after the call settled: no redirect followed, no body read", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    // A thin wrapper that drops the signal, answering 100 ms later.
    const sent: string[] = [];
    let pulled = 0;
    let cancelled = false;
    const deaf = (answer: () => Response) =>
      client(async (input, init) => {
        sent.push(`${init?.method} ${new URL(String(input)).pathname}`);
        await new Promise((r) => setTimeout(r, 100));
        return answer();
      }, { retry: { maxAttempts: 1 } });
    // Cancelled at 50 ms: the 307 of a POST is not followed (the write went out five more times).
    const ac = new AbortController();
    const post = deaf(() => new Response(null, { status: 307, headers: { location: "/hop" } }))
      .request({ method: "POST", path: "/start", json: { amount: 100 }, signal: ac.signal });
    await clock.tickAsync(50);
    ac.abort();
    assert.equal((await post).errorOrNull()?.category, "CANCELLED");
    await clock.tickAsync(1_000);
    assert.deepEqual(sent, ["POST /start"]);
    // Timed out at 50 ms: the endless body that comes at 100 ms is cancelled, not read.
    const endless = () =>
      new Response(
        new ReadableStream({
          pull: (c) => {
            pulled++;
            c.enqueue(new Uint8Array(1024));
          },
          cancel: () => void (cancelled = true),
        }),
      );
    const read = deaf(endless).request({ path: "/big", timeout: 50, responseType: "text" });
    await clock.tickAsync(50);
    assert.equal((await read).errorOrNull()?.category, "TIMEOUT");
    await clock.tickAsync(1_000);
    assert.equal(cancelled, true);
    assert.ok(pulled <= 2, `${pulled} chunks read`);
    assert.equal(clock.countTimers(), 0);
  } finally {
    clock.uninstall();
  }
});

Deno.test("a fetch that ignores its signal still cannot outlive the timeout", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    let calls = 0;
    const deaf = client(() => {
      calls++;
      return new Promise<Response>(() => {});
    }, { timeout: 300 });
    const pending = deaf.request({ path: "/x" });
    await clock.tickAsync(300);
    assert.equal((await pending).errorOrNull()?.category, "TIMEOUT");
    assert.equal(calls, 1);
    const ac = new AbortController();
    const cancelled = deaf.request({ path: "/x", signal: ac.signal, timeout: 0 });
    ac.abort();
    assert.equal((await cancelled).errorOrNull()?.category, "CANCELLED");
    assert.equal(clock.countTimers(), 0);
  } finally {
    clock.uninstall();
  }
});
