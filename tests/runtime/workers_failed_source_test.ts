/**
 * Cloudflare Workers: an upload whose data fails while it is sent stores nothing and fails. workerd
 * sends a JavaScript stream body that errors as if it had ended there, so the server stored the
 * bytes before the failure as the whole object and the upload answered Success: a stream that
 * broke, or a Worker's own request body whose caller left mid-upload (found against the Storage
 * API; the local backend stores a cut body the same way). Runs at the runner's current
 * compatibility date, 2024-01-01, 2022-11-30 and 2022-01-01 (before it the transport sends the
 * stream without its pipe).
 */
import assert from "node:assert/strict";
import { createLocalBackend } from "../../demo/local_backend/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import { createStorageClient } from "../../storage/client.ts";
import { serve } from "../support/serve.ts";
import { startWorker } from "./support.ts";

const root = new URL("../../", import.meta.url).pathname;

for (const date of [undefined, "2024-01-01", "2022-11-30", "2022-01-01"]) {
  Deno.test(`workerd${date ? ` at ${date}` : ""}: an upload whose data fails while it is sent (a broken stream, a caller leaving) stores nothing and fails`, async () => {
    const backend = await createLocalBackend();
    const server = await serve(backend.app.fetch);
    const tmp = await Deno.makeTempDir({ prefix: "fetchbase-worker-failed-source-" });
    const storage = createStorageClient(createBaseClient(server.url, backend.serviceKey));
    assert.ok((await storage.createBucket("b", "b")).ok);
    const worker = await startWorker(
      `${root}tests/runtime/workers/failed_source_worker.ts`,
      tmp,
      server.url,
      backend.serviceKey,
      date,
    );
    try {
      const res = await fetch(new URL("broken?key=broken.bin", worker.url));
      assert.deepEqual(
        await res.json(),
        date === "2022-01-01" ? { constructs: false } : {
          ok: false,
          category: "INVALID_ARGUMENT",
          message: "Cannot upload as reading 'data' failed: the source broke",
        },
      );
      assert.equal((await storage.info("b", "broken.bin")).errorOrNull()?.category, "NOT_FOUND");

      // An object stored whole, then a caller that leaves after 300,000 bytes of its replacement.
      assert.ok((await storage.upload("b", "proxied.bin", new Uint8Array(10).fill(1))).ok);
      const leaving = new AbortController();
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(c) {
          if (sent >= 300_000) {
            await new Promise((r) => setTimeout(r, 200)); // the Worker's upload is under way
            return leaving.abort();
          }
          c.enqueue(new Uint8Array(50_000).fill(9));
          sent += 50_000;
        },
      });
      await fetch(new URL("proxy?key=proxied.bin", worker.url), {
        method: "POST",
        body,
        signal: leaving.signal,
      }).then((r) => r.body?.cancel(), () => {});
      // The Worker's upload ends once its request body fails; the whole object stays.
      let stored: Uint8Array | null = null;
      for (let i = 0; i < 15; i++) {
        await new Promise((r) => setTimeout(r, 100));
        stored = (await storage.downloadBytes("b", "proxied.bin")).getOrThrow();
      }
      // Length and bytes apart: a diff of a cut object's bytes would take minutes.
      assert.deepEqual([stored?.length, new Set(stored)], [10, new Set([1])]);
    } finally {
      await worker.stop();
      await server.close();
      await Deno.remove(tmp, { recursive: true });
    }
  });
}
