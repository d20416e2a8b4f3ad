// How a resumable upload ends (found by a review): the server's finish step must have answered
// before Success (the Storage API creates the object there), a stream that gives its declared
// bytes but never closes fails instead of hanging, a caller who aborts ends only its own wait,
// and the URL store tells apart data that differs past its first bytes.
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createResumableUpload, type UploadUrlStore } from "../../storage/mod.ts";
import { bytes, withPeer } from "./_tus_peer.ts";

const BASE = "https://project.example.com";
const URL_ = `${BASE}/storage/v1/upload/resumable/u1`;
const FAST = { retryBaseDelayMs: 1, retryMaxDelayMs: 2 };

/** A scripted TUS server holding `total` bytes once a PATCH lands; `finish` answers the end. */
function scripted(total: number, finish: (attempt: number) => number | Response) {
  const log: string[] = [];
  let held = 0;
  let finishes = 0;
  const fetch = async (_input: RequestInfo | URL, init: RequestInit = {}) => {
    const method = init.method ?? "GET";
    const headers = new Headers(init.headers);
    const body = init.body == null ? 0 : (await new Response(init.body).arrayBuffer()).byteLength;
    const offset = Number(headers.get("upload-offset") ?? 0);
    log.push(`${method}@${headers.get("upload-offset") ?? "-"}+${body}`);
    const at = (status: number) =>
      new Response(null, {
        status,
        headers: { "upload-offset": String(held), "upload-length": String(total), location: URL_ },
      });
    if (method === "HEAD") return at(200);
    if (method === "POST") return at(201);
    held = offset + body;
    // The finish step runs when the bytes are all there: its answer is the PATCH's.
    if (held !== total) return at(204);
    const answer = finish(++finishes);
    return typeof answer === "number" ? at(answer) : answer;
  };
  return { fetch: fetch as typeof globalThis.fetch, log, finishes: () => finishes };
}

/** The Storage API's answer when the object exists (a PATCH checks it again). */
const exists = () =>
  new Response(
    JSON.stringify({
      statusCode: "409",
      error: "Duplicate",
      message: "The resource already exists",
    }),
    { status: 409, headers: { "content-type": "application/json" } },
  );

const upload = (fetch: typeof globalThis.fetch, data: Uint8Array, extra = {}) =>
  createResumableUpload(createBaseClient(BASE, "anon-key", { fetch }), "b", "a.bin", data, {
    chunkSize: 4,
    creationWithUpload: false,
    ...FAST,
    ...extra,
  });

Deno.test("a finish step that failed is run again by an empty PATCH; Success only once it answers", async () => {
  // Fails once: the last PATCH's bytes are stored, its answer is 500; HEAD says all 8 are there.
  const once = scripted(8, (n) => n === 1 ? 500 : 204);
  const r = await upload(once.fetch, bytes(8)).await();
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.equal(once.finishes(), 2);
  assert.deepEqual(once.log.slice(-2), ["HEAD@-+0", "PATCH@8+0"]);
  // Fails every time: never Success. The finishing PATCH is retried as a PATCH is.
  const always = scripted(8, () => 500);
  const failed = await upload(always.fetch, bytes(8), { maxAttempts: 3 }).await();
  assert.equal(failed.errorOrNull()?.category, "SERVER");
  assert.equal(always.log.filter((l) => l === "PATCH@8+0").length, 3, always.log.join(" "));
  // The answer of the completing PATCH is lost (a 502 from a gateway) while the server finished:
  // the finishing PATCH's 409 says the object exists, this upload's own. Success, as before.
  const lost = scripted(8, (n) => n === 1 ? 502 : 409);
  const own = await upload(lost.fetch, bytes(8)).await();
  assert.ok(own.ok, own.ok ? "" : own.error.message);
  // The server refused the completing PATCH with 409 itself: another upload wrote the object.
  // Refused at once: a retry would send the chunk again for the same answer.
  const taken = scripted(8, exists);
  const conflict = await upload(taken.fetch, bytes(8)).await();
  assert.equal(conflict.errorOrNull()?.category, "CONFLICT");
  assert.equal(conflict.errorOrNull()?.status, 409);
  assert.deepEqual(taken.log, ["POST@-+0", "PATCH@0+4", "PATCH@4+4"]);
  // A 409 whose body a proxy emptied says nothing of the object: a HEAD settles it, as for TUS's
  // offset mismatch, and the finishing PATCH's 409 is then this upload's own.
  const emptied = scripted(8, (n) => n === 1 ? new Response(null, { status: 409 }) : 409);
  const settled = await upload(emptied.fetch, bytes(8)).await();
  assert.ok(settled.ok, settled.ok ? "" : settled.error.message);
  assert.ok(emptied.log.includes("HEAD@-+0"), emptied.log.join(" "));
  // An upload whose last PATCH answered 2xx sends nothing more.
  const clean = scripted(8, () => 204);
  assert.ok((await upload(clean.fetch, bytes(8)).await()).ok);
  assert.deepEqual(clean.log, ["POST@-+0", "PATCH@0+4", "PATCH@4+4"]);
});

