/** The path a lossy value's refusal names (database/_encode.ts): third mutation review. */

import assert from "node:assert/strict";
import { insertTyped, insertTypedMany } from "../../database/mod.ts";
import { makeDb } from "./_helpers.ts";

Deno.test("a lossy value's path: keys that are no identifiers are quoted, Map keys are named", async () => {
  const { db, rec } = makeDb();
  const cases: Array<[unknown, RegExp]> = [
    // E08: a key starting with a digit is no identifier: `["1a"]`, not `1a`.
    [{ id: 1, "1a": NaN }, /'\["1a"\]' is NaN/],
    [{ id: 1, meta: { "2x": Infinity } }, /'meta\["2x"\]' is Infinity/],
    // E10: below a Map, the Map's key names the step.
    [{ id: 1, m: new Map<string, unknown>([["k", { x: NaN }]]) }, /'m\.k\.x' is NaN/],
  ];
  for (const [value, message] of cases) {
    const r = await insertTyped(db, "t", value as never);
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", String(message));
    assert.match(r.errorOrNull()!.message, message);
  }
  assert.equal(rec.requests.length, 0);
});

// E18: beside a Map (the walk for Maps stops at the first, and the copy is made), a lossy value
// in an array is refused by the copy too, not written as null.
Deno.test("a lossy value in an array beside a Map is refused", async () => {
  const { db, rec } = makeDb();
  const r = await insertTyped(db, "t", {
    id: 1,
    m: new Map([["k", 1]]),
    tags: [1, NaN],
  } as never);
  assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(r.errorOrNull()!.message, /'tags\[1\]' is NaN/);
  const rows = await insertTypedMany(db, "t", [{ id: 1, m: new Map([["k", 1]]) }, {
    id: 2,
    f: [() => 1],
  }] as never);
  assert.match(rows.errorOrNull()?.message ?? "", /'\[1\]\.f\[0\]' is a function/);
  assert.equal(rec.requests.length, 0);
});
