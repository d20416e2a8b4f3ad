/**
 * Resumable uploads against a real TUS peer: @tus/server with @tus/file-store
 * on a random loopback port, with a fault-injecting proxy in front.
 */
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createResumableUpload, type ResumableData } from "../../storage/mod.ts";
import { serve } from "../support/serve.ts";
import { byteStream } from "../support/byte_stream.ts";
import { asStream, bytes, tusPeer, withPeer } from "./_tus_peer.ts";

type Fault =
  | "none"
  | "500-once"
  | "409-once"
  | "drop-midway"
  | "post-500-once"
  | "ignore-post-body";

/**
 * A proxy that forwards to the peer and injects one fault: on the second PATCH
 * (500, 409, or a connection dropped after half the body), on the first POST
 * (the peer creates the upload and takes the chunk, the client gets a 500), or
 * on every POST (the body is dropped: a server without creation-with-upload).
 */
async function faultyProxy(target: string, fault: Fault) {
  let patches = 0;
  let injected = false;
  let postFailed = false;
  const seen: Array<{ method: string; offset: string | null; bytes: number }> = [];
  const server = await serve(async (req) => {
    const url = new URL(req.url);
    const forward = `${target}${url.pathname}${url.search}`;
    const headers = new Headers(req.headers);
    headers.delete("host");
    if (req.method === "PATCH") {
      patches++;
      const body = new Uint8Array(await req.arrayBuffer());
      seen.push({ method: "PATCH", offset: req.headers.get("upload-offset"), bytes: body.length });
      const patchFault = fault === "500-once" || fault === "409-once" || fault === "drop-midway";
      if (!injected && patches === 2 && patchFault) {
        injected = true;
        if (fault === "500-once") return new Response("boom", { status: 500 });
        if (fault === "409-once") return new Response("offset", { status: 409 });
        const half = body.subarray(0, Math.floor(body.length / 2));
        const r = await fetch(forward, { method: "PATCH", headers, body: half });
        await r.body?.cancel();
        return new Response("upstream connection dropped", { status: 502 });
      }
      const r = await fetch(forward, { method: "PATCH", headers, body });
      return new Response(r.body, { status: r.status, headers: r.headers });
    }
    let body: Uint8Array<ArrayBuffer> | null = null;
    if (req.method === "POST") {
      patches = 0;
      injected = false;
      body = new Uint8Array(await req.arrayBuffer());
      if (fault === "ignore-post-body") {
        body = null;
        headers.delete("content-type");
      }
    }
    seen.push({ method: req.method, offset: null, bytes: body?.length ?? 0 });
    const r = await fetch(forward, { method: req.method, headers, body });
    if (req.method === "POST" && fault === "post-500-once" && !postFailed) {
      postFailed = true;
      await r.body?.cancel();
      return new Response("created, but the answer was lost", { status: 500 });
    }
    const out = new Headers(r.headers);
    const loc = out.get("location");
    if (loc) out.set("location", loc.replace(target, `http://127.0.0.1:${new URL(req.url).port}`));
    return new Response(req.method === "HEAD" ? null : r.body, { status: r.status, headers: out });
  });
  return { server, seen };
}

const CHUNK = 64 * 1024;
/** Input types: label, data, the `size` option a stream needs (none: deferred length). */
const inputs: Array<[string, (b: Uint8Array) => ResumableData, (b: Uint8Array) => object]> = [
  ["bytes", (b) => b, () => ({})],
  ["Blob", (b) => new Blob([b as Uint8Array<ArrayBuffer>]), () => ({})],
  ["stream with size", (b) => asStream(b), (b) => ({ size: b.length })],
  ["stream of unknown length", (b) => asStream(b, 777), () => ({})],
  ["byte stream with size", (b) => byteStream(b, 5000), (b) => ({ size: b.length })],
  ["byte stream of unknown length", (b) => byteStream(b, 777), () => ({})],
];

/** Bytes the proxy saw in POST and PATCH bodies. */
const bodyBytes = (seen: Array<{ method: string; bytes: number }>) =>
  seen.filter((s) => s.method === "POST" || s.method === "PATCH").reduce((n, s) => n + s.bytes, 0);

