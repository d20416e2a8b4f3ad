// One-shot streams under faults: a second fault after a partial re-sync,
// runs after a failed or paused one, stalls during the end-of-stream check,
// and byte sources that take only views at the start of their buffer.
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createResumableUpload, type ResumableUploadOptions } from "../../storage/mod.ts";
import { byteStream } from "../support/byte_stream.ts";

const BASE = "https://project.example.com";
const URL_ = `${BASE}/storage/v1/upload/resumable/u1`;

function seq(n: number): Uint8Array {
  return new Uint8Array(n).map((_, i) => ((i * 7 + 3) % 251) + 1);
}

type Hook = (
  req: {
    method: string;
    offset: number | null;
    body: Uint8Array;
    signal?: AbortSignal | null | undefined;
  },
  server: { take(bytes: Uint8Array): void },
) => Response | Promise<Response> | null;

/** A TUS server that keeps the bytes it accepts; `hook` may answer first. */
function tusServer(hook: Hook = () => null) {
  const state = { data: new Uint8Array(0), length: null as string | null, log: [] as string[] };
  const take = (b: Uint8Array) => {
    const next = new Uint8Array(state.data.length + b.length);
    next.set(state.data);
    next.set(b, state.data.length);
    state.data = next;
  };
  const fetch = async (_input: RequestInfo | URL, init: RequestInit = {}) => {
    const method = init.method ?? "GET";
    const headers = new Headers(init.headers);
    const body = init.body == null
      ? new Uint8Array(0)
      : new Uint8Array(await new Response(init.body).arrayBuffer());
    const offset = headers.has("upload-offset") ? Number(headers.get("upload-offset")) : null;
    const length = headers.get("upload-length");
    state.log.push(`${method}@${offset ?? "-"}+${body.length}${length ? `/L${length}` : ""}`);
    const hooked = await hook({ method, offset, body, signal: init.signal }, { take });
    if (hooked) return hooked;
    if (length) state.length = length;
    const answer = (status: number) => {
      const h: Record<string, string> = { "upload-offset": String(state.data.length) };
      if (state.length !== null) h["upload-length"] = state.length;
      if (status === 201) h.location = URL_;
      return new Response(null, { status, headers: h });
    };
    if (method === "HEAD") return answer(200);
    if (method === "POST") {
      take(body);
      return answer(201);
    }
    if (offset !== state.data.length) return answer(409);
    take(body);
    return answer(204);
  };
  return { fetch: fetch as typeof globalThis.fetch, state };
}

/** A default stream of `data` in pieces; pulls from `stallAt` on wait until cancelled. */
function defaultStream(data: Uint8Array, piece: number, stallAt = Infinity) {
  let at = 0;
  let wake = () => {};
  return new ReadableStream<Uint8Array>({
    async pull(c) {
      if (at >= stallAt) await new Promise<void>((r) => (wake = r));
      if (at >= data.length) return c.close();
      c.enqueue(data.slice(at, at + piece));
      at += piece;
    },
    cancel() {
      wake();
    },
  }, { highWaterMark: 0 });
}

/** A byte stream of `data` (see `tests/support/byte_stream.ts`), stalling from `stallAt`. */
const byteSource = (data: Uint8Array, piece: number, stallAt = Infinity, startOnly = false) =>
  byteStream(data, piece, { stallAt, startOnly });

const kinds = [
  ["default stream", defaultStream],
  ["byte stream", byteSource],
] as const;

const upload = (
  fetch: typeof globalThis.fetch,
  data: ReadableStream<Uint8Array>,
  options: ResumableUploadOptions,
) =>
  createResumableUpload(createBaseClient(BASE, "anon-key-123456", { fetch }), "b", "p", data, {
    chunkSize: 8,
    retryBaseDelayMs: 1,
    ...options,
  });

