import assert from "node:assert/strict";
import {
  column,
  CountOption,
  type DatabaseClient,
  ExplainFormat,
  parseContentRange,
  ResponseFormat,
  ReturnOption,
  rpcGetTyped,
  UpsertResolution,
} from "../../database/mod.ts";
import { jsonResponse, type RecordedRequest } from "../support/recording_fetch.ts";
import { assertInvalid, makeDb, pairs, q } from "./_helpers.ts";

const id = column<number>("id");

Deno.test("select: GET /rest/v1/{table} with select=, Accept-Profile, Prefer count, apikey", async () => {
  const { db, rec } = makeDb();
  const r = await db.select("todos", {
    schema: "app",
    columns: "id, title, owner:users ( name )",
    count: CountOption.EXACT,
    block: (b) => b.where((w) => w.eq(id, 3)),
  });
  assert.equal(r.getOrThrow(), "[]");
  const req = rec.only;
  assert.equal(req.method, "GET");
  assert.equal(req.url.pathname, "/rest/v1/todos");
  assert.deepEqual(pairs(req.url), [["select", "id,title,owner:users(name)"], ["id", "eq.3"]]);
  assert.equal(req.headers.get("accept-profile"), "app");
  assert.equal(req.headers.get("content-profile"), null);
  assert.equal(req.headers.get("prefer"), "count=exact");
  assert.equal(req.headers.get("apikey"), "anon-key-0123456789");
});

Deno.test("select formats set Accept; HEAD format sends HEAD; stripNulls and explain", async () => {
  const { db, rec } = makeDb(() => new Response(""));
  await db.select("t", { format: ResponseFormat.SINGLE });
  await db.select("t", { format: ResponseFormat.CSV });
  await db.select("t", { format: ResponseFormat.GEOJSON });
  await db.select("t", { format: ResponseFormat.HEAD });
  await db.select("t", { stripNulls: true });
  await db.select("t", { format: ResponseFormat.SINGLE, stripNulls: true });
  await db.select("t", { explain: { analyze: true, verbose: true, format: ExplainFormat.JSON } });
  await db.select("t", { format: ResponseFormat.CSV, explain: {} });
  const accepts = rec.requests.map((r) => r.headers.get("accept"));
  assert.deepEqual(accepts.slice(0, 3), [
    "application/vnd.pgrst.object+json",
    "text/csv",
    "application/geo+json",
  ]);
  assert.equal(rec.requests[3].method, "HEAD");
  assert.equal(accepts[4], "application/vnd.pgrst.array+json;nulls=stripped");
  assert.equal(accepts[5], "application/vnd.pgrst.object+json;nulls=stripped");
  assert.equal(
    accepts[6],
    'application/vnd.pgrst.plan+json; for="application/json"; options=analyze|verbose;',
  );
  assert.equal(accepts[7], 'application/vnd.pgrst.plan+text; for="text/csv"; options=;');
  await assertInvalid(
    db.select("t", { format: ResponseFormat.CSV, stripNulls: true }),
    /strip nulls/,
  );
});

Deno.test("select retries by default (GET) and not when retry is false", async () => {
  let n = 0;
  const { db, rec } = makeDb(
    () => (++n === 1 ? new Response("", { status: 503 }) : new Response("[]")),
  );
  assert.ok((await db.select("t")).ok);
  assert.equal(rec.requests.length, 2);
  n = 0;
  const second = makeDb(() => (++n === 1 ? new Response("", { status: 503 }) : new Response("[]")));
  assert.equal((await second.db.select("t", { retry: false })).ok, false);
  assert.equal(second.rec.requests.length, 1);
});

