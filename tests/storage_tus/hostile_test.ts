// Resumable uploads against hostile or faulty servers and sources: lengths
// that disagree, streams longer than declared, resumes from a fresh stream,
// stalls, timeouts and second callers.
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createResumableUpload, type UploadUrlStore } from "../../storage/mod.ts";
import { type RecordedRequest, recordingFetch } from "../support/recording_fetch.ts";
import { byteStream } from "../support/byte_stream.ts";
import { fingerprintOf } from "./_tus_script.ts";

const BASE = "https://project.example.com";
const KEY = "anon-key-0123456789";
const SAVED = `${BASE}/storage/v1/upload/resumable/saved`;

function seq(n: number): Uint8Array {
  return new Uint8Array(n).map((_, i) => (i * 7 + 1) & 0xff);
}

function streamOf(data: Uint8Array, piece: number): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (i >= data.length) return c.close();
      c.enqueue(data.slice(i, i + piece));
      i += piece;
    },
  }, { highWaterMark: 0 });
}

const streamKinds = [["stream", streamOf], ["byte stream", byteStream]] as const;

/** A TUS server holding `state`; `hook` may answer a request first. */
function server(
  state: { offset: number; length: string | null },
  hook: (req: RecordedRequest) => Response | null = () => null,
) {
  return recordingFetch((req) => {
    const hooked = hook(req);
    if (hooked) return hooked;
    if (req.method === "HEAD") {
      const headers: Record<string, string> = { "upload-offset": String(state.offset) };
      if (state.length !== null) headers["upload-length"] = state.length;
      return new Response(null, { headers });
    }
    if (req.method === "POST") {
      state.length = req.headers.get("upload-length");
      state.offset = req.bytes?.length ?? 0;
      return new Response(null, {
        status: 201,
        headers: { location: SAVED, "upload-offset": String(state.offset) },
      });
    }
    state.offset += req.bytes?.length ?? 0;
    return new Response(null, { status: 204, headers: { "upload-offset": String(state.offset) } });
  });
}

const patches = (rec: { requests: RecordedRequest[] }) =>
  rec.requests.filter((r) => r.method === "PATCH").map((r) => [
    Number(r.headers.get("upload-offset")),
    r.bytes?.length ?? 0,
  ]);

Deno.test("resuming with data of another length than the saved upload is a CONFLICT", async () => {
  const rec = server({ offset: 4, length: "100" });
  const r = await createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: rec.fetch }),
    "b",
    "p",
    seq(10),
    { uploadUrl: SAVED },
  ).await();
  assert.equal(r.errorOrNull()?.category, "CONFLICT");
  assert.match(r.errorOrNull()!.message, /100 bytes long and the data is 10/);
  assert.equal(patches(rec).length, 0);
  // A longer saved upload whose offset is past this data's end: the same CONFLICT, not a DECODE
  // blaming the server's offset.
  const past = server({ offset: 12, length: "100" });
  const longer = await createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: past.fetch }),
    "b",
    "p",
    seq(10),
    { uploadUrl: SAVED },
  ).await();
  assert.equal(longer.errorOrNull()?.category, "CONFLICT");
  assert.match(longer.errorOrNull()!.message, /100 bytes long and the data is 10/);
});

Deno.test("a key holding a lone surrogate is refused at creation, as upload refuses it (its metadata named another key)", () => {
  assert.throws(
    () => createResumableUpload(createBaseClient(BASE, KEY), "b", "photo\ud800.png", seq(4)),
    { name: "TypeError", message: /lone UTF-16 surrogate/ },
  );
});

