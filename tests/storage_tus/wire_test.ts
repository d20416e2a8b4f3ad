import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { decodeBase64, utf8Decode } from "../../core/encoding.ts";
import {
  createResumableUpload,
  createStorageClient,
  parseUploadOffset,
  RESUMABLE_DEFAULT_CHUNK_SIZE,
  type ResumableData,
  uploadResumable,
  type UploadUrlStore,
} from "../../storage/mod.ts";
import { streamsChunksByDefault } from "../../storage/_chunk_body.ts";
import { createLocalBackend } from "../../demo/local_backend/mod.ts";
import { type RecordedRequest, recordingFetch } from "../support/recording_fetch.ts";
import { BASE, fingerprintOf, KEY, tusScript } from "./_tus_script.ts";
import { serve } from "../support/serve.ts";
import { byteStream } from "../support/byte_stream.ts";

/** `n` distinct bytes. */
function seq(n: number): Uint8Array {
  return new Uint8Array(n).map((_, i) => (i * 7 + 1) & 0xff);
}

/** A one-shot stream of `data` in pieces of `piece` bytes, pulled only on demand. */
function oneShot(data: Uint8Array, piece: number, pulled = { bytes: 0 }) {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (i >= data.length) return c.close();
      const part = data.slice(i, i + piece);
      i += part.length;
      pulled.bytes = i;
      c.enqueue(part);
    },
  }, { highWaterMark: 0 });
}

/** The bytes the script received, POST bodies and PATCH bodies at their offsets. */
function received(requests: RecordedRequest[]): Uint8Array {
  const parts: Array<[number, Uint8Array]> = [];
  for (const r of requests) {
    if (r.method === "POST" && r.bytes) parts.push([0, r.bytes]);
    if (r.method === "PATCH" && r.bytes) {
      parts.push([Number(r.headers.get("upload-offset")), r.bytes]);
    }
  }
  const size = Math.max(0, ...parts.map(([o, b]) => o + b.length));
  const out = new Uint8Array(size);
  for (const [o, b] of parts) out.set(b, o);
  return out;
}

const patchesOf = (requests: RecordedRequest[]) =>
  requests.filter((r) => r.method === "PATCH").map((p) => [
    p.headers.get("upload-offset"),
    p.bytes?.length ?? 0,
  ]);

Deno.test("creation speaks the storage dialect: Tus-Resumable, Upload-Length, Base64 Upload-Metadata, x-upsert, bearer; the POST carries the first chunk", async () => {
  const rec = recordingFetch(tusScript());
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch, accessToken: "user-token-1" });
  const data = seq(10);
  const up = createResumableUpload(client, "videos", "/a/intro.mp4", data, {
    contentType: "video/mp4",
    cacheControl: 3600,
    upsert: true,
    metadata: { owner: "me" },
    chunkSize: 4,
  });
  assert.equal(rec.requests.length, 0, "no I/O before await");
  assert.ok((await up.await()).ok);
  assert.deepEqual(rec.requests.map((r) => r.method), ["POST", "PATCH", "PATCH"]);
  const post = rec.requests[0];
  assert.equal(post.url.href, `${BASE}/storage/v1/upload/resumable`);
  assert.equal(post.headers.get("tus-resumable"), "1.0.0");
  assert.equal(post.headers.get("upload-length"), "10");
  assert.equal(post.headers.get("upload-defer-length"), null);
  assert.equal(post.headers.get("x-upsert"), "true");
  assert.equal(post.headers.get("authorization"), "Bearer user-token-1");
  assert.equal(post.headers.get("content-type"), "application/offset+octet-stream");
  assert.deepEqual(post.bytes, data.slice(0, 4), "the first chunk, byte for byte");
  const meta = Object.fromEntries(
    post.headers.get("upload-metadata")!.split(",").map((p) => p.split(" ")).map((
      [k, v],
    ) => [k, utf8Decode(decodeBase64(v))]),
  );
  assert.deepEqual(meta, {
    bucketName: "videos",
    objectName: "a/intro.mp4",
    contentType: "video/mp4",
    cacheControl: "3600",
    metadata: '{"owner":"me"}',
  });
  assert.deepEqual(patchesOf(rec.requests), [["4", 4], ["8", 2]]);
  const patches = rec.requests.filter((r) => r.method === "PATCH");
  assert.equal(patches[0].headers.get("content-type"), "application/offset+octet-stream");
  // The Storage API reads x-upsert on every PATCH (it checks the object and completes it there).
  assert.deepEqual(patches.map((p) => p.headers.get("x-upsert")), ["true", "true"]);
  assert.deepEqual(patches[0].bytes, data.slice(4, 8));
  assert.deepEqual(patches[1].bytes, data.slice(8));
  assert.deepEqual(received(rec.requests), data);
  assert.equal(up.uploadUrl, `${BASE}/storage/v1/upload/resumable/id1`);
});

