/**
 * Tests written from a mutation audit of `storage/`: each one pins a
 * documented behaviour that a one-line change of the sources left unnoticed.
 */

import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import {
  createSignedDownloadUrlsByPath,
  createStorageClient,
  decodeBucket,
  getAuthenticatedRenderUrlsByPath,
  getPublicUrlsByPath,
} from "../../storage/mod.ts";
import { jsonResponse, recordingFetch } from "../support/recording_fetch.ts";
import { BASE, KEY, makeStorage } from "./_helpers.ts";

const S = `${BASE}/storage/v1`;

Deno.test("transform sizes must be positive: a width, height or quality of 0 is refused", () => {
  const { storage, rec } = makeStorage();
  for (const name of ["width", "height", "quality"] as const) {
    assert.throws(() => storage.getPublicRenderUrl("b", "a.png", { [name]: 0 }), RangeError);
    assert.throws(
      () => storage.getAuthenticatedUrl("b", "a.png", { transform: { [name]: 0 } }),
      RangeError,
    );
  }
  assert.equal(
    storage.getPublicRenderUrl("b", "a.png", { width: 1, height: 1, quality: 1 }),
    `${S}/render/image/public/b/a.png?width=1&height=1&quality=1`,
  );
  assert.equal(rec.requests.length, 0);
});

Deno.test("transform resize takes each of cover, contain and fill", () => {
  const { storage } = makeStorage();
  for (const resize of ["cover", "contain", "fill"] as const) {
    assert.equal(
      storage.getPublicRenderUrl("b", "a.png", { resize }),
      `${S}/render/image/public/b/a.png?resize=${resize}`,
    );
  }
});

Deno.test("transform format must be one word: a dot or other punctuation is refused", async () => {
  const { storage, rec } = makeStorage();
  for (const format of ["we.bp", "webp&x=1", "a b", "../x"]) {
    assert.throws(() => storage.getPublicRenderUrl("b", "a.png", { format }), TypeError);
  }
  const r = await storage.createSignedUrl("b", "a.png", 60, { transform: { format: "we.bp" } });
  assert.equal(r.ok, false);
  assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 0);
  assert.equal(
    storage.getPublicRenderUrl("b", "a.png", { format: "avif" }),
    `${S}/render/image/public/b/a.png?format=avif`,
  );
});

Deno.test("upload cacheControl 0 is a valid max-age and is sent as max-age=0", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({ Key: "b/a.txt" }));
  const r = await storage.upload("b", "a.txt", new Uint8Array([1]), { cacheControl: 0 });
  assert.equal(r.getOrNull(), "b/a.txt");
  assert.equal(rec.only.headers.get("cache-control"), "max-age=0");
  const bad = await storage.upload("b", "a.txt", new Uint8Array([1]), { cacheControl: -1 });
  assert.equal(bad.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 1);
});

Deno.test("updateBucket: a refused PUT is a Failure, the bucket is not read back as if updated", async () => {
  const { storage, rec } = makeStorage((req) =>
    req.method === "PUT"
      ? jsonResponse({ statusCode: "403", error: "Unauthorized", message: "new row violates" }, {
        status: 400,
      })
      : jsonResponse({ id: "b", name: "b", public: false })
  );
  const r = await storage.updateBucket("b", { public: true });
  assert.equal(r.ok, false);
  assert.equal(r.errorOrNull()?.status, 403);
  assert.deepEqual(rec.requests.map((q) => q.method), ["PUT"]);
});

Deno.test("update with upsert sends x-upsert: true; update without upsert sends no x-upsert", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({ Key: "b/a.txt" }));
  assert.equal((await storage.update("b", "a.txt", "x", { upsert: true })).ok, true);
  assert.equal(rec.last.method, "PUT");
  assert.equal(rec.last.headers.get("x-upsert"), "true");
  assert.equal((await storage.update("b", "a.txt", "x")).ok, true);
  assert.equal(rec.last.headers.get("x-upsert"), null);
});

/** A base client whose default timeout is `ms`, answering after `delay` ms. */
function slowStorage(ms: number, delay: number, body: unknown) {
  const rec = recordingFetch((req) =>
    new Promise<Response>((resolve, reject) => {
      const t = setTimeout(() => resolve(jsonResponse(body)), delay);
      req.signal?.addEventListener("abort", () => {
        clearTimeout(t);
        reject(req.signal?.reason ?? new DOMException("aborted", "AbortError"));
      }, { once: true });
    })
  );
  const storage = createStorageClient(
    createBaseClient(BASE, KEY, { fetch: rec.fetch, timeout: ms }),
  );
  return { storage, rec };
}

