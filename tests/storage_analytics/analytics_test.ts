import assert from "node:assert/strict";
import { StorageAnalyticsClient } from "@supabase/storage-js";
import { Hono } from "hono";
import { createBaseClient } from "../../core/client.ts";
import {
  type CatalogJsonObject,
  createStorageClient,
  encodeNamespace,
  type IcebergTableListResponse,
} from "../../storage/mod.ts";
import { jsonResponse, recordingFetch } from "../support/recording_fetch.ts";
import { serve } from "../support/serve.ts";
import { BASE, KEY, makeStorage } from "../storage/_helpers.ts";

Deno.test("analytics buckets: create, list (same query as listBuckets), delete; conformance with storage-js", async () => {
  const answer = () =>
    jsonResponse([{ name: "lake", type: "ANALYTICS", format: "iceberg", created_at: "c" }]);
  const { storage, rec } = makeStorage(answer);
  const them = recordingFetch(answer);
  const theirs = new StorageAnalyticsClient(`${BASE}/storage/v1/iceberg`, {
    apikey: KEY,
    Authorization: `Bearer ${KEY}`,
  }, them.fetch);
  await storage.createAnalyticsBucket("lake");
  await theirs.createBucket("lake");
  assert.equal(rec.last.url.href, them.last.url.href);
  assert.deepEqual(rec.last.json(), them.last.json());
  const list = (await storage.listAnalyticsBuckets({
    limit: 5,
    offset: 1,
    sortColumn: "name",
    sortOrder: "desc",
    search: "la",
  })).getOrThrow();
  await theirs.listBuckets({
    limit: 5,
    offset: 1,
    sortColumn: "name",
    sortOrder: "desc",
    search: "la",
  });
  assert.deepEqual([...rec.last.url.searchParams].sort(), [...them.last.url.searchParams].sort());
  assert.equal(rec.last.url.pathname, them.last.url.pathname);
  assert.deepEqual(list[0], {
    name: "lake",
    type: "ANALYTICS",
    format: "iceberg",
    createdAt: "c",
    updatedAt: null,
  });
  await storage.deleteAnalyticsBucket("lake");
  await theirs.deleteBucket("lake");
  assert.equal(rec.last.method, "DELETE");
  assert.equal(rec.last.url.href, them.last.url.href);
});

Deno.test("analyticsCatalog refuses blank names and characters outside letters, digits, '.', '_', '-' at once", () => {
  const { storage } = makeStorage();
  for (const bad of ["", "  ", "a/b", "a b", "é", "a?b"]) {
    assert.throws(() => storage.analyticsCatalog(bad), TypeError, bad);
  }
  assert.equal(storage.analyticsCatalog("my.lake_2-x").bucketName, "my.lake_2-x");
  assert.equal(encodeNamespace(["a", "b c"]), "a%1Fb%20c");
  assert.throws(() => encodeNamespace([]), TypeError);
});