Deno.test("creationWithUpload: false keeps the empty POST, then PATCHes of chunkSize from 0", async () => {
  const rec = recordingFetch(tusScript());
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch });
  const data = seq(10);
  const r = await createResumableUpload(client, "b", "p", data, {
    chunkSize: 4,
    creationWithUpload: false,
  }).await();
  assert.ok(r.ok);
  assert.deepEqual(rec.requests.map((x) => x.method), ["POST", "PATCH", "PATCH", "PATCH"]);
  const post = rec.requests[0];
  assert.equal(post.bytes, null);
  assert.equal(post.headers.get("content-type"), null);
  assert.equal(post.headers.get("upload-length"), "10");
  assert.deepEqual(patchesOf(rec.requests), [["0", 4], ["4", 4], ["8", 2]]);
  assert.deepEqual(received(rec.requests), data);
  // upsert defaults to false, on the POST and on every PATCH alike.
  assert.deepEqual(rec.requests.map((x) => x.headers.get("x-upsert")), [
    "false",
    "false",
    "false",
    "false",
  ]);
  // Uploads follow no redirect: fetch hands a 3xx back (tests/storage_tus/redirect_test.ts).
  assert.deepEqual(rec.requests.map((x) => x.redirect), ["manual", "manual", "manual", "manual"]);
});

Deno.test("streamChunks: chunks of bytes go as one-piece streams with their Content-Length; a Blob as slices; default true only on Node", async () => {
  const shape = (requests: RecordedRequest[]) =>
    requests.map((x) => [x.method, x.streamed, x.duplex, x.headers.get("content-length")]);
  const data = seq(10);
  const sources: Array<[string, () => ResumableData, number | undefined]> = [
    ["bytes", () => data, undefined],
    ["stream", () => oneShot(data, 3), 10],
  ];
  for (const [label, make, size] of sources) {
    const rec = recordingFetch(tusScript());
    const client = createBaseClient(BASE, KEY, { fetch: rec.fetch });
    const r = await createResumableUpload(client, "b", "p", make(), {
      chunkSize: 4,
      streamChunks: true,
      size,
    }).await();
    assert.ok(r.ok, label);
    assert.deepEqual(shape(rec.requests), [
      ["POST", true, "half", "4"],
      ["PATCH", true, "half", "4"],
      ["PATCH", true, "half", "2"],
    ], label);
    assert.deepEqual(received(rec.requests), data, label);
  }
  for (
    const [label, input, streamChunks] of [
      ["bytes, streamChunks: false", data, false],
      ["Blob, streamChunks: true", new Blob([data as Uint8Array<ArrayBuffer>]), true],
      // Deno's user agent: the default is bytes.
      ["bytes, default in Deno", data, undefined],
    ] as const
  ) {
    const rec = recordingFetch(tusScript());
    const client = createBaseClient(BASE, KEY, { fetch: rec.fetch });
    const r = await createResumableUpload(client, "b", "p", input, { chunkSize: 4, streamChunks })
      .await();
    assert.ok(r.ok, label);
    assert.deepEqual(
      shape(rec.requests),
      [["POST", false, undefined, null], ["PATCH", false, undefined, null], [
        "PATCH",
        false,
        undefined,
        null,
      ]],
      label,
    );
    assert.deepEqual(received(rec.requests), data, label);
  }
  assert.equal(streamsChunksByDefault(undefined), true, "Node before 21 has no navigator");
  assert.equal(streamsChunksByDefault("Node.js/22"), true);
  for (
    const ua of [
      "Deno/2.5.0",
      "Bun/1.2.0",
      "Cloudflare-Workers",
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0",
    ]
  ) {
    assert.equal(streamsChunksByDefault(ua), false, ua);
  }
});

Deno.test("a server that ignores the creation body (no Upload-Offset) gets every byte by PATCH from 0", async () => {
  const rec = recordingFetch(tusScript({ ignorePostBody: true }));
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch });
  const data = seq(10);
  assert.ok((await createResumableUpload(client, "b", "p", data, { chunkSize: 4 }).await()).ok);
  assert.deepEqual(rec.requests[0].bytes, data.slice(0, 4));
  assert.deepEqual(patchesOf(rec.requests), [["0", 4], ["4", 4], ["8", 2]]);
  assert.deepEqual(rec.requests.at(-1)!.bytes, data.slice(8));
  // A small stream: its length, known after the first read, is declared once, in the POST.
  const small = recordingFetch(tusScript({ ignorePostBody: true }));
  const up = createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: small.fetch }),
    "b",
    "p",
    oneShot(data.slice(0, 3), 2),
  );
  assert.ok((await up.await()).ok);
  assert.deepEqual(small.requests.map((x) => x.method), ["POST", "PATCH"]);
  assert.equal(small.requests[0].headers.get("upload-length"), "3");
  assert.equal(small.requests[1].headers.get("upload-length"), null);
  assert.deepEqual(small.requests[1].bytes, data.slice(0, 3));
  assert.equal(up.progress.value.isComplete, true);
});

