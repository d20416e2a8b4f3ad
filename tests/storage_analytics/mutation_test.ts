/**
 * Analytics and vector tests written from a mutation audit of
 * `storage/analytics.ts` and `storage/vectors.ts`: each pins a documented
 * behaviour that a one-line change of the sources left unnoticed.
 */

import assert from "node:assert/strict";
import { jsonResponse } from "../support/recording_fetch.ts";
import { makeStorage } from "../storage/_helpers.ts";

Deno.test("an analytics bucket answer without type or format reads as ANALYTICS / iceberg", async () => {
  const { storage } = makeStorage(() => jsonResponse({ name: "lake" }));
  assert.deepEqual((await storage.createAnalyticsBucket("lake")).getOrThrow(), {
    name: "lake",
    type: "ANALYTICS",
    format: "iceberg",
    createdAt: null,
    updatedAt: null,
  });
  const { storage: s2 } = makeStorage(() => jsonResponse([{ id: "lake2" }]));
  const [b] = (await s2.listAnalyticsBuckets()).getOrThrow();
  assert.equal(b.name, "lake2");
  assert.equal(b.type, "ANALYTICS");
  assert.equal(b.format, "iceberg");
});

Deno.test("a failed catalog config is not cached: the next call asks for it again", async () => {
  let configs = 0;
  const { storage, rec } = makeStorage((req) => {
    if (req.url.pathname.endsWith("/v1/config")) {
      configs++;
      return configs === 1
        ? jsonResponse({ message: "no such warehouse" }, { status: 400 })
        : jsonResponse({ defaults: {}, overrides: { prefix: "p" } });
    }
    return jsonResponse({ namespace: ["a"], properties: {} });
  });
  const catalog = storage.analyticsCatalog("lake");
  const first = await catalog.getNamespaceMetadata(["a"]);
  assert.equal(first.ok, false);
  const second = await catalog.getNamespaceMetadata(["a"]);
  assert.equal(second.ok, true);
  assert.equal(configs, 2);
  assert.equal(rec.last.url.pathname, "/storage/v1/iceberg/v1/p/namespaces/a");
});

Deno.test("listVectors: segmentCount 16 is the largest accepted, 17 throws RangeError before any request", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({ vectors: [] }));
  assert.throws(
    () => storage.listVectors("vb", "ix", { segmentCount: 17, segmentIndex: 0 }),
    RangeError,
  );
  assert.equal(rec.requests.length, 0);
  const r = await storage.listVectors("vb", "ix", { segmentCount: 16, segmentIndex: 15 });
  assert.equal(r.ok, true);
  assert.deepEqual(rec.only.json(), {
    vectorBucketName: "vb",
    indexName: "ix",
    segmentCount: 16,
    segmentIndex: 15,
  });
});
