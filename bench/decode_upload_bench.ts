/**
 * Reading large typed answers and uploading bytes, against postgrest-js and storage-js in the
 * same run, over a fetch that answers at once (no network):
 * - `decode <kind>`: `selectTyped` of 20,000 rows against postgrest-js's `select()`, for rows of
 *   plain values, float8 values (16 digits and more in a row), text holding digit runs, and int8
 *   ids beyond 2^53 (fetchbase reads them exact, as `bigint`; postgrest-js rounds them);
 * - `upload`: a 1 MiB `Uint8Array` through `StorageClient.upload` and storage-js's `upload`;
 * - `download`: 16 MiB read whole, `downloadBytes` against storage-js's `download` (a Blob).
 * Run: deno bench --allow-all bench/decode_upload_bench.ts
 */
import { PostgrestClient } from "@supabase/postgrest-js";
import { StorageClient as StorageJs } from "@supabase/storage-js";
import { createBaseClient } from "../core/client.ts";
import { createDatabaseClient, selectTyped } from "../database/mod.ts";
import { createStorageClient } from "../storage/mod.ts";

const BASE = "https://project.example.com";
const KEY = "anon-key";
const ROWS = 20_000;

const kinds: Record<string, (i: number) => string> = {
  plain: (i) => `{"id":${i},"title":"todo ${i}","done":false,"price":${i * 1.25}}`,
  float8: (i) => `{"id":${i},"title":"todo ${i}","done":false,"score":${(i % 1000) / 3 + 0.1}}`,
  "digits in text": (i) => `{"id":${i},"title":"todo ${i}","ref":"ORD-${1e15 + i}"}`,
  "int8 ids": (i) => `{"id":${9007199254740993n + BigInt(i)},"title":"todo ${i}","done":false}`,
};

for (const [kind, row] of Object.entries(kinds)) {
  const body = `[${Array.from({ length: ROWS }, (_, i) => row(i)).join(",")}]`;
  const fetchNow = (() =>
    Promise.resolve(
      new Response(body, { headers: { "content-type": "application/json" } }),
    )) as typeof fetch;
  const db = createDatabaseClient(createBaseClient(BASE, KEY, { fetch: fetchNow }));
  const pg = new PostgrestClient(`${BASE}/rest/v1`, { fetch: fetchNow });
  Deno.bench(
    `postgrest-js select, ${kind}`,
    { group: `decode ${kind}`, baseline: true },
    async () => {
      const r = await pg.from("todos").select();
      if (r.error) throw new Error(r.error.message);
    },
  );
  Deno.bench(`fetchbase selectTyped, ${kind}`, { group: `decode ${kind}` }, async () => {
    const r = await selectTyped(db, "todos");
    if (!r.ok) throw new Error(r.error.message);
  });
}

const uploaded = (() =>
  Promise.resolve(
    Response.json({ Key: "docs/a.bin", Id: "00000000-0000-0000-0000-000000000000" }),
  )) as typeof fetch;
const bytes = new Uint8Array(1 << 20).fill(1);
const storage = createStorageClient(createBaseClient(BASE, KEY, { fetch: uploaded }));
const storageJs = new StorageJs(`${BASE}/storage/v1`, { apikey: KEY }, uploaded);
Deno.bench("storage-js upload, 1 MiB", { group: "upload", baseline: true }, async () => {
  const r = await storageJs.from("docs").upload("a.bin", bytes, {
    contentType: "application/octet-stream",
  });
  if (r.error) throw r.error;
});
Deno.bench("fetchbase upload, 1 MiB", { group: "upload" }, async () => {
  const r = await storage.upload("docs", "a.bin", bytes, {
    contentType: "application/octet-stream",
  });
  if (!r.ok) throw new Error(r.error.message);
});

// A 16 MiB download read whole: storage-js's Blob (then its bytes) against fetchbase's
// `downloadBytes`, which reads the body as a stream to hold each pause to the client's timeout.
const object = new Uint8Array(16 << 20).fill(2);
const serving = (() => Promise.resolve(new Response(object))) as typeof fetch;
const readStorage = createStorageClient(createBaseClient(BASE, KEY, { fetch: serving }));
const readStorageJs = new StorageJs(`${BASE}/storage/v1`, { apikey: KEY }, serving);
Deno.bench("storage-js download, 16 MiB", { group: "download", baseline: true }, async () => {
  const r = await readStorageJs.from("docs").download("a.bin");
  if (r.error) throw r.error;
  if ((await r.data.arrayBuffer()).byteLength !== object.length) throw new Error("short");
});
Deno.bench("fetchbase downloadBytes, 16 MiB", { group: "download" }, async () => {
  const r = await readStorage.downloadBytes("docs", "a.bin");
  if (!r.ok) throw new Error(r.error.message);
  if (r.value.length !== object.length) throw new Error("short");
});
