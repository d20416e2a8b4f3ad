// Transport edges: credentials-free requests, redaction before cutting,
// waits past setTimeout's limit, Retry-After past the deadline, strict dates.
import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { createBaseClient } from "../../core/client.ts";
import { errorFromResponse } from "../../core/http_error.ts";
import { parseRetryAfter } from "../../core/retry.ts";
import { buildHeaders } from "../../core/transport.ts";
import { createPaginator } from "../../core/paginator.ts";
import { success } from "../../core/result.ts";
import { jsonResponse, recordingFetch } from "../support/recording_fetch.ts";

const BASE = "https://project.example";
const KEY = "sb_secret_0123456789abcdefghijklmnopqrstuv";
const TOKEN = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1MSJ9.c2lnbmF0dXJl";

Deno.test("credentials 'none' sends neither credentials nor client-wide headers", () => {
  const c = createBaseClient(BASE, KEY, {
    headers: { Authorization: "Bearer client-wide-secret", apikey: KEY, "x-tenant": "t" },
  });
  const h = buildHeaders(c, { credentials: "none", url: "https://tus.other.example/u" });
  assert.equal(h.get("authorization"), null);
  assert.equal(h.get("apikey"), null);
  assert.equal(h.get("x-tenant"), null);
  assert.equal(buildHeaders(c, {}).get("x-tenant"), "t");
});

Deno.test("error fields are redacted, and excerpts are redacted before they are cut", () => {
  const e = errorFromResponse({
    status: 400,
    statusText: "Bad Request",
    headers: new Headers(),
    body: JSON.stringify({ msg: "Invalid", error: `token ${TOKEN} revoked`, hint: `use ${KEY}` }),
    truncated: false,
  }, [KEY]);
  assert.doesNotMatch(JSON.stringify(e), new RegExp(`${KEY}|eyJhbGciOiJFUzI1NiJ9\\.eyJzdWIi`));
  // A key straddling the 200-character excerpt must not leave its first characters.
  const pad = "x".repeat(190);
  const cut = errorFromResponse({
    status: 500,
    statusText: "",
    headers: new Headers(),
    body: `${pad} ${KEY}`,
    truncated: false,
  }, [KEY]);
  assert.doesNotMatch(cut.message, /sb_secret/);
});

Deno.test("excerpts are redacted before whitespace is collapsed, and a JWT is redacted whatever precedes it", () => {
  const passphrase = "correct  horse\tbattery staple";
  const excerpt = (body: string, secrets: string[] = []) =>
    errorFromResponse(
      { status: 400, statusText: "", headers: new Headers(), body, truncated: false },
      secrets,
    ).message;
  assert.equal(
    excerpt(`Rejected password: ${passphrase}`, [passphrase]),
    "HTTP 400: Rejected password: ***",
  );
  // A server echoing the request URL: the token percent-encoded, after a letter, digit or `_`.
  for (const before of ["%3D", "token%22", "Bearer%20", "_", "x"]) {
    const m = excerpt(`Cannot GET /x?next=${before}${TOKEN}`);
    assert.ok(!m.includes("eyJhbGciOiJFUzI1NiJ9"), m);
    assert.ok(m.endsWith(`${before}***`), m);
  }
});

Deno.test("a client-wide header that cannot be sent is refused without quoting its value", () => {
  for (
    const headers of [
      { authorization: `Bearer ${KEY}\nx-other: 1` },
      { "x-key": `${KEY}\r\n ` + KEY },
      [["x-key", `a\u0000${KEY}`]],
    ] as Array<Record<string, string> | Array<[string, string]>>
  ) {
    assert.throws(() => createBaseClient(BASE, KEY, { headers }), (e: unknown) => {
      assert.ok(e instanceof TypeError);
      assert.equal(e.message, "Cannot create the client as 'headers' is invalid");
      assert.equal(e.cause, undefined);
      assert.ok(!String(e.stack).includes("sb_secret"));
      return true;
    });
  }
});

Deno.test("a token sent in per-call headers is redacted from errors", async () => {
  const rec = recordingFetch(() =>
    new Response(`bad header ${"k".repeat(3)} per-call-secret-123`, { status: 500 })
  );
  const c = createBaseClient(BASE, KEY, { fetch: rec.fetch });
  const r = await c.request({
    method: "POST",
    path: "/x",
    headers: { "x-api-key": "per-call-secret-123" },
  });
  assert.doesNotMatch(r.errorOrNull()!.message, /per-call-secret-123/);
});

