// Bytes on shared memory (a SharedArrayBuffer: WebAssembly threads, a buffer shared with a
// worker), which fetch refuses to send: uploads copy them. Before, a plain upload failed as
// NETWORK and a resumable one retried that refusal five times (about 5.5 s) before failing.
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createResumableUpload } from "../../storage/mod.ts";
import { jsonResponse } from "../support/recording_fetch.ts";
import { makeStorage } from "./_helpers.ts";
import { bytes, withPeer } from "../storage_tus/_tus_peer.ts";

function sharedCopy(data: Uint8Array): Uint8Array {
  const shared = new Uint8Array(new SharedArrayBuffer(data.length + 4), 2, data.length);
  shared.set(data);
  return shared;
}

Deno.test("upload, update and uploadToSignedUrl send bytes on shared memory, copied", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({ Key: "b/a.bin", Id: "1" }));
  const data = bytes(300);
  const shared = sharedCopy(data);
  const up = await storage.upload("b", "a.bin", shared);
  assert.ok(up.ok, up.ok ? "" : up.error.message);
  assert.deepEqual(rec.last.bytes, data);
  const upd = await storage.update("b", "a.bin", shared.subarray(100));
  assert.ok(upd.ok, upd.ok ? "" : upd.error.message);
  assert.deepEqual(rec.last.bytes, data.subarray(100));
  const signed = await storage.uploadToSignedUrl("b", "a.bin", "tok", shared);
  assert.ok(signed.ok, signed.ok ? "" : signed.error.message);
  assert.deepEqual(rec.last.bytes, data);
  assert.equal(rec.requests.length, 3);
  // Not copied when it need not be: the caller's own memory goes as it is.
  await storage.upload("b", "a.bin", data);
  assert.deepEqual(rec.last.bytes, data);
});

Deno.test("a resumable upload of bytes on shared memory reaches the TUS peer whole, in one attempt per chunk", async () => {
  await withPeer(async (peer) => {
    let requests = 0;
    const client = createBaseClient(peer.url, "anon-key-123456", {
      fetch: (input, init) => {
        requests++;
        return fetch(input, init);
      },
    });
    const data = bytes(2500);
    for (const streamChunks of [false, true]) {
      requests = 0;
      const up = createResumableUpload(
        client,
        "b",
        `shared-${streamChunks}.bin`,
        sharedCopy(data),
        {
          chunkSize: 1000,
          streamChunks,
        },
      );
      const r = await up.await();
      assert.ok(r.ok, r.ok ? "" : r.error.message);
      assert.deepEqual(await peer.bytesOf(up.uploadUrl!), data);
      assert.equal(requests, 3, `streamChunks: ${streamChunks}`);
    }
  });
});

Deno.test("a plain upload takes any view of bytes, typed as such, and sends the bytes it views", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({ Key: "b/a.bin", Id: "1" }));
  const data = bytes(300);
  const padded = new Uint8Array(310);
  padded.set(data, 6);
  // No cast: the data type lists every view of bytes (it once listed Uint8Array alone).
  const views: Array<[string, ArrayBufferView]> = [
    ["DataView", new DataView(padded.buffer, 6, 300)],
    ["Uint16Array", new Uint16Array(padded.buffer, 6, 150)],
    ["shared DataView", new DataView(sharedCopy(data).buffer, 2, 300)],
  ];
  for (const [name, view] of views) {
    const r = await storage.upload("b", "a.bin", view);
    assert.ok(r.ok, `${name}: ${r.ok ? "" : r.error.message}`);
    assert.deepEqual(rec.last.bytes, data, name);
  }
});
