/**
 * Downloads without a timeout of their own: the client's timeout bounds the
 * wait for the answer and every pause in a body read whole, never the length
 * of the transfer. Run over a real loopback server, whose stalls are real.
 */

import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createStorageClient } from "../../storage/mod.ts";
import { readIdle } from "../../storage/_idle_read.ts";
import { serve } from "../support/serve.ts";

const enc = new TextEncoder();
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A Storage API stand-in: `/never` answers nothing until the test ends,
 * `/stall` sends its headers and one piece then nothing, `/slow` sends six
 * pieces 100 ms apart (600 ms in all), `/head-late` starts its answer after
 * 600 ms.
 */
async function stallServer() {
  const ends: Array<() => void> = [];
  const ended = new Promise<void>((resolve) => ends.push(resolve));
  const server = await serve(async (req) => {
    const path = new URL(req.url).pathname;
    if (path.endsWith("/never")) {
      await ended;
      return new Response("late");
    }
    if (path.endsWith("/head-late")) await delay(600);
    if (path.endsWith("/stall")) {
      return new Response(
        new ReadableStream({
          async start(c) {
            c.enqueue(enc.encode("first"));
            await ended;
            c.close();
          },
        }),
      );
    }
    let i = 0;
    return new Response(
      new ReadableStream({
        async pull(c) {
          if (i === 15 || path.endsWith("/head-late")) return c.close();
          await delay(100);
          c.enqueue(enc.encode(String(i++)));
        },
      }),
    );
  });
  const storage = (timeout: number) =>
    createStorageClient(createBaseClient(server.url, "k", { timeout, retry: { maxAttempts: 1 } }));
  return {
    storage,
    async close() {
      for (const end of ends) end();
      await server.close();
    },
  };
}

Deno.test("a download whose answer never starts ends with TIMEOUT after the client's timeout", async () => {
  const s = await stallServer();
  try {
    const started = Date.now();
    const [text, bytes, stream] = await Promise.all([
      s.storage(250).download("b", "never"),
      s.storage(250).downloadBytes("b", "never"),
      s.storage(250).downloadStream("b", "never"),
    ]);
    for (const r of [text, bytes, stream]) assert.equal(r.errorOrNull()?.category, "TIMEOUT");
    assert.ok(Date.now() - started < 2_000);
  } finally {
    await s.close();
  }
});

Deno.test("a body that stops mid-way is TIMEOUT once it has paused for the client's timeout", async () => {
  const s = await stallServer();
  try {
    const started = Date.now();
    const r = await s.storage(250).downloadBytes("b", "stall");
    assert.equal(r.errorOrNull()?.category, "TIMEOUT");
    assert.match(r.errorOrNull()!.message, /sent no byte for 250 ms/);
    assert.ok(Date.now() - started < 2_000);
    // A stream is the caller's to read: it is handed over, its pace is the caller's.
    const stream = (await s.storage(250).downloadStream("b", "stall")).getOrThrow();
    const reader = stream.stream.getReader();
    assert.equal(new TextDecoder().decode((await reader.read()).value), "first");
    await reader.cancel();
  } finally {
    await s.close();
  }
});

Deno.test("a slow body that keeps coming takes longer than the client's timeout and still arrives", async () => {
  const s = await stallServer();
  try {
    const started = Date.now();
    // 15 pieces 100 ms apart under a 1 s timeout: a busy machine's late piece is no stall.
    const r = await s.storage(1_000).download("b", "slow");
    assert.equal(r.getOrThrow(), "01234567891011121314");
    assert.ok(Date.now() - started >= 1_400, "the whole body took longer than the timeout");
    // A timeout given to the call still bounds all of it, body included.
    const bounded = await s.storage(0).download("b", "slow", { timeout: 300 });
    assert.equal(bounded.errorOrNull()?.category, "TIMEOUT");
    // Without any timeout (0 for the client, none for the call) a late answer is waited for.
    assert.ok((await s.storage(0).download("b", "head-late")).ok);
  } finally {
    await s.close();
  }
});

Deno.test("an answer that starts later than the client's timeout is TIMEOUT, for a stream too", async () => {
  const s = await stallServer();
  try {
    const r = await s.storage(200).downloadStream("b", "head-late");
    assert.equal(r.errorOrNull()?.category, "TIMEOUT");
    assert.equal(
      (await s.storage(200).download("b", "head-late")).errorOrNull()?.category,
      "TIMEOUT",
    );
  } finally {
    await s.close();
  }
});