/** A small Iceberg REST catalog: config prefix, namespaces with parents, paged tables, purge. */
function catalogApp() {
  const namespaces = new Map<string, Record<string, string>>();
  const tables = new Map<string, Set<string>>();
  const purged: string[] = [];
  const app = new Hono().basePath("/storage/v1/iceberg");
  const ns = (s: string) => decodeURIComponent(s).split("\u001f");
  app.get(
    "/v1/config",
    (c) =>
      c.json({
        defaults: { prefix: "default-prefix" },
        overrides: { prefix: `wh-${c.req.query("warehouse")}` },
        extra: 1,
      }),
  );
  app.get("/v1/:prefix/namespaces", (c) => {
    const parent = c.req.query("parent");
    const all = [...namespaces.keys()].map((k) => k.split("\u001f"));
    const children = all.filter((n) =>
      parent
        ? n.length === parent.split("\u001f").length + 1 &&
          n.join("\u001f").startsWith(parent + "\u001f")
        : n.length === 1
    );
    return c.json({ namespaces: children, prefixSeen: c.req.param("prefix") });
  });
  app.post("/v1/:prefix/namespaces", async (c) => {
    const body = await c.req.json();
    namespaces.set(body.namespace.join("\u001f"), body.properties ?? {});
    return c.json({ namespace: body.namespace, properties: body.properties ?? {} });
  });
  app.get("/v1/:prefix/namespaces/:ns", (c) => {
    const key = ns(c.req.param("ns")).join("\u001f");
    const props = namespaces.get(key);
    return props
      ? c.json({ namespace: key.split("\u001f"), properties: props })
      : c.json({ error: { message: "NoSuchNamespace", code: 404 } }, 404);
  });
  app.delete("/v1/:prefix/namespaces/:ns", (c) => {
    const key = ns(c.req.param("ns")).join("\u001f");
    if (!namespaces.has(key)) {
      return c.json({ error: { message: "Namespace does not exist", code: 404 } }, 404);
    }
    if ((tables.get(key)?.size ?? 0) > 0) {
      return c.json({ error: { message: "Namespace is not empty", code: 409 } }, 409);
    }
    namespaces.delete(key);
    return c.body(null, 204);
  });
  app.post("/v1/:prefix/namespaces/:ns/properties", async (c) => {
    const key = ns(c.req.param("ns")).join("\u001f");
    const body = await c.req.json();
    const props = namespaces.get(key)!;
    const removed = (body.removals ?? []).filter((k: string) => k in props);
    const missing = (body.removals ?? []).filter((k: string) => !(k in props));
    for (const k of removed) delete props[k];
    Object.assign(props, body.updates ?? {});
    return c.json({ removed, updated: Object.keys(body.updates ?? {}), missing });
  });
  app.get("/v1/:prefix/namespaces/:ns/tables", (c) => {
    const key = ns(c.req.param("ns")).join("\u001f");
    const names = [...(tables.get(key) ?? [])].sort();
    const start = Number(c.req.query("pageToken") ?? 0);
    const size = Number(c.req.query("pageSize") ?? 100);
    const page = names.slice(start, start + size);
    const next = start + size < names.length ? String(start + size) : null;
    // Alternate token casings to exercise both.
    const token = next === null
      ? {}
      : start === 0
      ? { "next-page-token": next }
      : { nextPageToken: next };
    return c.json({
      identifiers: page.map((name) => ({ namespace: key.split("\u001f"), name })),
      ...token,
    });
  });
  app.post("/v1/:prefix/namespaces/:ns/tables", async (c) => {
    const key = ns(c.req.param("ns")).join("\u001f");
    const body = await c.req.json();
    if (!tables.has(key)) tables.set(key, new Set());
    tables.get(key)!.add(body.name);
    return c.json({
      "metadata-location": `s3://x/${body.name}.json`,
      metadata: { "format-version": 2, schema: body.schema },
      config: { a: "b" },
      unknown: 1,
    });
  });
  app.delete("/v1/:prefix/namespaces/:ns/tables/:table", (c) => {
    const key = ns(c.req.param("ns")).join("\u001f");
    tables.get(key)?.delete(c.req.param("table"));
    if (c.req.query("purgeRequested") === "true") purged.push(c.req.param("table"));
    return c.body(null, 204);
  });
  app.post("/v1/:prefix/tables/rename", async (c) => {
    const body = await c.req.json();
    const from = body.source.namespace.join("\u001f");
    const to = body.destination.namespace.join("\u001f");
    tables.get(from)?.delete(body.source.name);
    if (!tables.has(to)) tables.set(to, new Set());
    tables.get(to)!.add(body.destination.name);
    return c.body(null, 204);
  });
  return { app, purged, tables };
}

