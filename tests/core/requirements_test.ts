/**
 * Requirements of docs/ARCHITECTURE.md (the request path) and of the core
 * helpers that no other test pinned down: each test here fails under a
 * one-line change of the code that alters documented or user-visible
 * behaviour.
 */
import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { createBaseClient, DEFAULT_TIMEOUT_MS } from "../../core/client.ts";
import { randomString, timingSafeEqual } from "../../core/crypto.ts";
import { decodeBase64 } from "../../core/encoding.ts";
import {
  categoryForStatus,
  errorFromResponse,
  redactCause,
  redactSecrets,
} from "../../core/http_error.ts";
import { parseJsonInt64, stringifyJson } from "../../core/_json_int64.ts";
import { withMaskedFields } from "../../core/mask.ts";
import { encodeQueryComponent } from "../../core/query.ts";
import { MutableStateFlow } from "../../core/state_flow.ts";
import { jsonResponse, recordingFetch } from "../support/recording_fetch.ts";

const API_KEY = "anon-key-0123456789";
const BASE = "https://project.example.com";

function client(fetchImpl: typeof fetch, extra: Parameters<typeof createBaseClient>[2] = {}) {
  return createBaseClient(BASE, API_KEY, { fetch: fetchImpl, ...extra });
}

function fakeClock() {
  return FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
}

/** Runs `fn` with `Math.random` fixed, restoring it afterwards. */
async function withRandom<T>(value: number, fn: () => Promise<T>): Promise<T> {
  const random = Math.random;
  Math.random = () => value;
  try {
    return await fn();
  } finally {
    Math.random = random;
  }
}

// --- Retries (ARCHITECTURE.md, request path step 6) ---------------------------------------------

Deno.test("GET is retried on each of 408, 429, 502, 503, 504 and 520; not on 500", async () => {
  const clock = fakeClock();
  try {
    // A 500 is a verdict (PostgREST's statement timeout, 57014): it was run three times.
    const timedOut = recordingFetch(() =>
      jsonResponse({ code: "57014", message: "canceling statement due to statement timeout" }, {
        status: 500,
      })
    );
    const once = await client(timedOut.fetch, { timeout: 0 }).request({ path: "/x" });
    assert.equal(once.errorOrNull()?.status, 500);
    assert.equal(timedOut.requests.length, 1);
    for (const status of [408, 429, 502, 503, 504, 520]) {
      const rec = recordingFetch([new Response("", { status }), jsonResponse({ ok: status })]);
      const pending = client(rec.fetch, { timeout: 0 }).request({ path: "/x" });
      await clock.tickAsync(1000);
      const r = await pending;
      assert.equal(rec.requests.length, 2, `status ${status}`);
      assert.deepEqual(r.getOrThrow().body, { ok: status });
    }
  } finally {
    clock.uninstall();
  }
});

Deno.test("HEAD and a lower-case method name are retried by default; POST is not", async () => {
  const clock = fakeClock();
  try {
    for (const method of ["HEAD", "get", "head"]) {
      const rec = recordingFetch([new Response(null, { status: 503 }), new Response(null)]);
      const pending = client(rec.fetch, { timeout: 0 }).request({ method, path: "/x" });
      await clock.tickAsync(1000);
      assert.equal((await pending).ok, true, method);
      assert.equal(rec.requests.length, 2, method);
      assert.equal(rec.requests[1].method, method.toUpperCase());
    }
    const rec = recordingFetch([new Response(null, { status: 503 }), new Response(null)]);
    const pending = client(rec.fetch, { timeout: 0 }).request({ method: "POST", path: "/x" });
    await clock.tickAsync(1000);
    assert.equal((await pending).errorOrNull()?.status, 503);
    assert.equal(rec.requests.length, 1);
  } finally {
    clock.uninstall();
  }
});

