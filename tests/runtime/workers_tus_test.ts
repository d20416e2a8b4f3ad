/**
 * Cloudflare Workers: a resumable (TUS) upload runs in workerd (miniflare) against a real TUS
 * peer (@tus/server), as bytes and as a stream of unknown length, in several chunks. workerd
 * refuses `redirect: "error"` outright ("won't be implemented ... at the edge"), which TUS
 * requests used to set, so every upload from a Worker failed.
 */
import assert from "node:assert/strict";
import { tusPeer } from "../storage_tus/_tus_peer.ts";
import { serve } from "../support/serve.ts";
import { type RunningWorker, startWorker } from "./support.ts";

const root = new URL("../../", import.meta.url).pathname;

function bytes(size: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(size);
  for (let i = 0; i < size; i++) b[i] = (i * 7 + 3) % 251;
  return b;
}

/**
 * Runs `fn` with tests/runtime/workers/tus_worker.ts in workerd (at `compatibilityDate`, else the
 * runner's default) and a TUS peer it uploads to, then stops both and removes the temporary folder.
 */
async function withTusWorker(
  prefix: string,
  compatibilityDate: string | undefined,
  fn: (worker: RunningWorker, peer: Awaited<ReturnType<typeof tusPeer>>) => Promise<void>,
): Promise<void> {
  const tmp = await Deno.makeTempDir({ prefix });
  const peer = await tusPeer();
  const worker = await startWorker(
    `${root}tests/runtime/workers/tus_worker.ts`,
    tmp,
    peer.url,
    "anon-key",
    compatibilityDate,
  );
  try {
    await fn(worker, peer);
  } finally {
    await worker.stop();
    await peer.close();
    await Deno.remove(tmp, { recursive: true });
  }
}

Deno.test("a resumable upload runs in workerd against a real TUS peer: bytes and a stream of unknown length, several chunks each", async () => {
  await withTusWorker("fetchbase-worker-tus-", undefined, async (worker, peer) => {
    const base = worker.url;
    const size = 64 * 1024 * 3 + 123; // three whole chunks and a tail
    // The last one hands workerd's own fetch to the client (`{ fetch }`): called as the client's
    // method it threw "Illegal invocation", and every request failed as a network error.
    for (const [kind, own] of [["bytes", false], ["stream", false], ["bytes", true]] as const) {
      const name = `${kind}${own ? "-own-fetch" : ""}.bin`;
      const r = await fetch(
        `${base}?size=${size}&kind=${kind}&name=${name}${own ? "&fetch=own" : ""}`,
      );
      const out = await r.json() as {
        ok: boolean;
        error: string | null;
        uploadUrl: string | null;
        bytesUploaded: number;
      };
      assert.equal(out.ok, true, `${name}: ${out.error}`);
      assert.equal(out.bytesUploaded, size);
      assert.ok(out.uploadUrl?.startsWith(`${peer.url}/storage/v1/upload/resumable/`));
      assert.deepEqual(await peer.bytesOf(out.uploadUrl!), bytes(size), name);
    }
  });
});

Deno.test("uploads run in workerd at older compatibility dates: resumable (bytes, a Blob's stream) and plain of a stream (a Blob's, the request's body, a TransformStream's)", async () => {
  // Before 2022-03-21 workerd has no `navigator`: it passed for Node, whose uploads stream each
  // chunk (`new ReadableStream`, refused before 2022-11-30) and send `redirect: "error"`, which
  // workerd refuses. Before 2024-05-13 the BYOB read that ends an internal stream (a Blob's, a
  // body's) gives no view back, which failed every stream upload. Before 2022-11-30 a plain upload
  // of a TransformStream's readable failed as NETWORK: its pipe into the transport's own
  // TransformStream threw ("Inter-TransformStream ReadableStream.pipeTo() is not implemented").
  for (const date of ["2022-01-01", "2024-01-01"]) await uploadsAt(date);
});

Deno.test("uploads run in workerd with nodejs_compat (Node's globals present): resumable and plain", async () => {
  await uploadsAt("2026-08-01+nodejs_compat");
});

/**
 * Resumable uploads of bytes and a Blob's stream, and plain uploads of a stream (a Blob's, the
 * request's body, a TransformStream's), in a Worker at `date` (with any flags after a "+").
 */
async function uploadsAt(date: string): Promise<void> {
  const received = new Map<string, Uint8Array>();
  await using plainPeer = await serve(async (req) => {
    received.set(new URL(req.url).pathname, await req.bytes());
    return Response.json({ Key: "uploads/x" });
  });
  const tag = date.replace(/\+/g, "-"); // a "+" in a query is a space
  await withTusWorker("fetchbase-worker-tus-old-", date, async (worker, peer) => {
    const size = 64 * 1024 * 2 + 45;
    for (const kind of ["bytes", "stream"]) {
      const r = await fetch(`${worker.url}?size=${size}&kind=${kind}&name=${kind}-${tag}.bin`);
      const out = await r.json() as { ok: boolean; error: string | null; uploadUrl: string };
      assert.equal(out.ok, true, `${kind} at ${date}: ${out.error}`);
      assert.deepEqual(await peer.bytesOf(out.uploadUrl), bytes(size), `${kind} at ${date}`);
    }
    for (const plain of ["blob", "body", "pipe"]) {
      const name = `plain-${plain}-${tag}.bin`;
      const r = await fetch(
        `${worker.url}?size=${size}&plain=${plain}&name=${name}&to=${plainPeer.url}`,
        plain === "body" ? { method: "POST", body: bytes(size) } : {},
      );
      const out = await r.json() as { ok: boolean; error: string | null };
      assert.equal(out.ok, true, `${name}: ${out.error}`);
      assert.deepEqual(
        received.get(`/storage/v1/object/uploads/worker/${name}`),
        bytes(size),
        name,
      );
    }
  });
}
