/**
 * Column names PostgREST reads only double-quoted (`a"b`, `Total €`, `a - b`, a reserved query
 * key, a JSON key holding `.`) and names it reads whole unquoted (`first name`, `Total $`): the
 * exact wire in each position, and a model of PostgREST's
 * parser (`src/library/PostgREST/ApiRequest/QueryParams.hs`: `pTreePath`, `pFieldName`,
 * `pIdentifier`, `pQuotedValue`, `pJsonPath`) that must read every name sent back whole.
 */
import assert from "node:assert/strict";
import { column } from "../../database/mod.ts";
import { checkColumn } from "../../database/_encode.ts";
import { assertInvalid, makeDb } from "./_helpers.ts";

// --- the wire, position by position ---------------------------------------------------------

Deno.test("a filter key holding a symbol, a quote or a space beside a dash goes double-quoted", async () => {
  const { db, rec } = makeDb();
  await db.select("t", {
    block: (q) =>
      q.where((w) => w.eq(column("Total €"), "Ada").eq("a - b", 5).neq('a"b', "x").isNull("a\\b")),
  });
  assert.equal(
    rec.last.url.search,
    "?select=*&%22Total%20%E2%82%AC%22=eq.Ada&%22a%20-%20b%22=eq.5&%22a%5C%22b%22=neq.x" +
      "&%22a%5C%5Cb%22=is.null",
  );
  assert.deepEqual([...rec.last.url.searchParams.keys()].slice(1), [
    '"Total €"',
    '"a - b"',
    '"a\\"b"',
    '"a\\\\b"',
  ]);
});

Deno.test("a name with inner spaces goes unquoted, as postgrest-js sends it, in every position", async () => {
  const { db, rec } = makeDb();
  // PostgREST's pIdentifier reads letters, digits, `_`, `$` and spaces, trimmed at the ends (v8
  // on: `Parsers.hs`, then `QueryParams.hs`); a space beside a dash would be trimmed, so quoted.
  await db.select("t", {
    block: (q) =>
      q.where((w) =>
        w.eq(column("first name"), "Ada").eq("Total $", 5).eq("a  b-c d", 1)
          .eq("data->>some key", 2).eq("my author.last name", 3)
          .or((o) => o.eq("first name", "a").eq("x", 1))
          .within(column<number>("my author.first name"), { from: 1, to: 5 })
      ).orderBy("first name", { order: "desc" }).orderBy("x", { referencedTable: "my author" })
        .limit(2, { referencedTable: "my author" }),
  });
  assert.equal(
    rec.last.url.search,
    "?select=*&first%20name=eq.Ada&Total%20%24=eq.5&a%20%20b-c%20d=eq.1" +
      "&data-%3E%3Esome%20key=eq.2&my%20author.last%20name=eq.3" +
      "&or=(first%20name.eq.a%2Cx.eq.1)&my%20author.and=(first%20name.gte.1%2Cfirst%20name.lte.5)" +
      "&order=first%20name.desc&my%20author.order=x.asc&my%20author.limit=2",
  );
  // A reserved key keeps its quotes; a tab or a space beside a dash is no PostgREST identifier.
  await db.select("t", {
    block: (q) => q.where((w) => w.eq("my author.limit", 1).eq("a\tb", 2).eq("a -b", 3)),
  });
  assert.deepEqual([...rec.last.url.searchParams].slice(1), [
    ['my author."limit"', "eq.1"],
    ['"a\tb"', "eq.2"],
    ['"a -b"', "eq.3"],
  ]);
});

Deno.test("a reserved query key as a column goes quoted, which PostgREST reads as a filter", async () => {
  const { db, rec } = makeDb();
  await db.select("t", {
    block: (q) =>
      q.where((w) =>
        w.eq("order", 1).eq("select", 2).eq("author.limit", 3).eq("author.select", 4)
          .eq("author.first name", 5)
      ),
  });
  assert.deepEqual([...rec.last.url.searchParams].slice(1), [
    ['"order"', "eq.1"],
    ['"select"', "eq.2"],
    ['author."limit"', "eq.3"],
    // PostgREST reserves `select` only as the whole key: unchanged.
    ["author.select", "eq.4"],
    ["author.first name", "eq.5"],
  ]);
});

