import assert from "node:assert/strict";
import {
  column,
  insertTyped,
  insertTypedMany,
  paginator,
  QueryBuilder,
  rpcGetMaybeSingleTyped,
  rpcMaybeSingleTyped,
  rpcSingleTyped,
  rpcTyped,
  selectMaybeSingleTyped,
  selectSingleTyped,
  selectTyped,
  selectWithCountTyped,
  type StandardSchemaV1,
  updateTyped,
  validateAll,
  type WhereBuilder,
} from "../../database/mod.ts";
import { parseJsonInt64 } from "../../core/_json_int64.ts";
import { checkColumn } from "../../database/_encode.ts";
import { jsonResponse } from "../support/recording_fetch.ts";
import { assertInvalid, makeDb } from "./_helpers.ts";

const text = (body: string, status = 200) =>
  new Response(body, { status, headers: { "content-type": "application/json" } });

// --- int8 beyond 2^53 -------------------------------------------------------------------------

const BIG_ROW = '{"id":9007199254740993,"note":"ref 12345678901234567890","n":9007199254740991}';

Deno.test("typed reads keep integers beyond 2^53 exact (bigint), so a row read and written back hits the same row", async () => {
  const { db, rec } = makeDb(() => text(`[${BIG_ROW}]`));
  const [row] = (await selectTyped<{ id: bigint; note: string; n: number }>(db, "t"))
    .getOrThrow();
  assert.equal(row.id, 9007199254740993n);
  assert.equal(row.note, "ref 12345678901234567890"); // digits inside a string stay text
  assert.equal(row.n, 9007199254740991); // a safe integer stays a number
  await updateTyped(db, "t", { note: "x" }, (w) => w.eq(column<bigint>("id"), row.id));
  assert.equal(rec.last.url.searchParams.get("id"), "eq.9007199254740993");
  const [back] = (await updateTyped(db, "t", { id: row.id }, null)).getOrThrow() as Array<
    { id: bigint }
  >;
  assert.equal(rec.last.text, '{"id":9007199254740993}');
  assert.equal(back.id, 9007199254740993n);
});

Deno.test("every typed reader and the paginator read integers beyond 2^53 as bigint", async () => {
  const { db } = makeDb((req) =>
    req.headers.get("accept") === "application/vnd.pgrst.object+json"
      ? text(BIG_ROW)
      : text(`[${BIG_ROW}]`)
  );
  const id = (v: unknown) => (v as { id: unknown }).id;
  assert.equal(id((await selectSingleTyped(db, "t")).getOrThrow()), 9007199254740993n);
  assert.equal(id((await selectMaybeSingleTyped(db, "t")).getOrThrow()), 9007199254740993n);
  assert.equal(id((await selectWithCountTyped(db, "t")).getOrThrow().rows[0]), 9007199254740993n);
  assert.equal(id(((await rpcTyped(db, "f")).getOrThrow() as unknown[])[0]), 9007199254740993n);
  assert.equal(id((await rpcSingleTyped(db, "f")).getOrThrow()), 9007199254740993n);
  assert.equal(id((await rpcMaybeSingleTyped(db, "f")).getOrThrow()), 9007199254740993n);
  assert.equal(id((await rpcGetMaybeSingleTyped(db, "f")).getOrThrow()), 9007199254740993n);
  const p = paginator(db, "t", { pageSize: 1 });
  await p.loadNext();
  assert.equal(id(p.items.value[0]), 9007199254740993n);
});

Deno.test("parseJsonInt64: only integer literals beyond 2^53 become bigint; strings, keys, fractions and exponents stay", () => {
  assert.deepEqual(
    parseJsonInt64(
      '{"12345678901234567890":"a\\"12345678901234567890","b":-9007199254740993,' +
        '"c":1234567890123456.5,"d":1e20,"e":9007199254740991,"f":[18446744073709551615]}',
    ),
    {
      "12345678901234567890": 'a"12345678901234567890',
      b: -9007199254740993n,
      c: 1234567890123456.5,
      d: 1e20,
      e: 9007199254740991,
      f: [18446744073709551615n],
    },
  );
  assert.deepEqual(parseJsonInt64('[1,"x",{"a":123456789012345}]'), [1, "x", {
    a: 123456789012345,
  }]);
  assert.throws(() => parseJsonInt64("[1,"), SyntaxError);
});

