// @ts-nocheck -- one upload in its own Node process, for bench/tus_node.ts.
// Usage: node tus_upload.mjs <mode: fetchbase|fetchbase-bytes|fetchbase-blob|fetchloop|httploop> <MiB> <base url> <npm build dir>
import { request } from "node:http";
import { createWriteStream, openAsBlob, rmSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [mode, mib, base, pkg] = process.argv.slice(2);
const MIB = 1024 * 1024;
const CHUNK = 6 * MIB;
const size = Number(mib) * MIB;
const PATH = "/storage/v1/upload/resumable";

/** A stream of `size` bytes generated on the fly (nothing held beyond one piece). */
function source() {
  let sent = 0;
  return new ReadableStream({
    pull(c) {
      if (sent >= size) return c.close();
      const n = Math.min(MIB, size - sent);
      c.enqueue(new Uint8Array(n).fill(sent / MIB & 0xff));
      sent += n;
    },
  });
}

/**
 * The same bytes as a byte stream, the kind a file read stream or a request
 * body is: a BYOB read gets up to 1 MiB written into its own view (as a file
 * read writes into the buffer it is given); a default read gets a new piece.
 */
function byteSource() {
  let sent = 0;
  return new ReadableStream({
    type: "bytes",
    pull(c) {
      const req = c.byobRequest;
      if (sent >= size) {
        c.close();
        req?.respond(0);
        return;
      }
      const n = Math.min(MIB, size - sent, req?.view?.byteLength ?? MIB);
      if (req?.view) {
        new Uint8Array(req.view.buffer, req.view.byteOffset, n).fill(sent / MIB & 0xff);
        req.respond(n);
      } else c.enqueue(new Uint8Array(n).fill(sent / MIB & 0xff));
      sent += n;
    },
  });
}

/** Re-chunks a stream into exactly CHUNK-sized buffers (one at a time). */
async function* chunks(stream) {
  const reader = stream.getReader();
  let buf = new Uint8Array(CHUNK);
  let fill = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    let off = 0;
    while (off < value.length) {
      const take = Math.min(CHUNK - fill, value.length - off);
      buf.set(value.subarray(off, off + take), fill);
      fill += take;
      off += take;
      if (fill === CHUNK) {
        yield buf;
        buf = new Uint8Array(CHUNK);
        fill = 0;
      }
    }
  }
  if (fill > 0) yield buf.subarray(0, fill);
}

const meta = "bucketName YQ==,objectName Yg==";
async function create() {
  const r = await fetch(`${base}${PATH}`, {
    method: "POST",
    headers: { "Tus-Resumable": "1.0.0", "Upload-Length": String(size), "Upload-Metadata": meta },
  });
  await r.body?.cancel();
  return r.headers.get("location");
}

async function fetchLoop() {
  const location = await create();
  let offset = 0;
  for await (const chunk of chunks(source())) {
    const r = await fetch(location, {
      method: "PATCH",
      headers: {
        "Tus-Resumable": "1.0.0",
        "Upload-Offset": String(offset),
        "Content-Type": "application/offset+octet-stream",
      },
      body: chunk,
    });
    await r.body?.cancel();
    offset += chunk.length;
  }
}

async function httpLoop() {
  const location = await create();
  let offset = 0;
  for await (const chunk of chunks(source())) {
    await new Promise((resolve, reject) => {
      const req = request(location, {
        method: "PATCH",
        headers: {
          "Tus-Resumable": "1.0.0",
          "Upload-Offset": String(offset),
          "Content-Type": "application/offset+octet-stream",
          "Content-Length": chunk.length,
        },
      }, (res) => {
        res.resume();
        res.on("end", resolve);
      });
      req.on("error", reject);
      req.end(chunk);
    });
    offset += chunk.length;
  }
}

/** A file-backed Blob for mode fetchbase-blob, made before the baseline (see below). */
let blob = null;

/** fetchbase uploading the generated stream, or the Blob in mode fetchbase-blob. */
async function fetchbase() {
  const { createBaseClient } = await import(`${pkg}/esm/core/mod.js`);
  const { createResumableUpload } = await import(`${pkg}/esm/storage/mod.js`);
  const client = createBaseClient(base, "bench-key-123456");
  const data = blob ?? (mode === "fetchbase-bytes" ? byteSource() : source());
  const r = await createResumableUpload(client, "a", "b", data, { chunkSize: CHUNK, size }).await();
  if (!r.ok) throw new Error(r.error.message);
}

const run = {
  fetchbase,
  "fetchbase-bytes": fetchbase,
  "fetchbase-blob": fetchbase,
  fetchloop: fetchLoop,
  httploop: httpLoop,
}[mode];
if (mode.startsWith("fetchbase")) await import(`${pkg}/esm/storage/mod.js`); // load code before the baseline
if (mode === "fetchbase-blob") {
  // A file-backed Blob, as a Node server would upload a file: nothing of it in memory.
  const file = join(tmpdir(), `fetchbase-bench-${process.pid}.bin`);
  const out = createWriteStream(file);
  for await (const piece of source()) if (!out.write(piece)) await once(out, "drain");
  await new Promise((resolve) => out.end(resolve));
  blob = await openAsBlob(file);
  process.on("exit", () => rmSync(file, { force: true }));
}
globalThis.gc?.();
const baseline = process.memoryUsage().rss;
let peak = baseline;
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
const start = performance.now();
await run();
const ms = performance.now() - start;
clearInterval(timer);
peak = Math.max(peak, process.memoryUsage().rss);
console.log(
  JSON.stringify({
    mode,
    mib: Number(mib),
    mibps: size / MIB / (ms / 1000),
    peakAboveBaselineMiB: (peak - baseline) / MIB,
  }),
);
