import assert from "node:assert/strict";
import { decodeBase64, utf8Decode } from "../../core/encoding.ts";
import {
  createSignedDownloadUrl,
  createSignedDownloadUrls,
  createSignedDownloadUrlsByPath,
  createSignedRenderUrl,
  createSignedRenderUrls,
  createSignedRenderUrlsByPath,
  getAuthenticatedRenderUrls,
  getAuthenticatedRenderUrlsByPath,
  getAuthenticatedUrls,
  getAuthenticatedUrlsByPath,
  getPublicRenderUrls,
  getPublicRenderUrlsByPath,
  getPublicUrls,
  getPublicUrlsByPath,
  listOrThrow,
  listPaginator,
  ServiceException,
  SortOrder,
  withCacheNonce,
} from "../../storage/mod.ts";
import { jsonResponse } from "../support/recording_fetch.ts";
import { withProtoSetter } from "../support/proto_setter.ts";
import { BASE, makeStorage } from "./_helpers.ts";

const S = `${BASE}/storage/v1`;

Deno.test("buckets: list with query, get, create, update (only given fields), delete, clear", async () => {
  const bucket = {
    id: "b",
    name: "b",
    public: true,
    file_size_limit: 10,
    allowed_mime_types: ["image/png"],
    created_at: "t",
  };
  const { storage, rec } = makeStorage((req) => {
    if (req.method === "GET" && req.url.pathname === "/storage/v1/bucket") {
      return jsonResponse([bucket, { name: "old" }]);
    }
    if (req.method === "GET") return jsonResponse(bucket);
    return jsonResponse({ message: "ok", name: "b" });
  });
  const all = (await storage.listBuckets({
    limit: 5,
    offset: 0,
    sortColumn: "name",
    sortOrder: "desc",
    search: "ab",
  })).getOrThrow();
  assert.equal(
    rec.last.url.href,
    `${S}/bucket?limit=5&offset=0&search=ab&sortColumn=name&sortOrder=desc`,
  );
  assert.equal(all[0].fileSizeLimit, 10);
  assert.deepEqual(all[1], {
    id: "old",
    name: "old",
    public: false,
    createdAt: null,
    updatedAt: null,
    fileSizeLimit: null,
    allowedMimeTypes: null,
  });
  assert.equal((await storage.getBucket("b")).getOrThrow().public, true);
  assert.equal(rec.last.url.pathname, "/storage/v1/bucket/b");
  await storage.createBucket("b", "Bee", {
    public: true,
    fileSizeLimit: 1024,
    allowedMimeTypes: ["text/plain"],
  });
  assert.equal(rec.last.method, "POST");
  assert.deepEqual(rec.last.json(), {
    id: "b",
    name: "Bee",
    public: true,
    file_size_limit: 1024,
    allowed_mime_types: ["text/plain"],
  });
  await storage.createBucket("c", "c");
  assert.deepEqual(rec.last.json(), { id: "c", name: "c", public: false });
  await storage.updateBucket("b", { public: false });
  const put = rec.requests.at(-2)!;
  assert.equal(put.method, "PUT");
  assert.deepEqual(put.json(), { id: "b", public: false });
  await storage.deleteBucket("b");
  assert.equal(rec.last.method, "DELETE");
  assert.equal(rec.last.url.pathname, "/storage/v1/bucket/b");
  await storage.clearBucket("b");
  assert.equal(rec.last.url.pathname, "/storage/v1/bucket/b/empty");
  assert.equal((await storage.getBucket(" ")).errorOrNull()?.category, "INVALID_ARGUMENT");
});

Deno.test("upload: path encoded per segment, x-upsert, cache-control, Base64 x-metadata, content type", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({ Key: "docs/a b/ü.txt", Id: "1" }));
  const key = await storage.upload("docs", "/a b/ü.txt", new Uint8Array([1, 2]), {
    contentType: "text/plain",
    cacheControl: 60,
    metadata: { owner: "me" },
  });
  assert.equal(key.getOrThrow(), "docs/a b/ü.txt");
  const r = rec.last;
  assert.equal(r.method, "POST");
  assert.equal(r.url.pathname, "/storage/v1/object/docs/a%20b/%C3%BC.txt");
  assert.equal(r.headers.get("x-upsert"), "false");
  assert.equal(r.headers.get("cache-control"), "max-age=60");
  assert.equal(r.headers.get("content-type"), "text/plain");
  assert.deepEqual(JSON.parse(utf8Decode(decodeBase64(r.headers.get("x-metadata")!))), {
    owner: "me",
  });
  assert.deepEqual([...r.bytes!], [1, 2]);
  await storage.upload("docs", "x.bin", new Blob(["z"], { type: "image/png" }), { upsert: true });
  assert.equal(rec.last.headers.get("x-upsert"), "true");
  assert.equal(rec.last.headers.get("content-type"), "image/png");
  await storage.update("docs", "x.bin", new ArrayBuffer(3));
  assert.equal(rec.last.method, "PUT");
  assert.equal(rec.last.headers.get("content-type"), "application/octet-stream");
  assert.equal(rec.last.headers.get("x-upsert"), null);
});