// --- referencedTable --------------------------------------------------------------------------

Deno.test("referencedTable must be an embed path: a JSON path or a 'not' segment is INVALID_ARGUMENT, with no request", async () => {
  const { db, rec } = makeDb();
  const id = column<number>("id");
  const bad = ["items->x", "items->>x", "a.b->0", "not", "a.not", "not.a"];
  for (const t of bad) {
    const o = { referencedTable: t };
    await assertInvalid(db.select("t", { block: (q) => q.limit(1, o) }), /referencedTable/, t);
    await assertInvalid(db.select("t", { block: (q) => q.offset(1, o) }), /referencedTable/, t);
    await assertInvalid(db.select("t", { block: (q) => q.range(0, 1, o) }), /referencedTable/, t);
    await assertInvalid(db.select("t", { block: (q) => q.orderBy(id, o) }), /referencedTable/, t);
    await assertInvalid(
      db.select("t", { block: (q) => q.where((w) => w.or((g) => g.eq(id, 1), o)) }),
      /referencedTable/,
      t,
    );
    await assertInvalid(
      db.select("t", { block: (q) => q.where((w) => w.and((g) => g.eq(id, 1), o)) }),
      /referencedTable/,
      t,
    );
    assert.throws(() => new QueryBuilder().limit(1, o), TypeError);
  }
  // `within` on a column under a table path sends that path as a group's.
  await assertInvalid(
    db.select("t", {
      block: (q) => q.where((w) => w.within(column<number>("not.age"), { from: 1, to: 2 })),
    }),
    /not/,
  );
  assert.equal(rec.requests.length, 0);
});

Deno.test("referencedTable: embeds named and, or, order or with '-' are ordinary path segments", () => {
  const q = new QueryBuilder()
    .where((w) => w.or((g) => g.eq(column("a"), 1), { referencedTable: "x.or" }))
    .limit(1, { referencedTable: "and.my-embed" });
  assert.deepEqual(q.toQueryPairs(), [["x.or.or", "(a.eq.1)"], ["and.my-embed.limit", "1"]]);
});

// --- maybe-single: only PostgREST's zero-rows 406 -----------------------------------------------

Deno.test("maybe-single: a 406 without PostgREST's PGRST116 and '0 rows' details fails, whatever its message says", async () => {
  const answers = [
    () => new Response("<html>no rows</html>", { status: 406 }),
    () => jsonResponse({ message: "No rows found" }, { status: 406 }),
    () => jsonResponse({ code: "X1", details: "The result contains 0 rows" }, { status: 406 }),
    () =>
      jsonResponse({ code: "PGRST116", details: "no rows", message: "no rows" }, { status: 406 }),
  ];
  for (const [i, answer] of answers.entries()) {
    const { db } = makeDb(answer);
    assert.equal((await selectMaybeSingleTyped(db, "t")).errorOrNull()?.status, 406, `${i}`);
    assert.equal((await rpcGetMaybeSingleTyped(db, "f")).errorOrNull()?.status, 406, `${i}`);
  }
  const { db } = makeDb(() =>
    jsonResponse({
      code: "PGRST116",
      details: "The result contains 0 rows",
      hint: null,
      message: "JSON object requested, multiple (or no) rows returned",
    }, { status: 406 })
  );
  assert.equal((await selectMaybeSingleTyped(db, "t")).getOrThrow(), null);
  assert.equal((await rpcGetMaybeSingleTyped(db, "f")).getOrThrow(), null);
  // PostgREST before 10 sent no code: its own details still say so.
  const v9 = makeDb(() =>
    jsonResponse({
      message: "JSON object requested, multiple (or no) rows returned",
      details: "Results contain 0 rows, application/vnd.pgrst.object+json requires 1 row",
    }, { status: 406 })
  );
  assert.equal((await selectMaybeSingleTyped(v9.db, "t")).getOrThrow(), null);
});

// --- single: a row is never null --------------------------------------------------------------

