// A `fetch` given to the client that is not the runtime's own: node-fetch (3) and cross-fetch
// (node-fetch 2 inside), which code moving from supabase-js still passes, answer with a Node stream
// as `body` (no `getReader`, no `cancel`). Every answer read under a size cap (auth, storage JSON,
// every error answer) failed `NETWORK` ("getReader is not a function"), every HEAD and
// body-less call failed on `cancel`, and `downloadStream` handed back the Node stream. They also
// send a web `ReadableStream` request body as its text, so on Node a resumable upload streams its
// chunks only through Node's own fetch (a client given none): through node-fetch the request
// declared the chunk's length, sent 23 bytes and hung.
import assert from "node:assert/strict";
import nodeFetch from "node-fetch";
import crossFetch from "cross-fetch";
import { createClient } from "../client.ts";
import { createBaseClient } from "../core/client.ts";
import { getClaims } from "../auth/get_claims.ts";
import { createResumableUpload } from "../storage/tus.ts";
import { createLocalBackend } from "../demo/local_backend/mod.ts";
import { serve } from "./support/serve.ts";
import { readAll } from "./runtime/flows/helpers.ts";

const FETCHES = {
  "node-fetch 3": nodeFetch as unknown as typeof fetch,
  "cross-fetch (node-fetch 2)": crossFetch as unknown as typeof fetch,
};

for (const [name, customFetch] of Object.entries(FETCHES)) {
  Deno.test(`${name} as the client's fetch: auth, local verification, database, storage answers and errors are read`, async () => {
    const backend = await createLocalBackend();
    const server = await serve(backend.app.fetch);
    try {
      // The premise: its answers' body is no web stream.
      const probe = await customFetch(`${server.url}/auth/v1/health`);
      assert.equal(typeof (probe.body as ReadableStream | null)?.getReader, "undefined");
      await probe.text();

      const client = createClient(server.url, backend.apiKey, { fetch: customFetch });
      const s = await client.auth.signUpWithEmail("node-fetch@example.test", "secret-pw");
      assert.equal(s.ok ? "ok" : s.error.message, "ok");
      const token = s.ok ? s.value.accessToken : "";
      client.setAccessToken(token);
      const claims = await getClaims(client.auth, token);
      assert.equal(claims.ok ? claims.value.header.algorithm : claims.error.message, "ES256");
      // An error answer is read for its message, not taken for a network error.
      const wrong = await client.auth.signInWithEmail("node-fetch@example.test", "wrong-pw");
      assert.equal(wrong.errorOrNull()?.status, 400);
      assert.match(wrong.errorOrNull()!.message, /Invalid login credentials/);

      await client.database.insert("todos", JSON.stringify([{ title: "from node-fetch" }]));
      const rows = await client.database.select("todos", { columns: "title" });
      assert.deepEqual(JSON.parse(rows.getOrThrow()), [{ title: "from node-fetch" }]);

      const st = client.storage;
      assert.equal(said(await st.createBucket("nf", "nf")), "ok");
      assert.equal(said(await st.upload("nf", "a.txt", new TextEncoder().encode("bytes"))), "ok");
      assert.equal(said(await st.upload("nf", "b.txt", "text")), "ok");
      assert.equal(
        new TextDecoder().decode((await st.downloadBytes("nf", "a.txt")).getOrThrow()),
        "bytes",
      );
      assert.equal((await st.download("nf", "b.txt")).getOrThrow(), "text");
      // HEAD, and an answer read as none: the Node stream has no `cancel`.
      assert.equal((await st.exists("nf", "a.txt")).getOrThrow(), true);
      assert.equal((await st.exists("nf", "missing.txt")).getOrThrow(), false);
      const none = await client.request({ area: "auth", path: "/health", responseType: "none" });
      assert.equal(none.ok ? "ok" : none.error.message, "ok");
      // A stream download is a web stream.
      const streamed = (await st.downloadStream("nf", "a.txt")).getOrThrow();
      assert.equal(typeof streamed.stream.getReader, "function");
      assert.equal(new TextDecoder().decode(await readAll(streamed.stream)), "bytes");
      const missing = await st.info("nf", "missing.txt");
      assert.equal(missing.errorOrNull()?.category, "NOT_FOUND");
      // A stream it would send as its text: the upload says so, and nothing is stored.
      const streamed2 = await st.upload("nf", "s.txt", new Blob(["streamed"]).stream());
      assert.equal(streamed2.errorOrNull()?.category, "INVALID_ARGUMENT");
      assert.match(
        streamed2.errorOrNull()!.message,
        /sends it as the text "\[object ReadableStream\]" \(node-fetch, cross-fetch\): nothing was sent;/,
      );
      assert.equal((await st.exists("nf", "s.txt")).getOrThrow(), false);
      // Resumable chunks asked to go as streams: refused at once, not hung nor retried.
      const started = Date.now();
      const up = st.createResumableUpload("nf", "tus.bin", new Uint8Array(1000).fill(1), {
        chunkSize: 256,
        streamChunks: true,
      });
      const tus = await up.await();
      assert.equal(tus.errorOrNull()?.category, "INVALID_ARGUMENT");
      assert.match(tus.errorOrNull()!.message, /\(node-fetch, cross-fetch\): nothing was sent;/);
      assert.ok(Date.now() - started < 2_000, "no retries");
      assert.equal(up.uploadUrl, null, "no upload created");
      // Without the option, chunks go as bytes, which such a fetch sends.
      const bytes = st.createResumableUpload("nf", "tus2.bin", new Uint8Array(1000).fill(2), {
        chunkSize: 256,
      });
      assert.equal(said(await bytes.await()), "ok");
      assert.deepEqual(
        (await st.downloadBytes("nf", "tus2.bin")).getOrThrow(),
        new Uint8Array(1000).fill(2),
      );
    } finally {
      await server.close();
    }
  });
}

