// Calls a JavaScript caller coming from supabase-js makes, which TypeScript refuses but JavaScript
// sent: a write without its filter block reached every row, a function's arguments given as the
// options were dropped, postgrest-js's `nullsFirst` and `foreignTable` were ignored (nulls where
// the server puts them, a limit on the parent rows instead of the embed's), and a list given to
// `insertTyped` came back typed as one row. Each is now INVALID_ARGUMENT, and nothing is sent.
import assert from "node:assert/strict";
import {
  deleteTyped,
  deleteUnit,
  guardValidator,
  insertTyped,
  rpcGetTyped,
  rpcTyped,
  selectTyped,
  updateTyped,
  updateUnit,
  updateUnitTyped,
  upsertTyped,
} from "../../database/mod.ts";
import { column } from "../../database/column.ts";
import { assertInvalid, makeDb } from "./_helpers.ts";

// deno-lint-ignore no-explicit-any
const js = (f: unknown) => f as (...args: any[]) => any;

Deno.test("a write with its block left out is INVALID_ARGUMENT and sends nothing; null still writes every row", async () => {
  const { db, rec } = makeDb();
  const calls: Array<[string, () => Promise<unknown>]> = [
    ["delete", () => js(db.delete.bind(db))("todos")],
    ["update", () => js(db.update.bind(db))("todos", '{"title":"x"}')],
    ["update", () => js(db.update.bind(db))("todos", '{"title":"x"}', undefined, {})],
    ["delete", () => js(deleteTyped)(db, "todos")],
    ["delete", () => js(deleteUnit)(db, "todos")],
    ["update", () => js(updateTyped)(db, "todos", { title: "x" })],
    ["update", () => js(updateUnit)(db, "todos", '{"title":"x"}')],
    ["update", () => js(updateUnitTyped)(db, "todos", { title: "x" })],
  ];
  for (const [verb, call] of calls) {
    await assertInvalid(
      call() as never,
      new RegExp(`^Cannot ${verb} as 'block' is missing: .*null for every row`),
      verb,
    );
  }
  // `id && ((w) => ...)` with an id of 0 (or an empty one): a falsy block is no filter either.
  for (const block of [false, 0, "", NaN]) {
    await assertInvalid(
      js(db.delete.bind(db))("todos", block),
      new RegExp(
        `^Cannot delete as 'block' is ${
          block === "" ? '""' : String(block)
        }: pass \\(w\\) => w\\.eq`,
      ),
    );
    await assertInvalid(js(deleteTyped)(db, "todos", block), /'block' is /);
    await assertInvalid(js(updateTyped)(db, "todos", { done: true }, block), /'block' is /);
  }
  assert.equal(rec.requests.length, 0);
  assert.equal((await db.delete("todos", null)).ok, true);
  assert.equal((await updateTyped(db, "todos", { title: "x" }, null)).ok, true);
  assert.deepEqual(rec.requests.map((r) => [r.method, r.url.search]), [
    ["DELETE", "?select=*"],
    ["PATCH", "?select=*"],
  ]);
});

Deno.test("a function's arguments given as its options (supabase-js's rpc(fn, args)) are INVALID_ARGUMENT naming them", async () => {
  const { db, rec } = makeDb();
  const args = { a: 1, b: 2 };
  for (
    const call of [
      () => js(db.rpc.bind(db))("add", args),
      () => js(db.rpcGet.bind(db))("add", args),
      () => js(rpcTyped)(db, "add", args),
      () => js(rpcGetTyped)(db, "add", args),
    ]
  ) {
    await assertInvalid(
      call() as never,
      /^Cannot call the function as "a", "b" are no options of the call: pass the function's arguments as \{ params: \{ \.\.\. \} \}$/,
    );
  }
  // One unknown key is named alone; the options the calls take are all accepted.
  await assertInvalid(
    js(db.rpc.bind(db))("add", { params: args, head: true }),
    /"head" is no option/,
  );
  assert.equal(rec.requests.length, 0);
  const options = {
    params: args,
    schema: "api",
    count: null,
    stripNulls: false,
    rollback: false,
    maxAffected: null,
    explain: null,
    retry: true,
    headers: {},
    signal: new AbortController().signal,
    timeout: 5000,
    block: undefined,
    validator: null,
  };
  const { retry: _, ...postOptions } = options;
  assert.equal((await db.rpc("add", { ...postOptions, retry: undefined } as never)).ok, true);
  assert.equal((await rpcTyped(db, "add", options as never)).ok, true);
  assert.equal((await db.rpcGet("add", { ...options, queryParams: [] } as never)).ok, true);
  assert.equal((await rpcGetTyped(db, "add", options as never)).ok, true);
  assert.deepEqual(rec.requests.map((r) => [r.method, r.text ?? r.url.search]), [
    ["POST", '{"a":1,"b":2}'],
    ["POST", '{"a":1,"b":2}'],
    ["GET", "?a=1&b=2"],
    ["GET", "?a=1&b=2"],
  ]);
});

