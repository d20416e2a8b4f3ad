import assert from "node:assert/strict";
import fc from "fast-check";
import {
  column,
  deleteTyped,
  deleteUnit,
  insertTyped,
  insertTypedMany,
  insertUnit,
  insertUnitTyped,
  paginator,
  type QueryBuilder,
  rpcCsv,
  rpcGetCsv,
  rpcGetHead,
  rpcGetListTyped,
  rpcGetMaybeSingleTyped,
  rpcGetSingleTyped,
  rpcGetTyped,
  rpcGetUnit,
  rpcHead,
  rpcListTyped,
  rpcMaybeSingleTyped,
  rpcSingleTyped,
  rpcTyped,
  rpcUnit,
  selectCsv,
  selectGeoJson,
  selectHead,
  selectMaybeSingleTyped,
  selectSingleTyped,
  selectTyped,
  selectTypedOrThrow,
  selectWithCountTyped,
  type StandardSchemaV1,
  updateTyped,
  updateUnit,
  updateUnitTyped,
  upsertTyped,
  upsertTypedMany,
} from "../../database/mod.ts";
import { ServiceException } from "../../core/result.ts";
import { jsonResponse } from "../support/recording_fetch.ts";
import { assertInvalid, makeDb, pairs } from "./_helpers.ts";

interface Todo {
  id: number;
  title: string;
}
const id = column<number>("id");
const noRows = () =>
  jsonResponse({
    code: "PGRST116",
    details: "The result contains 0 rows",
    hint: null,
    message: "JSON object requested, multiple (or no) rows returned",
  }, {
    status: 406,
  });
const manyRows = () =>
  jsonResponse({
    code: "PGRST116",
    details: "The result contains 2 rows",
    hint: null,
    message: "JSON object requested, multiple (or no) rows returned",
  }, {
    status: 406,
  });

const schema: StandardSchemaV1<Todo> = {
  "~standard": {
    version: 1,
    vendor: "test",
    validate: (v) =>
      typeof (v as Todo)?.id === "number"
        ? { value: v as Todo }
        : { issues: [{ message: "id must be a number" }] },
  },
};

Deno.test("selectTyped decodes rows; validators (Standard Schema or function) turn bad rows into DECODE", async () => {
  const { db } = makeDb([
    jsonResponse([{ id: 1, title: "a" }]),
    jsonResponse([{ id: "x" }]),
    jsonResponse([{ id: 2 }]),
    jsonResponse({}),
  ]);
  assert.deepEqual((await selectTyped<Todo>(db, "todos", { validator: schema })).getOrThrow(), [{
    id: 1,
    title: "a",
  }]);
  const bad = await selectTyped<Todo>(db, "todos", { validator: schema });
  assert.equal(bad.errorOrNull()?.category, "DECODE");
  assert.match(bad.errorOrNull()!.message, /id must be a number/);
  const fn = await selectTyped<Todo>(db, "todos", {
    validator: (v) => {
      throw new Error(`nope ${JSON.stringify(v)}`);
    },
  });
  assert.match(fn.errorOrNull()!.message, /nope/);
  assert.equal(
    (await selectTyped(db, "todos")).errorOrNull()?.category,
    "DECODE",
    "an object is not rows",
  );
});

Deno.test("selectTypedOrThrow throws ServiceException", async () => {
  const { db } = makeDb(() => jsonResponse({ message: "denied" }, { status: 403 }));
  await assert.rejects(() => selectTypedOrThrow(db, "todos"), ServiceException);
});

Deno.test("single: SINGLE Accept, 406 is NOT_FOUND; maybe-single: 0 rows → null, 2 rows fail", async () => {
  const { db, rec } = makeDb([jsonResponse({ id: 1, title: "a" }), noRows(), noRows(), manyRows()]);
  assert.deepEqual((await selectSingleTyped<Todo>(db, "todos")).getOrThrow(), {
    id: 1,
    title: "a",
  });
  assert.equal(rec.last.headers.get("accept"), "application/vnd.pgrst.object+json");
  assert.equal((await selectSingleTyped<Todo>(db, "todos")).errorOrNull()?.category, "NOT_FOUND");
  assert.equal((await selectMaybeSingleTyped<Todo>(db, "todos")).getOrThrow(), null);
  const many = await selectMaybeSingleTyped<Todo>(db, "todos");
  assert.equal(many.errorOrNull()?.status, 406);
});