Deno.test("a stream upload through a fetch given to the client that takes streams (a wrapper of the runtime's own) is a Success", async () => {
  const backend = await createLocalBackend();
  const server = await serve(backend.app.fetch);
  try {
    const wrapped: typeof fetch = (input, init) => fetch(input, init);
    const client = createClient(server.url, backend.serviceKey, { fetch: wrapped });
    assert.ok((await client.storage.createBucket("w", "w")).ok);
    const r = await client.storage.upload("w", "s.txt", new Blob(["streamed"]).stream());
    assert.equal(r.ok ? "ok" : r.error.message, "ok");
    assert.equal((await client.storage.download("w", "s.txt")).getOrThrow(), "streamed");
  } finally {
    await server.close();
  }
});

Deno.test("a fetch that makes a stream body text without String() and answers with a Node stream is reported as having sent the text", async () => {
  let sent = "";
  const client = createClient("https://p.example", "anon-key-123456", {
    fetch: ((_input: string, init: RequestInit) => {
      sent = Object.prototype.toString.call(init.body);
      return Promise.resolve(nodeLike('{"Key":"b/s.txt"}', 200));
    }) as unknown as typeof fetch,
  });
  const r = await client.storage.upload("b", "s.txt", new Blob(["streamed"]).stream());
  assert.equal(sent, "[object ReadableStream]");
  assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(r.errorOrNull()!.message, /: the object may now hold that text;/);
});

Deno.test("a body read under a cap through a fetch answering a Node stream is still cut at the cap", async () => {
  const big = JSON.stringify({ pad: "x".repeat(5000) });
  const client = createBaseClient("https://p.example", "anon-key-123456", {
    fetch: (() => Promise.resolve(nodeLike(big, 200))) as unknown as typeof fetch,
  });
  const r = await client.request({ area: "auth", path: "/user", maxBodyBytes: 1000 });
  assert.equal(r.errorOrNull()?.category, "DECODE");
  assert.equal(r.errorOrNull()?.message, "Response body exceeds 1000 bytes");
  const long = await createBaseClient("https://p.example", "anon-key-123456", {
    fetch: (() => Promise.resolve(nodeLike("e".repeat(40_000), 500))) as unknown as typeof fetch,
  }).request({ area: "auth", path: "/user", retry: false });
  assert.equal(long.errorOrNull()?.status, 500);
});

Deno.test("on Node a resumable upload streams its chunks through Node's own fetch only: a fetch given to the client gets bytes, unless streamChunks says otherwise", async () => {
  const sent: Array<{ via: string; stream: boolean }> = [];
  const answer = async (via: string, input: RequestInfo | URL, init?: RequestInit) => {
    sent.push({ via, stream: init?.body instanceof ReadableStream });
    const length = (await new Request(input, init).arrayBuffer()).byteLength;
    return new Response(null, {
      status: 201,
      headers: {
        location: "https://p.example/storage/v1/upload/resumable/x",
        "upload-offset": `${length}`,
      },
    });
  };
  const global = globalThis.fetch;
  const navigator = Object.getOwnPropertyDescriptor(globalThis, "navigator");
  Object.defineProperty(globalThis, "navigator", {
    value: { userAgent: "Node.js/20" },
    configurable: true,
  });
  globalThis.fetch = (input, init) => answer("global", input, init);
  try {
    const data = new Uint8Array(10).fill(7);
    const own = createBaseClient("https://p.example", "anon-key-123456");
    assert.ok((await createResumableUpload(own, "b", "own.bin", data).await()).ok);
    const given = createBaseClient("https://p.example", "anon-key-123456", {
      fetch: (input, init) => answer("given", input, init),
    });
    assert.ok((await createResumableUpload(given, "b", "given.bin", data).await()).ok);
    assert.ok(
      (await createResumableUpload(given, "b", "asked.bin", data, { streamChunks: true }).await())
        .ok,
    );
    assert.deepEqual(sent, [
      { via: "global", stream: true },
      { via: "given", stream: false },
      { via: "given", stream: true },
    ]);
  } finally {
    globalThis.fetch = global;
    if (navigator) Object.defineProperty(globalThis, "navigator", navigator);
    else delete (globalThis as { navigator?: unknown }).navigator;
  }
});

function said(r: { ok: boolean; error?: { message: string } }): string {
  return r.ok ? "ok" : r.error!.message;
}

/** An answer shaped as node-fetch's: its body an async iterable of bytes, no web stream. */
function nodeLike(text: string, status: number) {
  const bytes = new TextEncoder().encode(text);
  let used = false;
  return {
    status,
    ok: status < 300,
    statusText: "",
    headers: new Headers({ "content-type": "application/json" }),
    body: {
      async *[Symbol.asyncIterator]() {
        yield bytes;
      },
    },
    arrayBuffer() {
      if (used) throw new TypeError("body used already");
      used = true;
      return Promise.resolve(bytes.slice().buffer);
    },
  };
}