Deno.test("JSON keys PostgREST would cut short go quoted; plain keys and indexes as they are", async () => {
  const { db, rec } = makeDb();
  await db.select("t", {
    block: (q) =>
      q.where((w) =>
        w.eq("data->>a.b", 1).eq("data->some key->>0", 2).eq("first name€->x:y", 3)
          .eq("data->-1->>content-type", 4)
      ),
  });
  assert.deepEqual([...rec.last.url.searchParams].slice(1), [
    ['data->>"a.b"', "eq.1"],
    ["data->some key->>0", "eq.2"],
    ['"first name€"->"x:y"', "eq.3"],
    ["data->-1->>content-type", "eq.4"],
  ]);
});

Deno.test("a JSON key given in PostgREST's quotes goes as given: the only way to name a key of digits", async () => {
  // PostgREST reads `->>2024` as array element 2024 (->>'+2024'::int, NULL on an object: eq
  // matched nothing, isNull every row); `->>"2024"` is the key. Quoted again, it named the key
  // with the quotes in it.
  const { db, rec } = makeDb();
  await db.select("t", {
    block: (q) =>
      q.where((w) =>
        w.eq('data->>"2024"', "x").isNull('data->"12"->>"a\\"b"').or((o) =>
          o.eq('data->>"7"', 1).eq("data->>7", 2)
        )
      ).orderBy('data->>"2024"'),
  });
  assert.deepEqual([...rec.last.url.searchParams].slice(1), [
    ['data->>"2024"', "eq.x"],
    ['data->"12"->>"a\\"b"', "is.null"],
    ["or", '(data->>"7".eq.1,data->>7.eq.2)'],
    ["order", 'data->>"2024".asc'],
  ]);
  // A quote that is not PostgREST's whole quoting is part of the key, quoted and escaped.
  await db.select("t", { block: (q) => q.where((w) => w.eq('data->>"20"24', 1)) });
  assert.deepEqual([...rec.last.url.searchParams].slice(1), [['data->>"\\"20\\"24"', "eq.1"]]);
});

Deno.test("a JSON key in PostgREST's quotes is one key, arrows inside it included", async () => {
  // Split at every arrow first, 'data->"a->b"' went as data->"\"a"->"b\"": two keys, never
  // present, so isNull matched every row (a delete by it deleted them all).
  const { db, rec } = makeDb();
  await db.select("t", {
    block: (q) =>
      q.where((w) =>
        w.eq('data->"a->b"', 1).isNull('meta->>"a->>b"').or((o) => o.eq('data->"x->y"->>z', 2))
          .eq('data->"x"y->z', 3)
      ).orderBy('data->>"a->b"'),
  });
  assert.deepEqual([...rec.last.url.searchParams].slice(1), [
    ['data->"a->b"', "eq.1"],
    ['meta->>"a->>b"', "is.null"],
    ["or", '(data->"x->y"->>z.eq.2)'],
    // Quotes that are not PostgREST's whole quoting of a key stay part of it.
    ['data->"\\"x\\"y"->z', "eq.3"],
    ["order", 'data->>"a->b".asc'],
  ]);
});

Deno.test("an array index at the end of a related order term is refused: PostgREST reads it as a key", async () => {
  const { db, rec } = makeDb();
  for (const term of ["author(tags->0)", "author(tags->>-1)", "author(data->x->>12)"]) {
    const r = await db.select("t", { block: (q) => q.orderBy(term) });
    assert.match(
      r.errorOrNull()!.message,
      /reads an array index at the end of a related order term/,
    );
  }
  assert.equal(rec.requests.length, 0);
  // Inside the path, before another arrow, it is an index; a quoted key of digits is a key.
  await db.select("t", {
    block: (q) => q.orderBy("author(tags->0->>name)").orderBy('author(data->"7")'),
  });
  assert.deepEqual([...rec.last.url.searchParams].slice(1), [
    ["order", 'author(tags->0->>name).asc,author(data->"7").asc'],
  ]);
});