Deno.test("selectWithCountTyped, selectGeoJson, selectCsv, selectHead", async () => {
  const { db, rec } = makeDb([
    jsonResponse([{ id: 1 }], { headers: { "content-range": "0-0/9" } }),
    new Response('{"type":"FeatureCollection"}'),
    new Response("id\n1"),
    new Response(null),
  ]);
  const page = (await selectWithCountTyped<Todo>(db, "todos", { block: (q) => q.range(0, 0) }))
    .getOrThrow();
  assert.deepEqual(page, { rows: [{ id: 1 }], count: 9, range: { from: 0, to: 0 } });
  assert.equal(rec.requests[0].headers.get("prefer"), "count=exact");
  assert.equal((await selectGeoJson(db, "places")).getOrThrow(), '{"type":"FeatureCollection"}');
  assert.equal(rec.requests[1].headers.get("accept"), "application/geo+json");
  assert.equal((await selectCsv(db, "todos")).getOrThrow(), "id\n1");
  assert.equal(rec.requests[2].headers.get("accept"), "text/csv");
  assert.equal((await selectHead(db, "todos", { count: "exact" })).ok, true);
  assert.equal(rec.requests[3].method, "HEAD");
});

Deno.test("insert/upsert family: bodies, representation, union of keys, minimal", async () => {
  const { db, rec } = makeDb(() => jsonResponse([{ id: 1, title: "a" }], { status: 201 }));
  assert.deepEqual((await insertTyped(db, "todos", { title: "a" })).getOrThrow(), [{
    id: 1,
    title: "a",
  }]);
  assert.equal(rec.last.headers.get("prefer"), "return=representation");
  await insertTypedMany(db, "todos", [{ title: "a" }, { title: "b", done: true }]);
  assert.equal(rec.last.url.searchParams.get("columns"), '"title","done"');
  await upsertTyped(db, "todos", { id: 1 }, { onConflict: "id" });
  assert.equal(rec.last.headers.get("prefer"), "return=representation,resolution=merge-duplicates");
  assert.equal(rec.last.url.searchParams.get("on_conflict"), "id");
  await upsertTypedMany(db, "todos", [{ id: 1 }], { upsertResolution: "ignore-duplicates" });
  assert.equal(
    rec.last.headers.get("prefer"),
    "return=representation,resolution=ignore-duplicates",
  );
  assert.equal(
    (await insertUnit(db, "todos", '{"a":1}', { count: "exact" })).getOrThrow(),
    undefined,
  );
  assert.equal(rec.last.headers.get("prefer"), "return=minimal,count=exact");
  await insertUnitTyped(db, "todos", { a: 2 });
  assert.equal(rec.last.text, '{"a":2}');
  await assertInvalid(insertTyped(db, "todos", undefined as never), /value is undefined/);
  await assertInvalid(insertTypedMany(db, "todos", {} as never), /'values' must be an array/);
});

Deno.test("bigint values are written as exact JSON integers in typed writes, RPC bodies and filters", async () => {
  const { db, rec } = makeDb(() => jsonResponse([{ id: 1 }], { status: 201 }));
  const big = 9007199254740993n; // 2^53 + 1: a number would round it
  assert.ok((await insertTyped(db, "t", { id: big, name: "a" })).ok);
  assert.equal(rec.last.text, '{"id":9007199254740993,"name":"a"}');
  await insertTypedMany(db, "t", [{ id: big }, { id: 2n }]);
  assert.equal(rec.last.text, '[{"id":9007199254740993},{"id":2}]');
  await updateTyped(db, "t", { owner: big, note: null }, (w) => w.eq(column("id"), 1));
  assert.equal(rec.last.text, '{"owner":9007199254740993}');
  await rpcTyped(db, "f", { params: { id: big, tags: ["x"] } });
  assert.equal(rec.last.text, '{"id":9007199254740993,"tags":["x"]}');
  await db.rpc("f", { params: { id: big } as unknown as string });
  assert.equal(rec.last.text, '{"id":9007199254740993}');
  await db.select("t", { block: (q) => q.where((w) => w.contains(column("data"), { id: big })) });
  assert.equal(rec.last.url.searchParams.get("data"), 'cs.{"id":9007199254740993}');
  // A string that looks like the internal marker stays a string.
  await insertTyped(db, "t", { id: big, note: "\u0000int64:x:1" });
  assert.equal(rec.last.text, '{"id":9007199254740993,"note":"\\u0000int64:x:1"}');
});

