/**
 * Conformance with @supabase/postgrest-js for the calls an audit found no other conformance file
 * comparing: the `estimated` count, counts with ranges and orders together, profiles on HEAD
 * reads and on HEAD and GET function calls, `stripNulls` with `single`, `explain` over the
 * single, CSV and GeoJSON media types, function calls with `maxAffected`, GeoJSON, CSV, GET
 * `stripNulls`/`explain`/`single` and planned counts, writes returning rows with counts,
 * `stripNulls` or `maxAffected`, upserts on several conflict columns, table and function names
 * that need percent-encoding, projections with casts, JSON paths and aggregates, filters and
 * orders on JSON paths, the generic filter, `not`, `in` of booleans, `limit` with `offset`,
 * reserved characters in values and `or`/`and` on a referenced table. Same comparison as tests/database/conformance_test.ts (method, path, decoded
 * query pairs, Accept, Prefer as a set, profiles, Content-Type, apikey, Authorization and the
 * JSON body), plus the path decoded and the `Range` header; deliberate differences are asserted
 * explicitly and listed in docs/CONFORMANCE.md.
 */
import assert from "node:assert/strict";
import { column, type DatabaseClient, selectSingleTyped } from "../../database/mod.ts";
import { jsonResponse, type RecordedRequest } from "../support/recording_fetch.ts";
import { makeDb, postgrestJs, shape } from "./_helpers.ts";

// deno-lint-ignore no-explicit-any
type Theirs = (c: any) => PromiseLike<unknown>;
type Ours = (db: DatabaseClient) => Promise<unknown>;

/** The helpers' shape plus the decoded path and the `Range` header. */
function wire(r: RecordedRequest) {
  return {
    ...shape(r),
    decodedPath: decodeURIComponent(r.url.pathname),
    range: r.headers.get("range"),
  };
}

type Shape = ReturnType<typeof wire>;

const answer = () => jsonResponse([{ id: 1 }], { headers: { "content-range": "0-0/1" } });

const id = column<number>("id");
const title = column<string>("title");

