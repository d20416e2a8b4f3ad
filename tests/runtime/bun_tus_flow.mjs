// @ts-nocheck -- runs against a built package in Bun, not type-checked by Deno
// Resumable (TUS) uploads and stream up/downloads from Bun, with the npm build installed by name
// (tests/runtime/node_test.ts runs it with `bun test`). The TUS peer is @tus/server with
// @tus/file-store, started inside Bun itself (its node:http server) on loopback, and every upload
// is compared byte for byte with the file the peer wrote.
import test from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { truncateSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Server } from "@tus/server";
import { FileStore } from "@tus/file-store";
import { createBaseClient } from "fetchbase/core";
import { createResumableUpload } from "fetchbase/storage";
import { downloadBytes, downloadStream, update, upload } from "fetchbase/storage/objects";

assert.ok(typeof Bun === "object" && navigator.userAgent.startsWith("Bun/"), "runs in Bun");

const CHUNK = 64 * 1024;
const KEY = "anon-key-123456";

/** `n` pseudo-random bytes (xorshift): a chunk sent at the wrong offset shows. */
function bytes(n, seed = 0x9e3779b9) {
  const b = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
}

/** A default stream of `b` in pieces of `piece` bytes, recording its cancellation. */
function defaultStream(b, piece = 777, events = []) {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i >= b.length) return c.close();
      c.enqueue(b.slice(i, i + piece));
      i += piece;
    },
    cancel: () => void events.push("cancelled"),
  });
}

/**
 * A byte stream (`type: "bytes"`) of `b`, filling the reader's views; counts BYOB pulls and
 * records its cancellation.
 */
function byteStream(b, piece = 5000, pulls = { byob: 0 }, events = []) {
  let i = 0;
  return new ReadableStream({
    type: "bytes",
    cancel: () => void events.push("cancelled"),
    pull(c) {
      const req = c.byobRequest;
      if (i >= b.length) {
        c.close();
        req?.respond(0);
        return;
      }
      if (!req?.view) {
        c.enqueue(b.slice(i, i + piece));
        i += piece;
        return;
      }
      pulls.byob++;
      const n = Math.min(piece, req.view.byteLength, b.length - i);
      new Uint8Array(req.view.buffer, req.view.byteOffset, n).set(b.subarray(i, i + n));
      i += n;
      req.respond(n);
    },
  });
}

/**
 * A TUS peer inside Bun: @tus/server and @tus/file-store behind node:http on loopback, at the
 * Storage API's path. It logs every request's framing (a `Content-Length` or chunked), the
 * metadata of every upload created, and lets `hold` delay a request before the peer sees it.
 */
async function tusPeer() {
  const dir = await mkdtemp(join(tmpdir(), "fetchbase-bun-tus-"));
  const log = [];
  const created = [];
  const peer = {
    hold: null,
    log,
    created,
    dir,
    bytesOf: async (location) =>
      new Uint8Array(await readFile(join(dir, location.split("/").pop()))),
  };
  const tus = new Server({
    path: "/storage/v1/upload/resumable",
    datastore: new FileStore({ directory: dir }),
    onUploadCreate: (req, upload) => {
      created.push({ upsert: req.headers.get("x-upsert"), metadata: upload.metadata });
      return {};
    },
  });
  const http = createServer(async (req, res) => {
    log.push({
      method: req.method,
      offset: req.headers["upload-offset"] ?? null,
      length: req.headers["content-length"] ?? null,
      chunked: /chunked/i.test(req.headers["transfer-encoding"] ?? ""),
      type: req.headers["content-type"] ?? null,
    });
    await peer.hold?.(req);
    tus.handle(req, res);
  });
  await new Promise((r) => http.listen(0, "127.0.0.1", r));
  peer.url = `http://127.0.0.1:${http.address().port}`;
  peer.close = async () => {
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
    await rm(dir, { recursive: true, force: true });
  };
  return peer;
}

/** A URL store over a Map. */
function mapStore() {
  const saved = new Map();
  return {
    saved,
    store: {
      get: (k) => saved.get(k),
      set: (k, v) => void saved.set(k, v),
      remove: (k) => void saved.delete(k),
    },
  };
}

/**
 * The inputs a resumable upload takes, each made from `data` (`file` holds the same bytes); the
 * streams made here count their BYOB pulls in `pulls` and record a cancellation in `events`.
 */