Deno.test("upload streams a ReadableStream (duplex half, never retried)", async () => {
  const { storage, rec } = makeStorage([new Response("", { status: 503 })]);
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new Uint8Array([9, 8]));
      c.close();
    },
  });
  const r = await storage.upload("docs", "s.bin", body);
  assert.equal(r.errorOrNull()?.category, "SERVER");
  assert.equal(rec.requests.length, 1);
  assert.equal(rec.last.streamed, true);
  assert.equal(rec.last.duplex, "half");
});

Deno.test("bad paths: empty, '.', '..', empty segments give INVALID_ARGUMENT without a request", async () => {
  const { storage, rec } = makeStorage();
  for (const bad of ["", "/", "a//b", "a/./b", "../etc", "a/..", "dir/"]) {
    const r = await storage.upload("docs", bad, "x");
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", bad);
  }
  assert.throws(() => storage.getPublicUrl("docs", "a/../b"), TypeError);
  assert.equal(
    (await storage.upload("bad/bucket", "a", "x")).errorOrNull()?.category,
    "INVALID_ARGUMENT",
  );
  assert.equal(rec.requests.length, 0);
  assert.equal(storage.getPublicUrl("docs", "//lead/x.png"), `${S}/object/public/docs/lead/x.png`);
});

Deno.test("uploadToSignedUrl and signed upload URLs", async () => {
  const { storage, rec } = makeStorage([
    jsonResponse({ url: "/object/upload/sign/docs/a.txt?token=tok123" }),
    jsonResponse({ url: "/object/upload/sign/docs/a.txt?token=tok123" }),
    jsonResponse({ Key: "docs/a.txt" }),
  ]);
  assert.equal(
    (await storage.createSignedUploadUrl("docs", "a.txt", { upsert: true })).getOrThrow(),
    "tok123",
  );
  assert.equal(rec.last.method, "POST");
  assert.equal(rec.last.url.pathname, "/storage/v1/object/upload/sign/docs/a.txt");
  assert.equal(rec.last.headers.get("x-upsert"), "true");
  const full = (await storage.createSignedUploadUrlWithPath("docs", "a.txt")).getOrThrow();
  assert.deepEqual(full, {
    url: `${S}/object/upload/sign/docs/a.txt?token=tok123`,
    token: "tok123",
    path: "a.txt",
  });
  assert.equal(rec.last.headers.get("x-upsert"), null);
  assert.equal(
    (await storage.uploadToSignedUrl("docs", "a.txt", "tok123", "hi", { cacheControl: 5 }))
      .getOrThrow(),
    "docs/a.txt",
  );
  assert.equal(rec.last.method, "PUT");
  assert.equal(rec.last.url.href, `${S}/object/upload/sign/docs/a.txt?token=tok123`);
  assert.equal(rec.last.headers.get("cache-control"), "max-age=5");
  const blank = await storage.uploadToSignedUrl("docs", "a.txt", " ", "x");
  assert.equal(blank.errorOrNull()?.category, "INVALID_ARGUMENT");
});