Deno.test("selectSingleTyped: a 200 with an empty or null body is DECODE; rpcSingleTyped keeps a scalar NULL", async () => {
  for (const body of ["", "null", " \n"]) {
    const { db } = makeDb(() => text(body));
    const r = await selectSingleTyped(db, "t");
    assert.equal(r.errorOrNull()?.category, "DECODE", JSON.stringify(body));
  }
  const { db } = makeDb(() => text("null"));
  assert.equal((await rpcSingleTyped(db, "f")).getOrThrow(), null);
});

// --- validators: never a rejection ------------------------------------------------------------

Deno.test("a validator whose '~standard' getter throws is DECODE, never a rejected promise", async () => {
  const hostile = {
    get ["~standard"](): never {
      throw new Error("getter");
    },
  } as unknown as StandardSchemaV1<unknown>;
  const { db } = makeDb(() => jsonResponse([{ id: 1 }]));
  const r = await selectTyped(db, "t", { validator: hostile });
  assert.equal(r.errorOrNull()?.category, "DECODE");
  assert.match(r.errorOrNull()?.message ?? "", /getter/);
  const direct = await validateAll([1], hostile);
  assert.equal(direct.errorOrNull()?.category, "DECODE");
  // Read once: a getter that answers differently the second time cannot swap the schema.
  let reads = 0;
  const fickle = {
    get ["~standard"]() {
      if (reads++ > 0) throw new Error("read twice");
      return { version: 1, vendor: "t", validate: (v: unknown) => ({ value: v }) };
    },
  } as unknown as StandardSchemaV1<{ id: number }>;
  const rows = await selectTyped(db, "t", { validator: fickle });
  assert.deepEqual(rows.getOrThrow(), [{ id: 1 }]);
  assert.equal(reads, 1);
});

// --- column names are checked in linear time ------------------------------------------------

Deno.test("a column name is checked in linear time: an all-digit JSON key no longer parses two ways at every '->' (a 92-character name took 107 s)", () => {
  for (
    const name of [
      "a" + "->1".repeat(5_000) + ":",
      "a" + "->-1".repeat(5_000) + ":",
      "a" + "->a-b".repeat(3_000) + ":",
      "a->" + "1-".repeat(5_000) + ":",
    ]
  ) {
    const started = performance.now();
    checkColumn(name); // the last key goes quoted: `"1:"`
    assert.ok(performance.now() - started < 1_000, `${performance.now() - started} ms`);
  }
});

Deno.test("the names the former pattern accepted are sent as they are, but for letters beyond ASCII (seeded short names)", () => {
  // Letters beyond ASCII go quoted: PostgREST's Unicode tables may not know them.
  const IDENT = "[A-Za-z0-9_$]+(?:-(?!>)[A-Za-z0-9_$]+)*";
  const KEY = "[^(\\-:.,>)é]+(?:-(?!>)[^(\\-:.,>)é]+)*";
  const former = new RegExp(`^${IDENT}(?:\\.${IDENT})*(?:->>?(?:-?[0-9]+|${KEY}))*$`, "u");
  const pieces = ["a", "1", "-", "->", "->>", ".", ":", "é", "_", "$", "0", ">", "x-y"];
  let seed = 11;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = 0; i < 20_000; i++) {
    let name = "";
    const length = 1 + Math.floor(rnd() * 8);
    for (let j = 0; j < length; j++) name += pieces[Math.floor(rnd() * pieces.length)];
    // The others go quoted or are refused (tests/database/column_names_test.ts).
    if (former.test(name)) assert.equal(checkColumn(name, false), name, JSON.stringify(name));
  }
});

