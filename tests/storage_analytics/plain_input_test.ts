// Findings of a review of the vector and catalog calls against the Storage API's schemas
// (supabase/storage at 4fa61fba): each test failed before its fix.
import assert from "node:assert/strict";
import { jsonResponse } from "../support/recording_fetch.ts";
import { makeStorage } from "../storage/_helpers.ts";
import { encodeNamespace } from "../../storage/analytics.ts";
import type { ServiceError, ServiceResult } from "../../core/result.ts";

/** The error of a result that must have failed. */
function errorOf(r: ServiceResult<unknown>): ServiceError {
  assert.equal(r.ok, false);
  return (r as { error: ServiceError }).error;
}

const config = () => jsonResponse({ defaults: {}, overrides: { prefix: "lake" } });

Deno.test("putVectors refuses metadata that is not a plain object (a Map went as {}, wiping the stored metadata)", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({}));
  for (const metadata of [new Map([["a", 1]]), new Date(0), ["x"], "text", 3]) {
    const r = await storage.putVectors("vb", "ix", [
      { key: "a", data: { float32: [1, 2] }, metadata: null },
      // deno-lint-ignore no-explicit-any
      { key: "b", data: { float32: [1, 2] }, metadata: metadata as any },
    ]);
    assert.equal(errorOf(r).category, "INVALID_ARGUMENT");
    assert.match(errorOf(r).message, /metadata of vector 1 must be a JSON object/);
  }
  assert.equal(rec.requests.length, 0);
  // A plain object, one of no prototype, and null go out as before.
  const bare = Object.assign(Object.create(null), { genre: "doc" });
  assert.ok(
    (await storage.putVectors("vb", "ix", [
      { key: "a", data: { float32: [1, 2] }, metadata: { genre: "doc" } },
      { key: "b", data: { float32: [1, 2] }, metadata: bare },
      { key: "c", data: { float32: [1, 2] }, metadata: null },
    ])).ok,
  );
  assert.deepEqual(rec.last.json(), {
    vectorBucketName: "vb",
    indexName: "ix",
    vectors: [
      { key: "a", data: { float32: [1, 2] }, metadata: { genre: "doc" } },
      { key: "b", data: { float32: [1, 2] }, metadata: { genre: "doc" } },
      { key: "c", data: { float32: [1, 2] } },
    ],
  });
});

Deno.test("vector metadata and filters of an interface type type-check", async () => {
  interface DocMeta {
    genre: string;
    year: number;
  }
  const meta: DocMeta = { genre: "doc", year: 2026 };
  const { storage, rec } = makeStorage(() => jsonResponse({ vectors: [] }));
  assert.ok(
    (await storage.putVectors("vb", "ix", [{ key: "a", data: { float32: [1] }, metadata: meta }]))
      .ok,
  );
  const filter: DocMeta = { genre: "doc", year: 2026 };
  assert.ok((await storage.queryVectors("vb", "ix", { float32: [1] }, { filter })).ok);
  assert.deepEqual((rec.last.json() as { filter: unknown }).filter, filter);
});

Deno.test("queryVectors refuses a filter that is not a plain object (a Map went as {})", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({ vectors: [] }));
  for (const filter of [new Map([["genre", "doc"]]), [1], "genre = doc"]) {
    // deno-lint-ignore no-explicit-any
    const r = await storage.queryVectors("vb", "ix", { float32: [1] }, { filter: filter as any });
    assert.equal(errorOf(r).category, "INVALID_ARGUMENT");
    assert.match(errorOf(r).message, /'filter' must be a JSON object/);
  }
  assert.equal(rec.requests.length, 0);
});

Deno.test("a vector with no components is refused before sending (the Storage API's dimensions start at 1)", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({}));
  const put = await storage.putVectors("vb", "ix", [{ key: "a", data: { float32: [] } }]);
  assert.equal(errorOf(put).category, "INVALID_ARGUMENT");
  assert.match(errorOf(put).message, /Vector 0 has no components/);
  const query = await storage.queryVectors("vb", "ix", { float32: [] });
  assert.equal(errorOf(query).category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 0);
});

Deno.test("a sparse namespace is refused like one with an empty level (holes went out as empty levels)", async () => {
  // deno-lint-ignore no-sparse-arrays
  const sparse: string[] = [, "sales"] as unknown as string[];
  assert.throws(() => encodeNamespace(sparse), TypeError);
  assert.throws(() => encodeNamespace(new Array(2)), TypeError);
  const { storage, rec } = makeStorage(config);
  const catalog = storage.analyticsCatalog("lake");
  for (
    const r of [
      await catalog.createNamespace(sparse),
      await catalog.getNamespaceMetadata(new Array(2)),
      await catalog.deleteNamespace(sparse),
      await catalog.listNamespaces({ parent: sparse }),
    ]
  ) {
    assert.equal(errorOf(r).category, "INVALID_ARGUMENT");
  }
  assert.ok(rec.requests.every((q) => q.url.pathname.endsWith("/v1/config")));
});

Deno.test("catalog properties that are not a plain object are refused (a Map's properties were dropped)", async () => {
  const { storage, rec } = makeStorage(config);
  const catalog = storage.analyticsCatalog("lake");
  const props = new Map([["owner", "ops"]]) as unknown as Record<string, string>;
  const created = await catalog.createNamespace(["sales"], { properties: props });
  assert.equal(errorOf(created).category, "INVALID_ARGUMENT");
  assert.match(errorOf(created).message, /'properties' must be a plain object/);
  const updated = await catalog.updateNamespaceProperties(["sales"], { updates: props });
  assert.match(errorOf(updated).message, /'updates' must be a plain object/);
  const typed = await catalog.updateNamespacePropertiesTyped(["sales"], { updates: props });
  assert.equal(errorOf(typed).category, "INVALID_ARGUMENT");
  const table = await catalog.createTableTyped(["sales"], {
    name: "t",
    schema: { type: "struct", fields: [] },
    properties: props,
  });
  assert.match(errorOf(table).message, /'properties' must be a plain object/);
  assert.ok(rec.requests.every((q) => q.url.pathname.endsWith("/v1/config")));
});

Deno.test("vector metadata and filters holding a Map or a Set at any depth are refused (they went as {})", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({ vectors: [] }));
  const put = await storage.putVectors("vb", "ix", [
    { key: "a", data: { float32: [1] }, metadata: { genre: "doc" } },
    { key: "b", data: { float32: [1] }, metadata: { tags: new Set(["x"]) } as never },
  ]);
  assert.equal(errorOf(put).category, "INVALID_ARGUMENT");
  assert.equal(
    errorOf(put).message,
    "Cannot put vectors as 'vectors[1].metadata.tags' must be JSON, not a Set",
  );
  const query = await storage.queryVectors("vb", "ix", { float32: [1] }, {
    filter: { $and: [{ genre: new Map([["$eq", "doc"]]) }] } as never,
  });
  assert.equal(
    errorOf(query).message,
    "Cannot query vectors as 'filter.$and[0].genre' must be JSON, not a Map",
  );
  assert.equal(rec.requests.length, 0);
  const filter = { $and: [{ genre: { $eq: "doc" } }, { year: { $in: [2025, 2026] } }] };
  assert.ok((await storage.queryVectors("vb", "ix", { float32: [1] }, { filter })).ok);
  assert.deepEqual((rec.last.json() as { filter: unknown }).filter, filter);
});