Deno.test("selectCount: HEAD with count=exact, Content-Range parsed; '*' is null not failure", async () => {
  const { db, rec } = makeDb([
    new Response(null, { headers: { "content-range": "0-9/27" } }),
    new Response(null, { headers: { "content-range": "*/*" } }),
  ]);
  const a = (await db.selectCount("todos")).getOrThrow();
  assert.deepEqual(a, { count: 27, range: { from: 0, to: 9 } });
  assert.equal(rec.requests[0].method, "HEAD");
  assert.equal(rec.requests[0].headers.get("prefer"), "count=exact");
  const b = (await db.selectCount("todos", { count: CountOption.PLANNED })).getOrThrow();
  assert.deepEqual(b, { count: null, range: null });
  assert.equal(rec.requests[1].headers.get("prefer"), "count=planned");
});

Deno.test("selectRange returns body, count and range", async () => {
  const { db } = makeDb([new Response('[{"id":1}]', { headers: { "content-range": "5-5/6" } })]);
  const page = (await db.selectRange("todos", { block: (b) => b.range(5, 5) })).getOrThrow();
  assert.deepEqual(page, { body: '[{"id":1}]', count: 6, range: { from: 5, to: 5 } });
});

Deno.test("parseContentRange never fails", () => {
  assert.deepEqual(parseContentRange("*/42"), { count: 42, range: null });
  assert.deepEqual(parseContentRange("0-1/*"), { count: null, range: { from: 0, to: 1 } });
  assert.deepEqual(parseContentRange("garbage"), { count: null, range: null });
  assert.deepEqual(parseContentRange(null), { count: null, range: null });
});

Deno.test("insert: POST with Content-Profile, return=representation, select=*, bulk columns union", async () => {
  const { db, rec } = makeDb(() => jsonResponse([], { status: 201 }));
  await db.insert("todos", '[{"a":1},{"b":2,"a":3}]', { schema: "app", count: CountOption.EXACT });
  const r = rec.only;
  assert.equal(r.method, "POST");
  assert.equal(r.headers.get("content-profile"), "app");
  assert.equal(r.headers.get("accept-profile"), null);
  assert.equal(r.headers.get("content-type"), "application/json");
  assert.equal(r.headers.get("prefer"), "return=representation,count=exact");
  assert.deepEqual(pairs(r.url), [["select", "*"], ["columns", '"a","b"']]);
  assert.equal(r.text, '[{"a":1},{"b":2,"a":3}]');
});

Deno.test("insert options: upsert, resolution, onConflict, defaultToNull, rollback, minimal, contentType", async () => {
  // Answered as PostgREST does when its db-tx-end allows the rollback.
  const { db, rec } = makeDb(() =>
    new Response(null, {
      status: 201,
      headers: {
        "preference-applied": "resolution=ignore-duplicates, missing=default, return=minimal, " +
          "tx=rollback",
      },
    })
  );
  const r = await db.insert("todos", '{"id":1}', {
    upsert: true,
    upsertResolution: UpsertResolution.IGNORE_DUPLICATES,
    onConflict: "id, owner",
    defaultToNull: false,
    rollback: true,
    returning: ReturnOption.MINIMAL,
    columns: ["id"],
  });
  assert.equal(r.getOrThrow(), "");
  assert.equal(
    rec.last.headers.get("prefer"),
    "return=minimal,resolution=ignore-duplicates,missing=default,tx=rollback",
  );
  // on_conflict goes as given (PostgREST trims around the commas), as postgrest-js sends it.
  assert.deepEqual(pairs(rec.last.url), [["columns", '"id"'], ["on_conflict", "id, owner"]]);
  await db.insert("todos", "id,title\n1,a", {
    contentType: "text/csv",
    returning: ReturnOption.HEADERS_ONLY,
  });
  assert.equal(rec.last.headers.get("content-type"), "text/csv");
  assert.equal(rec.last.text, "id,title\n1,a");
  assert.equal(q(rec.last.url, "columns"), null);
  assert.equal(rec.last.headers.get("prefer"), "return=headers-only");
  await db.insert("todos", '{"id":1}');
  assert.equal(q(rec.last.url, "columns"), null, "a single object sends no columns=");
  assert.equal(q(rec.last.url, "on_conflict"), null);
});