Deno.test("a request with a stream body is never retried, even with retry: true", async () => {
  const clock = fakeClock();
  try {
    let calls = 0;
    const rec = recordingFetch([new Response("busy", { status: 503 }), jsonResponse({})]);
    const counting = ((input: RequestInfo | URL, init?: RequestInit) => {
      calls++;
      return rec.fetch(input, init);
    }) as typeof fetch;
    const body = new ReadableStream<Uint8Array>({
      start(ctl) {
        ctl.enqueue(new TextEncoder().encode("chunk"));
        ctl.close();
      },
    });
    const pending = client(counting, { timeout: 0 }).request({
      method: "POST",
      path: "/upload",
      body,
      retry: true,
    });
    await clock.tickAsync(10_000);
    const e = (await pending).errorOrNull()!;
    assert.equal(e.category, "SERVER");
    assert.equal(e.status, 503);
    assert.equal(calls, 1);
    assert.equal(rec.only.text, "chunk");
  } finally {
    clock.uninstall();
  }
});

Deno.test("a Retry-After of exactly maxRetryAfterMs (20 s) is waited; a longer one ends the retries", async () => {
  const clock = fakeClock();
  try {
    const rec = recordingFetch([
      new Response("", { status: 503, headers: { "retry-after": "20" } }),
      jsonResponse({ ok: 1 }),
    ]);
    const pending = client(rec.fetch, { timeout: 0 }).request({ path: "/x" });
    await clock.tickAsync(19_999);
    assert.equal(rec.requests.length, 1);
    await clock.tickAsync(1);
    assert.equal(rec.requests.length, 2);
    assert.deepEqual((await pending).getOrThrow().body, { ok: 1 });

    const rec2 = recordingFetch([
      new Response("", { status: 503, headers: { "retry-after": "21" } }),
      jsonResponse({ ok: 1 }),
    ]);
    const pending2 = client(rec2.fetch, { timeout: 0 }).request({ path: "/x" });
    await clock.tickAsync(60_000);
    const e = (await pending2).errorOrNull()!;
    assert.equal(e.status, 503);
    assert.equal(e.retryAfter, 21);
    assert.equal(rec2.requests.length, 1);
  } finally {
    clock.uninstall();
  }
});

Deno.test("a Retry-After shorter than the backoff does not shorten the backoff", async () => {
  const clock = fakeClock();
  try {
    await withRandom(0, async () => {
      const rec = recordingFetch([
        new Response("", { status: 503, headers: { "retry-after": "0" } }),
        jsonResponse({ ok: 1 }),
      ]);
      const pending = client(rec.fetch, { timeout: 0 }).request({ path: "/x" });
      await clock.tickAsync(99); // the first backoff is 100 ms at the lowest jitter
      assert.equal(rec.requests.length, 1);
      await clock.tickAsync(1);
      assert.equal(rec.requests.length, 2);
      assert.equal((await pending).ok, true);
    });
  } finally {
    clock.uninstall();
  }
});

Deno.test("a wait that would end exactly at the deadline ends the retries with the answer", async () => {
  const clock = fakeClock();
  try {
    const rec = recordingFetch([
      new Response("", { status: 503, headers: { "retry-after": "1" } }),
      jsonResponse({ ok: 1 }),
    ]);
    const pending = client(rec.fetch, { timeout: 1000 }).request({ path: "/x" });
    await clock.tickAsync(5000);
    const e = (await pending).errorOrNull()!;
    assert.equal(e.category, "SERVER");
    assert.equal(e.status, 503);
    assert.equal(rec.requests.length, 1);
  } finally {
    clock.uninstall();
  }
});

// --- Timeout --------------------------------------------------------------------------------------

Deno.test("the default timeout is 30 s", async () => {
  assert.equal(DEFAULT_TIMEOUT_MS, 30_000);
  const clock = fakeClock();
  try {
    let calls = 0;
    const hanging = ((_i: RequestInfo | URL, init?: RequestInit) => {
      calls++;
      return new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => reject(init.signal!.reason));
      });
    }) as typeof fetch;
    const c = createBaseClient(BASE, API_KEY, { fetch: hanging });
    assert.equal(c.timeout, 30_000);
    let settled = false;
    const pending = c.request({ path: "/x" });
    pending.then(() => settled = true);
    await clock.tickAsync(29_999);
    assert.equal(settled, false);
    await clock.tickAsync(1);
    const e = (await pending).errorOrNull()!;
    assert.equal(e.category, "TIMEOUT");
    assert.match(e.message, /30000 ms/);
    assert.equal(calls, 1);
  } finally {
    clock.uninstall();
  }
});