Deno.test("catalog flow: config prefix, multi-level namespaces with parents, paging in both token casings, rename, purge", async () => {
  const cat = catalogApp();
  await using server = await serve(cat.app.fetch);
  const seen: string[] = [];
  const client = createBaseClient(server.url, KEY, {
    fetch: (input, init) => {
      seen.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
      return fetch(input, init);
    },
  });
  const catalog = createStorageClient(client).analyticsCatalog("lake");
  const config = (await catalog.getConfigTyped()).getOrThrow();
  assert.equal(config.overrides.prefix, "wh-lake");
  assert.equal((await catalog.getConfig()).getOrThrow().extra, 1, "raw forms keep unknown fields");

  assert.ok((await catalog.createNamespaceTyped({ namespace: ["sales"] })).ok);
  assert.ok((await catalog.createNamespace(["sales", "eu"], { properties: { owner: "ana" } })).ok);
  assert.ok((await catalog.createNamespace(["sales", "us"])).ok);
  assert.ok(seen.includes("/storage/v1/iceberg/v1/wh-lake/namespaces"), "override prefix used");
  const roots = (await catalog.listNamespacesTyped()).getOrThrow();
  assert.deepEqual(roots.namespaces, [["sales"]]);
  // No parent levels is the root, as no parent is.
  const emptyParent = (await catalog.listNamespacesTyped({ parent: [] })).getOrThrow();
  assert.deepEqual(emptyParent.namespaces, [["sales"]]);
  const children = (await catalog.listNamespacesTyped({ parent: ["sales"] })).getOrThrow();
  assert.deepEqual(children.namespaces.sort(), [["sales", "eu"], ["sales", "us"]]);
  const meta = (await catalog.getNamespaceMetadataTyped(["sales", "eu"])).getOrThrow();
  assert.deepEqual(meta, { namespace: ["sales", "eu"], properties: { owner: "ana" } });
  const upd = (await catalog.updateNamespacePropertiesTyped(["sales", "eu"], {
    removals: ["owner", "nope"],
    updates: { team: "x" },
  })).getOrThrow();
  assert.deepEqual(upd, { removed: ["owner"], updated: ["team"], missing: ["nope"] });

  for (const name of ["t1", "t2", "t3", "t4", "t5"]) {
    const t = (await catalog.createTableTyped(["sales", "eu"], {
      name,
      schema: { type: "struct", fields: [] },
    })).getOrThrow();
    assert.equal(t.metadataLocation, `s3://x/${name}.json`);
    assert.deepEqual(t.config, { a: "b" });
  }
  const names: string[] = [];
  let token: string | null = null;
  const tokens: Array<[string | null, string | null]> = [];
  do {
    const page: IcebergTableListResponse =
      (await catalog.listTablesTyped(["sales", "eu"], { pageSize: 2, pageToken: token }))
        .getOrThrow();
    names.push(...page.identifiers.map((i) => i.name));
    tokens.push([page.nextPageToken, page.nextPageTokenCamelCase]);
    token = page.resolvedNextPageToken;
  } while (token);
  assert.deepEqual(names, ["t1", "t2", "t3", "t4", "t5"]);
  assert.deepEqual(tokens, [["2", null], [null, "4"], [null, null]], "both casings resolved");

  assert.ok(
    (await catalog.renameTableTyped({ namespace: ["sales", "eu"], name: "t5" }, {
      namespace: ["sales", "us"],
      name: "t5b",
    })).ok,
  );
  assert.ok(cat.tables.get("sales\u001fus")?.has("t5b"));
  assert.ok((await catalog.deleteTable(["sales", "eu"], "t1", { purge: true })).ok);
  assert.ok((await catalog.deleteTable(["sales", "eu"], "t2")).ok);
  assert.deepEqual(cat.purged, ["t1"]);
  const notEmpty = await catalog.deleteNamespace(["sales", "eu"]);
  assert.equal(notEmpty.errorOrNull()?.category, "CONFLICT");
  const missing = await catalog.deleteNamespace(["nope"]);
  assert.equal(missing.errorOrNull()?.category, "NOT_FOUND");
});