Deno.test("writes are never retried", async () => {
  const { db, rec } = makeDb(() => new Response("", { status: 503 }));
  await db.insert("t", "{}");
  await db.update("t", "{}", null);
  await db.delete("t", null);
  await db.rpc("f");
  assert.equal(rec.requests.length, 4);
});

Deno.test("update: PATCH with filters, maxAffected, explain; RangeError for maxAffected <= 0", async () => {
  const { db, rec } = makeDb();
  await db.update("todos", '{"done":true}', (w) => w.eq(id, 1), {
    maxAffected: 5,
    count: CountOption.EXACT,
    returning: ReturnOption.MINIMAL,
  });
  const r = rec.only;
  assert.equal(r.method, "PATCH");
  assert.deepEqual(pairs(r.url), [["id", "eq.1"]]);
  assert.equal(
    r.headers.get("prefer"),
    "return=minimal,count=exact,handling=strict,max-affected=5",
  );
  assert.equal(r.text, '{"done":true}');
  assert.throws(() => db.update("t", "{}", null, { maxAffected: 0 }), RangeError);
  assert.throws(() => db.delete("t", null, { maxAffected: -1 }), RangeError);
  assert.throws(() => db.rpc("f", { maxAffected: 1.5 }), RangeError);
  assert.equal(rec.requests.length, 1);
  await db.update("todos", "{}", null, { explain: { analyze: true }, rollback: true });
  assert.equal(
    rec.last.headers.get("accept"),
    'application/vnd.pgrst.plan+text; for="application/json"; options=analyze;',
  );
  assert.equal(rec.last.headers.get("prefer"), "return=representation,tx=rollback");
  assert.equal(q(rec.last.url, "select"), "*");
});

Deno.test("explain with analyze on a write without rollback is a Failure before sending: PostgreSQL runs it and PostgREST commits it", async () => {
  const { db, rec } = makeDb();
  const refused = [
    await db.update("t", '{"a":1}', null, { explain: { analyze: true } }),
    await db.delete("t", (w) => w.eq(id, 1), { explain: { analyze: true, format: "json" } }),
    await db.rpc("f", { params: "{}", explain: { analyze: true } }),
  ];
  for (const r of refused) {
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
    assert.match(r.errorOrNull()!.message, /'analyze' as 'rollback' is not set/);
  }
  assert.equal(rec.requests.length, 0);
  // Without analyze the plan is only estimated: nothing runs, nothing is needed.
  assert.ok((await db.delete("t", null, { explain: {} })).ok);
  // A HEAD RPC and a GET RPC run read-only; a read may always be analyzed.
  assert.ok((await db.rpc("f", { format: ResponseFormat.HEAD, explain: { analyze: true } })).ok);
  assert.ok((await db.rpcGet("f", { explain: { analyze: true } })).ok);
  assert.ok((await db.select("t", { explain: { analyze: true } })).ok);
  assert.equal(rec.requests.length, 4);
});

Deno.test("replace: PUT with select=columns; delete: DELETE with filters and Prefer", async () => {
  const { db, rec } = makeDb();
  await db.replace("todos", '{"id":1,"title":"x"}', (w) => w.eq(id, 1), { columns: "id" });
  assert.equal(rec.last.method, "PUT");
  assert.deepEqual(pairs(rec.last.url), [["select", "id"], ["id", "eq.1"]]);
  assert.equal(rec.last.headers.get("prefer"), "return=representation");
  await db.delete("todos", (w) => w.inList(id, [1, 2]), { rollback: true, schema: "s" });
  assert.equal(rec.last.method, "DELETE");
  assert.deepEqual(pairs(rec.last.url), [["select", "*"], ["id", "in.(1,2)"]]);
  assert.equal(rec.last.headers.get("prefer"), "return=representation,tx=rollback");
  assert.equal(rec.last.headers.get("content-profile"), "s");
  assert.equal(rec.last.bytes, null);
});