Deno.test("a client-wide Prefer is the base of every call's Prefer: tx=rollback and timezone survive computed directives, and the rollback guard sees it", async () => {
  const { createBaseClient } = await import("../../core/client.ts");
  const { createDatabaseClient } = await import("../../database/mod.ts");
  const { recordingFetch } = await import("../support/recording_fetch.ts");
  const rec = recordingFetch(() =>
    new Response("[]", {
      headers: {
        "content-type": "application/json",
        "content-range": "0-0/0",
        // A server whose db-tx-end does not allow overrides: it applies only return=.
        "preference-applied": "return=representation",
      },
    })
  );
  const db = createDatabaseClient(
    createBaseClient("https://p.example", "anon-key", {
      fetch: rec.fetch,
      headers: { Prefer: "tx=rollback,timezone=Europe/Paris" },
    }),
  );
  const prefer = () => rec.requests.at(-1)!.headers.get("prefer")!.split(",").sort();
  await db.select("todos");
  assert.deepEqual(prefer(), ["timezone=Europe/Paris", "tx=rollback"]);
  await db.selectCount("todos");
  assert.deepEqual(prefer(), ["count=exact", "timezone=Europe/Paris", "tx=rollback"]);
  // A write: the client's rollback goes with the computed return=, and since the server did not
  // apply it (Preference-Applied without tx=rollback), the write is reported as committed.
  const insert = await db.insert("todos", JSON.stringify({ title: "x" }));
  assert.deepEqual(prefer(), ["return=representation", "timezone=Europe/Paris", "tx=rollback"]);
  assert.equal(insert.errorOrNull()?.category, "CONFLICT");
  // A call's own directive replaces the client's of the same name.
  await db.select("todos", { headers: { Prefer: "timezone=UTC" } });
  assert.deepEqual(prefer(), ["timezone=UTC", "tx=rollback"]);
});

Deno.test("a Map (the document's Map<String,String>) passes its entries as function arguments, GET or POST; it went out as no arguments", async () => {
  const { rpcTyped, rpcGetTyped } = await import("../../database/rpc_typed.ts");
  const { db, rec } = makeDb(() => jsonResponse([{ n: 1 }]));
  const last = () => rec.requests.at(-1)!;
  assert.ok((await db.rpcGet("items", { queryParams: new Map([["user_id", "42"]]) })).ok);
  assert.equal(last().url.searchParams.get("user_id"), "42");
  assert.ok((await db.rpcGet("items", { params: new Map<string, unknown>([["user_id", 7]]) })).ok);
  assert.equal(last().url.searchParams.get("user_id"), "7");
  assert.ok(
    (await db.rpc("items", { params: new Map([["user_id", 9]]) as unknown as string })).ok,
  );
  assert.deepEqual(last().json(), { user_id: 9 });
  assert.ok((await rpcTyped(db, "items", { params: new Map([["user_id", 5]]) })).ok);
  assert.deepEqual(last().json(), { user_id: 5 });
  assert.ok((await rpcGetTyped(db, "items", { queryParams: new Map([["user_id", "6"]]) })).ok);
  assert.equal(last().url.searchParams.get("user_id"), "6");
  // A Map of another realm (an iframe's, a node:vm context's) is a Map too.
  const { runInNewContext } = await import("node:vm");
  const foreign = runInNewContext('new Map([["user_id", "8"]])') as Map<string, string>;
  assert.ok((await db.rpcGet("items", { queryParams: foreign })).ok);
  assert.equal(last().url.searchParams.get("user_id"), "8");
  assert.ok((await db.rpc("items", { params: foreign as unknown as string })).ok);
  assert.deepEqual(last().json(), { user_id: "8" });
});

Deno.test("a function call's rollback check works with a client-wide tx=rollback, and keeps a client-wide strict cap", async () => {
  const { createBaseClient } = await import("../../core/client.ts");
  const { createDatabaseClient } = await import("../../database/mod.ts");
  const { recordingFetch } = await import("../support/recording_fetch.ts");
  const make = (prefer: string) => {
    // A server whose db-tx-end ignores tx: it lists only the handling it was given.
    const rec = recordingFetch((req) => {
      const handling = /handling=\w+/.exec(req.headers.get("prefer") ?? "")?.[0];
      return new Response("[]", {
        headers: {
          "content-type": "application/json",
          ...(handling ? { "preference-applied": handling } : {}),
        },
      });
    });
    const db = createDatabaseClient(
      createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch, headers: { prefer } }),
    );
    return { db, prefer: () => rec.requests.at(-1)!.headers.get("prefer")!.split(",").sort() };
  };
  const clientWide = make("tx=rollback");
  const r = await clientWide.db.rpc("f");
  assert.deepEqual(clientWide.prefer(), ["handling=lenient", "tx=rollback"]);
  assert.equal(r.errorOrNull()?.category, "CONFLICT", "the rollback was not applied: committed");
  const strict = make("handling=strict,max-affected=1");
  await strict.db.rpc("f", { rollback: true });
  assert.deepEqual(strict.prefer(), ["handling=strict", "max-affected=1", "tx=rollback"]);
  // Without any rollback nothing is added.
  const plain = make("timezone=UTC");
  assert.ok((await plain.db.rpc("f")).ok);
  assert.deepEqual(plain.prefer(), ["timezone=UTC"]);
});

