// Secrets that reach the transport in unusual shapes never leave it, and odd
// values thrown or returned by a custom fetch become clear failures.
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { timingSafeEqual } from "../../core/crypto.ts";
import { redactCause } from "../../core/http_error.ts";
import { MAX_ERROR_BODY_BYTES } from "../../core/transport.ts";
import { createStorageClient } from "../../storage/client.ts";

const BASE = "https://project.example";
const KEY = "sb_secret_ZXCVBNMASDFGHJKLQWERTYUIOP1234";
const TOKEN = "opaque-user-token-0123456789abcdef";

/** Everything a failure shows: its rendering, its inspection and its JSON. */
function shown(value: unknown): string {
  return `${String(value)}\n${Deno.inspect(value, { depth: 20, showHidden: true })}\n${
    JSON.stringify(value, (_k, v) => v instanceof Error ? { ...v, m: v.message, s: v.stack } : v)
  }`;
}

Deno.test("a key or token with surrounding whitespace is redacted as the trimmed value it goes out as", async () => {
  const echo: typeof fetch = (_u, init) => {
    const h = new Headers(init!.headers);
    return Promise.resolve(
      new Response(
        JSON.stringify({ message: `Invalid: ${h.get("apikey")} ${h.get("authorization")}` }),
        { status: 401 },
      ),
    );
  };
  const c = createBaseClient(BASE, `${KEY}\n`, { fetch: echo });
  const r = await c.request({ area: "rest", path: "/t", accessToken: ` ${TOKEN}\r\n` });
  assert.equal(r.ok, false);
  const text = shown(r);
  assert.ok(text.includes("Invalid: *** Bearer ***"), text);
  assert.ok(!text.includes(KEY) && !text.includes(TOKEN));
  const viaHeader = createBaseClient(BASE, KEY, {
    fetch: echo,
    headers: { authorization: `Bearer ${TOKEN}  ` },
  });
  assert.ok(!shown(await viaHeader.request({ area: "rest", path: "/t" })).includes(TOKEN));
});

Deno.test("JSON.stringify of a client (or a service client holding it) shows no credential header", () => {
  const c = createBaseClient(BASE, KEY, {
    headers: { Authorization: `Bearer ${TOKEN}` },
    accessToken: TOKEN,
  });
  for (const v of [c, createStorageClient(c), { nested: c }]) {
    const json = JSON.stringify(v);
    assert.ok(!json.includes(TOKEN) && !json.includes(KEY), json);
    assert.ok(json.includes(BASE));
  }
});

Deno.test("a thrown error's other properties (request init, headers) never reach the cause", async () => {
  const throwers: Array<(init: RequestInit) => unknown> = [
    (init) => Object.assign(new TypeError("fetch failed"), { options: init }),
    (init) => Object.assign(new TypeError("fetch failed"), { request: new Request(BASE, init) }),
    () => ({ message: "x", apikey: KEY }),
    () => new Error("outer", { cause: { headers: { apikey: KEY } } }),
  ];
  for (const make of throwers) {
    const c = createBaseClient(BASE, KEY, {
      retry: { maxAttempts: 1 },
      fetch: (_u, init) => Promise.reject(make(init!)),
    });
    const r = await c.request({ area: "rest", path: "/t", accessToken: TOKEN });
    assert.equal(r.ok, false);
    assert.equal(r.error!.category, "NETWORK");
    const text = shown(r);
    assert.ok(!text.includes(KEY) && !text.includes(TOKEN), text);
  }
  // A plain error is kept as it is; causes deeper than 4 are dropped, not kept unredacted.
  const plain = new TypeError("fetch failed");
  assert.equal(redactCause(plain, [KEY]), plain);
  let deep: Error = new Error(`deepest ${KEY}`);
  for (let i = 0; i < 6; i++) deep = new Error(`level ${i}`, { cause: deep });
  assert.ok(!shown(redactCause(deep, [KEY])).includes(KEY));
});

Deno.test("an error body cut at the cap shows no prefix of a secret cut with it", async () => {
  for (const kept of [4, 12, 30, KEY.length - 1]) {
    // Whitespace before the key: the excerpt shows the text where the cut leaves the key.
    const body = " ".repeat(MAX_ERROR_BODY_BYTES - kept) + KEY + " trailing";
    const c = createBaseClient(BASE, KEY, {
      retry: { maxAttempts: 1 },
      fetch: () => Promise.resolve(new Response(body, { status: 500 })),
    });
    const r = await c.request({ area: "rest", path: "/t" });
    assert.equal(r.ok, false);
    assert.ok(!r.error!.message.includes(KEY.slice(0, 4)), `${kept}: ${r.error!.message}`);
    assert.equal(r.error!.message, "HTTP 500 (cut body)");
  }
});