Deno.test("downloads: authenticated, public (no credentials), render with transforms, download names, ranges", async () => {
  const { storage, rec } = makeStorage(() =>
    new Response("héllo", { headers: { "content-type": "text/plain" } })
  );
  assert.equal((await storage.download("docs", "a.txt")).getOrThrow(), "héllo");
  assert.equal(rec.last.url.href, `${S}/object/authenticated/docs/a.txt`);
  assert.equal(rec.last.headers.get("authorization"), "Bearer anon-key-0123456789");
  await storage.downloadPublic("docs", "a.txt", { download: true });
  assert.equal(rec.last.url.href, `${S}/object/public/docs/a.txt?download=`);
  assert.equal(rec.last.headers.get("authorization"), null);
  assert.equal(rec.last.headers.get("apikey"), null);
  const bytes = await storage.downloadBytes("img", "cat.png", {
    transform: { width: 100, height: null, resize: "cover", quality: 80 },
    fileName: "kitty.png",
  });
  assert.equal(bytes.getOrThrow().length, 6);
  assert.equal(
    rec.last.url.href,
    `${S}/render/image/authenticated/img/cat.png?width=100&resize=cover&quality=80&download=kitty.png`,
  );
  await storage.downloadPublicBytes("img", "cat.png", { transform: { format: "webp" } });
  assert.equal(rec.last.url.href, `${S}/render/image/public/img/cat.png?format=webp`);
  await storage.downloadBytes("docs", "a.txt", { range: { start: 2, end: 4 } });
  assert.equal(rec.last.headers.get("range"), "bytes=2-4");
  await storage.downloadBytes("docs", "a.txt", { range: { start: 7 } });
  assert.equal(rec.last.headers.get("range"), "bytes=7-");
  const before = rec.requests.length;
  const badRange = await storage.downloadBytes("docs", "a.txt", { range: { start: 5, end: 1 } });
  assert.equal(badRange.errorOrNull()?.category, "INVALID_ARGUMENT");
  const badWidth = await storage.downloadBytes("docs", "a.txt", { transform: { width: -1 } });
  assert.equal(badWidth.errorOrNull()?.category, "INVALID_ARGUMENT");
  // The renderer ignores Range: a part of a transformed image is refused, not fetched whole.
  for (const range of [{ start: 2, end: 4 }, { start: 7 }, { start: 0, end: 99 }]) {
    const part = await storage.downloadStream("img", "cat.png", { transform: { width: 9 }, range });
    assert.equal(part.errorOrNull()?.category, "INVALID_ARGUMENT", JSON.stringify(range));
    assert.match(part.errorOrNull()!.message, /range of a transformed image/);
  }
  assert.equal(rec.requests.length, before, "refused before any request");
  // From byte 0 to the end is the whole image, which the renderer answers.
  const whole = await storage.downloadBytes("img", "cat.png", {
    transform: { width: 9 },
    range: { start: 0 },
  });
  assert.ok(whole.ok);
  assert.equal(rec.last.headers.get("range"), "bytes=0-");
});

Deno.test("downloadStream returns an unread stream with its headers", async () => {
  const { storage } = makeStorage(() =>
    new Response("0123456789".slice(2, 5), {
      status: 206,
      headers: {
        "content-type": "text/plain",
        "content-length": "3",
        "content-range": "bytes 2-4/10",
        etag: '"e"',
      },
    })
  );
  const s = (await storage.downloadStream("docs", "n.txt", { range: { start: 2, end: 4 } }))
    .getOrThrow();
  assert.equal(s.status, 206);
  assert.equal(s.contentLength, 3);
  assert.equal(s.contentRange, "bytes 2-4/10");
  assert.equal(await new Response(s.stream).text(), "234");
});

Deno.test("an empty object downloads as empty bytes, not a failure", async () => {
  const { storage } = makeStorage(() => new Response(new Uint8Array(0)));
  assert.equal((await storage.downloadBytes("docs", "empty")).getOrThrow().length, 0);
});

Deno.test("info, infoPublic, exists (404 and storage's 400/404 → false), existsPublic", async () => {
  const info = {
    id: "o1",
    name: "docs/a.txt",
    bucket_id: "docs",
    size: 5,
    content_type: "text/plain",
    etag: '"e"',
    cache_control: "max-age=60",
    last_accessed_at: null,
    created_at: "c",
    updated_at: "u",
    metadata: { k: 1 },
  };
  const { storage, rec } = makeStorage([
    jsonResponse(info),
    jsonResponse(info),
    jsonResponse(info),
    jsonResponse({ statusCode: "404", error: "not_found", message: "Object not found" }, {
      status: 400,
    }),
    jsonResponse({ message: "nope" }, { status: 404 }),
    jsonResponse({ message: "denied" }, { status: 403 }),
  ]);
  const fo = (await storage.info("docs", "a.txt")).getOrThrow();
  assert.equal(rec.last.url.pathname, "/storage/v1/object/info/authenticated/docs/a.txt");
  assert.equal(fo.size, 5);
  assert.equal(fo.contentType, "text/plain");
  assert.equal(fo.cacheControl, "max-age=60");
  assert.equal(fo.bucketId, "docs");
  await storage.infoPublic("docs", "a.txt");
  assert.equal(rec.last.url.pathname, "/storage/v1/object/info/public/docs/a.txt");
  assert.equal(rec.last.headers.get("authorization"), null);
  assert.equal((await storage.exists("docs", "a.txt")).getOrThrow(), true);
  assert.equal((await storage.exists("docs", "gone.txt")).getOrThrow(), false);
  assert.equal((await storage.existsPublic("docs", "gone.txt")).getOrThrow(), false);
  assert.equal((await storage.exists("docs", "secret.txt")).errorOrNull()?.category, "FORBIDDEN");
});

