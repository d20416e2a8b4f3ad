// Argument checks that refuse a request before it is sent: transform values
// on every route that takes them, paging values, and bucket ids or table
// names that would be dot segments (URL parsers resolve them into another route).
import assert from "node:assert/strict";
import { jsonResponse } from "../support/recording_fetch.ts";
import { makeStorage } from "./_helpers.ts";
import { makeDb } from "../database/_helpers.ts";
import {
  createSignedDownloadUrls,
  createSignedRenderUrl,
  createSignedRenderUrls,
  getAuthenticatedRenderUrls,
  getAuthenticatedRenderUrlsByPath,
  getAuthenticatedUrls,
  getAuthenticatedUrlsByPath,
  getPublicRenderUrls,
  getPublicRenderUrlsByPath,
  getPublicUrls,
  getPublicUrlsByPath,
} from "../../storage/extensions.ts";

Deno.test("createSignedUrl checks transform values like render URLs do; resize and format are checked everywhere", async () => {
  const { storage, rec } = makeStorage(() =>
    jsonResponse({ signedURL: "/object/sign/b/a.png?token=t" })
  );
  const bad = [
    { width: -1 },
    { quality: 1.5 },
    { resize: "stretch" },
    { format: "png&x=1" },
  ] as const;
  for (const transform of bad) {
    // deno-lint-ignore no-explicit-any
    const t = transform as any;
    const signed = await storage.createSignedUrl("b", "a.png", 60, { transform: t });
    assert.equal(signed.errorOrNull()?.category, "INVALID_ARGUMENT", JSON.stringify(t));
    const bytes = await storage.downloadBytes("b", "a.png", { transform: t });
    assert.equal(bytes.errorOrNull()?.category, "INVALID_ARGUMENT", JSON.stringify(t));
  }
  assert.equal(rec.requests.length, 0);
  const ok = await storage.createSignedUrl("b", "a.png", 60, {
    transform: { width: 10, resize: "contain", format: "webp" },
  });
  assert.ok(ok.ok);
  assert.deepEqual(rec.last.json(), {
    expiresIn: 60,
    transform: { width: 10, resize: "contain", format: "webp" },
  });
});

Deno.test("a transform wrapped in its options' object is refused on every route that takes one, not sent as no transform", async () => {
  const { storage, rec } = makeStorage(() =>
    jsonResponse({ signedURL: "/object/sign/b/a.png?token=t" })
  );
  // deno-lint-ignore no-explicit-any
  const wrapped = { transform: { width: 64 } } as any;
  const message = /Cannot transform as 'transform' is not a transform field/;
  assert.throws(() => storage.getPublicRenderUrl("b", "a.png", wrapped), TypeError);
  assert.throws(() => storage.getAuthenticatedRenderUrl("b", "a.png", wrapped), message);
  assert.throws(() => storage.getPublicUrl("b", "a.png", { transform: wrapped }), message);
  const signed = await createSignedRenderUrl(storage, "b", "a.png", 60, wrapped);
  assert.equal(signed.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(signed.errorOrNull()!.message, message);
  const bytes = await storage.downloadBytes("b", "a.png", { transform: wrapped });
  assert.equal(bytes.errorOrNull()?.category, "INVALID_ARGUMENT");
  // A list with no path to sign is refused too, as `{}` is.
  const none = await createSignedRenderUrls(storage, "b", [], 60, wrapped);
  assert.match(none.errorOrNull()!.message, message);
  assert.equal(rec.requests.length, 0);
  // A null `transform` field is no wrapper.
  // deno-lint-ignore no-explicit-any
  const plain = { width: 64, transform: null } as any;
  assert.equal(
    storage.getPublicRenderUrl("b", "a.png", plain),
    "https://project.example.com/storage/v1/render/image/public/b/a.png?width=64",
  );
});

Deno.test("the bulk URL builders check bucket and transform for an empty list too, as for one path", () => {
  const { storage } = makeStorage(() => jsonResponse({}));
  // deno-lint-ignore no-explicit-any
  const wrapped = { transform: { width: 64 } } as any;
  const message = /Cannot transform as 'transform' is not a transform field/;
  const builders: Array<[string, () => unknown]> = [
    ["getPublicUrls", () => getPublicUrls(storage, "b", [], { transform: wrapped })],
    ["getPublicUrlsByPath", () => getPublicUrlsByPath(storage, "b", [], { transform: wrapped })],
    ["getAuthenticatedUrls", () => getAuthenticatedUrls(storage, "b", [], { transform: wrapped })],
    [
      "getAuthenticatedUrlsByPath",
      () => getAuthenticatedUrlsByPath(storage, "b", [], { transform: wrapped }),
    ],
    ["getPublicRenderUrls", () => getPublicRenderUrls(storage, "b", [], wrapped)],
    ["getPublicRenderUrlsByPath", () => getPublicRenderUrlsByPath(storage, "b", [], wrapped)],
    ["getAuthenticatedRenderUrls", () => getAuthenticatedRenderUrls(storage, "b", [], wrapped)],
    [
      "getAuthenticatedRenderUrlsByPath",
      () => getAuthenticatedRenderUrlsByPath(storage, "b", [], wrapped),
    ],
  ];
  for (const [name, build] of builders) assert.throws(build, message, name);
  // A bucket that cannot be a URL segment is refused with no path, as with one.
  assert.throws(() => getPublicUrls(storage, "..", []), TypeError);
  assert.throws(() => getAuthenticatedRenderUrls(storage, "..", [], { width: 5 }), TypeError);
  // Valid arguments and no path: no URL.
  assert.deepEqual(getPublicUrls(storage, "b", [], { transform: { width: 5 } }), []);
  assert.deepEqual(getAuthenticatedRenderUrlsByPath(storage, "b", [], { width: 5 }), {});
});

Deno.test("createSignedUrls and createSignedDownloadUrls refuse a transform (the batch route takes none) instead of signing without it", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse([]));
  // deno-lint-ignore no-explicit-any
  const options = { transform: { width: 64 } } as any;
  const batch = await storage.createSignedUrls("b", ["a.png"], 60, options);
  assert.equal(batch.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(batch.errorOrNull()!.message, /createSignedRenderUrls/);
  const download = await createSignedDownloadUrls(storage, "b", ["a.png"], 60, options);
  assert.equal(download.errorOrNull()?.category, "INVALID_ARGUMENT");
  // An empty transform is no transform, as on every route.
  // deno-lint-ignore no-explicit-any
  assert.ok((await storage.createSignedUrls("b", [], 60, { transform: {} } as any)).ok);
  assert.equal(rec.requests.length, 0);
});

