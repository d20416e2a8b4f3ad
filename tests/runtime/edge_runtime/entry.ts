/**
 * The library's main flows inside Vercel's Edge Runtime (the `edge-runtime` npm package: what
 * `next dev` and `vercel dev` run middleware and edge routes in, a `node:vm` context with web APIs
 * of its own), for `tests/runtime/edge_runtime_test.ts`. A fetch event runs every flow against the
 * local backend at `?api=` and answers their results as JSON: sessions (a manager over an
 * in-memory store, a refresh, a second manager restoring it), cancellation, the database, storage
 * (bytes, a Blob, a string and a stream uploaded; downloads, ranges, a signed URL) and a resumable
 * upload in chunks.
 */
import { createClient } from "../../../client.ts";
import { KeyValueSessionStorage, webStorageStore } from "../../../session/storage.ts";
import { type Json, said, same } from "../flows/helpers.ts";
import { sessionsFlow } from "../flows/sessions.ts";
import { abortFlow } from "../flows/abort.ts";
import { databaseFlow } from "../flows/database.ts";
import { BYTES, commonUploads, storageFlow } from "../flows/storage.ts";

// The Edge Runtime's service-worker scope (Deno's types, which check this file, have none).
declare function addEventListener(
  type: "fetch",
  listener: (event: { request: Request; respondWith(r: Promise<Response>): void }) => void,
): void;

addEventListener("fetch", (event) => event.respondWith(run(new URL(event.request.url))));

async function run(url: URL): Promise<Response> {
  const api = url.searchParams.get("api")!;
  const key = url.searchParams.get("key")!;
  const token = url.searchParams.get("token")!;
  const bucket = url.searchParams.get("bucket")!;
  const items = new Map<string, string>();
  const sessionKey = "edge.session";
  const results: Record<string, Json> = {};
  const flows: Record<string, () => Promise<Json>> = {
    sessions: () =>
      sessionsFlow({
        client: () => createClient(api, key),
        email: `edge-${crypto.randomUUID().slice(0, 8)}@example.test`,
        password: "edge-secret-pw",
        from: "edge",
        storage: () =>
          new KeyValueSessionStorage(
            webStorageStore({
              getItem: (k) => items.get(k) ?? null,
              setItem: (k, v) => void items.set(k, v),
              removeItem: (k) => void items.delete(k),
            }),
            sessionKey,
          ),
        stored: () => Promise.resolve(items.get(sessionKey) ?? null),
        autoRefresh: false,
        refreshAcross: true,
      }),
    abort: () => abortFlow(createClient(api, key, { accessToken: token }), () => performance.now()),
    database: () =>
      databaseFlow({
        client: createClient(api, key, { accessToken: token }),
        anon: createClient(api, key),
        titles: ["edge the page", "run the edge", "read the edge"],
      }),
    storage: () =>
      storageFlow({
        storage: createClient(api, key, { accessToken: token }).storage,
        bucket,
        uploads: {
          ...commonUploads(),
          stream: {
            path: "files/stream.bin",
            data: new Blob([BYTES]).stream(),
            readBack: BYTES,
          },
        },
      }),
    resumable: async () => {
      const client = createClient(api, key, { accessToken: token });
      const data = new Uint8Array(3 * 64 * 1024 + 9).map((_, i) => (i * 3 + 7) % 256);
      const up = client.storage.createResumableUpload(bucket, "tus/edge.bin", new Blob([data]), {
        chunkSize: 64 * 1024,
        maxAttempts: 1,
      });
      const r = await up.await();
      const back = await client.storage.downloadBytes(bucket, "tus/edge.bin");
      return { upload: said(r), same: back.ok ? same(back.value, data) : said(back) };
    },
  };
  for (const [name, flow] of Object.entries(flows)) {
    try {
      results[name] = await flow();
    } catch (e) {
      results[name] = { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
    }
  }
  return new Response(JSON.stringify(results), { headers: { "content-type": "application/json" } });
}