Deno.test("list and listV2 bodies; listOrThrow throws", async () => {
  const { storage, rec } = makeStorage([
    jsonResponse([{ name: "a.txt", id: "1", metadata: { size: 3, mimetype: "text/plain" } }, {
      name: "dir",
      id: null,
      metadata: null,
    }]),
    jsonResponse([]),
    jsonResponse({
      hasNext: true,
      nextCursor: "c2",
      folders: [{ name: "p/dir/", key: "dir" }],
      objects: [{ name: "p/x", id: "9", key: "x" }],
    }),
    jsonResponse({ message: "no" }, { status: 400 }),
  ]);
  const entries = (await storage.list("docs")).getOrThrow();
  assert.deepEqual(rec.last.json(), {
    prefix: "",
    limit: 100,
    offset: 0,
    sortBy: { column: "name", order: "asc" },
  });
  assert.equal(rec.last.url.pathname, "/storage/v1/object/list/docs");
  assert.equal(entries[0].size, 3);
  assert.equal(entries[0].contentType, "text/plain");
  assert.equal(entries[1].id, null);
  await storage.list("docs", {
    prefix: "p",
    limit: 10,
    offset: 20,
    sortBy: "created_at",
    sortOrder: "desc",
    search: "x",
  });
  assert.deepEqual(rec.last.json(), {
    prefix: "p",
    limit: 10,
    offset: 20,
    sortBy: { column: "created_at", order: "desc" },
    search: "x",
  });
  const page = (await storage.listV2("docs", {
    prefix: "p/",
    cursor: "c1",
    limit: 2,
    withDelimiter: true,
    sortBy: "name",
  })).getOrThrow();
  assert.deepEqual(rec.last.json(), {
    prefix: "p/",
    cursor: "c1",
    limit: 2,
    with_delimiter: true,
    sortBy: { column: "name", order: "asc" },
  });
  assert.equal(page.nextCursor, "c2");
  assert.deepEqual(page.folders, [{ name: "p/dir/", key: "dir" }]);
  assert.equal(page.objects[0].key, "x");
  await assert.rejects(() => listOrThrow(storage, "docs"), ServiceException);
  assert.equal(
    (await storage.list("docs", { limit: -1 })).errorOrNull()?.category,
    "INVALID_ARGUMENT",
  );
});

Deno.test("move, copy, deleteObject, deleteObjects", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse([{ name: "a.txt", id: "1" }]));
  await storage.move("docs", "a.txt", "b/a.txt", { destinationBucket: "archive" });
  assert.deepEqual(rec.last.json(), {
    bucketId: "docs",
    sourceKey: "a.txt",
    destinationKey: "b/a.txt",
    destinationBucket: "archive",
  });
  assert.equal(rec.last.url.pathname, "/storage/v1/object/move");
  await storage.copy("docs", "a.txt", "c.txt", { copyMetadata: false });
  assert.deepEqual(rec.last.json(), {
    bucketId: "docs",
    sourceKey: "a.txt",
    destinationKey: "c.txt",
    copyMetadata: false,
  });
  await storage.deleteObject("docs", "a.txt");
  assert.equal(rec.last.method, "DELETE");
  assert.deepEqual(rec.last.json(), { prefixes: ["a.txt"] });
  const removed = (await storage.deleteObjects("docs", ["a.txt", "b/c.txt"])).getOrThrow();
  assert.deepEqual(rec.last.json(), { prefixes: ["a.txt", "b/c.txt"] });
  assert.equal(removed[0].name, "a.txt");
  assert.equal(
    (await storage.deleteObjects("docs", [])).errorOrNull()?.category,
    "INVALID_ARGUMENT",
  );
  // The document's vararg form: one key alone.
  assert.ok((await storage.deleteObjects("docs", "d.txt")).ok);
  assert.deepEqual(rec.last.json(), { prefixes: ["d.txt"] });
});

Deno.test("bulk and ByPath helpers take one key alone (the document's vararg form)", async () => {
  const { storage, rec } = makeStorage(() =>
    jsonResponse([{ path: "a.pdf", signedURL: "/object/sign/docs/a.pdf?token=t" }])
  );
  assert.deepEqual(getPublicUrls(storage, "img", "a"), [`${S}/object/public/img/a`]);
  assert.deepEqual(getAuthenticatedUrlsByPath(storage, "img", "a"), {
    a: `${S}/object/authenticated/img/a`,
  });
  assert.deepEqual(getPublicRenderUrls(storage, "img", "a", { width: 1 }), [
    `${S}/render/image/public/img/a?width=1`,
  ]);
  const urls = (await createSignedDownloadUrls(storage, "docs", "a.pdf", 60)).getOrThrow();
  assert.deepEqual(urls, [`${S}/object/sign/docs/a.pdf?token=t&download=`]);
  assert.deepEqual(rec.last.json(), { expiresIn: 60, paths: ["a.pdf"] });
  const keyed = (await createSignedDownloadUrlsByPath(storage, "docs", "a.pdf", 60)).getOrThrow();
  assert.deepEqual(Object.keys(keyed), ["a.pdf"]);
});

