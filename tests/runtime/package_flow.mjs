// @ts-nocheck -- runs against a built package, not type-checked by Deno
// The same flows on every runtime, inside a temporary project that imports the package by name:
// `node --test` and `bun test` with the npm build installed (tests/runtime/node_test.ts), and
// `deno test` with the JSR package from a local registry (tests/runtime/jsr_test.ts).
import test from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import * as fs from "node:fs";
import { open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "fetchbase";
import { createAuthClient, generatePkceParams, getClaims } from "fetchbase/auth";
import { createBaseClient } from "fetchbase/core";
import { createSessionManager, KeyValueSessionStorage } from "fetchbase/session";
import { column } from "fetchbase/database";
import { createSignedUrl, downloadBytes, upload } from "fetchbase/storage/objects";

const url = process.env.FETCHBASE_URL;
const key = process.env.FETCHBASE_KEY;

test("built package: sign up, local ES256 verification, streamed upload, filtered select", async () => {
  const client = createClient(url, key);
  const s = await client.auth.signUpWithEmail(`node-${Date.now()}@example.test`, "secret-pw");
  assert.ok(s.ok, s.ok ? "" : s.error.message);
  client.setAccessToken(s.value.accessToken);
  const claims = await getClaims(client.auth, s.value.accessToken);
  assert.ok(claims.ok);
  assert.equal(claims.value.header.algorithm, "ES256");
  // Another signature on the same token fails the local check.
  const token = s.value.accessToken;
  const tampered = await getClaims(
    client.auth,
    token.slice(0, -2) + (token.at(-2) === "A" ? "B" : "A") + "A",
  );
  assert.equal(tampered.ok ? "accepted" : tampered.error.code, "invalid_signature");
  const pkce = await generatePkceParams();
  assert.match(pkce.codeVerifier, /^[A-Za-z0-9_-]{43,128}$/);
  // The challenge recomputed with the runtime's own hash: base64url(SHA-256(verifier)).
  const { createHash } = await import("node:crypto");
  assert.equal(
    pkce.codeChallenge,
    createHash("sha256").update(pkce.codeVerifier).digest("base64url"),
  );

  const bucket = `b-${crypto.randomUUID().slice(0, 8)}`;
  assert.ok((await client.storage.createBucket(bucket, bucket)).ok);
  const body = new Blob([new Uint8Array(50_000).fill(7)]).stream();
  assert.ok((await client.storage.upload(bucket, "a/stream.bin", body)).ok);
  const back = await client.storage.downloadBytes(bucket, "a/stream.bin");
  assert.equal(back.value.length, 50_000);
  // The standalone object functions from their own subpath, over the same client.
  assert.ok((await upload(client, bucket, "b/plain.txt", "standalone")).ok);
  const text = await downloadBytes(client, bucket, "b/plain.txt");
  assert.equal(new TextDecoder().decode(text.value), "standalone");
  const signed = await createSignedUrl(client, bucket, "b/plain.txt", 60);
  assert.ok(
    signed.ok &&
      signed.value.startsWith(`${url}/storage/v1/object/sign/${bucket}/b/plain.txt?token=`),
  );

  await client.database.insert(
    "todos",
    JSON.stringify([{ title: "alpha" }, { title: "beta" }, { title: "alphabet" }]),
  );
  const r = await client.database.selectRange("todos", {
    columns: "title",
    block: (q) => q.where((w) => w.ilike(column("title"), "alpha%")).orderBy(column("title")),
  });
  assert.ok(r.ok);
  assert.equal(r.value.count, 2);
  assert.deepEqual(JSON.parse(r.value.body).map((x) => x.title), ["alpha", "alphabet"]);
});

test("resumable upload from a stream: on Node each chunk goes as a one-piece stream with its Content-Length (through Node's own fetch; a fetch given to the client gets bytes), on Bun and Deno as bytes", async () => {
  const sent = [];
  const own = globalThis.fetch;
  const recording = (input, init) => {
    if (String(input).includes("/upload/resumable") && init.method !== "HEAD") {
      sent.push({
        method: init.method,
        stream: init.body instanceof ReadableStream,
        length: init.headers["content-length"] ?? null,
      });
    }
    return own(input, init);
  };
  // The runtime's own fetch, recorded: the client is given none.
  globalThis.fetch = recording;
  try {
    await streamedChunks(createClient(url, key), sent, true);
  } finally {
    globalThis.fetch = own;
  }
  // The same recording given to the client: it may be a fetch that sends a stream as its text.
  sent.length = 0;
  await streamedChunks(createClient(url, key, { fetch: recording }), sent, false);
});

async function streamedChunks(client, sent, ownFetch) {
  const s = await client.auth.signUpWithEmail(
    `tus-${crypto.randomUUID()}@example.test`,
    "secret-pw",
  );
  assert.ok(s.ok, s.ok ? "" : s.error.message);
  client.setAccessToken(s.value.accessToken);
  const bucket = `t-${crypto.randomUUID().slice(0, 8)}`;
  assert.ok((await client.storage.createBucket(bucket, bucket)).ok);
  const chunk = 64 * 1024;
  const data = new Uint8Array(chunk * 3 + 321).map((_, i) => (i * 31 + (i >> 8)) & 0xff);
  const up = client.storage.createResumableUpload(bucket, "r/big.bin", new Blob([data]).stream(), {
    chunkSize: chunk,
  });
  const r = await up.await();
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  const back = await client.storage.downloadBytes(bucket, "r/big.bin");
  assert.deepEqual(back.value, data);
  const onNode = typeof globalThis.Bun === "undefined" && typeof globalThis.Deno === "undefined";
  const sizes = [chunk, chunk, chunk, 321];
  const streams = onNode && ownFetch;
  assert.deepEqual(
    sent,
    sizes.map((n, i) => ({
      method: i === 0 ? "POST" : "PATCH",
      stream: streams,
      length: streams ? String(n) : null,
    })),
  );
}

test("resumable upload from a byte stream: read with a BYOB reader into the chunk buffers, bytes intact", async () => {
  const client = createClient(url, key);
  const s = await client.auth.signUpWithEmail(`byob-${Date.now()}@example.test`, "secret-pw");
  assert.ok(s.ok, s.ok ? "" : s.error.message);
  client.setAccessToken(s.value.accessToken);
  const bucket = `t-${crypto.randomUUID().slice(0, 8)}`;
  assert.ok((await client.storage.createBucket(bucket, bucket)).ok);
  const chunk = 64 * 1024;
  const data = new Uint8Array(chunk * 2 + 999).map((_, i) => (i * 13 + (i >> 9)) & 0xff);
  let at = 0;
  let views = 0;
  const stream = new ReadableStream({
    type: "bytes",
    pull(c) {
      const req = c.byobRequest;
      if (at >= data.length) {
        c.close();
        req?.respond(0);
        return;
      }
      if (!req?.view) throw new Error("expected a BYOB read");
      views++;
      const n = Math.min(5000, req.view.byteLength, data.length - at);
      new Uint8Array(req.view.buffer, req.view.byteOffset, n).set(data.subarray(at, at + n));
      at += n;
      req.respond(n);
    },
  });
  const r = await client.storage.createResumableUpload(bucket, "r/byob.bin", stream, {
    chunkSize: chunk,
  }).await();
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.ok(views >= Math.ceil(data.length / 5000));
  const back = await client.storage.downloadBytes(bucket, "r/byob.bin");
  assert.deepEqual(back.value, data);
});

test("resumable upload from a file's byte stream of unknown length (FileHandle.readableWebStream)", async () => {
  const client = createClient(url, key);
  const s = await client.auth.signUpWithEmail(`file-${Date.now()}@example.test`, "secret-pw");
  assert.ok(s.ok, s.ok ? "" : s.error.message);
  client.setAccessToken(s.value.accessToken);
  const bucket = `t-${crypto.randomUUID().slice(0, 8)}`;
  assert.ok((await client.storage.createBucket(bucket, bucket)).ok);
  const data = new Uint8Array(200_000).map((_, i) => (i * 7 + (i >> 10)) & 0xff);
  const file = join(tmpdir(), `fetchbase-${crypto.randomUUID()}.bin`);
  await writeFile(file, data);
  const fh = await open(file);
  try {
    // Node 20's file byte streams take only views at the start of their buffer.
    const stream = fh.readableWebStream({ type: "bytes" });
    const r = await client.storage.createResumableUpload(bucket, "r/file.bin", stream, {
      chunkSize: 65536,
    }).await();
    assert.ok(r.ok, r.ok ? "" : r.error.message);
    assert.deepEqual((await client.storage.downloadBytes(bucket, "r/file.bin")).value, data);
  } finally {
    await fh.close();
    await rm(file, { force: true });
  }
});

test("a resumable upload answered with a redirect ends at once: one request, UNKNOWN, no token", async () => {
  const seen = [];
  const server = createServer((req, res) => {
    seen.push(req.method);
    req.resume();
    req.on("end", () => {
      res.writeHead(308, {
        location: "https://elsewhere.example/up?token=upload-token-0123456789",
      });
      res.end("moved");
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const c = createClient(`http://127.0.0.1:${server.address().port}`, key);
    const data = new Uint8Array(100_000).fill(3);
    const r = await c.storage.createResumableUpload("b", "p.bin", new Blob([data]), {
      chunkSize: 65536,
      retryBaseDelayMs: 1,
      retryMaxDelayMs: 1,
    }).await();
    assert.equal(r.ok, false);
    assert.equal(r.error.category, "UNKNOWN", `${r.error.message} (${r.error.cause?.cause})`);
    // Node refuses it (`redirect: "error"`) without telling the status; others answer the 308.
    const onNode = typeof globalThis.Bun === "undefined" && typeof globalThis.Deno === "undefined";
    assert.equal(r.error.status, onNode ? null : 308);
    assert.match(r.error.message, /redirected the upload.*do not follow redirects/);
    assert.ok(!r.error.message.includes("token"));
    assert.deepEqual(seen, ["POST"]);
  } finally {
    server.closeAllConnections?.();
    server.close();
  }
});

test("a timeout and a cancellation really abort a request the server never answers", async () => {
  let received = 0;
  let closed = 0;
  const server = createServer((req) => {
    received++;
    req.on("close", () => closed++);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const base = `http://127.0.0.1:${server.address().port}`;
    const c = createClient(base, key, { timeout: 200 });
    const t0 = Date.now();
    const timedOut = await c.database.select("todos");
    assert.equal(timedOut.ok, false);
    assert.equal(timedOut.error.category, "TIMEOUT");
    assert.ok(Date.now() - t0 < 3000);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const cancelled = await c.database.select("todos", { signal: ac.signal, timeout: 0 });
    assert.equal(cancelled.error.category, "CANCELLED");
    // The runtime's fetch read the lazily created signal: the server saw every request it got
    // close (on a loaded machine the 200 ms timeout may end a request before it reaches the
    // server, and it hears of a close late: up to 5 s).
    for (let i = 0; i < 250 && closed < received; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(received >= 1);
    assert.equal(closed, received);
  } finally {
    server.closeAllConnections?.();
    server.close();
  }
});

test("downloadStream streams an object, a range of it, and ends when the caller aborts", async () => {
  const client = createClient(url, key);
  const s = await client.auth.signUpWithEmail(`dl-${Date.now()}@example.test`, "secret-pw");
  assert.ok(s.ok, s.ok ? "" : s.error.message);
  client.setAccessToken(s.value.accessToken);
  const bucket = `d-${crypto.randomUUID().slice(0, 8)}`;
  assert.ok((await client.storage.createBucket(bucket, bucket)).ok);
  const data = new Uint8Array(2_000_000).map((_, i) => (i * 7 + (i >> 12)) & 0xff);
  assert.ok((await client.storage.upload(bucket, "d.bin", data)).ok);
  const whole = await client.storage.downloadStream(bucket, "d.bin");
  assert.ok(whole.ok, whole.ok ? "" : whole.error.message);
  assert.equal(whole.value.contentLength, data.length);
  assert.deepEqual(new Uint8Array(await new Response(whole.value.stream).arrayBuffer()), data);
  const part = await client.storage.downloadStream(bucket, "d.bin", {
    range: { start: 10, end: 19 },
  });
  assert.ok(part.ok, part.ok ? "" : part.error.message);
  assert.equal(part.value.status, 206);
  assert.equal(part.value.contentRange, `bytes 10-19/${data.length}`);
  assert.deepEqual(
    new Uint8Array(await new Response(part.value.stream).arrayBuffer()),
    data.subarray(10, 20),
  );
  // The caller's signal reaches the stream after the call has returned.
  const ac = new AbortController();
  const cut = await client.storage.downloadStream(bucket, "d.bin", { signal: ac.signal });
  assert.ok(cut.ok, cut.ok ? "" : cut.error.message);
  const reader = cut.value.stream.getReader();
  await reader.read();
  ac.abort();
  await assert.rejects(async () => {
    while (!(await reader.read()).done) { /* drained */ }
  });
});

test("a plain upload of a stream the server never answers is cut by its timeout and by a cancellation", async () => {
  const server = createServer((req) => req.resume());
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const cancelled = [];
  const endless = (name) =>
    new ReadableStream({
      pull: (c) =>
        new Promise((resolve) =>
          setTimeout(() => {
            try {
              c.enqueue(new Uint8Array(1024).fill(1));
            } catch {
              // cancelled meanwhile
            }
            resolve();
          }, 5)
        ),
      cancel: () => void cancelled.push(name),
    });
  try {
    const c = createClient(`http://127.0.0.1:${server.address().port}`, key);
    const t0 = Date.now();
    const timedOut = await c.storage.upload("b", "t.bin", endless("timeout"), { timeout: 200 });
    assert.equal(timedOut.ok ? "stored" : timedOut.error.category, "TIMEOUT");
    assert.ok(Date.now() - t0 < 3000);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const stopped = await c.storage.upload("b", "c.bin", endless("cancel"), { signal: ac.signal });
    assert.equal(stopped.ok ? "stored" : stopped.error.category, "CANCELLED");
    // The failed call cut the body's pipe: each source stream was cancelled, none is read on.
    for (let i = 0; i < 100 && cancelled.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(cancelled.sort(), ["cancel", "timeout"]);
  } finally {
    server.closeAllConnections?.();
    server.close();
  }
});

test("a session the session manager saved in a key-value store is restored and refreshed by another manager", async () => {
  const stored = new Map();
  const store = {
    get: (k) => stored.get(k) ?? null,
    set: (k, v) => void stored.set(k, v),
    remove: (k) => void stored.delete(k),
  };
  const base = createBaseClient(url, key);
  const auth = createAuthClient(base);
  const s = await auth.signUpWithEmail(`sm-${Date.now()}@example.test`, "secret-pw");
  assert.ok(s.ok, s.ok ? "" : s.error.message);
  const first = createSessionManager(auth, base, { storage: new KeyValueSessionStorage(store) });
  await first.saveSession(s.value);
  first.dispose();
  assert.equal(stored.size, 1);
  const base2 = createBaseClient(url, key);
  const auth2 = createAuthClient(base2);
  const second = createSessionManager(auth2, base2, { storage: new KeyValueSessionStorage(store) });
  try {
    const restored = await second.initialize();
    assert.ok(restored.ok, restored.ok ? "" : restored.error.message);
    assert.equal(restored.value.refreshToken, s.value.refreshToken);
    const refreshed = await second.refreshSession();
    assert.ok(refreshed.ok, refreshed.ok ? "" : refreshed.error.message);
    assert.notEqual(refreshed.value.refreshToken, s.value.refreshToken);
    assert.ok([...stored.values()][0].includes(refreshed.value.refreshToken));
    const claims = await getClaims(auth2, second.accessToken);
    assert.ok(claims.ok, claims.ok ? "" : claims.error.message);
    assert.equal(claims.value.claims.subject, s.value.user.id);
  } finally {
    second.dispose();
  }
});

test("data that fails while it is sent (a file stream of a missing file; on Node a file Blob whose file changed) is INVALID_ARGUMENT with its reason, sent once", async () => {
  let requests = 0;
  const client = createClient(url, key, {
    fetch: (input, init) => {
      requests++;
      return fetch(input, init);
    },
  });
  const s = await client.auth.signUpWithEmail(
    `src-${crypto.randomUUID()}@example.test`,
    "secret-pw",
  );
  assert.ok(s.ok, s.ok ? "" : s.error.message);
  client.setAccessToken(s.value.accessToken);
  const bucket = `f-${crypto.randomUUID().slice(0, 8)}`;
  assert.ok((await client.storage.createBucket(bucket, bucket)).ok);
  const missing = join(tmpdir(), `fetchbase-missing-${crypto.randomUUID()}.bin`);
  const sources = [["missing file", () => fs.createReadStream(missing), /ENOENT|no such file/i]];
  // Node's file Blob fails to read once its file changed; Bun reads the file as it is now, and
  // Deno reads it at once.
  const onNode = typeof globalThis.Bun === "undefined" && typeof globalThis.Deno === "undefined";
  const file = join(tmpdir(), `fetchbase-${crypto.randomUUID()}.bin`);
  if (onNode) {
    await writeFile(file, new Uint8Array(50_000).fill(1));
    const blob = await fs.openAsBlob(file);
    await writeFile(file, new Uint8Array(80_000).fill(2));
    sources.push(["changed file Blob", () => blob, /could not be read/i]);
  }
  try {
    for (const [name, data, reason] of sources) {
      requests = 0;
      const plain = await client.storage.upload(bucket, "plain.bin", data());
      assert.equal(plain.ok, false, name);
      assert.equal(plain.error.category, "INVALID_ARGUMENT", `${name}: ${plain.error.message}`);
      assert.match(plain.error.message, /^Cannot upload as reading 'data' failed: /, name);
      assert.match(plain.error.message, reason, name);
      assert.equal(requests, 1, `${name}: plain`);
      requests = 0;
      const r = await client.storage.createResumableUpload(bucket, "tus.bin", data(), {
        chunkSize: 65536,
        retryBaseDelayMs: 1,
      }).await();
      assert.equal(r.ok, false, name);
      assert.equal(r.error.category, "INVALID_ARGUMENT", `${name}: ${r.error.message}`);
      assert.match(r.error.message, reason, name);
      assert.ok(requests <= 1, `${name}: resumable sent ${requests} requests`);
    }
  } finally {
    await rm(file, { force: true });
  }
});