const finishes = { calls: 0, ok: 0 };

Deno.test("against @tus/server: a finish hook that fails once still ends in one finished upload", () =>
  withPeer(async (peer) => {
    const data = bytes(300_000);
    const up = createResumableUpload(createBaseClient(peer.url, "anon-key"), "b", "f.bin", data, {
      chunkSize: 100_000,
      ...FAST,
    });
    const r = await up.await();
    assert.ok(r.ok, r.ok ? "" : r.error.message);
    assert.equal(finishes.ok, 1, `finish hook calls: ${finishes.calls}`);
    assert.deepEqual(await peer.bytesOf(up.uploadUrl!), data);
  }, {
    onUploadFinish: () => {
      finishes.calls++;
      if (finishes.calls === 1) {
        return Promise.reject({ status_code: 500, body: "database unavailable" });
      }
      finishes.ok++;
      return Promise.resolve({});
    },
  }));

Deno.test("a stream that gives its declared bytes but never closes fails within the timeout, resumable", async () => {
  const data = bytes(12);
  let sent = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(c) {
      if (!sent) {
        sent = true;
        c.enqueue(data);
        return;
      }
      await new Promise(() => {}); // never closes
    },
  }, { highWaterMark: 0 });
  const s = scripted(12, () => 204);
  const started = Date.now();
  const up = createResumableUpload(
    createBaseClient(BASE, "anon-key", { fetch: s.fetch }),
    "b",
    "s.bin",
    stream,
    { chunkSize: 4, creationWithUpload: false, size: 12, timeout: 200, ...FAST },
  );
  const out = await up.await();
  assert.equal(out.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(out.errorOrNull()!.message, /did not end within 200 ms/);
  assert.ok(Date.now() - started < 5000);
  // The last chunk was held back: the upload can be resumed from its URL with a fresh stream.
  assert.ok(!s.log.includes("PATCH@8+4"), s.log.join(" "));
});

Deno.test("a caller who aborts ends only its own wait: another caller's wait goes on to the end", async () => {
  let release = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const s = scripted(8, () => 204);
  const slow: typeof globalThis.fetch = async (input, init) => {
    if (init?.method === "PATCH") await gate;
    return s.fetch(input, init);
  };
  const up = upload(slow, bytes(8));
  const first = new AbortController();
  const a = up.await({ signal: first.signal });
  const b = up.await();
  await new Promise((r) => setTimeout(r, 10));
  first.abort();
  assert.equal((await a).errorOrNull()?.category, "CANCELLED");
  release();
  const rb = await b;
  assert.ok(rb.ok, rb.ok ? "" : rb.error.message);
  // When every caller has left, the run pauses, and a new await() resumes it.
  const fresh = scripted(8, () => 204);
  const again = upload(fresh.fetch, bytes(8));
  const only = new AbortController();
  only.abort();
  assert.equal((await again.await({ signal: only.signal })).errorOrNull()?.category, "CANCELLED");
  assert.deepEqual(fresh.log, [], "an aborted signal starts nothing");
  assert.ok((await again.await()).ok);
  // An await() arriving while a paused run winds down starts a new run after it, not CANCELLED.
  let open = () => {};
  const held = new Promise<void>((r) => (open = r));
  const third = scripted(8, () => 204);
  const gated: typeof globalThis.fetch = async (input, init) => {
    if (init?.method === "PATCH") await held;
    return third.fetch(input, init);
  };
  const paused = upload(gated, bytes(8));
  const leaving = new AbortController();
  const gone = paused.await({ signal: leaving.signal });
  await new Promise((r) => setTimeout(r, 10));
  leaving.abort();
  const resumed = paused.await();
  open();
  assert.equal((await gone).errorOrNull()?.category, "CANCELLED");
  const after = await resumed;
  assert.ok(after.ok, after.ok ? "" : after.error.message);
  // The callers' listeners are gone once they have their answers.
  const listening = new Set<EventListenerOrEventListenerObject>();
  const spy = new AbortController();
  const { signal } = spy;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((type: string, l: EventListenerOrEventListenerObject, o?: unknown) => {
    listening.add(l);
    add(type, l, o as AddEventListenerOptions);
  }) as typeof signal.addEventListener;
  signal.removeEventListener = ((type: string, l: EventListenerOrEventListenerObject) => {
    listening.delete(l);
    remove(type, l);
  }) as typeof signal.removeEventListener;
  const last = scripted(8, () => 204);
  assert.ok((await upload(last.fetch, bytes(8)).await({ signal })).ok);
  assert.equal(listening.size, 0);
});