Deno.test("a stream of unknown length that fits in one chunk uploads in ONE POST with Upload-Length", async () => {
  const rec = recordingFetch(tusScript());
  const data = seq(5);
  const up = createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: rec.fetch }),
    "b",
    "p",
    oneShot(data, 2),
    { chunkSize: 8 },
  );
  assert.ok((await up.await()).ok);
  const post = rec.only;
  assert.equal(post.method, "POST");
  assert.equal(post.headers.get("upload-length"), "5");
  assert.equal(post.headers.get("upload-defer-length"), null);
  assert.deepEqual(post.bytes, data);
  assert.deepEqual({ ...up.progress.value }, {
    bytesUploaded: 5,
    totalBytes: 5,
    fraction: 1,
    isComplete: true,
  });
  // Longer than a chunk: deferred length, declared by the PATCH that ends the stream.
  const long = recordingFetch(tusScript());
  const more = seq(10);
  assert.ok(
    (await createResumableUpload(
      createBaseClient(BASE, KEY, { fetch: long.fetch }),
      "b",
      "p",
      oneShot(more, 3),
      { chunkSize: 4 },
    ).await()).ok,
  );
  assert.equal(long.requests[0].headers.get("upload-defer-length"), "1");
  assert.equal(long.requests[0].headers.get("upload-length"), null);
  assert.deepEqual(patchesOf(long.requests), [["4", 4], ["8", 2]]);
  assert.deepEqual(
    long.requests.slice(1).map((p) => p.headers.get("upload-length")),
    [null, "10"],
  );
  assert.deepEqual(received(long.requests), more);
});

Deno.test("an empty upload is one POST with Upload-Length: 0 and no body, from every input type", async () => {
  const inputs = [
    new Uint8Array(0),
    new Blob([]),
    oneShot(new Uint8Array(0), 1),
  ];
  for (const data of inputs) {
    const rec = recordingFetch(tusScript());
    const up = createResumableUpload(
      createBaseClient(BASE, KEY, { fetch: rec.fetch }),
      "b",
      "e",
      data,
    );
    const r = await up.await();
    assert.ok(r.ok, r.ok ? "" : r.error.message);
    const post = rec.only;
    assert.equal(post.method, "POST");
    assert.equal(post.headers.get("upload-length"), "0");
    assert.equal(post.headers.get("upload-defer-length"), null);
    assert.equal(post.bytes, null);
    assert.equal(post.headers.get("content-type"), null);
    assert.equal(up.progress.value.bytesUploaded, 0);
    assert.ok(up.uploadUrl);
  }
});

Deno.test("a POST failing transiently (network, 500, 429) is retried with backoff and re-sends the same first chunk", async () => {
  for (const one of [true, false]) {
    const rec = recordingFetch(tusScript({
      onPost: (_r, n) => {
        if (n === 1) throw new TypeError("connection reset");
        if (n === 2) return new Response("boom", { status: 500 });
        if (n === 3) return new Response(null, { status: 429, headers: { "retry-after": "0" } });
        return null;
      },
    }));
    const data = seq(10);
    const r = await createResumableUpload(
      createBaseClient(BASE, KEY, { fetch: rec.fetch }),
      "b",
      "p",
      one ? oneShot(data, 3) : data,
      { chunkSize: 4, retryBaseDelayMs: 1, size: 10 },
    ).await();
    assert.ok(r.ok, r.ok ? "" : r.error.message);
    const posts = rec.requests.filter((x) => x.method === "POST");
    assert.equal(posts.length, 4);
    for (const p of posts) assert.deepEqual(p.bytes, data.slice(0, 4));
    assert.deepEqual(patchesOf(rec.requests), [["4", 4], ["8", 2]]);
    assert.deepEqual(received(rec.requests), data);
  }
  // Not transient (409: the object exists) or out of attempts: the failure is returned.
  const dup = recordingFetch(tusScript({ onPost: () => new Response("dup", { status: 409 }) }));
  const d = await createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: dup.fetch }),
    "b",
    "p",
    seq(3),
    { retryBaseDelayMs: 1 },
  ).await();
  assert.equal(d.errorOrNull()?.status, 409);
  assert.equal(dup.requests.length, 1);
  const down = recordingFetch(tusScript({ onPost: () => new Response("down", { status: 503 }) }));
  const f = await createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: down.fetch }),
    "b",
    "p",
    seq(3),
    { retryBaseDelayMs: 1, maxAttempts: 2 },
  ).await();
  assert.equal(f.errorOrNull()?.status, 503);
  assert.equal(down.requests.length, 2);
});