Deno.test("postgrest-js's ordering and window options are INVALID_ARGUMENT with what to pass instead", async () => {
  const { db, rec } = makeDb();
  const name = column<string>("name");
  const cases: Array<[(q: never) => unknown, RegExp]> = [
    [
      (q: { orderBy: (...a: unknown[]) => unknown }) => q.orderBy(name, { nullsFirst: true }),
      /^Cannot order as 'nullsFirst' is no option here: pass \{ nulls: Nulls\.FIRST \}/,
    ],
    [
      (q: { orderBy: (...a: unknown[]) => unknown }) => q.orderBy(name, { foreignTable: "tags" }),
      /^Cannot order as 'foreignTable' is no option here: pass \{ referencedTable: \.\.\. \}/,
    ],
    [
      (q: { orderBy: (...a: unknown[]) => unknown }) => q.orderBy(name, { ascending: false }),
      /^Cannot order as 'ascending' is no option here: pass \{ order: Order\.DESC \}/,
    ],
    [
      (q: { limit: (...a: unknown[]) => unknown }) => q.limit(5, { foreignTable: "tags" }),
      /^Cannot set the limit as 'foreignTable' is no option here/,
    ],
    [
      (q: { offset: (...a: unknown[]) => unknown }) => q.offset(5, { foreignTable: "tags" }),
      /^Cannot set the offset as 'foreignTable' is no option here/,
    ],
    [
      (q: { range: (...a: unknown[]) => unknown }) => q.range(0, 4, { foreignTable: "tags" }),
      /^Cannot set the range as 'foreignTable' is no option here/,
    ],
    [
      (q: { range: (...a: unknown[]) => unknown }) => q.range(0, 4, "tags"),
      /^Cannot set the range as 'options' must be an object/,
    ],
    [
      (q: { limit: (...a: unknown[]) => unknown }) => q.limit(5, "tags"),
      /^Cannot set the limit as 'options' must be an object such as \{ referencedTable: "tags" \}: current value is "tags"$/,
    ],
    [
      (q: { offset: (...a: unknown[]) => unknown }) => q.offset(5, 1),
      /^Cannot set the offset as 'options' must be an object .*: current value is 1$/,
    ],
  ];
  for (const [block, message] of cases) {
    await assertInvalid(db.select("todos", { block: block as never }), message);
  }
  assert.equal(rec.requests.length, 0);
  // The options these calls take still go out.
  await db.select("todos", {
    columns: "*,tags(*)",
    block: (q) =>
      q.orderBy(name, { referencedTable: "tags", nulls: "nullsfirst" }).limit(5, {
        referencedTable: "tags",
      }).offset(1, { referencedTable: null }).limit(2, undefined),
  });
  assert.deepEqual([...rec.last.url.searchParams], [
    ["select", "*,tags(*)"],
    ["tags.order", "name.asc.nullsfirst"],
    ["tags.limit", "5"],
    ["limit", "2"],
    ["offset", "1"],
  ]);
});