Deno.test("catalog wire: register, commit, load with snapshots, raw rename; the config is read once", async () => {
  const rec = recordingFetch((req) =>
    req.url.pathname.endsWith("/v1/config")
      ? jsonResponse({ defaults: { prefix: "p1" } })
      : jsonResponse({ name: "t", metadata: {}, "metadata-location": "s3://m" })
  );
  const catalog = createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }))
    .analyticsCatalog("lake");
  const reg = (await catalog.registerTableTyped(["a"], { name: "t", metadataLocation: "s3://m" }))
    .getOrThrow();
  assert.equal(reg.metadataLocation, "s3://m");
  assert.equal(rec.requests[0].url.href, `${BASE}/storage/v1/iceberg/v1/config?warehouse=lake`);
  assert.equal(rec.last.url.pathname, "/storage/v1/iceberg/v1/p1/namespaces/a/register");
  assert.deepEqual(rec.last.json(), { name: "t", "metadata-location": "s3://m" });
  await catalog.updateTableTyped(["a", "b"], "t", {
    updates: [{ action: "set-properties", updates: { k: "v" } }],
  });
  assert.equal(rec.last.url.pathname, "/storage/v1/iceberg/v1/p1/namespaces/a%1Fb/tables/t");
  assert.deepEqual(rec.last.json(), {
    requirements: [],
    updates: [{ action: "set-properties", updates: { k: "v" } }],
  });
  await catalog.getTableTyped(["a"], "t", { snapshots: "refs" });
  assert.equal(rec.last.url.search, "?snapshots=refs");
  await catalog.renameTable({
    source: { namespace: ["a"], name: "t" },
    destination: { namespace: ["b"], name: "t" },
    extra: true,
  });
  assert.deepEqual(
    (rec.last.json() as Record<string, unknown>).extra,
    true,
    "raw forms pass unknown fields through",
  );
  await catalog.createTable(["a"], { name: "t2", schema: {}, "custom-field": 1 });
  assert.equal((rec.last.json() as Record<string, unknown>)["custom-field"], 1);
  await catalog.createTableTyped(["a"], {
    name: "t3",
    schema: { type: "struct" },
    partitionSpec: { fields: [] },
    writeOrder: { fields: [] },
  });
  assert.deepEqual(Object.keys(rec.last.json() as object), [
    "name",
    "schema",
    "partition-spec",
    "write-order",
  ]);
  assert.equal(rec.requests.filter((r) => r.url.pathname.endsWith("/v1/config")).length, 1);
});

Deno.test("catalog: a call cancelled before it starts sends nothing, not even the config request", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({ overrides: {}, defaults: {} }));
  const r = await storage.analyticsCatalog("lake").listNamespaces({ signal: AbortSignal.abort() });
  assert.equal(r.errorOrNull()?.category, "CANCELLED");
  assert.equal(rec.requests.length, 0);
});

Deno.test("catalog: one caller's abort leaves the shared config request to the others; odd prefixes and separator levels", async () => {
  let release = () => {};
  const { storage, rec } = makeStorage((req) => {
    if (req.url.pathname.endsWith("/v1/config")) {
      return new Promise<Response>((resolve) => {
        release = () =>
          resolve(jsonResponse({ overrides: { prefix: "" }, defaults: { prefix: null } }));
      });
    }
    return jsonResponse({ namespaces: [] });
  });
  const catalog = storage.analyticsCatalog("lake");
  const ac = new AbortController();
  const first = catalog.listNamespaces({ signal: ac.signal });
  const second = catalog.listNamespaces();
  await new Promise((r) => setTimeout(r, 5));
  ac.abort();
  assert.equal((await first).errorOrNull()?.category, "CANCELLED");
  release();
  assert.ok((await second).ok);
  // An empty prefix means none.
  assert.equal(rec.last.url.pathname, "/storage/v1/iceberg/v1/namespaces");
  assert.throws(() => encodeNamespace(["a\u001fb"]), TypeError);
});

Deno.test("catalog names that are empty, . or .. are INVALID_ARGUMENT: they would reach another route", async () => {
  const { storage, rec } = makeStorage((req) =>
    req.url.pathname.endsWith("/v1/config")
      ? jsonResponse({ defaults: {}, overrides: { prefix: "catalogs/lake" } })
      : jsonResponse({})
  );
  const catalog = storage.analyticsCatalog("lake");
  for (const name of ["", ".", ".."]) {
    for (
      const r of [
        await catalog.deleteTable(["sales"], name),
        await catalog.getTable(["sales"], name),
        await catalog.updateTable(["sales"], name, {}),
      ]
    ) {
      assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", JSON.stringify(name));
    }
  }
  for (const ns of [["."], [".."]]) {
    const r = await catalog.listTables(ns);
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", JSON.stringify(ns));
  }
  for (const name of [".", ".."]) {
    const r = await storage.deleteAnalyticsBucket(name);
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", name);
    assert.throws(() => storage.analyticsCatalog(name), TypeError);
  }
  assert.ok(rec.requests.every((q) => q.url.pathname.endsWith("/v1/config")));
  // A prefix is a path: its segments are encoded, its slashes kept.
  await catalog.listNamespaces();
  assert.equal(rec.last.url.pathname, "/storage/v1/iceberg/v1/catalogs/lake/namespaces");
});

