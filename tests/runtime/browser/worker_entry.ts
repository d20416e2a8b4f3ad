// Runs in a dedicated Web Worker the page starts (`worker` in `flows.ts`), where an app moves its
// uploads off the main thread: no `document`, no `localStorage`. The page posts the project's URL,
// key, a user's token and a File; the worker verifies the token locally, generates PKCE, reads
// rows, uploads the File plainly and resumably (in chunks), downloads it as a stream, and posts
// back what it saw.
import { createClient } from "../../../client.ts";
import { generatePkceParams } from "../../../auth/pkce.ts";
import { getClaims } from "../../../auth/get_claims.ts";
import { type Json, readAll, said, same } from "../flows/helpers.ts";

// The worker's scope (Deno's types, which check this file, have no WebWorker library).
declare const self: {
  onmessage: ((event: { data: WorkerInput }) => void) | null;
  postMessage(message: unknown): void;
};

/** What the page sends. */
export interface WorkerInput {
  api: string;
  key: string;
  token: string;
  file: File;
}

self.onmessage = async ({ data }) => {
  const out: Json = {};
  try {
    const client = createClient(data.api, data.key, { accessToken: data.token });
    out.inWorker = typeof (globalThis as { document?: unknown }).document === "undefined" &&
      typeof (globalThis as { localStorage?: unknown }).localStorage === "undefined";
    const claims = await getClaims(client.auth, data.token);
    out.claims = claims.ok ? claims.value.header.algorithm : said(claims);
    out.pkce = (await generatePkceParams()).codeChallengeMethod;
    const rows = await client.database.select("todos", {
      columns: "title",
      block: (q) => q.limit(1),
    });
    out.select = said(rows);
    const bytes = new Uint8Array(await data.file.arrayBuffer());
    out.plain = said(await client.storage.upload("browser", "worker/plain.bin", data.file));
    const up = client.storage.createResumableUpload("browser", "worker/tus.bin", data.file, {
      chunkSize: 64 * 1024,
      maxAttempts: 1,
    });
    out.resumable = said(await up.await());
    const back = await client.storage.downloadStream("browser", "worker/tus.bin");
    out.streamBack = back.ok ? same(await readAll(back.value.stream), bytes) : said(back);
    const plainBack = await client.storage.downloadBytes("browser", "worker/plain.bin");
    out.plainBack = plainBack.ok ? same(plainBack.value, bytes) : said(plainBack);
    out.type = (await client.storage.info("browser", "worker/plain.bin")).getOrNull()?.contentType;
  } catch (e) {
    out.error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  }
  self.postMessage(out);
};