Deno.test("the caller's abort in the middle of a body is CANCELLED", async () => {
  const s = await stallServer();
  try {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const r = await s.storage(5_000).downloadBytes("b", "stall", { signal: controller.signal });
    assert.equal(r.errorOrNull()?.category, "CANCELLED");
  } finally {
    await s.close();
  }
});

Deno.test("readIdle: a failing body is NETWORK, pieces are joined, one whole piece is kept", async () => {
  const failing = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new Uint8Array([1]));
      c.error(new TypeError("connection reset"));
    },
  });
  const bad = await readIdle(failing, 1_000);
  assert.equal(bad.errorOrNull()?.category, "NETWORK");
  const parts = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new Uint8Array([1, 2]));
      c.enqueue(new Uint8Array([3]));
      c.close();
    },
  });
  assert.deepEqual([...(await readIdle(parts, 1_000)).getOrThrow()], [1, 2, 3]);
  const whole = new Uint8Array([4, 5]);
  const one = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(whole);
      c.close();
    },
  });
  const kept = (await readIdle(one, 1_000)).getOrThrow();
  assert.equal(kept.buffer, whole.buffer);
  assert.equal(Object.getPrototypeOf(kept), Uint8Array.prototype);
  // A piece that is a view into a larger buffer is copied, never handed over with it.
  const view = new Uint8Array([9, 6, 7, 9]).subarray(1, 3);
  const viewed = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(view);
      c.close();
    },
  });
  const copied = (await readIdle(viewed, 1_000)).getOrThrow();
  assert.deepEqual([...copied], [6, 7]);
  assert.equal(copied.buffer.byteLength, 2);
  assert.deepEqual([
    ...(await readIdle(new ReadableStream({ start: (c) => c.close() }), 10)).getOrThrow(),
  ], []);
});

Deno.test("a fetch whose answers have no body stream (whatwg-fetch) still downloads: asked once more, then read whole", async () => {
  const seen: string[] = [];
  const fetch = (input: RequestInfo | URL) => {
    seen.push(String(input));
    const bytes = enc.encode("hello");
    return Promise.resolve({
      status: 200,
      statusText: "",
      ok: true,
      headers: new Headers({ "content-type": "text/plain" }),
      text: () => Promise.resolve("hello"),
      // Slower than the client's timeout: read whole, a body has no time limit but the call's.
      arrayBuffer: () => delay(250).then(() => bytes.buffer),
    } as unknown as Response);
  };
  const storage = createStorageClient(
    createBaseClient("https://p.example", "k", { fetch, timeout: 100 }),
  );
  assert.equal((await storage.download("b", "a.txt")).getOrThrow(), "hello");
  assert.equal(seen.length, 2);
  assert.deepEqual([...(await storage.downloadBytes("b", "a.txt")).getOrThrow()], [
    ...enc.encode("hello"),
  ]);
  assert.equal(seen.length, 3);
});

/** A fetch that ignores its signal and answers a body sending a byte every 100 ms, ten in all. */
function deafFetch(calls: { n: number }, fail: (n: number) => boolean = () => false) {
  return (() => {
    const n = ++calls.n;
    let i = 0;
    return Promise.resolve(
      new Response(
        new ReadableStream<Uint8Array>({
          async pull(c) {
            if (i === 3 && fail(n)) return c.error(new TypeError("connection reset"));
            if (i === 10) return c.close();
            await delay(i === 0 ? 0 : 20);
            c.enqueue(enc.encode(String(i++)));
          },
        }),
      ),
    );
  }) as typeof fetch;
}

Deno.test("the caller's abort ends a download at once even through a fetch that ignores its signal", async () => {
  const slow = (() =>
    Promise.resolve(
      new Response(
        new ReadableStream<Uint8Array>({
          async pull(c) {
            await delay(1_000);
            c.enqueue(enc.encode("x"));
          },
        }),
      ),
    )) as typeof fetch;
  const storage = createStorageClient(
    createBaseClient("https://p.example", "k", { fetch: slow, timeout: 5_000 }),
  );
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 150);
  const started = Date.now();
  const r = await storage.downloadBytes("b", "a", { signal: controller.signal });
  assert.equal(r.errorOrNull()?.category, "CANCELLED");
  // Pieces come 1 s apart: an abort heard only at the next piece would take 1 s or more.
  assert.ok(Date.now() - started < 800, `${Date.now() - started} ms`);
  const already = await storage.downloadBytes("b", "a", { signal: AbortSignal.abort() });
  assert.equal(already.errorOrNull()?.category, "CANCELLED");
});