Deno.test("insertTyped and upsertTyped take one row: a list or a primitive is INVALID_ARGUMENT (a compile error too)", async () => {
  const { db, rec } = makeDb();
  const list = [{ title: "a" }, { title: "b" }];
  for (const insert of [insertTyped, upsertTyped]) {
    await assertInvalid(
      js(insert)(db, "todos", list),
      /^Cannot insert as 'value' must be one row, an object \(insert a list with insertTypedMany or upsertTypedMany\): current value is an array$/,
    );
    await assertInvalid(
      js(insert)(db, "todos", "title"),
      /^Cannot insert as 'value' must be one row, an object: current value is "title"$/,
    );
    await assertInvalid(js(insert)(db, "todos", null), /current value is null$/);
  }
  assert.equal(rec.requests.length, 0);
  // Generic wrappers pass their row type through (a conditional type on T would refuse them).
  const save = <T extends object>(v: T) => insertTyped(db, "todos", v);
  const saveUp = <T extends Record<string, unknown>>(v: T) => upsertTyped(db, "todos", v);
  const saveTodo = <T extends { title: string }>(v: T) => insertTyped<T>(db, "todos", v);
  assert.equal((await save({ title: "w" })).ok, true);
  assert.equal((await saveUp({ title: "w" })).ok, true);
  assert.equal((await saveTodo({ title: "w", done: true })).ok, true);
  rec.requests.length = 0;
  // @ts-expect-error: a readonly list is no row either
  void (() => insertTyped(db, "todos", list as readonly { title: string }[]));
  // @ts-expect-error: a list is no row
  void (() => insertTyped(db, "todos", list));
  // @ts-expect-error: nor is a string
  void (() => upsertTyped(db, "todos", "title"));
  // A row, and an object with toJSON (a model class), still go.
  class Todo {
    constructor(readonly title: string) {}
    toJSON() {
      return { title: this.title };
    }
  }
  assert.equal((await insertTyped(db, "todos", { title: "a" })).ok, true);
  assert.equal((await upsertTyped(db, "todos", new Todo("b"))).ok, true);
  assert.deepEqual(rec.requests.map((r) => r.text), ['{"title":"a"}', '{"title":"b"}']);
  // The inferred row type of a typed select is untouched.
  const rows: { title: string }[] = (await selectTyped<{ title: string }>(db, "todos"))
    .getOrThrow();
  assert.deepEqual(rows, []);
});

// A type guard given as the validator made every row `true` or `false` (typed boolean), and a row
// failing it passed.
Deno.test("guardValidator makes a type guard a validator: rows that pass come back, one that fails is DECODE", async () => {
  interface Todo {
    title: string;
  }
  const isTodo = (v: unknown): v is Todo =>
    typeof v === "object" && v !== null && typeof (v as Todo).title === "string";
  const { db } = makeDb(() => Response.json([{ title: "a" }, { title: "b" }]));
  const rows: Todo[] = (await selectTyped(db, "todos", { validator: guardValidator(isTodo) }))
    .getOrThrow();
  assert.deepEqual(rows, [{ title: "a" }, { title: "b" }]);
  const bad = makeDb(() => Response.json([{ title: "a" }, { title: 2 }])).db;
  const r = await selectTyped(bad, "todos", { validator: guardValidator(isTodo) });
  assert.equal(r.errorOrNull()?.category, "DECODE");
  assert.match(
    r.errorOrNull()!.message,
    /^Cannot decode row 1: the value does not pass the type guard$/,
  );
  const named = await selectTyped(bad, "todos", {
    validator: guardValidator(isTodo, "not a todo"),
  });
  assert.match(named.errorOrNull()!.message, /row 1: not a todo$/);
  assert.throws(() => guardValidator(null as never), /'guard' must be a function/);
});

// From the mutation review of this session's code.
Deno.test("a function call names at most three keys that are no options, and refuses options that are no object", async () => {
  const { db, rec } = makeDb();
  await assertInvalid(
    db.rpc("add", { a: 1, b: 2, c: 3, d: 4 } as never),
    /^Cannot call the function as "a", "b", "c" are no options of the call/,
  );
  // A function's one argument given as the options was taken as none, the function called bare.
  for (
    const call of [
      () => db.rpc("add", "ab" as never),
      () => db.rpcGet("add", 5 as never),
      () => rpcTyped(db, "add", "ab" as never),
      () => rpcGetTyped(db, "add", true as never),
    ]
  ) {
    await assertInvalid(
      call(),
      /^Cannot call the function as 'options' must be an object such as \{ params: \{ \.\.\. \} \}: current value is /,
    );
  }
  assert.equal(rec.requests.length, 0);
});

Deno.test("a Map is one row to insertTyped and upsertTyped; a number or a bigint is a compile error", async () => {
  const { db, rec } = makeDb();
  assert.equal((await insertTyped(db, "todos", new Map([["title", "a"]]))).ok, true);
  assert.equal((await upsertTyped(db, "todos", new Map([["title", "b"]]))).ok, true);
  assert.deepEqual(rec.requests.map((r) => r.text), ['{"title":"a"}', '{"title":"b"}']);
  // @ts-expect-error: a number is no row
  void (() => insertTyped(db, "todos", 5));
  // @ts-expect-error: nor a bigint
  void (() => upsertTyped(db, "todos", 5n));
});