Deno.test("order terms, and an order, limit or group on an embed, quote such names", async () => {
  const { db, rec } = makeDb();
  await db.select("t", {
    block: (q) =>
      q.orderBy("first name€", { order: "desc" }).orderBy("limit").orderBy("data->>a.b")
        .orderBy("x", { referencedTable: "my author€" }).limit(2, { referencedTable: "my author€" })
        .where((w) => w.or((o) => o.eq("a€b", 1).eq("c", 2), { referencedTable: "my author€" })),
  });
  assert.equal(
    rec.last.url.search,
    "?select=*&%22my%20author%E2%82%AC%22.or=(%22a%E2%82%ACb%22.eq.1%2Cc.eq.2)" +
      "&order=%22first%20name%E2%82%AC%22.desc%2Climit.asc%2Cdata-%3E%3E%22a.b%22.asc" +
      "&%22my%20author%E2%82%AC%22.order=x.asc&%22my%20author%E2%82%AC%22.limit=2",
  );
  // An order term still takes no table path, quoted or not.
  await assertInvalid(
    db.select("t", { block: (q) => q.orderBy('"a b".c') }),
    /referencedTable/,
  );
});

Deno.test("orderBy 'embed(column)' sends PostgREST's related order term, each name quoted as it needs", async () => {
  const { db, rec } = makeDb();
  await db.select("books", {
    columns: "title,author(name)",
    block: (q) =>
      q.orderBy("author(name)", { order: "desc" }).orderBy("my author€(first name€)")
        .orderBy("author(data->>a.b)", { nulls: "nullsfirst" }),
  });
  assert.equal(
    rec.last.url.searchParams.get("order"),
    'author(name).desc,"my author€"("first name€").asc,author(data->>"a.b").asc.nullsfirst',
  );
  // A parenthesis that makes no such term is part of a name, quoted as before.
  await db.select("t", { block: (q) => q.orderBy("x)").orderBy("f(a)(b)") });
  assert.equal(rec.last.url.searchParams.get("order"), '"x)".asc,"f(a)(b)".asc');
  // In a JSON path the parenthesis belongs to the key (as a filter quotes it): `data->>a(b)` went
  // as the related term `data->>a(b)`, which PostgREST refuses (PGRST100).
  await db.select("t", { block: (q) => q.orderBy("data->>a(b)").orderBy("da-ta(x)") });
  assert.equal(rec.last.url.searchParams.get("order"), 'data->>"a(b)".asc,da-ta(x).asc');
  // Neither side takes a table path.
  for (const bad of ["a.b(name)", "author(a.b)"]) {
    await assertInvalid(
      db.select("t", { block: (q) => q.orderBy(bad) }),
      /order by an embed's column as 'author\(name\)'/,
    );
  }
});

Deno.test("or/and/not groups and within quote names inside the logic tree", async () => {
  const { db, rec } = makeDb();
  await db.select("t", {
    block: (q) =>
      q.where((w) =>
        w.or((o) => o.eq("first name€", "a").isNull("a,b").eq("x)", 1))
          .not((n) => n.eq("Total €", 1).eq("id", 2))
          .within(column<number>("author.first name€"), { from: 1, to: 5 })
          .within(column<number>("data->>a.b"), { from: 1, to: 5 })
      ),
  });
  assert.deepEqual([...rec.last.url.searchParams].slice(1), [
    ["or", '("first name€".eq.a,"a,b".is.null,"x)".eq.1)'],
    ["not.and", '("Total €".eq.1,id.eq.2)'],
    ["author.and", '("first name€".gte.1,"first name€".lte.5)'],
    ["and", '(data->>"a.b".gte.1,data->>"a.b".lte.5)'],
  ]);
  // A table path inside a group is still refused; a quoted JSON key holding '.' is no table path.
  await assertInvalid(
    db.select("t", { block: (q) => q.where((w) => w.or((o) => o.eq("my author.x", 1))) }),
    /inside a group/,
  );
});