Deno.test("update family omits null fields; delete family returns rows or nothing", async () => {
  const { db, rec } = makeDb(() => jsonResponse([{ id: 7, title: "t" }]));
  await updateTyped<Todo & { note: string | null }>(
    db,
    "todos",
    { title: "t", note: null },
    (w) => w.eq(id, 7),
  );
  assert.equal(rec.last.method, "PATCH");
  assert.equal(rec.last.text, '{"title":"t"}');
  assert.deepEqual(pairs(rec.last.url), [["select", "*"], ["id", "eq.7"]]);
  await updateUnit(db, "todos", '{"note":null}', (w) => w.eq(id, 7));
  assert.equal(rec.last.text, '{"note":null}');
  assert.equal(rec.last.headers.get("prefer"), "return=minimal");
  await updateUnitTyped(db, "todos", { title: "x", note: null }, null);
  assert.equal(rec.last.text, '{"title":"x"}');
  assert.deepEqual((await deleteTyped<Todo>(db, "todos", (w) => w.eq(id, 7))).getOrThrow(), [{
    id: 7,
    title: "t",
  }]);
  assert.equal(rec.last.method, "DELETE");
  assert.equal((await deleteUnit(db, "todos", null)).ok, true);
  assert.equal(rec.last.headers.get("prefer"), "return=minimal");
  await assertInvalid(
    updateTyped(db, "todos", null as unknown as Todo, null),
    /'value' must be an object/,
  );
});

Deno.test("rpc family: params object or string, list/single/maybe-single/unit/csv/head", async () => {
  const { db, rec } = makeDb([
    new Response("3"),
    jsonResponse([{ id: 1 }]),
    jsonResponse({ id: 1 }),
    jsonResponse([]),
    jsonResponse([{ id: 1 }, { id: 2 }]),
    jsonResponse([{ id: 7 }]),
    new Response(""),
    new Response("id\n1"),
    new Response(null),
  ]);
  assert.equal((await rpcTyped<number>(db, "add", { params: { a: 1, b: 2 } })).getOrThrow(), 3);
  assert.deepEqual(rec.last.json(), { a: 1, b: 2 });
  assert.deepEqual((await rpcListTyped<Todo>(db, "list", { params: '{"n":1}' })).getOrThrow(), [{
    id: 1,
  }]);
  assert.equal(rec.last.text, '{"n":1}');
  assert.deepEqual((await rpcSingleTyped<Todo>(db, "one")).getOrThrow(), { id: 1 });
  assert.equal(rec.last.headers.get("accept"), "application/vnd.pgrst.object+json");
  // Maybe-single asks for rows and counts them: a single-object request would make PostgREST
  // roll back the function's writes when it returns no row.
  assert.equal((await rpcMaybeSingleTyped<Todo>(db, "one")).getOrThrow(), null);
  assert.notEqual(rec.last.headers.get("accept"), "application/vnd.pgrst.object+json");
  const many = await rpcMaybeSingleTyped<Todo>(db, "one");
  assert.equal(many.errorOrNull()?.code, "PGRST116");
  assert.equal(many.errorOrNull()?.category, "NOT_FOUND");
  assert.deepEqual((await rpcMaybeSingleTyped<Todo>(db, "one")).getOrThrow(), { id: 7 });
  assert.equal((await rpcUnit(db, "touch")).ok, true);
  assert.equal((await rpcCsv(db, "report")).getOrThrow(), "id\n1");
  assert.equal(rec.last.headers.get("accept"), "text/csv");
  await rpcHead(db, "search", { params: { q: "milk", opt: null }, count: "exact" });
  assert.equal(rec.last.method, "HEAD");
  assert.deepEqual(pairs(rec.last.url), [["q", "milk"]]);
  assert.equal(rec.last.headers.get("prefer"), "count=exact");
});