Deno.test("timeouts and Retry-After waits past 2^31-1 ms never fire at once", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    let calls = 0;
    const slow = createBaseClient(BASE, KEY, {
      fetch: () => {
        calls++;
        return new Promise((resolve) => setTimeout(() => resolve(jsonResponse({})), 60_000));
      },
    });
    const pending = slow.request({ path: "/x", timeout: 3e9 });
    await clock.tickAsync(61_000);
    assert.ok((await pending).ok, "no instant timeout");
    const busy = createBaseClient(BASE, KEY, {
      fetch: () => {
        calls++;
        return Promise.resolve(
          new Response("busy", { status: 503, headers: { "retry-after": "2500000" } }),
        );
      },
      retry: { maxRetryAfterMs: 3e9 },
    });
    calls = 0;
    const r = await busy.request({ path: "/x", timeout: 0 });
    assert.equal(r.errorOrNull()?.status, 503);
    assert.equal(calls, 1, "a wait of about 29 days is not attempted (nor fired at once)");
  } finally {
    clock.uninstall();
  }
});

Deno.test("a Retry-After that ends past the deadline returns the answer at once", async () => {
  let calls = 0;
  const c = createBaseClient(BASE, KEY, {
    fetch: () => {
      calls++;
      return Promise.resolve(
        new Response("busy", { status: 503, headers: { "retry-after": "10" } }),
      );
    },
  });
  const started = Date.now();
  const r = await c.request({ path: "/x", timeout: 1000 });
  assert.equal(r.errorOrNull()?.status, 503);
  assert.equal(r.errorOrNull()?.retryAfter, 10);
  assert.equal(calls, 1);
  assert.ok(Date.now() - started < 500);
});

Deno.test("Retry-After: digits or an IMF-fixdate only", () => {
  const now = Date.parse("Sun, 06 Nov 1994 08:49:37 GMT");
  assert.equal(parseRetryAfter("3", now), 3000);
  assert.equal(parseRetryAfter("Sun, 06 Nov 1994 08:49:47 GMT", now), 10_000);
  assert.equal(parseRetryAfter("9".repeat(65), now), Number.MAX_SAFE_INTEGER);
  for (
    const bad of ["a 1", "soon 99", "x 2030", "-1", "1.5", "Sunday, 06-Nov-94 08:49:37 GMT", ""]
  ) {
    assert.equal(parseRetryAfter(bad, now), null, bad);
  }
});

Deno.test("access tokens are applied trimmed; blank or null never replaces one; huge numbers are not finite values", async () => {
  const { optNumber } = await import("../../core/decode.ts");
  const c = createBaseClient(BASE, KEY);
  c.setAccessToken("  padded-token  ");
  assert.equal(c.accessToken, "padded-token");
  assert.equal(buildHeaders(c, {}).get("authorization"), "Bearer padded-token");
  c.setAccessToken(null);
  c.setAccessToken("   ");
  assert.equal(c.accessToken, "padded-token");
  c.clearAccessToken();
  assert.equal(c.accessToken, null);
  assert.equal(optNumber({ n: "1" + "0".repeat(400) }, "n"), null);
  assert.equal(optNumber({ n: "42" }, "n"), 42);
});

Deno.test("Iceberg error bodies keep their exception type as the code", () => {
  const e = errorFromResponse({
    status: 404,
    statusText: "Not Found",
    headers: new Headers(),
    body: JSON.stringify({
      error: { message: "Table does not exist: ns.t", type: "NoSuchTableException", code: 404 },
    }),
    truncated: false,
  }, []);
  assert.equal(e.code, "NoSuchTableException");
  assert.equal(e.message, "Table does not exist: ns.t");
  assert.equal(e.category, "NOT_FOUND");
});