Deno.test("uploads get the client's timeout plus 1 s per 16 KiB (a stream none); a download's answer must start within it", async () => {
  // 20 ms and 1 s per 16 KiB: 32 KiB of bytes have 2,020 ms, an answer after 80 ms comes in time.
  const { storage } = slowStorage(20, 80, { Key: "b/a.txt" });
  const bytes = new Uint8Array(32 * 1024);
  assert.equal((await storage.upload("b", "a.txt", bytes)).getOrNull(), "b/a.txt");
  assert.equal((await storage.update("b", "a.txt", new Blob([bytes]))).getOrNull(), "b/a.txt");
  assert.equal(
    (await storage.uploadToSignedUrl("b", "a.txt", "tok", "x".repeat(8192))).getOrNull(),
    "b/a.txt",
  );
  assert.equal(
    (await storage.upload("b", "a.txt", new Blob([bytes]).stream())).getOrNull(),
    "b/a.txt",
  );
  // One byte has 21 ms: the answer after 80 ms comes too late.
  assert.equal((await storage.upload("b", "a.txt", "x")).errorOrNull()?.category, "TIMEOUT");
  // A download's answer that starts after the client's timeout: no pause may last longer.
  assert.equal((await storage.download("b", "a.txt")).errorOrNull()?.category, "TIMEOUT");
  // Other calls keep the client's timeout.
  const info = await storage.info("b", "a.txt");
  assert.equal(info.errorOrNull()?.category, "TIMEOUT");
});

Deno.test("a one-byte range (end equal to start) is valid: bytes=5-5", async () => {
  const { storage, rec } = makeStorage(() => new Response(new Uint8Array([7]), { status: 206 }));
  const r = await storage.downloadBytes("b", "a.bin", { range: { start: 5, end: 5 } });
  assert.deepEqual(r.getOrNull(), new Uint8Array([7]));
  assert.equal(rec.only.headers.get("range"), "bytes=5-5");
  const bad = await storage.downloadBytes("b", "a.bin", { range: { start: 5, end: 4 } });
  assert.equal(bad.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 1);
});

Deno.test("createSignedUrls: a path the server could not sign is a NOT_FOUND Failure naming it", async () => {
  const { storage } = makeStorage(() =>
    jsonResponse([
      { path: "a.txt", signedURL: "/object/sign/b/a.txt?token=t1", error: null },
      { path: "gone.txt", signedURL: null, error: "Either the object does not exist" },
    ])
  );
  const r = await storage.createSignedUrls("b", ["a.txt", "gone.txt"], 60);
  assert.equal(r.ok, false);
  assert.equal(r.errorOrNull()?.category, "NOT_FOUND");
  assert.match(r.errorOrNull()?.message ?? "", /gone\.txt/);
});

Deno.test("createSignedUploadUrlWithPath reports the key without its leading slash", async () => {
  const { storage, rec } = makeStorage(() =>
    jsonResponse({ url: "/object/upload/sign/b/a.txt?token=tok", token: "tok" })
  );
  const r = (await storage.createSignedUploadUrlWithPath("b", "/a.txt")).getOrThrow();
  assert.equal(r.path, "a.txt");
  assert.equal(r.token, "tok");
  assert.equal(r.url, `${S}/object/upload/sign/b/a.txt?token=tok`);
  assert.equal(rec.only.url.pathname, "/storage/v1/object/upload/sign/b/a.txt");
});

Deno.test("a signed upload URL carries the token so that it reads back unchanged", async () => {
  const token = "a+b/c=d&e";
  const { storage } = makeStorage(() =>
    jsonResponse({ url: "/object/upload/sign/b/a.txt?token=x", token })
  );
  const r = (await storage.createSignedUploadUrlWithPath("b", "a.txt")).getOrThrow();
  assert.equal(new URL(r.url).searchParams.get("token"), token);
  assert.equal(r.token, token);
});

Deno.test("list and listV2 are read-only POSTs and are retried after a 503", async () => {
  for (const call of ["list", "listV2"] as const) {
    const rec = recordingFetch([
      jsonResponse({ message: "busy" }, { status: 503 }),
      jsonResponse(call === "list" ? [{ name: "a.txt" }] : { hasNext: false, objects: [] }),
    ]);
    const storage = createStorageClient(
      createBaseClient(BASE, KEY, {
        fetch: rec.fetch,
        retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
      }),
    );
    const r = call === "list" ? await storage.list("b") : await storage.listV2("b");
    assert.equal(r.ok, true, call);
    assert.deepEqual(rec.requests.map((q) => q.method), ["POST", "POST"]);
  }
});