Deno.test("rpcGet family: object params flattened (objects and arrays as JSON text, as the document says; nulls omitted)", async () => {
  const { db, rec } = makeDb([
    new Response("5"),
    jsonResponse([{ id: 1 }]),
    jsonResponse({ id: 1 }),
    noRows(),
    new Response(""),
    new Response("a\n1"),
    new Response(null),
  ]);
  assert.equal(
    (await rpcGetTyped<number>(db, "f", {
      params: {
        a: 1,
        b: null,
        c: [1, 2],
        d: { x: "y" },
        e: "s p",
        f: ["a b", null, "x,y"],
        g: [{ k: 1 }],
        h: "{1,2}",
      },
    })).getOrThrow(),
    5,
  );
  assert.equal(rec.last.method, "GET");
  assert.deepEqual(pairs(rec.last.url), [
    ["a", "1"],
    ["c", "[1,2]"], // the document: arrays re-encoded as JSON strings
    ["d", '{"x":"y"}'],
    ["e", "s p"],
    ["f", '["a b",null,"x,y"]'],
    ["g", '[{"k":1}]'],
    ["h", "{1,2}"], // a Postgres array parameter's literal, as given
  ]);
  await rpcGetListTyped(db, "f", { queryParams: { n: "5" } });
  assert.deepEqual(pairs(rec.last.url), [["n", "5"]]);
  assert.deepEqual((await rpcGetSingleTyped(db, "f")).getOrThrow(), { id: 1 });
  assert.equal((await rpcGetMaybeSingleTyped(db, "f")).getOrThrow(), null);
  assert.equal((await rpcGetUnit(db, "f")).ok, true);
  assert.equal((await rpcGetCsv(db, "f")).getOrThrow(), "a\n1");
  await rpcGetHead(db, "f", { count: "planned" });
  assert.equal(rec.last.method, "HEAD");
  assert.equal(rec.last.headers.get("prefer"), "count=planned");
});

Deno.test("paginator: nothing before loadNext, range windows per page, end on the first empty page", async () => {
  const data = Array.from({ length: 5 }, (_, i) => ({ id: i + 1 }));
  const { db, rec } = makeDb((req) => {
    const offset = Number(req.url.searchParams.get("offset") ?? 0);
    const limit = Number(req.url.searchParams.get("limit"));
    return jsonResponse(data.slice(offset, offset + limit));
  });
  const p = paginator<{ id: number }>(db, "todos", { pageSize: 2, block: (q) => q.orderBy(id) });
  assert.equal(rec.requests.length, 0);
  await p.loadNext();
  await p.loadNext();
  await p.loadNext();
  // A short page may be the server's cap (db-max-rows), not the end: one more page says.
  assert.equal(p.isEnd.value, false);
  await p.loadNext();
  assert.equal(p.isEnd.value, true);
  assert.deepEqual(p.items.value.map((r) => r.id), [1, 2, 3, 4, 5]);
  assert.deepEqual(
    rec.requests.map((r) => [r.url.searchParams.get("offset"), r.url.searchParams.get("limit")]),
    [
      ["0", "2"],
      ["2", "2"],
      ["4", "2"],
      ["5", "2"],
    ],
  );
  assert.equal(rec.requests[0].url.searchParams.get("order"), "id.asc");
  const fresh = makeDb();
  assert.equal(paginator(fresh.db, "t").items.value.length, 0);
  assert.throws(() => paginator(db, "t", { pageSize: 0 }), RangeError);
  assert.throws(() => paginator(db, "t", { block: (q) => q.limit(3) }), TypeError);
  assert.throws(() => paginator(db, "t", { block: (q) => q.range(0, 3) }), TypeError);
});