Deno.test("a JSON body that cannot be serialised is an immediate INVALID_ARGUMENT, with or without a timeout; nothing is sent", async () => {
  let calls = 0;
  const client = createBaseClient("https://p.example", "anon-key-123456", {
    fetch: () => (calls++, Promise.resolve(new Response("{}"))),
  });
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  for (const json of [{ id: 1n }, circular]) {
    for (const timeout of [0, 60_000]) {
      const r = await client.request({ method: "POST", area: "rest", path: "/t", json, timeout });
      assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
      assert.match(r.errorOrNull()!.message, /JSON body cannot be serialised/);
    }
  }
  assert.equal(calls, 0);
});

Deno.test("secrets in a network error's cause are redacted: nothing printed shows a token", async () => {
  const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJlLXZhbHVl";
  const inner = new Error(`connect failed for https://p.example/rest/v1/t?token=${jwt}`);
  const client = createBaseClient("https://p.example", "anon-key-123456", {
    fetch: (input) =>
      Promise.reject(new TypeError(`error sending request for url (${input})`, { cause: inner })),
  });
  const r = await client.request({ area: "rest", path: "/t", query: { token: jwt }, retry: false });
  const e = r.errorOrNull()!;
  assert.equal(e.category, "NETWORK");
  let thrown: unknown = null;
  try {
    r.getOrThrow();
  } catch (x) {
    thrown = x;
  }
  assert.ok(thrown instanceof Error);
  const printed = Deno.inspect(e, { depth: 10 }) + Deno.inspect(thrown, { depth: 10 });
  assert.ok(!printed.includes(jwt), printed);
  assert.ok(!printed.includes("anon-key-123456"));
  assert.equal((e.cause as Error).name, "TypeError");
  assert.match(String((e.cause as Error).message), /error sending request/);
});

Deno.test("a streamed body holds no listener on the caller's signal once the call returns; an abort still cuts it", async () => {
  // Like a real fetch, the body errors when the request's signal aborts.
  const client = createBaseClient("https://p.example", "anon-key-123456", {
    fetch: (_input, init) => {
      const signal = init!.signal!;
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new Uint8Array(1000));
          signal.addEventListener("abort", () => c.error(signal.reason));
        },
        pull(c) {
          c.close();
        },
      });
      return Promise.resolve(new Response(body));
    },
  });
  const ac = new AbortController();
  let listening = 0;
  const add = ac.signal.addEventListener.bind(ac.signal);
  const remove = ac.signal.removeEventListener.bind(ac.signal);
  ac.signal.addEventListener =
    ((...a: Parameters<typeof add>) => (listening++, add(...a))) as typeof add;
  ac.signal.removeEventListener =
    ((...a: Parameters<typeof remove>) => (listening--, remove(...a))) as typeof remove;
  const stream = () =>
    client.request({ area: "storage", path: "/f", responseType: "stream", signal: ac.signal });
  for (let i = 0; i < 5; i++) {
    const body = (await stream()).getOrThrow().body!;
    assert.equal((await new Response(body).arrayBuffer()).byteLength, 1000);
  }
  const open = (await stream()).getOrThrow().body!;
  assert.equal(listening, 0, "no listener left on a reused signal");
  ac.abort(new Error("stop"));
  await assert.rejects(new Response(open).arrayBuffer(), /stop/);
});

Deno.test("GoTrue error bodies: a numeric code is the HTTP status, not an error code; weak_password reasons become details", () => {
  const parts = (body: unknown, status = 400) => ({
    status,
    statusText: "",
    headers: new Headers(),
    body: JSON.stringify(body),
    truncated: false,
  });
  const legacy = errorFromResponse(parts({ code: 400, msg: "Invalid login credentials" }), []);
  assert.equal(legacy.code, null);
  assert.equal(legacy.message, "Invalid login credentials");
  const weak = errorFromResponse(
    parts({
      code: 422,
      error_code: "weak_password",
      msg: "Password is too weak",
      weak_password: { reasons: ["length", "characters"] },
    }, 422),
    [],
  );
  assert.equal(weak.code, "weak_password");
  assert.equal(weak.details, "length, characters");
  // PostgREST's string codes are kept.
  assert.equal(
    errorFromResponse(parts({ code: "PGRST116", message: "m" }, 406), []).code,
    "PGRST116",
  );
});

