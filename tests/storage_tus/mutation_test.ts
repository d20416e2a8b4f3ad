/**
 * Resumable-upload tests written from a mutation audit of `storage/tus.ts`
 * and `storage/_chunk_body.ts`: each pins a documented behaviour that a
 * one-line change of the sources left unnoticed.
 */

import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { createBaseClient } from "../../core/client.ts";
import {
  createResumableUpload,
  parseUploadOffset,
  type ResumableUploadOptions,
} from "../../storage/mod.ts";
import { type RecordedRequest, recordingFetch } from "../support/recording_fetch.ts";
import { BASE, fingerprintOf, KEY, LOCATION, tusScript } from "./_tus_script.ts";

/** The shared script; `fault` may answer any request instead. */
const tusServer = (fault?: (req: RecordedRequest, index: number) => Response | null) =>
  tusScript({ onAny: fault });

function setup(fault?: (req: RecordedRequest, index: number) => Response | null) {
  const rec = recordingFetch(tusServer(fault));
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch });
  return { client, rec };
}

function seq(n: number): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => i % 251);
}

function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      if (bytes.length > 0) c.enqueue(bytes.slice());
      c.close();
    },
  });
}

const fast: ResumableUploadOptions = { retryBaseDelayMs: 1, retryMaxDelayMs: 2 };

Deno.test("an empty final PATCH goes as empty bytes even with streamChunks: true", async () => {
  const { client, rec } = setup();
  const up = createResumableUpload(client, "b", "e.bin", streamOf(new Uint8Array(0)), {
    ...fast,
    creationWithUpload: false,
    streamChunks: true,
  });
  assert.equal((await up.await()).ok, true);
  const patch = rec.requests.find((r) => r.method === "PATCH")!;
  assert.equal(patch.headers.get("upload-length"), "0");
  assert.equal(patch.streamed, false);
  assert.equal(patch.bytes?.length ?? 0, 0);
});

Deno.test("parseUploadOffset refuses an offset beyond 2^53 (it could not be held exactly)", () => {
  assert.equal(parseUploadOffset("999999999999999"), 999999999999999);
  assert.equal(parseUploadOffset("9999999999999999"), null);
  assert.equal(parseUploadOffset("18446744073709551615"), null);
});

Deno.test("a Retry-After of 10 s on the POST is waited out in full before the next attempt", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const { client, rec } = setup((req, i) =>
      req.method === "POST" && i === 0
        ? new Response(null, { status: 503, headers: { "retry-after": "10" } })
        : null
    );
    const up = createResumableUpload(client, "b", "r.bin", seq(10), { chunkSize: 10 });
    const done = up.await();
    await clock.tickAsync(9_000);
    assert.equal(rec.requests.length, 1);
    await clock.tickAsync(1_500);
    const r = await done;
    assert.equal(r.ok, true);
    assert.deepEqual(rec.requests.map((q) => q.method), ["POST", "POST"]);
  } finally {
    clock.uninstall();
  }
});

Deno.test("the default backoff starts at about 500 ms (between 250 and 500 ms)", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const { client, rec } = setup((req, i) =>
      req.method === "POST" && i === 0 ? new Response(null, { status: 503 }) : null
    );
    const done = createResumableUpload(client, "b", "r.bin", seq(10), { chunkSize: 10 }).await();
    await clock.tickAsync(240);
    assert.equal(rec.requests.length, 1);
    await clock.tickAsync(300);
    assert.equal((await done).ok, true);
    assert.deepEqual(rec.requests.map((q) => q.method), ["POST", "POST"]);
  } finally {
    clock.uninstall();
  }
});

Deno.test("a PATCH answer whose Upload-Offset goes back fails as DECODE; no byte is sent twice", async () => {
  const { client, rec } = setup((req) =>
    req.method === "PATCH"
      ? new Response(null, { status: 204, headers: { "upload-offset": "2" } })
      : null
  );
  const r = await createResumableUpload(client, "b", "back.bin", seq(12), { ...fast, chunkSize: 4 })
    .await();
  assert.equal(r.errorOrNull()?.category, "DECODE");
  assert.deepEqual(rec.requests.map((q) => q.method), ["POST", "PATCH"]);
});

Deno.test("each request's timeout grows by one second per 64 KiB sent", async () => {
  const rec = recordingFetch((req) =>
    new Promise<Response>((resolve, reject) => {
      const t = setTimeout(() => resolve(tusServer()(req, 0)), 300);
      req.signal?.addEventListener("abort", () => {
        clearTimeout(t);
        reject(req.signal?.reason);
      }, { once: true });
    })
  );
  // 50 ms for the client, plus 2 s for the 128 KiB POST: a 300 ms answer is in time.
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch, timeout: 50 });
  const r = await createResumableUpload(client, "b", "t.bin", seq(128 * 1024), {
    ...fast,
    maxAttempts: 1,
    chunkSize: 128 * 1024,
  }).await();
  assert.equal(r.ok, true, r.errorOrNull()?.message);
  assert.deepEqual(rec.requests.map((q) => q.method), ["POST"]);
});