// --- operands that JSON would misrepresent (a review against PostgREST's grammar) -------------

Deno.test("an array compared with greater, less or within is a Postgres array, as with eq: JSON text is a malformed array literal", () => {
  const tags = column<string[]>("tags");
  const pairsOf = (block: (w: WhereBuilder) => void) => {
    const q = new QueryBuilder();
    q.where(block);
    return q.toQueryPairs();
  };
  assert.deepEqual(
    pairsOf((w) =>
      w.greater(tags, ["b", "c"]).greaterEq(tags, ["b"]).less(tags, ["x y"]).lessEq(tags, ["x"])
    ),
    [["tags", "gt.{b,c}"], ["tags", "gte.{b}"], ["tags", 'lt.{"x y"}'], ["tags", "lte.{x}"]],
  );
  assert.deepEqual(pairsOf((w) => w.within(tags, { from: ["a"], to: ["m", "n"] })), [
    ["and", "(tags.gte.{a},tags.lte.{m,n})"],
  ]);
  // Inside a group too; an element holding a brace quotes the whole literal there.
  assert.deepEqual(
    pairsOf((w) => w.or((o) => o.greater(tags, ["a"]).less(tags, ["{z}"]))),
    [["or", '(tags.gt.{a},tags.lt."{\\"{z}\\"}")']],
  );
  // Scalars are unchanged.
  assert.deepEqual(pairsOf((w) => w.within(column<number>("n"), { from: 1, to: 9 })), [
    ["and", "(n.gte.1,n.lte.9)"],
  ]);
});

Deno.test("a Map operand goes as its entries: as {} a contains matched, and a delete removed, every object", async () => {
  const meta = column<Record<string, unknown>>("meta");
  const owner = new Map<string, unknown>([["owner", "u1"]]);
  const { db, rec } = makeDb(() => new Response(null, { status: 204 }));
  const r = await db.delete("docs", (w) => w.contains(meta, owner as never));
  assert.equal(r.ok, true);
  assert.equal(rec.last.url.searchParams.get("meta"), 'cs.{"owner":"u1"}');
  const q = new QueryBuilder();
  q.where((w) =>
    w.eq(meta, owner as never).containedBy(meta, owner as never).overlaps(meta, owner as never)
  );
  assert.deepEqual(q.toQueryPairs(), [
    ["meta", 'eq.{"owner":"u1"}'],
    ["meta", 'cd.{"owner":"u1"}'],
    ["meta", 'ov.{"owner":"u1"}'],
  ]);
  // At any depth, beside a Date and an object of its own toJSON, which keep their JSON.
  const deep = new QueryBuilder();
  const when = new Date(0);
  const money = { toJSON: () => "1.50" };
  deep.where((w) => w.contains(meta, { owner, tags: [new Map([["a", 1]])], when, money } as never));
  assert.deepEqual(deep.toQueryPairs(), [
    [
      "meta",
      'cs.{"owner":{"owner":"u1"},"tags":[{"a":1}],"when":"1970-01-01T00:00:00.000Z","money":"1.50"}',
    ],
  ]);
  // A Set's JSON is {} as well: refused, before any request, wherever it is.
  for (
    const block of [
      (w: WhereBuilder) => w.contains(meta, new Set(["a"]) as never),
      (w: WhereBuilder) => w.eq(meta, new Set(["a"]) as never),
      (w: WhereBuilder) => w.contains(meta, { nested: [new Set(["a"])] } as never),
    ]
  ) {
    const before = rec.requests.length;
    const refused = await db.delete("docs", block);
    assert.equal(refused.errorOrNull()?.category, "INVALID_ARGUMENT");
    assert.match(refused.errorOrNull()!.message, /holds a Set: pass an array/);
    assert.equal(rec.requests.length, before);
  }
});

