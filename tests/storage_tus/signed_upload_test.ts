/**
 * Resumable uploads with a signed upload token (`signedUploadToken`): the Storage API's
 * `/upload/resumable/sign` route, with the token in `x-signature` on every request, and no
 * session needed. Checked on the wire (a scripted TUS server) and as a flow against the local
 * backend, which serves that route as the Storage API does.
 */

import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createStorageClient, uploadResumable } from "../../storage/mod.ts";
import { recordingFetch } from "../support/recording_fetch.ts";
import { localUser } from "../support/local_user.ts";
import { BASE, KEY, tusScript } from "./_tus_script.ts";

const SIGNED = `${BASE}/storage/v1/upload/resumable/sign/id1`;

Deno.test("a signed resumable upload creates at /upload/resumable/sign and sends x-signature with every request", async () => {
  const rec = recordingFetch(tusScript({ location: SIGNED }));
  const storage = createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  const data = new Uint8Array(10).map((_, i) => i);
  const r = await uploadResumable(storage, "b", "a.bin", data, {
    signedUploadToken: "tok-123",
    chunkSize: 4,
  });
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.deepEqual(
    rec.requests.map((q) => [q.method, q.url.pathname]),
    [
      ["POST", "/storage/v1/upload/resumable/sign"],
      ["PATCH", "/storage/v1/upload/resumable/sign/id1"],
      ["PATCH", "/storage/v1/upload/resumable/sign/id1"],
    ],
  );
  for (const q of rec.requests) assert.equal(q.headers.get("x-signature"), "tok-123");
  // A resumed upload (HEAD first) sends it too.
  const again = recordingFetch(tusScript({ location: SIGNED }));
  const s2 = createStorageClient(createBaseClient(BASE, KEY, { fetch: again.fetch }));
  const resumed = await s2.createResumableUpload("b", "a.bin", data, {
    signedUploadToken: "tok-123",
    uploadUrl: SIGNED,
  }).await();
  assert.ok(resumed.ok, resumed.ok ? "" : resumed.error.message);
  assert.equal(again.requests[0].method, "HEAD");
  assert.ok(again.requests.every((q) => q.headers.get("x-signature") === "tok-123"));
  // Without the option, the plain route and no x-signature.
  const plain = recordingFetch(tusScript());
  const s3 = createStorageClient(createBaseClient(BASE, KEY, { fetch: plain.fetch }));
  assert.ok((await uploadResumable(s3, "b", "a.bin", data)).ok);
  assert.equal(plain.requests[0].url.pathname, "/storage/v1/upload/resumable");
  assert.ok(plain.requests.every((q) => !q.headers.has("x-signature")));
});

Deno.test("the token goes to the client's origin only, and never into a failure", async () => {
  const foreign = "https://uploads.elsewhere.example/storage/v1/upload/resumable/sign/id1";
  const rec = recordingFetch(tusScript({ location: foreign }));
  const storage = createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  const data = new Uint8Array(10);
  await uploadResumable(storage, "b", "a.bin", data, {
    signedUploadToken: "tok-secret-42",
    chunkSize: 4,
  });
  assert.equal(rec.requests[0].headers.get("x-signature"), "tok-secret-42");
  const later = rec.requests.slice(1);
  assert.ok(later.length > 0);
  for (const q of later) {
    assert.equal(q.url.origin, "https://uploads.elsewhere.example");
    assert.equal(q.headers.get("x-signature"), null);
  }
  // A refusal that quotes the token does not carry it.
  const echo = recordingFetch((q) =>
    new Response(`bad signature ${q.headers.get("x-signature")}`, { status: 400 })
  );
  const s2 = createStorageClient(
    createBaseClient(BASE, KEY, { fetch: echo.fetch, retry: { maxAttempts: 1 } }),
  );
  const r = await s2.createResumableUpload("b", "a.bin", data, {
    signedUploadToken: "tok-secret-42",
    maxAttempts: 1,
  }).await();
  assert.equal(r.ok, false);
  assert.ok(!JSON.stringify(r.errorOrNull()).includes("tok-secret-42"));
  assert.ok(!String(r.errorOrNull()?.message).includes("tok-secret-42"));
});

Deno.test("a signedUploadToken that is no non-blank string is a TypeError at creation", () => {
  const storage = createStorageClient(createBaseClient(BASE, KEY));
  for (const bad of ["", "  ", 42, {}]) {
    assert.throws(
      () =>
        storage.createResumableUpload("b", "a.bin", new Uint8Array(1), {
          signedUploadToken: bad as string,
        }),
      { name: "TypeError", message: /'signedUploadToken' must be a non-blank string/ },
    );
  }
});