Deno.test("read-ahead: the next chunk is read while a request is in flight, never more than one chunk ahead", async () => {
  const pulled = { bytes: 0 };
  const ahead: number[] = [];
  const script = tusScript();
  const rec = recordingFetch(async (req) => {
    await new Promise((r) => setTimeout(r, 5));
    const start = Number(req.headers.get("upload-offset") ?? 0);
    ahead.push(pulled.bytes - start - (req.bytes?.length ?? 0));
    return script(req);
  });
  const data = seq(20);
  const r = await createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: rec.fetch }),
    "b",
    "p",
    oneShot(data, 4, pulled),
    { chunkSize: 4, size: 20 },
  ).await();
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.deepEqual(rec.requests.map((x) => x.method), ["POST", "PATCH", "PATCH", "PATCH", "PATCH"]);
  // Bytes read beyond the request in flight: one chunk, none after the last.
  assert.deepEqual(ahead, [4, 4, 4, 4, 0]);
  assert.deepEqual(received(rec.requests), data);
});

Deno.test("a re-sync into the chunk in flight re-sends from a one-shot stream's kept chunks (default and byte streams); further back fails clearly", async () => {
  for (const makeStream of [oneShot, byteStream]) {
    const data = seq(14);
    // The server keeps half of the PATCH at 4, then fails: HEAD says 6.
    const partial = recordingFetch(tusScript({
      onPatch: (req, n, s) => {
        if (n !== 1) return null;
        s.offset += (req.bytes?.length ?? 0) / 2;
        return new Response("dropped", { status: 502 });
      },
    }));
    const r = await createResumableUpload(
      createBaseClient(BASE, KEY, { fetch: partial.fetch }),
      "b",
      "p",
      makeStream(data, 3),
      { chunkSize: 4, retryBaseDelayMs: 1 },
    ).await();
    assert.ok(r.ok, r.ok ? "" : r.error.message);
    assert.deepEqual(partial.requests.map((x) => x.method), [
      "POST",
      "PATCH",
      "HEAD",
      "PATCH",
      "PATCH",
    ]);
    // From 6 the kept bytes are topped up from the stream: every chunk but the last is whole.
    assert.deepEqual(patchesOf(partial.requests), [["4", 4], ["6", 4], ["10", 4]]);
    assert.equal(partial.requests.at(-1)!.headers.get("upload-length"), "14");
    assert.deepEqual(received(partial.requests), data);
    // A 409 re-syncs to the start of the chunk in flight: sent again from memory.
    const conflict = recordingFetch(tusScript({
      onPatch: (_r, n) => (n === 1 ? new Response("offset", { status: 409 }) : null),
    }));
    const c = await createResumableUpload(
      createBaseClient(BASE, KEY, { fetch: conflict.fetch }),
      "b",
      "p",
      makeStream(data, 5),
      { chunkSize: 4, size: 14 },
    ).await();
    assert.ok(c.ok, c.ok ? "" : c.error.message);
    assert.deepEqual(patchesOf(conflict.requests), [["4", 4], ["4", 4], ["8", 4], ["12", 2]]);
    assert.deepEqual(received(conflict.requests), data);
    // The server lost an accepted chunk (its offset went back): never re-sent, a clear failure.
    const lost = () =>
      tusScript({
        onPatch: (_r, n, s) => {
          if (n !== 1) return null;
          s.offset = 0;
          return new Response("lost", { status: 500 });
        },
      });
    for (
      const source of [() => new Blob([data as Uint8Array<ArrayBuffer>]), () => makeStream(data, 4)]
    ) {
      const rec = recordingFetch(lost());
      const r = await createResumableUpload(
        createBaseClient(BASE, KEY, { fetch: rec.fetch }),
        "b",
        "p",
        source(),
        { chunkSize: 4, retryBaseDelayMs: 1, size: 14 },
      ).await();
      assert.equal(r.errorOrNull()?.category, "DECODE");
      assert.match(r.errorOrNull()!.message, /moved Upload-Offset back from 4 to 0/);
      assert.deepEqual(patchesOf(rec.requests), [["4", 4]], "no byte sent twice");
    }
    // Further back than the kept chunks, a one-shot stream fails clearly.
    const far = recordingFetch(tusScript({
      onPatch: (_r, n, s) => {
        if (n !== 1) return null;
        s.offset = 0;
        return new Response("offset", { status: 409 });
      },
    }));
    const f = await createResumableUpload(
      createBaseClient(BASE, KEY, { fetch: far.fetch }),
      "b",
      "p",
      makeStream(data, 4),
      { chunkSize: 4, retryBaseDelayMs: 1, size: 14 },
    ).await();
    assert.equal(f.ok, false);
  }
});

Deno.test("a deferred length the server already took (HEAD shows Upload-Length) is not declared twice", async () => {
  const data = seq(10);
  // The PATCH declaring the length fails after the server took the length and one byte.
  const rec = recordingFetch(tusScript({
    onPatch: (req, n, s) => {
      if (n !== 2) return null;
      s.length = req.headers.get("upload-length");
      s.offset += 1;
      return new Response("boom", { status: 500 });
    },
  }));
  const up = createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: rec.fetch }),
    "b",
    "p",
    oneShot(data, 3),
    { chunkSize: 4, retryBaseDelayMs: 1 },
  );
  const r = await up.await();
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.deepEqual(
    rec.requests.map((
      x,
    ) => [x.method, x.headers.get("upload-offset"), x.headers.get("upload-length")]),
    [
      ["POST", null, null],
      ["PATCH", "4", null],
      ["PATCH", "8", "10"],
      ["HEAD", null, null],
      ["PATCH", "9", null],
    ],
  );
  assert.deepEqual(received(rec.requests), data);
  assert.equal(up.progress.value.totalBytes, 10);
});