Deno.test("bytes on the TUS peer equal bytes sent: empty, 1 byte, one chunk, many chunks, odd tail; every input type; chunks as bytes and as streams", async () => {
  const peer = await tusPeer();
  try {
    const client = createBaseClient(peer.url, "anon-key-123456");
    for (const size of [0, 1, CHUNK, CHUNK * 3, CHUNK * 2 + 123]) {
      for (const [input, make, sized] of inputs) {
        for (const streamChunks of [false, true]) {
          const label = `${input}, streamChunks: ${streamChunks}`;
          const data = bytes(size);
          const up = createResumableUpload(client, "b", `f-${size}.bin`, make(data), {
            chunkSize: CHUNK,
            streamChunks,
            ...sized(data),
          });
          assert.equal(up.uploadUrl, null);
          const seen: number[] = [];
          up.progress.subscribe((p) => seen.push(p.bytesUploaded));
          const r = await up.await();
          assert.ok(r.ok, `${label} ${size}: ${r.ok ? "" : r.error.message}`);
          assert.ok(up.uploadUrl);
          assert.deepEqual(await peer.bytesOf(up.uploadUrl!), data, `${label} ${size}`);
          assert.equal(up.progress.value.bytesUploaded, size);
          if (size > 0) {
            assert.equal(up.progress.value.isComplete, true);
            assert.equal(up.progress.value.fraction, 1);
            assert.ok(
              seen.length >= Math.ceil(size / CHUNK),
              `progress after every chunk (${label} ${size})`,
            );
            assert.equal(up.progress.value.totalBytes, size);
          }
        }
      }
    }
  } finally {
    await peer.close();
  }
});

Deno.test("a byte stream is read into the chunk buffers (BYOB): the source fills the upload's own memory, no piece is allocated", async () => {
  const peer = await tusPeer();
  try {
    const client = createBaseClient(peer.url, "anon-key-123456");
    for (const sized of [true, false]) {
      const data = bytes(CHUNK * 3 + 17);
      const pulls = { count: 0 };
      const up = createResumableUpload(
        client,
        "b",
        `byob-${sized}.bin`,
        byteStream(data, 4096, { byobPulls: pulls }),
        { chunkSize: CHUNK, ...(sized ? { size: data.length } : {}) },
      );
      const r = await up.await();
      assert.ok(r.ok, r.ok ? "" : r.error.message);
      assert.deepEqual(await peer.bytesOf(up.uploadUrl!), data);
      // Every byte went through a view the upload handed in: at least ceil(n / 4096) pulls.
      assert.ok(pulls.count >= Math.ceil(data.length / 4096), `${pulls.count} BYOB pulls`);
    }
  } finally {
    await peer.close();
  }
});

Deno.test("requests on the wire: the first chunk rides the POST; a stream of unknown length declares its length once known", async () => {
  const peer = await tusPeer();
  const { server, seen } = await faultyProxy(peer.url, "none");
  try {
    const client = createBaseClient(server.url, "anon-key-123456");
    const cases: Array<[number, ResumableData | null, Array<[string, number]>]> = [
      // [size, data (null: bytes), [method, body bytes] per request]
      [0, null, [["POST", 0]]],
      [100, asStream(bytes(100), 7), [["POST", 100]]],
      [CHUNK, asStream(bytes(CHUNK), 777), [["POST", CHUNK]]],
      [CHUNK * 2 + 10, asStream(bytes(CHUNK * 2 + 10), 777), [
        ["POST", CHUNK],
        ["PATCH", CHUNK],
        ["PATCH", 10],
      ]],
      [CHUNK * 2, null, [["POST", CHUNK], ["PATCH", CHUNK]]],
    ];
    for (const [size, input, expected] of cases) {
      seen.length = 0;
      const data = bytes(size);
      const up = createResumableUpload(client, "b", `wire-${size}.bin`, input ?? data, {
        chunkSize: CHUNK,
      });
      const r = await up.await();
      assert.ok(r.ok, `${size}: ${r.ok ? "" : r.error.message}`);
      assert.deepEqual(seen.map((s) => [s.method, s.bytes]), expected, `${size}`);
      assert.deepEqual(await peer.bytesOf(up.uploadUrl!), data, `${size}`);
    }
  } finally {
    await server.close();
    await peer.close();
  }
});

