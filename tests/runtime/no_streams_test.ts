/**
 * A runtime with fetch but no Web Streams (React Native's Hermes, whose fetch is the `whatwg-fetch`
 * polyfill: a `Response` without `body`). Calls whose bodies are text or bytes work there: every
 * call below rejected with "ReferenceError: ReadableStream is not defined" while the transport
 * asked each body whether it was a `ReadableStream`.
 */
import assert from "node:assert/strict";
import { createClient } from "../../mod.ts";

const STREAMS = ["ReadableStream", "WritableStream", "TransformStream"];

/** Runs `fn` with the Web Streams classes (and any `more`) taken away, then puts them back. */
async function withoutStreams<T>(fn: () => Promise<T>, more: string[] = []): Promise<T> {
  const g = globalThis as Record<string, unknown>;
  const names = [...STREAMS, ...more];
  const saved = names.map((name) => [name, Object.getOwnPropertyDescriptor(g, name)] as const);
  for (const name of names) delete g[name];
  try {
    assert.equal(typeof (globalThis as Record<string, unknown>).ReadableStream, "undefined");
    return await fn();
  } finally {
    for (const [name, descriptor] of saved) Object.defineProperty(g, name, descriptor!);
  }
}

/** What `whatwg-fetch` resolves: a Response-like object with text and bytes, and no `body`. */
function polyfillResponse(status: number, text: string, headers: Record<string, string> = {}) {
  const bytes = new TextEncoder().encode(text);
  return {
    status,
    statusText: "",
    ok: status >= 200 && status < 300,
    type: "default",
    url: "",
    headers: new Headers(headers),
    text: () => Promise.resolve(text),
    arrayBuffer: () => Promise.resolve(bytes.buffer),
  };
}

interface Seen {
  method: string;
  url: string;
  body: string | null;
}

/** A fetch in the polyfill's manner, answering from `answer` and recording each request. */
function polyfillFetch(answer: (req: Seen) => ReturnType<typeof polyfillResponse>) {
  const seen: Seen[] = [];
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const b = init?.body;
    const body = b == null ? null : typeof b === "string" ? b : new TextDecoder().decode(
      b instanceof ArrayBuffer ? new Uint8Array(b) : b as Uint8Array,
    );
    const req = { method: init?.method ?? "GET", url: String(input), body };
    seen.push(req);
    return Promise.resolve(answer(req) as unknown as Response);
  };
  return { fetch, seen };
}

const SESSION = {
  access_token: "access-token-1",
  refresh_token: "refresh-token-1",
  expires_in: 3600,
  expires_at: Math.floor(Date.now() / 1000) + 3600,
  token_type: "bearer",
  user: { id: "u1", email: "a@x.io" },
};