Deno.test("a fetch that answers at once never arms a timer (the timeout is armed lazily)", async () => {
  const realSetTimeout = globalThis.setTimeout;
  let armed = 0;
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
    armed++;
    return realSetTimeout(...args);
  }) as typeof setTimeout;
  try {
    const c = client(() => Promise.resolve(new Response('{"a":1}')));
    const r = await c.request({ path: "/x" });
    assert.deepEqual(r.getOrThrow().body, { a: 1 });
    assert.equal(armed, 0);
  } finally {
    globalThis.setTimeout = realSetTimeout;
  }
});

// --- Bodies ---------------------------------------------------------------------------------------

Deno.test("maxBodyBytes: 0 is a valid cap; a body over the cap is DECODE with the status", async () => {
  const empty = await client(() => Promise.resolve(new Response(""))).request({
    path: "/x",
    maxBodyBytes: 0,
  });
  assert.equal(empty.getOrThrow().body, null);
  const over = await client(() => Promise.resolve(new Response("{}"))).request({
    path: "/x",
    maxBodyBytes: 0,
  });
  const e = over.errorOrNull()!;
  assert.equal(e.category, "DECODE");
  assert.equal(e.status, 200);
});

Deno.test("a 2xx body of whitespace only reads as JSON null", async () => {
  const r = await client(() => Promise.resolve(new Response(" \n "))).request({ path: "/x" });
  assert.equal(r.getOrThrow().body, null);
});

Deno.test("error bodies are read up to 1 MiB: a 900 KiB JSON error is still parsed", async () => {
  const details = "d".repeat(900 * 1024);
  const body = JSON.stringify({ message: "boom", code: "E1", details });
  const r = await client(() => Promise.resolve(new Response(body, { status: 400 }))).request({
    path: "/x",
  });
  const e = r.errorOrNull()!;
  assert.equal(e.message, "boom");
  assert.equal(e.code, "E1");
  assert.equal(e.details, details);
});

// --- Redirects (request path step 3) -------------------------------------------------------------

Deno.test("redirects: 308 and 301 keep a PUT and its body; 303 keeps a HEAD", async () => {
  for (const status of [308, 301]) {
    const rec = recordingFetch((req) =>
      req.url.pathname === "/rest/v1/a"
        ? new Response(null, { status, headers: { location: "/rest/v1/b" } })
        : jsonResponse({ at: req.url.pathname })
    );
    const r = await client(rec.fetch).request({
      method: "PUT",
      area: "rest",
      path: "/a",
      json: { v: 1 },
    });
    assert.deepEqual(r.getOrThrow().body, { at: "/rest/v1/b" }, `status ${status}`);
    assert.equal(rec.requests.length, 2);
    assert.equal(rec.requests[1].method, "PUT");
    assert.equal(rec.requests[1].text, '{"v":1}');
    assert.equal(rec.requests[1].headers.get("content-type"), "application/json");
  }
  const rec = recordingFetch((req) =>
    req.url.pathname === "/a"
      ? new Response(null, { status: 303, headers: { location: "/b" } })
      : new Response(null)
  );
  const r = await client(rec.fetch).request({ method: "HEAD", path: "/a" });
  assert.equal(r.ok, true);
  assert.deepEqual(rec.requests.map((q) => [q.method, q.url.pathname]), [
    ["HEAD", "/a"],
    ["HEAD", "/b"],
  ]);
});