Deno.test("paginator: a server capping rows (db-max-rows) does not end it early", async () => {
  const data = Array.from({ length: 25 }, (_, i) => ({ id: i + 1 }));
  const { db } = makeDb((req) => {
    const offset = Number(req.url.searchParams.get("offset") ?? 0);
    const limit = Math.min(10, Number(req.url.searchParams.get("limit"))); // max-rows 10
    return jsonResponse(data.slice(offset, offset + limit));
  });
  const p = paginator<{ id: number }>(db, "todos", { pageSize: 50 });
  while (!p.isEnd.value) assert.ok((await p.loadNext()).ok);
  assert.deepEqual(p.items.value.map((r) => r.id), data.map((r) => r.id));
});

Deno.test("paginator: a failure lands in error", async () => {
  const { db } = makeDb(() => jsonResponse({ message: "down" }, { status: 500 }));
  const p = paginator(db, "t");
  await p.loadNext();
  assert.equal(p.error.value?.category, "SERVER");
});

Deno.test("a validator that is both callable and a Standard Schema (arktype) is used as a Standard Schema", async () => {
  const issues = [{ message: "id must be a number (was a string)" }];
  // arktype's shape: calling it returns an error object instead of throwing.
  const ark = Object.assign((_v: unknown) => ({ summary: "errors" }), {
    "~standard": {
      version: 1 as const,
      vendor: "arktype",
      validate: (v: unknown) =>
        typeof (v as { id?: unknown }).id === "number"
          ? { value: v as { id: number } }
          : { issues },
    },
  });
  const { db } = makeDb([jsonResponse([{ id: "x" }]), jsonResponse([{ id: 1 }])]);
  const bad = await selectTyped(db, "todos", { validator: ark });
  assert.equal(bad.errorOrNull()?.category, "DECODE");
  assert.match(bad.errorOrNull()!.message, /id must be a number/);
  assert.deepEqual((await selectTyped(db, "todos", { validator: ark })).getOrThrow(), [{ id: 1 }]);
});

Deno.test("selectWithCountTyped resolves INVALID_ARGUMENT for a malformed request, with no request; the range Limit still throws", async () => {
  const { db, rec } = makeDb();
  await assertInvalid(selectWithCountTyped(db, ""), /blank|table/i, "blank table");
  await assertInvalid(
    selectWithCountTyped(db, "todos", { block: (q) => q.limit(-1) }),
    /limit/,
    "limit(-1)",
  );
  assert.equal(rec.requests.length, 0);
  assert.throws(
    () => selectWithCountTyped(db, "todos", { block: (q) => q.range(-1, 4) }),
    RangeError,
  );
  assert.equal(rec.requests.length, 0);
});

Deno.test("single-row reads: PostgREST's 406 for zero or several rows is NOT_FOUND; maybe-single maps only zero rows to null; other failures propagate", async () => {
  const boom = () => jsonResponse({ message: "boom" }, { status: 500 });
  const { db } = makeDb([
    noRows(),
    manyRows(),
    noRows(),
    manyRows(),
    manyRows(),
    noRows(),
    manyRows(),
    boom(),
    boom(),
  ]);
  for (let i = 0; i < 2; i++) {
    assert.equal((await rpcSingleTyped(db, "f")).errorOrNull()?.category, "NOT_FOUND");
  }
  for (let i = 0; i < 2; i++) {
    assert.equal((await rpcGetSingleTyped(db, "f")).errorOrNull()?.category, "NOT_FOUND");
  }
  assert.equal((await selectSingleTyped(db, "t")).errorOrNull()?.category, "NOT_FOUND");
  assert.equal((await rpcGetMaybeSingleTyped(db, "f")).getOrThrow(), null);
  assert.equal((await rpcGetMaybeSingleTyped(db, "f")).errorOrNull()?.category, "NOT_FOUND");
  assert.equal((await rpcGetMaybeSingleTyped(db, "f")).errorOrNull()?.category, "SERVER");
  assert.equal((await rpcMaybeSingleTyped(db, "f")).errorOrNull()?.category, "SERVER");
});

