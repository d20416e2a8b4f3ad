/**
 * Property tests: whatever string a value holds, the encoded query parses
 * back (by a PostgREST-grammar parser written here) to the same single
 * predicate, so no value can change the query's shape.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { column, QueryBuilder } from "../../database/mod.ts";
import { encodePairs } from "../../database/_request.ts";

/** Splits a PostgREST list body at top-level commas, honouring quotes and parentheses. */
function splitList(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let cur = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      cur += ch;
      if (ch === "\\") cur += text[++i];
      else if (ch === '"') quoted = false;
      continue;
    }
    if (ch === '"') quoted = true;
    else if (ch === "(") depth++;
    else if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  if (quoted || depth !== 0) throw new Error(`unbalanced list: ${text}`);
  out.push(cur);
  return out;
}

/** Reads one list item value: quoted with backslash escapes, or bare (no reserved characters). */
function itemValue(raw: string): string {
  if (raw.startsWith('"')) {
    let out = "";
    let i = 1;
    for (; i < raw.length; i++) {
      if (raw[i] === "\\") out += raw[++i];
      else if (raw[i] === '"') break;
      else out += raw[i];
    }
    if (i !== raw.length - 1) throw new Error(`trailing text after quoted value: ${raw}`);
    return out;
  }
  if (/[,()"]/.test(raw)) throw new Error(`bare value with reserved character: ${raw}`);
  return raw;
}

function queryOf(build: (q: QueryBuilder) => unknown): URLSearchParams {
  const q = new QueryBuilder();
  build(q);
  return new URLSearchParams(encodePairs(q.toQueryPairs()));
}

const value = fc.oneof(
  fc.string(),
  fc.string({
    unit: fc.constantFrom(",", ".", ":", "(", ")", '"', "\\", " ", "a", "{", "}", "=", "&", "%"),
  }),
  fc.constantFrom("null", "NULL", "", " ", '\\"', "a,b", "or(x.eq.1)"),
);

Deno.test("in.(...) lists: every value round-trips as exactly one item", () => {
  fc.assert(
    fc.property(fc.array(value, { minLength: 1, maxLength: 5 }), (values) => {
      const params = queryOf((q) => q.where((w) => w.inList(column<string>("c"), values)));
      assert.deepEqual([...params.keys()], ["c"]);
      const v = params.get("c")!;
      assert.ok(v.startsWith("in.(") && v.endsWith(")"));
      const items = splitList(v.slice(4, -1)).map(itemValue);
      // PostgREST reads a list of one empty string as the empty list: it goes twice.
      const only = values.length === 1 && values[0] === "";
      assert.deepEqual(items, only ? ["", ""] : values);
    }),
    { numRuns: 300 },
  );
});

Deno.test("a list of one empty string is sent so that PostgREST matches ''", () => {
  const inParams = queryOf((q) => q.where((w) => w.inList(column<string>("c"), [""])));
  assert.equal(inParams.get("c"), 'in.("","")');
  const notParams = queryOf((q) => q.where((w) => w.notInList(column<string>("c"), [""])));
  assert.equal(notParams.get("c"), 'not.in.("","")');
  const two = queryOf((q) => q.where((w) => w.inList(column<string>("c"), ["", "a"])));
  assert.equal(two.get("c"), 'in.("",a)');
});

Deno.test("or groups: a value can never add a predicate", () => {
  fc.assert(
    fc.property(value, value, (a, b) => {
      const params = queryOf((q) =>
        q.where((w) => w.or((o) => o.eq(column<string>("x"), a).neq(column<string>("y"), b)))
      );
      assert.deepEqual([...params.keys()], ["or"]);
      const body = params.get("or")!;
      assert.ok(body.startsWith("(") && body.endsWith(")"));
      const preds = splitList(body.slice(1, -1));
      assert.equal(preds.length, 2);
      const [p1, p2] = preds;
      assert.ok(p1.startsWith("x.eq."));
      assert.ok(p2.startsWith("y.neq."));
      assert.equal(itemValue(p1.slice("x.eq.".length)), a);
      assert.equal(itemValue(p2.slice("y.neq.".length)), b);
    }),
    { numRuns: 300 },
  );
});

Deno.test("top-level filters: the value stays inside its one parameter", () => {
  fc.assert(
    fc.property(value, (a) => {
      const params = queryOf((q) => q.where((w) => w.eq(column<string>("x"), a)));
      assert.deepEqual([...params.entries()], [["x", `eq.${a}`]]);
    }),
    { numRuns: 300 },
  );
});

Deno.test("array literals (cs.{...}) round-trip each element", () => {
  fc.assert(
    fc.property(fc.array(value, { minLength: 1, maxLength: 4 }), (values) => {
      const v = queryOf((q) => q.where((w) => w.contains(column<string[]>("tags"), values))).get(
        "tags",
      )!;
      assert.ok(v.startsWith("cs.{") && v.endsWith("}"));
      const inner = v.slice(4, -1);
      // Array literals use the same quoting; braces are reserved too.
      const items = splitList(inner).map((raw) => raw.startsWith('"') ? itemValue(raw) : raw);
      assert.deepEqual(items, values);
    }),
    { numRuns: 300 },
  );
});

Deno.test("encodePairs encodes each key and value as encodeURIComponent does", () => {
  // Every character of the Basic Multilingual Plane but the surrogates, alone and amid others:
  // the characters kept as they are (letters, digits, - _ . ! ~ * ' ( )) skip the call.
  for (let c = 0; c < 0x10000; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const ch = String.fromCharCode(c);
    for (const text of [ch, `a${ch}`, `${ch}.b`]) {
      assert.equal(
        encodePairs([[text, text]]),
        `${encodeURIComponent(text)}=${encodeURIComponent(text)}`,
        `U+${c.toString(16)}`,
      );
    }
  }
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.string({ unit: "grapheme" }), value)), (pairs) => {
      const expected = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
      assert.equal(encodePairs(pairs), expected.join("&"));
    }),
    { numRuns: 300 },
  );
  // A lone surrogate still throws, for the request to resolve INVALID_ARGUMENT.
  assert.throws(() => encodePairs([["a", "x\ud800"]]), TypeError);
  assert.throws(() => encodePairs([["\udc00", "x"]]), TypeError);
});
