/**
 * Found by a review of the resumable uploads against a real TUS peer (@tus/server with
 * @tus/file-store on a loopback port).
 */
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createResumableUpload, type ResumableData } from "../../storage/mod.ts";
import { asStream, bytes, withPeer } from "./_tus_peer.ts";

const CHUNK = 4096;

/** A `fetch` to the peer that logs each request's method. */
function logged() {
  const log: string[] = [];
  const fetchImpl: typeof fetch = (input, init) => {
    const req = new Request(input, init);
    log.push(req.method);
    return fetch(req);
  };
  return { fetchImpl, log };
}

Deno.test("an await() after Success sends nothing: the peer's finish step runs once", async () => {
  let finishes = 0;
  await withPeer(async (peer) => {
    const data = bytes(CHUNK * 2 + 10, 5);
    const kinds: Array<() => ResumableData> = [
      () => data,
      () => new Blob([data as Uint8Array<ArrayBuffer>]),
      () => asStream(data),
    ];
    for (const make of kinds) {
      finishes = 0;
      const { fetchImpl, log } = logged();
      const client = createBaseClient(peer.url, "anon-key-123456", { fetch: fetchImpl });
      const up = createResumableUpload(client, "b", "a.bin", make(), { chunkSize: CHUNK });
      assert.ok((await up.await()).ok);
      const sent = log.length;
      // Again, and twice at once: each is Success, and no HEAD nor empty PATCH goes out.
      const again = await Promise.all([up.await(), up.await(), up.await()]);
      assert.ok(again.every((r) => r.ok));
      assert.deepEqual(log.slice(sent), []);
      assert.equal(finishes, 1);
      assert.equal(up.progress.value.isComplete, true);
      assert.deepEqual(await peer.bytesOf(up.uploadUrl!), data);
    }
  }, {
    onUploadFinish: () => {
      finishes++;
      return Promise.resolve({});
    },
  });
});