Deno.test("redirects to another origin: HEAD is followed, an http: target too, without credentials", async () => {
  for (
    const [method, location] of [
      ["HEAD", "https://cdn.example/o"],
      ["GET", "http://cdn.example/o"],
      // The same host over http: is another origin too (no credential sent in the clear).
      ["GET", "http://project.example.com/o"],
    ] as const
  ) {
    const rec = recordingFetch((req) =>
      req.url.href === `${BASE}/a`
        ? new Response(null, { status: 302, headers: { location } })
        : new Response(null)
    );
    const r = await client(rec.fetch, { accessToken: "user-token-abcdefgh" }).request({
      method,
      path: "/a",
    });
    assert.equal(r.ok, true, `${method} ${location}`);
    assert.equal(rec.requests.length, 2);
    const second = rec.requests[1];
    assert.equal(second.method, method);
    assert.equal(second.url.href, location);
    assert.equal(second.headers.get("apikey"), null);
    assert.equal(second.headers.get("authorization"), null);
  }
});

Deno.test("a relative Location resolves against the URL that answered it", async () => {
  const rec = recordingFetch((req) =>
    req.url.pathname === "/rest/v1/a"
      ? new Response(null, { status: 302, headers: { location: "b?x=1" } })
      : jsonResponse({})
  );
  const r = await client(rec.fetch).request({ area: "rest", path: "/a" });
  assert.equal(r.ok, true);
  assert.equal(rec.requests[1].url.href, `${BASE}/rest/v1/b?x=1`);
});

Deno.test("a redirect mode given per call goes to fetch unchanged", async () => {
  for (const redirect of ["follow", "error", "manual"] as const) {
    const rec = recordingFetch();
    await client(rec.fetch).request({ path: "/x", redirect });
    assert.equal(rec.only.redirect, redirect);
  }
  const rec = recordingFetch();
  await client(rec.fetch).request({ path: "/x" });
  assert.equal(rec.only.redirect, "manual");
});

Deno.test("the bodies of followed redirects and of oversized answers are cancelled, not left open", async () => {
  const cancelled: string[] = [];
  const endless = (name: string) =>
    new ReadableStream<Uint8Array>({
      pull(ctl) {
        ctl.enqueue(new Uint8Array(4096).fill(120));
      },
      cancel() {
        cancelled.push(name);
      },
    });
  const rec = recordingFetch((req) =>
    req.url.pathname === "/a"
      ? new Response(endless("redirect"), { status: 302, headers: { location: "/b" } })
      : req.url.pathname === "/b"
      ? new Response(endless("error"), { status: 400 })
      : new Response(endless("capped"))
  );
  const c = client(rec.fetch);
  const e = (await c.request({ method: "POST", path: "/a" })).errorOrNull()!;
  assert.equal(e.status, 400);
  assert.match(e.message, /^HTTP 400: x+…$/);
  const capped = (await c.request({ path: "/c", maxBodyBytes: 10_000 })).errorOrNull()!;
  assert.equal(capped.category, "DECODE");
  assert.deepEqual(cancelled, ["redirect", "error", "capped"]);
});

Deno.test("a 3xx without Location is an HTTP answer, not a refused redirect", async () => {
  const r = await client(() => Promise.resolve(new Response("", { status: 302 }))).request({
    path: "/x",
  });
  const e = r.errorOrNull()!;
  assert.equal(e.status, 302);
  assert.notEqual(e.category, "NETWORK");
});

Deno.test("a streamed answer reached through a redirect stays tied to the caller's signal", async () => {
  const rec = recordingFetch((req) =>
    req.url.pathname === "/a"
      ? new Response(null, { status: 302, headers: { location: "/b" } })
      : new Response("stream body")
  );
  const ac = new AbortController();
  const r = await client(rec.fetch).request({
    path: "/a",
    responseType: "stream",
    signal: ac.signal,
  });
  const stream = r.getOrThrow().body!;
  assert.equal(rec.requests.length, 2);
  const signal = rec.requests[1].signal!;
  assert.equal(signal.aborted, false);
  ac.abort();
  assert.equal(signal.aborted, true);
  await stream.cancel();
});