const cases: Array<[string, Theirs, Ours, ((o: Shape, t: Shape) => void)?]> = [
  [
    "count estimated",
    (c) => c.from("t").select("*", { count: "estimated" }),
    (db) => db.select("t", { count: "estimated" }),
  ],
  [
    "count with a filter, an order and a range",
    (c) =>
      c.from("t").select("id,title", { count: "exact" }).gt("id", 3).order("title").range(20, 29),
    (db) =>
      db.select("t", {
        columns: "id,title",
        count: "exact",
        block: (q) => q.where((w) => w.greater(id, 3)).orderBy(title).range(20, 29),
      }),
  ],
  [
    "head with a schema",
    (c) => c.schema("app").from("t").select("*", { head: true, count: "exact" }),
    (db) => db.select("t", { schema: "app", format: "HEAD", count: "exact" }),
  ],
  [
    "selectCount with a schema",
    (c) => c.schema("app").from("t").select("*", { head: true, count: "exact" }),
    (db) => db.selectCount("t", { schema: "app" }),
  ],
  [
    "single with stripNulls",
    (c) => c.from("t").select().eq("id", 1).single().stripNulls(),
    (db) =>
      db.select("t", {
        format: "SINGLE",
        stripNulls: true,
        block: (q) => q.where((w) => w.eq(id, 1)),
      }),
  ],
  [
    "selectSingleTyped with a schema",
    (c) => c.schema("app").from("t").select("id").eq("id", 1).single(),
    (db) =>
      selectSingleTyped(db, "t", {
        schema: "app",
        columns: "id",
        block: (q) => q.where((w) => w.eq(id, 1)),
      }),
  ],
  [
    "explain of a single row",
    (c) => c.from("t").select().eq("id", 1).single().explain({ format: "json" }),
    (db) =>
      db.select("t", {
        format: "SINGLE",
        explain: { format: "json" },
        block: (q) => q.where((w) => w.eq(id, 1)),
      }),
  ],
  [
    "explain of CSV",
    (c) => c.from("t").select().csv().explain(),
    (db) => db.select("t", { format: "CSV", explain: {} }),
  ],
  [
    "explain of GeoJSON",
    (c) => c.from("t").select().geojson().explain({ analyze: true }),
    (db) => db.select("t", { format: "GEOJSON", explain: { analyze: true } }),
  ],
  [
    "rpc maxAffected",
    (c) => c.rpc("purge", { n: 1 }).maxAffected(5),
    (db) => db.rpc("purge", { params: '{"n":1}', maxAffected: 5 }),
  ],
  [
    "rpc geojson",
    (c) => c.rpc("shapes", { n: 1 }).geojson(),
    (db) => db.rpc("shapes", { params: '{"n":1}', format: "GEOJSON" }),
  ],
  [
    "rpc planned count",
    (c) => c.rpc("list", { n: 1 }, { count: "planned" }),
    (db) => db.rpc("list", { params: '{"n":1}', count: "planned" }),
  ],
  [
    "rpc HEAD with a schema",
    (c) => c.schema("api").rpc("list", { n: 1 }, { head: true, count: "exact" }),
    (db) => db.rpc("list", { params: '{"n":1}', schema: "api", format: "HEAD", count: "exact" }),
  ],
  [
    "rpc GET with stripNulls",
    (c) => c.rpc("f", { x: 1 }, { get: true }).stripNulls(),
    (db) => db.rpcGet("f", { queryParams: { x: "1" }, stripNulls: true }),
  ],
  [
    "rpc GET single with a schema",
    (c) => c.schema("api").rpc("f", { x: 1 }, { get: true }).single(),
    (db) => db.rpcGet("f", { queryParams: { x: "1" }, schema: "api", format: "SINGLE" }),
  ],
  [
    "rpc GET explain",
    (c) => c.rpc("f", { x: 1 }, { get: true }).explain({ analyze: true, format: "json" }),
    (db) => db.rpcGet("f", { queryParams: { x: "1" }, explain: { analyze: true, format: "json" } }),
  ],
  [
    "rpc GET with a filter, an order and a range",
    (c) => c.rpc("list", { n: 5 }, { get: true }).gte("id", 2).order("id").range(0, 4),
    (db) =>
      db.rpcGet("list", {
        queryParams: { n: "5" },
        block: (q) => q.where((w) => w.greaterEq(id, 2)).orderBy(id).range(0, 4),
      }),
  ],
  [
    "update returning with maxAffected",
    (c) => c.from("t").update({ a: 1 }).eq("id", 1).maxAffected(1).select(),
    (db) => db.update("t", '{"a":1}', (w) => w.eq(id, 1), { maxAffected: 1 }),
  ],
  [
    "delete returning with an exact count",
    (c) => c.from("t").delete({ count: "exact" }).eq("id", 1).select(),
    (db) => db.delete("t", (w) => w.eq(id, 1), { count: "exact" }),
  ],
  [
    "upsert on two conflict columns, ignoring duplicates, minimal",
    (c) => c.from("t").upsert([{ a: 1, b: 2 }], { onConflict: "a,b", ignoreDuplicates: true }),
    (db) =>
      db.insert("t", '[{"a":1,"b":2}]', {
        upsert: true,
        onConflict: "a,b",
        upsertResolution: "ignore-duplicates",
        returning: "minimal",
      }),
  ],
  [
    "upsert with a schema",
    (c) => c.schema("app").from("t").upsert({ id: 1 }).select(),
    (db) => db.insert("t", '{"id":1}', { upsert: true, schema: "app" }),
  ],
  [
    "insert one object with defaultToNull false",
    (c) => c.from("t").insert({ a: 1 }, { defaultToNull: false }).select(),
    (db) => db.insert("t", '{"a":1}', { defaultToNull: false }),
  ],
  [
    "table name with a space and non-ASCII",
    (c) => c.from("my tablé").select().eq("id", 1),
    (db) => db.select("my tablé", { block: (q) => q.where((w) => w.eq(id, 1)) }),
  ],
  [
    "function name with a space and non-ASCII",
    (c) => c.rpc("mý fn", { x: 1 }),
    (db) => db.rpc("mý fn", { params: '{"x":1}' }),
  ],
  [
    "delete on a table with a space",
    (c) => c.from("my table").delete().eq("id", 1),
    (db) => db.delete("my table", (w) => w.eq(id, 1), { returning: "minimal" }),
  ],
  [
    "columns with casts, JSON paths, an alias and spaces",
    (c) => c.from("t").select("id, data->>name, total::text, owner:users ( name )"),
    (db) => db.select("t", { columns: "id, data->>name, total::text, owner:users ( name )" }),
  ],
  [
    "an aggregate column",
    (c) => c.from("t").select("count(), title"),
    (db) => db.select("t", { columns: "count(), title" }),
  ],
  [
    "filter and order on JSON paths",
    (c) => c.from("t").select().eq("data->>name", "a").order("data->age", { ascending: false }),
    (db) =>
      db.select("t", {
        block: (q) =>
          q.where((w) => w.eq(column<string>("data->>name"), "a")).orderBy(column("data->age"), {
            order: "desc",
          }),
      }),
  ],
  [
    "generic filter with in",
    (c) => c.from("t").select().filter("id", "in", "(1,2)"),
    (db) => db.select("t", { block: (q) => q.where((w) => w.raw(id, "in", "(1,2)")) }),
  ],
  [
    "not contains",
    (c) => c.from("t").select().not("tags", "cs", "{a}"),
    (db) =>
      db.select("t", {
        block: (q) => q.where((w) => w.not((n) => n.contains(column<string[]>("tags"), ["a"]))),
      }),
  ],
  [
    "in of booleans",
    (c) => c.from("t").select().in("done", [true, false]),
    (db) =>
      db.select("t", {
        block: (q) => q.where((w) => w.inList(column<boolean>("done"), [true, false])),
      }),
  ],
  [
    "eq of a numeric string",
    (c) => c.from("t").select().eq("title", "1.5"),
    (db) => db.select("t", { block: (q) => q.where((w) => w.eq(title, "1.5")) }),
  ],
  [
    "range of one row",
    (c) => c.from("t").select().range(0, 0),
    (db) => db.select("t", { block: (q) => q.range(0, 0) }),
  ],
  [
    "limit and offset (postgrest-js: range)",
    (c) => c.from("t").select().range(5, 14),
    (db) => db.select("t", { block: (q) => q.limit(10).offset(5) }),
  ],
  [
    "textSearch websearch on a JSON path",
    (c) => c.from("t").select().textSearch("data->>body", "cat", { type: "websearch" }),
    (db) =>
      db.select("t", {
        block: (q) => q.where((w) => w.textSearch(column("data->>body"), "cat", { type: "wfts" })),
      }),
  ],
  [
    "like with * and %",
    (c) => c.from("t").select().like("title", "a*b%"),
    (db) => db.select("t", { block: (q) => q.where((w) => w.like(title, "a*b%")) }),
  ],
  [
    "eq of a value with reserved characters and non-ASCII",
    (c) => c.from("t").select().eq("title", "a&b=c+d é,(x)"),
    (db) => db.select("t", { block: (q) => q.where((w) => w.eq(title, "a&b=c+d é,(x)")) }),
  ],
  [
    "or with and on a referenced table",
    (c) =>
      c.from("t").select("id,users(name)").or("name.eq.a,and(name.neq.b,id.gt.1)", {
        referencedTable: "users",
      }),
    (db) =>
      db.select("t", {
        columns: "id,users(name)",
        block: (q) =>
          q.where((w) =>
            w.or((o) =>
              o.eq(column<string>("name"), "a").and((a) =>
                a.neq(column<string>("name"), "b").greater(id, 1)
              ), {
              referencedTable: "users",
            })
          ),
      }),
  ],
  [
    "rpc HEAD over GET without a count",
    (c) => c.rpc("f", {}, { get: true, head: true }),
    (db) => db.rpcGet("f", { format: "HEAD" }),
  ],
  [
    "rpc csv with a schema",
    (c) => c.schema("api").rpc("f", { x: 1 }).csv(),
    (db) => db.rpc("f", { params: '{"x":1}', schema: "api", format: "CSV" }),
  ],
  [
    "insert returning with a count and stripNulls",
    (c) => c.from("t").insert({ a: 1 }, { count: "exact" }).select().stripNulls(),
    (db) => db.insert("t", '{"a":1}', { count: "exact", stripNulls: true }),
  ],
  [
    "insert rows whose keys need quoting in columns=",
    (c) => c.from("t").insert([{ "a b": 1, "c,d": 2 }]).select(),
    (db) => db.insert("t", '[{"a b":1,"c,d":2}]'),
  ],
  [
    "upsert one object with defaultToNull false",
    (c) => c.from("t").upsert({ a: 1 }, { defaultToNull: false }).select(),
    (db) => db.insert("t", '{"a":1}', { upsert: true, defaultToNull: false }),
  ],
  [
    "update without a filter",
    (c) => c.from("t").update({ a: 1 }).select(),
    (db) => db.update("t", '{"a":1}', null),
  ],
  [
    "delete without a filter",
    (c) => c.from("t").delete(),
    (db) => db.delete("t", null, { returning: "minimal" }),
  ],
  [
    "order on two referenced tables",
    (c) =>
      c.from("t").select("id,u(a),v(b)").order("a", { referencedTable: "u" })
        .order("b", { referencedTable: "v", ascending: false }),
    (db) =>
      db.select("t", {
        columns: "id,u(a),v(b)",
        block: (q) =>
          q.orderBy(column("a"), { referencedTable: "u" })
            .orderBy(column("b"), { referencedTable: "v", order: "desc" }),
      }),
  ],
  [
    "contains nested JSON",
    (c) => c.from("t").select().contains("m", { a: [1, 2], b: { c: "x y" } }),
    (db) =>
      db.select("t", {
        block: (q) => q.where((w) => w.contains(column("m"), { a: [1, 2], b: { c: "x y" } })),
      }),
  ],
  [
    "rpc single with stripNulls",
    (c) => c.rpc("f", { x: 1 }).single().stripNulls(),
    (db) => db.rpc("f", { params: '{"x":1}', format: "SINGLE", stripNulls: true }),
  ],
  [
    "rpc GET single with stripNulls",
    (c) => c.rpc("f", { x: 1 }, { get: true }).single().stripNulls(),
    (db) => db.rpcGet("f", { queryParams: { x: "1" }, format: "SINGLE", stripNulls: true }),
  ],
];

Deno.test(`conformance with @supabase/postgrest-js (audit): ${cases.length} queries`, async () => {
  const failures: string[] = [];
  for (const [label, theirs, ours, adjust] of cases) {
    const { client, rec: them } = postgrestJs(answer);
    await theirs(client);
    const us = makeDb(answer);
    try {
      await ours(us.db);
      const o = wire(us.rec.only);
      const t = wire(them.only);
      adjust?.(o, t);
      assert.deepEqual(o, t, label);
    } catch (e) {
      failures.push(`${label}: ${(e as Error).message}`);
    }
  }
  assert.deepEqual(failures, []);
});