Deno.test("downloadStream of an answer without a body gives an empty stream, not undefined", async () => {
  const { storage } = makeStorage(() =>
    new Response(null, { status: 200, headers: { "content-length": "0" } })
  );
  const r = (await storage.downloadStream("b", "empty.bin")).getOrThrow();
  assert.ok(r.stream instanceof ReadableStream);
  assert.equal((await new Response(r.stream).arrayBuffer()).byteLength, 0);
  assert.equal(r.contentLength, 0);
});

Deno.test("the ByPath helpers map each path to its own URL", async () => {
  const { storage } = makeStorage(() =>
    jsonResponse([
      { path: "a.txt", signedURL: "/object/sign/b/a.txt?token=ta" },
      { path: "c.txt", signedURL: "/object/sign/b/c.txt?token=tc" },
    ])
  );
  assert.deepEqual(getPublicUrlsByPath(storage, "b", ["a.txt", "c.txt"]), {
    "a.txt": `${S}/object/public/b/a.txt`,
    "c.txt": `${S}/object/public/b/c.txt`,
  });
  assert.deepEqual(
    getAuthenticatedRenderUrlsByPath(storage, "b", ["a.png", "c.png"], { width: 5 }),
    {
      "a.png": `${S}/render/image/authenticated/b/a.png?width=5`,
      "c.png": `${S}/render/image/authenticated/b/c.png?width=5`,
    },
  );
  const signed = (await createSignedDownloadUrlsByPath(storage, "b", ["a.txt", "c.txt"], 60))
    .getOrThrow();
  assert.deepEqual(signed, {
    "a.txt": `${S}/object/sign/b/a.txt?token=ta&download=`,
    "c.txt": `${S}/object/sign/b/c.txt?token=tc&download=`,
  });
});

Deno.test("a bucket's name is read from the answer, not assumed equal to its id", async () => {
  const { storage } = makeStorage(() => jsonResponse({ id: "b1", name: "Photos", public: true }));
  const b = (await storage.getBucket("b1")).getOrThrow();
  assert.equal(b.id, "b1");
  assert.equal(b.name, "Photos");
});

Deno.test("list: an entry's size falls back to metadata.contentLength", async () => {
  const { storage } = makeStorage(() =>
    jsonResponse([
      { name: "a.txt", id: "1", metadata: { contentLength: 5, mimetype: "text/plain" } },
      { name: "b.txt", id: "2", metadata: { size: 7, contentLength: 9 } },
    ])
  );
  const [a, b] = (await storage.list("b")).getOrThrow();
  assert.equal(a.size, 5);
  assert.equal(b.size, 7);
});

Deno.test("listV2 decodes hasNext, nextCursor and last_accessed_at as the Storage API sends them", async () => {
  // With a delimiter, `name` is the full path and `key` the segment at the listing's level.
  const { storage } = makeStorage(() =>
    jsonResponse({
      hasNext: true,
      nextCursor: "cur",
      folders: [{ name: "p/f/", key: "f" }],
      objects: [{
        name: "p/o.txt",
        key: "o.txt",
        id: "1",
        updated_at: "u",
        created_at: "c",
        last_accessed_at: "l",
        metadata: { size: 1 },
      }],
    })
  );
  const r = (await storage.listV2("b", { prefix: "p/" })).getOrThrow();
  assert.equal(r.hasNext, true);
  assert.equal(r.nextCursor, "cur");
  assert.deepEqual(r.folders, [{ name: "p/f/", key: "f" }]);
  assert.deepEqual(r.objects, [{
    name: "p/o.txt",
    key: "o.txt",
    id: "1",
    updatedAt: "u",
    createdAt: "c",
    lastAccessedAt: "l",
    metadata: { size: 1 },
  }]);
});

Deno.test("exists: only a 404 (or the Storage API's 400 with statusCode 404) is false; a 410 stays a Failure", async () => {
  const answers: Array<[Response, boolean | string]> = [
    [jsonResponse({ statusCode: "404", error: "not_found", message: "x" }, { status: 404 }), false],
    [jsonResponse({ statusCode: "404", error: "not_found", message: "x" }, { status: 400 }), false],
    [jsonResponse({ statusCode: "404", error: "NoSuchKey", message: "x" }, { status: 400 }), false],
    [new Response("Not Found", { status: 404 }), false],
    [new Response("gone", { status: 410 }), "NOT_FOUND"],
    [new Response("denied", { status: 403 }), "FORBIDDEN"],
    // A missing bucket or route says nothing about the object (a wrong bucket name or base URL).
    [
      jsonResponse({ statusCode: "404", error: "NoSuchBucket", message: "Bucket not found" }, {
        status: 400,
      }),
      "NOT_FOUND",
    ],
    [
      jsonResponse({ statusCode: "404", error: "InvalidRequest", message: "Route not found" }, {
        status: 404,
      }),
      "NOT_FOUND",
    ],
  ];
  for (const [answer, expected] of answers) {
    const { storage } = makeStorage(() => answer.clone());
    const r = await storage.exists("b", "k.txt");
    if (typeof expected === "boolean") assert.equal(r.getOrThrow(), expected);
    else assert.equal(r.errorOrNull()?.category, expected);
  }
});

