// workerd before compatibility date 2024-05-13: the BYOB read that ends an internal stream moves
// the view it was given and gives no value back (checked in workerd at 2022-01-01 and 2024-01-01).
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createResumableUpload } from "../../storage/mod.ts";
import { byteStream } from "../support/byte_stream.ts";

const BASE = "https://project.example.com";

/** `stream` with BYOB reads as workerd's before 2024-05-13: the read that ends gives no value. */
function noEndView(stream: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const getReader = stream.getReader.bind(stream) as (o?: unknown) => ReadableStreamBYOBReader;
  Object.defineProperty(stream, "getReader", {
    value: (o?: { mode?: string }) => {
      const reader = getReader(o);
      if (o?.mode !== "byob") return reader;
      const read = reader.read.bind(reader);
      Object.defineProperty(reader, "read", {
        value: async (view: Uint8Array<ArrayBuffer>) => {
          const r = await read(view);
          return r.done ? { done: true, value: undefined } : r;
        },
      });
      return reader;
    },
  });
  return stream;
}

Deno.test("a resumed stream that ends before the server's offset fails as documented where the read that ends it gives no view (workerd before 2024-05-13)", async () => {
  for (const [have, offset] of [[100, 200], [1_200_000, 1_500_000]]) {
    // The upload holds `offset` bytes: the stream's first `offset` bytes are read and dropped.
    const fetch = (async (_input: RequestInfo | URL, init: RequestInit = {}) => {
      if (init.body instanceof ReadableStream) await init.body.cancel();
      return new Response(null, {
        status: init.method === "HEAD" ? 200 : 204,
        headers: { "upload-offset": String(offset), "upload-defer-length": "1" },
      });
    }) as typeof globalThis.fetch;
    const data = noEndView(byteStream(new Uint8Array(have), 65536));
    const client = createBaseClient(BASE, "anon-key-123456", { fetch });
    const r = await createResumableUpload(client, "b", "p", data, {
      chunkSize: 1 << 20,
      uploadUrl: `${BASE}/storage/v1/upload/resumable/u1`,
      maxAttempts: 1,
    }).await();
    // It failed with "Invalid typed array length": the dropped bytes' buffer was rebuilt at its
    // full size from the fresh, smaller one the ending read left.
    assert.ok(!r.ok);
    assert.equal(r.error.category, "INVALID_ARGUMENT");
    assert.equal(r.error.message, `Cannot resume the stream at byte ${have}: it ended before`);
  }
});
