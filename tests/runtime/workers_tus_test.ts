/**
 * Cloudflare Workers: a resumable (TUS) upload runs in workerd (miniflare) against a real TUS
 * peer (@tus/server), as bytes and as a stream of unknown length, in several chunks. workerd
 * refuses `redirect: "error"` outright ("won't be implemented ... at the edge"), which TUS
 * requests used to set, so every upload from a Worker failed.
 */
import assert from "node:assert/strict";
import { tusPeer } from "../storage_tus/_tus_peer.ts";
import { startWorker } from "./support.ts";

const root = new URL("../../", import.meta.url).pathname;

function bytes(size: number): Uint8Array {
  const b = new Uint8Array(size);
  for (let i = 0; i < size; i++) b[i] = (i * 7 + 3) % 251;
  return b;
}

Deno.test("a resumable upload runs in workerd against a real TUS peer: bytes and a stream of unknown length, several chunks each", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "fetchbase-worker-tus-" });
  const peer = await tusPeer();
  const worker = await startWorker(
    `${root}tests/runtime/workers/tus_worker.ts`,
    tmp,
    peer.url,
    "anon-key",
  );
  try {
    const base = worker.url;
    const size = 64 * 1024 * 3 + 123; // three whole chunks and a tail
    for (const kind of ["bytes", "stream"]) {
      const r = await fetch(`${base}?size=${size}&kind=${kind}&name=${kind}.bin`);
      const out = await r.json() as {
        ok: boolean;
        error: string | null;
        uploadUrl: string | null;
        bytesUploaded: number;
      };
      assert.equal(out.ok, true, `${kind}: ${out.error}`);
      assert.equal(out.bytesUploaded, size);
      assert.ok(out.uploadUrl?.startsWith(`${peer.url}/storage/v1/upload/resumable/`));
      assert.deepEqual(await peer.bytesOf(out.uploadUrl!), bytes(size), kind);
    }
  } finally {
    await worker.stop();
    await peer.close();
    await Deno.remove(tmp, { recursive: true });
  }
});
