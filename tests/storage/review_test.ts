// Findings of a review of the storage area: each test failed before its fix.
import assert from "node:assert/strict";
import vm from "node:vm";
import { createBaseClient } from "../../core/client.ts";
import {
  createSignedDownloadUrlsByPath,
  createSignedRenderUrl,
  createSignedRenderUrls,
  createSignedRenderUrlsByPath,
  createStorageClient,
  listPaginator,
} from "../../storage/mod.ts";
import { uploadToSignedUrl } from "../../storage/objects.ts";
import { createResumableUpload } from "../../storage/tus.ts";
import { jsonResponse, recordingFetch } from "../support/recording_fetch.ts";
import { makeStorage } from "./_helpers.ts";

Deno.test("listV2 drops a leading '/' of 'prefix' as list does: the server matches the prefix literally and keys never start with '/'", async () => {
  const { storage, rec } = makeStorage((req) =>
    jsonResponse(
      req.url.pathname.includes("list-v2") ? { hasNext: false, folders: [], objects: [] } : [],
    )
  );
  for (const [prefix, sent] of [["/docs/", "docs/"], ["//a", "a"], ["b/", "b/"]]) {
    assert.ok((await storage.listV2("b", { prefix })).ok);
    assert.equal((rec.last.json() as { prefix: string }).prefix, sent, prefix);
    assert.ok((await storage.list("b", { prefix })).ok);
    assert.equal((rec.last.json() as { prefix: string }).prefix, sent, prefix);
  }
  assert.ok((await storage.listV2("b", { prefix: null })).ok);
  assert.deepEqual(rec.last.json(), {});
});

Deno.test("a signed render URL needs a transform that sets a field: {} or only nulls would sign a plain object URL", async () => {
  const { storage, rec } = makeStorage(() =>
    jsonResponse({ signedURL: "/object/sign/b/a.png?token=t" })
  );
  for (const transform of [{}, { width: null, height: null }, { quality: undefined }]) {
    const name = JSON.stringify(transform);
    for (
      const r of [
        await createSignedRenderUrl(storage, "b", "a.png", 60, transform),
        await createSignedRenderUrls(storage, "b", ["a.png"], 60, transform),
        await createSignedRenderUrlsByPath(storage, "b", "a.png", 60, transform),
        await createSignedRenderUrls(storage, "b", [], 60, transform),
      ]
    ) {
      assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", name);
      assert.match(
        r.errorOrNull()!.message,
        /^Cannot sign a render URL as 'transform' must set at least one field: current value is /,
      );
    }
  }
  assert.equal(rec.requests.length, 0);
  assert.ok((await createSignedRenderUrl(storage, "b", "a.png", 60, { width: 5 })).ok);
  assert.deepEqual(rec.last.json(), { expiresIn: 60, transform: { width: 5 } });
});

Deno.test("createBucket reports the MIME types the Storage API stores: it drops empty ones", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({ name: "b" }));
  const r = await storage.createBucket("b", "b", { allowedMimeTypes: ["image/png", ""] });
  assert.deepEqual(r.getOrThrow().allowedMimeTypes, ["image/png"]);
  // Sent as given, as storage-js sends it: the server filters.
  assert.deepEqual((rec.last.json() as Record<string, unknown>).allowed_mime_types, [
    "image/png",
    "",
  ]);
  // [""] is stored as [], which allows any type.
  const any = await storage.createBucket("b", "b", { allowedMimeTypes: [""] });
  assert.deepEqual(any.getOrThrow().allowedMimeTypes, []);
  const none = await storage.createBucket("b", "b");
  assert.equal(none.getOrThrow().allowedMimeTypes, null);
});

Deno.test("upload metadata must be a plain object: a Date went out as a JSON string, a Map as {}", async () => {
  const rec = recordingFetch(() => jsonResponse({ Key: "b/p" }));
  const s = createStorageClient(
    createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch }),
  );
  class Tags {
    a = 1;
  }
  for (
    const metadata of [new Date(0), new Map([["k", "v"]]), new Tags(), /x/, new Set(), new String()]
  ) {
    const message = /^Cannot upload as 'metadata' must be a JSON object: current value is /;
    for (
      const r of [
        await s.upload("b", "p", "x", { metadata } as never),
        await s.uploadToSignedUrl("b", "p", "token", "x", { metadata } as never),
      ]
    ) {
      assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", String(metadata));
      assert.match(r.errorOrNull()!.message, message);
    }
    assert.throws(
      () => s.createResumableUpload("b", "p", new Uint8Array(1), { metadata } as never),
      { name: "TypeError", message },
    );
  }
  assert.equal(rec.requests.length, 0);
  // Plain objects go, those without a prototype too.
  const bare = Object.assign(Object.create(null), { k: "v" });
  // Another realm's plain object (an iframe's, a vm context's) is a plain object too.
  const foreign = vm.runInNewContext("({ k: 'v' })");
  assert.notEqual(Object.getPrototypeOf(foreign), Object.prototype);
  for (const metadata of [{ k: "v" }, bare, foreign, structuredClone({ k: "v" })]) {
    assert.ok((await s.upload("b", "p", "x", { metadata })).ok);
    assert.equal(atob(rec.last.headers.get("x-metadata")!), '{"k":"v"}');
  }
});

