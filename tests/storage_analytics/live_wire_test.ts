// Answers recorded from the Storage API (supabase/storage at 4fa61fba) run by hand on 28 November
// with its S3 Vectors provider against moto's s3vectors, and its analytics catalog in front of an
// Iceberg REST catalog fake (docs/CONFORMANCE.md, "Analytics and vectors"). Each fake below answers
// with the bodies and statuses seen there, so that the decoding of those answers stays pinned
// without the server. No behaviour changed: fetchbase matched the server on every call.
import assert from "node:assert/strict";
import { jsonResponse, type RecordedRequest } from "../support/recording_fetch.ts";
import { makeStorage } from "../storage/_helpers.ts";

/** The vector routes' answers, by operation and (for the paged listing) by token. */
function vectorRoutes(req: RecordedRequest): Response {
  const op = req.url.pathname.replace(/^\/storage\/v1\/vector\//, "");
  const body = req.json() as Record<string, unknown>;
  switch (op) {
    case "ListVectorBuckets":
      // The token is the last name of the page; the last page has no `nextToken` key.
      return body.nextToken === "docs-a"
        ? jsonResponse({
          vectorBuckets: [{ vectorBucketName: "docs-b", creationTime: 1795874287 }],
        })
        : jsonResponse({
          vectorBuckets: [{ vectorBucketName: "docs-a", creationTime: 1795874287 }],
          nextToken: "docs-a",
        });
    case "GetVectorBucket":
      return jsonResponse({
        vectorBucket: { vectorBucketName: "docs-a", creationTime: 1795874287 },
      });
    case "GetIndex":
      return jsonResponse({
        index: {
          indexName: "emb",
          dataType: "float32",
          dimension: 2,
          distanceMetric: "cosine",
          metadataConfiguration: { nonFilterableMetadataKeys: ["body"] },
          vectorBucketName: "docs-a",
          creationTime: 1795874287,
        },
      });
    case "ListIndexes":
      return jsonResponse({
        indexes: [{ indexName: "emb", vectorBucketName: "docs-a", creationTime: 1795874287 }],
      });
    case "QueryVectors":
      // The S3 provider passes the AWS SDK's output on, `$metadata` included.
      return jsonResponse({
        vectors: [{ key: "a", distance: 0, metadata: { lang: "en" } }],
        distanceMetric: "cosine",
        $metadata: { httpStatusCode: 200, attempts: 1, totalRetryDelay: 0 },
      });
    case "GetVectors":
      return jsonResponse({ vectors: [{ key: "a" }] });
    case "DeleteVectorBucket":
      return jsonResponse({
        statusCode: "400",
        error: "VectorBucketNotEmpty",
        message: 'Vector Bucket "docs-a" not empty',
        code: "VectorBucketNotEmpty",
      }, { status: 400 });
    case "PutVectors":
      return jsonResponse({
        statusCode: "404",
        error: "NotFoundException",
        message: 'resource "idx-nope" not found',
        code: "NotFoundException",
      }, { status: 404 });
    default:
      // Create and delete operations answer 200 with an empty body.
      return new Response("", { status: 200 });
  }
}

Deno.test("vector answers of the Storage API's S3 provider decode as recorded", async () => {
  const { storage, rec } = makeStorage(vectorRoutes);
  const first = (await storage.listVectorBuckets({ maxResults: 1 })).getOrThrow();
  assert.deepEqual(first, { vectorBuckets: [{ vectorBucketName: "docs-a" }], nextToken: "docs-a" });
  const second = (await storage.listVectorBuckets({ maxResults: 1, nextToken: first.nextToken }))
    .getOrThrow();
  assert.deepEqual(rec.last.json(), { maxResults: 1, nextToken: "docs-a" });
  assert.deepEqual(second, { vectorBuckets: [{ vectorBucketName: "docs-b" }], nextToken: null });
  assert.deepEqual((await storage.getVectorBucket("docs-a")).getOrThrow(), {
    vectorBucketName: "docs-a",
    creationTime: 1795874287,
    encryptionConfiguration: null,
  });
  assert.deepEqual((await storage.getVectorIndex("docs-a", "emb")).getOrThrow(), {
    indexName: "emb",
    vectorBucketName: "docs-a",
    dataType: "float32",
    dimension: 2,
    distanceMetric: "cosine",
    metadataConfiguration: { nonFilterableMetadataKeys: ["body"] },
    creationTime: 1795874287,
  });
  assert.deepEqual((await storage.listVectorIndexes("docs-a")).getOrThrow(), {
    indexes: [{ indexName: "emb" }],
    nextToken: null,
  });
  assert.equal((await storage.createVectorBucket("docs-a")).ok, true);
  const query = (await storage.queryVectors("docs-a", "emb", { float32: [1, 0] }, {
    topK: 1,
    returnDistance: true,
    returnMetadata: true,
  })).getOrThrow();
  assert.deepEqual(query, {
    vectors: [{ key: "a", data: null, metadata: { lang: "en" }, distance: 0 }],
    distanceMetric: "cosine",
  });
  assert.deepEqual((await storage.getVectors("docs-a", "emb", ["a", "zz"])).getOrThrow(), [
    { key: "a", data: null, metadata: null, distance: null },
  ]);
  const notEmpty = await storage.deleteVectorBucket("docs-a");
  assert.equal(notEmpty.ok, false);
  if (!notEmpty.ok) {
    assert.equal(notEmpty.error.status, 400);
    assert.equal(notEmpty.error.code, "VectorBucketNotEmpty");
    assert.equal(notEmpty.error.message, 'Vector Bucket "docs-a" not empty');
  }
  const missing = await storage.putVectors("docs-a", "idx-nope", [
    { key: "a", data: { float32: [1, 2] } },
  ]);
  assert.equal(missing.ok, false);
  if (!missing.ok) {
    assert.equal(missing.error.category, "NOT_FOUND");
    assert.equal(missing.error.code, "NotFoundException");
  }
});

/** The catalog routes as the Storage API answered them in front of the catalog fake. */
function catalogRoutes(req: RecordedRequest): Response {
  const path = req.url.pathname.replace(/^\/storage\/v1\/iceberg/, "");
  if (path === "/v1/config") {
    return jsonResponse({
      defaults: {
        "write.object-storage.partitioned-paths": "false",
        "s3.delete-enabled": "false",
        "io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
        "write.object-storage.enabled": "true",
        prefix: "lake-one",
        "rest-metrics-reporting-enabled": "false",
      },
      overrides: { prefix: "lake-one" },
    });
  }
  if (req.method === "DELETE" && path === "/v1/lake-one/namespaces/ns_a/tables/t1") {
    return new Response(null, { status: 204 });
  }
  if (req.method === "DELETE" && path === "/v1/lake-one/namespaces/sales") {
    return jsonResponse({
      error: {
        message: "The resource namespace: sales is not empty",
        type: "IcebergResourceNotEmpty",
        code: 400,
      },
    }, { status: 400 });
  }
  if (path === "/v1/lake-one/namespaces/nope") {
    return jsonResponse({
      error: { message: "Namespace not found", type: "NoSuchNamespaceException", code: 404 },
    }, { status: 404 });
  }
  return jsonResponse({
    message: `Route ${req.method}:/iceberg${path} not found`,
    error: "Not Found",
    statusCode: 404,
  }, { status: 404 });
}

Deno.test("catalog answers of the Storage API decode as recorded", async () => {
  const { storage, rec } = makeStorage(catalogRoutes);
  const catalog = storage.analyticsCatalog("lake-one");
  const dropped = await catalog.deleteTable(["ns_a"], "t1", { purge: true });
  assert.equal(dropped.ok, true);
  assert.equal(rec.last.url.search, "?purgeRequested=true");
  const notEmpty = await catalog.deleteNamespace(["sales"]);
  assert.equal(notEmpty.ok, false);
  if (!notEmpty.ok) {
    assert.equal(notEmpty.error.status, 400);
    assert.equal(notEmpty.error.code, "IcebergResourceNotEmpty");
    assert.equal(notEmpty.error.message, "The resource namespace: sales is not empty");
  }
  const missing = await catalog.getNamespaceMetadataTyped(["nope"]);
  assert.equal(missing.ok, false);
  if (!missing.ok) {
    assert.equal(missing.error.category, "NOT_FOUND");
    assert.equal(missing.error.code, "NoSuchNamespaceException");
  }
  // Routes the Storage API does not serve: its 404 names the route.
  const renamed = await catalog.renameTableTyped(
    { namespace: ["sales"], name: "orders" },
    { namespace: ["sales"], name: "o2" },
  );
  assert.equal(renamed.ok, false);
  if (!renamed.ok) {
    assert.equal(renamed.error.status, 404);
    assert.match(renamed.error.message, /Route POST:\/iceberg\/v1\/lake-one\/tables\/rename/);
  }
  // One config request served every call.
  assert.equal(rec.requests.filter((r) => r.url.pathname.endsWith("/v1/config")).length, 1);
});