Deno.test("creationWithUpload: false, and a server that drops the POST body: every byte goes by PATCH from 0", async () => {
  const peer = await tusPeer();
  const plain = await faultyProxy(peer.url, "none");
  const deaf = await faultyProxy(peer.url, "ignore-post-body");
  try {
    for (
      const [label, proxy, creationWithUpload] of [
        ["creationWithUpload: false", plain, false],
        ["body ignored", deaf, true],
      ] as const
    ) {
      const client = createBaseClient(proxy.server.url, "anon-key-123456");
      for (const [input, make, sized] of inputs) {
        proxy.seen.length = 0;
        const data = bytes(CHUNK * 2 + 123);
        const up = createResumableUpload(client, "b", `plain-${input}.bin`, make(data), {
          chunkSize: CHUNK,
          creationWithUpload,
          ...sized(data),
        });
        const r = await up.await();
        assert.ok(r.ok, `${label} ${input}: ${r.ok ? "" : r.error.message}`);
        assert.deepEqual(proxy.seen.map((s) => [s.method, s.offset, s.bytes]), [
          ["POST", null, 0],
          ["PATCH", "0", CHUNK],
          ["PATCH", String(CHUNK), CHUNK],
          ["PATCH", String(CHUNK * 2), 123],
        ], `${label} ${input}`);
        assert.deepEqual(await peer.bytesOf(up.uploadUrl!), data, `${label} ${input}`);
      }
    }
  } finally {
    await plain.server.close();
    await deaf.server.close();
    await peer.close();
  }
});

Deno.test("faults: the POST fails once with 500 after the peer took the chunk; it is retried and the bytes on disk equal the bytes sent", async () => {
  const peer = await tusPeer();
  try {
    for (const [label, make, sized] of inputs) {
      for (const size of [100, CHUNK * 2 + 5]) {
        const { server, seen } = await faultyProxy(peer.url, "post-500-once");
        const data = bytes(size);
        const client = createBaseClient(server.url, "anon-key-123456");
        const up = createResumableUpload(client, "b", `post-${label}-${size}.bin`, make(data), {
          chunkSize: CHUNK,
          retryBaseDelayMs: 1,
          ...sized(data),
        });
        const r = await up.await();
        await server.close();
        assert.ok(r.ok, `${label} ${size}: ${r.ok ? "" : r.error.message}`);
        const first = Math.min(size, CHUNK);
        const posts = seen.filter((s) => s.method === "POST");
        assert.deepEqual(posts.map((p) => p.bytes), [first, first], `${label} ${size}`);
        assert.equal(bodyBytes(seen), size + first, `${label} ${size}: the first chunk twice`);
        assert.deepEqual(await peer.bytesOf(up.uploadUrl!), data, `${label} ${size}`);
      }
    }
  } finally {
    await peer.close();
  }
});

for (const fault of ["500-once", "409-once", "drop-midway"] as const) {
  Deno.test(`faults: the proxy answers ${fault} on a PATCH; the upload re-syncs from HEAD and completes, no byte sent twice`, async () => {
    const peer = await tusPeer();
    const { server, seen } = await faultyProxy(peer.url, fault);
    try {
      const client = createBaseClient(server.url, "anon-key-123456");
      for (const [input, make, sized] of inputs) {
        for (const streamChunks of [false, true]) {
          const label = `${input}, streamChunks: ${streamChunks}`;
          seen.length = 0;
          const data = bytes(CHUNK * 3 + 5);
          const up = createResumableUpload(client, "b", `fault-${input}.bin`, make(data), {
            chunkSize: CHUNK,
            retryBaseDelayMs: 1,
            streamChunks,
            ...sized(data),
          });
          const r = await up.await();
          assert.ok(r.ok, `${fault} ${label}: ${r.ok ? "" : r.error.message}`);
          assert.deepEqual(await peer.bytesOf(up.uploadUrl!), data, `${fault} ${label}`);
          assert.ok(seen.some((s) => s.method === "HEAD"), "re-synced with HEAD");
          // The first chunk rides the POST; the fault hits the PATCH at 2 * CHUNK.
          assert.deepEqual(seen.slice(0, 3).map((s) => [s.method, s.offset, s.bytes]), [
            ["POST", null, CHUNK],
            ["PATCH", String(CHUNK), CHUNK],
            ["PATCH", String(CHUNK * 2), CHUNK],
          ]);
          const sent = bodyBytes(seen);
          // Only the rejected part is sent again: a whole chunk after 500/409, half a chunk after the drop.
          const resent = fault === "drop-midway" ? CHUNK / 2 : CHUNK;
          assert.equal(sent, data.length + resent, `${fault} ${label}: ${sent} bytes sent`);
        }
      }
    } finally {
      await server.close();
      await peer.close();
    }
  });
}

