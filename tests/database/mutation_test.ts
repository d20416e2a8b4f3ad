/**
 * Database behaviours that no other test pinned down, each found by a
 * mutation of `database/` that the suite let through.
 */

import assert from "node:assert/strict";
import {
  column,
  columns,
  deleteTyped,
  deleteUnit,
  insertUnit,
  type Nulls,
  paginator,
  parseContentRange,
  ResponseFormat,
  rpcGetCsv,
  rpcGetSingleTyped,
  rpcGetTyped,
  rpcListTyped,
  rpcMaybeSingleTyped,
  rpcTyped,
  rpcUnit,
  selectHead,
  selectMaybeSingleTyped,
  selectTyped,
  selectWithCountTyped,
  type StandardSchemaV1,
  type TextSearchType,
  updateTyped,
  updateUnit,
  updateUnitTyped,
} from "../../database/mod.ts";
import { jsonResponse, type RecordedRequest } from "../support/recording_fetch.ts";
import { assertInvalid, makeDb, pairs, q } from "./_helpers.ts";

const id = column<number>("id");
const tags = column<string[]>("tags");

/** Answers only when the request is aborted (then fetch rejects with the abort reason). */
function hang(req: RecordedRequest): Promise<Response> {
  return new Promise((_, reject) => {
    const signal = req.signal;
    if (!signal) return; // never settles: the test's own guard reports it
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/** Resolves the promise's value, or "hung" when it takes longer than `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | "hung"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<"hung">((resolve) => timer = setTimeout(() => resolve("hung"), ms));
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}

const noRows406 = () =>
  jsonResponse({
    code: "PGRST116",
    details: "The result contains 0 rows",
    hint: null,
    message: "JSON object requested, multiple (or no) rows returned",
  }, { status: 406 });

// --- request shaping -------------------------------------------------------------------------

Deno.test("a read without count, returning or other directive sends no Prefer header at all", async () => {
  const { db, rec } = makeDb();
  await db.select("todos");
  await db.rpcGet("fn");
  assert.equal(rec.requests[0].headers.has("prefer"), false);
  assert.equal(rec.requests[1].headers.has("prefer"), false);
});

Deno.test("table and function names are one percent-encoded path segment", async () => {
  const { db, rec } = makeDb();
  await db.select("a/b?c#d");
  await db.rpc("f/g?h");
  assert.equal(rec.requests[0].url.pathname, "/rest/v1/a%2Fb%3Fc%23d");
  assert.equal(rec.requests[0].url.search, "?select=*");
  assert.equal(rec.requests[1].url.pathname, "/rest/v1/rpc/f%2Fg%3Fh");
});

Deno.test("query keys are percent-encoded: a GET RPC argument name holding & = or a space stays one key", async () => {
  const { db, rec } = makeDb();
  await db.rpcGet("fn", { queryParams: [["a&b=c d", "1"]] });
  assert.deepEqual(pairs(rec.only.url), [["a&b=c d", "1"]]);
});

Deno.test("URL limit: exactly 8192 characters are sent, one more is INVALID_ARGUMENT without a request", async () => {
  const { db, rec } = makeDb();
  await db.select("t", { columns: "a" });
  const base = rec.only.url.href.length - 1; // the URL without the one-character projection
  await db.select("t", { columns: "a".repeat(8192 - base) });
  assert.equal(rec.requests.length, 2);
  assert.equal(rec.last.url.href.length, 8192);
  await assertInvalid(db.select("t", { columns: "a".repeat(8193 - base) }), /8193/);
  assert.equal(rec.requests.length, 2);
});

Deno.test("a call's signal reaches the transport: an aborted signal cancels without a request", async () => {
  const { db, rec } = makeDb();
  const r = await db.select("todos", { signal: AbortSignal.abort() });
  assert.equal(r.errorOrNull()?.category, "CANCELLED");
  assert.equal(rec.requests.length, 0);
});

Deno.test("a call's timeout reaches the transport (select and typed POST RPC)", async () => {
  const { db } = makeDb(hang);
  const r = await within(db.select("todos", { timeout: 30 }), 5000);
  assert.notEqual(r, "hung");
  assert.equal(r !== "hung" && r.errorOrNull()?.category, "TIMEOUT");
  const t = await within(rpcTyped(db, "fn", { timeout: 30 }), 5000);
  assert.notEqual(t, "hung");
  assert.equal(t !== "hung" && t.errorOrNull()?.category, "TIMEOUT");
});

Deno.test("a Prefer in headers under any spelling of its name replaces only the directives it names", async () => {
  const { db, rec } = makeDb(() => new Response("[]"));
  await db.delete("todos", (w) => w.eq(id, 1), {
    count: "exact",
    maxAffected: 5,
    headers: { prefer: "count=planned" },
  });
  assert.equal(
    rec.only.headers.get("prefer"),
    "return=representation,handling=strict,max-affected=5,count=planned",
  );
});

Deno.test("insert: a JSON content type with parameters still derives columns= from every row", async () => {
  const { db, rec } = makeDb(() => new Response("[]"));
  await db.insert("todos", '[{"a":1},{"b":2}]', {
    contentType: "application/json; charset=utf-8",
  });
  assert.equal(q(rec.only.url, "columns"), '"a","b"');
  assert.equal(rec.only.headers.get("content-type"), "application/json; charset=utf-8");
});

Deno.test("insert with stripNulls asks for the nulls-stripped array media type", async () => {
  const { db, rec } = makeDb(() => new Response("[]"));
  await db.insert("todos", '{"a":1}', { stripNulls: true });
  assert.equal(rec.only.headers.get("accept"), "application/vnd.pgrst.array+json;nulls=stripped");
});

Deno.test("a HEAD RPC names its schema in Accept-Profile (PostgREST reads it for GET and HEAD)", async () => {
  const { db, rec } = makeDb(() => new Response(null));
  await db.rpc("fn", { schema: "app", format: "HEAD" });
  assert.equal(rec.only.method, "HEAD");
  assert.equal(rec.only.headers.get("accept-profile"), "app");
  assert.equal(rec.only.headers.get("content-profile"), null);
});

Deno.test("GET RPC arguments shaped like nxl, isdistinct or wfts filters, or a JSON array of arguments, are refused", async () => {
  const { db, rec } = makeDb();
  for (const v of ["nxl.[1,2)", "isdistinct.x", "wfts.cat", "wfts(english).cat"]) {
    await assertInvalid(db.rpcGet("fn", { params: { v } }), /filter/, v);
  }
  await assertInvalid(db.rpcGet("fn", { params: "[1,2]" }), /JSON object/);
  assert.equal(rec.requests.length, 0);
});

// --- filter encoding -------------------------------------------------------------------------

Deno.test("the text NULL in any case is quoted in an array literal (Postgres reads bare NULL as a null element)", async () => {
  const { db, rec } = makeDb();
  await db.select("t", {
    block: (b) => b.where((w) => w.contains(tags, ["NULL"]).overlaps(tags, ["Null", "a"])),
  });
  assert.deepEqual(pairs(rec.only.url).slice(1), [["tags", 'cs.{"NULL"}'], [
    "tags",
    'ov.{"Null",a}',
  ]]);
});

Deno.test("inList of arrays quotes each array literal, so its commas do not split the list", async () => {
  const { db, rec } = makeDb();
  const dims = column<number[]>("dims");
  await db.select("t", { block: (b) => b.where((w) => w.inList(dims, [[1, 2], [3]])) });
  assert.equal(q(rec.only.url, "dims"), 'in.("{1,2}","{3}")');
});

Deno.test("raw() inside a group is emitted verbatim, not quoted", async () => {
  const { db, rec } = makeDb();
  await db.select("t", {
    block: (b) => b.where((w) => w.or((o) => o.raw("id", "in", "(1,2)").eq(id, 5))),
  });
  assert.equal(q(rec.only.url, "or"), "(id.in.(1,2),id.eq.5)");
});

Deno.test("textSearch with a type that is no TextSearchType is INVALID_ARGUMENT", async () => {
  const { db, rec } = makeDb();
  await assertInvalid(
    db.select("t", {
      block: (b) =>
        b.where((w) => w.textSearch("body", "cat", { type: "tsquery" as TextSearchType })),
    }),
    /TextSearchType/,
  );
  assert.equal(rec.requests.length, 0);
});

Deno.test("groups: a malformed referencedTable, or one nested inside another group, is INVALID_ARGUMENT", async () => {
  const { db, rec } = makeDb();
  await assertInvalid(
    db.select("t", {
      block: (b) => b.where((w) => w.or((o) => o.eq(id, 1), { referencedTable: "a..b" })),
    }),
  );
  await assertInvalid(
    db.select("t", {
      block: (b) =>
        b.where((w) =>
          w.or((o) => o.eq(id, 1).and((a) => a.eq(id, 2), { referencedTable: "author" }))
        ),
    }),
    /referencedTable/,
  );
  assert.equal(rec.requests.length, 0);
});

Deno.test("orderBy with a nulls value that is no Nulls is INVALID_ARGUMENT", async () => {
  const { db, rec } = makeDb();
  await assertInvalid(
    db.select("t", { block: (b) => b.orderBy(id, { nulls: "last" as Nulls }) }),
    /nulls/,
  );
  assert.equal(rec.requests.length, 0);
});

Deno.test("range with a non-integer 'to' is a Limit: thrown RangeError, not a Failure", () => {
  const { db, rec } = makeDb();
  assert.throws(() => db.select("t", { block: (b) => b.range(0, 2.5) }), RangeError);
  assert.equal(rec.requests.length, 0);
});

Deno.test("a column name with surrounding whitespace is refused, not trimmed", async () => {
  const { db, rec } = makeDb();
  await assertInvalid(db.select("t", { block: (b) => b.where((w) => w.eq(" id", 1)) }));
  assert.equal(rec.requests.length, 0);
});

Deno.test("columns(): symbol keys are not columns", () => {
  const todo = columns<{ id: number }>();
  assert.equal((todo as unknown as Record<symbol, unknown>)[Symbol.toPrimitive], undefined);
  assert.equal(todo.id.name, "id");
});

// --- Content-Range ---------------------------------------------------------------------------

Deno.test("parseContentRange trims the header and gives a null count beyond 2^53", () => {
  assert.deepEqual(parseContentRange(" 0-9/27 "), { count: 27, range: { from: 0, to: 9 } });
  assert.deepEqual(parseContentRange("0-9/9007199254740993"), {
    count: null,
    range: { from: 0, to: 9 },
  });
});

// --- decoding --------------------------------------------------------------------------------

Deno.test("a typed call of a function without result (empty or blank body) is Success(null)", async () => {
  const { db } = makeDb([new Response(null, { status: 204 }), new Response(" \n")]);
  assert.equal((await rpcTyped(db, "touch")).getOrThrow(), null);
  assert.equal((await rpcTyped(db, "touch")).getOrThrow(), null);
});

Deno.test("a body that is not JSON is a DECODE failure", async () => {
  const { db } = makeDb(() => new Response("<html>"));
  assert.equal((await selectTyped(db, "t")).errorOrNull()?.category, "DECODE");
  assert.equal((await rpcTyped(db, "f")).errorOrNull()?.category, "DECODE");
});

Deno.test("maybe-single: only PostgREST's 406 for zero rows is null; other errors mentioning no rows, and 10 rows, fail", async () => {
  const { db } = makeDb([
    noRows406(),
    // PL/pgSQL's SELECT INTO STRICT error, raised by a view's function
    jsonResponse({ code: "P0002", message: "query returned no rows", details: "0 rows" }, {
      status: 400,
    }),
    jsonResponse({
      code: "PGRST116",
      details: "The result contains 10 rows",
      hint: null,
      message: "JSON object requested, multiple (or no) rows returned",
    }, { status: 406 }),
  ]);
  assert.equal((await selectMaybeSingleTyped(db, "v")).getOrThrow(), null);
  const strict = await selectMaybeSingleTyped(db, "v");
  assert.equal(strict.errorOrNull()?.status, 400);
  const ten = await selectMaybeSingleTyped(db, "v");
  assert.equal(ten.errorOrNull()?.status, 406);
  assert.equal(ten.errorOrNull()?.category, "NOT_FOUND");
});

Deno.test("the Unit variants and selectHead pass failures on", async () => {
  const denied = () => jsonResponse({ message: "denied" }, { status: 403 });
  const { db } = makeDb(denied);
  const results = [
    await selectHead(db, "t"),
    await insertUnit(db, "t", "{}"),
    await updateUnit(db, "t", "{}", null),
    await deleteUnit(db, "t", null),
    await rpcUnit(db, "f"),
  ];
  for (const r of results) assert.equal(r.errorOrNull()?.category, "FORBIDDEN");
});

Deno.test("selectWithCountTyped: a body that is not an array of rows is a DECODE failure", async () => {
  const { db } = makeDb(() => jsonResponse({ id: 1 }, { headers: { "content-range": "0-0/1" } }));
  const r = await selectWithCountTyped(db, "t");
  assert.equal(r.errorOrNull()?.category, "DECODE");
});

Deno.test("deleteTyped with MINIMAL returns no rows and reads no body", async () => {
  const { db, rec } = makeDb(() => new Response(null, { status: 204 }));
  const r = await deleteTyped(db, "t", (w) => w.eq(id, 1), { returning: "minimal" });
  assert.deepEqual(r.getOrThrow(), []);
  assert.equal(rec.only.headers.get("prefer"), "return=minimal");
});

Deno.test("updateTyped with an array value is INVALID_ARGUMENT without a request", async () => {
  const { db, rec } = makeDb();
  await assertInvalid(updateTyped(db, "t", [1, 2] as never, (w) => w.eq(id, 1)), /object/);
  assert.equal(rec.requests.length, 0);
});

Deno.test("updateTyped and updateUnitTyped with no field that is not null are INVALID_ARGUMENT, nothing sent", async () => {
  // Null fields are left out; with none left, PostgREST updates no row (WHERE false) and
  // answers [] or 204 as if no row had matched.
  const { db, rec } = makeDb();
  for (const value of [{ title: null, done: null }, {}, { at: new Date(NaN) }] as never[]) {
    await assertInvalid(
      updateTyped(db, "t", value, (w) => w.eq(id, 1)),
      /no field that is not null/,
    );
    await assertInvalid(
      updateUnitTyped(db, "t", value, (w) => w.eq(id, 1)),
      /nothing would be written/,
    );
  }
  assert.equal(rec.requests.length, 0);
});

Deno.test("rpcMaybeSingleTyped: a scalar answer is the value; an empty body is null even for a strict validator", async () => {
  const { db } = makeDb([jsonResponse(42), new Response(null, { status: 204 })]);
  assert.equal((await rpcMaybeSingleTyped<number>(db, "answer")).getOrThrow(), 42);
  const strict = (v: unknown) => {
    if (typeof v !== "number") throw new TypeError("not a number");
    return v;
  };
  assert.equal(
    (await rpcMaybeSingleTyped<number>(db, "nothing", { validator: strict })).getOrThrow(),
    null,
  );
});

Deno.test("validators: a Standard Schema result carrying issues fails even when empty; a throwing function is DECODE", async () => {
  const emptyIssues: StandardSchemaV1<unknown> = {
    "~standard": { version: 1, vendor: "test", validate: () => ({ issues: [] }) },
  };
  const { db } = makeDb(() => jsonResponse([{ id: 1 }]));
  assert.equal(
    (await selectTyped(db, "t", { validator: emptyIssues })).errorOrNull()?.category,
    "DECODE",
  );
  const r = await selectTyped(db, "t", {
    validator: () => {
      throw new Error("bad row");
    },
  });
  assert.equal(r.errorOrNull()?.category, "DECODE");
  assert.match(r.errorOrNull()?.message ?? "", /bad row/);
});

// --- typed RPC options -----------------------------------------------------------------------

Deno.test("typed RPC calls pass headers, schema and format on", async () => {
  const { db, rec } = makeDb(() => jsonResponse({ ok: true }));
  await rpcTyped(db, "post_fn", { headers: { "x-trace": "1" } });
  await rpcGetTyped(db, "get_fn", { schema: "app", headers: { "x-trace": "2" } });
  await rpcGetSingleTyped(db, "one_fn");
  await rpcGetCsv(db, "csv_fn");
  const [post, get, single, csv] = rec.requests;
  assert.equal(post.headers.get("x-trace"), "1");
  assert.equal(get.headers.get("x-trace"), "2");
  assert.equal(get.headers.get("accept-profile"), "app");
  assert.equal(single.headers.get("accept"), "application/vnd.pgrst.object+json");
  assert.equal(csv.method, "GET");
  assert.equal(csv.headers.get("accept"), "text/csv");
});

// --- paginator -------------------------------------------------------------------------------

Deno.test("paginator: a block setting only an offset is refused", () => {
  const { db } = makeDb();
  assert.throws(() => paginator(db, "t", { block: (b) => b.offset(5) }), TypeError);
});

Deno.test("paginator: schema, columns and validator reach each page's request", async () => {
  const { db, rec } = makeDb(() => jsonResponse([{ id: "x" }]));
  const pages = paginator<{ id: number }>(db, "t", {
    schema: "app",
    columns: "id",
    validator: (v) => {
      if (typeof (v as { id: unknown }).id !== "number") throw new TypeError("id not a number");
      return v as { id: number };
    },
  });
  const r = await pages.loadNext();
  assert.equal(r.errorOrNull()?.category, "DECODE");
  assert.equal(rec.only.headers.get("accept-profile"), "app");
  assert.equal(q(rec.only.url, "select"), "id");
});

Deno.test("paginator: cancelling loadNext aborts the page's request", async () => {
  const { db, rec } = makeDb(hang);
  const pages = paginator(db, "t");
  const ac = new AbortController();
  const pending = pages.loadNext({ signal: ac.signal });
  while (rec.requests.length === 0) await new Promise((r) => setTimeout(r, 1));
  ac.abort();
  const r = await within(pending, 5000);
  assert.notEqual(r, "hung");
  assert.equal(rec.only.signal?.aborted, true);
});

Deno.test("update and delete with a null block send no filter (the whole table)", async () => {
  const { db, rec } = makeDb(() => new Response("[]"));
  await db.update("todos", '{"done":true}', null);
  await db.delete("todos", null);
  assert.deepEqual(pairs(rec.requests[0].url), [["select", "*"]]);
  assert.deepEqual(pairs(rec.requests[1].url), [["select", "*"]]);
});

Deno.test("a list operator given a string instead of an array is INVALID_ARGUMENT", async () => {
  const { db, rec } = makeDb();
  await assertInvalid(
    db.select("t", { block: (b) => b.where((w) => w.inList(id, "1,2" as never)) }),
    /array/,
  );
  await assertInvalid(
    db.select("t", { block: (b) => b.where((w) => w.likeAnyOf("title", "abc" as never)) }),
    /array/,
  );
  assert.equal(rec.requests.length, 0);
});

Deno.test("eq with an object compares a JSON column with the object's JSON text", async () => {
  const { db, rec } = makeDb();
  const data = column<Record<string, unknown>>("data");
  await db.select("t", { block: (b) => b.where((w) => w.eq(data, { a: 1 })) });
  assert.equal(q(rec.only.url, "data"), 'eq.{"a":1}');
});

Deno.test("typed calls return what the validator returns, not the raw JSON", async () => {
  const { db } = makeDb(() => jsonResponse([{ id: "7" }]));
  const toNumber = (v: unknown) => ({ id: Number((v as { id: string }).id) });
  const schema: StandardSchemaV1<{ id: number }> = {
    "~standard": { version: 1, vendor: "test", validate: (v) => ({ value: toNumber(v) }) },
  };
  assert.deepEqual((await selectTyped(db, "t", { validator: toNumber })).getOrThrow(), [{ id: 7 }]);
  assert.deepEqual((await selectTyped(db, "t", { validator: schema })).getOrThrow(), [{ id: 7 }]);
  const one = await rpcTyped(db, "f", { validator: (v) => (v as unknown[]).length });
  assert.equal(one.getOrThrow(), 1);
});

Deno.test("typed RPC calls pass the block and the signal on", async () => {
  const { db, rec } = makeDb(() => jsonResponse([]));
  await rpcListTyped(db, "post_fn", { block: (b) => b.limit(3) });
  await rpcGetTyped(db, "get_fn", { block: (b) => b.offset(2) });
  assert.equal(q(rec.requests[0].url, "limit"), "3");
  assert.equal(q(rec.requests[1].url, "offset"), "2");
  const cancelled = await rpcTyped(db, "post_fn", { signal: AbortSignal.abort() });
  assert.equal(cancelled.errorOrNull()?.category, "CANCELLED");
  assert.equal(rec.requests.length, 2);
});

Deno.test("maybe-single reads run the validator on the one row", async () => {
  const { db } = makeDb([jsonResponse([{ id: "1" }]), jsonResponse({ id: "2" })]);
  const toNumber = (v: unknown) => ({ id: Number((v as { id: string }).id) });
  const post = await rpcMaybeSingleTyped(db, "f", { validator: toNumber });
  assert.deepEqual(post.getOrThrow(), { id: 1 });
  const read = await selectMaybeSingleTyped(db, "t", { validator: toNumber });
  assert.deepEqual(read.getOrThrow(), { id: 2 });
});

Deno.test("rpc with maxAffected sends handling=strict and max-affected", async () => {
  const { db, rec } = makeDb(() => jsonResponse([]));
  await db.rpc("purge", { maxAffected: 3 });
  assert.equal(rec.only.headers.get("prefer"), "handling=strict,max-affected=3");
});

Deno.test("an empty schema is INVALID_ARGUMENT, not silently the default schema", async () => {
  const { db, rec } = makeDb();
  await assertInvalid(db.select("t", { schema: "" }), /schema/);
  await assertInvalid(db.insert("t", "{}", { schema: "" }), /schema/);
  assert.equal(rec.requests.length, 0);
});

Deno.test("rpc with the HEAD format is a read and is retried like rpcGet; a POST rpc is not", async () => {
  let n = 0;
  const { db, rec } = makeDb(() =>
    ++n === 1 ? new Response("", { status: 503 }) : new Response(null, { status: 200 })
  );
  const head = await db.rpc("count_todos", { format: ResponseFormat.HEAD });
  assert.ok(head.ok);
  assert.deepEqual(rec.requests.map((r) => r.method), ["HEAD", "HEAD"]);
  n = 0;
  rec.requests.length = 0;
  const post = await db.rpc("count_todos");
  assert.equal(post.errorOrNull()?.status, 503);
  assert.deepEqual(rec.requests.map((r) => r.method), ["POST"]);
});