Deno.test("insert: columns= quotes every name; on_conflict goes as given when PostgREST reads it whole", async () => {
  const { db, rec } = makeDb();
  await db.insert("t", '[{"first name":"a","a\\"b":1}]', {
    upsert: true,
    onConflict: 'first name, "a\\"b"',
  });
  assert.deepEqual([...rec.last.url.searchParams], [
    ["select", "*"],
    ["columns", '"first name","a\\"b"'],
    ["on_conflict", 'first name, "a\\"b"'],
  ]);
  await db.insert("t", "{}", { upsert: true, onConflict: '"Total €", id' });
  assert.equal(rec.last.url.searchParams.get("on_conflict"), '"Total €", id');
  const sent = rec.requests.length;
  // PostgREST's pColumns would read `Total`, `a-b`, `a`, or the name `` and drop the rest.
  for (const bad of ["Total €", "a - b", "a;b", '"a"b', ' "a"', "a\tb", "a,", 1 as never]) {
    await assertInvalid(
      db.insert("t", "{}", { upsert: true, onConflict: bad }),
      /onConflict/,
      String(bad),
    );
  }
  assert.equal(rec.requests.length, sent);
});

Deno.test("select= goes as written, whitespace dropped outside quotes", async () => {
  const { db, rec } = makeDb();
  await db.select("t", { columns: ' "first name" , "Total $",n:"a b" ' });
  assert.equal(rec.last.url.searchParams.get("select"), '"first name","Total $",n:"a b"');
});

Deno.test("names PostgREST cannot read in any form are still refused", async () => {
  const { db, rec } = makeDb();
  for (const bad of ["a..b", ".a", "a.", "data->", "->x", " id", "id ", "a. b", "data->> k"]) {
    await assertInvalid(
      db.select("t", { block: (q) => q.where((w) => w.eq(column(bad), 1)) }),
      /must be non-empty, with no whitespace at its ends/,
      bad,
    );
  }
  // An embed path still takes no JSON path and no `not` segment, quoted or not.
  for (const path of ["a->b", "not", "a b.not"]) {
    await assertInvalid(
      db.select("t", { block: (q) => q.limit(1, { referencedTable: path }) }),
      /referencedTable/,
      path,
    );
  }
  assert.equal(rec.requests.length, 0);
});

// --- a model of PostgREST's reading ---------------------------------------------------------

type JsonOp = [arrow: string, kind: "key" | "idx", value: string];

/**
 * PostgREST's `pTreePath` over `text`, as `QueryParams.hs` reads a filter key: names
 * (`pFieldName`) joined by `.`, then a JSON path; with `dotted` false its `pField` (one name and
 * a JSON path: a term in `or=(...)` or `order=`). Returns null where it fails, and the rest it
 * leaves unread (PostgREST ignores it).
 */