Deno.test("rpc: POST /rpc/fn with params verbatim, Content-Profile, scalar content type, block", async () => {
  const { db, rec } = makeDb();
  await db.rpc("search", {
    params: '{"q":"milk"}',
    schema: "api",
    count: CountOption.EXACT,
    block: (b) => b.where((w) => w.greater(id, 2)).limit(3),
  });
  let r = rec.last;
  assert.equal(r.method, "POST");
  assert.equal(r.url.pathname, "/rest/v1/rpc/search");
  assert.equal(r.headers.get("content-profile"), "api");
  assert.deepEqual(pairs(r.url), [["id", "gt.2"], ["limit", "3"]]);
  assert.equal((r.json() as { q: string }).q, "milk");
  await db.rpc("echo", { params: "hello", contentType: "text/plain" });
  r = rec.last;
  assert.equal(r.headers.get("content-type"), "text/plain");
  assert.equal(r.text, "hello");
  await db.rpc("noargs");
  assert.equal(rec.last.text, "{}");
  await db.rpc("noargs", { contentType: "application/json; charset=utf-8" });
  assert.equal(rec.last.text, "{}");
  // No argument of another type is an empty body, not the text "{}".
  await db.rpc("echo", { contentType: "text/plain" });
  assert.equal(rec.last.text, "");
  assert.equal(rec.last.headers.get("content-type"), "text/plain");
  await db.rpc("store", { contentType: "application/octet-stream" });
  assert.equal(rec.last.text, "");
  await db.rpc("f", { params: '{"a":1,"b":null}', format: ResponseFormat.HEAD });
  assert.equal(rec.last.method, "HEAD");
  assert.deepEqual(pairs(rec.last.url), [["a", "1"]]);
});

Deno.test("rpc: a function's one bytea argument goes as the bytes given; an object needs a JSON body", async () => {
  // PostgREST hands a function with one unnamed bytea argument the body as it is: text would go
  // as UTF-8 (0xff as c3 bf), and an object as its JSON text.
  const { db, rec } = makeDb(() => new Response("2"));
  const raw = new Uint8Array([0, 255, 128, 65]);
  const octets = { contentType: "application/octet-stream" };
  for (const params of [raw, raw.buffer, new Uint8Array([9, 0, 255, 128, 65, 9]).subarray(1, 5)]) {
    assert.equal((await db.rpc("byte_len", { ...octets, params })).getOrThrow(), "2");
    assert.deepEqual([...rec.last.bytes!], [0, 255, 128, 65]);
    assert.equal(rec.last.headers.get("content-type"), "application/octet-stream");
  }
  const sent = rec.requests.length;
  for (const params of [{ a: 1 }, [1, 2], new Map([["a", 1]])] as never[]) {
    const e = (await db.rpc("byte_len", { ...octets, params })).errorOrNull();
    assert.equal(e?.category, "INVALID_ARGUMENT");
    assert.match(e!.message, /'params' must be text or bytes for a application\/octet-stream body/);
  }
  const head = await db.rpc("f", { params: raw, format: ResponseFormat.HEAD });
  assert.match(head.errorOrNull()!.message, /'params' must be named arguments for a HEAD call/);
  assert.equal(rec.requests.length, sent);
  // A JSON body still takes an object as its JSON.
  await db.rpc("f", { params: { a: 1 } as never });
  assert.equal(rec.last.text, '{"a":1}');
});

Deno.test("rpcGet: GET with ordered args, Accept-Profile, retry on by default", async () => {
  let n = 0;
  const { db, rec } = makeDb(
    () => (++n === 1 ? new Response("", { status: 502 }) : new Response("1")),
  );
  const r = await db.rpcGet("add", { queryParams: [["b", "2"], ["a", "1"]], schema: "api" });
  assert.equal(r.getOrThrow(), "1");
  assert.equal(rec.requests.length, 2);
  assert.equal(rec.last.method, "GET");
  assert.deepEqual(pairs(rec.last.url), [["b", "2"], ["a", "1"]]);
  assert.equal(rec.last.headers.get("accept-profile"), "api");
  await db.rpcGet("add", { queryParams: { x: "a,b" }, format: ResponseFormat.CSV });
  assert.equal(rec.last.headers.get("accept"), "text/csv");
  assert.equal(q(rec.last.url, "x"), "a,b");
});