Deno.test("a stream shorter than its declared size fails clearly instead of retrying empty PATCHes", async () => {
  const rec = recordingFetch(tusScript());
  const r = await createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: rec.fetch }),
    "b",
    "p",
    oneShot(seq(6), 4),
    { chunkSize: 4, size: 10 },
  ).await();
  assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(r.errorOrNull()!.message, /ended at byte 6: its declared size is 10/);
  assert.deepEqual(rec.requests.map((x) => x.method), ["POST", "PATCH"]);
});

Deno.test("chunkSize must be a positive integer (RangeError at once); default is 6 MiB", () => {
  const client = createBaseClient(BASE, KEY);
  for (const bad of [0, -1, 1.5, NaN]) {
    assert.throws(
      () => createResumableUpload(client, "b", "p", new Uint8Array(1), { chunkSize: bad }),
      RangeError,
    );
  }
  assert.throws(() => createResumableUpload(client, "b", "a/../b", new Uint8Array(1)), TypeError);
  assert.equal(RESUMABLE_DEFAULT_CHUNK_SIZE, 6 * 1024 * 1024);
  // uploadResumable, which the document's Limit names too, throws the same way.
  const storage = createStorageClient(client);
  for (const bad of [0, -1]) {
    assert.throws(
      () => uploadResumable(storage, "b", "p", new Uint8Array(1), { chunkSize: bad }),
      RangeError,
    );
  }
});

Deno.test("uploadResumable resolves a Failure for every other refused argument, as upload does; nothing is sent", async () => {
  const rec = recordingFetch(tusScript({}));
  const storage = createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  const cases: Array<[() => Promise<unknown>, RegExp]> = [
    [() => uploadResumable(storage, "", "p", new Uint8Array(1)), /bucket/i],
    [() => uploadResumable(storage, "b", "a/../b", new Uint8Array(1)), /path|segment/i],
    [() => uploadResumable(storage, "b", "p", "text" as never), /'data' must be/],
    [() => uploadResumable(storage, "b", "p", new Uint8Array(1), { timeout: -1 }), /'timeout'/],
    [
      () => uploadResumable(storage, "b", "p", new Uint8Array(1), { maxAttempts: 0 }),
      /'maxAttempts'/,
    ],
  ];
  for (const [call, message] of cases) {
    let r: unknown;
    try {
      r = await call();
    } catch (e) {
      assert.fail(`threw ${e}`);
    }
    const e = (r as { errorOrNull(): { category: string; message: string } | null }).errorOrNull();
    assert.equal(e?.category, "INVALID_ARGUMENT");
    assert.match(e!.message, message);
  }
  assert.equal(rec.requests.length, 0);
});

Deno.test("a Location on another origin never receives the API key or the bearer token", async () => {
  const rec = recordingFetch(tusScript({ location: "https://uploads.other.example/files/abc" }));
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch, accessToken: "user-token-1" });
  assert.ok(
    (await createResumableUpload(client, "b", "p", new Uint8Array(3), { chunkSize: 1 }).await()).ok,
  );
  assert.equal(rec.requests[0].headers.get("authorization"), "Bearer user-token-1");
  const patches = rec.requests.filter((r) => r.method === "PATCH");
  assert.equal(patches.length, 2);
  for (const patch of patches) {
    assert.equal(patch.url.origin, "https://uploads.other.example");
    assert.equal(patch.headers.get("authorization"), null);
    assert.equal(patch.headers.get("apikey"), null);
  }
});

Deno.test("each request reads the client's current token (an upload outlives a refresh)", async () => {
  const holder: { client?: ReturnType<typeof createBaseClient> } = {};
  const rec = recordingFetch(tusScript({
    onPatch: (_r, n) => {
      if (n === 1) holder.client!.setAccessToken("token-after-refresh");
      return null;
    },
  }));
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch, accessToken: "token-before" });
  holder.client = client;
  assert.ok(
    (await createResumableUpload(client, "b", "p", new Uint8Array(6), { chunkSize: 2 }).await()).ok,
  );
  const auths = rec.requests.filter((r) => r.method === "PATCH").map((r) =>
    r.headers.get("authorization")
  );
  assert.deepEqual(auths, ["Bearer token-before", "Bearer token-after-refresh"]);
});

