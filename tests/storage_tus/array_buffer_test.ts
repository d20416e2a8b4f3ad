// A resumable upload takes an ArrayBuffer as `upload` does (the mapping: inputs of bytes also take
// an ArrayBuffer), and any other view of bytes, read as its bytes. It was refused with a TypeError.
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createResumableUpload, uploadResumable } from "../../storage/mod.ts";
import { createStorageClient } from "../../storage/client.ts";
import { bytes, withPeer } from "./_tus_peer.ts";

Deno.test("a resumable upload of an ArrayBuffer or another view of bytes reaches the TUS peer whole", async () => {
  await withPeer(async (peer) => {
    const client = createBaseClient(peer.url, "anon-key-123456");
    const data = bytes(2500);
    const padded = new Uint8Array(2510);
    padded.set(data, 5);
    const inputs = {
      "ArrayBuffer": data.slice().buffer,
      "DataView": new DataView(padded.buffer, 5, 2500),
    };
    // Typed as the data of an upload: no cast (the type once listed no view but Uint8Array).
    for (const [name, input] of Object.entries(inputs)) {
      const up = createResumableUpload(client, "b", `${name}.bin`, input, {
        chunkSize: 1000,
      });
      const r = await up.await();
      assert.ok(r.ok, `${name}: ${r.ok ? "" : r.error.message}`);
      assert.deepEqual(await peer.bytesOf(up.uploadUrl!), data, name);
      assert.equal(up.progress.value.totalBytes, 2500, name);
    }
    // The typed path: an ArrayBuffer needs no cast.
    const storage = createStorageClient(client);
    const r = await uploadResumable(storage, "b", "typed.bin", data.slice().buffer, {
      chunkSize: 1000,
    });
    assert.ok(r.ok);
  });
});
