/**
 * Extra conformance with @supabase/postgrest-js, for the calls the other conformance files leave
 * out: every typed helper of database/typed.ts and database/rpc_typed.ts, the paginator's first
 * page, option combinations (rollback with stripNulls, schema with a planned count, explain on a
 * rolled-back delete, GET RPC arguments) and the filters `within`, `isExactly(false)`, `overlaps`,
 * `containedBy` of JSON, `contains` of an array and `nullslast` ordering. Same comparison as
 * tests/database/conformance_test.ts: method, path, decoded query pairs, Accept, Prefer as a set,
 * profiles, Content-Type, apikey, Authorization and the JSON body; deliberate differences are
 * asserted explicitly and listed in docs/CONFORMANCE.md.
 */
import assert from "node:assert/strict";
import {
  column,
  type DatabaseClient,
  deleteTyped,
  deleteUnit,
  insertTyped,
  insertTypedMany,
  insertUnit,
  insertUnitTyped,
  paginator,
  rpcGetCsv,
  rpcGetHead,
  rpcGetListTyped,
  rpcGetMaybeSingleTyped,
  rpcGetSingleTyped,
  rpcGetTyped,
  rpcGetUnit,
  rpcHead,
  rpcListTyped,
  rpcSingleTyped,
  rpcTyped,
  rpcUnit,
  selectCsv,
  selectGeoJson,
  selectHead,
  selectTyped,
  selectTypedOrThrow,
  selectWithCountTyped,
  updateTyped,
  updateUnit,
  updateUnitTyped,
  upsertTyped,
  upsertTypedMany,
} from "../../database/mod.ts";
import { jsonResponse } from "../support/recording_fetch.ts";
import { makeDb, postgrestJs, shape } from "./_helpers.ts";

// deno-lint-ignore no-explicit-any
type Theirs = (c: any) => PromiseLike<unknown>;
type Ours = (db: DatabaseClient) => Promise<unknown>;
type Shape = ReturnType<typeof shape>;

const answer = () => jsonResponse([{ id: 1 }], { headers: { "content-range": "0-0/1" } });

const id = column<number>("id");
const done = column<boolean>("done");
const during = column<string>("during");
const tags = column<string[]>("tags");
const meta = column<Record<string, unknown>>("meta");

const byId = (w: { eq(c: typeof id, v: number): unknown }) => void w.eq(id, 1);

/**
 * Deliberate (docs/CONFORMANCE.md): a GET or HEAD call's array argument is JSON text, as the
 * document says; postgrest-js writes a Postgres array literal.
 */
function jsonArrayArgument(o: Shape, t: Shape): void {
  assert.deepEqual(o.query, [["ids", "[1,2]"]]);
  assert.deepEqual(t.query, [["ids", "{1,2}"]]);
  o.query = t.query;
}