Deno.test("headers option merges over computed headers", async () => {
  const { db, rec } = makeDb();
  await db.select("t", {
    count: CountOption.EXACT,
    headers: { "x-trace": "1", Prefer: "count=planned" },
  });
  assert.equal(rec.last.headers.get("x-trace"), "1");
  assert.equal(rec.last.headers.get("prefer"), "count=planned", "a named directive is replaced");
});

Deno.test("blank table, function or schema and an over-long URL are Failures before sending; builders throw", async () => {
  const { db, rec } = makeDb();
  await assertInvalid(db.select(" "), /'table' must be a non-blank string/);
  await assertInvalid(db.rpc(""), /'function' must be a non-blank string/);
  await assertInvalid(db.select("t", { schema: " " }), /'schema' must be a non-blank string/);
  assert.throws(() => db.buildSelect(" "), TypeError);
  const r = await db.select("t", {
    block: (b) => b.where((w) => w.inList(id, Array.from({ length: 3000 }, (_, i) => i))),
  });
  assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(r.errorOrNull()!.message, /safe limit of 8192/);
  assert.equal(rec.requests.length, 0);
});

Deno.test("a lone surrogate in a filter value is a Failure before sending, not a thrown URIError", async () => {
  const { db, rec } = makeDb();
  const title = column<string>("title");
  const r = await db.select("t", { block: (b) => b.where((w) => w.eq(title, "\uD800x")) });
  assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(r.errorOrNull()!.message, /lone surrogate/);
  assert.equal(rec.requests.length, 0);
});

Deno.test("PostgREST errors map to ServiceError with code, details and hint", async () => {
  const { db } = makeDb(() =>
    jsonResponse({
      code: "42P01",
      details: null,
      hint: "Perhaps you meant todos",
      message: 'relation "todo" does not exist',
    }, {
      status: 404,
    })
  );
  const e = (await db.select("todo")).errorOrNull()!;
  assert.equal(e.category, "NOT_FOUND");
  assert.equal(e.code, "42P01");
  assert.equal(e.hint, "Perhaps you meant todos");
});

Deno.test("a caller's Prefer adds to the computed directives instead of replacing them", async () => {
  const { db, rec } = makeDb(() => new Response("[]"));
  await db.update("t", '{"a":1}', (w) => w.eq(id, 1), {
    maxAffected: 5,
    rollback: true,
    headers: { Prefer: "timezone=UTC" },
  });
  const prefer = rec.last.headers.get("prefer")!;
  for (const d of ["tx=rollback", "handling=strict", "max-affected=5", "timezone=UTC"]) {
    assert.ok(prefer.includes(d), `${d} in ${prefer}`);
  }
});

Deno.test("GET RPC arguments: Dates as JSON text, an object form for rpcGet, unsafe numbers refused, JSON text exact", async () => {
  const { db, rec } = makeDb(() => new Response("[]"));
  await db.rpcGet("f", { params: { since: new Date(0), tags: ["a"], skip: null } });
  assert.deepEqual(pairs(rec.last.url), [["since", "1970-01-01T00:00:00.000Z"], ["tags", '["a"]']]);
  // A number already rounded cannot be sent as meant...
  await assertInvalid(db.rpcGet("f", { params: { id: 2 ** 53 + 2 } }), /safe integers/);
  // ...but JSON text holds the exact digits, which go as written.
  await db.rpc("f", { params: '{"id": 9007199254740993}', format: ResponseFormat.HEAD });
  assert.deepEqual(pairs(rec.last.url), [["id", "9007199254740993"]]);
  await assertInvalid(
    db.rpc("f", { params: "hello", format: ResponseFormat.HEAD }),
    /'params' is not JSON/,
  );
});