Deno.test("listBuckets drops an empty sortColumn as it drops an empty search: the server answers ?sortColumn= with 400", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse([]));
  assert.ok((await storage.listBuckets({ sortColumn: "", search: "", limit: 5 })).ok);
  assert.equal(rec.last.url.search, "?limit=5");
  assert.ok((await storage.listAnalyticsBuckets({ sortColumn: "" })).ok);
  assert.equal(rec.last.url.search, "");
  assert.ok((await storage.listBuckets({ sortColumn: "name" })).ok);
  assert.equal(rec.last.url.search, "?sortColumn=name");
});

Deno.test("listPaginator takes a timeout for each page's request, checked as other storage calls check theirs", async () => {
  // A fetch that never answers, on a client whose own timeout is 2 s.
  const rec = recordingFetch(() => new Promise<Response>(() => {}));
  const storage = createStorageClient(
    createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch, timeout: 2000 }),
  );
  const p = listPaginator(storage, "docs", { pageSize: 2, timeout: 20 });
  const started = Date.now();
  const r = await p.loadNext();
  assert.equal(r.errorOrNull()?.category, "TIMEOUT");
  assert.match(r.errorOrNull()!.message, /after 20 ms/);
  assert.ok(Date.now() - started < 1500, "the page's own timeout, not the client's");
  assert.equal(p.error.value?.category, "TIMEOUT");
  assert.equal(rec.requests.length, 1);
  for (const timeout of [-1, Number.NaN, "5" as unknown as number]) {
    const bad = await listPaginator(storage, "docs", { timeout }).loadNext();
    assert.equal(bad.errorOrNull()?.category, "INVALID_ARGUMENT", String(timeout));
    assert.match(bad.errorOrNull()!.message, /'timeout' must be a non-negative number/);
  }
  assert.equal(rec.requests.length, 1);
});

Deno.test("an opaque signed-upload token and a pre-signed upload URL's query are redacted from a network failure and its cause", async () => {
  // A closed port: the runtime's own network error names the URL, query included.
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (closed.addr as Deno.NetAddr).port;
  closed.close();
  const client = createBaseClient(`http://127.0.0.1:${port}`, "anon-key-123456", {
    retry: { maxAttempts: 1 },
  });
  const token = "opaque-signed-upload-secret-XYZ";
  const signed = await uploadToSignedUrl(client, "b", "k.txt", token, "data");
  assert.equal(signed.errorOrNull()?.category, "NETWORK");
  const shown = [signed.errorOrNull()!.message, Deno.inspect(signed.errorOrNull(), { depth: 10 })];
  assert.ok(shown.some((s) => s.includes("/object/upload/sign/b/k.txt")), shown.join("\n"));
  for (const s of shown) assert.ok(!s.includes(token), s);

  const secret = "X-Amz-Signature=0123456789abcdef";
  const upload = createResumableUpload(client, "b", "k.txt", new Uint8Array(8), {
    uploadUrl: `http://127.0.0.1:${port}/upload/resumable/abc?${secret}`,
    maxAttempts: 1,
  });
  const r = await upload.await();
  assert.equal(r.ok, false);
  for (const s of [r.errorOrNull()!.message, Deno.inspect(r.errorOrNull(), { depth: 10 })]) {
    assert.ok(!s.includes("0123456789abcdef"), s);
  }
});

