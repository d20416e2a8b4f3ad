// Findings of a review of the analytics catalog and vectors against the Storage API's source
// (supabase/storage at 4fa61fba): each test failed before its fix.
import assert from "node:assert/strict";
import { jsonResponse, type RecordedRequest } from "../support/recording_fetch.ts";
import { makeStorage } from "../storage/_helpers.ts";
import { createBaseClient } from "../../core/client.ts";

/**
 * The Storage API's catalog (`TenantAwareRestCatalog`, the only one its routes use): the config
 * names the bucket as the prefix, and `listNamespaces` answers every namespace of the bucket,
 * one level each (`namespaces.map((n) => [n.name])`), whatever `parent`, `pageToken` or
 * `pageSize` say.
 */
function storageApiCatalog(req: RecordedRequest): Response {
  const path = req.url.pathname.replace(/^\/storage\/v1\/iceberg/, "");
  if (path === "/v1/config") {
    const warehouse = req.url.searchParams.get("warehouse");
    return jsonResponse({ defaults: { prefix: warehouse }, overrides: { prefix: warehouse } });
  }
  if (path === "/v1/lake/namespaces" && req.method === "GET") {
    return jsonResponse({ namespaces: [["sales"], ["ops"]] });
  }
  return jsonResponse({ error: { message: "Route not found", type: "NotFound", code: 404 } }, {
    status: 404,
  });
}

Deno.test("listNamespacesTyped lists only direct children of parent, though the Storage API answers every namespace", async () => {
  const { storage, rec } = makeStorage(storageApiCatalog);
  const catalog = storage.analyticsCatalog("lake");
  const children = (await catalog.listNamespacesTyped({ parent: ["sales"] })).getOrThrow();
  assert.equal(rec.last.url.searchParams.get("parent"), "sales");
  // Neither `sales` itself nor its sibling `ops` is a child of `sales`.
  assert.deepEqual(children.namespaces, []);
  assert.equal(children.resolvedNextPageToken, null);
  // The root lists every top-level namespace, as before; the raw form keeps the answer as sent.
  const roots = (await catalog.listNamespacesTyped()).getOrThrow();
  assert.deepEqual(roots.namespaces, [["sales"], ["ops"]]);
  const raw = (await catalog.listNamespaces({ parent: ["sales"] })).getOrThrow();
  assert.deepEqual(raw.namespaces, [["sales"], ["ops"]]);
});

Deno.test("listNamespacesTyped keeps the children a catalog that honours parent answers (full paths)", async () => {
  const { storage } = makeStorage((req) =>
    req.url.pathname.endsWith("/v1/config")
      ? jsonResponse({ defaults: {}, overrides: { prefix: "lake" } })
      : jsonResponse({
        namespaces: [["sales", "eu"], ["sales", "us"]],
        "next-page-token": "p2",
      })
  );
  const page = (await storage.analyticsCatalog("lake").listNamespacesTyped({
    parent: ["sales"],
  })).getOrThrow();
  assert.deepEqual(page.namespaces, [["sales", "eu"], ["sales", "us"]]);
  assert.equal(page.resolvedNextPageToken, "p2");
});

Deno.test("listNamespacesTyped of the root keeps the top level only, where a catalog answers nested namespaces too", async () => {
  const { storage } = makeStorage((req) =>
    req.url.pathname.endsWith("/v1/config")
      ? jsonResponse({ defaults: {}, overrides: { prefix: "lake" } })
      : jsonResponse({ namespaces: [["a"], ["a", "b"], ["c"], ["a", "b", "d"]] })
  );
  const catalog = storage.analyticsCatalog("lake");
  assert.deepEqual((await catalog.listNamespacesTyped()).getOrThrow().namespaces, [["a"], ["c"]]);
  assert.deepEqual(
    (await catalog.listNamespacesTyped({ parent: ["a"] })).getOrThrow().namespaces,
    [["a", "b"]],
  );
});

Deno.test("an analytics bucket named '.' or '..' is refused with its own reason, by the constructor too", async () => {
  const { AnalyticsCatalogClient } = await import("../../storage/analytics.ts");
  const { storage } = makeStorage(() => jsonResponse({}));
  const client = createBaseClient("https://p.example", "k");
  for (const name of [".", ".."]) {
    for (
      const open of [
        () => storage.analyticsCatalog(name),
        () => new AnalyticsCatalogClient(client, name),
      ]
    ) {
      assert.throws(open, {
        name: "TypeError",
        message:
          `Cannot open the catalog as 'bucketName' must not be '.' or '..', which a URL resolves as a dot segment: current value is "${name}"`,
      });
    }
  }
  for (const name of ["", "a/b", "é"]) {
    assert.throws(() => new AnalyticsCatalogClient(client, name), /only ASCII letters, digits/);
  }
  assert.equal(new AnalyticsCatalogClient(client, "...").bucketName, "...");
  assert.equal(storage.analyticsCatalog("a.b_c-1").bucketName, "a.b_c-1");
});