function readTreePath(
  text: string,
  dotted = true,
  oldJsonKeys = false,
): { names: string[]; json: JsonOp[]; rest: string } | null {
  const s = Array.from(text);
  let i = 0;
  const quoted = (): string | null => { // pQuotedValue
    let out = "";
    for (i++; i < s.length; i++) {
      if (s[i] === "\\") {
        if (++i >= s.length) return null;
        out += s[i];
      } else if (s[i] === '"') {
        i++;
        return out;
      } else out += s[i];
    }
    return null;
  };
  const byDash = (char: (c: string) => boolean): string | null => { // sepByDash
    const parts: string[] = [];
    for (;;) {
      const start = i;
      while (i < s.length && char(s[i])) i++;
      if (i === start) return null; // many1
      parts.push(s.slice(start, i).join("").trim()); // T.strip
      if (s[i] === "-" && s[i + 1] !== ">") i++;
      else return parts.join("-");
    }
  };
  const fieldName = () =>
    // pFieldName: pIdentifierChar is letter, digit, '_', ' ', '$'
    s[i] === '"' ? quoted() : byDash((c) => /^[\p{L}0-9_ $]$/u.test(c));
  const names: string[] = [];
  for (;;) {
    const n = fieldName();
    if (n === null) return null;
    names.push(n);
    if (!dotted || s[i] !== ".") break;
    i++;
  }
  const json: JsonOp[] = [];
  while (s[i] === "-" && s[i + 1] === ">") { // pJsonPath
    const arrow = s[i + 2] === ">" ? "->>" : "->";
    i += arrow.length;
    const idx = /^-?[0-9]+(?=->|::|\.|,|$)/.exec(s.slice(i).join("")); // pJIdx, then pEnd
    if (idx) {
      json.push([arrow, "idx", idx[0]]);
      i += idx[0].length;
      continue;
    }
    // pJsonKeyName; before PostgREST 12.2 a key was a pFieldName (`oldJsonKeys`).
    const key = s[i] === '"'
      ? quoted()
      : oldJsonKeys
      ? byDash((c) => /^[\p{L}0-9_ $]$/u.test(c))
      : byDash((c) => !"(-:.,>)".includes(c));
    if (key === null) return null;
    json.push([arrow, "key", key]);
  }
  return { names, json, rest: s.slice(i).join("") };
}

/** The names and JSON path a fetchbase column name stands for. */
function meaning(name: string): { names: string[]; json: JsonOp[] } {
  const [path, ...ops] = name.split(/(->>?)/);
  const json: JsonOp[] = [];
  for (let i = 0; i < ops.length; i += 2) {
    json.push([ops[i], /^-?[0-9]+$/.test(ops[i + 1]) ? "idx" : "key", ops[i + 1]]);
  }
  return { names: path.split("."), json };
}

/** Whether PostgREST takes a query key as a filter (`parse`: `isFilter`). */
function isFilterKey(key: string): boolean {
  return !["select", "columns", "on_conflict"].includes(key) &&
    !["order", "limit", "offset", "and", "or"].includes(key.split(".").at(-1)!);
}

Deno.test("the model reads PostgREST's own examples as its doctests say", () => {
  assert.deepEqual(readTreePath("identifier with spaces")?.names, ["identifier with spaces"]);
  assert.deepEqual(readTreePath(" no leading or trailing spaces ")?.names, [
    "no leading or trailing spaces",
  ]);
  assert.deepEqual(readTreePath('" leading and trailing spaces "')?.names, [
    " leading and trailing spaces ",
  ]);
  assert.deepEqual(readTreePath('":"')?.names, [":"]);
  assert.equal(readTreePath(":"), null);
  assert.deepEqual(readTreePath("a:b"), { names: ["a"], json: [], rest: ":b" });
  assert.deepEqual(readTreePath("a.b->!@#$%^&*_a")?.json, [["->", "key", "!@#$%^&*_a"]]);
  assert.deepEqual(readTreePath("x->0,other")?.json, [["->", "idx", "0"]]);
});

