/**
 * Requirements of the interface document that no other test pins down:
 * `VectorQueryResponse.distanceMetric` defaulting to UNKNOWN, and the wire
 * value of `VectorDistanceMetric.DOT_PRODUCT` (checked against
 * @supabase/storage-js's vector client).
 */
import assert from "node:assert/strict";
import { StorageVectorsClient } from "@supabase/storage-js";
import { VectorDataType, VectorDistanceMetric } from "../../storage/mod.ts";
import { jsonResponse, recordingFetch } from "../support/recording_fetch.ts";
import { BASE, KEY, makeStorage } from "../storage/_helpers.ts";

const MATCHES = [{ key: "a", distance: 0.25 }, { key: "b", distance: 0.5 }];

Deno.test("queryVectors: distanceMetric is UNKNOWN when the server omits it; known values decode", async () => {
  const omitted = makeStorage(() => jsonResponse({ vectors: MATCHES }));
  const q = (await omitted.storage.queryVectors("vb", "ix", { float32: [1, 0, 0] })).getOrThrow();
  assert.equal(omitted.rec.only.url.pathname, "/storage/v1/vector/QueryVectors");
  assert.equal(q.distanceMetric, VectorDistanceMetric.UNKNOWN);
  assert.equal(q.distanceMetric, "unknown");
  assert.deepEqual(q.vectors.map((v) => [v.key, v.distance]), [["a", 0.25], ["b", 0.5]]);

  const cases: Array<[unknown, VectorDistanceMetric]> = [
    ["cosine", VectorDistanceMetric.COSINE],
    ["euclidean", VectorDistanceMetric.EUCLIDEAN],
    ["dotproduct", VectorDistanceMetric.DOT_PRODUCT],
    ["hamming", VectorDistanceMetric.UNKNOWN],
  ];
  for (const [wire, expected] of cases) {
    const { storage } = makeStorage(() => jsonResponse({ vectors: MATCHES, distanceMetric: wire }));
    const r = (await storage.queryVectors("vb", "ix", { float32: [1, 0, 0] })).getOrThrow();
    assert.equal(r.distanceMetric, expected, String(wire));
  }
});

Deno.test("VectorDistanceMetric.DOT_PRODUCT is 'dotproduct' on the wire, as storage-js sends it", async () => {
  assert.equal(VectorDistanceMetric.DOT_PRODUCT, "dotproduct");
  const { storage, rec } = makeStorage(() => jsonResponse({}));
  const r = await storage.createVectorIndex(
    "vb",
    "ix",
    VectorDataType.FLOAT32,
    3,
    VectorDistanceMetric.DOT_PRODUCT,
  );
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.equal(rec.only.url.pathname, "/storage/v1/vector/CreateIndex");
  assert.deepEqual(rec.only.json(), {
    vectorBucketName: "vb",
    indexName: "ix",
    dataType: "float32",
    dimension: 3,
    distanceMetric: "dotproduct",
  });

  const them = recordingFetch(() => jsonResponse({}));
  const theirs = new StorageVectorsClient(`${BASE}/storage/v1/vector`, {
    headers: { apikey: KEY, Authorization: `Bearer ${KEY}` },
    fetch: them.fetch,
  });
  await theirs.from("vb").createIndex({
    indexName: "ix",
    dataType: "float32",
    dimension: 3,
    distanceMetric: "dotproduct",
  });
  assert.equal(rec.only.url.href, them.only.url.href);
  assert.deepEqual(rec.only.json(), them.only.json());

  // And back: an index the server reports with "dotproduct" decodes to DOT_PRODUCT.
  const got = makeStorage(() =>
    jsonResponse({
      index: {
        indexName: "ix",
        vectorBucketName: "vb",
        dataType: "float32",
        dimension: 3,
        distanceMetric: "dotproduct",
        creationTime: 1_700_000_000,
      },
    })
  );
  const ix = (await got.storage.getVectorIndex("vb", "ix")).getOrThrow();
  assert.equal(ix.distanceMetric, VectorDistanceMetric.DOT_PRODUCT);
});