Deno.test("Upload-Offset is parsed strictly; backwards or past-the-chunk offsets fail clearly", async () => {
  assert.equal(parseUploadOffset("12"), 12);
  for (const bad of ["-1", "1e3", "", "12abc", null, "0x10"]) {
    assert.equal(parseUploadOffset(bad as string | null), null);
  }
  const garbage = recordingFetch(
    tusScript({
      onPatch: () => new Response(null, { status: 204, headers: { "upload-offset": "lots" } }),
    }),
  );
  const r1 = await createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: garbage.fetch }),
    "b",
    "p",
    new Uint8Array(4),
    { chunkSize: 2 },
  ).await();
  assert.equal(r1.errorOrNull()?.category, "DECODE");
  const past = recordingFetch(
    tusScript({
      onPatch: () => new Response(null, { status: 204, headers: { "upload-offset": "99" } }),
    }),
  );
  const r2 = await createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: past.fetch }),
    "b",
    "p",
    new Uint8Array(4),
    { chunkSize: 2 },
  ).await();
  assert.match(r2.errorOrNull()!.message, /moved Upload-Offset/);
  // The same rules for the offset a creation-with-upload POST answers.
  for (const bad of ["lots", "-1", "3"]) {
    const rec = recordingFetch(tusScript({
      onPost: () =>
        new Response(null, {
          status: 201,
          headers: { location: `${BASE}/storage/v1/upload/resumable/x`, "upload-offset": bad },
        }),
    }));
    const r = await createResumableUpload(
      createBaseClient(BASE, KEY, { fetch: rec.fetch }),
      "b",
      "p",
      new Uint8Array(4),
      { chunkSize: 2 },
    ).await();
    assert.equal(r.errorOrNull()?.category, "DECODE", bad);
    assert.match(r.errorOrNull()!.message, /invalid Upload-Offset on creation/);
    assert.equal(rec.requests.length, 1);
  }
});

Deno.test("a server that never advances gets backoff then a clear failure, not a tight loop", async () => {
  const rec = recordingFetch(
    tusScript({
      onPatch: (_r, _n, s) =>
        new Response(null, { status: 204, headers: { "upload-offset": String(s.offset) } }),
    }),
  );
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch });
  const r = await createResumableUpload(client, "b", "p", new Uint8Array(4), {
    chunkSize: 2,
    maxAttempts: 3,
    retryBaseDelayMs: 1,
  }).await();
  assert.match(r.errorOrNull()!.message, /did not advance the upload past byte 2/);
  assert.equal(rec.requests.filter((x) => x.method === "PATCH").length, 3);
});

Deno.test("4xx other than 409/423/429 fails without retry; 423 and 429 back off and continue", async () => {
  const forbidden = recordingFetch(
    tusScript({ onPatch: () => new Response('{"message":"no"}', { status: 403 }) }),
  );
  const r = await createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: forbidden.fetch }),
    "b",
    "p",
    new Uint8Array(4),
    { chunkSize: 2 },
  ).await();
  assert.equal(r.errorOrNull()?.status, 403);
  assert.equal(forbidden.requests.filter((x) => x.method === "PATCH").length, 1);
  const busy = recordingFetch(tusScript({
    onPatch: (_r, n) =>
      n === 1
        ? new Response(null, { status: 423 })
        : n === 2
        ? new Response(null, { status: 429, headers: { "retry-after": "0" } })
        : null,
  }));
  const ok = await createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: busy.fetch }),
    "b",
    "p",
    new Uint8Array(6),
    { chunkSize: 2, retryBaseDelayMs: 1 },
  ).await();
  assert.ok(ok.ok, ok.ok ? "" : ok.error.message);
  assert.deepEqual(busy.requests.map((x) => x.method), [
    "POST",
    "PATCH",
    "HEAD",
    "PATCH",
    "HEAD",
    "PATCH",
    "PATCH",
  ]);
});

Deno.test("404/410 for a saved URL restarts re-readable data and a stream not read yet", async () => {
  const gone = () => {
    const base = tusScript();
    let first = true;
    return (req: RecordedRequest) => {
      if (req.method === "HEAD" && first) {
        first = false;
        return new Response(null, { status: 410 });
      }
      return base(req);
    };
  };
  const a = recordingFetch(gone());
  const saved = `${BASE}/storage/v1/upload/resumable/old`;
  const r = await createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: a.fetch }),
    "b",
    "p",
    new Blob(["abcd"]),
    { uploadUrl: saved },
  ).await();
  assert.ok(r.ok);
  assert.deepEqual(a.requests.map((x) => x.method), ["HEAD", "POST"]);
  assert.equal(utf8Decode(a.requests[1].bytes!), "abcd");
  const b = recordingFetch(gone());
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => (c.enqueue(new Uint8Array([1])), c.close()),
  });
  const s = await createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: b.fetch }),
    "b",
    "p",
    stream,
    { uploadUrl: saved, size: 1 },
  ).await();
  assert.ok(s.ok, s.ok ? "" : s.error.message);
  assert.deepEqual(b.requests.map((x) => x.method), ["HEAD", "POST"]);
  assert.deepEqual([...b.requests[1].bytes!], [1]);
});

