/**
 * More conformance with @supabase/storage-js: the object operations
 * tests/storage/conformance_test.ts leaves out (plain and streamed
 * downloads, copy across buckets, root listing, single delete), the vector
 * operations tests/storage_analytics/vectors_test.ts leaves out (index and
 * vector listings, paging, metadata and query options, headers), the analytics
 * bucket headers, and the Iceberg catalog operations storage-js offers through
 * iceberg-js (`StorageAnalyticsClient.from(bucket)`). Method, decoded path,
 * query, the headers that matter and the JSON body must match; deliberate
 * differences are asserted explicitly and listed in docs/CONFORMANCE.md.
 */
import assert from "node:assert/strict";
import { StorageVectorsClient } from "@supabase/storage-js";
import type { StorageClient } from "../../storage/mod.ts";
import { jsonResponse, type RecordedRequest, recordingFetch } from "../support/recording_fetch.ts";
import {
  analyticsPair,
  BASE,
  CATALOG_SCHEMA,
  icebergAnswer,
  KEY,
  makeStorage,
  shape,
  storageJs,
} from "./_helpers.ts";

type Shape = ReturnType<typeof shape>;

function objectAnswer(req: RecordedRequest): Response {
  const p = req.url.pathname;
  if (p.includes("/object/list/") || req.method === "DELETE") return jsonResponse([]);
  if (req.method === "GET") {
    return new Response("hello", { headers: { "content-type": "text/plain" } });
  }
  return jsonResponse({ Key: "arch/b.txt", message: "ok" });
}

// deno-lint-ignore no-explicit-any
type Theirs = (s: any) => PromiseLike<unknown>;
type Ours = (s: StorageClient) => Promise<unknown>;

const objectCases: Array<[string, Theirs, Ours, ((o: Shape, t: Shape) => void)?]> = [
  [
    "download",
    (s) => s.from("docs").download("a b/c.txt"),
    (s) => s.downloadBytes("docs", "a b/c.txt"),
    (o, t) => {
      // Deliberate (docs/CONFORMANCE.md): downloads read the authenticated object route.
      assert.equal(o.path, "/storage/v1/object/authenticated/docs/a b/c.txt");
      assert.equal(t.path, "/storage/v1/object/docs/a b/c.txt");
      o.path = t.path;
    },
  ],
  [
    "download asStream",
    (s) => s.from("docs").download("a.txt").asStream(),
    (s) => s.downloadStream("docs", "a.txt"),
    (o, t) => {
      assert.equal(o.path, "/storage/v1/object/authenticated/docs/a.txt");
      o.path = t.path;
    },
  ],
  [
    "copy to another bucket",
    (s) => s.from("docs").copy("a.txt", "b.txt", { destinationBucket: "arch" }),
    (s) => s.copy("docs", "a.txt", "b.txt", { destinationBucket: "arch" }),
  ],
  [
    "copy without metadata",
    (s) => s.from("docs").copy("a.txt", "b.txt", { copyMetadata: false }),
    (s) => s.copy("docs", "a.txt", "b.txt", { copyMetadata: false }),
  ],
  ["list root", (s) => s.from("docs").list(), (s) => s.list("docs")],
  [
    "remove one",
    (s) => s.from("docs").remove(["a.txt"]),
    (s) => s.deleteObject("docs", "a.txt"),
  ],
  ["listBuckets plain", (s) => s.listBuckets(), (s) => s.listBuckets()],
];

Deno.test(`conformance with @supabase/storage-js: ${objectCases.length} more object operations`, async () => {
  const failures: string[] = [];
  for (const [label, theirs, ours, adjust] of objectCases) {
    const { client, rec: them } = storageJs(objectAnswer);
    await theirs(client);
    const us = makeStorage(objectAnswer);
    await ours(us.storage);
    try {
      const o = shape(us.rec.only);
      const t = shape(them.only);
      adjust?.(o, t);
      assert.deepEqual(o, t, label);
    } catch (e) {
      failures.push(`${label}: ${(e as Error).message}`);
    }
  }
  assert.deepEqual(failures, []);
});

