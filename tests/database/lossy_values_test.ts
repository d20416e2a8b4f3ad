/**
 * Values JSON would change without a word (a function or a symbol left out of an object, null
 * in an array; NaN and the infinities written as null) are refused before anything is sent:
 * a row written with one stored a default or NULL where the caller gave a value.
 */

import assert from "node:assert/strict";
import { insertTyped, insertTypedMany, rpcTyped, updateTyped } from "../../database/mod.ts";
import { makeDb } from "./_helpers.ts";

Deno.test("typed writes refuse a function, a symbol, NaN and the infinities, at any depth, naming the key", async () => {
  const { db, rec } = makeDb();
  const cases: Array<[unknown, RegExp]> = [
    [{ id: 1, f: () => 1 }, /'f' is a function, which JSON cannot carry \(it would be left out\)/],
    [{ id: 1, a: NaN }, /'a' is NaN, which JSON cannot carry \(it would be written as null\)/],
    [{ id: 1, a: Infinity }, /'a' is Infinity/],
    [{ id: 1, a: -Infinity }, /'a' is -Infinity/],
    [{ id: 1, s: Symbol("x") }, /'s' is a symbol/],
    [{ id: 1, meta: { deep: { x: NaN } } }, /'meta\.deep\.x' is NaN/],
    [{ x: 1, meta: { x: NaN } }, /'meta\.x' is NaN/],
    [{ id: 1, "a b": { ["c-d"]: NaN } }, /'\["a b"\]\["c-d"\]' is NaN/],
    [{ id: 1, tags: ["a", () => 2] }, /'tags\[1\]' is a function/],
    // Beside a Map, which is written as its entries: the copy refuses them too.
    [{ id: 1, m: new Map([["k", 1]]), n: NaN }, /'n' is NaN/],
    [{ id: 1, m: new Map<string, unknown>([["k", () => 1]]) }, /'m\.k' is a function/],
    // A Map keyed by a symbol or a bigint is named as String names the key.
    [{ m: new Map<unknown, unknown>([[Symbol("s"), { x: NaN }]]) }, /'m\[Symbol\(s\)\]\.x'/],
    [{ m: new Map<unknown, unknown>([[10n, { x: NaN }]]) }, /'m\[10\]\.x'/],
  ];
  for (const [value, message] of cases) {
    const r = await insertTyped(db, "t", value as never);
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", String(message));
    assert.match(r.errorOrNull()!.message, message);
    assert.match(r.errorOrNull()!.message, /^Cannot insert/);
  }
  // A list, as insertTypedMany takes it: the element is named by its index.
  const many = await insertTypedMany(db, "t", [{ id: 1 }, { id: 2, score: NaN }]);
  assert.equal(many.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(many.errorOrNull()!.message, /^Cannot insert.*'\[1\]\.score' is NaN/);
  const up = await updateTyped(db, "t", { a: NaN, b: 1 } as never, (w) => w.eq("id", 1));
  assert.equal(up.errorOrNull()?.category, "INVALID_ARGUMENT");
  const fn = await rpcTyped(db, "f", { params: { x: () => 1 } as never });
  assert.equal(fn.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 0);
});

Deno.test("values JSON keeps go as they are: finite numbers, null, undefined members, nested rows", async () => {
  const { db, rec } = makeDb();
  const r = await insertTyped(db, "t", {
    id: 1,
    a: 0,
    b: -0.5,
    c: null,
    d: undefined,
    e: { f: [1, null, "x"] },
  } as never);
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.deepEqual(JSON.parse(rec.only.text!), {
    id: 1,
    a: 0,
    b: -0.5,
    c: null,
    e: { f: [1, null, "x"] },
  });
});

Deno.test("orderBy refuses postgrest-js's { ascending: false }, which would have sorted ascending", async () => {
  const { db, rec } = makeDb();
  const r = await db.select("t", {
    block: (q) => q.orderBy("id", { ascending: false } as never),
  });
  assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(
    r.errorOrNull()!.message,
    /'ascending' is no option here: pass \{ order: Order\.DESC \}/,
  );
  for (const bad of ["desc", 1, true]) {
    const r2 = await db.select("t", { block: (q) => q.orderBy("id", bad as never) });
    assert.match(
      r2.errorOrNull()!.message,
      /^Cannot order as 'options' must be an object such as \{ order: Order\.DESC \}: current value is/,
    );
  }
  assert.equal(rec.requests.length, 0);
  await db.select("t", { block: (q) => q.orderBy("id", { order: "desc" }) });
  assert.equal(rec.only.url.searchParams.get("order"), "id.desc");
});