Deno.test("a resume whose HEAD claims more bytes than the data holds fails as DECODE", async () => {
  const { client, rec } = setup((req) =>
    req.method === "HEAD"
      ? new Response(null, { status: 200, headers: { "upload-offset": "20" } })
      : null
  );
  const up = createResumableUpload(client, "b", "h.bin", seq(10), { ...fast, uploadUrl: LOCATION });
  const r = await up.await();
  assert.equal(r.errorOrNull()?.category, "DECODE");
  assert.equal(up.progress.value.isComplete, false);
  assert.deepEqual(rec.requests.map((q) => q.method), ["HEAD"]);
});

Deno.test("a saved URL answering 404 is forgotten by the URL store even when the restart fails", async () => {
  const saved = new Map<string, string>();
  const store = {
    get: (k: string) => saved.get(k),
    set: (k: string, v: string) => void saved.set(k, v),
    remove: (k: string) => void saved.delete(k),
  };
  saved.set(
    await fingerprintOf(BASE, "b", "s.bin", seq(10)),
    `${BASE}/storage/v1/upload/resumable/dead`,
  );
  const { client, rec } = setup((req) => {
    if (req.method === "HEAD") return new Response(null, { status: 404 });
    if (req.method === "POST") return new Response("bad", { status: 400 });
    return null;
  });
  const r = await createResumableUpload(client, "b", "s.bin", seq(10), { ...fast, urlStore: store })
    .await();
  assert.equal(r.ok, false);
  assert.deepEqual(rec.requests.map((q) => q.method), ["HEAD", "POST"]);
  assert.equal(saved.size, 0);
});

Deno.test("an accepted PATCH that advances renews the retry budget", async () => {
  let patches = 0;
  const { client, rec } = setup((req) =>
    req.method === "PATCH" && ++patches % 2 === 1 ? new Response(null, { status: 503 }) : null
  );
  const r = await createResumableUpload(client, "b", "p.bin", seq(16), {
    ...fast,
    chunkSize: 4,
    maxAttempts: 2,
  }).await();
  assert.equal(r.ok, true, r.errorOrNull()?.message);
  assert.equal(rec.requests.filter((q) => q.method === "PATCH").length, 6);
});

Deno.test("the first HEAD of a resume makes maxAttempts attempts in all, then fails", async () => {
  const { client, rec } = setup((req) =>
    req.method === "HEAD" ? new Response(null, { status: 503 }) : null
  );
  const r = await createResumableUpload(client, "b", "h.bin", seq(10), {
    ...fast,
    uploadUrl: LOCATION,
    maxAttempts: 3,
  }).await();
  assert.equal(r.errorOrNull()?.status, 503);
  assert.deepEqual(rec.requests.map((q) => q.method), ["HEAD", "HEAD", "HEAD"]);
});

Deno.test("PATCHes failing transiently make maxAttempts attempts in all (a HEAD between each)", async () => {
  const { client, rec } = setup((req) =>
    req.method === "PATCH" ? new Response(null, { status: 503 }) : null
  );
  const r = await createResumableUpload(client, "b", "p.bin", seq(8), {
    ...fast,
    chunkSize: 4,
    maxAttempts: 2,
  }).await();
  assert.equal(r.errorOrNull()?.status, 503);
  assert.deepEqual(rec.requests.map((q) => q.method), ["POST", "PATCH", "HEAD", "PATCH"]);
});

Deno.test("the documented retry defaults: 5 attempts, backoff capped at 10 s", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const patchesAt: number[] = [];
    const { client, rec } = setup((req) => {
      if (req.method !== "PATCH") return null;
      patchesAt.push(Date.now());
      return new Response(null, { status: 503 });
    });
    // A huge base delay: only the default cap (10 s) keeps the waits short.
    const up = createResumableUpload(client, "b", "d.bin", seq(10), {
      chunkSize: 4,
      creationWithUpload: false,
      retryBaseDelayMs: 1_000_000,
    });
    const result = up.await();
    await clock.tickAsync(200_000);
    const r = await result;
    assert.equal(r.errorOrNull()?.status, 503);
    assert.equal(patchesAt.length, 5, rec.requests.map((q) => q.method).join());
    for (let i = 1; i < patchesAt.length; i++) {
      assert.ok(patchesAt[i] - patchesAt[i - 1] <= 10_000, `wait ${i}`);
    }
  } finally {
    clock.uninstall();
  }
});