Deno.test("ByPath maps keep a key named __proto__ as a key, where Object.prototype has its setter", async () => {
  await withProtoSetter(async () => {
    const { storage } = makeStorage(() =>
      jsonResponse([{ path: "__proto__", signedURL: "/object/sign/b/__proto__?token=t" }])
    );
    const local = getPublicUrlsByPath(storage, "b", ["__proto__", "a"]);
    assert.deepEqual(Object.keys(local), ["__proto__", "a"]);
    assert.equal(Object.getPrototypeOf(local), Object.prototype);
    const signed = (await createSignedDownloadUrlsByPath(storage, "b", ["__proto__"], 60))
      .getOrThrow();
    assert.deepEqual(Object.keys(signed), ["__proto__"]);
  });
});

Deno.test("createSignedUrl(s): absolute URLs, download names, transform only when set, input order", async () => {
  const { storage, rec } = makeStorage([
    jsonResponse({ signedURL: "/object/sign/docs/a%20b.txt?token=t1" }),
    jsonResponse({ signedURL: "/object/sign/img/c.png?token=t2" }),
    jsonResponse([
      { path: "y.txt", signedURL: "/object/sign/docs/y.txt?token=ty", error: null },
      { path: "x.txt", signedURL: "/object/sign/docs/x.txt?token=tx", error: null },
    ]),
    jsonResponse([{
      path: "x.txt",
      signedURL: null,
      error: "Either the object does not exist or you do not have access to it",
    }]),
  ]);
  const a = (await storage.createSignedUrl("docs", "a b.txt", 60, { fileName: "r é.txt" }))
    .getOrThrow();
  assert.equal(a, `${S}/object/sign/docs/a%20b.txt?token=t1&download=r%20%C3%A9.txt`);
  assert.deepEqual(rec.last.json(), { expiresIn: 60 });
  assert.equal(rec.last.url.pathname, "/storage/v1/object/sign/docs/a%20b.txt");
  await storage.createSignedUrl("img", "c.png", 30, { transform: { width: 10, height: null } });
  assert.deepEqual(rec.last.json(), { expiresIn: 30, transform: { width: 10 } });
  const many = (await storage.createSignedUrls("docs", ["x.txt", "y.txt"], 60, { download: true }))
    .getOrThrow();
  assert.deepEqual(many, [
    `${S}/object/sign/docs/x.txt?token=tx&download=`,
    `${S}/object/sign/docs/y.txt?token=ty&download=`,
  ]);
  assert.deepEqual(rec.last.json(), { expiresIn: 60, paths: ["x.txt", "y.txt"] });
  assert.equal(rec.last.url.pathname, "/storage/v1/object/sign/docs");
  const missing = await storage.createSignedUrls("docs", ["x.txt"], 60);
  assert.match(missing.errorOrNull()!.message, /does not exist/);
  assert.equal(
    (await storage.createSignedUrl("docs", "a", 0)).errorOrNull()?.category,
    "INVALID_ARGUMENT",
  );
});

Deno.test("keys keep `+ & = : , $ ; @` literal in paths, and signed URLs are rebuilt from the key as sent", async () => {
  const { storage, rec } = makeStorage([
    // The Storage API answers with the key unencoded.
    jsonResponse({ signedURL: "/object/sign/d/a b+c&d.txt?token=t1" }),
    jsonResponse([{ path: "q?x #1.txt", signedURL: "/object/sign/d/q?x #1.txt?token=t2" }]),
    jsonResponse([{ path: "p?.txt", signedURL: "/object/sign/d/p?.txt?token=t3" }]),
    jsonResponse({ url: "/object/upload/sign/d/u?.txt?token=t4", token: "t4" }),
    jsonResponse({ url: "/object/upload/sign/d/v.txt?token=t%2B5" }),
  ]);
  const one = (await storage.createSignedUrl("d", "a b+c&d.txt", 60)).getOrThrow();
  assert.equal(rec.last.url.pathname, "/storage/v1/object/sign/d/a%20b+c&d.txt");
  assert.equal(one, `${S}/object/sign/d/a%20b+c&d.txt?token=t1`);
  const many = (await storage.createSignedUrls("d", ["q?x #1.txt"], 60)).getOrThrow();
  assert.deepEqual(many, [`${S}/object/sign/d/q%3Fx%20%231.txt?token=t2`]);
  // A '?' or '#' key goes through the batch route: the single route would sign it escaped.
  const q = (await storage.createSignedUrl("d", "p?.txt", 60)).getOrThrow();
  assert.equal(rec.last.url.pathname, "/storage/v1/object/sign/d");
  assert.deepEqual(rec.last.json(), { expiresIn: 60, paths: ["p?.txt"] });
  assert.equal(q, `${S}/object/sign/d/p%3F.txt?token=t3`);
  const up = (await storage.createSignedUploadUrlWithPath("d", "u?.txt")).getOrThrow();
  assert.deepEqual(up, {
    url: `${S}/object/upload/sign/d/u%3F.txt?token=t4`,
    token: "t4",
    path: "u?.txt",
  });
  const legacy = (await storage.createSignedUploadUrl("d", "v.txt")).getOrThrow();
  assert.equal(legacy, "t+5", "without a body token, the url's token is used");
  assert.equal(
    storage.getPublicUrl("d", "x:y@z,1;2$=+&.txt"),
    `${S}/object/public/d/x:y@z,1;2$=+&.txt`,
  );
});

