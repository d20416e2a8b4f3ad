import assert from "node:assert/strict";
import { StorageVectorsClient } from "@supabase/storage-js";
import { jsonResponse, type RecordedRequest, recordingFetch } from "../support/recording_fetch.ts";
import { BASE, KEY, makeStorage } from "../storage/_helpers.ts";

const V = `${BASE}/storage/v1/vector`;

Deno.test("vector buckets and indexes: RPC routes, bodies, decoding with UNKNOWN for unrecognised enums", async () => {
  const { storage, rec } = makeStorage([
    jsonResponse({}),
    jsonResponse({
      vectorBucket: {
        vectorBucketName: "vb",
        creationTime: 1700,
        encryptionConfiguration: { sseType: "AES256" },
      },
    }),
    jsonResponse({ vectorBuckets: [{ vectorBucketName: "vb" }], nextToken: "n2" }),
    jsonResponse({}),
    jsonResponse({}),
    jsonResponse({
      index: {
        indexName: "ix",
        vectorBucketName: "vb",
        dataType: "float16",
        dimension: 3,
        distanceMetric: "hamming",
        creationTime: 1,
      },
    }),
    jsonResponse({ indexes: [{ indexName: "ix" }] }),
    jsonResponse({}),
  ]);
  assert.ok((await storage.createVectorBucket("vb")).ok);
  assert.equal(rec.last.url.href, `${V}/CreateVectorBucket`);
  assert.deepEqual(rec.last.json(), { vectorBucketName: "vb" });
  const b = (await storage.getVectorBucket("vb")).getOrThrow();
  assert.deepEqual(b, {
    vectorBucketName: "vb",
    creationTime: 1700,
    encryptionConfiguration: { sseType: "AES256" },
  });
  const list = (await storage.listVectorBuckets({ prefix: "v", maxResults: 10, nextToken: "n1" }))
    .getOrThrow();
  assert.deepEqual(rec.last.json(), { prefix: "v", maxResults: 10, nextToken: "n1" });
  assert.deepEqual(list, { vectorBuckets: [{ vectorBucketName: "vb" }], nextToken: "n2" });
  await storage.deleteVectorBucket("vb");
  assert.equal(rec.last.url.href, `${V}/DeleteVectorBucket`);
  await storage.createVectorIndex("vb", "ix", "float32", 3, "cosine", {
    metadataConfiguration: { nonFilterableMetadataKeys: ["raw"] },
  });
  assert.deepEqual(rec.last.json(), {
    vectorBucketName: "vb",
    indexName: "ix",
    dataType: "float32",
    dimension: 3,
    distanceMetric: "cosine",
    metadataConfiguration: { nonFilterableMetadataKeys: ["raw"] },
  });
  const ix = (await storage.getVectorIndex("vb", "ix")).getOrThrow();
  assert.equal(ix.dataType, "unknown");
  assert.equal(ix.distanceMetric, "unknown");
  assert.equal(ix.metadataConfiguration, null);
  assert.deepEqual((await storage.listVectorIndexes("vb")).getOrThrow(), {
    indexes: [{ indexName: "ix" }],
    nextToken: null,
  });
  await storage.deleteVectorIndex("vb", "ix");
  assert.deepEqual(rec.last.json(), { vectorBucketName: "vb", indexName: "ix" });
});