Deno.test("a body that breaks mid-way is asked for again, as the transport retries reads; a render's is not", async () => {
  const calls = { n: 0 };
  const storage = createStorageClient(createBaseClient("https://p.example", "k", {
    fetch: deafFetch(calls, (n) => n === 1),
    retry: { baseDelayMs: 1, maxDelayMs: 1 },
  }));
  assert.equal((await storage.download("b", "a")).getOrThrow(), "0123456789");
  assert.equal(calls.n, 2);
  // Every attempt broken: NETWORK after the client's attempts.
  const broken = { n: 0 };
  const failing = createStorageClient(createBaseClient("https://p.example", "k", {
    fetch: deafFetch(broken, () => true),
    retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
  }));
  assert.equal((await failing.download("b", "a")).errorOrNull()?.category, "NETWORK");
  assert.equal(broken.n, 2);
  // A transformed download is not retried (the renderer's rate limit).
  const render = { n: 0 };
  const rendering = createStorageClient(createBaseClient("https://p.example", "k", {
    fetch: deafFetch(render, () => true),
    retry: { baseDelayMs: 1, maxDelayMs: 1 },
  }));
  const r = await rendering.download("b", "a.png", { transform: { width: 10 } });
  assert.equal(r.errorOrNull()?.category, "NETWORK");
  assert.equal(render.n, 1);
});

Deno.test("a body already read by a fetch wrapper is a NETWORK failure, as the transport reports it", async () => {
  const wrapper = (async () => {
    const res = new Response("hello");
    await res.text();
    return res;
  }) as typeof fetch;
  const storage = createStorageClient(createBaseClient("https://p.example", "k", {
    fetch: wrapper,
    retry: { maxAttempts: 1 },
  }));
  assert.equal((await storage.download("b", "a")).errorOrNull()?.category, "NETWORK");
});

Deno.test("readIdle: with the announced length the bytes fill one buffer of it; a length that is wrong still reads the body", async () => {
  const pieces = () =>
    new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new Uint8Array([1, 2]));
        c.enqueue(new Uint8Array([3, 4, 5]));
        c.close();
      },
    });
  const exact = (await readIdle(pieces(), 1_000, undefined, 5)).getOrThrow();
  assert.deepEqual([...exact], [1, 2, 3, 4, 5]);
  assert.equal(exact.buffer.byteLength, 5);
  const short = (await readIdle(pieces(), 1_000, undefined, 3)).getOrThrow();
  assert.deepEqual([...short], [1, 2, 3, 4, 5]);
  const long = (await readIdle(pieces(), 1_000, undefined, 9)).getOrThrow();
  assert.deepEqual([...long], [1, 2, 3, 4, 5]);
  assert.equal(long.buffer.byteLength, 5);
});

Deno.test("readIdle: pieces given as an ArrayBuffer or another view are bytes; a piece that is no bytes is DECODE, the stream cancelled", async () => {
  const of = (...pieces: unknown[]) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const p of pieces) c.enqueue(p as Uint8Array);
        c.close();
      },
    });
  const mixed = await readIdle(
    of(new Uint8Array([1]).buffer, new DataView(new Uint8Array([0, 2, 3]).buffer, 1)),
    1_000,
  );
  assert.deepEqual([...mixed.getOrThrow()], [1, 2, 3]);
  let cancelled: unknown = null;
  const text = new ReadableStream<Uint8Array>({
    pull(c) {
      c.enqueue("hello" as unknown as Uint8Array);
    },
    cancel(reason) {
      cancelled = reason;
    },
  });
  const bad = await readIdle(text, 1_000, undefined, 5);
  assert.equal(bad.errorOrNull()?.category, "DECODE");
  assert.match(String(cancelled), /no bytes/);
});