Deno.test("signed download and render families; render batches stop at the first failure", async () => {
  let n = 0;
  const { storage, rec } = makeStorage(() => {
    n++;
    if (n === 4) return jsonResponse({ message: "Object not found" }, { status: 404 });
    if (n === 5 || n === 6) {
      return jsonResponse([{ path: "a", signedURL: "/object/sign/d/a?token=1" }]);
    }
    return jsonResponse({ signedURL: `/object/sign/d/p${n}?token=${n}` });
  });
  assert.match(
    (await createSignedDownloadUrl(storage, "d", "p", 60)).getOrThrow(),
    /token=1&download=$/,
  );
  const renders = (await createSignedRenderUrls(storage, "d", ["a", "b"], 60, { width: 50 }))
    .getOrThrow();
  assert.equal(renders.length, 2);
  assert.deepEqual(rec.last.json(), { expiresIn: 60, transform: { width: 50 } });
  assert.ok(!renders[0].includes("download"));
  const failed = await createSignedRenderUrls(storage, "d", ["x", "y", "z"], 60, { width: 50 });
  assert.equal(failed.errorOrNull()?.status, 404);
  assert.equal(n, 4, "signing stopped at the first failure");
  const byPath = (await createSignedDownloadUrlsByPath(storage, "d", ["a"], 60)).getOrThrow();
  assert.match(byPath.a, /download=$/);
  assert.equal((await createSignedDownloadUrls(storage, "d", ["a"], 60)).ok, true);
  assert.match(
    (await createSignedRenderUrl(storage, "d", "q", 60, { height: 5 })).getOrThrow(),
    /token=/,
  );
  const byPathR = (await createSignedRenderUrlsByPath(storage, "d", ["q"], 60, { height: 5 }))
    .getOrThrow();
  assert.ok(byPathR.q);
  const missing = await createSignedRenderUrl(
    storage,
    "d",
    "q",
    60,
    null as unknown as { height: number },
  );
  assert.equal(missing.errorOrNull()?.category, "INVALID_ARGUMENT");
});

Deno.test("local URL builders: no I/O, transforms with nulls omitted, bulk and ByPath forms", () => {
  const { storage, rec } = makeStorage();
  assert.equal(storage.getPublicUrl("img", "a b/c.png"), `${S}/object/public/img/a%20b/c.png`);
  assert.equal(
    storage.getPublicUrl("img", "c.png", { transform: { width: 10, quality: null } }),
    `${S}/render/image/public/img/c.png?width=10`,
  );
  assert.equal(
    storage.getAuthenticatedUrl("img", "c.png", { download: true }),
    `${S}/object/authenticated/img/c.png?download=`,
  );
  assert.equal(
    storage.getPublicRenderUrl("img", "c.png", { resize: "contain", format: "origin" }),
    `${S}/render/image/public/img/c.png?resize=contain&format=origin`,
  );
  assert.equal(
    storage.getAuthenticatedRenderUrl("img", "c.png"),
    `${S}/render/image/authenticated/img/c.png`,
  );
  assert.equal(
    storage.getSignedDownloadUrl("img", "c.png", "tok", { fileName: "x.png" }),
    `${S}/object/sign/img/c.png?token=tok&download=x.png`,
  );
  assert.deepEqual(getPublicUrls(storage, "img", ["a", "b"]), [
    `${S}/object/public/img/a`,
    `${S}/object/public/img/b`,
  ]);
  assert.deepEqual(getPublicUrlsByPath(storage, "img", ["a"]), { a: `${S}/object/public/img/a` });
  assert.deepEqual(getAuthenticatedUrls(storage, "img", ["a"]), [
    `${S}/object/authenticated/img/a`,
  ]);
  assert.deepEqual(getAuthenticatedUrlsByPath(storage, "img", ["a"]), {
    a: `${S}/object/authenticated/img/a`,
  });
  assert.deepEqual(getPublicRenderUrls(storage, "img", ["a"], { width: 1 }), [
    `${S}/render/image/public/img/a?width=1`,
  ]);
  assert.deepEqual(getPublicRenderUrlsByPath(storage, "img", ["a"]), {
    a: `${S}/render/image/public/img/a`,
  });
  assert.deepEqual(getAuthenticatedRenderUrls(storage, "img", ["a"], { height: 2 }), [
    `${S}/render/image/authenticated/img/a?height=2`,
  ]);
  assert.deepEqual(getAuthenticatedRenderUrlsByPath(storage, "img", ["a"]), {
    a: `${S}/render/image/authenticated/img/a`,
  });
  assert.equal(rec.requests.length, 0);
});