Deno.test('column names are escaped in columns=: a backslash as \\\\, a quote as \\"; select keeps escapes inside quotes', async () => {
  const { db, rec } = makeDb(() => jsonResponse([], { status: 201 }));
  await db.insert("t", JSON.stringify([{ "a\\": 1, 'q"': 2 }, { b: 3 }]));
  assert.equal(q(rec.last.url, "columns"), '"a\\\\","q\\"","b"');
  await db.insert("t", "[]", { columns: ["x\\", "y"] });
  assert.equal(q(rec.last.url, "columns"), '"x\\\\","y"');
  await db.select("t", { columns: 'id, "a\\" b" , c' });
  assert.equal(q(rec.last.url, "select"), 'id,"a\\" b",c');
});

Deno.test("GET/HEAD RPC arguments PostgREST would take as modifiers or filters are refused before sending", async () => {
  const { db, rec } = makeDb();
  for (
    const params of [
      { limit: 10 },
      { offset: 2 },
      { "a.order": "x" },
      { select: "x" },
      { columns: "x" },
      { domain: "cs.stanford.edu" },
      { note: "not.sure" },
      { host: "is.gd" },
      { v: "eq(any).{1}" },
      { v: "fts(english).x" },
      // Names PostgREST would read in part: the function would get another argument.
      { "a.b": 1 },
      { "p->x": 2 },
      { "a:b": 3 },
    ]
  ) {
    assert.throws(() => db.buildRpcGet("f", { params }), TypeError, JSON.stringify(params));
    assert.throws(
      () => db.buildRpc("f", { params: JSON.stringify(params), format: ResponseFormat.HEAD }),
      TypeError,
      JSON.stringify(params),
    );
  }
  // The calls resolve a Failure (the value may be user data, such as an email "not.sure@x.io").
  const viaGet = await db.rpcGet("find_user", { params: { email: "not.sure@x.io" } });
  assert.equal(viaGet.errorOrNull()?.category, "INVALID_ARGUMENT");
  const viaHead = await db.rpc("f", {
    params: JSON.stringify({ limit: 1 }),
    format: ResponseFormat.HEAD,
  });
  assert.equal(viaHead.errorOrNull()?.category, "INVALID_ARGUMENT");
  const typed = await rpcGetTyped(db, "find_user", { params: { email: "not.sure@x.io" } });
  assert.equal(typed.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 0);
  // queryParams go as they are: a filter on the result is their purpose.
  await db.rpcGet("f", { queryParams: { id: "eq.5" } });
  assert.equal(rec.last.url.search, "?id=eq.5");
  // A plain object as rpc params (JavaScript callers) goes as its JSON.
  await db.rpc("f", { params: { a: 1 } as unknown as string });
  assert.equal(rec.last.text, '{"a":1}');
  // Values that only look like operators pass (a quantifier or config PostgREST would not take).
  await db.rpcGet("f", {
    params: { a: "cs(any).x", b: "neq(all).x", c: "fts().x", "first-name": 1, "first name": 2 },
  });
  assert.equal(rec.last.url.searchParams.get("first name"), "2");
  assert.equal(rec.last.url.searchParams.get("a"), "cs(any).x");
  assert.equal(rec.last.url.searchParams.get("first-name"), "1");
  // Ordinary names and values pass, and POST takes anything.
  await db.rpcGet("f", { params: { limits: 1, note: "nota.bene", domain: "stanford.edu" } });
  assert.equal(rec.last.url.search, "?limits=1&note=nota.bene&domain=stanford.edu");
  await db.rpc("f", { params: JSON.stringify({ limit: 10, domain: "cs.stanford.edu" }) });
  assert.equal(rec.last.text, '{"limit":10,"domain":"cs.stanford.edu"}');
});