Deno.test("conformance with @supabase/storage-js vectors: listings, paging, options and headers", async () => {
  const answer = (r: RecordedRequest) =>
    jsonResponse(
      r.url.pathname.endsWith("QueryVectors")
        ? { vectors: [], distanceMetric: "cosine" }
        : { vectors: [], vectorBuckets: [], indexes: [] },
    );
  const them = recordingFetch(answer);
  const theirs = new StorageVectorsClient(`${BASE}/storage/v1/vector`, {
    headers: { apikey: KEY, Authorization: `Bearer ${KEY}` },
    fetch: them.fetch,
  });
  const { storage, rec } = makeStorage(answer);
  const steps: Array<[string, () => Promise<unknown>, () => Promise<unknown>]> = [
    [
      "listBuckets paged",
      () => theirs.listBuckets({ prefix: "v", maxResults: 5, nextToken: "n1" }),
      () => storage.listVectorBuckets({ prefix: "v", maxResults: 5, nextToken: "n1" }),
    ],
    [
      "listIndexes",
      () => theirs.from("vb").listIndexes(),
      () => storage.listVectorIndexes("vb"),
    ],
    [
      "listIndexes paged",
      () => theirs.from("vb").listIndexes({ prefix: "i", maxResults: 2, nextToken: "t" }),
      () => storage.listVectorIndexes("vb", { prefix: "i", maxResults: 2, nextToken: "t" }),
    ],
    [
      "createIndex with metadataConfiguration",
      () =>
        theirs.from("vb").createIndex({
          indexName: "ix",
          dataType: "float32",
          dimension: 3,
          distanceMetric: "euclidean",
          metadataConfiguration: { nonFilterableMetadataKeys: ["raw"] },
        }),
      () =>
        storage.createVectorIndex("vb", "ix", "float32", 3, "euclidean", {
          metadataConfiguration: { nonFilterableMetadataKeys: ["raw"] },
        }),
    ],
    [
      "listVectors",
      () => theirs.from("vb").index("ix").listVectors(),
      () => storage.listVectors("vb", "ix"),
    ],
    [
      "listVectors with every option",
      () =>
        theirs.from("vb").index("ix").listVectors({
          maxResults: 50,
          nextToken: "t",
          returnData: true,
          returnMetadata: true,
          segmentCount: 4,
          segmentIndex: 1,
        }),
      () =>
        storage.listVectors("vb", "ix", {
          maxResults: 50,
          nextToken: "t",
          returnData: true,
          returnMetadata: true,
          segmentCount: 4,
          segmentIndex: 1,
        }),
    ],
    [
      "putVectors with metadata",
      () =>
        theirs.from("vb").index("ix").putVectors({
          vectors: [{ key: "a", data: { float32: [1, 2, 3] }, metadata: { t: "x" } }],
        }),
      () =>
        storage.putVectors("vb", "ix", [{
          key: "a",
          data: { float32: [1, 2, 3] },
          metadata: { t: "x" },
        }]),
    ],
    [
      "getVectors with metadata",
      () =>
        theirs.from("vb").index("ix").getVectors({
          keys: ["a", "b"],
          returnData: false,
          returnMetadata: true,
        }),
      () => storage.getVectors("vb", "ix", ["a", "b"], { returnData: false, returnMetadata: true }),
    ],
    [
      "queryVectors with every option",
      () =>
        theirs.from("vb").index("ix").queryVectors({
          queryVector: { float32: [1, 0, 0] },
          topK: 3,
          filter: { t: "x" },
          returnDistance: true,
          returnMetadata: true,
        }),
      () =>
        storage.queryVectors("vb", "ix", { float32: [1, 0, 0] }, {
          topK: 3,
          filter: { t: "x" },
          returnDistance: true,
          returnMetadata: true,
        }),
    ],
  ];
  const failures: string[] = [];
  for (const [label, t, o] of steps) {
    them.requests.length = 0;
    rec.requests.length = 0;
    await t();
    await o();
    try {
      assert.deepEqual(shape(rec.only), shape(them.only), label);
    } catch (e) {
      failures.push(`${label}: ${(e as Error).message}`);
    }
  }
  assert.deepEqual(failures, []);
});

Deno.test("conformance with @supabase/storage-js analytics buckets: headers too", async () => {
  const answer = () => jsonResponse([{ name: "lake", type: "ANALYTICS", created_at: "c" }]);
  const { them, theirs, storage, rec } = analyticsPair(answer);
  const steps: Array<[string, () => Promise<unknown>, () => Promise<unknown>]> = [
    ["create", () => theirs.createBucket("lake"), () => storage.createAnalyticsBucket("lake")],
    ["list", () => theirs.listBuckets(), () => storage.listAnalyticsBuckets()],
    ["delete", () => theirs.deleteBucket("lake"), () => storage.deleteAnalyticsBucket("lake")],
  ];
  for (const [label, t, o] of steps) {
    them.requests.length = 0;
    rec.requests.length = 0;
    await t();
    await o();
    assert.deepEqual(shape(rec.only), shape(them.only), label);
  }
});