Deno.test("without AbortSignal.any, the caller's signal still cuts a streamed answer: the fetch's body is cancelled and the stream fails with the reason", async () => {
  const any = AbortSignal.any;
  // deno-lint-ignore no-explicit-any
  (AbortSignal as any).any = undefined;
  try {
    let cancelledWith: unknown = null;
    const source = new ReadableStream<Uint8Array>({
      start: (c) => c.enqueue(new TextEncoder().encode("part")),
      cancel: (reason) => void (cancelledWith = reason),
    });
    const rec = recordingFetch(() => new Response(source));
    const ac = new AbortController();
    const r = await client(rec.fetch).request({
      path: "/x",
      responseType: "stream",
      signal: ac.signal,
    });
    const reader = r.getOrThrow().body!.getReader();
    assert.equal(new TextDecoder().decode((await reader.read()).value), "part");
    const reason = new Error("gone");
    ac.abort(reason);
    await assert.rejects(reader.read(), (e) => e === reason);
    assert.equal(cancelledWith, reason);
  } finally {
    AbortSignal.any = any;
  }
});

Deno.test("without AbortSignal.any, a streamed answer with a signal that is no AbortSignal fails as NETWORK rather than never ending", async () => {
  const any = AbortSignal.any;
  // deno-lint-ignore no-explicit-any
  (AbortSignal as any).any = undefined;
  try {
    const rec = recordingFetch(() => new Response("stream body"));
    const r = await client(rec.fetch).request({
      path: "/x",
      responseType: "stream",
      retry: false,
      // An EventTarget passes the transport's check (it has addEventListener); a pipe refuses it.
      signal: new EventTarget() as AbortSignal,
    });
    assert.equal(r.errorOrNull()?.category, "NETWORK");
  } finally {
    AbortSignal.any = any;
  }
});

// --- Headers and redaction (steps 2 and 5) ----------------------------------------------------------

Deno.test("a credential header's value is redacted without its scheme too", async () => {
  const secret = "service-role-secret-xyz-123";
  const body = JSON.stringify({ message: `rejected ${secret}`, hint: `try ${secret}` });
  const c = client(() => Promise.resolve(new Response(body, { status: 401 })), {
    headers: { Authorization: `Bearer ${secret}` },
  });
  const e = (await c.request({ path: "/x" })).errorOrNull()!;
  assert.equal(e.message, "rejected ***");
  assert.equal(e.hint, "try ***");
  const e2 = (await client(() => Promise.resolve(new Response(body, { status: 401 }))).request({
    path: "/x",
    headers: { "X-Upstream-Token": `Token ${secret}` },
  })).errorOrNull()!;
  assert.equal(e2.message, "rejected ***");
});

Deno.test("a cancelled call keeps the caller's abort reason as its cause", async () => {
  const ac = new AbortController();
  const hanging =
    ((_i: RequestInfo | URL, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => reject(init.signal!.reason));
      })) as typeof fetch;
  const pending = client(hanging).request({ path: "/x", signal: ac.signal });
  const reason = new Error("user navigated away");
  ac.abort(reason);
  const e = (await pending).errorOrNull()!;
  assert.equal(e.category, "CANCELLED");
  assert.equal(e.cause, reason);
  // Aborted before the call, too (it kept no cause): an expired AbortSignal.timeout says so.
  const before = new AbortController();
  before.abort(reason);
  const early = (await client(hanging).request({ path: "/x", signal: before.signal }))
    .errorOrNull()!;
  assert.equal(early.category, "CANCELLED");
  assert.equal(early.cause, reason);
});

Deno.test("a fetch that throws a string holding the API key keeps a redacted cause", async () => {
  const r = await client(() => Promise.reject(`connect failed for ${API_KEY}`)).request({
    method: "POST",
    path: "/x",
  });
  const e = r.errorOrNull()!;
  assert.equal(e.category, "NETWORK");
  assert.equal(e.cause, "connect failed for ***");
  assert.doesNotMatch(e.message, new RegExp(API_KEY));
});

Deno.test("a 2xx body that is not JSON is quoted redacted in the DECODE message", async () => {
  const body = `<html>key ${API_KEY} rejected</html>`;
  const r = await client(() => Promise.resolve(new Response(body))).request({ path: "/x" });
  const e = r.errorOrNull()!;
  assert.equal(e.category, "DECODE");
  assert.equal(e.message, "Response is not valid JSON: <html>key *** rejected</html>");
});

