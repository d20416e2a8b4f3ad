/**
 * Resumable uploads against a real TUS peer: @tus/server with @tus/file-store
 * on a random loopback port, with a fault-injecting proxy in front.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { Server } from "@tus/server";
import { FileStore } from "@tus/file-store";
import { createBaseClient } from "../../core/client.ts";
import { createResumableUpload, type ResumableData } from "../../storage/mod.ts";
import { serve } from "../support/serve.ts";

const PATH = "/storage/v1/upload/resumable";

async function tusPeer() {
  const dir = await Deno.makeTempDir();
  const tus = new Server({ path: PATH, datastore: new FileStore({ directory: dir }) });
  const http = createServer((req, res) => tus.handle(req, res));
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", () => r()));
  const port = (http.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    dir,
    async bytesOf(location: string): Promise<Uint8Array> {
      return await Deno.readFile(`${dir}/${location.split("/").pop()}`);
    },
    async close() {
      await new Promise((r) => http.close(r));
      await Deno.remove(dir, { recursive: true });
    },
  };
}

type Fault = "none" | "500-once" | "409-once" | "drop-midway";

/** A proxy that forwards to the peer and injects one fault on the second PATCH. */
async function faultyProxy(target: string, fault: Fault) {
  let patches = 0;
  let injected = false;
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
      if (!injected && patches === 2 && fault !== "none") {
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
    seen.push({ method: req.method, offset: null, bytes: 0 });
    if (req.method === "POST") {
      patches = 0;
      injected = false;
    }
    const r = await fetch(
      forward,
      {
        method: req.method,
        headers,
        body: req.body,
        ...(req.body ? { duplex: "half" } : {}),
      } as RequestInit,
    );
    const out = new Headers(r.headers);
    const loc = out.get("location");
    if (loc) out.set("location", loc.replace(target, `http://127.0.0.1:${new URL(req.url).port}`));
    return new Response(req.method === "HEAD" ? null : r.body, { status: r.status, headers: out });
  });
  return { server, seen };
}

function bytes(n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + 7) & 0xff;
  return b;
}

function asStream(b: Uint8Array, piece = 1000): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i >= b.length) return c.close();
      c.enqueue(b.slice(i, i + piece));
      i += piece;
    },
  });
}

const CHUNK = 64 * 1024;
const inputs: Array<[string, (b: Uint8Array) => ResumableData, boolean]> = [
  ["bytes", (b) => b, false],
  ["Blob", (b) => new Blob([b as Uint8Array<ArrayBuffer>]), false],
  ["stream with size", (b) => asStream(b), true],
];

Deno.test("bytes on the TUS peer equal bytes sent: empty, 1 byte, one chunk, many chunks, odd tail; every input type", async () => {
  const peer = await tusPeer();
  try {
    const client = createBaseClient(peer.url, "anon-key-123456");
    for (const size of [0, 1, CHUNK, CHUNK * 3, CHUNK * 2 + 123]) {
      for (const [label, make, isStream] of inputs) {
        const data = bytes(size);
        const up = createResumableUpload(client, "b", `f-${size}.bin`, make(data), {
          chunkSize: CHUNK,
          ...(isStream ? { size } : {}),
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
        }
      }
    }
  } finally {
    await peer.close();
  }
});

Deno.test("a stream of unknown length uses deferred length", async () => {
  const peer = await tusPeer();
  try {
    const client = createBaseClient(peer.url, "anon-key-123456");
    const data = bytes(CHUNK * 2 + 10);
    const up = createResumableUpload(client, "b", "deferred.bin", asStream(data, 777), {
      chunkSize: CHUNK,
    });
    const r = await up.await();
    assert.ok(r.ok, r.ok ? "" : r.error.message);
    assert.deepEqual(await peer.bytesOf(up.uploadUrl!), data);
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
      for (const [label, make, isStream] of inputs) {
        seen.length = 0;
        const data = bytes(CHUNK * 3 + 5);
        const up = createResumableUpload(client, "b", `fault-${label}.bin`, make(data), {
          chunkSize: CHUNK,
          retryBaseDelayMs: 1,
          ...(isStream ? { size: data.length } : {}),
        });
        const r = await up.await();
        assert.ok(r.ok, `${fault} ${label}: ${r.ok ? "" : r.error.message}`);
        assert.deepEqual(await peer.bytesOf(up.uploadUrl!), data, `${fault} ${label}`);
        assert.ok(seen.some((s) => s.method === "HEAD"), "re-synced with HEAD");
        const sent = seen.filter((s) => s.method === "PATCH").reduce((n, s) => n + s.bytes, 0);
        // Only the rejected part is sent again: a whole chunk after 500/409, half a chunk after the drop.
        const resent = fault === "drop-midway" ? CHUNK / 2 : CHUNK;
        assert.equal(sent, data.length + resent, `${fault} ${label}: ${sent} bytes sent`);
      }
    } finally {
      await server.close();
      await peer.close();
    }
  });
}

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
    const sentBefore = seen.filter((s) => s.method === "PATCH").reduce((n, s) => n + s.bytes, 0);
    assert.equal(sentBefore, CHUNK * 2);
    const second = createResumableUpload(client, "b", "resume.bin", data, {
      chunkSize: CHUNK,
      uploadUrl: saved,
    });
    assert.ok((await second.await()).ok);
    const patches = seen.filter((s) => s.method === "PATCH");
    assert.equal(patches.reduce((n, s) => n + s.bytes, 0), data.length, "no byte sent twice");
    assert.deepEqual(patches.map((p) => p.offset), [
      "0",
      String(CHUNK),
      String(CHUNK * 2),
      String(CHUNK * 3),
    ]);
    assert.deepEqual(await peer.bytesOf(saved), data);
  } finally {
    await server.close();
    await peer.close();
  }
});
