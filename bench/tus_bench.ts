/**
 * Resumable upload throughput: fetchbase vs a hand-written TUS loop over
 * bare fetch (POST, then PATCH 6 MiB chunks), both to the same @tus/server
 * on loopback, in the same run. Also reports peak RSS growth per uploader.
 *
 * Fairness: one untimed warm-up upload each; the order alternates every
 * round (hand-written first in even rounds, fetchbase first in odd ones); and
 * each upload's files are deleted after it is measured, so every upload
 * starts with the same disk state (kept files slow later uploads down).
 *
 * Run: deno run --allow-all bench/tus_bench.ts [MiB=256] [rounds=3]
 */
import { createServer } from "node:http";
import { Server } from "@tus/server";
import { FileStore } from "@tus/file-store";
import { createBaseClient } from "../core/client.ts";
import { createResumableUpload } from "../storage/tus.ts";

const MIB = 1024 * 1024;
const size = Number(Deno.args[0] ?? 256) * MIB;
const rounds = Number(Deno.args[1] ?? 3);
const CHUNK = 6 * MIB;
const PATH = "/storage/v1/upload/resumable";

const dir = await Deno.makeTempDir();
const tus = new Server({ path: PATH, datastore: new FileStore({ directory: dir }) });
const http = createServer((req, res) => tus.handle(req, res));
await new Promise<void>((r) => http.listen(0, "127.0.0.1", () => r()));
const base = `http://127.0.0.1:${(http.address() as { port: number }).port}`;

/** A Blob of `size` bytes built from one reusable 1 MiB part (not materialised). */
const part = new Uint8Array(MIB).map((_, i) => i & 0xff);
const blob = new Blob(Array.from({ length: size / MIB }, () => part));

async function handWritten(): Promise<void> {
  const created = await fetch(`${base}${PATH}`, {
    method: "POST",
    headers: {
      "Tus-Resumable": "1.0.0",
      "Upload-Length": String(size),
      "Upload-Metadata": "bucketName YQ==,objectName Yg==",
    },
  });
  const location = created.headers.get("location")!;
  await created.body?.cancel();
  for (let offset = 0; offset < size; offset += CHUNK) {
    const body = new Uint8Array(
      await blob.slice(offset, Math.min(size, offset + CHUNK)).arrayBuffer(),
    );
    const r = await fetch(location, {
      method: "PATCH",
      headers: {
        "Tus-Resumable": "1.0.0",
        "Upload-Offset": String(offset),
        "Content-Type": "application/offset+octet-stream",
      },
      body,
    });
    await r.body?.cancel();
    if (r.status !== 204) throw new Error(`PATCH ${r.status}`);
  }
}

const client = createBaseClient(base, "bench-key-123456");
async function fetchbase(): Promise<void> {
  const r = await createResumableUpload(client, "a", "b", blob, { chunkSize: CHUNK }).await();
  if (!r.ok) throw new Error(r.error.message);
}

/** Deletes finished uploads (outside the timed part). */
async function clean(): Promise<void> {
  for await (const f of Deno.readDir(dir)) await Deno.remove(`${dir}/${f.name}`);
}

async function measure(fn: () => Promise<void>) {
  const rss0 = Deno.memoryUsage().rss;
  let peak = rss0;
  const t = setInterval(() => (peak = Math.max(peak, Deno.memoryUsage().rss)), 10);
  const start = performance.now();
  await fn();
  const ms = performance.now() - start;
  clearInterval(t);
  await clean();
  return {
    mibps: size / MIB / (ms / 1000),
    peakMib: (Math.max(peak, Deno.memoryUsage().rss) - rss0) / MIB,
  };
}

const results: Record<string, Array<{ mibps: number; peakMib: number }>> = {
  hand: [],
  fetchbase: [],
};
await measure(handWritten);
await measure(fetchbase);
for (let i = 0; i < rounds; i++) {
  const order = i % 2 === 0 ? ["hand", "fetchbase"] as const : ["fetchbase", "hand"] as const;
  for (const who of order) {
    results[who].push(await measure(who === "hand" ? handWritten : fetchbase));
  }
}
const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const hand = median(results.hand.map((r) => r.mibps));
const fb = median(results.fetchbase.map((r) => r.mibps));
console.log(`size ${size / MIB} MiB, chunk 6 MiB, ${rounds} rounds (median)`);
console.log(
  `hand-written fetch loop: ${hand.toFixed(0)} MiB/s, peak RSS +${
    median(results.hand.map((r) => r.peakMib)).toFixed(0)
  } MiB`,
);
console.log(
  `fetchbase:               ${fb.toFixed(0)} MiB/s, peak RSS +${
    median(results.fetchbase.map((r) => r.peakMib)).toFixed(0)
  } MiB`,
);
console.log(`ratio fetchbase / hand-written: ${(fb / hand).toFixed(2)}x`);
for (const who of ["hand", "fetchbase"] as const) {
  console.log(`  ${who} rounds: ${results[who].map((r) => r.mibps.toFixed(0)).join(", ")} MiB/s`);
}
await new Promise((r) => http.close(r));
await Deno.remove(dir, { recursive: true });