Deno.test("without Web Streams: auth, database and storage calls with text or bytes bodies resolve their results", async () => {
  const { fetch, seen } = polyfillFetch((req) => {
    const path = new URL(req.url).pathname;
    if (path === "/auth/v1/token") return polyfillResponse(200, JSON.stringify(SESSION));
    if (path === "/rest/v1/todos" && req.method === "GET") {
      return polyfillResponse(200, '[{"id":1,"title":"a"}]');
    }
    if (path === "/rest/v1/todos") return polyfillResponse(201, '[{"id":2,"title":"b"}]');
    if (path.startsWith("/storage/v1/object/authenticated/")) return polyfillResponse(200, "hello");
    if (path.startsWith("/storage/v1/object/")) {
      return polyfillResponse(200, '{"Key":"docs/a.txt","Id":"1"}');
    }
    return polyfillResponse(404, '{"message":"not found"}');
  });
  await withoutStreams(async () => {
    const client = createClient("https://p.example", "anon-key", { fetch });
    const session = await client.auth.signInWithEmail("a@x.io", "secret-pw");
    assert.equal(session.getOrThrow().accessToken, "access-token-1");
    const rows = await client.database.select("todos", { columns: "id,title" });
    assert.equal(rows.getOrThrow(), '[{"id":1,"title":"a"}]');
    const inserted = await client.database.insert("todos", '{"title":"b"}');
    assert.equal(inserted.getOrThrow(), '[{"id":2,"title":"b"}]');
    const text = await client.storage.upload("docs", "a.txt", "hello");
    assert.equal(text.getOrThrow(), "docs/a.txt");
    const bytes = await client.storage.upload("docs", "a.txt", new TextEncoder().encode("hi"));
    assert.equal(bytes.getOrThrow(), "docs/a.txt");
    const down = await client.storage.download("docs", "a.txt");
    assert.equal(down.getOrThrow(), "hello");
    const missing = await client.database.select("nope");
    assert.equal(missing.errorOrNull()?.category, "NOT_FOUND");
  });
  assert.deepEqual(seen.map((r) => `${r.method} ${new URL(r.url).pathname} ${r.body}`), [
    'POST /auth/v1/token {"email":"a@x.io","password":"secret-pw","gotrue_meta_security":{}}',
    "GET /rest/v1/todos null",
    'POST /rest/v1/todos {"title":"b"}',
    "POST /storage/v1/object/docs/a.txt hello",
    "POST /storage/v1/object/docs/a.txt hi",
    "GET /storage/v1/object/authenticated/docs/a.txt null",
    "GET /rest/v1/nope null",
  ]);
});

Deno.test("without Web Streams: a redirect is followed, and a POST answered 303 goes on as a GET", async () => {
  const { fetch, seen } = polyfillFetch((req) => {
    const path = new URL(req.url).pathname;
    if (path === "/rest/v1/old") {
      return polyfillResponse(307, "", { location: "https://p.example/rest/v1/new" });
    }
    if (path === "/rest/v1/rpc/make") {
      return polyfillResponse(303, "", { location: "https://p.example/rest/v1/made" });
    }
    return polyfillResponse(200, `"${path}"`);
  });
  await withoutStreams(async () => {
    const client = createClient("https://p.example", "anon-key", { fetch });
    assert.equal((await client.database.select("old")).getOrThrow(), '"/rest/v1/new"');
    const made = await client.database.rpc("make", { params: '{"a":1}' });
    assert.equal(made.getOrThrow(), '"/rest/v1/made"');
  });
  assert.deepEqual(seen.map((r) => `${r.method} ${new URL(r.url).pathname} ${r.body}`), [
    "GET /rest/v1/old null",
    "GET /rest/v1/new null",
    'POST /rest/v1/rpc/make {"a":1}',
    "GET /rest/v1/made null",
  ]);
});

Deno.test("without Web Streams or Blob: a bytes body goes as application/octet-stream, a Blob-like one with its own type", async () => {
  const { fetch } = polyfillFetch(() => polyfillResponse(200, '{"Key":"docs/a.bin"}'));
  const types: Array<string | null> = [];
  const recording = (input: RequestInfo | URL, init?: RequestInit) => {
    types.push(new Headers(init?.headers).get("content-type"));
    return fetch(input, init);
  };
  await withoutStreams(async () => {
    assert.equal(typeof (globalThis as Record<string, unknown>).Blob, "undefined");
    const client = createClient("https://p.example", "anon-key", { fetch: recording });
    const up = await client.storage.upload("docs", "a.bin", new Uint8Array([1, 2, 3]));
    assert.equal(up.getOrThrow(), "docs/a.bin");
    const r = await client.request({
      method: "POST",
      path: "/x",
      body: new Uint8Array([1]),
      responseType: "text",
    });
    assert.equal(r.ok, true);
    // A Blob of another implementation (a polyfill's): its own type is sent, as fetch would.
    const blobLike = Object.assign(new Uint8Array([1]), { type: "image/png" });
    await client.request({ method: "POST", path: "/y", body: blobLike, responseType: "text" });
  }, ["Blob", "File"]);
  assert.deepEqual(types, ["application/octet-stream", "application/octet-stream", "image/png"]);
});