Deno.test("the URL store keys data by all of its bytes: the same content resumes, an edit anywhere does not", async () => {
  const saved = new Map<string, string>();
  const store: UploadUrlStore = {
    get: (k) => saved.get(k) ?? null,
    set: (k, v) => void saved.set(k, v),
    remove: (k) => void saved.delete(k),
  };
  const size = 200_000;
  const v1 = new Uint8Array(bytes(size, 1));
  const v2 = new Uint8Array(v1);
  v2[size >> 1] ^= 0xff; // the same head and end, another middle
  // Keys of the same path: bytes, Blobs and Files of each version.
  const keys: string[] = [];
  const capture: UploadUrlStore = {
    get: (k) => (keys.push(k), store.get(k)),
    set: store.set,
    remove: store.remove,
  };
  const never: typeof globalThis.fetch = () => new Promise(() => {});
  for (
    const data of [
      v1,
      v1.slice(),
      v2,
      new Blob([v1]),
      new Blob([v2]),
      new File([v1], "a.bin", { lastModified: 1 }),
      new File([v2], "a.bin", { lastModified: 1 }),
    ]
  ) {
    const up = createResumableUpload(
      createBaseClient(BASE, "anon-key", { fetch: never }),
      "b",
      "same.bin",
      data,
      { urlStore: capture, ...FAST },
    );
    const ctl = new AbortController();
    const run = up.await({ signal: ctl.signal });
    await new Promise((r) => setTimeout(r, 20));
    ctl.abort();
    await run;
  }
  const [bytes1, bytes1Again, bytes2, blob1, blob2, file1, file2] = keys;
  assert.equal(keys.length, 7);
  assert.equal(bytes1, bytes1Again, "the same bytes resume");
  // Content only: a File made anew (its modification time "now") still resumes its upload.
  assert.equal(blob1, bytes1);
  assert.equal(file1, bytes1);
  assert.notEqual(bytes1, bytes2, "bytes differing in the middle");
  assert.notEqual(blob1, blob2, "Blobs differing in the middle");
  assert.notEqual(file1, file2, "Files differing in the middle");
});

Deno.test("a CONFLICT over an object another upload wrote stays one: a retry or a resume from the store is no Success", async () => {
  const saved = new Map<string, string>();
  const store: UploadUrlStore = {
    get: (k) => saved.get(k) ?? null,
    set: (k, v) => void saved.set(k, v),
    remove: (k) => void saved.delete(k),
  };
  const taken = scripted(8, exists);
  const up = upload(taken.fetch, bytes(8), { urlStore: store });
  assert.equal((await up.await()).errorOrNull()?.category, "CONFLICT");
  assert.equal((await up.await()).errorOrNull()?.category, "CONFLICT", "the same handle again");
  assert.equal(saved.size, 0, "the store forgets it: no resume takes the object for its own");
  // Forgotten at the refusal, which ends the run: no HEAD, no PATCH again.
  const takenAgain = scripted(8, exists);
  let heads = 0;
  const counting: typeof globalThis.fetch = (input, init) => {
    if (init?.method === "HEAD") heads++;
    return takenAgain.fetch(input, init);
  };
  const again = await upload(counting, bytes(8), { urlStore: store, maxAttempts: 5 }).await();
  assert.equal(again.errorOrNull()?.category, "CONFLICT");
  assert.equal(heads, 0);
  assert.ok(takenAgain.log.includes("POST@-+0"), "a new upload, saved to the store, then refused");
  assert.equal(saved.size, 0, "forgotten although the run never reached its finish");
  // A 409 that is TUS's offset mismatch (a resent chunk after the first copy landed and the
  // object was made) is not another writer's: the finishing PATCH's 409 is this upload's own.
  const mismatch = scripted(
    8,
    (n) =>
      n === 1
        ? new Response("Current offset does not match Upload-Offset", {
          status: 409,
          headers: { "upload-offset": "8" },
        })
        : 409,
  );
  const own = await upload(mismatch.fetch, bytes(8)).await();
  assert.ok(own.ok, own.ok ? "" : own.error.message);
});

Deno.test("an await() during a paused stream upload's wind-down sends nothing more: the stream was cancelled", async () => {
  let open = () => {};
  const held = new Promise<void>((r) => (open = r));
  const s = scripted(12, () => 204);
  const gated: typeof globalThis.fetch = async (input, init) => {
    if (init?.method === "PATCH") await held;
    return s.fetch(input, init);
  };
  const data = bytes(12);
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(data.slice(0, 4));
      c.enqueue(data.slice(4, 8));
      c.enqueue(data.slice(8));
      c.close();
    },
  });
  const up = createResumableUpload(
    createBaseClient(BASE, "anon-key", { fetch: gated }),
    "b",
    "s.bin",
    stream,
    { chunkSize: 4, creationWithUpload: false, size: 12, ...FAST },
  );
  const leaving = new AbortController();
  const first = up.await({ signal: leaving.signal });
  await new Promise((r) => setTimeout(r, 10));
  leaving.abort();
  const again = up.await();
  open();
  assert.equal((await first).errorOrNull()?.category, "CANCELLED");
  const r = await again;
  assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(r.errorOrNull()!.message, /resume with a fresh stream/);
  const sent = s.log.filter((l) => l.startsWith("PATCH")).length;
  assert.ok(sent <= 1, s.log.join(" "));
});