Deno.test("withCacheNonce appends verbatim, keeps fragments, ignores blank", () => {
  assert.equal(withCacheNonce("https://x/a.png", "v 1"), "https://x/a.png?cacheNonce=v 1");
  assert.equal(
    withCacheNonce("https://x/a.png?w=1#f", "2", { name: "v" }),
    "https://x/a.png?w=1&v=2#f",
  );
  // The name goes in an options object (a string from JavaScript is refused, not ignored).
  assert.throws(() => withCacheNonce("https://x/a.png", "2", "v" as never), TypeError);
  // A member of the storage client too, as the document's operation table lists it.
  const { storage } = makeStorage();
  assert.equal(
    storage.withCacheNonce("https://x/a.png", "3", { name: "v" }),
    "https://x/a.png?v=3",
  );
  assert.equal(withCacheNonce("https://x/a.png", "  "), "https://x/a.png");
  assert.equal(withCacheNonce("https://x/a.png", null), "https://x/a.png");
});

Deno.test("listPaginator: nothing before loadNext, offset pages, pageSize > 0", async () => {
  const names = ["a", "b", "c"];
  const { storage, rec } = makeStorage((req) => {
    const { offset, limit } = req.json() as { offset: number; limit: number };
    return jsonResponse(names.slice(offset, offset + limit).map((name) => ({ name })));
  });
  const p = listPaginator(storage, "docs", { pageSize: 2, prefix: "p" });
  assert.equal(rec.requests.length, 0);
  await p.loadNext();
  await p.loadNext();
  assert.deepEqual(p.items.value.map((f) => f.name), names);
  assert.equal(p.isEnd.value, true);
  assert.deepEqual(rec.requests.map((r) => (r.json() as { offset: number }).offset), [0, 2]);
  assert.throws(() => listPaginator(storage, "docs", { pageSize: 0 }), RangeError);
  // The smallest valid page.
  await listPaginator(storage, "docs", { pageSize: 1 }).loadNext();
  assert.equal((rec.last.json() as { limit: number }).limit, 1);
});

Deno.test("listPaginator past the Storage API's cap of 1500 rows a page ends on an empty page, not on the capped one", async () => {
  const total = 3200;
  const { storage, rec } = makeStorage((req) => {
    const { offset, limit } = req.json() as { offset: number; limit: number };
    const rows = Math.max(0, Math.min(limit, 1500, total - offset)); // as storage.search caps it
    return jsonResponse(Array.from({ length: rows }, (_, i) => ({ name: `f${offset + i}` })));
  });
  const big = listPaginator(storage, "docs", { pageSize: 2000 });
  while (!big.isEnd.value) assert.ok((await big.loadNext()).ok);
  assert.equal(big.items.value.length, total);
  assert.equal(new Set(big.items.value.map((f) => f.name)).size, total);
  assert.deepEqual(rec.requests.map((r) => (r.json() as { offset: number }).offset), [
    0,
    1500,
    3000,
    3200,
  ]);
  // Up to the cap a short page is the last: no extra request.
  rec.requests.length = 0;
  const capped = listPaginator(storage, "docs", { pageSize: 1500 });
  while (!capped.isEnd.value) assert.ok((await capped.loadNext()).ok);
  assert.equal(capped.items.value.length, total);
  assert.equal(rec.requests.length, 3);
});

Deno.test("getBucket and info on a missing bucket or object: Failure NOT_FOUND with status 404 (the Storage API's 400 with statusCode 404 included)", async () => {
  const { storage } = makeStorage([
    jsonResponse({ statusCode: "404", error: "Bucket not found", message: "Bucket not found" }, {
      status: 400,
    }),
    jsonResponse({ statusCode: "404", error: "not_found", message: "Object not found" }, {
      status: 400,
    }),
    jsonResponse({ message: "Object not found" }, { status: 404 }),
  ]);
  for (
    const r of [
      await storage.getBucket("nope"),
      await storage.info("docs", "gone.txt"),
      await storage.info("docs", "gone.txt"),
    ]
  ) {
    assert.equal(r.errorOrNull()?.category, "NOT_FOUND");
    assert.equal(r.errorOrNull()?.status, 404);
  }
});