Deno.test("a custom fetch that copies its init ({ ...init }) still gets the signal: timeouts and aborts reach it", async () => {
  const seen: AbortSignal[] = [];
  // A common wrapper: copy the init to add a header, then call the real fetch.
  const wrapped: typeof fetch = (_input, init) => {
    const copy: RequestInit = {
      ...init,
      headers: { ...(init?.headers as Record<string, string>), x: "1" },
    };
    const signal = copy.signal!;
    seen.push(signal);
    return new Promise((_, reject) => {
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
  };
  const client = createBaseClient("https://p.example", "anon-key", { fetch: wrapped });
  const timedOut = await client.request({ path: "/slow", timeout: 20, retry: false });
  assert.equal(timedOut.errorOrNull()?.category, "TIMEOUT");
  assert.ok(seen[0] instanceof AbortSignal, "the copy carries the signal");
  assert.ok(seen[0].aborted, "the wrapped fetch was aborted, not left running");
  const ac = new AbortController();
  const cancelled = client.request({ path: "/slow", signal: ac.signal, retry: false });
  ac.abort();
  assert.equal((await cancelled).errorOrNull()?.category, "CANCELLED");
  assert.ok(seen[1].aborted);
});

Deno.test("a signal that is not an AbortSignal (the controller itself, or false, 0 or '') is a clear INVALID_ARGUMENT Failure, with no request", async () => {
  const rec = recordingFetch(() => jsonResponse({}));
  const client = createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch });
  // Falsy ones too: they once passed the check and the call rejected with
  // "signal?.addEventListener is not a function".
  for (const bad of [new AbortController(), {}, "abort", 1, false, 0, ""]) {
    const r = await client.request({ path: "/x", signal: bad as never });
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
    assert.equal(
      r.errorOrNull()?.message,
      "Cannot send the request as 'signal' is not an AbortSignal",
    );
  }
  assert.equal(rec.requests.length, 0);
  // null and undefined mean no signal.
  assert.ok((await client.request({ path: "/x", signal: null as never })).ok);
  assert.ok((await client.request({ path: "/x", signal: undefined })).ok);
});

Deno.test("calls that wait before they send refuse a signal that is not an AbortSignal as the transport does; getClaims' JWKS wait does not crash on one", async () => {
  const { createClient } = await import("../../client.ts");
  const { createSessionManager, refreshCurrentSession } = await import("../../session/mod.ts");
  const { createResumableUpload } = await import("../../storage/tus.ts");
  const { validateAll } = await import("../../database/validator.ts");
  const { getClaims } = await import("../../auth/get_claims.ts");
  const { claims, jwksBody, makeKey, signEs256 } = await import("../auth_jwt/_helpers.ts");
  const key = await makeKey("k1");
  const rec = recordingFetch((req) =>
    req.url.pathname.endsWith("/jwks.json") ? jwksBody(key.jwk) : jsonResponse({})
  );
  const client = createClient("https://project.example", "anon-key", { fetch: rec.fetch });
  const manager = createSessionManager(client.auth, client, { autoRefresh: false });
  const page = createPaginator(2, () => Promise.resolve(success([1, 2])));
  const message = "Cannot send the request as 'signal' is not an AbortSignal";
  try {
    for (const bad of [true, 1, "abort", {}, new AbortController()]) {
      const signal = bad as never;
      const upload = createResumableUpload(client, "b", "o.bin", new Uint8Array(3));
      const calls = [
        // Before: "signal.addEventListener is not a function", thrown from a promise.
        refreshCurrentSession(client.auth, manager, { signal }),
        client.storage.analyticsCatalog("lake").listNamespaces({ signal }),
        upload.await({ signal }),
        page.loadNext({ signal }),
        validateAll([1], (v) => Promise.resolve(v), { signal }),
      ];
      for (const call of calls) {
        const e = (await call).errorOrNull();
        assert.equal(e?.category, "INVALID_ARGUMENT");
        assert.equal(e?.message, message);
      }
    }
    assert.equal(rec.requests.length, 0);
    // getClaims waits on the shared JWKS fetch only; such a signal is not waited on, and the
    // token is verified (the fetch itself carries no caller's signal).
    const token = await signEs256({ alg: "ES256", kid: "k1" }, claims(), key.privateKey);
    const verified = await getClaims(client.auth, token, { signal: true as never });
    assert.ok(verified.ok, verified.errorOrNull()?.message);
  } finally {
    manager.dispose();
  }
});