Deno.test("typed writes take a Map row as its entries: as {} an insert stored a row of defaults and an update changed nothing", async () => {
  const { db, rec } = makeDb(() => jsonResponse([{ id: 1, title: "a" }], { status: 201 }));
  const row = new Map<string, unknown>([["title", "a"], ["note", null]]);
  await insertTyped(db, "todos", row as never);
  assert.equal(rec.last.text, '{"title":"a","note":null}');
  await insertTypedMany(db, "todos", [row, new Map([["title", "b"]])] as never);
  assert.equal(rec.last.text, '[{"title":"a","note":null},{"title":"b"}]');
  await updateTyped(db, "todos", row as never, (w) => w.eq("id", 1));
  assert.equal(rec.last.text, '{"title":"a"}');
});

Deno.test("writes take a Map at any depth as its entries and refuse a Set: as {}, a nested Map or a Set of tags was stored empty", async () => {
  const { db, rec } = makeDb(() => jsonResponse([{ id: 1 }], { status: 201 }));
  const meta = new Map<string, unknown>([["lang", "en"], ["seen", new Map([["web", 2]])]]);
  const row = { title: "a", meta, list: [new Map([["k", 1]])], when: new Date(0) };
  const json = '{"title":"a","meta":{"lang":"en","seen":{"web":2}},"list":[{"k":1}],' +
    '"when":"1970-01-01T00:00:00.000Z"}';
  await insertTyped(db, "docs", row);
  assert.equal(rec.last.text, json);
  await insertTypedMany(db, "docs", [row, { title: "b" }]);
  assert.equal(rec.last.text, `[${json},{"title":"b"}]`);
  await updateTyped(db, "docs", { title: "a", meta, gone: null }, (w) => w.eq("id", 1));
  assert.equal(rec.last.text, '{"title":"a","meta":{"lang":"en","seen":{"web":2}}}');
  await rpcTyped(db, "tag", { params: { args: { meta } } });
  assert.equal(rec.last.text, '{"args":{"meta":{"lang":"en","seen":{"web":2}}}}');
  // From JavaScript: the document types it as text, an object goes as its JSON.
  await db.rpc("tag", { params: { args: [meta] } as never });
  assert.equal(rec.last.text, '{"args":[{"lang":"en","seen":{"web":2}}]}');
  await db.rpcGet("tag", { params: { meta } });
  assert.equal(
    rec.last.url.searchParams.get("meta"),
    '{"lang":"en","seen":{"web":2}}',
  );
  // A value holding no Map goes as it is: the same JSON as JSON.stringify gives.
  const plain = { a: [1, , 3], b: { c: "d" }, e: undefined, f: new Date(0) };
  await insertTyped(db, "docs", plain);
  assert.equal(rec.last.text, JSON.stringify(plain));

  const before = rec.requests.length;
  const tags = new Set(["red", "blue"]);
  for (
    const [what, call] of [
      ["insert", () => insertTyped(db, "docs", { title: "a", tags })],
      ["insert", () => insertTypedMany(db, "docs", [{ title: "a" }, { meta: { tags } }])],
      ["update", () => updateTyped(db, "docs", { tags }, (w) => w.eq("id", 1))],
      ["call the function", () => rpcTyped(db, "tag", { params: { tags } })],
      ["call the function", () => db.rpc("tag", { params: { nested: [tags] } as never })],
      ['pass "tags"', () => db.rpcGet("tag", { params: { tags: { tags } } })],
    ] as const
  ) {
    const r = await call();
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", what);
    assert.equal(
      r.errorOrNull()?.message,
      `Cannot ${what} as the value holds a Set: pass an array`,
    );
  }
  assert.equal(rec.requests.length, before, "nothing sent");
});