Deno.test("a fetch that throws an unprintable value or resolves no Response gives a NETWORK failure", async () => {
  const odd: Array<() => Promise<Response>> = [
    () => Promise.reject(Object.create(null)),
    () =>
      Promise.reject({
        toString() {
          throw new Error("no rendering");
        },
      }),
    () => Promise.resolve(undefined as unknown as Response),
    () => Promise.resolve({} as Response),
    () => Promise.resolve({ headers: new Headers() } as Response),
    () => Promise.resolve({ headers: new Headers(), ok: true } as Response),
  ];
  for (const fetch of odd) {
    const c = createBaseClient(BASE, KEY, { retry: { maxAttempts: 1 }, fetch });
    const r = await c.request({ area: "rest", path: "/t" });
    assert.equal(r.ok, false);
    assert.equal(r.error!.category, "NETWORK", String(r.error));
  }
  // A body stream that errors with an unprintable value.
  const broken = createBaseClient(BASE, KEY, {
    retry: { maxAttempts: 1 },
    fetch: () =>
      Promise.resolve(
        new Response(
          new ReadableStream({
            pull: (ctl) => ctl.error(Object.create(null)),
          }),
        ),
      ),
  });
  const r = await broken.request({ area: "rest", path: "/t" });
  assert.equal(r.errorOrNull()?.category, "NETWORK");
});

Deno.test("maxBodyBytes must be a non-negative integer: else INVALID_ARGUMENT, nothing sent", async () => {
  let sent = 0;
  const c = createBaseClient(BASE, KEY, {
    fetch: () => (sent++, Promise.resolve(new Response("[]"))),
  });
  for (const bad of [-1, Number.NaN, 1.5, Infinity]) {
    const r = await c.request({ area: "rest", path: "/t", maxBodyBytes: bad });
    const e = r.errorOrNull();
    assert.equal(e?.category, "INVALID_ARGUMENT");
    assert.match(e!.message, /'maxBodyBytes' must be a non-negative integer/);
    assert.ok(e!.cause instanceof RangeError);
  }
  assert.equal(sent, 0);
  const ok = await c.request({ area: "rest", path: "/t", maxBodyBytes: 2 });
  assert.deepEqual(ok.ok && ok.value.body, []);
});

Deno.test("timingSafeEqual tells lone surrogates apart", () => {
  assert.equal(timingSafeEqual("\ud800", "\udbff"), false);
  assert.equal(timingSafeEqual("a\ud800", "a\ufffd"), false);
  assert.equal(timingSafeEqual("\ud800", new TextEncoder().encode("\ufffd")), false);
  assert.equal(timingSafeEqual("😀x", "😀x"), true);
  assert.equal(timingSafeEqual("é", new TextEncoder().encode("é")), true);
  assert.equal(timingSafeEqual("", ""), true);
  assert.equal(timingSafeEqual("", "a"), false);
});

Deno.test("a refusal that names an object path, a column or an argument never echoes a JWT in it", async () => {
  const jwt = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEifQ.c2lnbmF0dXJlLXNlY3JldA";
  const pasted = `https://app.example/cb#access_token=${jwt}&type=bearer`;
  const { createDatabaseClient } = await import("../../database/client.ts");
  const { column } = await import("../../database/column.ts");
  const { deleteObject } = await import("../../storage/objects.ts");
  const { recordingFetch, jsonResponse } = await import("../support/recording_fetch.ts");
  const rec = recordingFetch((req) =>
    jsonResponse(req.url.pathname.includes("/sign/") ? [{}] : [])
  );
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch });
  const storage = createStorageClient(client);
  const messages: string[] = [];
  const failed = async (p: Promise<{ errorOrNull(): { message: string } | null }>) => {
    const e = (await p).errorOrNull();
    assert.ok(e, "refused");
    messages.push(e.message);
  };
  const threw = (f: () => unknown) => {
    assert.throws(f, (e: Error) => (messages.push(e.message), true));
  };
  // A pasted callback URL has an empty segment ("https://"), and a path may be a token itself.
  await failed(storage.download("bucket", pasted));
  threw(() => storage.getPublicUrl("bucket", pasted));
  await failed(deleteObject(client, "bucket", jwt));
  await failed(storage.createSignedUrls("bucket", [jwt], 60));
  const db = createDatabaseClient(client);
  await failed(
    db.select("t", { block: (q) => q.where((w) => w.eq(column<number>(`${jwt} `), 1)) }),
  );
  await failed(db.select("t", {
    block: (q) => q.where((w) => w.or((o) => o.eq(column<number>(`a.${jwt}`), 1))),
  }));
  await failed(db.select("t", { block: (q) => q.orderBy(column(`a.${jwt}`)) }));
  await failed(db.rpcGet("f", { params: { [jwt]: () => 1 } as never }));
  assert.equal(messages.length, 8);
  for (const m of messages) {
    assert.ok(!m.includes("c2lnbmF0dXJl"), `echoed: ${m}`);
    assert.match(m, /^Cannot /);
  }
  // Names without a token are still shown, for the caller to find.
  const plain = (await storage.download("bucket", "a//b")).errorOrNull();
  assert.equal(plain?.message, 'Cannot use the object path "a//b" as it has an empty segment');
});