Deno.test("PostgREST edges: JSON details are kept as text; XML and YAML plans are refused before sending", async () => {
  const rels = [{ cardinality: "many-to-one", relationship: "todos_owner_fkey" }];
  const { db, rec } = makeDb(() =>
    jsonResponse({
      code: "PGRST201",
      message: "Could not embed because more than one relationship was found",
      details: rels,
      hint:
        "Try changing 'users' to one of the following. Find the desired relationship in the 'details' key.",
    }, { status: 300 })
  );
  const r = await db.select("todos", { columns: "*,users(*)" });
  assert.equal(r.errorOrNull()?.code, "PGRST201");
  // PostgREST's 300 is a request the caller must change (name the relationship).
  assert.equal(r.errorOrNull()?.category, "BAD_REQUEST");
  assert.equal(r.errorOrNull()?.status, 300);
  assert.deepEqual(JSON.parse(r.errorOrNull()?.details ?? "null"), rels);
  for (const format of [ExplainFormat.XML, ExplainFormat.YAML]) {
    assert.throws(() => db.buildSelect("todos", { explain: { format } }), TypeError, format);
  }
  assert.equal(rec.requests.length, 1);
  await db.select("todos", { explain: { format: ExplainFormat.JSON } });
  assert.match(rec.last.headers.get("accept") ?? "", /^application\/vnd\.pgrst\.plan\+json;/);
});

Deno.test("only the document's Limits throw from the operations: maxAffected and the range window; other misuse is a Failure", async () => {
  const { db, rec } = makeDb();
  // Limits: thrown synchronously, before any request.
  assert.throws(() => db.select("t", { block: (q) => q.range(5, 4) }), RangeError);
  assert.throws(() => db.select("t", { block: (q) => q.range(-1, 4) }), RangeError);
  assert.throws(() => db.delete("t", null, { maxAffected: 0 }), {
    name: "RangeError",
    message: /'maxAffected' must be > 0/,
  });
  // Not Limits: Failures.
  await assertInvalid(db.select("t", { block: (q) => q.limit(-1) }), /non-negative integer/);
  await assertInvalid(db.select("t", { block: (q) => q.offset(1.5) }), /non-negative integer/);
  await assertInvalid(
    db.select("t", { explain: { format: ExplainFormat.XML } }),
    /xml|XML/,
  );
  // A format that is no ExplainFormat would be written into Accept as it is.
  await assertInvalid(
    db.select("t", { explain: { format: 'json; for="text/csv"' as never } }),
    /not an ExplainFormat/,
  );
  await assertInvalid(
    db.update("t", "{}", (w) => w.inList(column("id"), [null as never])),
    /null/,
  );
  await assertInvalid(db.rpcGet("f", { params: { limit: 1 } }), /limit/);
  assert.equal(rec.requests.length, 0);
});

Deno.test("explain buffers or wal without analyze is a Failure: the document says they need it", async () => {
  const { db, rec } = makeDb();
  await assertInvalid(db.select("t", { explain: { buffers: true } }), /'buffers' as it needs/);
  await assertInvalid(db.select("t", { explain: { wal: true } }), /'wal' as it needs/);
  assert.equal(rec.requests.length, 0);
  await db.select("t", { explain: { analyze: true, buffers: true, wal: true } });
  assert.equal(
    rec.only.headers.get("accept"),
    'application/vnd.pgrst.plan+text; for="application/json"; options=analyze|buffers|wal;',
  );
});

/**
 * PostgREST's `Preference-Applied` (Preferences.hs `prefAppliedHeader` over Response.hs
 * `responsePreferences`): `return=`, `missing=` and `resolution=` only for table writes, then
 * `count=`, `tx=` (read only when `db-tx-end` allows overrides), `handling=`, and `max-affected=`
 * under strict handling; no header when nothing applies.
 */
function postgrestApplied(req: RecordedRequest, allowTx: boolean): string | null {
  const asked = (req.headers.get("prefer") ?? "").split(",").map((p) => p.trim());
  const rpc = req.url.pathname.includes("/rpc/");
  const kept = asked.filter((p) =>
    (!rpc && /^(return|missing|resolution)=/.test(p)) || /^(count|handling)=/.test(p) ||
    (allowTx && /^tx=/.test(p)) ||
    (/^max-affected=/.test(p) && asked.includes("handling=strict"))
  );
  return kept.length === 0 ? null : kept.join(", ");
}