Deno.test("signing no paths answers an empty list without a request (the server refuses an empty list), as the render URLs do", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({ message: "paths" }, { status: 400 }));
  const urls = await storage.createSignedUrls("b", [], 60);
  assert.deepEqual(urls.getOrThrow(), []);
  assert.deepEqual((await createSignedDownloadUrlsByPath(storage, "b", [], 60)).getOrThrow(), {});
  assert.deepEqual(
    (await createSignedRenderUrls(storage, "b", [], 60, { width: 10 })).getOrThrow(),
    [],
  );
  assert.equal(rec.requests.length, 0);
  // The arguments are still checked: expiry and bucket id, whatever the list.
  const bad = await storage.createSignedUrls("b", [], 0);
  assert.equal(bad.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(bad.errorOrNull()!.message, /'expiresIn'/);
  const badRender = await createSignedRenderUrls(storage, "b", [], 0, { width: 10 });
  assert.match(badRender.errorOrNull()!.message, /'expiresIn'/);
  for (const bucket of ["", "a/b", ".."]) {
    for (
      const r of [
        await storage.createSignedUrls(bucket, [], 60),
        await createSignedRenderUrls(storage, bucket, [], 60, { width: 10 }),
      ]
    ) {
      assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", bucket);
      assert.match(r.errorOrNull()!.message, /bucket id/, bucket);
    }
  }
});

Deno.test("a range answered with the whole object (a server or proxy ignoring Range) is no Success; 206 and a whole `0-` are", async () => {
  let status = 200;
  const { storage } = makeStorage(() =>
    new Response(status === 206 ? "234" : "0123456789", {
      status,
      headers: status === 206 ? { "content-range": "bytes 2-4/10" } : {},
    })
  );
  for (
    const call of [
      () => storage.downloadBytes("b", "a.txt", { range: { start: 2, end: 4 } }),
      () => storage.download("b", "a.txt", { range: { start: 2 } }),
      () => storage.downloadPublicBytes("b", "a.txt", { range: { start: 0, end: 4 } }),
      () => storage.downloadStream("b", "a.txt", { range: { start: 2, end: 4 } }),
    ]
  ) {
    const r = await call();
    assert.equal(r.errorOrNull()?.category, "DECODE");
    assert.match(r.errorOrNull()!.message, /ignores Range/);
  }
  // The whole object for `0-`, or for a range from 0 that covers it, is the range asked for
  // (RFC 9110 lets a server ignore Range).
  assert.equal((await storage.downloadBytes("b", "a.txt", { range: { start: 0 } })).ok, true);
  for (const end of [9, 999]) {
    const whole = await storage.downloadBytes("b", "a.txt", { range: { start: 0, end } });
    assert.equal(whole.ok, true, `0-${end}`);
  }
  status = 206;
  const part = await storage.downloadBytes("b", "a.txt", { range: { start: 2, end: 4 } });
  assert.equal(new TextDecoder().decode(part.getOrThrow() as Uint8Array), "234");
});

Deno.test("a stream of a range answered whole under a Content-Encoding is refused: its Content-Length counts the encoded bytes", async () => {
  let encoding: string | null = "gzip";
  const { storage } = makeStorage(() =>
    // Ten bytes as the stream gives them, three as the encoded Content-Length counts them.
    new Response("0123456789", {
      status: 200,
      headers: encoding === null
        ? { "content-length": "3" }
        : { "content-encoding": encoding, "content-length": "3" },
    })
  );
  const r = await storage.downloadStream("b", "a.txt", { range: { start: 0, end: 4 } });
  assert.equal(r.errorOrNull()?.category, "DECODE");
  assert.match(r.errorOrNull()!.message, /ignores Range/);
  // Without one (or with `identity`), Content-Length is the stream's length: three bytes are
  // within 0-4.
  for (const e of [null, "identity"]) {
    encoding = e;
    const whole = await storage.downloadStream("b", "a.txt", { range: { start: 0, end: 4 } });
    assert.equal(whole.ok, true, String(e));
    await whole.getOrThrow().stream.cancel();
  }
});

Deno.test("a range from 0 of an empty object (the Storage API answers any Range of one 416) is the empty object; other 416s stay failures", async () => {
  // As the Storage API answers (`range.ts`: no range is satisfiable on an empty object).
  const { storage, rec } = makeStorage((req) =>
    req.headers.has("range")
      ? jsonResponse({
        statusCode: "416",
        error: "InvalidRange",
        message: "invalid range provided",
      }, {
        status: 416,
      })
      : new Response(new Uint8Array(0), { status: 200 })
  );
  for (const range of [{ start: 0 }, { start: 0, end: 1023 }]) {
    const bytes = await storage.downloadBytes("b", "empty.bin", { range });
    assert.deepEqual(bytes.getOrThrow(), new Uint8Array(0));
    assert.equal((await storage.download("b", "empty.bin", { range })).getOrThrow(), "");
    assert.equal((await storage.downloadPublic("b", "empty.bin", { range })).getOrThrow(), "");
    const stream = (await storage.downloadStream("b", "empty.bin", { range })).getOrThrow();
    assert.equal((await new Response(stream.stream).arrayBuffer()).byteLength, 0);
  }
  assert.ok(rec.requests.every((r) => r.headers.get("range")?.startsWith("bytes=0-")));
  // A range past the start of an object is the server's 416, as before.
  const past = await storage.downloadBytes("b", "empty.bin", { range: { start: 5 } });
  assert.equal(past.errorOrNull()?.status, 416);
});