Deno.test("updateBucket sends only the fields given (no read-modify-write of `public`) and refuses a rename the server would ignore", async () => {
  const { storage, rec } = makeStorage((req) =>
    req.method === "GET"
      ? jsonResponse({ id: "docs", name: "docs", public: true })
      : jsonResponse({ message: "Successfully updated" })
  );
  const r = await storage.updateBucket("docs", { fileSizeLimit: 10 });
  assert.ok(r.ok);
  // The Storage API takes any one of public, file_size_limit, allowed_mime_types.
  assert.equal(rec.requests[0].method, "PUT", "no read first");
  assert.deepEqual(rec.requests[0].json(), { id: "docs", file_size_limit: 10 });
  const n0 = rec.requests.length;
  const empty = await storage.updateBucket("docs", {});
  assert.equal(empty.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, n0, "nothing sent");
  // Only the name it already has: one read, no write, the bucket as it is.
  const same = await storage.updateBucket("docs", { name: "docs" });
  assert.equal(same.getOrThrow().id, "docs");
  assert.deepEqual(rec.requests.slice(n0).map((q) => q.method), ["GET"]);
  const before = rec.requests.length;
  const rename = await storage.updateBucket("docs", { name: "other", public: false });
  assert.equal(rename.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(rename.errorOrNull()!.message, /keeps a bucket's name/);
  assert.equal(rec.requests.slice(before).filter((q) => q.method === "PUT").length, 0);
  // Public given and no name: no read first.
  const n = rec.requests.length;
  await storage.updateBucket("docs", { public: false });
  assert.equal(rec.requests[n].method, "PUT");
});

Deno.test("keys in JSON bodies may hold empty segments the server stores (trail/, a//b)", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse([]));
  assert.ok((await storage.deleteObjects("d", ["trail/", "a//b.txt", "/x"])).ok);
  assert.deepEqual(rec.last.json(), { prefixes: ["trail/", "a//b.txt", "x"] });
  const { storage: s2, rec: r2 } = makeStorage(() => jsonResponse({ message: "ok" }));
  assert.ok((await s2.move("d", "a//b.txt", "c/")).ok);
  assert.deepEqual(r2.last.json(), { bucketId: "d", sourceKey: "a//b.txt", destinationKey: "c/" });
  assert.equal((await s2.deleteObjects("d", [""])).errorOrNull()?.category, "INVALID_ARGUMENT");
});

Deno.test("list: the order applies only with a sort column; prefixes lose a leading slash; limit >= 1", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse([]));
  await storage.list("d", { sortOrder: SortOrder.DESC, prefix: "/dir" });
  assert.deepEqual(rec.last.json(), {
    prefix: "dir",
    limit: 100,
    offset: 0,
    sortBy: { column: "name", order: "asc" },
  });
  await storage.list("d", { sortBy: "created_at", sortOrder: SortOrder.DESC });
  assert.deepEqual((rec.last.json() as { sortBy: unknown }).sortBy, {
    column: "created_at",
    order: "desc",
  });
  assert.equal((await storage.list("d", { limit: 0 })).errorOrNull()?.category, "INVALID_ARGUMENT");
});

Deno.test("info takes updatedAt from last_modified when that is what the server sends", async () => {
  const { storage } = makeStorage(() =>
    jsonResponse({ id: "1", name: "a.txt", last_modified: "2026-11-23T00:00:00Z", size: 3 })
  );
  assert.equal((await storage.info("d", "a.txt")).getOrThrow().updatedAt, "2026-11-23T00:00:00Z");
});

Deno.test("info takes nothing from the user's metadata; an empty transform signs a ?-key through the batch route", async () => {
  const { storage, rec } = makeStorage((req) =>
    req.url.pathname.startsWith("/storage/v1/object/info/")
      ? jsonResponse({
        id: "o1",
        name: "a.txt",
        bucket_id: "docs",
        size: 3,
        content_type: "text/plain",
        cache_control: null,
        etag: null,
        metadata: { updated_at: "1999-01-01", lastAccessedAt: "user-value", etag: "user-etag" },
        last_modified: "2026-01-01T00:00:00Z",
        created_at: "2025-01-01T00:00:00Z",
      })
      : jsonResponse([{ path: "q?x.txt", signedURL: "/object/sign/docs/q?x.txt?token=t" }])
  );
  const info = (await storage.info("docs", "a.txt")).getOrThrow();
  assert.equal(info.updatedAt, "2026-01-01T00:00:00Z");
  assert.equal(info.lastAccessedAt, null);
  assert.equal(info.etag, null);
  assert.deepEqual(info.metadata, {
    updated_at: "1999-01-01",
    lastAccessedAt: "user-value",
    etag: "user-etag",
  });
  await storage.createSignedUrl("docs", "q?x.txt", 60, { transform: {} });
  assert.equal(rec.last.url.pathname, "/storage/v1/object/sign/docs");
  assert.deepEqual(rec.last.json(), { expiresIn: 60, paths: ["q?x.txt"] });
});