Deno.test("the URL store remembers an interrupted upload by fingerprint and forgets it when done", async () => {
  const saved = new Map<string, string>();
  const store: UploadUrlStore = {
    get: (k) => saved.get(k),
    set: (k, v) => void saved.set(k, v),
    remove: (k) => void saved.delete(k),
  };
  const rec = recordingFetch(
    tusScript({ onPatch: (_r, n) => (n === 1 ? new Response("nope", { status: 400 }) : null) }),
  );
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch });
  const first = await createResumableUpload(client, "b", "p", new Uint8Array(4), {
    chunkSize: 2,
    urlStore: store,
  }).await();
  assert.equal(first.ok, false);
  assert.deepEqual([...saved], [[
    await fingerprintOf(BASE, "b", "p", new Uint8Array(4)),
    `${BASE}/storage/v1/upload/resumable/id1`,
  ]]);
  const second = await createResumableUpload(client, "b", "p", new Uint8Array(4), {
    chunkSize: 2,
    urlStore: store,
  }).await();
  assert.ok(second.ok);
  assert.equal(
    rec.requests.filter((x) => x.method === "POST").length,
    1,
    "resumed without creating again",
  );
  assert.equal(saved.size, 0);
});

Deno.test("progress: fraction and isComplete as the document defines them", async () => {
  const rec = recordingFetch(tusScript());
  const up = createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: rec.fetch }),
    "b",
    "p",
    new Uint8Array(8),
    { chunkSize: 4 },
  );
  assert.deepEqual({ ...up.progress.value }, {
    bytesUploaded: 0,
    totalBytes: 8,
    fraction: 0,
    isComplete: false,
  });
  const fractions: number[] = [];
  up.progress.subscribe((p) => fractions.push(p.fraction));
  await up.await();
  assert.deepEqual(fractions, [0, 0.5, 1]);
  assert.equal(up.progress.value.isComplete, true);
  const empty = createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: rec.fetch }),
    "b",
    "e",
    new Uint8Array(0),
  );
  assert.equal(empty.progress.value.fraction, 0);
  assert.equal(empty.progress.value.isComplete, false);
});

Deno.test("uploadResumable runs to completion through the storage client, against the local backend", async () => {
  const backend = await createLocalBackend();
  await using server = await serve(backend.app.fetch);
  const client = createBaseClient(server.url, backend.apiKey);
  const s = (await client.request({
    method: "POST",
    area: "auth",
    path: "/signup",
    json: { email: "t@x.io", password: "secret" },
  }))
    .getOrThrow().body as { access_token: string };
  client.setAccessToken(s.access_token);
  const storage = createStorageClient(client);
  await storage.createBucket("media", "media");
  const data = new Uint8Array(100_000).map((_, i) => i % 251);
  const r = await uploadResumable(storage, "media", "clip.bin", data, {
    chunkSize: 16 * 1024,
    metadata: { k: 1 },
    contentType: "application/x-clip",
  });
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.deepEqual((await storage.downloadBytes("media", "clip.bin")).getOrThrow(), data);
  const info = (await storage.info("media", "clip.bin")).getOrThrow();
  assert.equal(info.contentType, "application/x-clip");
  assert.deepEqual(info.metadata, { k: 1 });
  const dup = await uploadResumable(storage, "media", "clip.bin", data);
  assert.equal(dup.errorOrNull()?.status, 409);
});

Deno.test("a Blob's own type is the upload's content type unless one is given, as for upload", async () => {
  const contentTypeOf = async (data: ResumableData, contentType?: string) => {
    const rec = recordingFetch(tusScript());
    const client = createBaseClient(BASE, KEY, { fetch: rec.fetch });
    const up = createResumableUpload(
      client,
      "b",
      "p",
      data,
      contentType === undefined ? {} : { contentType },
    );
    assert.ok((await up.await()).ok);
    const meta = rec.requests[0].headers.get("upload-metadata")!.split(",")
      .map((p) => p.split(" ")).find(([k]) => k === "contentType")!;
    return utf8Decode(decodeBase64(meta[1]));
  };
  const jpeg = new Blob([new Uint8Array(3)], { type: "image/jpeg" });
  assert.equal(await contentTypeOf(jpeg), "image/jpeg");
  assert.equal(await contentTypeOf(jpeg, "image/png"), "image/png");
  assert.equal(await contentTypeOf(new Blob([new Uint8Array(3)])), "application/octet-stream");
  assert.equal(await contentTypeOf(new Uint8Array(3)), "application/octet-stream");
  // An empty type is none, as `upload` reads it: the server would store the object without one
  // (and skip the bucket's allowed-types check).
  assert.equal(await contentTypeOf(jpeg, ""), "image/jpeg");
  assert.equal(await contentTypeOf(new Uint8Array(3), ""), "application/octet-stream");
});

