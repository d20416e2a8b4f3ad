// jsonLossAt: what JSON would write as something else, at any depth (core/_json_loss.ts); its
// edge cases were found by a review of the first version, which recursed less deep than JSON,
// judged types by their tag alone and walked arrays' and boxed strings' extra properties.
import assert from "node:assert/strict";
import vm from "node:vm";
import { jsonLossAt } from "../../core/_json_loss.ts";

Deno.test("jsonLossAt names the path and type of a built-in object JSON writes as {}", () => {
  class MyMap extends Map<string, number> {}
  const cases: Array<[unknown, [string, string]]> = [
    [{ tags: new Set(["a"]) }, ["m.tags", "Set"]],
    [{ a: [{ b: new MyMap([["k", 1]]) }] }, ["m.a[0].b", "Map"]],
    [{ "x-y": { z: new Uint8Array(2) } }, ['m["x-y"].z', "Uint8Array"]],
    [{ r: /x/, e: new Error("e") }, ["m.r", "RegExp"]],
    [{ b: new Blob(["x"]) }, ["m.b", "Blob"]],
    [{ q: new URLSearchParams("a=1") }, ["m.q", "URLSearchParams"]],
    [{ v: vm.runInNewContext("new Map([[1, 2]])") }, ["m.v", "Map"]],
    // What toJSON answers is what JSON writes.
    [{ t: { toJSON: () => new Map([["a", 1]]) } }, ["m.t", "Map"]],
  ];
  for (const [value, expected] of cases) assert.deepEqual(jsonLossAt(value, "m"), expected);
});

Deno.test("jsonLossAt lets through what JSON writes faithfully", () => {
  class Money {
    amount = 5;
    get [Symbol.toStringTag]() {
      return "Money";
    }
  }
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  class Empty {}
  class Failed extends Error {
    code = "E1";
  }
  const fine = [
    { d: new Date(0), u: new URL("https://x.example") },
    // Class instances go with their fields (an empty one as {}), whatever they derive from.
    {
      e: new Empty(),
      f: new Failed("x"),
      a: Object.assign(Object.create(Array.prototype), { a: 1 }),
    },
    { money: new Money(), bare: Object.create(null), foreign: vm.runInNewContext("({ a: 1 })") },
    // JSON drops an array's other properties and writes a boxed string as its value.
    {
      a: Object.assign([1, 2], { extra: new Map() }),
      s: Object.assign(new String("ab"), { m: new Map() }),
    },
    cyclic,
    {
      p: new Proxy({}, {
        ownKeys: () => {
          throw new Error("trap");
        },
      }),
    },
  ];
  for (const value of fine) assert.equal(jsonLossAt(value, "m"), null);
});

Deno.test("jsonLossAt walks as deep as JSON writes and bounds the path it names", () => {
  const nest = (levels: number) => {
    let deep: unknown = { set: new Set([1]) };
    for (let i = 0; i < levels; i++) deep = { n: deep };
    return deep;
  };
  const [path, type] = jsonLossAt(nest(2_000), "m")!;
  assert.equal(type, "Set");
  assert.ok(path.length <= 201, String(path.length));
  assert.ok(path.endsWith("…"));
  // Deeper than JSON can write: the send's own JSON says so (the check found nothing to add).
  const tooDeep = nest(1_000_000);
  assert.throws(() => JSON.stringify(tooDeep), RangeError);
  assert.equal(jsonLossAt(tooDeep, "m"), null);
});