Deno.test("readIdle: an announced length past 16 MiB gets no buffer up front (a Content-Length that lies allocates nothing)", async () => {
  const Real = Uint8Array;
  let largest = 0;
  (globalThis as { Uint8Array: unknown }).Uint8Array = new Proxy(Real, {
    construct(target, args) {
      if (typeof args[0] === "number") largest = Math.max(largest, args[0]);
      return Reflect.construct(target, args);
    },
  });
  try {
    const three = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new Real([7, 8, 9]));
        c.close();
      },
    });
    const r = await readIdle(three, 1_000, undefined, 2 ** 29);
    assert.deepEqual([...r.getOrThrow()], [7, 8, 9]);
  } finally {
    (globalThis as { Uint8Array: unknown }).Uint8Array = Real;
  }
  assert.ok(largest <= 2 ** 24, `allocated ${largest} bytes up front`);
});

Deno.test("a stalled body from a fetch answering a Node stream (node-fetch) is destroyed at the timeout", async () => {
  const { Readable } = await import("node:stream");
  let body: InstanceType<typeof Readable> | undefined;
  const nodeFetch = (() => {
    body = new Readable({ read() {} });
    body.push(new TextEncoder().encode("first"));
    return Promise.resolve({
      status: 200,
      statusText: "OK",
      ok: true,
      headers: new Headers(),
      body,
    } as unknown as Response);
  }) as typeof fetch;
  const storage = createStorageClient(createBaseClient("https://p.example", "k", {
    fetch: nodeFetch,
    timeout: 200,
  }));
  const r = await storage.downloadBytes("b", "a");
  assert.equal(r.errorOrNull()?.category, "TIMEOUT");
  await delay(50);
  assert.equal(body?.destroyed, true);
});

Deno.test("a range the server ignored is refused before its body is read", async () => {
  let pulled = 0;
  const whole = (() =>
    Promise.resolve(
      new Response(
        new ReadableStream<Uint8Array>({
          pull(c) {
            pulled++;
            if (pulled > 100) return c.close();
            c.enqueue(new Uint8Array(1024));
          },
        }, { highWaterMark: 0 }),
        { headers: { "content-length": String(100 * 1024) } },
      ),
    )) as typeof fetch;
  const storage = createStorageClient(createBaseClient("https://p.example", "k", { fetch: whole }));
  const r = await storage.downloadBytes("b", "a", { range: { start: 10, end: 19 } });
  assert.equal(r.errorOrNull()?.category, "DECODE");
  assert.ok(pulled <= 1, `pulled ${pulled} pieces`);
});

Deno.test("readIdle: a buffer the runtime cannot allocate up front (a Worker's limit) leaves the pieces to be joined", async () => {
  const Real = Uint8Array;
  (globalThis as { Uint8Array: unknown }).Uint8Array = new Proxy(Real, {
    construct(target, args) {
      if (args[0] === 1000) throw new RangeError("Array buffer allocation failed");
      return Reflect.construct(target, args);
    },
  });
  try {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new Real([1, 2]));
        c.enqueue(new Real([3]));
        c.close();
      },
    });
    const r = await readIdle(body, 1_000, undefined, 1000);
    assert.deepEqual([...r.getOrThrow()], [1, 2, 3]);
  } finally {
    (globalThis as { Uint8Array: unknown }).Uint8Array = Real;
  }
});

Deno.test("a body asked for again is asked once per attempt: its re-request gets no retries of its own, and a body of no bytes is not asked again", async () => {
  let calls = 0;
  const fetch = (() => {
    calls++;
    if (calls === 1) {
      return Promise.resolve(
        new Response(
          new ReadableStream<Uint8Array>({
            start(c) {
              c.enqueue(enc.encode("a"));
              c.error(new TypeError("connection reset"));
            },
          }),
        ),
      );
    }
    return Promise.resolve(new Response("busy", { status: 503 }));
  }) as typeof globalThis.fetch;
  const storage = createStorageClient(createBaseClient("https://p.example", "k", {
    fetch,
    retry: { baseDelayMs: 1, maxDelayMs: 1 },
  }));
  const r = await storage.download("b", "a");
  assert.equal(r.errorOrNull()?.category, "SERVER");
  assert.equal(calls, 2);
  let asked = 0;
  const words = (() => {
    asked++;
    return Promise.resolve(
      new Response(
        new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue("text" as unknown as Uint8Array);
          },
        }),
      ),
    );
  }) as typeof globalThis.fetch;
  const s2 = createStorageClient(createBaseClient("https://p.example", "k", { fetch: words }));
  assert.equal((await s2.download("b", "a")).errorOrNull()?.category, "DECODE");
  assert.equal(asked, 1);
});