Deno.test("every name sent is read back whole by PostgREST's grammar, as a filter (seeded names)", () => {
  const pieces = [
    "a",
    "é",
    "1",
    "_",
    "$",
    " ",
    "\t",
    "-",
    "->",
    "->>",
    ".",
    ":",
    ",",
    "(",
    ")",
    '"',
    "\\",
    "€",
    "&",
    "=",
    "#",
    ">",
    "order",
    "limit",
    "or",
    "select",
    "😀",
  ];
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  let sent = 0;
  for (let i = 0; i < 30_000; i++) {
    let name = "";
    const length = 1 + Math.floor(rnd() * 7);
    for (let j = 0; j < length; j++) name += pieces[Math.floor(rnd() * pieces.length)];
    const m = meaning(name);
    const bad = [...m.names, ...m.json.map((o) => o[2])].some((n) => n === "" || n.trim() !== n);
    let wire: string;
    try {
      wire = checkColumn(name);
    } catch {
      assert.ok(bad, `refused ${JSON.stringify(name)}`);
      continue;
    }
    assert.ok(!bad, `sent ${JSON.stringify(name)}`);
    sent++;
    const read = readTreePath(wire);
    assert.deepEqual(read, { ...m, rest: "" }, `${JSON.stringify(name)} sent as ${wire}`);
    // PostgREST 10 to 12.1 read an unquoted JSON key as a field name (`pJKey = pFieldName`).
    assert.deepEqual(readTreePath(wire, true, true), { ...m, rest: "" }, `before 12.2: ${wire}`);
    assert.ok(isFilterKey(wire), `${JSON.stringify(name)} sent as the key ${wire}`);
    // In a logic tree or an order term PostgREST reads one name (`pField`), then `.`.
    if (m.names.length === 1) {
      assert.deepEqual(readTreePath(wire + ".eq.1", false), { ...m, rest: ".eq.1" }, wire);
    }
  }
  assert.ok(sent > 10_000, String(sent));
});

Deno.test("a JSON key an older PostgREST would cut short goes quoted (pJKey = pFieldName before 12.2)", async () => {
  const { db, rec } = makeDb();
  await db.select("t", {
    block: (q) =>
      q.where((w) => w.eq("data->>a@b", 1).eq("data->x€->>content-type", 2).eq("data->-1", 3))
        .orderBy("data->>a+b"),
  });
  // PostgREST 10 to 12.1 read `data->>a@b=eq.1` as a filter on the key `a` (the rest ignored).
  assert.deepEqual([...rec.last.url.searchParams].slice(1), [
    ['data->>"a@b"', "eq.1"],
    ['data->"x€"->>content-type', "eq.2"],
    ["data->-1", "eq.3"],
    ["order", 'data->>"a+b".asc'],
  ]);
});

Deno.test("an update or delete refuses a filter key holding a '.' that is no table path", async () => {
  const { db, rec } = makeDb();
  // PostgREST before 11 applies to an update or delete only the filters whose key holds no '.'
  // (`isNotRoot` on the raw key): `data->>"a.b"=eq.1` would be dropped and every row written.
  await assertInvalid(
    db.delete("t", (w) => w.eq("data->>a.b", 1)),
    /Cannot filter an update or delete on .*data->>.*a\.b.*and\(\) group/,
  );
  await assertInvalid(db.update("t", "{}", (w) => w.eq("id", 1).isNull("x->a.b")), /and\(\) group/);
  assert.equal(rec.requests.length, 0);
  // Read, it is a root filter in every version; in a group its key is `and`; an embed's filter
  // (a table path) goes as before.
  await db.select("t", { block: (q) => q.where((w) => w.eq("data->>a.b", 1)) });
  await db.delete("t", (w) => w.and((a) => a.eq("data->>a.b", 1)).eq("author.name", "x"));
  assert.deepEqual([...rec.last.url.searchParams], [
    ["select", "*"],
    ["and", '(data->>"a.b".eq.1)'],
    ["author.name", "eq.x"],
  ]);
  assert.equal(rec.requests.length, 2);
});