Deno.test("a second fault on a chunk re-synced mid-way re-sends it from memory (no 'cannot resume')", async () => {
  for (const [kind, make] of kinds) {
    for (const size of [undefined, 40]) {
      const data = seq(40);
      let patches = 0;
      const { fetch, state } = tusServer((req, server) => {
        if (req.method !== "PATCH") return null;
        patches++;
        if (patches === 1) {
          server.take(req.body.subarray(0, 3)); // the PATCH at 8 keeps 3 bytes, then fails
          return new Response(null, { status: 500 });
        }
        return patches === 2 ? new Response(null, { status: 500 }) : null; // and the one at 11
      });
      const r = await upload(fetch, make(data, 8), { size }).await();
      assert.ok(r.ok, `${kind}, size ${size}: ${r.ok ? "" : r.error.message}`);
      assert.deepEqual(state.data, data, `${kind}, size ${size}`);
      assert.ok(state.log.filter((l) => l.startsWith("PATCH@11")).length >= 2, state.log.join(" "));
    }
  }
});

Deno.test("a one-shot stream whose run failed is not read again: a second await fails clearly and declares no truncated length", async () => {
  for (const [kind, make] of kinds) {
    const data = seq(40);
    let patches = 0;
    const { fetch, state } = tusServer((req) =>
      req.method === "PATCH" && ++patches === 1 ? new Response("no", { status: 403 }) : null
    );
    const up = upload(fetch, make(data, 8), {});
    assert.equal((await up.await()).errorOrNull()?.status, 403, kind);
    const again = await up.await();
    assert.equal(again.errorOrNull()?.category, "INVALID_ARGUMENT", kind);
    assert.match(again.errorOrNull()!.message, /a failed or paused run cancelled it/);
    assert.equal(state.log.filter((l) => l.includes("/L")).length, 0, state.log.join(" "));
  }
});

Deno.test("a pause while a read waits on a stalled stream loses no kept byte: resuming with a fresh stream stores the source's bytes", async () => {
  for (const [kind, make] of kinds) {
    const data = seq(40);
    let patches = 0;
    const { fetch, state } = tusServer((req, server) => {
      if (req.method !== "PATCH") return null;
      patches++;
      if (patches === 1) {
        server.take(req.body.subarray(0, 3)); // a re-sync into the chunk: the read ahead merges
        return new Response(null, { status: 500 });
      }
      if (patches === 2) {
        server.take(req.body); // taken, but the answer never comes: the caller pauses
        return new Promise((_, reject) =>
          req.signal?.addEventListener("abort", () => reject(req.signal!.reason))
        );
      }
      return null;
    });
    const up = upload(fetch, make(data, 8, 24), { size: 40 });
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), 50);
    const first = await up.await({ signal: ac.signal });
    clearTimeout(timer);
    assert.equal(first.errorOrNull()?.category, "CANCELLED", kind);
    assert.equal((await up.await()).errorOrNull()?.category, "INVALID_ARGUMENT", kind);
    const resumed = await upload(fetch, make(data, 8), { size: 40, uploadUrl: up.uploadUrl! })
      .await();
    assert.ok(resumed.ok, `${kind}: ${resumed.ok ? "" : resumed.error.message}`);
    assert.deepEqual(state.data, data, `${kind}: ${state.log.join(" ")}`);
  }
});

Deno.test("an abort while the end-of-stream check waits on a stalled stream pauses at once", async () => {
  for (const [kind, make] of kinds) {
    const { fetch, state } = tusServer();
    // Unknown length, stalling right after the second chunk: the check for its end waits.
    const up = upload(fetch, make(seq(40), 8, 16), {});
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), 30);
    let late: ReturnType<typeof setTimeout> | undefined;
    const r = await Promise.race([
      up.await({ signal: ac.signal }),
      new Promise<null>((resolve) => (late = setTimeout(() => resolve(null), 1000))),
    ]);
    clearTimeout(timer);
    clearTimeout(late);
    assert.equal(r?.errorOrNull()?.category, "CANCELLED", `${kind}: ${state.log.join(" ")}`);
  }
});

Deno.test("a byte source that takes only views at the start of their buffer (Node 20 file streams) uploads intact", async () => {
  for (const size of [undefined, 45]) {
    for (const piece of [8, 5, 100]) {
      const data = seq(45);
      const { fetch, state } = tusServer();
      const r = await upload(fetch, byteSource(data, piece, Infinity, true), { size }).await();
      assert.ok(r.ok, `size ${size}, piece ${piece}: ${r.ok ? "" : r.error.message}`);
      assert.deepEqual(state.data, data, `size ${size}, piece ${piece}`);
    }
  }
});