Deno.test("a stream longer than its declared size fails before its last bytes are sent", async () => {
  for (const [kind, make] of streamKinds) {
    for (const [size, chunkSize] of [[10, 4], [10, 100], [0, 4]]) {
      const rec = server({ offset: 0, length: null });
      const r = await createResumableUpload(
        createBaseClient(BASE, KEY, { fetch: rec.fetch }),
        "b",
        "p",
        make(seq(20), 3),
        { size, chunkSize },
      ).await();
      assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", `${kind}, size ${size}`);
      assert.match(r.errorOrNull()!.message, /longer than its declared size/);
      const sent = rec.requests.reduce((n, q) => n + (q.bytes?.length ?? 0), 0);
      assert.ok(sent < size || size === 0 && sent === 0, `never all ${size} bytes (sent ${sent})`);
    }
  }
});

Deno.test("size and timeout options are validated at once", () => {
  const client = createBaseClient(BASE, KEY);
  for (const size of [-1, 1.5, NaN]) {
    assert.throws(
      () => createResumableUpload(client, "b", "p", streamOf(seq(1), 1), { size }),
      RangeError,
    );
  }
  assert.throws(() => createResumableUpload(client, "b", "p", seq(1), { timeout: -1 }), RangeError);
});

Deno.test("a new handle with the saved URL resumes a stream from the server's offset, skipping what it has", async () => {
  for (const [kind, make] of streamKinds) {
    const data = seq(10);
    const state = { offset: 6, length: "10" };
    const rec = server(state);
    const r = await createResumableUpload(
      createBaseClient(BASE, KEY, { fetch: rec.fetch }),
      "b",
      "p",
      make(data, 4),
      { uploadUrl: SAVED, size: 10, chunkSize: 4 },
    ).await();
    assert.ok(r.ok, `${kind}: ${r.ok ? "" : r.error.message}`);
    assert.deepEqual(patches(rec), [[6, 4]], kind);
    assert.deepEqual([...rec.requests.at(-1)!.bytes!], [...data.subarray(6)], kind);
  }
});

Deno.test("the first HEAD of a resume backs off on 423/429/503 (Retry-After honoured)", async () => {
  for (const status of [423, 429, 503]) {
    let heads = 0;
    const rec = server({ offset: 2, length: "4" }, (req) => {
      if (req.method === "HEAD" && heads++ === 0) {
        return new Response(null, { status, headers: { "retry-after": "0" } });
      }
      return null;
    });
    const r = await createResumableUpload(
      createBaseClient(BASE, KEY, { fetch: rec.fetch }),
      "b",
      "p",
      seq(4),
      { uploadUrl: SAVED, retryBaseDelayMs: 1 },
    ).await();
    assert.ok(r.ok, `${status}: ${r.ok ? "" : r.error.message}`);
    assert.deepEqual(patches(rec), [[2, 2]]);
  }
});

Deno.test("409 answers back off instead of looping", async () => {
  const rec = server(
    { offset: 0, length: null },
    (req) => req.method === "PATCH" ? new Response("offset", { status: 409 }) : null,
  );
  const started = Date.now();
  const r = await createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: rec.fetch }),
    "b",
    "p",
    seq(8),
    { chunkSize: 4, creationWithUpload: false, retryBaseDelayMs: 20, maxAttempts: 4 },
  ).await();
  assert.equal(r.errorOrNull()?.status, 409);
  // Three backoffs of at least 10, 20 and 40 ms (equal jitter halves each).
  assert.ok(Date.now() - started >= 65, `took ${Date.now() - started} ms`); // 70, less the clock's truncation
});

Deno.test("a PATCH that never answers times out and is retried after a HEAD", async () => {
  let stalled = true;
  const rec = server({ offset: 0, length: null }, (req) => {
    if (req.method === "PATCH" && stalled) {
      stalled = false;
      return new Promise<Response>((_, reject) =>
        req.signal?.addEventListener("abort", () => reject(req.signal!.reason))
      ) as unknown as Response;
    }
    return null;
  });
  const r = await createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: rec.fetch }),
    "b",
    "p",
    seq(8),
    { chunkSize: 4, creationWithUpload: false, timeout: 50, retryBaseDelayMs: 1 },
  ).await();
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.deepEqual(rec.requests.map((q) => q.method), ["POST", "PATCH", "HEAD", "PATCH", "PATCH"]);
});