Deno.test("catalog: 64-bit snapshot ids come back exact (bigint) and go out as JSON integers", async () => {
  const id = "3497810964824022504";
  const { storage, rec } = makeStorage((req) =>
    req.url.pathname.endsWith("/config")
      ? jsonResponse({ defaults: {}, overrides: { prefix: "lake" } })
      : new Response(
        `{"metadata-location":"s3://m","metadata":{"current-snapshot-id":${id},` +
          `"snapshots":[{"snapshot-id":${id},"sequence-number":7,"summary":{"note":"id ${id}"}}],` +
          `"last-updated-ms":1700000000000,"big-float":1.5e300}}`,
        { headers: { "content-type": "application/json" } },
      )
  );
  const catalog = storage.analyticsCatalog("lake");
  const table = (await catalog.getTable(["sales"], "orders")).getOrThrow() as {
    metadata: Record<string, unknown>;
  };
  const meta = table.metadata;
  assert.equal(meta["current-snapshot-id"], BigInt(id));
  const snap = (meta.snapshots as Array<Record<string, unknown>>)[0];
  assert.equal(snap["snapshot-id"], BigInt(id));
  assert.equal(snap["sequence-number"], 7, "safe integers stay numbers");
  assert.equal((snap.summary as { note: string }).note, `id ${id}`, "digits in strings stay text");
  assert.equal(meta["last-updated-ms"], 1700000000000);
  assert.equal(meta["big-float"], 1.5e300);
  await catalog.updateTable(["sales"], "orders", {
    requirements: [{ type: "assert-ref-snapshot-id", ref: "main", "snapshot-id": BigInt(id) }],
    updates: [],
  });
  assert.equal(rec.last.headers.get("content-type"), "application/json");
  assert.equal(
    rec.last.text,
    `{"requirements":[{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":${id}}],"updates":[]}`,
  );
  // A value JSON cannot hold is refused before sending.
  const cyclic: CatalogJsonObject = {};
  cyclic.self = cyclic;
  const n = rec.requests.length;
  const bad = await catalog.updateTable(["sales"], "orders", cyclic);
  assert.equal(bad.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, n);
});

Deno.test("typed namespace metadata: a namespace the server leaves out is the document's default, empty", async () => {
  const { storage } = makeStorage((req) =>
    req.url.pathname.endsWith("/config")
      ? jsonResponse({ defaults: {}, overrides: {} })
      : jsonResponse({ properties: { owner: "ana" } })
  );
  const catalog = storage.analyticsCatalog("lake");
  for (
    const r of [
      await catalog.getNamespaceMetadataTyped(["sales", "eu"]),
      await catalog.createNamespaceTyped({ namespace: ["sales", "eu"] }),
    ]
  ) {
    assert.deepEqual(r.getOrThrow(), { namespace: [], properties: { owner: "ana" } });
  }
});

Deno.test("a catalog answer that is not JSON fails DECODE without quoting it (V8's parse error quoted its first characters)", async () => {
  const secret = "AKIAIOSFODNN7EXAMPLE-secret";
  const client = createBaseClient("https://p.example", "anon-key-0123456789", {
    fetch: () => Promise.resolve(new Response(`${secret} is not JSON`, { status: 200 })),
  });
  const r = await createStorageClient(client).analyticsCatalog("lake").getConfig();
  assert.equal(r.errorOrNull()?.category, "DECODE");
  const shown = Deno.inspect(r.errorOrNull(), { depth: 10 });
  assert.ok(!shown.includes(secret.slice(0, 8)), shown);
});
