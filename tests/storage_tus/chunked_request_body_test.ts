// A resumable upload of a request body Deno.serve received chunked (unknown length), as an edge
// function passes it on. Deno 2.9 never answers a BYOB read of fewer than about 8 bytes at a
// chunk boundary of such a body: the upload's one-byte check for the stream's end hung until its
// caller gave up (found running an edge function against the Storage API), and a read of the
// few bytes left to fill a chunk could hang the same way. Reads are never that small now.
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createResumableUpload } from "../../storage/mod.ts";
import { bytes, withPeer } from "./_tus_peer.ts";

/** A chunked request body of `data`, in pieces of `piece` bytes. */
function pieces(data: Uint8Array, piece: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (at >= data.length) return c.close();
      c.enqueue(data.slice(at, at + piece));
      at += piece;
    },
  });
}

Deno.test("a resumable upload of a chunked request body of unknown length (Deno.serve) completes, chunk boundaries on the body's or not", async () => {
  await withPeer(async (peer) => {
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
      const chunk = Number(new URL(req.url).searchParams.get("chunk"));
      const up = createResumableUpload(
        createBaseClient(peer.url, "anon-key-123456"),
        "b",
        "p",
        req.body!,
        {
          chunkSize: chunk,
        },
      );
      const r = await up.await({ signal: AbortSignal.timeout(5_000) });
      return Response.json({ ok: r.ok, error: r.ok ? null : r.error.message, url: up.uploadUrl });
    });
    try {
      const data = bytes(12 * 65_536 + 300);
      // 64 KiB pieces: each 256 KiB chunk ends on a piece's end. 1000-byte pieces: never does,
      // and reads return odd lengths, leaving a few bytes to fill a chunk.
      for (const [piece, chunk] of [[65_536, 262_144], [65_536, 65_536], [1_000, 262_144]]) {
        const res = await fetch(`http://127.0.0.1:${server.addr.port}/?chunk=${chunk}`, {
          method: "POST",
          body: pieces(data, piece),
        });
        const out = await res.json();
        assert.equal(out.error, null, `${piece}/${chunk}`);
        assert.deepEqual(await peer.bytesOf(out.url), data, `${piece}/${chunk}`);
      }
    } finally {
      await server.shutdown();
    }
  });
});