const catalogAnswer = icebergAnswer({ "format-version": 2 });

Deno.test("conformance with @supabase/storage-js analytics catalog (iceberg-js): namespaces and tables", async () => {
  const pair = analyticsPair(catalogAnswer);
  const { them, storage, rec } = pair;
  const theirs = pair.theirs.from("lake");
  const ours = storage.analyticsCatalog("lake");
  const schema = CATALOG_SCHEMA;
  const id = { namespace: ["a", "b c"], name: "events" };
  const steps: Array<[string, () => Promise<unknown>, () => Promise<unknown>]> = [
    ["listNamespaces", () => theirs.listNamespaces(), () => ours.listNamespaces()],
    [
      "listNamespaces under a parent",
      () => theirs.listNamespaces({ namespace: ["a", "b c"] }),
      () => ours.listNamespaces({ parent: ["a", "b c"] }),
    ],
    [
      "createNamespace with properties",
      () => theirs.createNamespace({ namespace: ["a"] }, { properties: { owner: "x" } }),
      () => ours.createNamespace(["a"], { properties: { owner: "x" } }),
    ],
    [
      "createNamespace",
      () => theirs.createNamespace({ namespace: ["a", "b c"] }),
      () => ours.createNamespaceTyped({ namespace: ["a", "b c"] }),
    ],
    [
      "loadNamespaceMetadata",
      () => theirs.loadNamespaceMetadata({ namespace: ["a", "b c"] }),
      () => ours.getNamespaceMetadata(["a", "b c"]),
    ],
    [
      "dropNamespace",
      () => theirs.dropNamespace({ namespace: ["a", "b c"] }),
      () => ours.deleteNamespace(["a", "b c"]),
    ],
    [
      "listTables",
      () => theirs.listTables({ namespace: ["a", "b c"] }),
      () => ours.listTables(["a", "b c"]),
    ],
    [
      "createTable",
      () =>
        theirs.createTable({ namespace: ["a", "b c"] }, {
          name: "events",
          schema,
          "partition-spec": { "spec-id": 0, fields: [] },
          properties: { p: "1" },
        }),
      () =>
        ours.createTableTyped(["a", "b c"], {
          name: "events",
          schema,
          partitionSpec: { "spec-id": 0, fields: [] },
          properties: { p: "1" },
        }),
    ],
    [
      // iceberg-js types this body as `{ schema?, partition-spec?, properties? }`, not the
      // Iceberg REST commit (`requirements`, `updates`); the raw route is the same.
      "updateTable",
      () => theirs.updateTable(id, { properties: { a: "b" } }),
      () => ours.updateTable(["a", "b c"], "events", { properties: { a: "b" } }),
    ],
    ["loadTable", () => theirs.loadTable(id), () => ours.getTable(["a", "b c"], "events")],
    [
      "dropTable",
      () => theirs.dropTable(id),
      () => ours.deleteTable(["a", "b c"], "events"),
    ],
    [
      "dropTable purge",
      () => theirs.dropTable(id, { purge: true }),
      () => ours.deleteTable(["a", "b c"], "events", { purge: true }),
    ],
  ];
  const failures: string[] = [];
  for (const [label, t, o] of steps) {
    them.requests.length = 0;
    rec.requests.length = 0;
    await t();
    await o();
    // Deliberate (docs/CONFORMANCE.md): fetchbase reads the route prefix from
    // `GET /v1/config?warehouse=<bucket>` (once per catalog client); iceberg-js uses `v1/<bucket>`.
    const mine = rec.requests.filter((r) => {
      if (!r.url.pathname.endsWith("/v1/config")) return true;
      assert.equal(r.url.searchParams.get("warehouse"), "lake");
      return false;
    });
    try {
      assert.equal(mine.length, 1, `${label}: one catalog request`);
      assert.deepEqual(shape(mine[0]), shape(them.only), label);
    } catch (e) {
      failures.push(`${label}: ${(e as Error).message}`);
    }
  }
  assert.equal(rec.requests.length, 1, "the config was read only once, by the first call");
  assert.deepEqual(failures, []);
});