function inputs(data, file, pulls = { byob: 0 }, events = []) {
  return [
    ["bytes", () => data, {}],
    ["Blob", () => new Blob([data]), {}],
    ["Bun.file()", () => Bun.file(file), {}],
    ["default stream of unknown length", () => defaultStream(data, 777, events), {}],
    ["default stream with size", () => defaultStream(data, 777, events), { size: data.length }],
    ["byte stream of unknown length", () => byteStream(data, 5000, pulls, events), {}],
    [
      "byte stream with size",
      () => byteStream(data, 5000, pulls, events),
      { size: data.length },
    ],
    ["Bun.file().stream()", () => Bun.file(file).stream(), {}],
    ["a Blob's stream", () => new Blob([data]).stream(), {}],
  ];
}

test("resumable uploads from Bun reach a real TUS peer byte for byte: bytes, Blobs (Bun.file too), default and byte streams, of known and unknown length, streamChunks true and false", async () => {
  const peer = await tusPeer();
  try {
    const client = createBaseClient(peer.url, KEY);
    const pulls = { byob: 0 };
    for (const size of [0, 1, CHUNK * 3 + 123]) {
      const data = bytes(size, size + 1);
      const file = join(peer.dir, `source-${size}.bin`);
      await writeFile(file, data);
      // The chunks the peer gets: the creation's, then one PATCH per further chunk.
      const sizes = [];
      for (let at = 0; at < size || at === 0; at += CHUNK) sizes.push(Math.min(CHUNK, size - at));
      for (const [input, make, extra] of inputs(data, file, pulls)) {
        for (const streamChunks of [false, true]) {
          const label = `${input} of ${size} bytes, streamChunks: ${streamChunks}`;
          const name = `dir/${size}/${input}-${streamChunks}.bin`;
          peer.log.length = 0;
          peer.created.length = 0;
          const up = createResumableUpload(client, "bkt", name, make(), {
            chunkSize: CHUNK,
            streamChunks,
            upsert: true,
            cacheControl: 60,
            ...extra,
          });
          const progress = [];
          up.progress.subscribe((p) => progress.push(p.bytesUploaded));
          const r = await up.await();
          assert.ok(r.ok, `${label}: ${r.ok ? "" : r.error.message}`);
          assert.deepEqual(await peer.bytesOf(up.uploadUrl), data, label);
          assert.deepEqual(
            progress,
            size === 0 ? [0] : [0, ...sizes.map((n, i) => CHUNK * i + n)],
            label,
          );
          assert.deepEqual(up.progress.value, {
            bytesUploaded: size,
            totalBytes: size,
            fraction: size > 0 ? 1 : 0,
            isComplete: size > 0,
          }, label);
          // Every chunk went with its Content-Length, none chunked, one request each.
          assert.deepEqual(
            peer.log.map((l) => [l.method, l.offset, l.length, l.chunked, l.type]),
            sizes.map((n, i) => [
              i === 0 ? "POST" : "PATCH",
              i === 0 ? null : String(CHUNK * i),
              String(n),
              false,
              n > 0 ? "application/offset+octet-stream" : null,
            ]),
            label,
          );
          assert.equal(peer.created.length, 1, label);
          assert.equal(peer.created[0].upsert, "true", label);
          assert.deepEqual(peer.created[0].metadata, {
            bucketName: "bkt",
            objectName: name,
            contentType: "application/octet-stream",
            cacheControl: "60",
          }, label);
        }
      }
    }
    // The byte streams were read with a BYOB reader, into the chunk buffers.
    assert.ok(pulls.byob >= 4 * Math.ceil((CHUNK * 3 + 123) / 5000), `${pulls.byob} BYOB pulls`);
  } finally {
    await peer.close();
  }
});