Deno.test("a transformed download's 429 is not retried: the renderer renews its block at each request", async () => {
  const { storage, rec } = makeStorage(() =>
    jsonResponse({ statusCode: "429", error: "too_many_requests", message: "slow down" }, {
      status: 429,
    })
  );
  const r = await storage.downloadBytes("b", "a.png", { transform: { width: 64 } });
  assert.equal(r.errorOrNull()?.category, "RATE_LIMITED");
  assert.equal(rec.requests.length, 1);
  assert.match(rec.last.url.pathname, /\/render\/image\//);
  // A plain download is still retried as every read is.
  const plain = makeStorage([
    new Response("busy", { status: 503 }),
    new Response(new Uint8Array([1]), { status: 200 }),
  ]);
  assert.deepEqual([...(await plain.storage.downloadBytes("b", "a.bin")).getOrThrow()], [1]);
  assert.equal(plain.rec.requests.length, 2);
});

Deno.test("copyMetadata goes with a copy only: a move given the same options object sends none", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({ message: "ok" }));
  const shared = { copyMetadata: false, destinationBucket: "other" };
  assert.ok((await storage.move("b", "a.txt", "c.txt", shared)).ok);
  assert.ok((await storage.copy("b", "a.txt", "d.txt", shared)).ok);
  const [move, copy] = rec.requests;
  assert.match(move.url.pathname, /\/object\/move$/);
  assert.equal("copyMetadata" in (move.json() as object), false);
  assert.equal((copy.json() as { copyMetadata?: unknown }).copyMetadata, false);
});

Deno.test("a bucket answer without a name (an older Storage API's, id only) is named by its id", async () => {
  assert.equal(decodeBucket({ id: "avatars" }).name, "avatars");
  const { storage } = makeStorage(() => jsonResponse({ id: "avatars", public: true }));
  const r = await storage.getBucket("avatars");
  assert.equal(r.getOrThrow().name, "avatars");
  assert.equal(r.getOrThrow().public, true);
});

Deno.test("a signed upload URL answer without a token is a DECODE failure; a signed URL answer without its leading '/' gets one", async () => {
  const { storage } = makeStorage(() => jsonResponse({ url: "/object/upload/sign/b/a.txt" }));
  const upload = await storage.createSignedUploadUrl("b", "a.txt");
  assert.equal(upload.errorOrNull()?.category, "DECODE");
  const signed = makeStorage(() => jsonResponse({ signedURL: "object/sign/b/a.txt?token=t1" }));
  const url = (await signed.storage.createSignedUrl("b", "a.txt", 60)).getOrThrow();
  assert.equal(url, `${BASE}/storage/v1/object/sign/b/a.txt?token=t1`);
});

Deno.test("a bucket answer's name must be text: a number there is no name (the id names it)", () => {
  assert.equal(decodeBucket({ id: "avatars", name: 5 }).name, "avatars");
});

Deno.test("vector calls leave null and undefined options out of their bodies (a last page's nextToken: null included)", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({ vectors: [] }));
  await storage.listVectors("vb", "idx", { nextToken: null });
  assert.deepEqual(rec.requests[0].json(), { vectorBucketName: "vb", indexName: "idx" });
});

Deno.test("a catalog route prefix from /v1/config holding a dot segment is DECODE, and nothing more is sent", async () => {
  for (const prefix of ["../admin", ".", "a/../b"]) {
    const { storage, rec } = makeStorage((r) =>
      r.url.pathname.endsWith("/v1/config")
        ? jsonResponse({ defaults: {}, overrides: { prefix } })
        : jsonResponse({ namespaces: [] })
    );
    const r = await storage.analyticsCatalog("lake").listNamespaces();
    assert.equal(r.errorOrNull()?.category, "DECODE", prefix);
    assert.equal(rec.requests.length, 1, rec.requests.map((q) => q.url.pathname).join(" "));
  }
});