Deno.test("vectors: put, get, list with segments, query, delete", async () => {
  const { storage, rec } = makeStorage([
    jsonResponse({}),
    jsonResponse({ vectors: [{ key: "a", data: { float32: [1, 2, 3] }, metadata: { t: 1 } }] }),
    jsonResponse({ vectors: [{ key: "a" }], nextToken: "t" }),
    jsonResponse({
      vectors: [{ key: "a", distance: 0.1, metadata: null }],
      distanceMetric: "cosine",
    }),
    jsonResponse({}),
  ]);
  await storage.putVectors("vb", "ix", [{
    key: "a",
    data: { float32: [1, 2, 3] },
    metadata: { t: 1 },
  }, { key: "b", data: { float32: [0, 0, 1] } }]);
  assert.equal(rec.last.url.href, `${V}/PutVectors`);
  assert.deepEqual(rec.last.json(), {
    vectorBucketName: "vb",
    indexName: "ix",
    vectors: [{ key: "a", data: { float32: [1, 2, 3] }, metadata: { t: 1 } }, {
      key: "b",
      data: { float32: [0, 0, 1] },
    }],
  });
  const got =
    (await storage.getVectors("vb", "ix", ["a"], { returnData: true, returnMetadata: true }))
      .getOrThrow();
  assert.deepEqual(got, [{
    key: "a",
    data: { float32: [1, 2, 3] },
    metadata: { t: 1 },
    distance: null,
  }]);
  const page =
    (await storage.listVectors("vb", "ix", { segmentCount: 4, segmentIndex: 3, maxResults: 100 }))
      .getOrThrow();
  assert.deepEqual(rec.last.json(), {
    vectorBucketName: "vb",
    indexName: "ix",
    maxResults: 100,
    segmentCount: 4,
    segmentIndex: 3,
  });
  assert.equal(page.nextToken, "t");
  const q = (await storage.queryVectors("vb", "ix", { float32: [1, 0, 0] }, {
    topK: 5,
    filter: { t: 1 },
    returnDistance: true,
    dimension: 3,
  }))
    .getOrThrow();
  assert.deepEqual(rec.last.json(), {
    vectorBucketName: "vb",
    indexName: "ix",
    queryVector: { float32: [1, 0, 0] },
    topK: 5,
    filter: { t: 1 },
    returnDistance: true,
  });
  assert.equal(q.distanceMetric, "cosine");
  assert.equal(q.vectors[0].distance, 0.1);
  await storage.deleteVectors("vb", "ix", ["a", "b"]);
  assert.deepEqual(rec.last.json(), { vectorBucketName: "vb", indexName: "ix", keys: ["a", "b"] });
});