const cases: Array<[string, Theirs, Ours, ((o: Shape, t: Shape) => void)?]> = [
  [
    "selectTyped",
    (c) => c.from("t").select("id,title").eq("id", 1),
    (db) => selectTyped(db, "t", { columns: "id,title", block: (q) => q.where(byId) }),
  ],
  [
    "selectTypedOrThrow",
    (c) => c.from("t").select("id,title").eq("id", 1),
    (db) => selectTypedOrThrow(db, "t", { columns: "id,title", block: (q) => q.where(byId) }),
  ],
  [
    "selectWithCountTyped",
    (c) => c.from("t").select("*", { count: "exact" }).range(0, 9),
    (db) => selectWithCountTyped(db, "t", { count: "exact", block: (q) => q.range(0, 9) }),
  ],
  ["selectGeoJson", (c) => c.from("t").select().geojson(), (db) => selectGeoJson(db, "t")],
  ["selectCsv", (c) => c.from("t").select().csv(), (db) => selectCsv(db, "t")],
  [
    "selectHead with an exact count",
    (c) => c.from("t").select("*", { head: true, count: "exact" }),
    (db) => selectHead(db, "t", { count: "exact" }),
  ],
  [
    "paginator first page",
    (c) => c.from("t").select().range(0, 19),
    (db) => paginator(db, "t").loadNext(),
  ],
  [
    "paginator first page, page size and order",
    (c) => c.from("t").select("id").order("id", { ascending: false }).range(0, 49),
    (db) =>
      paginator(db, "t", {
        pageSize: 50,
        columns: "id",
        block: (q) => q.orderBy(id, { order: "desc" }),
      }).loadNext(),
  ],
  [
    "insertTyped",
    (c) => c.from("t").insert({ title: "a" }).select(),
    (db) => insertTyped(db, "t", { title: "a" }),
  ],
  [
    "insertTypedMany",
    (c) => c.from("t").insert([{ a: 1 }, { b: 2 }]).select(),
    (db) => insertTypedMany<Record<string, number>>(db, "t", [{ a: 1 }, { b: 2 }]),
  ],
  ["insertUnit", (c) => c.from("t").insert({ a: 1 }), (db) => insertUnit(db, "t", '{"a":1}')],
  [
    "insertUnitTyped",
    (c) => c.from("t").insert([{ a: 1 }, { b: 2 }]),
    (db) => insertUnitTyped(db, "t", [{ a: 1 }, { b: 2 }]),
  ],
  [
    "upsertTyped with a conflict target",
    (c) => c.from("t").upsert({ id: 1 }, { onConflict: "id" }).select(),
    (db) => upsertTyped(db, "t", { id: 1 }, { onConflict: "id" }),
  ],
  [
    "upsertTypedMany",
    (c) => c.from("t").upsert([{ id: 1 }, { id: 2, a: 1 }]).select(),
    (db) => upsertTypedMany<Record<string, number>>(db, "t", [{ id: 1 }, { id: 2, a: 1 }]),
  ],
  [
    "updateTyped",
    (c) => c.from("t").update({ done: true }).eq("id", 1).select(),
    (db) => updateTyped(db, "t", { done: true }, byId),
  ],
  [
    "updateUnit",
    (c) => c.from("t").update({ done: true }).eq("id", 1),
    (db) => updateUnit(db, "t", '{"done":true}', byId),
  ],
  [
    "updateUnitTyped",
    (c) => c.from("t").update({ done: true }).eq("id", 1),
    (db) => updateUnitTyped(db, "t", { done: true }, byId),
  ],
  [
    "deleteTyped",
    (c) => c.from("t").delete().eq("id", 1).select(),
    (db) => deleteTyped(db, "t", byId),
  ],
  ["deleteUnit", (c) => c.from("t").delete().eq("id", 1), (db) => deleteUnit(db, "t", byId)],
  [
    "insert with rollback and stripNulls",
    (c) => c.from("t").insert({ a: 1 }).select().stripNulls().rollback(),
    (db) => db.insert("t", '{"a":1}', { rollback: true, stripNulls: true }),
  ],
  [
    "update with a schema and a planned count",
    (c) => c.schema("app").from("t").update({ a: 1 }, { count: "planned" }).eq("id", 1).select(),
    (db) => db.update("t", '{"a":1}', byId, { schema: "app", count: "planned" }),
  ],
  [
    "explain analyze of a rolled-back delete",
    (c) => c.from("t").delete().eq("id", 1).rollback().explain({ analyze: true }),
    (db) =>
      db.delete("t", byId, { returning: "minimal", rollback: true, explain: { analyze: true } }),
  ],
  ["rpcTyped", (c) => c.rpc("f", { x: 1 }), (db) => rpcTyped(db, "f", { params: { x: 1 } })],
  [
    "rpcListTyped",
    (c) => c.rpc("f", { x: 1 }),
    (db) => rpcListTyped(db, "f", { params: { x: 1 } }),
  ],
  [
    "rpcSingleTyped",
    (c) => c.rpc("f", { x: 1 }).single(),
    (db) => rpcSingleTyped(db, "f", { params: { x: 1 } }),
  ],
  ["rpcUnit", (c) => c.rpc("f", { x: 1 }), (db) => rpcUnit(db, "f", { params: { x: 1 } })],
  [
    "rpcHead with an exact count",
    (c) => c.rpc("f", { x: 1 }, { head: true, count: "exact" }),
    (db) => rpcHead(db, "f", { params: { x: 1 }, count: "exact" }),
  ],
  [
    "rpcGetTyped",
    (c) => c.rpc("f", { x: 1 }, { get: true }),
    (db) => rpcGetTyped(db, "f", { queryParams: { x: "1" } }),
  ],
  [
    "rpcGetListTyped",
    (c) => c.rpc("f", { x: 1 }, { get: true }),
    (db) => rpcGetListTyped(db, "f", { queryParams: { x: "1" } }),
  ],
  [
    "rpcGetSingleTyped",
    (c) => c.rpc("f", { x: 1 }, { get: true }).single(),
    (db) => rpcGetSingleTyped(db, "f", { queryParams: { x: "1" } }),
  ],
  [
    "rpcGetMaybeSingleTyped",
    (c) => c.rpc("f", { x: 1 }, { get: true }).maybeSingle(),
    (db) => rpcGetMaybeSingleTyped(db, "f", { queryParams: { x: "1" } }),
    (o, t) => {
      // Deliberate (docs/CONFORMANCE.md): the GET call asks for a single object and maps the
      // zero-row 406 to null; postgrest-js reads a list and checks its length.
      assert.equal(o.accept, "application/vnd.pgrst.object+json");
      assert.equal(t.accept, null);
      o.accept = t.accept;
    },
  ],
  [
    "rpcGetUnit",
    (c) => c.rpc("f", { x: 1 }, { get: true }),
    (db) => rpcGetUnit(db, "f", { queryParams: { x: "1" } }),
  ],
  [
    "rpcGetCsv",
    (c) => c.rpc("f", { x: 1 }, { get: true }).csv(),
    (db) => rpcGetCsv(db, "f", { queryParams: { x: "1" } }),
  ],
  [
    "rpcGetHead with an exact count",
    (c) => c.rpc("f", { x: 1 }, { get: true, head: true, count: "exact" }),
    (db) => rpcGetHead(db, "f", { queryParams: { x: "1" }, count: "exact" }),
  ],
  [
    "rpcGet with object params",
    (c) => c.rpc("f", { x: 1, s: "a" }, { get: true }),
    (db) => db.rpcGet("f", { params: { x: 1, s: "a" } }),
  ],
  [
    "rpcGet with an array argument",
    (c) => c.rpc("f", { ids: [1, 2] }, { get: true }),
    (db) => db.rpcGet("f", { params: { ids: [1, 2] } }),
    jsonArrayArgument,
  ],
  [
    "rpcHead with an array argument",
    (c) => c.rpc("f", { ids: [1, 2] }, { head: true }),
    (db) => rpcHead(db, "f", { params: { ids: [1, 2] } }),
    jsonArrayArgument,
  ],
  [
    "rpcGetHead with an array argument",
    (c) => c.rpc("f", { ids: [1, 2] }, { get: true, head: true }),
    (db) => rpcGetHead(db, "f", { params: { ids: [1, 2] } }),
    jsonArrayArgument,
  ],
  [
    "rpcHead with an object argument and a count",
    (c) => c.rpc("f", { o: { a: 1 } }, { head: true, count: "exact" }),
    (db) => rpcHead(db, "f", { params: { o: { a: 1 } }, count: "exact" }),
    (o, t) => {
      // Deliberate (docs/CONFORMANCE.md): a HEAD call stays HEAD, its object argument JSON
      // text in the query; postgrest-js turns it into a POST with the arguments as its body.
      assert.deepEqual([o.method, o.query, o.body], ["HEAD", [["o", '{"a":1}']], null]);
      assert.deepEqual([t.method, t.query, t.body], ["POST", [], { o: { a: 1 } }]);
      assert.equal(t.contentType, "application/json");
      o.method = t.method;
      o.query = t.query;
      o.body = t.body;
      o.contentType = t.contentType;
    },
  ],
  [
    "within",
    (c) => c.from("t").select().gte("id", 1).lte("id", 5),
    (db) => db.select("t", { block: (q) => q.where((w) => w.within(id, { from: 1, to: 5 })) }),
    (o, t) => {
      // Deliberate (docs/CONFORMANCE.md): `within` (which postgrest-js lacks) is one
      // `and=(...)` filter; the same condition in postgrest-js is two `id=` parameters.
      assert.deepEqual(o.query, [["and", "(id.gte.1,id.lte.5)"], ["select", "*"]]);
      assert.deepEqual(t.query, [["id", "gte.1"], ["id", "lte.5"], ["select", "*"]]);
      o.query = t.query;
    },
  ],
  [
    "isExactly false",
    (c) => c.from("t").select().is("done", false),
    (db) => db.select("t", { block: (q) => q.where((w) => w.isExactly(done, false)) }),
  ],
  [
    "overlaps a range literal",
    (c) => c.from("t").select().overlaps("during", "[1,2)"),
    (db) => db.select("t", { block: (q) => q.where((w) => w.overlaps(during, "[1,2)")) }),
  ],
  [
    "containedBy JSON",
    (c) => c.from("t").select().containedBy("meta", { a: 1 }),
    (db) => db.select("t", { block: (q) => q.where((w) => w.containedBy(meta, { a: 1 })) }),
  ],
  [
    "contains an array with a space",
    (c) => c.from("t").select().contains("tags", ["a b", "c"]),
    (db) => db.select("t", { block: (q) => q.where((w) => w.contains(tags, ["a b", "c"])) }),
    (o, t) => {
      // Deliberate (docs/CONFORMANCE.md): array literals quote an element holding a space
      // or a reserved character; postgrest-js writes it bare. Same array to PostgREST.
      assert.deepEqual(o.query, [["select", "*"], ["tags", 'cs.{"a b",c}']]);
      assert.deepEqual(t.query, [["select", "*"], ["tags", "cs.{a b,c}"]]);
      o.query = t.query;
    },
  ],
  [
    "order nulls last",
    (c) => c.from("t").select().order("id", { nullsFirst: false }),
    (db) => db.select("t", { block: (q) => q.orderBy(id, { nulls: "nullslast" }) }),
  ],
];