Deno.test("a saved uploadUrl given to a handle of another object is a CONFLICT: its bytes went into the saved upload's object, reported a Success", async () => {
  await withPeer(async (peer) => {
    const client = createBaseClient(peer.url, "anon-key-123456");
    const a = bytes(CHUNK * 3, 1);
    const ac = new AbortController();
    const first = createResumableUpload(client, "bucketA", "a.bin", a, { chunkSize: CHUNK });
    first.progress.subscribe((p) => {
      if (p.bytesUploaded >= CHUNK) ac.abort();
    });
    assert.equal((await first.await({ signal: ac.signal })).errorOrNull()?.category, "CANCELLED");
    const saved = first.uploadUrl!;
    const held = await peer.bytesOf(saved);
    // Another bucket, another key: refused before a byte is sent, naming the saved object.
    for (const [bucket, key] of [["bucketB", "a.bin"], ["bucketA", "b.bin"]]) {
      const other = createResumableUpload(client, bucket, key, bytes(CHUNK * 3, 2), {
        chunkSize: CHUNK,
        uploadUrl: saved,
      });
      const r = await other.await();
      assert.equal(r.errorOrNull()?.category, "CONFLICT", `${bucket}/${key}`);
      assert.match(
        r.errorOrNull()!.message,
        /saved upload is of another object: "bucketA\/a\.bin"/,
      );
    }
    assert.deepEqual(await peer.bytesOf(saved), held, "nothing written into the saved upload");
    // The same object resumes as before.
    const same = createResumableUpload(client, "bucketA", "a.bin", a, {
      chunkSize: CHUNK,
      uploadUrl: saved,
    });
    assert.ok((await same.await()).ok);
    assert.deepEqual(await peer.bytesOf(saved), a);
  });
});

Deno.test("cancel pauses; a new handle with the saved uploadUrl resumes from the server's offset", async () => {
  const peer = await tusPeer();
  const { server, seen } = await faultyProxy(peer.url, "none");
  try {
    const client = createBaseClient(server.url, "anon-key-123456");
    const data = bytes(CHUNK * 4);
    const ac = new AbortController();
    const first = createResumableUpload(client, "b", "resume.bin", data, { chunkSize: CHUNK });
    first.progress.subscribe((p) => {
      if (p.bytesUploaded >= CHUNK * 2) ac.abort();
    });
    const paused = await first.await({ signal: ac.signal });
    assert.equal(paused.errorOrNull()?.category, "CANCELLED");
    const saved = first.uploadUrl!;
    assert.equal(bodyBytes(seen), CHUNK * 2, "the POST's chunk and one PATCH");
    const second = createResumableUpload(client, "b", "resume.bin", data, {
      chunkSize: CHUNK,
      uploadUrl: saved,
    });
    assert.ok((await second.await()).ok);
    assert.equal(bodyBytes(seen), data.length, "no byte sent twice");
    assert.deepEqual(seen.map((p) => [p.method, p.offset]), [
      ["POST", null],
      ["PATCH", String(CHUNK)],
      ["HEAD", null],
      ["PATCH", String(CHUNK * 2)],
      ["PATCH", String(CHUNK * 3)],
    ]);
    assert.deepEqual(await peer.bytesOf(saved), data);
  } finally {
    await server.close();
    await peer.close();
  }
});