Deno.test("limits: batches 1..500 and segments 1..16 throw RangeError before any request; so does a vector whose length is not the index dimension; a bad index dimension or a sparse vector fail", async () => {
  const { storage, rec } = makeStorage();
  const v = (key: string) => ({ key, data: { float32: [1, 2, 3] } });
  assert.throws(() => storage.putVectors("vb", "ix", []), RangeError);
  assert.throws(
    () => storage.putVectors("vb", "ix", Array.from({ length: 501 }, (_, i) => v(String(i)))),
    RangeError,
  );
  assert.throws(() => storage.deleteVectors("vb", "ix", []), RangeError);
  assert.throws(
    () => storage.deleteVectors("vb", "ix", Array.from({ length: 501 }, (_, i) => String(i))),
    RangeError,
  );
  assert.throws(() => storage.listVectors("vb", "ix", { segmentCount: 0 }), RangeError);
  assert.throws(() => storage.listVectors("vb", "ix", { segmentCount: 17 }), RangeError);
  assert.throws(
    () => storage.listVectors("vb", "ix", { segmentCount: 4, segmentIndex: 4 }),
    RangeError,
  );
  assert.throws(
    () => storage.listVectors("vb", "ix", { segmentCount: 4, segmentIndex: -1 }),
    RangeError,
  );
  // The other ends of the ranges are accepted: 500 keys, one segment (index 0 only).
  const { storage: ok, rec: okRec } = makeStorage(() => jsonResponse({ vectors: [] }));
  assert.ok(
    (await ok.deleteVectors("vb", "ix", Array.from({ length: 500 }, (_, i) => String(i)))).ok,
  );
  assert.equal((okRec.last.json() as { keys: string[] }).keys.length, 500);
  assert.ok((await ok.listVectors("vb", "ix", { segmentCount: 1, segmentIndex: 0 })).ok);
  assert.throws(() => ok.listVectors("vb", "ix", { segmentCount: 1, segmentIndex: 1 }), RangeError);
  // Given one without the other is no range of the Limits: a Failure, nothing sent.
  const sent = okRec.requests.length;
  for (const half of [{ segmentCount: 4 }, { segmentIndex: 0 }]) {
    const r = await ok.listVectors("vb", "ix", half);
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
    assert.match(r.errorOrNull()!.message, /must be given together/);
  }
  // Keys that are no array of strings (a string has a length too) are refused, nothing sent.
  // deno-lint-ignore no-sparse-arrays
  for (const keys of ["abc", [1, 2], { length: 2 }, [, "a"]]) {
    for (
      const r of [
        await ok.deleteVectors("vb", "ix", keys as never),
        await ok.getVectors("vb", "ix", keys as never),
      ]
    ) {
      assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
      assert.match(r.errorOrNull()!.message, /'keys' must be an array of strings: current value/);
    }
  }
  assert.equal(okRec.requests.length, sent);
  // The index dimension is not one of the document's Limits: a Failure, not a throw.
  for (const bad of [0, -1, 1.5, NaN]) {
    const r = await storage.createVectorIndex("vb", "ix", "float32", bad, "cosine");
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
    assert.match(r.errorOrNull()!.message, /'dimension' must be a positive integer/);
  }
  // A hole in a sparse array would go out as null: refused like any non-number.
  const sparse = [1, 2, 3];
  delete sparse[1];
  const holey = await storage.putVectors("vb", "ix", [{ key: "s", data: { float32: sparse } }]);
  assert.equal(holey.errorOrNull()?.category, "INVALID_ARGUMENT");
  // The vector length is one of the Limits: thrown, nothing sent.
  const before = rec.requests.length;
  assert.throws(
    () =>
      storage.putVectors("vb", "ix", [v("a"), {
        key: "b",
        data: { float32: [1, 2] },
      }], { dimension: 3 }),
    { name: "RangeError", message: /Vector 1 has 2 components but the index dimension is 3/ },
  );
  assert.equal(rec.requests.length, before);
  // Without the dimension, a batch of two lengths cannot all match the index: refused.
  const mixed = await storage.putVectors("vb", "ix", [v("a"), {
    key: "b",
    data: { float32: [1, 2] },
  }]);
  assert.equal(mixed.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(mixed.errorOrNull()!.message, /Vector 1 has 2 components but vector 0 has 3/);
  // A component a float32 cannot hold (it would be stored as Infinity) is refused.
  const huge = await storage.putVectors("vb", "ix", [{
    key: "h",
    data: { float32: [1e39, 0, 0] },
  }]);
  assert.equal(huge.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.throws(
    () => storage.queryVectors("vb", "ix", { float32: [1] }, { dimension: 3 }),
    RangeError,
  );
  assert.equal(rec.requests.length, 0);
  assert.ok(
    (await storage.putVectors("vb", "ix", Array.from({ length: 500 }, (_, i) => v(String(i))))).ok,
  );
  assert.ok((await storage.listVectors("vb", "ix", { segmentCount: 16, segmentIndex: 15 })).ok);
});

Deno.test("a missing vector bucket is a Failure", async () => {
  const { storage } = makeStorage(() =>
    jsonResponse({ statusCode: "404", error: "S3VectorNotFoundException", message: "not found" }, {
      status: 404,
    })
  );
  assert.equal((await storage.getVectorBucket("nope")).errorOrNull()?.category, "NOT_FOUND");
});

Deno.test("conformance with @supabase/storage-js vectors: same routes and bodies", async () => {
  const answer = (r: RecordedRequest) =>
    r.url.pathname.endsWith("GetVectorBucket")
      ? jsonResponse({ vectorBucket: { vectorBucketName: "vb" } })
      : r.url.pathname.endsWith("GetIndex")
      ? jsonResponse({
        index: {
          indexName: "ix",
          vectorBucketName: "vb",
          dataType: "float32",
          dimension: 3,
          distanceMetric: "cosine",
        },
      })
      : jsonResponse({ vectors: [], vectorBuckets: [], indexes: [] });
  const them = recordingFetch(answer);
  const theirs = new StorageVectorsClient(`${BASE}/storage/v1/vector`, {
    headers: { apikey: KEY, Authorization: `Bearer ${KEY}` },
    fetch: them.fetch,
  });
  const { storage, rec } = makeStorage(answer);
  const steps: Array<[() => Promise<unknown>, () => Promise<unknown>]> = [
    [() => theirs.createBucket("vb"), () => storage.createVectorBucket("vb")],
    [() => theirs.getBucket("vb"), () => storage.getVectorBucket("vb")],
    [() => theirs.listBuckets({ prefix: "v" }), () => storage.listVectorBuckets({ prefix: "v" })],
    [() => theirs.deleteBucket("vb"), () => storage.deleteVectorBucket("vb")],
    [
      () =>
        theirs.from("vb").createIndex({
          indexName: "ix",
          dataType: "float32",
          dimension: 3,
          distanceMetric: "cosine",
        }),
      () => storage.createVectorIndex("vb", "ix", "float32", 3, "cosine"),
    ],
    [() => theirs.from("vb").getIndex("ix"), () => storage.getVectorIndex("vb", "ix")],
    [() => theirs.from("vb").deleteIndex("ix"), () => storage.deleteVectorIndex("vb", "ix")],
    [
      () =>
        theirs.from("vb").index("ix").putVectors({
          vectors: [{ key: "a", data: { float32: [1, 2, 3] } }],
        }),
      () => storage.putVectors("vb", "ix", [{ key: "a", data: { float32: [1, 2, 3] } }]),
    ],
    [
      () => theirs.from("vb").index("ix").getVectors({ keys: ["a"], returnData: true }),
      () => storage.getVectors("vb", "ix", ["a"], { returnData: true }),
    ],
    [
      () =>
        theirs.from("vb").index("ix").queryVectors({
          queryVector: { float32: [1, 0, 0] },
          topK: 2,
        }),
      () => storage.queryVectors("vb", "ix", { float32: [1, 0, 0] }, { topK: 2 }),
    ],
    [
      () => theirs.from("vb").index("ix").deleteVectors({ keys: ["a"] }),
      () => storage.deleteVectors("vb", "ix", ["a"]),
    ],
  ];
  for (const [t, o] of steps) {
    await t();
    await o();
    const a = rec.last;
    const b = them.last;
    assert.equal(a.url.href, b.url.href);
    assert.equal(a.method, b.method);
    assert.deepEqual(a.json(), b.json(), a.url.pathname);
    for (const name of ["authorization", "apikey", "content-type"]) {
      assert.equal(a.headers.get(name), b.headers.get(name), `${a.url.pathname} ${name}`);
    }
  }
});

Deno.test("vectors: segments come in pairs; null vectors are Failures; write answers are not parsed", async () => {
  const { storage, rec } = makeStorage(() =>
    new Response("OK", { headers: { "content-type": "text/plain" } })
  );
  for (const half of [{ segmentIndex: 0 }, { segmentCount: 4 }]) {
    const r = await storage.listVectors("vb", "ix", half);
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  }
  const bad = await storage.putVectors("vb", "ix", [
    null as unknown as { key: string; data: { float32: number[] } },
  ]);
  assert.equal(bad.errorOrNull()?.category, "INVALID_ARGUMENT");
  const ok = await storage.putVectors("vb", "ix", [{ key: "k", data: { float32: [1, 2] } }]);
  assert.ok(ok.ok, ok.ok ? "" : ok.error.message);
  assert.equal(rec.last.url.pathname, "/storage/v1/vector/PutVectors");
});

Deno.test("Storage API requirements: queryVectors always sends topK; an index without non-filterable keys sends no metadataConfiguration", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({ vectors: [] }));
  await storage.queryVectors("vb", "ix", { float32: [1, 0, 0] });
  assert.equal((rec.last.json() as { topK: number }).topK, 10);
  await storage.queryVectors("vb", "ix", { float32: [1, 0, 0] }, { topK: 3 });
  assert.equal((rec.last.json() as { topK: number }).topK, 3);
  for (const keys of [null, []]) {
    await storage.createVectorIndex("vb", "ix", "float32", 3, "cosine", {
      metadataConfiguration: { nonFilterableMetadataKeys: keys },
    });
    assert.equal(
      (rec.last.json() as Record<string, unknown>).metadataConfiguration,
      undefined,
      JSON.stringify(keys),
    );
  }
  await storage.createVectorIndex("vb", "ix", "float32", 3, "cosine", {
    metadataConfiguration: { nonFilterableMetadataKeys: ["raw"] },
  });
  assert.deepEqual((rec.last.json() as Record<string, unknown>).metadataConfiguration, {
    nonFilterableMetadataKeys: ["raw"],
  });
});

