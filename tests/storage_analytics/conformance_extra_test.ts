/**
 * Extra conformance with @supabase/storage-js's analytics clients, for the calls the other
 * conformance files leave out: the typed catalog reads, the raw `createTable`, the typed commit
 * (`updateTableTyped`, against iceberg-js's `updateTable`) and the analytics bucket listing with
 * every option (tests/storage_analytics/analytics_test.ts compares only its path and query).
 * Method, decoded path, sorted query, the headers that matter (apikey, Authorization, Content-Type
 * media type, Accept, Prefer, ...) and the JSON body must match; deliberate differences are
 * asserted explicitly and listed in docs/CONFORMANCE.md.
 */
import assert from "node:assert/strict";
import { jsonResponse, type RecordedRequest } from "../support/recording_fetch.ts";
import { analyticsPair, CATALOG_SCHEMA, icebergAnswer, shape } from "../storage/_helpers.ts";

/** The storage helpers' shape plus Accept and Prefer. */
function wire(r: RecordedRequest) {
  return { ...shape(r), accept: r.headers.get("accept"), prefer: r.headers.get("prefer") };
}

const tableMetadata = {
  "format-version": 2,
  "table-uuid": "u",
  location: "s3://l",
  "last-updated-ms": 1,
  schemas: [],
  "current-schema-id": 0,
  "partition-specs": [],
  "default-spec-id": 0,
  "last-partition-id": 0,
  "last-column-id": 1,
  "sort-orders": [],
  "default-sort-order-id": 0,
  properties: {},
  snapshots: [],
  "snapshot-log": [],
  "metadata-log": [],
  refs: {},
};

const catalogAnswer = icebergAnswer(tableMetadata);

Deno.test("conformance with @supabase/storage-js analytics catalog (iceberg-js): typed reads, createTable, updateTableTyped", async () => {
  const pair = analyticsPair(catalogAnswer);
  const { them, storage, rec } = pair;
  const theirs = pair.theirs.from("lake");
  const ours = storage.analyticsCatalog("lake");
  const schema = CATALOG_SCHEMA;
  const ns = ["a", "b c"];
  const id = { namespace: ns, name: "events" };
  type Shape = ReturnType<typeof wire>;
  const steps: Array<{
    label: string;
    theirs: () => Promise<unknown>;
    ours: () => Promise<{ ok: boolean }>;
    adjust?: (o: Shape, t: Shape) => void;
  }> = [
    {
      label: "listNamespacesTyped under a parent",
      theirs: () => theirs.listNamespaces({ namespace: ["a"] }),
      ours: () => ours.listNamespacesTyped({ parent: ["a"] }),
    },
    {
      label: "getNamespaceMetadataTyped",
      theirs: () => theirs.loadNamespaceMetadata({ namespace: ns }),
      ours: () => ours.getNamespaceMetadataTyped(ns),
    },
    {
      label: "listTablesTyped",
      theirs: () => theirs.listTables({ namespace: ns }),
      ours: () => ours.listTablesTyped(ns),
    },
    {
      label: "createTable (raw JSON)",
      theirs: () =>
        theirs.createTable({ namespace: ns }, { name: "events", schema, properties: { p: "1" } }),
      ours: () => ours.createTable(ns, { name: "events", schema, properties: { p: "1" } }),
    },
    {
      label: "getTableTyped",
      theirs: () => theirs.loadTable(id),
      ours: () => ours.getTableTyped(ns, "events"),
    },
    {
      label: "updateTableTyped",
      theirs: () => theirs.updateTable(id, { properties: { a: "b" } }),
      ours: () =>
        ours.updateTableTyped(ns, "events", {
          requirements: [],
          updates: [{ action: "set-properties", updates: { a: "b" } }],
        }),
      adjust: (o, t) => {
        // Deliberate (docs/CONFORMANCE.md): the typed update posts an Iceberg REST commit
        // (`requirements`, `updates`); iceberg-js's `updateTable` posts `{ properties }`. The
        // route, method and headers are the same.
        assert.deepEqual(o.body, {
          requirements: [],
          updates: [{ action: "set-properties", updates: { a: "b" } }],
        });
        assert.deepEqual(t.body, { properties: { a: "b" } });
        o.body = t.body;
      },
    },
  ];
  const failures: string[] = [];
  for (const s of steps) {
    them.requests.length = 0;
    rec.requests.length = 0;
    await s.theirs();
    const result = await s.ours();
    // Deliberate (docs/CONFORMANCE.md): fetchbase reads the route prefix from
    // `GET /v1/config?warehouse=<bucket>` (once per catalog client); iceberg-js uses `v1/<bucket>`.
    const mine = rec.requests.filter((r) => {
      if (!r.url.pathname.endsWith("/v1/config")) return true;
      assert.equal(r.url.searchParams.get("warehouse"), "lake");
      return false;
    });
    try {
      assert.ok(result.ok, `${s.label}: fetchbase succeeded`);
      assert.equal(mine.length, 1, `${s.label}: one catalog request`);
      const o = wire(mine[0]);
      const t = wire(them.only);
      s.adjust?.(o, t);
      assert.deepEqual(o, t, s.label);
    } catch (e) {
      failures.push(`${s.label}: ${(e as Error).message}`);
    }
  }
  assert.deepEqual(failures, []);
});

Deno.test("conformance with @supabase/storage-js analytics buckets: listing with every option, headers too", async () => {
  const answer = () => jsonResponse([{ name: "lake", type: "ANALYTICS", created_at: "c" }]);
  const { them, theirs, storage, rec } = analyticsPair(answer);
  const options = {
    limit: 5,
    offset: 1,
    sortColumn: "name",
    sortOrder: "desc",
    search: "la",
  } as const;
  await theirs.listBuckets(options);
  await storage.listAnalyticsBuckets(options);
  assert.deepEqual(wire(rec.only), wire(them.only));
});
