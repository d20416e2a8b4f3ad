// The catalog's JSON: 64-bit integers exact, everything else exactly as JSON.parse/stringify.
import assert from "node:assert/strict";
import fc from "fast-check";
import { parseJsonInt64, stringifyJsonInt64 } from "../../core/_json_int64.ts";

Deno.test("parseJsonInt64 equals JSON.parse on any JSON without unsafe integers, and throws where it throws", () => {
  fc.assert(
    // (JSON texts holding an integer of 16 digits or more are left to the next test.)
    fc.property(fc.json().filter((t) => !/\d{16,}/.test(t)), (text) => {
      assert.deepEqual(parseJsonInt64(text), JSON.parse(text));
    }),
    { numRuns: 3000 },
  );
  for (
    const text of [
      "0.30000000000000004",
      '{"x":0.30000000000000004}',
      "0e9007199254740992",
      "1.5e300",
      "[-12345678901234567890.5]",
      '"12345678901234567890"',
    ]
  ) {
    assert.deepEqual(parseJsonInt64(text), JSON.parse(text), text);
  }
  for (const bad of ["{12345678901234567890:1}", "[1,]", "", "[12345678901234567890"]) {
    assert.throws(() => parseJsonInt64(bad), SyntaxError, bad);
  }
});

Deno.test("integers beyond 2^53 round-trip exactly; strings that look like markers stay strings", () => {
  const text =
    '{"a":-9007199254740993,"b":"\\u0000int64:5","c":[12345678901234567890,"\\u0000int64:x"]}';
  const v = parseJsonInt64(text) as { a: bigint; b: string; c: [bigint, string] };
  assert.equal(v.a, -9007199254740993n);
  assert.equal(v.b, "\u0000int64:5");
  assert.deepEqual(v.c, [12345678901234567890n, "\u0000int64:x"]);
  assert.equal(stringifyJsonInt64(v), text.replace(/\\u0000/g, "\\u0000"));
  assert.equal(
    stringifyJsonInt64({ a: "\u0000int64:7", k: ['a"\u0000int64:5'], d: -5n }),
    '{"a":"\\u0000int64:7","k":["a\\"\\u0000int64:5"],"d":-5}',
  );
  fc.assert(
    fc.property(fc.bigInt(), fc.string(), (n, s) => {
      const back = parseJsonInt64(stringifyJsonInt64({ n, s })!) as {
        n: bigint | number;
        s: string;
      };
      assert.equal(BigInt(back.n), n);
      assert.equal(back.s, s);
    }),
    { numRuns: 2000 },
  );
});