Deno.test("a value that holds itself, in a filter or a write, is refused at once: walking it for Maps took exponential time", async () => {
  // In a worker, so that a walk that never ends fails this test instead of holding the suite.
  const code = `
    import { createBaseClient } from ${
    JSON.stringify(new URL("../../core/mod.ts", import.meta.url).href)
  };
    import { column, createDatabaseClient, insertTyped } from ${
    JSON.stringify(new URL("../../database/mod.ts", import.meta.url).href)
  };
    const db = createDatabaseClient(createBaseClient("https://p.example", "k", {
      fetch: () => Promise.resolve(new Response("[]", { status: 201 })),
    }));
    postMessage("loaded");
    const loop = { n: 1 };
    loop.a = loop; loop.b = loop; loop.c = [loop, loop];
    const results = [
      await db.select("t", { block: (q) => q.where((w) => w.contains(column("m"), loop)) }),
      await insertTyped(db, "t", { title: "a", loop }),
      await insertTyped(db, "t", { title: "a", loop, meta: new Map([["loop", loop]]) }),
    ];
    postMessage(results.map((r) => r.ok ? "ok" : r.error.category + ": " + r.error.message));
  `;
  const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
  const worker = new Worker(url, { type: "module" });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    // The 10 s start once the worker's modules are loaded: under load, type-checking them alone
    // took longer (a generous 120 s bounds the load, so that a stuck check fails too).
    const answer = await new Promise<string[]>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error("the worker did not load in 120 s")), 120_000);
      worker.onmessage = (e) => {
        if (e.data !== "loaded") return resolve(e.data);
        clearTimeout(timer);
        timer = setTimeout(() => reject(new Error("still walking after 10 s")), 10_000);
      };
      worker.onerror = (e) => reject(new Error(e.message));
    });
    assert.equal(answer.length, 3);
    for (const a of answer) assert.match(a, /^INVALID_ARGUMENT: .*circular/i);
  } finally {
    clearTimeout(timer);
    worker.terminate();
    URL.revokeObjectURL(url);
  }
});

Deno.test("maybe-single reads under PostgREST 16's minimal error verbosity (a 406 without details): the same read as a list decides", async () => {
  // `client-error-verbosity = "minimal"`: only code and message, for zero rows and several alike.
  const minimal406 = () =>
    jsonResponse(
      { code: "PGRST116", message: "Cannot coerce the result to a single JSON object" },
      {
        status: 406,
      },
    );
  const cases: Array<[string, unknown, "null" | "row" | "fail"]> = [
    ["zero rows", [], "null"],
    ["one row (inserted meanwhile)", [{ id: 1 }], "row"],
    ["several rows", [{ id: 1 }, { id: 2 }], "fail"],
  ];
  for (const [what, rows, outcome] of cases) {
    for (const call of ["select", "rpcGet"] as const) {
      const { db, rec } = makeDb([minimal406(), jsonResponse(rows)]);
      const r = call === "select"
        ? await selectMaybeSingleTyped<{ id: number }>(db, "todos", {
          block: (q) => q.where((w) => w.eq("owner", "u1")),
        })
        : await rpcGetMaybeSingleTyped<{ id: number }>(db, "by_owner", {
          queryParams: { owner: "u1" },
        });
      assert.equal(rec.requests.length, 2, `${call} ${what}`);
      const [first, second] = rec.requests;
      assert.match(first.headers.get("accept") ?? "", /vnd\.pgrst\.object\+json/);
      assert.doesNotMatch(second.headers.get("accept") ?? "", /object/, `${call} ${what}: a list`);
      assert.equal(second.url.search, `${first.url.search}&limit=2`, "the same read, two rows");
      if (outcome === "null") assert.equal(r.getOrThrow(), null, `${call} ${what}`);
      if (outcome === "row") assert.deepEqual(r.getOrThrow(), { id: 1 }, `${call} ${what}`);
      if (outcome === "fail") {
        assert.equal(r.errorOrNull()?.code, "PGRST116", `${call} ${what}`);
        assert.equal(r.errorOrNull()?.status, 406);
      }
    }
  }
  // A window of the caller's own is kept; several rows keep the 406, whatever a validator says.
  const { db: db2, rec: rec2 } = makeDb([minimal406(), jsonResponse([{ id: "x" }, { id: "y" }])]);
  const several = await selectMaybeSingleTyped<{ id: number }>(db2, "todos", {
    block: (q) => q.range(10, 19),
    validator: (v) => {
      if (typeof (v as { id: unknown }).id !== "number") throw new TypeError("bad id");
      return v as { id: number };
    },
  });
  assert.equal(several.errorOrNull()?.code, "PGRST116");
  assert.equal(rec2.requests[1].url.searchParams.get("limit"), "10");
  assert.equal(rec2.requests[1].url.searchParams.get("offset"), "10");
  // The default (verbose) answer still decides at once.
  const { db, rec } = makeDb([
    jsonResponse({ code: "PGRST116", message: "m", details: "The result contains 0 rows" }, {
      status: 406,
    }),
  ]);
  assert.equal((await selectMaybeSingleTyped(db, "todos")).getOrThrow(), null);
  assert.equal(rec.requests.length, 1);
});