/** Answers HEAD with `offset` (and `length`), as a server that lies would. */
const headAnswer = (offset: number, length?: number) =>
  new Response(null, {
    status: 200,
    headers: {
      "upload-offset": String(offset),
      ...(length === undefined ? {} : { "upload-length": String(length) }),
    },
  });

Deno.test("HEAD re-syncs are checked: an offset that goes back fails (DECODE), one past what was sent is another upload's (CONFLICT); no byte skipped or resent", async () => {
  // Back (chunks of 8): the PATCH at 8 is stored but answered 500, HEAD says 16; the next
  // PATCH fails, and HEAD now says 8.
  let heads = 0;
  let patches = 0;
  const back = tusServer((req, server) => {
    if (req.method === "PATCH" && ++patches <= 2) {
      if (patches === 1) server.take(req.body);
      return new Response(null, { status: 500 });
    }
    if (req.method === "HEAD") return headAnswer(++heads === 1 ? 16 : 8);
    return null;
  });
  const r1 = await upload(back.fetch, defaultStream(seq(32), 4), { size: 32 }).await();
  assert.equal(r1.errorOrNull()?.category, "DECODE", back.state.log.join(" "));
  assert.match(r1.errorOrNull()!.message, /back from 16 to 8/);
  // Past: the PATCH at 8 (chunks of 8) fails and HEAD claims 20 bytes although only 16 were sent.
  let failed = false;
  const past = tusServer((req) => {
    if (req.method === "PATCH" && !failed) {
      failed = true;
      return new Response(null, { status: 500 });
    }
    return req.method === "HEAD" ? headAnswer(20) : null;
  });
  const r2 = await upload(past.fetch, byteSource(seq(24), 4), {}).await();
  assert.equal(r2.errorOrNull()?.category, "CONFLICT");
  assert.match(
    r2.errorOrNull()!.message,
    /another upload is writing this URL: .* 20 bytes .* sent 16/,
  );
});

Deno.test("an Upload-Length this upload never declared is a CONFLICT mid-upload; on a resume the stream must end there", async () => {
  let failed = false;
  const mid = tusServer((req) => {
    if (req.method === "PATCH" && !failed) {
      failed = true;
      return new Response(null, { status: 500 });
    }
    return req.method === "HEAD" ? headAnswer(8, 8) : null;
  });
  const r = await upload(mid.fetch, defaultStream(seq(10), 4), {}).await();
  assert.equal(r.errorOrNull()?.category, "CONFLICT");
  // Resume: the server holds 8 bytes of an 8-byte upload; a fresh stream of 12 is not that upload.
  for (const [kind, make] of kinds) {
    // The server holds all 8 bytes; the empty PATCH that finishes the upload is answered 204.
    const done = tusServer((req) =>
      req.method === "HEAD"
        ? headAnswer(8, 8)
        : req.method === "PATCH" && req.offset === 8 && req.body.length === 0
        ? new Response(null, { status: 204, headers: { "upload-offset": "8" } })
        : null
    );
    const longer = await upload(done.fetch, make(seq(12), 4), { uploadUrl: URL_ }).await();
    assert.equal(longer.errorOrNull()?.category, "INVALID_ARGUMENT", kind);
    assert.match(longer.errorOrNull()!.message, /longer than 8 bytes/);
    assert.ok(done.state.log.every((l) => l.startsWith("HEAD")), done.state.log.join(" "));
    const same = await upload(done.fetch, make(seq(8), 4), { uploadUrl: URL_ }).await();
    assert.ok(same.ok, `${kind}: ${same.ok ? "" : same.error.message}`);
    assert.equal(done.state.log.at(-1), "PATCH@8+0", "the resume finishes the full upload");
  }
});

Deno.test("progress seen through a HEAD renews the retry budget: a proxy that loses every answer still completes", async () => {
  const { fetch, state } = tusServer((req, server) => {
    // Every data PATCH is stored but its answer lost; the empty one that finishes gets through.
    if (req.method !== "PATCH" || req.body.length === 0) return null;
    server.take(req.body);
    return new Response(null, { status: 502 });
  });
  const data = seq(48); // five PATCHes, each stored and each answered 502
  const r = await upload(fetch, defaultStream(data, 4), { size: 48, maxAttempts: 3 }).await();
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.deepEqual(state.data, data);
});
