// The catalog's JSON: 64-bit integers exact, everything else exactly as JSON.parse/stringify.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  freshMark,
  markNumbers,
  parseJsonInt64,
  stringifyJsonInt64,
  unquoteMarks,
} from "../../core/_json_int64.ts";

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

/** JSON.parse reading each integer literal beyond 2^53 as a bigint, from its source text. */
function reference(text: string): unknown {
  return JSON.parse(
    text,
    (_k, v, ctx?: { source?: string }) =>
      typeof v === "number" && ctx?.source !== undefined && /^-?[1-9]\d{15,}$/.test(ctx.source) &&
        !Number.isSafeInteger(Number(ctx.source))
        ? BigInt(ctx.source)
        : v,
  );
}

Deno.test("parseJsonInt64 reads any JSON as JSON.parse with each unsafe integer exact, compact or indented", () => {
  const leaf = fc.oneof(
    fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    // Digits and escaped quotes inside strings are text.
    fc.stringMatching(/^[0-9"\\a-]{0,24}$/),
    fc.string(),
    fc.boolean(),
    fc.constant(null),
  );
  const { node } = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: "small" },
      leaf,
      fc.array(tie("node")),
      fc.dictionary(fc.oneof(fc.string(), fc.constant("__proto__")), tie("node")),
    ),
  }));
  fc.assert(
    fc.property(node, fc.constantFrom(0, 2, "\t"), (value, indent) => {
      const mark = freshMark();
      const text = unquoteMarks(
        JSON.stringify(value, (_k, v) => typeof v === "bigint" ? mark + v : v, indent),
        mark,
      );
      assert.deepEqual(parseJsonInt64(text), reference(text), text);
    }),
    { numRuns: 3000 },
  );
  // Long fractions and digit runs in strings go the plain way; integers after whitespace do not.
  for (
    const text of [
      '{"score":0.43333333333333335,"ref":"ORD-1000000000000001"}',
      "[\n  9007199254740993,\r\n\t-9007199254740993 ]",
      " 12345678901234567890 ",
      '{"a": 1000000000000000, "b": 12345678901234567.5}',
      '["\\\\", 9007199254740993, "\\"9007199254740993"]',
    ]
  ) {
    assert.deepEqual(parseJsonInt64(text), reference(text), text);
  }
});

Deno.test("parseJsonInt64 keeps a member named __proto__ an own property, a bigint included: no prototype is set", () => {
  const v = parseJsonInt64('{"__proto__":9007199254740993,"o":{"__proto__":{"x":1}}}') as Record<
    string,
    unknown
  >;
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.equal(Object.getOwnPropertyDescriptor(v, "__proto__")?.value, 9007199254740993n);
  const o = v.o as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(o), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(o, "__proto__")?.value, { x: 1 });
});

Deno.test("markNumbers ends on a string left open (text that is not JSON) instead of looping", () => {
  const mark = freshMark();
  assert.equal(markNumbers('[1, "abc', mark, () => true), `[${JSON.stringify(mark + "1")}, "abc`);
  assert.equal(markNumbers('"abc\\"', mark, () => true), null);
});

Deno.test("markNumbers passes over a '-' that starts no number (text that is not JSON) instead of looping", () => {
  const mark = freshMark();
  assert.equal(markNumbers("[1, -x]", mark, () => false), null);
  assert.equal(
    markNumbers("[-, 5]", mark, (l) => /\d/.test(l)),
    `[-, ${JSON.stringify(mark + "5")}]`,
  );
});