Deno.test("listV2 and listBuckets refuse paging values that are not integers in range", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse([]));
  for (const limit of [-5, 0, 1.5]) {
    const r = await storage.listV2("b", { limit });
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", `listV2 limit ${limit}`);
  }
  for (const o of [{ limit: -1 }, { offset: 1.5 }, { offset: -1 }]) {
    const r = await storage.listBuckets(o);
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", JSON.stringify(o));
  }
  // Analytics buckets list with the same semantics, so with the same checks.
  for (const o of [{ limit: 0 }, { offset: 1.5 }, { limit: 0, offset: 1.5 }]) {
    const r = await storage.listAnalyticsBuckets(o);
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", `analytics ${JSON.stringify(o)}`);
    assert.match(r.errorOrNull()!.message, /^Cannot list analytics buckets as '(limit|offset)'/);
  }
  assert.equal(rec.requests.length, 0);
  assert.ok((await storage.listBuckets({ limit: 10, offset: 0 })).ok);
  assert.equal(rec.last.url.search, "?limit=10&offset=0");
  assert.ok((await storage.listAnalyticsBuckets({ limit: 10, offset: 0 })).ok);
  assert.equal(rec.last.url.search, "?limit=10&offset=0");
});

Deno.test("a transformed signed URL for a key holding ? or # is refused: no route signs one the server accepts", async () => {
  const { storage, rec } = makeStorage(() =>
    jsonResponse({ signedURL: "/object/sign/b/a.png?token=t" })
  );
  for (const key of ["what?.png", "a#1.png"]) {
    const r = await storage.createSignedUrl("b", key, 60, { transform: { width: 64 } });
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", key);
    assert.match(r.errorOrNull()!.message, /'\?' or '#'/);
  }
  assert.equal(rec.requests.length, 0);
  // Without a transform such a key is signed through the batch route.
  assert.ok(
    (await makeStorage(() =>
      jsonResponse([{ path: "what?.png", signedURL: "/object/sign/b/x?token=t" }])
    )
      .storage.createSignedUrl("b", "what?.png", 60)).ok,
  );
});