Deno.test("a 206 of another range than asked (a proxy or cache) is DECODE, its stream cancelled; a 206 without Content-Range is taken", async () => {
  let contentRange: string | null = "bytes 0-9/10";
  let cancelled = 0;
  const { storage } = makeStorage(() =>
    new Response(
      new ReadableStream({
        start: (c) => (c.enqueue(new TextEncoder().encode("0123456789")), c.close()),
        cancel: () => void cancelled++,
      }),
      { status: 206, headers: contentRange === null ? {} : { "content-range": contentRange } },
    )
  );
  const wrong = await storage.downloadBytes("b", "a.txt", { range: { start: 2, end: 5 } });
  assert.equal(wrong.errorOrNull()?.category, "DECODE");
  assert.match(wrong.errorOrNull()!.message, /answered another one \(bytes 0-9\/10\)/);
  // Refused on its headers, its body cancelled unread (a read whole cancels it too).
  assert.equal(cancelled, 1);
  const stream = await storage.downloadStream("b", "a.txt", { range: { start: 2, end: 5 } });
  assert.equal(stream.errorOrNull()?.category, "DECODE");
  assert.equal(cancelled, 2);
  for (
    const [header, range] of [
      ["bytes 2-5/10", { start: 2, end: 5 }],
      ["bytes 2-9/10", { start: 2, end: 50 }], // the object ends before the range asked
      ["bytes 2-9/10", { start: 2 }],
      ["bytes 2-9/*", { start: 2 }],
      [null, { start: 2, end: 5 }], // hidden from another origin's page
    ] as const
  ) {
    contentRange = header;
    assert.ok((await storage.downloadBytes("b", "a.txt", { range })).ok, String(header));
  }
  contentRange = "bytes 2-4/10";
  assert.equal(
    (await storage.downloadBytes("b", "a.txt", { range: { start: 2, end: 5 } })).ok,
    false,
    "fewer bytes than asked of an object that has them",
  );
});

Deno.test("upload metadata holding a Map, a Set or bytes at any depth is refused (they went as {})", async () => {
  const rec = recordingFetch(() => jsonResponse({ Key: "b/p" }));
  const s = createStorageClient(
    createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch }),
  );
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ tags: new Map([["k", "v"]]) }, "'metadata.tags' must be JSON, not a Map"],
    [{ a: { b: [1, new Set([2])] } }, "'metadata.a.b[1]' must be JSON, not a Set"],
    [{ "x-y": new Uint8Array([1]) }, `'metadata["x-y"]' must be JSON, not a Uint8Array`],
  ];
  for (const [metadata, message] of cases) {
    const r = await s.upload("b", "p", "x", { metadata });
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
    assert.equal(r.errorOrNull()!.message, `Cannot upload as ${message}`);
    assert.throws(() => s.createResumableUpload("b", "p", new Uint8Array(1), { metadata }), {
      name: "TypeError",
      message: `Cannot upload as ${message}`,
    });
  }
  assert.equal(rec.requests.length, 0);
  // A Date inside writes its ISO text, a class instance its fields, as JSON does; they go.
  class Point {
    x = 1;
  }
  const ok = { at: new Date(0), p: new Point(), n: [null, { s: new String("s") }] };
  assert.ok((await s.upload("b", "p", "x", { metadata: ok })).ok);
  assert.equal(
    atob(rec.last.headers.get("x-metadata")!),
    '{"at":"1970-01-01T00:00:00.000Z","p":{"x":1},"n":[null,{"s":"s"}]}',
  );
  // A cycle is still JSON's own TypeError, not a hang.
  const cyclic: Record<string, unknown> = {};
  cyclic.self = { back: cyclic };
  const r = await s.upload("b", "p", "x", { metadata: cyclic });
  assert.match(r.errorOrNull()!.message, /^Cannot upload as 'metadata' cannot be written as JSON/);
});