Deno.test("a filter value beyond 2^53 is refused (it went rounded: a delete by id reached another row); a bigint or a string goes exact", async () => {
  const { db, rec } = makeDb(() => new Response(null, { status: 204 }));
  const id = column<number>("id");
  const rounded = 12345678901234567890;
  for (
    const block of [
      (w: WhereBuilder) => w.eq(id, rounded),
      (w: WhereBuilder) => w.inList(id, [1, rounded]),
      (w: WhereBuilder) => w.greater(id, -(2 ** 53)),
    ]
  ) {
    await assertInvalid(
      db.delete("t", block),
      /as -?\d+ is beyond JavaScript's safe integers; pass it as a bigint or a string/,
    );
  }
  assert.equal(rec.requests.length, 0);
  await db.delete("t", (w) => w.eq(id, 12345678901234567890n as never).less(id, 2 ** 53 - 1));
  assert.deepEqual(rec.last.url.searchParams.getAll("id"), [
    "eq.12345678901234567890",
    "lt.9007199254740991",
  ]);
  // Fractions and floats written with an exponent are no ids: they go as JavaScript writes them.
  await db.delete("t", (w) => w.less(id, 1.5).greater(id, 1e-7).less(id, 1e300).greater(id, -1e21));
  assert.deepEqual(rec.last.url.searchParams.getAll("id"), [
    "lt.1.5",
    "gt.1e-7",
    "lt.1e+300",
    "gt.-1e+21",
  ]);
  // Inside a JSON operand too (contains went `cs.{"id":12345678901234567000}`).
  const doc = column<Record<string, unknown>>("doc");
  await assertInvalid(
    db.delete("t", (w) => w.contains(doc, { ref: { id: rounded } })),
    /12345678901234567000 is beyond JavaScript's safe integers/,
  );
  assert.equal(rec.requests.length, 2);
  // A write is JSON's, as postgrest-js writes it, whether or not it holds a Map (a write holding
  // one was refused, one without it sent).
  await insertTyped(db, "t", { n: 1e20 });
  assert.deepEqual(rec.last.json(), { n: 1e20 });
  await insertTyped(db, "t", { n: 1e20, m: new Map([["a", 1]]) });
  assert.deepEqual(rec.last.json(), { n: 1e20, m: { a: 1 } });
  assert.equal(rec.requests.length, 4);
});

Deno.test("PostgREST's 406 for an unexposed schema or an unavailable media type is BAD_REQUEST; a single read's PGRST116 stays NOT_FOUND", async () => {
  // PostgREST's Error.hs: PGRST106 (schema not exposed) and PGRST107 (a plan while
  // db-plan-enabled is off, GeoJSON without PostGIS) are 406 too.
  const answer = (code: string, message: string, details: string | null = null) =>
    jsonResponse({ code, message, details, hint: null }, { status: 406 });
  const { db } = makeDb([
    answer("PGRST107", "None of these media types are available: application/vnd.pgrst.plan"),
    answer("PGRST106", "Invalid schema: private", null),
    answer(
      "PGRST116",
      "Cannot coerce the result to a single JSON object",
      "The result contains 2 rows",
    ),
    () =>
      new Response(null, {
        status: 406,
        headers: { "proxy-status": "PostgREST; error=PGRST106" },
      }),
  ]);
  const plan = await db.select("t", { explain: {} });
  assert.equal(plan.errorOrNull()?.category, "BAD_REQUEST");
  assert.equal(plan.errorOrNull()?.code, "PGRST107");
  const schema = await db.select("t", { schema: "private" });
  assert.equal(schema.errorOrNull()?.category, "BAD_REQUEST");
  const single = await db.select("t", { format: "SINGLE" });
  assert.equal(single.errorOrNull()?.category, "NOT_FOUND");
  const head = await db.select("t", { format: "HEAD", schema: "private" });
  assert.equal(head.errorOrNull()?.code, "PGRST106");
  assert.equal(head.errorOrNull()?.category, "BAD_REQUEST");
});
