// Redirects: the transport follows them itself so that credentials never
// reach another origin (fetch drops only Authorization there, not `apikey`).
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { jsonResponse, type RecordedRequest, recordingFetch } from "../support/recording_fetch.ts";

const BASE = "https://project.example";
const KEY = "sb_secret_key_0123456789";
const TOKEN = "user-access-token-abcdef";

function make(respond: (req: RecordedRequest, i: number) => Response) {
  const rec = recordingFetch(respond);
  const client = createBaseClient(BASE, KEY, {
    fetch: rec.fetch,
    headers: { "x-tenant": "secret-tenant" },
  });
  client.setAccessToken(TOKEN);
  return { rec, client };
}

const to = (location: string, status = 302) =>
  new Response(null, { status, headers: { location } });

Deno.test("a redirect within the origin is followed with the same credentials", async () => {
  const { rec, client } = make((req) =>
    req.url.pathname === "/storage/v1/a" ? to("/storage/v1/b") : jsonResponse({ ok: 1 })
  );
  const r = await client.request({ area: "storage", path: "/a" });
  assert.deepEqual(r.getOrThrow().body, { ok: 1 });
  assert.equal(rec.requests.length, 2);
  assert.equal(rec.requests[1].url.pathname, "/storage/v1/b");
  assert.equal(rec.requests[1].headers.get("apikey"), KEY);
  assert.equal(rec.requests[1].headers.get("authorization"), `Bearer ${TOKEN}`);
  assert.equal(rec.requests[0].redirect, "manual");
});

Deno.test("a GET redirected to another origin goes without the key, the bearer or client headers", async () => {
  const { rec, client } = make((req) =>
    req.url.host === "project.example"
      ? to("https://cdn.example/file?sig=1", 307)
      : new Response("bytes")
  );
  const r = await client.request({
    area: "storage",
    path: "/object/b/f",
    responseType: "text",
    headers: { range: "bytes=0-4" },
  });
  assert.equal(r.getOrThrow().body, "bytes");
  const hop = rec.requests[1];
  assert.equal(hop.url.href, "https://cdn.example/file?sig=1");
  assert.equal(hop.headers.get("apikey"), null);
  assert.equal(hop.headers.get("authorization"), null);
  assert.equal(hop.headers.get("x-tenant"), null);
  assert.equal(
    hop.headers.get("range"),
    "bytes=0-4",
    "per-call headers that are not credentials stay",
  );
});

Deno.test("a write redirected to another origin is refused, sent nowhere and not retried", async () => {
  for (const method of ["POST", "PUT", "DELETE"]) {
    const { rec, client } = make(() => to("https://evil.example/x", 307));
    const r = await client.request({
      method,
      area: "rest",
      path: "/t",
      json: { a: 1 },
      retry: true,
    });
    assert.equal(r.errorOrNull()?.category, "NETWORK");
    assert.match(r.errorOrNull()!.message, /another origin/);
    assert.equal(rec.requests.length, 1, method);
  }
});

Deno.test("303 (and 302 after a POST) turns into a bodiless GET, as fetch does", async () => {
  const { rec, client } = make((_req, i) => i === 0 ? to("/auth/v1/done", 303) : jsonResponse({}));
  await client.request({ method: "POST", area: "auth", path: "/x", json: { a: 1 } });
  assert.equal(rec.requests[1].method, "GET");
  assert.equal(rec.requests[1].text, null);
  assert.equal(rec.requests[1].headers.get("content-type"), null);
  const p = make((_req, i) => i === 0 ? to("/auth/v1/again", 307) : jsonResponse({}));
  await p.client.request({ method: "POST", area: "auth", path: "/x", json: { a: 1 } });
  assert.equal(p.rec.requests[1].method, "POST", "307 keeps the method and body");
  assert.equal(p.rec.requests[1].text, '{"a":1}');
});

Deno.test("redirect loops, odd schemes and streamed bodies are refused without retry", async () => {
  const loop = make(() => to("/storage/v1/again"));
  const r = await loop.client.request({ area: "storage", path: "/a" });
  assert.match(r.errorOrNull()!.message, /more than 5 redirects/);
  assert.equal(loop.rec.requests.length, 6, "one request and five hops, no retry");
  const scheme = make(() => to("file:///etc/passwd"));
  assert.match((await scheme.client.request({ path: "/x" })).errorOrNull()!.message, /http\(s\)/);
  const streamed = make(() => to("/upload/again", 307));
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new Uint8Array(3));
      c.close();
    },
  });
  const s = await streamed.client.request({ method: "PUT", path: "/upload", body });
  assert.match(s.errorOrNull()!.message, /streamed body/);
});

Deno.test("an explicit redirect mode goes to fetch unchanged", async () => {
  const { rec, client } = make(() => to("https://elsewhere.example/"));
  const r = await client.request({ method: "POST", path: "/x", redirect: "manual" });
  assert.equal(r.errorOrNull()?.status, 302);
  assert.equal(rec.requests.length, 1);
});

Deno.test("an invalid header value is INVALID_ARGUMENT and is not retried", async () => {
  const { client } = make(() => jsonResponse({}));
  let calls = 0;
  const bad = createBaseClient(BASE, KEY, {
    fetch: (input, init) => {
      calls++;
      return fetch(new Request(input, init)); // throws TypeError on the header
    },
  });
  void client;
  const r = await bad.request({ path: "/x", headers: { "x-bad": "a\nb" } });
  assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(calls, 1);
});

Deno.test("per-call credential headers (keys, tokens, cookies, any *authorization) never follow a redirect to another origin", async () => {
  const { rec, client } = make((req) =>
    req.url.host === "project.example"
      ? to("https://cdn.example/file", 302)
      : new Response("file", { status: 200 })
  );
  const headers = {
    "x-api-key": "per-call-api-key-123",
    "x-refresh-token": "per-call-refresh-123",
    "x-client-secret": "per-call-secret-123",
    cookie: "sid=per-call-cookie",
    "proxy-authorization": "Basic cHJveHk6cHc=",
    "x-trace": "trace-1",
  };
  const r = await client.request({ area: "storage", path: "/a", headers, responseType: "text" });
  assert.equal(r.getOrThrow().body, "file");
  const [first, second] = rec.requests;
  for (const name of Object.keys(headers)) assert.ok(first.headers.has(name), name);
  for (const name of Object.keys(headers).filter((n) => n !== "x-trace")) {
    assert.equal(second.headers.get(name), null, `${name} left the origin`);
  }
  assert.equal(second.headers.get("x-trace"), "trace-1");
});

Deno.test("a POST turned into a GET by a 303 drops the body and every body header", async () => {
  const { rec, client } = make((req) =>
    req.url.pathname === "/rest/v1/rpc/f" ? to("/rest/v1/done", 303) : jsonResponse({ ok: 1 })
  );
  const r = await client.request({
    method: "POST",
    area: "rest",
    path: "/rpc/f",
    body: "payload",
    contentType: "text/plain",
    headers: {
      "content-language": "en",
      "content-encoding": "identity",
      "content-location": "/x",
      "content-disposition": "inline",
      "x-trace": "t",
    },
  });
  assert.ok(r.ok);
  const second = rec.requests[1];
  assert.equal(second.method, "GET");
  assert.equal(second.bytes, null);
  for (
    const h of [
      "content-type",
      "content-language",
      "content-encoding",
      "content-location",
      "content-disposition",
    ]
  ) {
    assert.equal(second.headers.get(h), null, h);
  }
  assert.equal(second.headers.get("x-trace"), "t");
});
