/**
 * The standalone object functions of `storage/objects.ts` send exactly what
 * the `StorageClient` methods send and return the same results (the class
 * forwards to them), and reject bad input the same way.
 */
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createStorageClient, type StorageClient } from "../../storage/mod.ts";
import * as objects from "../../storage/objects.ts";
import type { BaseClient } from "../../core/client.ts";
import { jsonResponse, type RecordedRequest, recordingFetch } from "../support/recording_fetch.ts";
import { BASE, KEY } from "./_helpers.ts";

/** Answers every storage route the object operations use with a plausible body. */
function answer(req: RecordedRequest): Response {
  const p = req.url.pathname;
  if (p.startsWith("/storage/v1/object/upload/sign/") && req.method === "POST") {
    return jsonResponse({ url: `/object/upload/sign/b/a.txt?token=tok-1` });
  }
  if (p.startsWith("/storage/v1/object/sign/") && req.method === "POST") {
    const body = req.json() as { paths?: string[] };
    if (body.paths) {
      return jsonResponse(
        body.paths.map((path) => ({
          path,
          signedURL: `/object/sign/b/${path}?token=t`,
          error: null,
        })),
      );
    }
    return jsonResponse({ signedURL: "/object/sign/b/a.txt?token=t" });
  }
  if (p.startsWith("/storage/v1/object/info/")) {
    return p.endsWith("/missing.txt")
      ? jsonResponse({ statusCode: "404", error: "not_found", message: "Object not found" }, {
        status: 400,
      })
      : jsonResponse({ id: "1", name: "a.txt", bucket_id: "b", metadata: { size: 3 } });
  }
  if (p === "/storage/v1/object/list/b") return jsonResponse([{ name: "a.txt", id: "1" }]);
  if (p === "/storage/v1/object/list-v2/b") {
    return jsonResponse({ hasNext: false, folders: [], objects: [{ name: "a.txt", id: "1" }] });
  }
  if (req.method === "DELETE") return jsonResponse([{ name: "a.txt", id: "1" }]);
  if (p.startsWith("/storage/v1/object/move") || p.startsWith("/storage/v1/object/copy")) {
    return jsonResponse({ message: "ok", Key: "b/c.txt" });
  }
  if (req.method === "GET" && req.headers.has("range")) {
    return new Response("ab", { status: 206, headers: { "content-range": "bytes 0-1/3" } });
  }
  if (req.method === "GET") return new Response("abc", { headers: { "content-length": "3" } });
  return jsonResponse({ Key: "b/a.txt", Id: "1" });
}

function pair(): { client: BaseClient; storage: StorageClient; reqs: () => RecordedRequest[] } {
  const a = recordingFetch(answer);
  const b = recordingFetch(answer);
  return {
    client: createBaseClient(BASE, KEY, { fetch: a.fetch }),
    storage: createStorageClient(createBaseClient(BASE, KEY, { fetch: b.fetch })),
    reqs: () => [...a.requests, ...b.requests],
  };
}

function wire(r: RecordedRequest) {
  const headers: Record<string, string> = {};
  r.headers.forEach((v, k) => (headers[k] = v));
  return { method: r.method, url: r.url.href, headers, text: r.text };
}