Deno.test("limits accept their smallest valid value: maxAffected 1, pageSize 1; rpc refuses maxAffected 0", async () => {
  const { db, rec } = makeDb(() => jsonResponse([]));
  await db.update("t", "{}", null, { maxAffected: 1 });
  await db.delete("t", null, { maxAffected: 1 });
  await db.rpc("f", { maxAffected: 1 });
  assert.equal(rec.requests.length, 3);
  assert.ok(rec.requests.every((r) => /max-affected=1$/.test(r.headers.get("prefer") ?? "")));
  assert.throws(() => db.rpc("f", { maxAffected: 0 }), RangeError);
  await paginator(db, "t", { pageSize: 1 }).loadNext();
  assert.equal(rec.last.url.searchParams.get("limit"), "1");
});

Deno.test("validators that misbehave: a validate that never settles is cancelled by the signal; an async function is awaited; an unprintable throw is DECODE", async () => {
  const { db } = makeDb(() => jsonResponse([{ id: 1, title: "a" }]));
  const stuck: StandardSchemaV1<Todo> = {
    "~standard": { version: 1, vendor: "test", validate: () => new Promise(() => {}) },
  };
  const controller = new AbortController();
  const pending = selectTyped<Todo>(db, "todos", { validator: stuck, signal: controller.signal });
  setTimeout(() => controller.abort(), 20);
  assert.equal((await pending).errorOrNull()?.category, "CANCELLED");

  const asyncValidator = (v: unknown) => Promise.resolve({ ...(v as Todo), checked: true });
  const rows = await selectTyped(db, "todos", {
    validator: asyncValidator as unknown as (v: unknown) => Todo & { checked: boolean },
  });
  assert.deepEqual(rows.getOrThrow(), [{ id: 1, title: "a", checked: true }]);

  const unprintable = await selectTyped<Todo>(db, "todos", {
    validator: () => {
      throw Object.create(null);
    },
  });
  assert.equal(unprintable.errorOrNull()?.category, "DECODE");
  assert.match(unprintable.errorOrNull()?.message ?? "", /^Cannot decode row 0: /);
});

Deno.test("paginator: an async block is refused at creation (TypeError), not run with its filters lost", () => {
  const { db, rec } = makeDb(() => jsonResponse([]));
  assert.throws(
    () =>
      paginator(db, "todos", {
        // Refused by the types too: cast to reach the run-time check.
        block: (async (q) => {
          await null;
          q.where((w) => w.eq(id, 42));
        }) as (q: QueryBuilder) => void,
      }),
    (e: unknown) => e instanceof TypeError && /returned a promise/.test(e.message),
  );
  assert.equal(rec.requests.length, 0);
});

Deno.test("arguments in the URL keep 64-bit integers exact, nested or from JSON text, and refuse NaN and Infinity", async () => {
  const { db, rec } = makeDb(() => new Response(null, { status: 200 }));
  const id = 12345678901234567891n;
  await rpcHead(db, "f", { params: { f: { id }, id } });
  await db.rpcGet("f", { params: '{"f":{"id":12345678901234567891},"id":12345678901234567891}' });
  for (const r of rec.requests) {
    assert.deepEqual(pairs(r.url), [["f", '{"id":12345678901234567891}'], [
      "id",
      "12345678901234567891",
    ]]);
  }
  for (const x of [NaN, Infinity, -Infinity]) {
    await assertInvalid(
      rpcGetTyped(db, "f", { params: { x } }),
      /Cannot pass "x" as a query argument as -?(NaN|Infinity) is not a JSON number/,
    );
  }
  assert.equal(rec.requests.length, 2);
});

