/**
 * Conformance with @supabase/postgrest-js: the same query through both
 * clients into recording fetches; method, decoded query pairs, the headers
 * that matter (Accept, Prefer as a set, profiles, Content-Type) and the JSON
 * body must match. Deliberate differences are listed in docs/CONFORMANCE.md.
 */
import assert from "node:assert/strict";
import { documentedCount } from "../support/conformance_doc.ts";
import { PostgrestClient } from "@supabase/postgrest-js";
import { column, type DatabaseClient } from "../../database/mod.ts";
import { jsonResponse, recordingFetch } from "../support/recording_fetch.ts";
import { BASE, KEY, makeDb, shape } from "./_helpers.ts";

// deno-lint-ignore no-explicit-any
type Theirs = (c: any) => PromiseLike<unknown>;
type Ours = (db: DatabaseClient) => Promise<unknown>;

function theirsClient(schema?: string) {
  const rec = recordingFetch(() => jsonResponse([]));
  const client = new PostgrestClient(`${BASE}/rest/v1`, {
    headers: { apikey: KEY, Authorization: `Bearer ${KEY}` },
    fetch: rec.fetch,
    ...(schema ? { schema } : {}),
  });
  return { client, rec };
}

const id = column<number>("id");
const title = column<string>("title");
const done = column<boolean>("done");
const tags = column<string[]>("tags");
const during = column<string>("during");
const name = column<string>("name");

