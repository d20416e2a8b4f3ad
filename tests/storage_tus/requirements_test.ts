/**
 * Requirements of the interface document that no other test pins down: a
 * resumable upload given no `chunkSize` cuts its data into chunks of
 * `RESUMABLE_DEFAULT_CHUNK_SIZE` (6 MiB), the last holding the rest.
 */
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import {
  createResumableUpload,
  createStorageClient,
  RESUMABLE_DEFAULT_CHUNK_SIZE,
  uploadResumable,
} from "../../storage/mod.ts";
import { type RecordedRequest, recordingFetch } from "../support/recording_fetch.ts";
import { BASE, KEY, tusScript } from "./_tus_script.ts";

const MiB = 1024 * 1024;

/** The shared script, refusing a PATCH at any offset but the server's (409). */
const tusServer = () =>
  recordingFetch(tusScript({
    onPatch: (req, _n, state) =>
      Number(req.headers.get("upload-offset")) !== state.offset
        ? new Response(null, { status: 409 })
        : null,
  }));

/** `n` bytes that differ from one offset to the next. */
function seq(n: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 7 + (i >> 8) + 1) & 0xff;
  return out;
}

/** Each body-carrying request as [method, Upload-Offset, body length]. */
function bodies(requests: RecordedRequest[]): Array<[string, string | null, number]> {
  return requests.filter((r) => r.bytes !== null && r.bytes.length > 0).map((r) => [
    r.method,
    r.headers.get("upload-offset"),
    r.bytes!.length,
  ]);
}

/** Whether the request bodies, placed at their offsets, rebuild `data` exactly. */
function sameBytes(requests: RecordedRequest[], data: Uint8Array): boolean {
  const out = new Uint8Array(data.length);
  let covered = 0;
  for (const r of requests) {
    if (!r.bytes || r.bytes.length === 0) continue;
    const at = r.method === "POST" ? 0 : Number(r.headers.get("upload-offset"));
    if (at + r.bytes.length > out.length) return false;
    out.set(r.bytes, at);
    covered += r.bytes.length;
  }
  if (covered !== data.length) return false;
  for (let i = 0; i < data.length; i++) if (out[i] !== data[i]) return false;
  return true;
}

const SIZE = 6 * MiB + 1;

Deno.test("the default chunk size is 6 MiB: 6 MiB + 1 byte go as a 6 MiB chunk, then 1 byte", async () => {
  assert.equal(RESUMABLE_DEFAULT_CHUNK_SIZE, 6 * MiB);
  const data = seq(SIZE);

  // Creation without a body: every chunk goes by PATCH.
  const rec = tusServer();
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch });
  const up = createResumableUpload(client, "videos", "big.bin", data, {
    creationWithUpload: false,
  });
  const r = await up.await();
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.deepEqual(rec.requests.map((x) => x.method), ["POST", "PATCH", "PATCH"]);
  assert.equal(rec.requests[0].headers.get("upload-length"), String(SIZE));
  const patches = rec.requests.filter((x) => x.method === "PATCH");
  assert.equal(patches[0].bytes?.length, 6 * MiB);
  assert.equal(patches[0].headers.get("upload-offset"), "0");
  assert.equal(patches[1].bytes?.length, 1);
  assert.equal(patches[1].headers.get("upload-offset"), String(6 * MiB));
  assert.ok(sameBytes(rec.requests, data), "the server received the data byte for byte");
  assert.deepEqual(up.progress.value, {
    bytesUploaded: SIZE,
    totalBytes: SIZE,
    fraction: 1,
    isComplete: true,
  });

  // The default creation-with-upload: the POST carries the first 6 MiB chunk.
  const rec2 = tusServer();
  const r2 = await createResumableUpload(
    createBaseClient(BASE, KEY, { fetch: rec2.fetch }),
    "videos",
    "big.bin",
    data,
  ).await();
  assert.ok(r2.ok, r2.ok ? "" : r2.error.message);
  assert.deepEqual(bodies(rec2.requests), [["POST", null, 6 * MiB], [
    "PATCH",
    String(6 * MiB),
    1,
  ]]);
  assert.ok(sameBytes(rec2.requests, data));
});

Deno.test("the default chunk size holds for a Blob and a stream of unknown length through the storage client", async () => {
  const data = seq(SIZE);

  const rec = tusServer();
  const storage = createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  const r = await uploadResumable(storage, "videos", "blob.bin", new Blob([data]), {
    creationWithUpload: false,
  });
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.deepEqual(bodies(rec.requests), [["PATCH", "0", 6 * MiB], ["PATCH", String(6 * MiB), 1]]);
  assert.ok(sameBytes(rec.requests, data));

  // A stream in 1 MiB pieces: chunks are still cut at 6 MiB, not at the pieces.
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (i >= data.length) return c.close();
      const part = data.slice(i, i + MiB);
      i += part.length;
      c.enqueue(part);
    },
  }, { highWaterMark: 0 });
  const rec2 = tusServer();
  const storage2 = createStorageClient(createBaseClient(BASE, KEY, { fetch: rec2.fetch }));
  const r2 = await uploadResumable(storage2, "videos", "stream.bin", stream, {
    creationWithUpload: false,
  });
  assert.ok(r2.ok, r2.ok ? "" : r2.error.message);
  assert.deepEqual(bodies(rec2.requests), [["PATCH", "0", 6 * MiB], [
    "PATCH",
    String(6 * MiB),
    1,
  ]]);
  assert.ok(sameBytes(rec2.requests, data));
});

Deno.test("uploadResumable always starts a new upload: an uploadUrl given from JavaScript is not resumed", async () => {
  const data = seq(10);
  const rec = tusServer();
  const storage = createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  const old = `${BASE}/storage/v1/upload/resumable/OLD`;
  const r = await uploadResumable(storage, "videos", "new.bin", data, { uploadUrl: old } as never);
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.equal(rec.requests[0].method, "POST");
  assert.equal(rec.requests[0].url.pathname, "/storage/v1/upload/resumable");
  assert.ok(rec.requests.every((q) => !q.url.pathname.endsWith("/OLD")));
  assert.ok(sameBytes(rec.requests, data));
});
