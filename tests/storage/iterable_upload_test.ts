// Uploads take an async iterable of bytes as a stream: a Node stream (a file's read stream, an
// HTTP request's body, which an Express server proxies on) or an async generator. They were
// refused as "an object"; supabase's storage-js takes a Node stream.
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { createReadStream } from "node:fs";
import { createBaseClient } from "../../core/client.ts";
import { createResumableUpload, createStorageClient } from "../../storage/mod.ts";
import { createLocalBackend } from "../../demo/local_backend/mod.ts";
import { serve } from "../support/serve.ts";
import { jsonResponse, recordingFetch } from "../support/recording_fetch.ts";
import { bytes, withPeer } from "../storage_tus/_tus_peer.ts";

const BASE = "https://project.example.com";
const KEY = "anon-key-0123456789";

async function* pieces(...texts: string[]): AsyncGenerator<Uint8Array> {
  for (const t of texts) yield new TextEncoder().encode(t);
}

Deno.test("a plain upload sends an async generator of bytes as a stream body", async () => {
  const rec = recordingFetch(() => jsonResponse({ Key: "b/p" }));
  const s = createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  for (
    const r of [
      await s.upload("b", "p", pieces("he", "llo")),
      await s.update("b", "p", pieces("he", "llo")),
      await s.uploadToSignedUrl("b", "p", "token", pieces("he", "llo")),
    ]
  ) assert.equal(r.ok ? "ok" : r.error.message, "ok");
  assert.deepEqual(rec.requests.map((q) => [q.text, q.streamed, q.duplex]), [
    ["hello", true, "half"],
    ["hello", true, "half"],
    ["hello", true, "half"],
  ]);
});

Deno.test("Node streams upload to the local backend: a file's read stream and Readable.from, plainly and resumably", async () => {
  const backend = await createLocalBackend();
  const server = await serve(backend.app.fetch);
  const file = await Deno.makeTempFile();
  try {
    const data = bytes(200_000);
    await Deno.writeFile(file, data);
    const s = createStorageClient(createBaseClient(server.url, backend.serviceKey));
    assert.ok((await s.createBucket("n", "n")).ok);
    assert.equal(said(await s.upload("n", "file.bin", createReadStream(file))), "ok");
    assert.deepEqual((await s.downloadBytes("n", "file.bin")).getOrThrow(), data);
    const parts = [data.subarray(0, 1000), data.subarray(1000)];
    assert.equal(said(await s.upload("n", "from.bin", Readable.from(parts))), "ok");
    assert.deepEqual((await s.downloadBytes("n", "from.bin")).getOrThrow(), data);
    const up = s.createResumableUpload("n", "tus.bin", createReadStream(file), {
      chunkSize: 64 * 1024,
    });
    assert.equal(said(await up.await()), "ok");
    assert.deepEqual((await s.downloadBytes("n", "tus.bin")).getOrThrow(), data);
  } finally {
    await server.close();
    await Deno.remove(file);
  }
});

Deno.test("a resumable upload reads an async generator as a stream, to a real TUS peer", async () => {
  await withPeer(async (peer) => {
    const data = bytes(3 * 4096 + 5);
    async function* gen() {
      for (let i = 0; i < data.length; i += 1000) yield data.slice(i, i + 1000);
    }
    const up = createResumableUpload(createBaseClient(peer.url, KEY), "b", "g.bin", gen(), {
      chunkSize: 4096,
    });
    assert.equal(said(await up.await()), "ok");
    assert.deepEqual(await peer.bytesOf(up.uploadUrl!), data);
  });
});

Deno.test("an iterable that yields other than bytes fails the upload, and a failed call closes the iterable", async () => {
  const rec = recordingFetch(() => jsonResponse({ Key: "b/p" }));
  const s = createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  async function* text() {
    yield "not bytes";
  }
  const r = await s.upload("b", "p", text() as unknown as AsyncIterable<Uint8Array>);
  assert.equal(r.errorOrNull()?.category, "NETWORK");
  assert.equal(
    r.errorOrNull()?.message,
    "Network error: Cannot read the data as it yielded a String, not a Uint8Array",
  );

  // A server that refuses the upload before reading it all: the call fails and the generator is
  // closed (its `finally` runs), not left suspended.
  let closed = false;
  async function* endless() {
    try {
      while (true) yield new Uint8Array(1024);
    } finally {
      closed = true;
    }
  }
  const refusing = createStorageClient(createBaseClient(BASE, KEY, {
    fetch: () => Promise.resolve(jsonResponse({ message: "too large" }, { status: 413 })),
  }));
  const refused = await refusing.upload("b", "p", endless());
  assert.equal(refused.errorOrNull()?.status, 413);
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(closed, true);
});

Deno.test("a resumable upload refused at creation leaves the iterable untouched", async () => {
  let started = false;
  async function* gen() {
    started = true;
    yield new Uint8Array(1);
  }
  const g = gen();
  assert.throws(
    () => createResumableUpload(createBaseClient(BASE, KEY), "b", "p", g, { chunkSize: 0 }),
    RangeError,
  );
  assert.equal(started, false);
  assert.deepEqual(await g.next(), { value: new Uint8Array(1), done: false });
});

function said(r: { ok: boolean; error?: { message: string } }): string {
  return r.ok ? "ok" : r.error!.message;
}