Deno.test("rollback the server did not apply (Preference-Applied without tx=rollback) is Failure(CONFLICT): the write was committed", async () => {
  const server = (allowTx: boolean) => (req: RecordedRequest) => {
    const applied = postgrestApplied(req, allowTx);
    return new Response("[]", {
      headers: {
        "content-type": "application/json",
        ...(applied === null ? {} : { "preference-applied": applied }),
      },
    });
  };
  const calls = (db: DatabaseClient) => [
    () => db.delete("t", (w) => w.eq(id, 1), { rollback: true }),
    () => db.update("t", '{"a":1}', null, { rollback: true, returning: "minimal" }),
    () => db.insert("t", '{"a":1}', { rollback: true }),
    () => db.rpc("f", { params: "{}", rollback: true }),
    () => db.rpc("f", { params: "{}", rollback: true, maxAffected: 3 }),
  ];
  // db-tx-end = commit (PostgREST's default) drops tx=rollback: every write was committed.
  const committed = makeDb(server(false));
  for (const call of calls(committed.db)) {
    const r = await call();
    assert.equal(r.errorOrNull()?.category, "CONFLICT");
    assert.match(r.errorOrNull()!.message, /Cannot confirm the rollback/);
  }
  assert.equal(committed.rec.requests.length, 5);
  // A function call's answer lists no return=: the call asks for the default handling, which
  // the answer lists, so that the missing tx=rollback shows.
  assert.match(committed.rec.requests[3].headers.get("prefer")!, /handling=lenient/);
  assert.doesNotMatch(committed.rec.requests[4].headers.get("prefer")!, /handling=lenient/);
  // db-tx-end = commit-allow-override applies it and says so: the answers stand.
  const applied = makeDb(server(true));
  for (const call of calls(applied.db)) assert.equal((await call()).getOrThrow(), "[]");
  // No header to tell (hidden by CORS from a page on another origin, or a server that applied
  // nothing): the write may have been committed, refused as well.
  const silent = makeDb(() => jsonResponse([]));
  const unknown = await silent.db.delete("t", null, { rollback: true });
  assert.equal(unknown.errorOrNull()?.category, "CONFLICT");
  assert.match(unknown.errorOrNull()!.message, /shows no Preference-Applied/);
  // A plan's answer never carries it: it stands.
  const plan = makeDb(() =>
    new Response("Delete on t", {
      headers: { "content-type": 'application/vnd.pgrst.plan+text; for="application/json"' },
    })
  );
  const explained = await plan.db.delete("t", null, {
    rollback: true,
    explain: { analyze: true },
  });
  assert.equal(explained.getOrThrow(), "Delete on t");
  // Without rollback nothing is checked, and nothing more is asked.
  const plain = makeDb(server(false));
  assert.equal((await plain.db.delete("t", null)).getOrThrow(), "[]");
  await plain.db.rpc("f", { params: "{}" });
  assert.equal(plain.rec.requests[1].headers.get("prefer"), null);
});

Deno.test("a column name with a tab inside goes quoted, inner spaces as they are; whitespace at its ends is refused", async () => {
  const { db, rec } = makeDb();
  await db.select("t", {
    block: (q) => q.where((w) => w.eq(column("a\tb"), 1).eq(column("data->>some key"), 2)),
  });
  assert.deepEqual(pairs(rec.last.url).slice(1), [['"a\tb"', "eq.1"], [
    "data->>some key",
    "eq.2",
  ]]);
  for (const name of ["first name ", "\tab", "data->>some key "]) {
    await assertInvalid(
      db.select("t", { block: (q) => q.where((w) => w.eq(column(name), 1)) }),
      /no whitespace at its ends/,
      name,
    );
  }
  assert.equal(rec.requests.length, 1);
});
