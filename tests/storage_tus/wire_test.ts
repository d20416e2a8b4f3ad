import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { decodeBase64, utf8Decode } from "../../core/encoding.ts";
import {
  createResumableUpload,
  createStorageClient,
  parseUploadOffset,
  RESUMABLE_DEFAULT_CHUNK_SIZE,
  uploadResumable,
  type UploadUrlStore,
} from "../../storage/mod.ts";
import { createLocalBackend } from "../../demo/local_backend/mod.ts";
import { type RecordedRequest, recordingFetch } from "../support/recording_fetch.ts";
import { serve } from "../support/serve.ts";

const BASE = "https://project.example.com";
const KEY = "anon-key-0123456789";

/** A scripted TUS server: POST creates, PATCH advances, HEAD reports. */
function tusScript(
  opts: { location?: string; onPatch?: (req: RecordedRequest, n: number) => Response | null } = {},
) {
  let offset = 0;
  let patches = 0;
  return (req: RecordedRequest) => {
    if (req.method === "POST") {
      return new Response(null, {
        status: 201,
        headers: { location: opts.location ?? `${BASE}/storage/v1/upload/resumable/id1` },
      });
    }
    if (req.method === "HEAD") {
      return new Response(null, { status: 200, headers: { "upload-offset": String(offset) } });
    }
    patches++;
    const injected = opts.onPatch?.(req, patches);
    if (injected) return injected;
    offset += req.bytes?.length ?? 0;
    return new Response(null, { status: 204, headers: { "upload-offset": String(offset) } });
  };
}

Deno.test("creation speaks the storage dialect: Tus-Resumable, Upload-Length, Base64 Upload-Metadata, x-upsert, bearer", async () => {
  const rec = recordingFetch(tusScript());
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch, accessToken: "user-token-1" });
  const up = createResumableUpload(client, "videos", "/a/intro.mp4", new Uint8Array(10), {
    contentType: "video/mp4",
    cacheControl: 3600,
    upsert: true,
    metadata: { owner: "me" },
    chunkSize: 4,
  });
  assert.equal(rec.requests.length, 0, "no I/O before await");
  assert.ok((await up.await()).ok);
  const post = rec.requests[0];
  assert.equal(post.method, "POST");
  assert.equal(post.url.href, `${BASE}/storage/v1/upload/resumable`);
  assert.equal(post.headers.get("tus-resumable"), "1.0.0");
  assert.equal(post.headers.get("upload-length"), "10");
  assert.equal(post.headers.get("x-upsert"), "true");
  assert.equal(post.headers.get("authorization"), "Bearer user-token-1");
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
  const patches = rec.requests.filter((r) => r.method === "PATCH");
  assert.deepEqual(patches.map((p) => [p.headers.get("upload-offset"), p.bytes!.length]), [
    ["0", 4],
    ["4", 4],
    ["8", 2],
  ]);
  assert.equal(patches[0].headers.get("content-type"), "application/offset+octet-stream");
  assert.equal(up.uploadUrl, `${BASE}/storage/v1/upload/resumable/id1`);
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
});

Deno.test("a Location on another origin never receives the API key or the bearer token", async () => {
  const rec = recordingFetch(tusScript({ location: "https://uploads.other.example/files/abc" }));
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch, accessToken: "user-token-1" });
  assert.ok((await createResumableUpload(client, "b", "p", new Uint8Array(3)).await()).ok);
  const patch = rec.requests.find((r) => r.method === "PATCH")!;
  assert.equal(patch.url.origin, "https://uploads.other.example");
  assert.equal(patch.headers.get("authorization"), null);
  assert.equal(patch.headers.get("apikey"), null);
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
    (await createResumableUpload(client, "b", "p", new Uint8Array(4), { chunkSize: 2 }).await()).ok,
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
  ).await();
  assert.match(r2.errorOrNull()!.message, /moved Upload-Offset/);
});

Deno.test("a server that never advances gets backoff then a clear failure, not a tight loop", async () => {
  const rec = recordingFetch(
    tusScript({
      onPatch: () => new Response(null, { status: 204, headers: { "upload-offset": "0" } }),
    }),
  );
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch });
  const r = await createResumableUpload(client, "b", "p", new Uint8Array(4), {
    maxAttempts: 3,
    retryBaseDelayMs: 1,
  }).await();
  assert.match(r.errorOrNull()!.message, /did not advance/);
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
    new Uint8Array(4),
    {
      retryBaseDelayMs: 1,
    },
  ).await();
  assert.ok(ok.ok, ok.ok ? "" : ok.error.message);
});

Deno.test("404/410 for a saved URL restarts re-readable data and fails clearly for a one-shot stream", async () => {
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
  assert.deepEqual(a.requests.map((x) => x.method), ["HEAD", "POST", "PATCH"]);
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
  assert.equal(s.errorOrNull()?.category, "NOT_FOUND");
  assert.match(s.errorOrNull()!.message, /one-shot stream/);
});

Deno.test("the URL store remembers an interrupted upload by fingerprint and forgets it when done", async () => {
  const saved = new Map<string, string>();
  const store: UploadUrlStore = {
    get: (k) => saved.get(k),
    set: (k, v) => void saved.set(k, v),
    remove: (k) => void saved.delete(k),
  };
  const rec = recordingFetch(
    tusScript({ onPatch: (_r, n) => (n === 2 ? new Response("nope", { status: 400 }) : null) }),
  );
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch });
  const first = await createResumableUpload(client, "b", "p", new Uint8Array(4), {
    chunkSize: 2,
    urlStore: store,
  }).await();
  assert.equal(first.ok, false);
  assert.equal(saved.get("b/p:4"), `${BASE}/storage/v1/upload/resumable/id1`);
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