const cases: Array<[string, Theirs, Ours, string?]> = [
  ["select all", (c) => c.from("todos").select(), (db) => db.select("todos")],
  [
    "select columns",
    (c) => c.from("todos").select("id,title"),
    (db) => db.select("todos", { columns: "id,title" }),
  ],
  [
    "select with whitespace",
    (c) => c.from("todos").select("id, title"),
    (db) => db.select("todos", { columns: "id, title" }),
  ],
  [
    "embedded resource",
    (c) => c.from("todos").select("id,owner:users(name,email)"),
    (db) => db.select("todos", { columns: "id,owner:users(name,email)" }),
  ],
  [
    "eq",
    (c) => c.from("todos").select().eq("id", 1),
    (db) => db.select("todos", { block: (q) => q.where((w) => w.eq(id, 1)) }),
  ],
  [
    "Temporal values as operands (their text, as postgrest-js writes them)",
    (c) =>
      c.from("todos").select().gte("at", Temporal.Instant.from("2026-11-28T12:30:00Z"))
        .in("day", [Temporal.PlainDate.from("2026-11-28"), Temporal.PlainDate.from("2026-11-29")]),
    (db) =>
      db.select("todos", {
        block: (q) =>
          q.where((w) =>
            w.greaterEq(
              column<Temporal.Instant>("at"),
              Temporal.Instant.from("2026-11-28T12:30:00Z"),
            )
              .inList(column<Temporal.PlainDate>("day"), [
                Temporal.PlainDate.from("2026-11-28"),
                Temporal.PlainDate.from("2026-11-29"),
              ])
          ),
      }),
  ],
  [
    "names with inner spaces, unquoted as postgrest-js sends them",
    (c) =>
      c.from("t").select().eq("first name", "Ada").order("last  name", { ascending: false })
        .gte("data->>some key", 1),
    (db) =>
      db.select("t", {
        block: (q) =>
          q.where((w) =>
            w.eq(column("first name"), "Ada").greaterEq(column<number>("data->>some key"), 1)
          )
            .orderBy(column("last  name"), { order: "desc" }),
      }),
  ],
  [
    "neq",
    (c) => c.from("t").select().neq("title", "a"),
    (db) => db.select("t", { block: (q) => q.where((w) => w.neq(title, "a")) }),
  ],
  [
    "gt",
    (c) => c.from("t").select().gt("id", 2),
    (db) => db.select("t", { block: (q) => q.where((w) => w.greater(id, 2)) }),
  ],
  [
    "gte",
    (c) => c.from("t").select().gte("id", 2),
    (db) => db.select("t", { block: (q) => q.where((w) => w.greaterEq(id, 2)) }),
  ],
  [
    "lt",
    (c) => c.from("t").select().lt("id", 2),
    (db) => db.select("t", { block: (q) => q.where((w) => w.less(id, 2)) }),
  ],
  [
    "lte",
    (c) => c.from("t").select().lte("id", 2),
    (db) => db.select("t", { block: (q) => q.where((w) => w.lessEq(id, 2)) }),
  ],
  [
    "like",
    (c) => c.from("t").select().like("title", "%a%"),
    (db) => db.select("t", { block: (q) => q.where((w) => w.like(title, "%a%")) }),
  ],
  [
    "ilike",
    (c) => c.from("t").select().ilike("title", "%A%"),
    (db) => db.select("t", { block: (q) => q.where((w) => w.ilike(title, "%A%")) }),
  ],
  [
    "likeAllOf",
    (c) => c.from("t").select().likeAllOf("title", ["%a%", "%b%"]),
    (db) => db.select("t", { block: (q) => q.where((w) => w.likeAllOf(title, ["%a%", "%b%"])) }),
  ],
  [
    "likeAnyOf",
    (c) => c.from("t").select().likeAnyOf("title", ["%a%"]),
    (db) => db.select("t", { block: (q) => q.where((w) => w.likeAnyOf(title, ["%a%"])) }),
  ],
  [
    "ilikeAllOf",
    (c) => c.from("t").select().ilikeAllOf("title", ["%a%"]),
    (db) => db.select("t", { block: (q) => q.where((w) => w.ilikeAllOf(title, ["%a%"])) }),
  ],
  [
    "ilikeAnyOf",
    (c) => c.from("t").select().ilikeAnyOf("title", ["%a%", "b"]),
    (db) => db.select("t", { block: (q) => q.where((w) => w.ilikeAnyOf(title, ["%a%", "b"])) }),
  ],
  [
    "match",
    (c) => c.from("t").select().match({ id: 1 }),
    (db) => db.select("t", { block: (q) => q.where((w) => w.eq(id, 1)) }),
  ],
  [
    "regex",
    (c) => c.from("t").select().regexMatch("title", "^a"),
    (db) => db.select("t", { block: (q) => q.where((w) => w.matches(title, "^a")) }),
  ],
  [
    "iregex",
    (c) => c.from("t").select().regexIMatch("title", "^a"),
    (db) => db.select("t", { block: (q) => q.where((w) => w.imatches(title, "^a")) }),
  ],
  [
    "is null",
    (c) => c.from("t").select().is("title", null),
    (db) => db.select("t", { block: (q) => q.where((w) => w.isNull(title)) }),
  ],
  [
    "is true",
    (c) => c.from("t").select().is("done", true),
    (db) => db.select("t", { block: (q) => q.where((w) => w.isExactly(done, true)) }),
  ],
  [
    "not is null",
    (c) => c.from("t").select().not("title", "is", null),
    (db) => db.select("t", { block: (q) => q.where((w) => w.isNotNull(title)) }),
  ],
  [
    "isDistinct",
    (c) => c.from("t").select().isDistinct("title", "a"),
    (db) => db.select("t", { block: (q) => q.where((w) => w.isDistinctFrom(title, "a")) }),
  ],
  [
    "in",
    (c) => c.from("t").select().in("id", [1, 2, 3]),
    (db) => db.select("t", { block: (q) => q.where((w) => w.inList(id, [1, 2, 3])) }),
  ],
  [
    "in with commas",
    (c) => c.from("t").select().in("title", ["a,b", "c"]),
    (db) => db.select("t", { block: (q) => q.where((w) => w.inList(title, ["a,b", "c"])) }),
  ],
  [
    "not in",
    (c) => c.from("t").select().not("id", "in", "(1,2)"),
    (db) => db.select("t", { block: (q) => q.where((w) => w.notInList(id, [1, 2])) }),
  ],
  [
    "contains array",
    (c) => c.from("t").select().contains("tags", ["a", "b"]),
    (db) => db.select("t", { block: (q) => q.where((w) => w.contains(tags, ["a", "b"])) }),
  ],
  [
    "contains json",
    (c) => c.from("t").select().contains("meta", { a: 1 }),
    (db) => db.select("t", { block: (q) => q.where((w) => w.contains(column("meta"), { a: 1 })) }),
  ],
  [
    "containedBy",
    (c) => c.from("t").select().containedBy("tags", ["a"]),
    (db) => db.select("t", { block: (q) => q.where((w) => w.containedBy(tags, ["a"])) }),
  ],
  [
    "overlaps",
    (c) => c.from("t").select().overlaps("tags", ["a", "b"]),
    (db) => db.select("t", { block: (q) => q.where((w) => w.overlaps(tags, ["a", "b"])) }),
  ],
  [
    "rangeGt",
    (c) => c.from("t").select().rangeGt("during", "[1,2]"),
    (db) => db.select("t", { block: (q) => q.where((w) => w.rangeGt(during, "[1,2]")) }),
  ],
  [
    "rangeGte",
    (c) => c.from("t").select().rangeGte("during", "[1,2]"),
    (db) => db.select("t", { block: (q) => q.where((w) => w.rangeGte(during, "[1,2]")) }),
  ],
  [
    "rangeLt",
    (c) => c.from("t").select().rangeLt("during", "[1,2]"),
    (db) => db.select("t", { block: (q) => q.where((w) => w.rangeLt(during, "[1,2]")) }),
  ],
  [
    "rangeLte",
    (c) => c.from("t").select().rangeLte("during", "[1,2]"),
    (db) => db.select("t", { block: (q) => q.where((w) => w.rangeLte(during, "[1,2]")) }),
  ],
  [
    "rangeAdjacent",
    (c) => c.from("t").select().rangeAdjacent("during", "[1,2]"),
    (db) => db.select("t", { block: (q) => q.where((w) => w.rangeAdjacent(during, "[1,2]")) }),
  ],
  [
    "textSearch plain",
    (c) => c.from("t").select().textSearch("title", "fat cat", { type: "plain" }),
    (db) => db.select("t", { block: (q) => q.where((w) => w.textSearch(title, "fat cat")) }),
  ],
  [
    "textSearch websearch config",
    (c) =>
      c.from("t").select().textSearch("title", "fat cat", { type: "websearch", config: "english" }),
    (db) =>
      db.select("t", {
        block: (q) =>
          q.where((w) => w.textSearch(title, "fat cat", { type: "wfts", config: "english" })),
      }),
  ],
  [
    "textSearch phrase",
    (c) => c.from("t").select().textSearch("title", "a b", { type: "phrase" }),
    (db) =>
      db.select("t", {
        block: (q) => q.where((w) => w.textSearch(title, "a b", { type: "phfts" })),
      }),
  ],
  [
    "or",
    (c) => c.from("t").select().or("id.eq.1,title.eq.a"),
    (db) =>
      db.select("t", { block: (q) => q.where((w) => w.or((o) => o.eq(id, 1).eq(title, "a"))) }),
  ],
  [
    "nested or/and",
    (c) => c.from("t").select().or("id.gt.1,and(title.eq.a,done.is.true)"),
    (db) =>
      db.select("t", {
        block: (q) =>
          q.where((w) =>
            w.or((o) => o.greater(id, 1).and((a) => a.eq(title, "a").isExactly(done, true)))
          ),
      }),
  ],
  [
    "or on referenced table",
    (c) =>
      c.from("t").select("id,users(name)").or("name.eq.a,name.eq.b", { referencedTable: "users" }),
    (db) =>
      db.select("t", {
        columns: "id,users(name)",
        block: (q) =>
          q.where((w) => w.or((o) => o.eq(name, "a").eq(name, "b"), { referencedTable: "users" })),
      }),
  ],
  [
    "filter on embedded column",
    (c) => c.from("t").select("id,users!inner(name)").eq("users.name", "a"),
    (db) =>
      db.select("t", {
        columns: "id,users!inner(name)",
        block: (q) => q.where((w) => w.eq(column("users.name"), "a")),
      }),
  ],
  [
    "not eq",
    (c) => c.from("t").select().not("id", "eq", 1),
    (db) => db.select("t", { block: (q) => q.where((w) => w.not((n) => n.eq(id, 1))) }),
  ],
  [
    "order asc",
    (c) => c.from("t").select().order("id"),
    (db) => db.select("t", { block: (q) => q.orderBy(id) }),
  ],
  [
    "order desc nulls first",
    (c) => c.from("t").select().order("id", { ascending: false, nullsFirst: true }),
    (db) => db.select("t", { block: (q) => q.orderBy(id, { order: "desc", nulls: "nullsfirst" }) }),
  ],
  [
    "order two keys",
    (c) => c.from("t").select().order("done").order("id", { ascending: false, nullsFirst: false }),
    (db) =>
      db.select("t", {
        block: (q) => q.orderBy(done).orderBy(id, { order: "desc", nulls: "nullslast" }),
      }),
  ],
  [
    "order referenced table",
    (c) => c.from("t").select("id,users(name)").order("name", { referencedTable: "users" }),
    (db) =>
      db.select("t", {
        columns: "id,users(name)",
        block: (q) => q.orderBy(name, { referencedTable: "users" }),
      }),
  ],
  [
    "order by a to-one embed's column",
    (c) =>
      c.from("t").select("id,author(name)").order("author(name)", {
        ascending: false,
        nullsFirst: false,
      }),
    (db) =>
      db.select("t", {
        columns: "id,author(name)",
        block: (q) => q.orderBy(column("author(name)"), { order: "desc", nulls: "nullslast" }),
      }),
  ],
  [
    "limit",
    (c) => c.from("t").select().limit(5),
    (db) => db.select("t", { block: (q) => q.limit(5) }),
  ],
  [
    "limit referenced",
    (c) => c.from("t").select("id,users(name)").limit(2, { referencedTable: "users" }),
    (db) =>
      db.select("t", {
        columns: "id,users(name)",
        block: (q) => q.limit(2, { referencedTable: "users" }),
      }),
  ],
  [
    "range",
    (c) => c.from("t").select().range(10, 19),
    (db) => db.select("t", { block: (q) => q.range(10, 19) }),
  ],
  [
    "count exact",
    (c) => c.from("t").select("*", { count: "exact" }),
    (db) => db.select("t", { count: "exact" }),
  ],
  [
    "count planned head",
    (c) => c.from("t").select("*", { count: "planned", head: true }),
    (db) => db.select("t", { count: "planned", format: "HEAD" }),
  ],
  ["single", (c) => c.from("t").select().single(), (db) => db.select("t", { format: "SINGLE" })],
  ["csv", (c) => c.from("t").select().csv(), (db) => db.select("t", { format: "CSV" })],
  ["geojson", (c) => c.from("t").select().geojson(), (db) => db.select("t", { format: "GEOJSON" })],
  [
    "stripNulls",
    (c) => c.from("t").select().stripNulls(),
    (db) => db.select("t", { stripNulls: true }),
  ],
  [
    "explain analyze json",
    (c) => c.from("t").select().explain({ analyze: true, format: "json" }),
    (db) => db.select("t", { explain: { analyze: true, format: "json" } }),
  ],
  [
    "explain verbose text",
    (c) => c.from("t").select().explain({ verbose: true, settings: true }),
    (db) => db.select("t", { explain: { verbose: true, settings: true } }),
  ],
  [
    "schema on read",
    (c) => c.schema("app").from("t").select(),
    (db) => db.select("t", { schema: "app" }),
  ],
  [
    "insert one returning",
    (c) => c.from("t").insert({ title: "a" }).select(),
    (db) => db.insert("t", '{"title":"a"}'),
  ],
  [
    "insert many returning",
    (c) => c.from("t").insert([{ a: 1 }, { b: 2 }]).select(),
    (db) => db.insert("t", '[{"a":1},{"b":2}]'),
  ],
  [
    "insert minimal with count",
    (c) => c.from("t").insert({ a: 1 }, { count: "exact" }),
    (db) => db.insert("t", '{"a":1}', { returning: "minimal", count: "exact" }),
  ],
  [
    "insert defaultToNull false",
    (c) => c.from("t").insert([{ a: 1 }], { defaultToNull: false }).select(),
    (db) => db.insert("t", '[{"a":1}]', { defaultToNull: false }),
  ],
  [
    "upsert merge",
    (c) => c.from("t").upsert({ id: 1 }).select(),
    (db) => db.insert("t", '{"id":1}', { upsert: true }),
  ],
  [
    "upsert ignore on_conflict",
    (c) => c.from("t").upsert({ id: 1 }, { onConflict: "id", ignoreDuplicates: true }).select(),
    (db) =>
      db.insert("t", '{"id":1}', {
        upsert: true,
        onConflict: "id",
        upsertResolution: "ignore-duplicates",
      }),
  ],
  [
    "insert schema",
    (c) => c.schema("app").from("t").insert({ a: 1 }).select(),
    (db) => db.insert("t", '{"a":1}', { schema: "app" }),
  ],
  [
    "update",
    (c) => c.from("t").update({ done: true }).eq("id", 1).select(),
    (db) => db.update("t", '{"done":true}', (w) => w.eq(id, 1)),
  ],
  [
    "update minimal count",
    (c) => c.from("t").update({ done: true }, { count: "exact" }).eq("id", 1),
    (db) =>
      db.update("t", '{"done":true}', (w) => w.eq(id, 1), { returning: "minimal", count: "exact" }),
  ],
  [
    "update maxAffected",
    (c) => c.from("t").update({ done: true }).eq("id", 1).maxAffected(3),
    (db) =>
      db.update("t", '{"done":true}', (w) => w.eq(id, 1), { returning: "minimal", maxAffected: 3 }),
  ],
  [
    "update rollback",
    (c) => c.from("t").update({ a: 1 }).eq("id", 1).rollback(),
    (db) => db.update("t", '{"a":1}', (w) => w.eq(id, 1), { returning: "minimal", rollback: true }),
  ],
  [
    "delete",
    (c) => c.from("t").delete().in("id", [1, 2]).select(),
    (db) => db.delete("t", (w) => w.inList(id, [1, 2])),
  ],
  [
    "delete minimal count",
    (c) => c.from("t").delete({ count: "exact" }).eq("id", 1),
    (db) => db.delete("t", (w) => w.eq(id, 1), { returning: "minimal", count: "exact" }),
  ],
  [
    "delete schema",
    (c) => c.schema("app").from("t").delete().eq("id", 1),
    (db) => db.delete("t", (w) => w.eq(id, 1), { schema: "app", returning: "minimal" }),
  ],
  [
    "rpc POST",
    (c) => c.rpc("add", { a: 1, b: 2 }),
    (db) => db.rpc("add", { params: '{"a":1,"b":2}' }),
  ],
  ["rpc POST no args", (c) => c.rpc("now"), (db) => db.rpc("now")],
  [
    "rpc POST with filter and order",
    (c) => c.rpc("list", { n: 1 }).gt("id", 2).order("id").limit(3),
    (db) =>
      db.rpc("list", {
        params: '{"n":1}',
        block: (q) => q.where((w) => w.greater(id, 2)).orderBy(id).limit(3),
      }),
  ],
  [
    "rpc POST count",
    (c) => c.rpc("list", {}, { count: "exact" }),
    (db) => db.rpc("list", { params: "{}", count: "exact" }),
  ],
  [
    "rpc POST single",
    (c) => c.rpc("one", { x: 1 }).single(),
    (db) => db.rpc("one", { params: '{"x":1}', format: "SINGLE" }),
  ],
  [
    "rpc schema",
    (c) => c.schema("api").rpc("f", { x: 1 }),
    (db) => db.rpc("f", { params: '{"x":1}', schema: "api" }),
  ],
  [
    "rpc GET",
    (c) => c.rpc("add", { a: 1, b: 2 }, { get: true }),
    (db) => db.rpcGet("add", { queryParams: { a: "1", b: "2" } }),
  ],
  [
    "rpc GET with filter",
    (c) => c.rpc("list", { n: 5 }, { get: true }).eq("id", 1),
    (db) =>
      db.rpcGet("list", { queryParams: [["n", "5"]], block: (q) => q.where((w) => w.eq(id, 1)) }),
  ],
  [
    "rpc GET schema",
    (c) => c.schema("api").rpc("f", {}, { get: true }),
    (db) => db.rpcGet("f", { schema: "api" }),
  ],
  [
    "rpc HEAD count",
    (c) => c.rpc("list", { n: 1 }, { head: true, count: "exact" }),
    (db) => db.rpc("list", { params: '{"n":1}', format: "HEAD", count: "exact" }),
  ],
];

Deno.test(`conformance with @supabase/postgrest-js: ${cases.length} equivalent queries`, async () => {
  assert.equal(await documentedCount("Database"), cases.length, "docs/CONFORMANCE.md");
  assert.ok(cases.length >= 60, `at least 60 cases, have ${cases.length}`);
  const failures: string[] = [];
  for (const [label, theirs, ours] of cases) {
    const them = theirsClient();
    await theirs(them.client);
    const us = makeDb(() => jsonResponse([]));
    await ours(us.db);
    try {
      assert.deepEqual(shape(us.rec.only), shape(them.rec.only), label);
    } catch (e) {
      failures.push(`${label}: ${(e as Error).message}`);
    }
  }
  assert.deepEqual(failures, []);
});