Deno.test("an abort while the source stream stalls pauses at once; the stream is released", async () => {
  let cancelled = false;
  const stalled = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(seq(4));
    },
    cancel() {
      cancelled = true;
    },
  });
  const rec = server({ offset: 0, length: null });
  const ac = new AbortController();
  const up = createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: rec.fetch }),
    "b",
    "p",
    stalled,
    { chunkSize: 4 },
  );
  const pending = up.await({ signal: ac.signal });
  setTimeout(() => ac.abort(), 30);
  const r = await pending;
  assert.equal(r.errorOrNull()?.category, "CANCELLED");
  assert.ok(cancelled, "the source stream was cancelled");
});

Deno.test("a second caller's signal ends only its own wait", async () => {
  const rec = server({ offset: 0, length: null });
  const up = createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: rec.fetch }),
    "b",
    "p",
    seq(12),
    { chunkSize: 4 },
  );
  const first = up.await();
  const ac = new AbortController();
  ac.abort();
  const second = await up.await({ signal: ac.signal });
  assert.equal(second.errorOrNull()?.category, "CANCELLED");
  assert.ok((await first).ok);
});

Deno.test("a dead saved URL is forgotten by the URL store, for streams too", async () => {
  const saved = new Map([[await fingerprintOf(BASE, "b", "p", seq(3), "stream"), SAVED]]);
  const store: UploadUrlStore = {
    get: (k) => saved.get(k),
    set: (k, v) => void saved.set(k, v),
    remove: (k) => void saved.delete(k),
  };
  let gone = true;
  const rec = server({ offset: 0, length: null }, (req) => {
    if (req.method === "HEAD" && gone) {
      gone = false;
      return new Response(null, { status: 404 });
    }
    return null;
  });
  const r = await createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: rec.fetch }),
    "b",
    "p",
    streamOf(seq(3), 3),
    { urlStore: store },
  ).await();
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.equal(saved.size, 0, "forgotten when dead, and the new one when done");
  assert.deepEqual(rec.requests.map((q) => q.method), ["HEAD", "POST"]);
});

Deno.test("data that is not bytes, a Blob or a stream is a TypeError at once, with no request", () => {
  const rec = recordingFetch();
  const client = createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch });
  for (const bad of ["hello", null, undefined, { length: 3 }, [1, 2, 3]]) {
    assert.throws(
      () => createResumableUpload(client, "b", "p.bin", bad as never),
      (e: unknown) => e instanceof TypeError && e.message.includes("'data' must be bytes, a Blob"),
      String(bad),
    );
  }
  assert.equal(rec.requests.length, 0);
  // Bytes of any kind (an ArrayBuffer too, as `upload` takes), a Blob and a byte stream are taken.
  createResumableUpload(client, "b", "p.bin", new ArrayBuffer(4));
  createResumableUpload(client, "b", "p.bin", new Blob(["x"]));
  createResumableUpload(client, "b", "p.bin", new Blob(["x"]).stream());
});

Deno.test("a URL store without WebCrypto to key it is a TypeError at creation", () => {
  const store: UploadUrlStore = { get: () => null, set: () => {}, remove: () => {} };
  const client = createBaseClient(BASE, "anon-key-123456", { fetch: recordingFetch().fetch });
  const real = Object.getOwnPropertyDescriptor(globalThis, "crypto")!;
  Object.defineProperty(globalThis, "crypto", { value: undefined, configurable: true });
  try {
    assert.throws(
      () => createResumableUpload(client, "b", "p", new Uint8Array(1), { urlStore: store }),
      { name: "TypeError", message: /'urlStore' as WebCrypto \(crypto.subtle\) is missing/ },
    );
    // Without a store nothing needs it.
    createResumableUpload(client, "b", "p", new Uint8Array(1));
  } finally {
    Object.defineProperty(globalThis, "crypto", real);
  }
});
