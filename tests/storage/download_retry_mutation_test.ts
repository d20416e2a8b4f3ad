/**
 * downloadRaw's read of a whole body (storage/_ops.ts): tests from the third mutation review,
 * each named by the mutant it kills.
 */

import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createStorageClient } from "../../storage/mod.ts";

const enc = new TextEncoder();

/** A node-fetch-like answer: its body is a Node-style async iterable of Buffers-like bytes. */
function nodeAnswer(pieces: string[], breakAfter: number | null) {
  async function* gen() {
    for (let i = 0; i < pieces.length; i++) {
      if (breakAfter !== null && i === breakAfter) throw new TypeError("socket hang up");
      yield enc.encode(pieces[i]);
    }
  }
  return {
    status: 200,
    statusText: "OK",
    ok: true,
    url: "",
    redirected: false,
    type: "basic",
    headers: new Headers({ "content-type": "application/octet-stream" }),
    body: gen(),
    arrayBuffer: () => Promise.reject(new Error("not read whole")),
    text: () => Promise.reject(new Error("not read whole")),
  } as unknown as Response;
}

// O09: the answer asked for again after a broken body is a Node stream too: it is made a web
// stream as the first one was.
Deno.test("a node-fetch body that breaks mid-way is asked for again and the second answer read", async () => {
  let calls = 0;
  const fetch = (() => {
    calls++;
    return Promise.resolve(nodeAnswer(["ab", "cd"], calls === 1 ? 1 : null));
  }) as typeof globalThis.fetch;
  const storage = createStorageClient(createBaseClient("https://p.example", "k", {
    fetch,
    retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
  }));
  const r = await storage.download("b", "a.txt");
  assert.equal(r.getOrThrow(), "abcd");
  assert.equal(calls, 2);
});

// O08: the first answer's Node stream is made a web stream too (else it failed as NETWORK and
// was asked for again, or failed with one attempt).
Deno.test("a node-fetch body is read from the first answer, with no second request", async () => {
  let calls = 0;
  const fetch = (() => {
    calls++;
    return Promise.resolve(nodeAnswer(["ab", "cd"], null));
  }) as typeof globalThis.fetch;
  const storage = createStorageClient(createBaseClient("https://p.example", "k", {
    fetch,
    retry: { maxAttempts: 1 },
  }));
  assert.equal((await storage.download("b", "a.txt")).getOrThrow(), "abcd");
  assert.equal(calls, 1);
});

// O10: an answer whose body is null (an empty one, as some runtimes give it) is an empty
// object, not a fetch without body streams: it is not asked for again.
Deno.test("an answer with a null body is an empty download, asked for once", async () => {
  let calls = 0;
  const fetch = (() => {
    calls++;
    return Promise.resolve(new Response(null, { status: 200 }));
  }) as typeof globalThis.fetch;
  const storage = createStorageClient(createBaseClient("https://p.example", "k", { fetch }));
  assert.deepEqual([...(await storage.downloadBytes("b", "empty")).getOrThrow()], []);
  assert.equal((await storage.download("b", "empty")).getOrThrow(), "");
  assert.equal(calls, 2);
});

// O11: a body that stalls is TIMEOUT at once: only a network failure is asked for again.
Deno.test("a body that stalls is not asked for again", async () => {
  let calls = 0;
  const fetch = (() => {
    calls++;
    return Promise.resolve(
      new Response(
        new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(enc.encode("a"));
          },
        }),
      ),
    );
  }) as typeof globalThis.fetch;
  const storage = createStorageClient(createBaseClient("https://p.example", "k", {
    fetch,
    timeout: 80,
    retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
  }));
  assert.equal((await storage.download("b", "a")).errorOrNull()?.category, "TIMEOUT");
  assert.equal(calls, 1);
});

// O14: a broken body is asked for again after the client's backoff, and an abort during that
// wait ends the call as CANCELLED with no further request.
Deno.test("a broken body is asked for again after the backoff; an abort during it asks no more", async () => {
  const times: number[] = [];
  const broken = () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(enc.encode("a"));
          c.error(new TypeError("connection reset"));
        },
      }),
    );
  const fetch = (() => {
    times.push(Date.now());
    return Promise.resolve(times.length === 1 ? broken() : new Response("ab"));
  }) as typeof globalThis.fetch;
  const storage = createStorageClient(createBaseClient("https://p.example", "k", {
    fetch,
    retry: { maxAttempts: 3, baseDelayMs: 400, maxDelayMs: 400 },
  }));
  assert.equal((await storage.download("b", "a")).getOrThrow(), "ab");
  assert.equal(times.length, 2);
  assert.ok(times[1] - times[0] >= 180, `${times[1] - times[0]} ms`); // at least half the delay

  times.length = 0;
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 60);
  const r = await storage.download("b", "a", { signal: controller.signal });
  assert.equal(r.errorOrNull()?.category, "CANCELLED");
  assert.equal(times.length, 1);
});