test("a pause through a Map-backed URL store, then a new handle resumes from the peer's offset: bytes, Blobs and streams, streamChunks true and false", async () => {
  const peer = await tusPeer();
  try {
    const client = createBaseClient(peer.url, KEY);
    const data = bytes(CHUNK * 3 + 45, 3);
    const file = join(peer.dir, "resume.bin");
    await writeFile(file, data);
    const events = [];
    for (const [input, make, extra] of inputs(data, file, undefined, events)) {
      for (const streamChunks of [false, true]) {
        const label = `${input}, streamChunks: ${streamChunks}`;
        const { saved, store } = mapStore();
        const options = { chunkSize: CHUNK, streamChunks, urlStore: store, ...extra };
        const name = `resume/${input}-${streamChunks}.bin`;
        events.length = 0;
        const first = createResumableUpload(client, "bkt", name, make(), options);
        const pause = new AbortController();
        first.progress.subscribe((p) => {
          if (p.bytesUploaded >= CHUNK) pause.abort();
        });
        peer.log.length = 0;
        const paused = await first.await({ signal: pause.signal });
        assert.equal(paused.ok ? "done" : paused.error.category, "CANCELLED", label);
        assert.deepEqual([...saved.values()], [first.uploadUrl], label);
        assert.deepEqual(peer.log.map((l) => l.method), ["POST"], label);
        // The pause cancelled a one-shot stream of ours (the runtime's own may be read to its end
        // already: Bun's file stream gives a file this small in one piece).
        assert.deepEqual(events, /^(default|byte) stream/.test(input) ? ["cancelled"] : [], label);
        peer.log.length = 0;
        const second = createResumableUpload(client, "bkt", name, make(), options);
        const progress = [];
        second.progress.subscribe((p) => progress.push(p.bytesUploaded));
        const r = await second.await();
        assert.ok(r.ok, `${label}: ${r.ok ? "" : r.error.message}`);
        assert.equal(second.uploadUrl, first.uploadUrl, label);
        assert.deepEqual(await peer.bytesOf(second.uploadUrl), data, label);
        assert.equal(saved.size, 0, `${label}: the finished upload is forgotten`);
        assert.deepEqual(
          peer.log.map((l) => [l.method, l.offset]),
          [["HEAD", null], ["PATCH", String(CHUNK)], ["PATCH", String(CHUNK * 2)], [
            "PATCH",
            String(CHUNK * 3),
          ]],
          label,
        );
        assert.equal(progress.at(-1), data.length, label);
        assert.ok(progress.every((v, i) => i === 0 || v >= progress[i - 1]), label);
      }
    }
  } finally {
    await peer.close();
  }
});

test("an abort while a chunk's request is in flight ends the upload at once, sends nothing more, and a resume completes it byte for byte", async () => {
  const peer = await tusPeer();
  try {
    const client = createBaseClient(peer.url, KEY);
    const data = bytes(CHUNK * 3 + 7, 5);
    const cases = [
      ["bytes", () => data, {}],
      ["default stream of unknown length", () => defaultStream(data), {}],
      ["byte stream with size", () => byteStream(data), { size: data.length }],
    ];
    for (const [input, make, extra] of cases) {
      for (const streamChunks of [false, true]) {
        const label = `${input}, streamChunks: ${streamChunks}`;
        const { saved, store } = mapStore();
        const options = { chunkSize: CHUNK, streamChunks, urlStore: store, ...extra };
        const name = `abort/${input}-${streamChunks}.bin`;
        const ac = new AbortController();
        // The peer holds the first PATCH unanswered; the caller aborts 50 ms into it.
        let release = null;
        let abortedAt = 0;
        peer.hold = (req) => {
          if (req.method !== "PATCH" || release) return;
          return new Promise((r) => {
            release = r;
            setTimeout(() => (abortedAt = performance.now(), ac.abort()), 50);
          });
        };
        peer.log.length = 0;
        const up = createResumableUpload(client, "bkt", name, make(), options);
        const r = await up.await({ signal: ac.signal });
        const took = performance.now() - abortedAt;
        assert.equal(r.ok ? "done" : r.error.category, "CANCELLED", label);
        assert.ok(abortedAt > 0 && took < 1000, `${label}: ended ${took} ms after the abort`);
        await new Promise((res) => setTimeout(res, 100));
        assert.deepEqual(peer.log.map((l) => l.method), ["POST", "PATCH"], label);
        peer.hold = null;
        release();
        await new Promise((res) => setTimeout(res, 50));
        peer.log.length = 0;
        const again = createResumableUpload(client, "bkt", name, make(), options);
        const done = await again.await();
        assert.ok(done.ok, `${label}: ${done.ok ? "" : done.error.message}`);
        assert.equal(again.uploadUrl, up.uploadUrl, label);
        assert.deepEqual(await peer.bytesOf(again.uploadUrl), data, label);
        assert.equal(peer.log[0].method, "HEAD", label);
        assert.equal(saved.size, 0, label);
      }
    }
  } finally {
    await peer.close();
  }
});