Deno.test("an update or delete refuses an and/or group on an embed, which PostgREST applies to the rows written", async () => {
  const { db, rec } = makeDb();
  // PostgREST's `mutatePlan` resolves every logic group of a write against the written table,
  // whatever table its key names: `author.and=(age.gte.1,age.lte.5)` would narrow the rows
  // written to `books.age` between 1 and 5, or fail where `books` has no `age`.
  const refused = /Cannot filter an update or delete with a group on .*author.* single filters/;
  await assertInvalid(
    db.update("books", '{"title":"x"}', (w) => w.within("author.age", { from: 1, to: 5 })),
    refused,
  );
  await assertInvalid(
    db.delete("books", (w) => w.or((o) => o.eq("age", 1), { referencedTable: "author" })),
    refused,
  );
  await assertInvalid(
    db.update(
      "books",
      "{}",
      (w) =>
        w.eq("id", 1).not((n) => n.and((a) => a.greater("age", 1), { referencedTable: "author" })),
    ),
    refused,
  );
  assert.equal(rec.requests.length, 0);
  // Read, the same group filters the embed alone; a write's single filters on the embed and its
  // groups on the written table go as before.
  await db.select("books", {
    block: (q) => q.where((w) => w.within("author.age", { from: 1, to: 5 })),
  });
  assert.deepEqual([...rec.last.url.searchParams].slice(1), [[
    "author.and",
    "(age.gte.1,age.lte.5)",
  ]]);
  await db.update(
    "books",
    "{}",
    (w) =>
      w.greaterEq("author.age", 1).lessEq("author.age", 5).or((o) => o.eq("id", 1).eq("id", 2)),
  );
  assert.deepEqual([...rec.last.url.searchParams].slice(1), [
    ["author.age", "gte.1"],
    ["author.age", "lte.5"],
    ["or", "(id.eq.1,id.eq.2)"],
  ]);
  assert.equal(rec.requests.length, 2);
});

Deno.test("select= keeps one space between two words of a name or a cast; other whitespace goes", async () => {
  // PostgREST's pIdentifier holds spaces, and a cast cannot be quoted: `::double precision` went
  // as `::doubleprecision`, which PostgreSQL refuses (42704).
  const { db, rec } = makeDb();
  await db.select("t", {
    columns: `
      id,
      total::double precision,
      at::timestamp   with\ttime zone,
      first name,
      owner:users ( name ),
      "a  b",
      café au lait
    `,
  });
  assert.equal(
    rec.last.url.searchParams.get("select"),
    'id,total::double precision,at::timestamp with time zone,first name,owner:users(name),"a  b",café au lait',
  );
  // Linear: a long list of columns takes no longer than its length says (a rescan per space took
  // seconds for 40,000 columns).
  const many = Array.from({ length: 40_000 }, (_, i) => `c ${i}`).join(" , ");
  const started = performance.now();
  await db.select("t", { columns: many });
  assert.ok(performance.now() - started < 2_000);
});

Deno.test("letters beyond ASCII go quoted in on_conflict and in GET function arguments too", async () => {
  // PostgREST's letters are GHC's isAlpha, older than JavaScript's Unicode: on_conflict=id𐵊 read
  // as id, an upsert resolving on the primary key; a GET argument n𐵊 went to n.
  const { db, rec } = makeDb();
  await db.insert("t", '[{"id":1}]', { upsert: true, onConflict: "id\u{10D4A}" });
  assert.equal(rec.last.url.searchParams.get("on_conflict"), '"id\u{10D4A}"');
  await db.insert("t", '[{"id":1}]', { upsert: true, onConflict: ' größe , "a,b" ,id,first name' });
  assert.equal(rec.last.url.searchParams.get("on_conflict"), ' "größe" , "a,b" ,id,first name');
  await db.rpcGet("f", { params: { "n\u{10D4A}": 1, plain: 2, größe: 3 } });
  assert.deepEqual([...rec.last.url.searchParams], [
    ['"n\u{10D4A}"', "1"],
    ["plain", "2"],
    ['"größe"', "3"],
  ]);
});

Deno.test("select: a quote opens only where a name or key begins, as PostgREST reads one", async () => {
  // An unquoted JSON key may hold a quote (dims->>12"): taken for an opening quote, it made the
  // quoted names after it lose their spaces (" padded " went as "padded", another column).
  const { db, rec } = makeDb();
  await db.select("t", { columns: 'dims->>12"in," padded ",  "Full  Name" , a  b' });
  assert.equal(rec.last.url.searchParams.get("select"), 'dims->>12"in," padded ","Full  Name",a b');
});