Deno.test("local backend: a client with no session uploads resumably with a token a user signed; a token for another key is refused", async () => {
  const { server, apiKey, storage } = await localUser("signer@example.test");
  try {
    assert.ok((await storage.createBucket("drop", "drop")).ok);
    const token = (await storage.createSignedUploadUrl("drop", "in/big.bin")).getOrThrow();

    const browser = createStorageClient(createBaseClient(server.url, apiKey));
    const data = new Uint8Array(100_000).map((_, i) => i * 7);
    const up = browser.createResumableUpload("drop", "in/big.bin", data, {
      signedUploadToken: token,
      chunkSize: 32 * 1024,
    });
    const r = await up.await();
    assert.ok(r.ok, r.ok ? "" : r.error.message);
    assert.match(up.uploadUrl ?? "", /\/upload\/resumable\/sign\//);
    assert.deepEqual((await storage.downloadBytes("drop", "in/big.bin")).getOrThrow(), data);

    // The same token for another key, and no token at all, are refused.
    const other = await browser.createResumableUpload("drop", "in/other.bin", data, {
      signedUploadToken: token,
      maxAttempts: 1,
    }).await();
    assert.equal(other.ok, false);
    const none = await browser.createResumableUpload("drop", "in/none.bin", data, {
      maxAttempts: 1,
    }).await();
    assert.equal(none.errorOrNull()?.category, "FORBIDDEN");
    // Without upsert in the token, the existing object stays.
    const again = await browser.createResumableUpload("drop", "in/big.bin", new Uint8Array(3), {
      signedUploadToken: (await storage.createSignedUploadUrl("drop", "in/big.bin")).getOrThrow(),
      maxAttempts: 1,
    }).await();
    assert.equal(again.errorOrNull()?.category, "CONFLICT");
    const replace = await browser.createResumableUpload("drop", "in/big.bin", new Uint8Array(3), {
      signedUploadToken: (await storage.createSignedUploadUrl("drop", "in/big.bin", {
        upsert: true,
      })).getOrThrow(),
    }).await();
    assert.ok(replace.ok, replace.ok ? "" : replace.error.message);
    assert.equal((await storage.downloadBytes("drop", "in/big.bin")).getOrThrow().length, 3);

    // Paused after its first chunk, an upload goes on from its saved URL with a fresh token for
    // the same key (the server checks the token against the key), not with one for another key.
    const first = browser.createResumableUpload("drop", "in/paused.bin", data, {
      signedUploadToken: (await storage.createSignedUploadUrl("drop", "in/paused.bin"))
        .getOrThrow(),
      chunkSize: 32 * 1024,
    });
    const pause = new AbortController();
    const stop = first.progress.subscribe((p) => {
      if (p.bytesUploaded > 0) pause.abort();
    });
    const paused = await first.await({ signal: pause.signal });
    stop();
    assert.equal(paused.errorOrNull()?.category, "CANCELLED");
    const url = first.uploadUrl!;
    const elsewhere = await browser.createResumableUpload("drop", "in/paused.bin", data, {
      signedUploadToken: (await storage.createSignedUploadUrl("drop", "in/x.bin")).getOrThrow(),
      uploadUrl: url,
      maxAttempts: 1,
    }).await();
    assert.equal(elsewhere.ok, false);
    const resumed = await browser.createResumableUpload("drop", "in/paused.bin", data, {
      signedUploadToken: (await storage.createSignedUploadUrl("drop", "in/paused.bin"))
        .getOrThrow(),
      uploadUrl: url,
    }).await();
    assert.ok(resumed.ok, resumed.ok ? "" : resumed.error.message);
    assert.deepEqual((await storage.downloadBytes("drop", "in/paused.bin")).getOrThrow(), data);
  } finally {
    await server.close();
  }
});

Deno.test("a signed upload with streamChunks sends each streamed chunk with its Content-Length, as an unsigned one does", async () => {
  for (const token of ["tok-123", undefined]) {
    const rec = recordingFetch(tusScript({ location: SIGNED }));
    const storage = createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
    const data = new Uint8Array(10).map((_, i) => i);
    const r = await uploadResumable(storage, "b", "a.bin", data, {
      signedUploadToken: token,
      chunkSize: 4,
      streamChunks: true,
    });
    assert.ok(r.ok, r.ok ? "" : r.error.message);
    assert.deepEqual(
      rec.requests.map((q) => [q.method, q.streamed, q.headers.get("content-length")]),
      [["POST", true, "4"], ["PATCH", true, "4"], ["PATCH", true, "2"]],
      String(token),
    );
  }
});