test("a Bun.file() of a missing path fails before any upload is created; one whose file shrinks mid-upload fails at once", async () => {
  const peer = await tusPeer();
  try {
    const client = createBaseClient(peer.url, KEY);
    // Bun gives a missing file size 0 and no error until it is read: it stored an empty object.
    const missing = Bun.file(join(peer.dir, "no-such-file.bin"));
    assert.equal(missing.size, 0);
    peer.log.length = 0;
    const r = await createResumableUpload(client, "bkt", "missing.bin", missing, { upsert: true })
      .await();
    assert.equal(r.ok ? "stored" : r.error.category, "INVALID_ARGUMENT");
    assert.match(r.error.message, /must be a Blob that can be read: reading it failed \(.*ENOENT/);
    assert.deepEqual(peer.log, []);
    // A plain upload fails too: Bun's fetch opens the file.
    const plain = await upload(client, "bkt", "missing.bin", missing);
    assert.equal(plain.ok ? "stored" : plain.error.category, "NETWORK");
    assert.match(plain.error.message, /ENOENT/);
    // Bun keeps the size a file had and reads it as it is now: cut to a chunk and a half after
    // the first chunk, the rest reads short (Bun sends what is there, then nothing).
    const data = bytes(CHUNK * 4, 13);
    const file = join(peer.dir, "shrinks.bin");
    await writeFile(file, data);
    const up = createResumableUpload(client, "bkt", "shrinks.bin", Bun.file(file), {
      chunkSize: CHUNK,
    });
    let cut = false;
    up.progress.subscribe((p) => {
      if (p.bytesUploaded >= CHUNK && !cut) cut = (truncateSync(file, CHUNK * 1.5), true);
    });
    peer.log.length = 0;
    const t0 = performance.now();
    const shrunk = await up.await();
    assert.equal(shrunk.ok ? "done" : shrunk.error.category, "INVALID_ARGUMENT");
    assert.match(
      shrunk.error.message,
      /its size of 262144 bytes: the Blob reads short from byte 98304 \(its file shrank\)$/,
    );
    assert.ok(performance.now() - t0 < 1000, "no retries");
    assert.deepEqual(peer.log.map((l) => [l.method, l.length]), [
      ["POST", String(CHUNK)],
      ["PATCH", String(CHUNK / 2)],
      ["PATCH", "0"],
    ]);
  } finally {
    await peer.close();
  }
});

/**
 * The Storage API's object routes, enough for plain uploads and downloads, inside Bun: an
 * upload (POST, PUT) stores its body; a download serves it with the service's `Cache-Control`
 * and an `ETag`, a `Range` as 206. It logs every request's method, path, headers as sent
 * (`rawHeaders`) and body size.
 */
async function objectPeer() {
  const objects = new Map();
  const log = [];
  let version = 0;
  const http = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = new Uint8Array(Buffer.concat(chunks));
    const headers = {};
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      headers[req.rawHeaders[i].toLowerCase()] = req.rawHeaders[i + 1];
    }
    log.push({ method: req.method, path: req.url, headers, size: body.length });
    const key = req.url.replace(/^\/storage\/v1\/object\/(authenticated\/)?/, "").split("?")[0];
    if (req.method === "POST" || req.method === "PUT") {
      objects.set(key, { body, etag: `"v${++version}"` });
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ Key: key }));
    }
    const object = objects.get(key);
    if (!object) return res.writeHead(404).end();
    const base = { "cache-control": "max-age=3600", etag: object.etag };
    if (req.headers["if-none-match"] === object.etag) return res.writeHead(304, base).end();
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
    if (range) {
      const start = Number(range[1]);
      const end = range[2] ? Number(range[2]) : object.body.length - 1;
      res.writeHead(206, {
        ...base,
        "content-range": `bytes ${start}-${end}/${object.body.length}`,
        "content-length": end - start + 1,
      });
      return res.end(object.body.subarray(start, end + 1));
    }
    res.writeHead(200, { ...base, "content-length": object.body.length });
    res.end(object.body);
  });
  await new Promise((r) => http.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${http.address().port}`,
    objects,
    log,
    close: () => (http.closeAllConnections(), new Promise((r) => http.close(r))),
  };
}

test("a plain upload of a stream goes out chunked from Bun's fetch (duplex: half), byte for byte: default and byte streams, Bun.file().stream(), a Blob's stream", async () => {
  const peer = await objectPeer();
  const dir = await mkdtemp(join(tmpdir(), "fetchbase-bun-up-"));
  try {
    const client = createBaseClient(peer.url, KEY);
    const data = bytes(300_000, 9);
    const file = join(dir, "plain.bin");
    await writeFile(file, data);
    const streams = [
      ["default stream", () => defaultStream(data, 4096)],
      ["byte stream", () => byteStream(data, 4096)],
      ["Bun.file().stream()", () => Bun.file(file).stream()],
      ["a Blob's stream", () => new Blob([data]).stream()],
    ];
    for (const [i, [label, make]] of streams.entries()) {
      peer.log.length = 0;
      const r = await upload(client, "bkt", `plain/${i}.bin`, make(), { upsert: true });
      assert.ok(r.ok, `${label}: ${r.ok ? "" : r.error.message}`);
      assert.deepEqual(peer.objects.get(`bkt/plain/${i}.bin`).body, data, label);
      const [{ method, headers }] = peer.log;
      assert.equal(method, "POST", label);
      // A stream of unknown length: chunked, with the object's type and the upsert flag.
      assert.equal(headers["transfer-encoding"], "chunked", label);
      assert.equal(headers["content-length"], undefined, label);
      assert.equal(headers["content-type"], "application/octet-stream", label);
      assert.equal(headers["x-upsert"], "true", label);
    }
  } finally {
    await peer.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test("downloads from Bun take cache: no-cache, which Bun's fetch puts nothing on the wire for, and never serve a stale object; downloadStream whole and ranged", async () => {
  const peer = await objectPeer();
  try {
    const modes = [];
    const client = createBaseClient(peer.url, KEY, {
      fetch: (input, init) => (modes.push(init?.cache ?? null), fetch(input, init)),
    });
    const v1 = bytes(200_000, 11);
    const v2 = bytes(200_000, 12);
    assert.ok((await upload(client, "bkt", "d.bin", v1)).ok);
    peer.log.length = 0;
    modes.length = 0;
    const first = await downloadBytes(client, "bkt", "d.bin");
    assert.deepEqual(first.ok && first.value, v1);
    // The object changes under the same URL: the next download has the new bytes.
    assert.ok((await update(client, "bkt", "d.bin", v2)).ok);
    const second = await downloadBytes(client, "bkt", "d.bin");
    assert.deepEqual(second.ok && second.value, v2);
    const whole = await downloadStream(client, "bkt", "d.bin");
    assert.ok(whole.ok, whole.ok ? "" : whole.error.message);
    assert.equal(whole.value.contentLength, v2.length);
    assert.equal(whole.value.etag, '"v2"');
    assert.deepEqual(new Uint8Array(await new Response(whole.value.stream).arrayBuffer()), v2);
    const part = await downloadStream(client, "bkt", "d.bin", { range: { start: 10, end: 99 } });
    assert.ok(part.ok, part.ok ? "" : part.error.message);
    assert.equal(part.value.status, 206);
    assert.equal(part.value.contentRange, `bytes 10-99/${v2.length}`);
    assert.deepEqual(
      new Uint8Array(await new Response(part.value.stream).arrayBuffer()),
      v2.subarray(10, 100),
    );
    // Bun is no Node (`Bun/` user agent) and its Request takes the mode: every download asked for
    // it (the upload in between did not)...
    assert.deepEqual(modes, ["no-cache", null, "no-cache", "no-cache", "no-cache"]);
    // ... and Bun, with no HTTP cache, sent no header for it, nor a conditional request.
    const downloads = peer.log.filter((l) => l.method === "GET");
    assert.equal(downloads.length, 4);
    for (const { headers } of downloads) {
      assert.equal(headers["cache-control"], undefined);
      assert.equal(headers.pragma, undefined);
      assert.equal(headers["if-none-match"], undefined);
    }
    assert.equal(downloads[3].headers.range, "bytes=10-99");
  } finally {
    await peer.close();
  }
});