/** The request each case must make (method, path and query). */
const EXPECTED: Record<string, string> = {
  "upload": "POST /storage/v1/object/b/a.txt",
  "update": "PUT /storage/v1/object/b/a.txt",
  "uploadToSignedUrl": "PUT /storage/v1/object/upload/sign/b/a.txt?token=tok",
  "download": "GET /storage/v1/object/authenticated/b/a.txt",
  "downloadPublic": "GET /storage/v1/object/public/b/a.txt?download=",
  "downloadBytes": "GET /storage/v1/object/authenticated/b/a.txt",
  "downloadPublicBytes": "GET /storage/v1/render/image/public/b/a.txt?width=8",
  "info": "GET /storage/v1/object/info/authenticated/b/a.txt",
  "infoPublic": "GET /storage/v1/object/info/public/b/a.txt",
  "exists": "GET /storage/v1/object/info/authenticated/b/a.txt",
  "exists (404 is false)": "GET /storage/v1/object/info/authenticated/b/missing.txt",
  "existsPublic": "GET /storage/v1/object/info/public/b/a.txt",
  "list": "POST /storage/v1/object/list/b",
  "listV2": "POST /storage/v1/object/list-v2/b",
  "move": "POST /storage/v1/object/move",
  "copy": "POST /storage/v1/object/copy",
  "deleteObject": "DELETE /storage/v1/object/b",
  "deleteObjects": "DELETE /storage/v1/object/b",
  "createSignedUrl": "POST /storage/v1/object/sign/b/a.txt",
  "createSignedUrls": "POST /storage/v1/object/sign/b",
  "createSignedUploadUrl": "POST /storage/v1/object/upload/sign/b/a.txt",
  "createSignedUploadUrlWithPath": "POST /storage/v1/object/upload/sign/b/a.txt",
};

/** Each case: the standalone call and the method call, with the same arguments. */
const cases: Array<
  [string, (c: BaseClient) => Promise<unknown> | unknown, (s: StorageClient) => unknown]
