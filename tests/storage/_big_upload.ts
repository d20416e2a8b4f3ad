/**
 * Run by `flow_test.ts` in a process of its own, so that tests running in
 * parallel cannot add to its memory: streams a 512 MiB body through
 * `StorageClient.upload` to a local server and prints, as JSON, the bytes the
 * server received and how far RSS rose above the baseline at its peak.
 *
 * @module
 */

import { createBaseClient } from "../../core/client.ts";
import { createStorageClient } from "../../storage/mod.ts";
import { serve } from "../support/serve.ts";

const size = 512 * 1024 * 1024;
const piece = 1024 * 1024;
let received = 0;
await using server = await serve(async (req) => {
  const reader = req.body!.getReader();
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.length;
  }
  return Response.json({ Key: "big/blob.bin", Id: "1" });
});
const storage = createStorageClient(createBaseClient(server.url, "anon-key-123456"));
let sent = 0;
const body = new ReadableStream<Uint8Array>({
  pull(c) {
    if (sent >= size) return c.close();
    c.enqueue(new Uint8Array(piece));
    sent += piece;
  },
});
const baseline = Deno.memoryUsage().rss;
let peak = baseline;
const sampler = setInterval(() => (peak = Math.max(peak, Deno.memoryUsage().rss)), 20);
let key: string;
try {
  key = (await storage.upload("big", "blob.bin", body)).getOrThrow();
} finally {
  clearInterval(sampler);
}
peak = Math.max(peak, Deno.memoryUsage().rss);
console.log(JSON.stringify({ key, size, received, grown: peak - baseline }));