Deno.test("an async validator is typed as the docs say it works: its awaited value is the row type", async () => {
  const { db } = makeDb(() => jsonResponse([{ id: 1, title: "a" }, { id: "2", title: "b" }]));
  interface Row {
    id: number;
    title: string;
  }
  const rows = await selectTyped<Row>(db, "todos", {
    validator: async (v: unknown) => {
      await Promise.resolve();
      const r = v as { id: unknown; title: string };
      return { id: Number(r.id), title: r.title };
    },
  });
  assert.deepEqual(rows.getOrThrow(), [{ id: 1, title: "a" }, { id: 2, title: "b" }]);
  // Inferred from the validator alone: the awaited type, not a promise of it.
  const inferred = await selectTyped(db, "todos", {
    validator: (v: unknown) => Promise.resolve({ id: Number((v as { id: unknown }).id) }),
  });
  const ids: number[] = inferred.getOrThrow().map((r) => r.id);
  assert.deepEqual(ids, [1, 2]);
});

Deno.test("insertTypedMany's columns= is the union of the keys its body's rows hold, whatever the rows (Dates, undefined, Maps, toJSON)", async () => {
  class Money {
    constructor(readonly cents: number) {}
    toJSON() {
      return this.cents / 100;
    }
  }
  const member = fc.oneof(
    fc.integer(),
    fc.string(),
    fc.constant(undefined),
    fc.constant(null),
    fc.date({ noInvalidDate: true }),
    fc.constant(new Date(NaN)),
    fc.constant({ toJSON: () => undefined }),
    fc.integer().map((n) => new Money(n)),
    fc.constant(new Map([["a", 1]])),
    fc.array(fc.integer(), { maxLength: 2 }),
  );
  const row = fc.oneof(
    fc.dictionary(fc.constantFrom("id", "title", "due", "price", "__proto__", "2", "a b"), member),
    fc.dictionary(fc.constantFrom("id", "x"), member).map((o) => new Map(Object.entries(o))),
    fc.integer().map((n) => ({ id: n, toJSON: () => ({ id: n, late: true }) })),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(row, { maxLength: 5 }), async (rows) => {
      const { db, rec } = makeDb();
      const r = await insertTypedMany(db, "t", rows as object[]);
      assert.ok(r.ok, r.ok ? "" : r.error.message);
      const sent = rec.requests[0];
      const keys = new Set<string>();
      for (const o of sent.json() as unknown[]) {
        if (o && typeof o === "object" && !Array.isArray(o)) {
          for (const k of Object.keys(o)) keys.add(k);
        }
      }
      const expected = [...keys].map((k) => `"${k.replace(/["\\]/g, "\\$&")}"`).join(",");
      assert.equal(sent.url.searchParams.get("columns"), expected === "" ? null : expected);
    }),
    { numRuns: 400 },
  );
});

Deno.test("insertTypedMany's columns= follows the body where a row's members may answer JSON otherwise: getters, a Date whose toJSON is its own, a toJSON on a primitive's prototype", async () => {
  const columnsOf = async (rows: object[]) => {
    const { db, rec } = makeDb();
    assert.ok((await insertTypedMany(db, "t", rows)).ok);
    const sent = rec.requests[0];
    const keys = new Set<string>();
    for (const o of sent.json() as Array<Record<string, unknown>>) {
      for (const k of Object.keys(o)) keys.add(k);
    }
    return [sent.url.searchParams.get("columns"), [...keys].map((k) => `"${k}"`).join(",")];
  };
  let reads = 0;
  const flaky = Object.defineProperty({ id: 1 }, "note", {
    get: () => (reads++ % 2 === 0 ? "x" : undefined),
    enumerable: true,
  });
  class NoDate extends Date {
    override toJSON(): string {
      return undefined as unknown as string;
    }
  }
  for (const rows of [[flaky], [{ id: 1, when: new NoDate(0) }], [{ id: 1, when: new Date(0) }]]) {
    const [sent, body] = await columnsOf(rows);
    assert.equal(sent, body);
  }
  const proto = BigInt.prototype as unknown as { toJSON?: () => unknown };
  proto.toJSON = () => undefined;
  try {
    const [sent, body] = await columnsOf([{ id: 1, big: 5n }]);
    assert.equal(sent, body);
    assert.equal(body, '"id"');
  } finally {
    delete proto.toJSON;
  }
});