> = [
  [
    "upload",
    (c) => objects.upload(c, "b", "a.txt", "abc", { contentType: "text/plain", upsert: true }),
    (s) => s.upload("b", "a.txt", "abc", { contentType: "text/plain", upsert: true }),
  ],
  [
    "update",
    (c) => objects.update(c, "b", "a.txt", new Uint8Array([1]), { cacheControl: 60 }),
    (s) => s.update("b", "a.txt", new Uint8Array([1]), { cacheControl: 60 }),
  ],
  [
    "uploadToSignedUrl",
    (c) => objects.uploadToSignedUrl(c, "b", "a.txt", "tok", "abc", { metadata: { k: 1 } }),
    (s) => s.uploadToSignedUrl("b", "a.txt", "tok", "abc", { metadata: { k: 1 } }),
  ],
  ["download", (c) => objects.download(c, "b", "a.txt"), (s) => s.download("b", "a.txt")],
  [
    "downloadPublic",
    (c) => objects.downloadPublic(c, "b", "a.txt", { download: true }),
    (s) => s.downloadPublic("b", "a.txt", { download: true }),
  ],
  [
    "downloadBytes",
    (c) => objects.downloadBytes(c, "b", "a.txt", { range: { start: 0, end: 1 } }),
    (s) => s.downloadBytes("b", "a.txt", { range: { start: 0, end: 1 } }),
  ],
  [
    "downloadPublicBytes",
    (c) => objects.downloadPublicBytes(c, "b", "a.txt", { transform: { width: 8 } }),
    (s) => s.downloadPublicBytes("b", "a.txt", { transform: { width: 8 } }),
  ],
  ["info", (c) => objects.info(c, "b", "a.txt"), (s) => s.info("b", "a.txt")],
  ["infoPublic", (c) => objects.infoPublic(c, "b", "a.txt"), (s) => s.infoPublic("b", "a.txt")],
  ["exists", (c) => objects.exists(c, "b", "a.txt"), (s) => s.exists("b", "a.txt")],
  [
    "exists (404 is false)",
    (c) => objects.exists(c, "b", "missing.txt"),
    (s) => s.exists("b", "missing.txt"),
  ],
  [
    "existsPublic",
    (c) => objects.existsPublic(c, "b", "a.txt"),
    (s) => s.existsPublic("b", "a.txt"),
  ],
  [
    "list",
    (c) => objects.list(c, "b", { prefix: "x", limit: 5 }),
    (s) => s.list("b", { prefix: "x", limit: 5 }),
  ],
  [
    "listV2",
    (c) => objects.listV2(c, "b", { prefix: "x/" }),
    (s) => s.listV2("b", { prefix: "x/" }),
  ],
  [
    "move",
    (c) => objects.move(c, "b", "a.txt", "c.txt", { destinationBucket: "d" }),
    (s) => s.move("b", "a.txt", "c.txt", { destinationBucket: "d" }),
  ],
  [
    "copy",
    (c) => objects.copy(c, "b", "a.txt", "c.txt", { copyMetadata: true }),
    (s) => s.copy("b", "a.txt", "c.txt", { copyMetadata: true }),
  ],
  [
    "deleteObject",
    (c) => objects.deleteObject(c, "b", "a.txt"),
    (s) => s.deleteObject("b", "a.txt"),
  ],
  [
    "deleteObjects",
    (c) => objects.deleteObjects(c, "b", ["a.txt", "c.txt"]),
    (s) => s.deleteObjects("b", ["a.txt", "c.txt"]),
  ],
  [
    "createSignedUrl",
    (c) => objects.createSignedUrl(c, "b", "a.txt", 60, { download: true }),
    (s) => s.createSignedUrl("b", "a.txt", 60, { download: true }),
  ],
  [
    "createSignedUrls",
    (c) => objects.createSignedUrls(c, "b", ["a.txt", "c.txt"], 60),
    (s) => s.createSignedUrls("b", ["a.txt", "c.txt"], 60),
  ],
  [
    "createSignedUploadUrl",
    (c) => objects.createSignedUploadUrl(c, "b", "a.txt", { upsert: true }),
    (s) => s.createSignedUploadUrl("b", "a.txt", { upsert: true }),
  ],
  [
    "createSignedUploadUrlWithPath",
    (c) => objects.createSignedUploadUrlWithPath(c, "b", "a.txt"),
    (s) => s.createSignedUploadUrlWithPath("b", "a.txt"),
  ],
  [
    "getSignedDownloadUrl",
    (c) => objects.getSignedDownloadUrl(c, "b", "a b.txt", "tok", { fileName: "x.txt" }),
    (s) => s.getSignedDownloadUrl("b", "a b.txt", "tok", { fileName: "x.txt" }),
  ],
  [
    "getPublicUrl",
    (c) => objects.getPublicUrl(c, "b", "a.txt", { transform: { width: 4 } }),
    (s) => s.getPublicUrl("b", "a.txt", { transform: { width: 4 } }),
  ],
  [
    "getAuthenticatedUrl",
    (c) => objects.getAuthenticatedUrl(c, "b", "a.txt", { download: true }),
    (s) => s.getAuthenticatedUrl("b", "a.txt", { download: true }),
  ],
  [
    "getPublicRenderUrl",
    (c) => objects.getPublicRenderUrl(c, "b", "a.txt", { height: 3 }),
    (s) => s.getPublicRenderUrl("b", "a.txt", { height: 3 }),
  ],
  [
    "getAuthenticatedRenderUrl",
    (c) => objects.getAuthenticatedRenderUrl(c, "b", "a.txt", { height: 3 }),
    (s) => s.getAuthenticatedRenderUrl("b", "a.txt", { height: 3 }),
  ],
];

Deno.test("storage/objects: every standalone function sends and returns what its StorageClient method does", async () => {
  for (const [name, standalone, method] of cases) {
    const { client, storage, reqs } = pair();
    const a = await standalone(client);
    const b = await method(storage);
    assert.deepEqual(a, b, `${name}: results differ`);
    const [ra, rb, ...rest] = reqs();
    assert.equal(rest.length, 0, `${name}: one request each`);
    if (ra === undefined) {
      assert.equal(typeof a, "string", `${name}: a local builder makes no request`);
      assert.ok((a as string).startsWith(`${BASE}/storage/v1/`), `${name}: ${a}`);
      continue;
    }
    assert.ok(rb, `${name}: the method made no request`);
    assert.deepEqual(wire(ra), wire(rb), `${name}: requests differ`);
    assert.equal(`${ra.method} ${ra.url.pathname}${ra.url.search}`, EXPECTED[name], name);
    assert.ok(
      (a as { ok: boolean }).ok,
      `${name}: ${JSON.stringify((a as { error?: unknown }).error)}`,
    );
  }
});