Deno.test(`conformance with @supabase/postgrest-js: ${cases.length} typed helpers, paginator and option combinations`, async () => {
  const failures: string[] = [];
  for (const [label, theirs, ours, adjust] of cases) {
    const { client, rec: them } = postgrestJs(answer);
    await theirs(client);
    const us = makeDb(answer);
    try {
      await ours(us.db);
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

Deno.test("conformance with @supabase/postgrest-js: per-call headers, a custom one and a Prefer", async () => {
  const them = postgrestJs(answer);
  await them.client.from("t").select().setHeader("x-trace", "abc");
  const us = makeDb(answer);
  await us.db.select("t", { headers: { "x-trace": "abc" } });
  assert.deepEqual(shape(us.rec.only), shape(them.rec.only));
  assert.equal(us.rec.only.headers.get("x-trace"), "abc");
  assert.equal(them.rec.only.headers.get("x-trace"), "abc");

  // Deliberate (docs/CONFORMANCE.md): a Prefer given per call keeps the directives the call
  // computes that it does not name; postgrest-js's setHeader replaces them, dropping the count.
  const them2 = postgrestJs(answer);
  await them2.client.from("t").select("*", { count: "exact" }).setHeader("Prefer", "timezone=UTC");
  const us2 = makeDb(answer);
  await us2.db.select("t", { count: "exact", headers: { Prefer: "timezone=UTC" } });
  const o = shape(us2.rec.only);
  const t = shape(them2.rec.only);
  assert.deepEqual(o.prefer, ["count=exact", "timezone=UTC"]);
  assert.deepEqual(t.prefer, ["timezone=UTC"]);
  o.prefer = t.prefer;
  assert.deepEqual(o, t);
});

Deno.test("conformance with @supabase/postgrest-js: a DELETE carries no Content-Type", async () => {
  // Deliberate (docs/CONFORMANCE.md): a header that describes no body is not sent; postgrest-js
  // labels every DELETE application/json. The rest of a DELETE is compared in the other files.
  const them = postgrestJs(answer);
  await them.client.from("t").delete().eq("id", 1).select();
  const us = makeDb(answer);
  await us.db.delete("t", byId);
  assert.equal(them.rec.only.method, "DELETE");
  assert.equal(them.rec.only.headers.get("content-type"), "application/json");
  assert.equal(us.rec.only.method, "DELETE");
  assert.equal(us.rec.only.text ?? null, null);
  assert.equal(us.rec.only.headers.get("content-type"), null);
  assert.deepEqual(shape(us.rec.only), shape(them.rec.only));
});