Deno.test("createBaseClient trims the API key, as Headers would send it", async () => {
  const rec = recordingFetch();
  const c = createBaseClient(BASE, `  ${API_KEY}\n`, { fetch: rec.fetch });
  assert.equal(c.apiKey, API_KEY);
  await c.request({ path: "/x" });
  assert.equal(rec.only.headers.get("apikey"), API_KEY);
  assert.equal(rec.only.headers.get("authorization"), `Bearer ${API_KEY}`);
});

// --- Error mapping (core/http_error.ts) ------------------------------------------------------------

Deno.test("categoryForStatus: 599 is SERVER, 600 and 399 are UNKNOWN", () => {
  assert.equal(categoryForStatus(599), "SERVER");
  assert.equal(categoryForStatus(500), "SERVER");
  assert.equal(categoryForStatus(600), "UNKNOWN");
  assert.equal(categoryForStatus(399), "UNKNOWN");
});

Deno.test("Storage's statusCode is read only from an HTTP 400", () => {
  const e = errorFromResponse({
    status: 500,
    statusText: "",
    headers: new Headers(),
    body: '{"statusCode":"404","error":"not_found","message":"Object not found"}',
  }, []);
  assert.equal(e.status, 500);
  assert.equal(e.category, "SERVER");
  assert.equal(e.message, "Object not found");
});

Deno.test("Storage's statusCode may be a number", () => {
  const e = errorFromResponse({
    status: 400,
    statusText: "",
    headers: new Headers(),
    body: '{"statusCode":404,"error":"Bucket not found","message":"Bucket not found"}',
  }, []);
  assert.equal(e.status, 404);
  assert.equal(e.category, "NOT_FOUND");
});

Deno.test("structured details are kept as JSON text; an empty weak_password list is no details", () => {
  const details = [{ cardinality: "many-to-one", relationship: "a_b_fkey" }];
  const e = errorFromResponse({
    status: 300,
    statusText: "",
    headers: new Headers(),
    body: JSON.stringify({ code: "PGRST201", message: "ambiguous", details }),
  }, []);
  assert.equal(e.category, "BAD_REQUEST");
  assert.equal(e.details, JSON.stringify(details));
  const weak = errorFromResponse({
    status: 422,
    statusText: "",
    headers: new Headers(),
    body: '{"msg":"weak","error_code":"weak_password","weak_password":{"reasons":[]}}',
  }, []);
  assert.equal(weak.details, null);
});

Deno.test("a non-JSON error body shows a 200-character excerpt", () => {
  const e = errorFromResponse({
    status: 502,
    statusText: "Bad Gateway",
    headers: new Headers(),
    body: "a".repeat(300),
  }, []);
  assert.equal(e.message, `HTTP 502 Bad Gateway: ${"a".repeat(200)}…`);
});

Deno.test("a blank message field gives way to the next one", () => {
  const e = errorFromResponse({
    status: 400,
    statusText: "",
    headers: new Headers(),
    body: '{"msg":"   ","message":"real message"}',
  }, []);
  assert.equal(e.message, "real message");
});

Deno.test("details are redacted like the message", () => {
  const e = errorFromResponse({
    status: 400,
    statusText: "",
    headers: new Headers(),
    body: '{"message":"bad","details":"key sb_secret_12345 refused"}',
  }, ["sb_secret_12345"]);
  assert.equal(e.details, "key *** refused");
});

Deno.test("retryAfter is in whole seconds, rounded up", () => {
  const now = Date.UTC(2026, 0, 1, 0, 0, 0, 500);
  const clock = FakeTimers.install({ now, toFake: ["Date"] });
  try {
    const at = new Date(Date.UTC(2026, 0, 1, 0, 0, 2)).toUTCString(); // 1.5 s from now
    const e = errorFromResponse({
      status: 429,
      statusText: "",
      headers: new Headers({ "retry-after": at }),
      body: "",
    }, []);
    assert.equal(e.retryAfter, 2);
  } finally {
    clock.uninstall();
  }
});

Deno.test("redactSecrets: a secret of 6 characters (GoTrue's shortest password) is redacted, one of 5 is not", () => {
  assert.equal(redactSecrets("k=123456 j=12345", ["123456", "12345"]), "k=*** j=12345");
});