Deno.test("storage/objects: exists maps a storage 404 to false; bad input is a Failure or a TypeError", async () => {
  const { client, reqs } = pair();
  assert.equal((await objects.exists(client, "b", "missing.txt")).getOrThrow(), false);
  const badExpiry = await objects.createSignedUrl(client, "b", "a.txt", 0);
  assert.equal(badExpiry.ok, false);
  assert.equal(badExpiry.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(badExpiry.errorOrNull()!.message, /'expiresIn' must be a positive integer/);
  const badPath = await objects.upload(client, "b", "../x", "abc");
  assert.equal(badPath.errorOrNull()?.category, "INVALID_ARGUMENT");
  const badRange = await objects.downloadBytes(client, "b", "a.txt", {
    range: { start: 5, end: 1 },
  });
  assert.equal(badRange.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.throws(() => objects.getSignedDownloadUrl(client, "b", "a.txt", " "), TypeError);
  assert.equal(reqs().length, 1, "only the exists call reached the network");
});

Deno.test("deleteObject: the server removing nothing (missing object, or refused by row-level security) is NOT_FOUND; one removed entry is success", async () => {
  // The Storage API's bulk delete answers 200 with the rows it removed, never an error.
  for (const [removed, ok] of [[[], false], [[{ name: "a.txt", id: "1" }], true]] as const) {
    const rec = recordingFetch(() => jsonResponse(removed));
    const storage = createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
    const r = await storage.deleteObject("b", "a.txt");
    assert.equal(r.ok, ok);
    if (!r.ok) {
      assert.equal(r.error.category, "NOT_FOUND");
      assert.match(r.error.message, /"a\.txt" from "b"/);
    }
    assert.equal(rec.requests.length, 1);
    assert.equal(rec.requests[0].method, "DELETE");
    assert.deepEqual(rec.requests[0].json(), { prefixes: ["a.txt"] });
  }
});

Deno.test("an upload into a path the Storage API routes to another operation (seen on its router) is INVALID_ARGUMENT, nothing sent", async () => {
  const rec = recordingFetch(() => jsonResponse({ Key: "b/a.txt", Id: "1" }));
  const storage = createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  // Against the real server: POST /object/sign/photos/a.txt signed a URL, /object/list/a.txt
  // listed a bucket named a.txt, PUT /object/upload/sign/a.txt was a signed upload.
  const posted: Array<[string, string]> = [
    ["sign", "photos/a.txt"],
    ["sign", "a.txt"],
    ["list", "a.txt"],
    ["list-v2", "b.txt"],
    ["upload", "sign/photos/a.txt"],
  ];
  for (const [bucket, key] of posted) {
    const r = await storage.upload(bucket, key, "x");
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", `${bucket}/${key}`);
    assert.match(
      r.errorOrNull()!.message,
      /routes its path to another operation: use createSignedUploadUrl/,
    );
  }
  const put = await storage.update("upload", "sign/photos/a.txt", "x");
  assert.equal(put.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 0);
  // What the router sends to the upload route goes as before: deeper keys of list buckets,
  // updates (PUT) into sign and list, and names that only begin alike.
  const through: Array<["upload" | "update", string, string]> = [
    ["upload", "list", "dir/a.txt"],
    ["upload", "list-v2", "dir/a.txt"],
    ["update", "sign", "a.txt"],
    ["update", "list", "a.txt"],
    ["upload", "signs", "a.txt"],
    ["upload", "upload", "a.txt"],
    ["upload", "b", "sign/a.txt"],
    ["upload", "upload", "sign/a.txt"], // one segment after sign/: the upload route (seen)
    ["update", "upload", "sign/a.txt"],
  ];
  for (const [op, bucket, key] of through) {
    assert.ok((await storage[op](bucket, key, "x")).ok, `${op} ${bucket}/${key}`);
    assert.equal(rec.last.url.pathname, `/storage/v1/object/${bucket}/${key}`);
  }
});