Deno.test("a missing or blank vector bucket or index name is INVALID_ARGUMENT with no request", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({}));
  const untyped = storage as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  const calls: Array<[string, () => Promise<unknown>, RegExp]> = [
    ["createVectorBucket('')", () => storage.createVectorBucket(""), /'vectorBucketName'/],
    ["deleteVectorBucket(' ')", () => storage.deleteVectorBucket(" "), /'vectorBucketName'/],
    ["getVectorBucket()", () => untyped.getVectorBucket.call(storage), /'vectorBucketName'/],
    ["deleteVectorIndex('vb', '')", () => storage.deleteVectorIndex("vb", ""), /'indexName'/],
    ["getVectorIndex('vb')", () => untyped.getVectorIndex.call(storage, "vb"), /'indexName'/],
    ["listVectorIndexes('')", () => storage.listVectorIndexes(""), /'vectorBucketName'/],
    [
      "deleteVectors('vb', ' ', ['k'])",
      () => storage.deleteVectors("vb", " ", ["k"]),
      /'indexName'/,
    ],
  ];
  for (const [label, call, message] of calls) {
    const r = (await call()) as { errorOrNull(): { category: string; message: string } | null };
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", label);
    assert.match(r.errorOrNull()?.message ?? "", message, label);
  }
  assert.equal(rec.requests.length, 0);
  // Names are otherwise the server's to judge: any non-blank text goes.
  assert.ok((await storage.createVectorBucket("vb")).ok);
  assert.equal(rec.requests.length, 1);
});