Deno.test("a 6- or 7-character password a gateway echoes in its error page is redacted", async () => {
  const { createBaseClient } = await import("../../core/client.ts");
  const { createAuthClient } = await import("../../auth/client.ts");
  const echo = (_input: RequestInfo | URL, init?: RequestInit) =>
    Promise.resolve(
      new Response(`<html><body>Request blocked: ${init?.body}</body></html>`, {
        status: 403,
        headers: { "content-type": "text/html" },
      }),
    );
  const auth = createAuthClient(
    createBaseClient("https://p.example", "anon-key-1", { fetch: echo }),
  );
  for (const password of ["abc123", "secret7", "longer-pass-1"]) {
    const r = await auth.signInWithEmail("a@example.com", password);
    const error = r.errorOrNull()!;
    assert.ok(!`${error.message} ${JSON.stringify(error)}`.includes(password), password);
  }
  // One-time codes while they are live: an email OTP, an MFA code, a reauthentication nonce.
  const token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJl";
  const codes: Array<[string, Promise<{ errorOrNull(): { message: string } | null }>]> = [
    ["482913", auth.verifyOtp("482913", "email", { email: "a@example.com" })],
    ["9c7f2e1ab4", auth.verifyOtpWithTokenHash("9c7f2e1ab4", "email")],
    ["731904", auth.mfaVerify(token, "factor-1", "challenge-1", "731904")],
    ["550177", auth.updateUser(token, { password: "longer-pass-2", nonce: "550177" })],
  ];
  for (const [code, call] of codes) {
    const error = (await call).errorOrNull()!;
    assert.ok(!`${error.message} ${JSON.stringify(error)}`.includes(code), code);
  }
});

Deno.test("redactSecrets: an unsigned JWT (empty signature) is redacted", () => {
  const jwt = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ1MSJ9.";
  assert.equal(redactSecrets(`token ${jwt} end`, []), "token *** end");
});

Deno.test("redactCause keeps causes 4 deep and drops deeper ones", () => {
  const secret = "sb_secret_abcdef";
  let error: Error | undefined;
  for (let depth = 6; depth >= 0; depth--) {
    error = new Error(`level ${depth} ${secret}`, error ? { cause: error } : undefined);
  }
  let e = redactCause(error, [secret]) as Error;
  for (let depth = 0; depth <= 4; depth++) {
    assert.equal(e.message, `level ${depth} ***`);
    if (depth < 4) e = e.cause as Error;
  }
  assert.equal(e.cause, undefined);
});

// --- Query, encodings, crypto, JSON int64 ------------------------------------------------------------

Deno.test("encodeQueryComponent encodes every sub-delimiter, * included", () => {
  assert.equal(encodeQueryComponent("!'()*"), "%21%27%28%29%2A");
});

Deno.test("decodeBase64 refuses a length of 4n+1", () => {
  for (const text of ["A", "AAAAA", "QUFBQ"]) {
    assert.throws(() => decodeBase64(text), TypeError, text);
  }
});

Deno.test("randomString rejects the bytes that would bias the draw", () => {
  const original = crypto.getRandomValues;
  // 256 % 3 = 1: byte 255 must be dropped, or "a" would come up more often than the others.
  crypto.getRandomValues = (<T extends ArrayBufferView | null>(array: T): T => {
    const bytes = array as unknown as Uint8Array;
    for (let i = 0; i < bytes.length; i++) bytes[i] = i % 2 === 0 ? 255 : 1;
    return array;
  }) as typeof crypto.getRandomValues;
  try {
    assert.equal(randomString(6, "abc"), "bbbbbb");
  } finally {
    crypto.getRandomValues = original;
  }
});

Deno.test("timingSafeEqual: a repeated prefix differs; equal strings with lone surrogates match", () => {
  assert.equal(timingSafeEqual("ab", "abab"), false);
  assert.equal(timingSafeEqual("abab", "ab"), false);
  assert.equal(timingSafeEqual("\ud800x", "\ud800x"), true);
  assert.equal(timingSafeEqual("\ud800", "\udbff"), false);
});