Deno.test("a paused upload resumes from the local backend's offset: one HEAD, no second creation", async () => {
  const backend = await createLocalBackend();
  const methods: string[] = [];
  const client = createBaseClient("http://local.test", backend.apiKey, {
    fetch: (input, init) => {
      const req = new Request(input, init);
      if (new URL(req.url).pathname.includes("/upload/resumable")) methods.push(req.method);
      return Promise.resolve(backend.app.fetch(req));
    },
  });
  const s = (await client.request({
    method: "POST",
    area: "auth",
    path: "/signup",
    json: { email: "r@x.io", password: "secret" },
  })).getOrThrow().body as { access_token: string };
  client.setAccessToken(s.access_token);
  const storage = createStorageClient(client);
  await storage.createBucket("media", "media");
  const data = new Uint8Array(100).map((_, i) => i);
  const pause = new AbortController();
  const first = createResumableUpload(client, "media", "r.bin", data, { chunkSize: 10 });
  first.progress.subscribe((p) => {
    if (p.bytesUploaded >= 30) pause.abort();
  });
  assert.equal((await first.await({ signal: pause.signal })).errorOrNull()?.category, "CANCELLED");
  methods.length = 0;
  const resumed = createResumableUpload(client, "media", "r.bin", data, {
    chunkSize: 10,
    uploadUrl: first.uploadUrl,
  });
  assert.ok((await resumed.await()).ok);
  assert.equal(methods[0], "HEAD");
  assert.ok(!methods.includes("POST"), methods.join());
  assert.equal(methods.filter((m) => m === "PATCH").length, 7, "bytes 30..100 only");
  assert.deepEqual((await storage.downloadBytes("media", "r.bin")).getOrThrow(), data);
});

Deno.test("a resume finding every byte on the server but its length deferred declares the length in an empty PATCH", async () => {
  const rec = recordingFetch((req) => {
    if (req.method === "HEAD") {
      // A deferred-length upload holding all 6 bytes: no Upload-Length yet.
      return new Response(null, { headers: { "upload-offset": "6", "upload-defer-length": "1" } });
    }
    return new Response(null, {
      status: 204,
      headers: { "upload-offset": req.headers.get("upload-offset")! },
    });
  });
  const up = createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: rec.fetch }),
    "b",
    "p",
    new Uint8Array(6),
    { uploadUrl: `${BASE}/storage/v1/upload/resumable/id9` },
  );
  const r = await up.await();
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.deepEqual(rec.requests.map((q) => q.method), ["HEAD", "PATCH"]);
  const patch = rec.requests[1].headers;
  assert.equal(patch.get("upload-offset"), "6");
  assert.equal(patch.get("upload-length"), "6");
  assert.equal(rec.requests[1].bytes?.length ?? 0, 0);
  assert.equal(up.progress.value.isComplete, true);
});

Deno.test("an Upload-Offset the answers hide (a browser, the header not exposed by CORS) fails saying so", async () => {
  // The server takes the creation's body and checks each PATCH's offset, but the client never
  // sees Upload-Offset: the creation looks like one without data, the PATCH at 0 gets 409, and
  // the HEAD that follows has no offset to give.
  const script = tusScript({
    onPatch: (req, _n, state) =>
      req.headers.get("upload-offset") === String(state.offset)
        ? null
        : new Response("Upload-Offset header does not match", { status: 409 }),
  });
  const hiding = recordingFetch((req, i) => {
    const res = script(req, i);
    const headers = new Headers(res.headers);
    headers.delete("upload-offset");
    return new Response(res.body, { status: res.status, headers });
  });
  const r = await createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: hiding.fetch }),
    "b",
    "p",
    new Uint8Array(4),
    { chunkSize: 2, maxAttempts: 2, retryBaseDelayMs: 1, retryMaxDelayMs: 1 },
  ).await();
  assert.equal(r.errorOrNull()?.category, "DECODE");
  assert.match(r.errorOrNull()!.message, /no Upload-Offset .*Access-Control-Expose-Headers/);
  assert.deepEqual(hiding.requests.map((q) => q.method), ["POST", "PATCH", "HEAD"]);
  // A PATCH answered without it fails the same way.
  const patchHidden = recordingFetch(tusScript({
    ignorePostBody: true,
    onPatch: () => new Response(null, { status: 204 }),
  }));
  const p = await createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: patchHidden.fetch }),
    "b",
    "p",
    new Uint8Array(4),
    { chunkSize: 2 },
  ).await();
  assert.equal(p.errorOrNull()?.category, "DECODE");
  assert.match(p.errorOrNull()!.message, /no Upload-Offset .*Access-Control-Expose-Headers/);
  // A present but malformed one still says what it was.
  const bad = recordingFetch(tusScript({
    ignorePostBody: true,
    onPatch: () => new Response(null, { status: 204, headers: { "upload-offset": "2x" } }),
  }));
  const b = await createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: bad.fetch }),
    "b",
    "p",
    new Uint8Array(4),
    { chunkSize: 2 },
  ).await();
  assert.match(b.errorOrNull()!.message, /invalid Upload-Offset: 2x/);
});