Deno.test("a bucket id or table name of . or .. is refused: it would resolve to another route", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({ Key: "x" }));
  for (const bucket of [".", ".."]) {
    const up = await storage.upload(bucket, "victim/secret.txt", new Uint8Array(1));
    assert.equal(up.errorOrNull()?.category, "INVALID_ARGUMENT", bucket);
    assert.throws(() => storage.getPublicUrl(bucket, "x.txt"), TypeError);
  }
  assert.equal(rec.requests.length, 0);
  const { db, rec: dbRec } = makeDb(() => jsonResponse([]));
  for (const name of [".", ".."]) {
    // A Failure with no request, as for a blank name.
    assert.equal((await db.select(name)).errorOrNull()?.category, "INVALID_ARGUMENT");
    assert.equal((await db.rpc(name)).errorOrNull()?.category, "INVALID_ARGUMENT");
  }
  assert.equal(dbRec.requests.length, 0);
});

Deno.test("an empty transform is no transform; a file name that cannot be encoded fails before signing", async () => {
  const { storage, rec } = makeStorage(() => new Response("x"));
  assert.match(
    storage.getPublicUrl("b", "a.png", { transform: {} }),
    /\/object\/public\/b\/a\.png$/,
  );
  await storage.downloadBytes("b", "a.png", { transform: { width: null } });
  assert.equal(rec.last.url.pathname, "/storage/v1/object/authenticated/b/a.png");
  const before = rec.requests.length;
  const lone = "\ud800.txt";
  const one = await storage.createSignedUrl("b", "a.png", 60, { fileName: lone });
  assert.equal(one.errorOrNull()?.category, "INVALID_ARGUMENT");
  const many = await storage.createSignedUrls("b", ["a.png"], 60, { fileName: lone });
  assert.equal(many.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, before, "nothing sent");
});

// The object listings' `sortBy`, given to a bucket listing from JavaScript, was ignored: the
// buckets came back in the server's order.
Deno.test("listBuckets and listAnalyticsBuckets refuse 'sortBy', naming sortColumn, and send nothing", async () => {
  const { storage, rec } = makeStorage(() => Response.json([]));
  for (
    const r of [
      await storage.listBuckets({ sortBy: "name" } as never),
      await storage.listAnalyticsBuckets({ sortBy: "name" } as never),
    ]
  ) {
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
    assert.match(
      r.errorOrNull()!.message,
      /'sortBy' is no option here: pass \{ sortColumn: "name" \}/,
    );
  }
  assert.equal(rec.requests.length, 0);
  assert.equal((await storage.listBuckets({ sortColumn: "name" })).ok, true);
  assert.equal(rec.only.url.search, "?sortColumn=name");
});

Deno.test("an object path that is no string is named by its value", async () => {
  const { storage, rec } = makeStorage(() => Response.json({ Key: "b/a" }));
  const r = await storage.upload("b", 42 as never, "x");
  assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(
    r.errorOrNull()!.message,
    "Cannot use the object path as it must be a string: current value is 42",
  );
  const o = await storage.download("b", { path: "a" } as never);
  assert.match(o.errorOrNull()!.message, /must be a string: current value is an object$/);
  assert.equal(rec.requests.length, 0);
});

// storage-js's createBucket(id, options): ported as it is, the options stood where the name goes.
Deno.test("createBucket given options where the name goes says the order it takes", async () => {
  const { storage, rec } = makeStorage(() => Response.json({ name: "b" }));
  const r = await storage.createBucket("b", { public: true } as never);
  assert.equal(
    r.errorOrNull()!.message,
    "Cannot create the bucket as 'name' must be a string: current value is an object (createBucket takes (id, name, options))",
  );
  const n = await storage.createBucket("b", 7 as never);
  assert.equal(
    n.errorOrNull()!.message,
    "Cannot create the bucket as 'name' must be a string: current value is 7",
  );
  assert.equal(rec.requests.length, 0);
});

// From the mutation review: each listing names itself; `sortBy` is refused whatever its value;
// the createBucket hint is for an object given to createBucket only.
Deno.test("the sortBy refusal names its listing and takes any value; the createBucket hint is for its options only", async () => {
  const { storage, rec } = makeStorage(() => Response.json([]));
  const a = await storage.listAnalyticsBuckets({ sortBy: "name" } as never);
  assert.match(a.errorOrNull()!.message, /^Cannot list analytics buckets as 'sortBy'/);
  for (const sortBy of [null, undefined, ""]) {
    const r = await storage.listBuckets({ sortBy } as never);
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", String(sortBy));
  }
  assert.equal(
    (await storage.createBucket("b", null as never)).errorOrNull()!.message,
    "Cannot create the bucket as 'name' must be a string: current value is null",
  );
  assert.equal(
    (await storage.updateBucket("b", { name: { x: 1 } } as never)).errorOrNull()!.message,
    "Cannot update the bucket as 'name' must be a string: current value is an object",
  );
  assert.equal(rec.requests.length, 0);
});