Deno.test("parseJsonInt64: 16-digit unsafe integers become bigint; digits in escaped strings stay text", () => {
  assert.equal(parseJsonInt64("9007199254740993"), 9007199254740993n);
  assert.deepEqual(parseJsonInt64('{"a":[9007199254740993,1]}'), { a: [9007199254740993n, 1] });
  assert.deepEqual(parseJsonInt64('{"s":"x\\"12345678901234567890","n":12345678901234567890}'), {
    s: 'x"12345678901234567890',
    n: 12345678901234567890n,
  });
});

Deno.test("stringifyJson writes bigint values as JSON integers", () => {
  assert.equal(stringifyJson({ id: 2n ** 63n, n: 1 }), '{"id":9223372036854775808,"n":1}');
  assert.throws(() => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    stringifyJson(cycle);
  }, { name: "TypeError", message: /^Cannot send the value as JSON: / });
  // A cycle beside a bigint went through the bigint path and threw JSON's own message.
  const both: Record<string, unknown> = { id: 1n };
  both.self = both;
  assert.throws(() => stringifyJson(both), {
    name: "TypeError",
    message: /^Cannot send the value as JSON: /,
  });
});

// --- StateFlow and masking ------------------------------------------------------------------------------

Deno.test("MutableStateFlow compares with Object.is: NaN again is silent, -0 after 0 notifies", () => {
  const nan = new MutableStateFlow(NaN);
  const seen: number[] = [];
  nan.subscribe((v) => seen.push(v));
  nan.value = NaN;
  assert.equal(seen.length, 1);
  const zero = new MutableStateFlow(0);
  const zs: number[] = [];
  zero.subscribe((v) => zs.push(v));
  zero.value = -0;
  assert.equal(zs.length, 2);
  assert.ok(Object.is(zs[1], -0));
});

Deno.test("MutableStateFlow: a listener that sets a newer value stops the older one reaching later listeners", () => {
  const flow = new MutableStateFlow(0);
  const second: number[] = [];
  flow.subscribe((v) => {
    if (v === 1) flow.value = 2;
  });
  flow.subscribe((v) => second.push(v));
  flow.value = 1;
  assert.deepEqual(second, [0, 2]);
  assert.equal(flow.value, 2);
});

Deno.test("MutableStateFlow: one listener subscribed twice is two subscriptions", () => {
  const flow = new MutableStateFlow(0);
  const seen: number[] = [];
  const listener = (v: number) => seen.push(v);
  const stopFirst = flow.subscribe(listener);
  flow.subscribe(listener);
  stopFirst();
  flow.value = 1;
  assert.deepEqual(seen, [0, 0, 1]);
});

Deno.test("MutableStateFlow: return() ends a next() that is already waiting", async () => {
  const flow = new MutableStateFlow(0);
  const it = flow[Symbol.asyncIterator]();
  assert.deepEqual(await it.next(), { done: false, value: 0 });
  const waiting = it.next();
  await it.return!();
  assert.deepEqual(await waiting, { done: true, value: undefined });
});

Deno.test("masking hides every always-secret field and prints nothing past 8 levels", () => {
  const fields = [
    "accessToken",
    "refreshToken",
    "providerToken",
    "providerRefreshToken",
    "access_token",
    "refresh_token",
    "provider_token",
    "provider_refresh_token",
    "idToken",
    "password",
    "currentPassword",
    "email",
    "phone",
  ];
  const obj = withMaskedFields({ nested: Object.fromEntries(fields.map((f) => [f, "v"])) }, []);
  const rendered = JSON.parse(String(obj));
  for (const f of fields) assert.equal(rendered.nested[f], "***", f);

  // Levels 0..8 are printed; the object at level 9 is not.
  let deep: Record<string, unknown> = { leaf: "x" };
  for (let i = 0; i < 9; i++) deep = { d: deep };
  let r = JSON.parse(String(withMaskedFields(deep, [])));
  for (let i = 0; i < 8; i++) r = r.d;
  assert.equal(r.d, "[…]");
});