Deno.test("vectors given as a Float32Array or Float64Array go as lists; data of a type this client does not know is null", async () => {
  // JSON writes a typed array as {"0":…}, which the Storage API refuses: embedding models (such
  // as transformers.js) give Float32Array.
  const { storage, rec } = makeStorage(() =>
    jsonResponse({
      vectors: [
        { key: "a", data: { float32: [0.5, 1] } },
        { key: "b", data: { $unknown: ["float16", [1, 2]] } },
      ],
    })
  );
  const f32 = new Float32Array([0.5, 1]);
  assert.ok(
    (await storage.putVectors("vb", "ix", [
      { key: "a", data: { float32: f32 }, metadata: { t: 1 } },
      { key: "b", data: { float32: new Float64Array([0.25, 2]) } },
    ])).ok,
  );
  assert.deepEqual(rec.last.json(), {
    vectorBucketName: "vb",
    indexName: "ix",
    vectors: [
      { key: "a", data: { float32: [0.5, 1] }, metadata: { t: 1 } },
      { key: "b", data: { float32: [0.25, 2] } },
    ],
  });
  const found = (await storage.queryVectors("vb", "ix", { float32: f32 })).getOrThrow();
  assert.deepEqual((rec.last.json() as { queryVector: unknown }).queryVector, {
    float32: [0.5, 1],
  });
  assert.deepEqual(found.vectors.map((v) => v.data), [{ float32: [0.5, 1] }, null]);
  const sent = rec.requests.length;
  assert.throws(
    () => storage.queryVectors("vb", "ix", { float32: f32 }, { dimension: 3 }),
    { name: "RangeError", message: /Vector 0 has 2 components but the index dimension is 3/ },
  );
  assert.equal(rec.requests.length, sent);
});
