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

Deno.test("data that fails while it is sent (a Node stream of a missing file, a generator that throws) is INVALID_ARGUMENT with its reason, sent once", async () => {
  const backend = await createLocalBackend();
  const server = await serve(backend.app.fetch);
  let requests = 0;
  const counted: typeof fetch = (input, init) => {
    requests++;
    return fetch(input, init);
  };
  try {
    const s = createStorageClient(
      createBaseClient(server.url, backend.serviceKey, { fetch: counted }),
    );
    assert.ok((await s.createBucket("n", "n")).ok);
    const missing = `${await Deno.makeTempDir()}/missing.bin`;
    const failing = async function* () {
      yield new Uint8Array(70_000);
      throw new Error("the source broke at 70000");
    };
    const cases: Array<[string, () => AsyncIterable<Uint8Array>, RegExp]> = [
      ["missing file", () => createReadStream(missing), /ENOENT|No such file/i],
      ["throwing generator", failing, /the source broke at 70000/],
    ];
    for (const [name, data, reason] of cases) {
      requests = 0;
      const plain = await s.upload("n", "plain.bin", data());
      assert.equal(plain.errorOrNull()?.category, "INVALID_ARGUMENT", `${name}: ${said(plain)}`);
      assert.match(said(plain), /^Cannot upload as reading 'data' failed: /, name);
      assert.match(said(plain), reason, name);
      assert.equal(requests, 1, `${name}: plain`);
      requests = 0;
      const up = s.createResumableUpload("n", "tus.bin", data(), {
        chunkSize: 64 * 1024,
        retryBaseDelayMs: 1,
      });
      const r = await up.await();
      assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", `${name}: ${said(r)}`);
      assert.match(said(r), /^Cannot upload as reading 'data' failed: /, name);
      assert.match(said(r), reason, name);
      assert.ok(requests <= 1, `${name}: resumable sent ${requests} requests`);
    }
  } finally {
    await server.close();
  }
});

Deno.test("a file Blob fetch cannot read (its file changed: Node's NotReadableError) is INVALID_ARGUMENT, not a retried network error", async () => {
  // Node's fetch reports a Blob it cannot read as "fetch failed", its reason only in its cause;
  // this fetch does the same for a Blob whose reads fail (as a Node file Blob's do once its file
  // changed). Deno's own file Blobs are read at once, so the runtime tests run Node's for real.
  const unreadable = () => new DOMException("The blob could not be read", "NotReadableError");
  class ChangedFile extends Blob {
    override slice(start?: number, end?: number, type?: string): Blob {
      return new ChangedFile([super.slice(start, end, type)]);
    }
    override arrayBuffer(): Promise<ArrayBuffer> {
      return Promise.reject(unreadable());
    }
  }
  let requests = 0;
  const nodeLike: typeof fetch = (_input, init) => {
    requests++;
    return init?.body instanceof ChangedFile
      ? Promise.reject(new TypeError("fetch failed", { cause: unreadable() }))
      : Promise.resolve(jsonResponse({ Key: "b/a.bin" }));
  };
  const client = createBaseClient(BASE, KEY, { fetch: nodeLike });
  const s = createStorageClient(client);
  const plain = await s.upload("b", "a.bin", new ChangedFile([new Uint8Array(10)]));
  assert.equal(plain.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(
    said(plain),
    "Cannot upload as reading 'data' failed: The blob could not be read",
  );
  assert.equal((plain.errorOrNull()?.cause as Error).name, "NotReadableError");
  assert.equal(requests, 1);
  // A network failure of a readable Blob stays NETWORK.
  const down = createStorageClient(createBaseClient(BASE, KEY, {
    fetch: () => Promise.reject(new TypeError("fetch failed")),
  }));
  const network = await down.upload("b", "a.bin", new Blob([new Uint8Array(10)]));
  assert.equal(network.errorOrNull()?.category, "NETWORK");
  requests = 0;
  const r = await createResumableUpload(
    client,
    "b",
    "a.bin",
    new ChangedFile([new Uint8Array(10)]),
    {
      retryBaseDelayMs: 1,
    },
  ).await();
  assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(said(r), "Cannot upload as reading 'data' failed: The blob could not be read");
  assert.equal(requests, 1); // not five POSTs over 5 s of backoff
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
  assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(
    r.errorOrNull()?.message,
    "Cannot upload as reading 'data' failed: Cannot read the data as it yielded a String, not a Uint8Array",
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
  const generator = endless();
  const refused = await refusing.upload("b", "p", generator);
  assert.equal(refused.errorOrNull()?.status, 413);
  await new Promise((r) => setTimeout(r, 10));
  // Never read (nothing is read before fetch asks), it is closed without having started.
  assert.deepEqual(await generator.next(), { value: undefined, done: true });
  assert.equal(closed, false);
  // One the server read from before refusing: closed, its `finally` run.
  const reading = createStorageClient(createBaseClient(BASE, KEY, {
    fetch: async (_input, init) => {
      await (init?.body as ReadableStream<Uint8Array>).getReader().read();
      return jsonResponse({ message: "too large" }, { status: 413 });
    },
  }));
  const again = await reading.upload("b", "p", endless());
  assert.equal(again.errorOrNull()?.status, 413);
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(closed, true);
  // A Node stream the upload never read is destroyed (its file closed).
  const file = await Deno.makeTempFile();
  await Deno.writeFile(file, new Uint8Array(10));
  const stream = createReadStream(file);
  const third = await refusing.upload("b", "p", stream);
  assert.equal(third.errorOrNull()?.status, 413);
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(stream.destroyed, true);
  await Deno.remove(file);
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

Deno.test("a resumable upload created and not awaited reads nothing of a Node stream or generator", async () => {
  const pulled: string[] = [];
  const iterable: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]() {
      pulled.push("iterator taken");
      return {
        next() {
          pulled.push("next");
          return Promise.resolve({ value: new Uint8Array(1), done: false });
        },
      };
    },
  };
  const client = createBaseClient(BASE, KEY, { fetch: () => Promise.reject(new Error("sent")) });
  createResumableUpload(client, "b", "p", iterable, { chunkSize: 1024 });
  // A Node file stream: the handle a server builds from a request and then decides not to send.
  const file = await Deno.makeTempFile();
  await Deno.writeFile(file, new Uint8Array(200_000));
  const stream = createReadStream(file);
  createResumableUpload(client, "b", "q", stream, { chunkSize: 1024 * 1024 });
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(pulled, []);
  assert.equal(stream.bytesRead, 0);
  stream.destroy();
  await Deno.remove(file);
});

Deno.test("a plain upload refused for its options leaves its data unread: an iterable untaken, a stream unlocked", async () => {
  const rec = recordingFetch(() => jsonResponse({ Key: "b/p" }));
  const s = createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  let started = false;
  async function* gen() {
    started = true;
    yield new Uint8Array(1);
  }
  // deno-lint-ignore no-explicit-any
  const metadata = new Map() as any;
  const r = await s.upload("b", "p", gen(), { metadata });
  assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  const signed = await s.uploadToSignedUrl("b", "p", "token", gen(), { metadata });
  assert.equal(signed.errorOrNull()?.category, "INVALID_ARGUMENT");
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(started, false);
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new Uint8Array([7]));
      c.close();
    },
  });
  const refused = await s.update("b", "p", stream, { cacheControl: -1 });
  assert.equal(refused.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(stream.locked, false);
  assert.equal(rec.requests.length, 0);
});

function said(r: { ok: boolean; error?: { message: string } }): string {
  return r.ok ? "ok" : r.error!.message;
}
