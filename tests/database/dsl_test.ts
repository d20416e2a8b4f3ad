import assert from "node:assert/strict";
import {
  column,
  columns,
  Nulls,
  Order,
  QueryBuilder,
  TextSearchType,
  type WhereBuilder,
} from "../../database/mod.ts";
import { jsonResponse } from "../support/recording_fetch.ts";
import { makeDb } from "./_helpers.ts";

interface Todo {
  id: number;
  title: string;
  done: boolean;
  tags: string[];
  created_at: string;
  during: string;
}
const t = columns<Todo>();

function render(block: (q: QueryBuilder) => void): Array<[string, string]> {
  const q = new QueryBuilder();
  block(q);
  return q.toQueryPairs();
}
const where = (block: (w: WhereBuilder) => void) => render((q) => q.where(block));

Deno.test("comparison operators and their wire names", () => {
  assert.deepEqual(
    where((w) =>
      w.eq(t.id, 1).neq(t.title, "a").greater(t.id, 2).greaterEq(t.id, 3).less(t.id, 4).lessEq(
        t.id,
        5,
      )
        .isDistinctFrom(t.title, "x")
    ),
    [["id", "eq.1"], ["title", "neq.a"], ["id", "gt.2"], ["id", "gte.3"], ["id", "lt.4"], [
      "id",
      "lte.5",
    ], [
      "title",
      "isdistinct.x",
    ]],
  );
});

Deno.test("an array operand of eq, neq and isDistinctFrom is a Postgres array, as for contains", () => {
  assert.deepEqual(
    where((w) =>
      w.eq(t.tags, ["a", "b c"]).neq(t.tags, []).isDistinctFrom(t.tags, ["x,y", 'q"'])
        .contains(t.tags, ["a", "b c"])
    ),
    [
      ["tags", 'eq.{a,"b c"}'],
      ["tags", "neq.{}"],
      ["tags", 'isdistinct.{"x,y","q\\""}'],
      ["tags", 'cs.{a,"b c"}'],
    ],
  );
  // A nested array is another dimension of the literal.
  assert.deepEqual(where((w) => w.eq(column<number[][]>("grid"), [[1, 2], [3, 4]])), [
    ["grid", "eq.{{1,2},{3,4}}"],
  ]);
  // Inside a group the array stays one operand.
  assert.deepEqual(where((w) => w.or((g) => g.eq(t.tags, ["a", "b"]).eq(t.id, 1))), [
    ["or", "(tags.eq.{a,b},id.eq.1)"],
  ]);
});

Deno.test("a null operand of an operator that is not null-aware is refused, not sent as the text null", () => {
  const title = column<string | null>("title");
  const range = column<string | null>("during");
  for (
    const block of [
      (w: WhereBuilder) => w.greater(title, null as never),
      (w: WhereBuilder) => w.lessEq(title, null as never),
      (w: WhereBuilder) => w.like(title as never, null as never),
      (w: WhereBuilder) => w.ilike(title as never, null as never),
      (w: WhereBuilder) => w.within(title, { from: null as never, to: "b" }),
      (w: WhereBuilder) => w.rangeGt(range as never, null as never),
      (w: WhereBuilder) => w.contains(title, null as never),
    ]
  ) {
    assert.throws(() => where(block), { name: "TypeError", message: /value is null/ });
  }
  // The null-aware ones still read null as IS NULL.
  assert.deepEqual(where((w) => w.eq(title, null)), [["title", "is.null"]]);
});

Deno.test("within is one closed-range predicate", () => {
  assert.deepEqual(where((w) => w.within(t.id, { from: 1, to: 9 })), [[
    "and",
    "(id.gte.1,id.lte.9)",
  ]]);
});

Deno.test("null and boolean operators; eq(null) is is.null", () => {
  assert.deepEqual(
    where((w) =>
      w.isNull(t.title).isNotNull(t.created_at).isExactly(t.done, true).eq(t.title, null).neq(
        t.title,
        null,
      )
    ),
    [
      ["title", "is.null"],
      ["created_at", "not.is.null"],
      ["done", "is.true"],
      ["title", "is.null"],
      [
        "title",
        "not.is.null",
      ],
    ],
  );
});

Deno.test("pattern operators, including list forms", () => {
  assert.deepEqual(
    where((w) =>
      w.like(t.title, "%a%").ilike(t.title, "%B%").matches(t.title, "^a").imatches(t.title, "^b")
        .likeAllOf(t.title, ["%a%", "%b c%"]).likeAnyOf(t.title, ["x"]).ilikeAllOf(t.title, ["y"])
        .ilikeAnyOf(t.title, [
          "z",
        ])
    ),
    [
      ["title", "like.%a%"],
      ["title", "ilike.%B%"],
      ["title", "match.^a"],
      ["title", "imatch.^b"],
      ["title", 'like(all).{%a%,"%b c%"}'],
      ["title", "like(any).{x}"],
      ["title", "ilike(all).{y}"],
      ["title", "ilike(any).{z}"],
    ],
  );
});

Deno.test("membership with PostgREST quoting of reserved characters", () => {
  assert.deepEqual(
    where((w) =>
      w.inList(t.title, ["a", "b,c", 'say "hi"', "x\\y", "a.b", "p:q", "(x)", "sp ace", ""])
        .notInList(t.id, [1, 2])
    ),
    [
      ["title", 'in.(a,"b,c","say \\"hi\\"","x\\\\y","a.b","p:q","(x)","sp ace","")'],
      ["id", "not.in.(1,2)"],
    ],
  );
});

Deno.test("array and range column operators", () => {
  assert.deepEqual(
    where((w) =>
      w.contains(t.tags, ["a", "b c"]).containedBy(t.tags, ["x"]).overlaps(t.tags, ["y", "z"])
        .contains(column("meta"), { a: 1 }).contains(t.during, "[1,5)")
        .rangeGt(t.during, "[1,2]").rangeGte(t.during, "[1,2]").rangeLt(t.during, "[1,2]")
        .rangeLte(t.during, "[1,2]").rangeAdjacent(t.during, "[1,2]")
    ),
    [
      ["tags", 'cs.{a,"b c"}'],
      ["tags", "cd.{x}"],
      ["tags", "ov.{y,z}"],
      ["meta", 'cs.{"a":1}'],
      ["during", "cs.[1,5)"],
      ["during", "sr.[1,2]"],
      ["during", "nxl.[1,2]"],
      ["during", "sl.[1,2]"],
      ["during", "nxr.[1,2]"],
      ["during", "adj.[1,2]"],
    ],
  );
});

Deno.test("textSearch with config and type; PLAIN is the default", () => {
  assert.deepEqual(
    where((w) =>
      w.textSearch(t.title, "fat cats").textSearch(t.title, "a b", {
        config: "english",
        type: TextSearchType.WEBSEARCH,
      })
        .textSearch(t.title, "x", { type: TextSearchType.PHRASE }).textSearch(t.title, "y & z", {
          type: TextSearchType.TSQUERY,
        })
    ),
    [["title", "plfts.fat cats"], ["title", "wfts(english).a b"], ["title", "phfts.x"], [
      "title",
      "fts.y & z",
    ]],
  );
  assert.throws(() => where((w) => w.textSearch(t.title, "x", { config: "en)glish" })), TypeError);
});

Deno.test("or/and/not groups nest, quote values, and take referencedTable", () => {
  assert.deepEqual(
    where((w) =>
      w.or((o) =>
        o.eq(t.title, "a,b").and((a) => a.greater(t.id, 1).isExactly(t.done, false)).not((n) =>
          n.eq(t.id, 3)
        )
      )
    ),
    [["or", '(title.eq."a,b",and(id.gt.1,done.is.false),id.not.eq.3)']],
  );
  assert.deepEqual(
    where((w) =>
      w.or((o) => o.eq(column("name"), "x").eq(column("name"), "y"), { referencedTable: "users" })
    ),
    [[
      "users.or",
      "(name.eq.x,name.eq.y)",
    ]],
  );
  assert.deepEqual(where((w) => w.not((n) => n.eq(t.id, 1).eq(t.title, "a"))), [[
    "not.and",
    "(id.eq.1,title.eq.a)",
  ]]);
  assert.deepEqual(where((w) => w.not((n) => n.inList(t.id, [1]))), [["id", "not.in.(1)"]]);
  assert.deepEqual(where((w) => w.or((o) => o.eq(t.title, "null").eq(t.title, ""))), [[
    "or",
    '(title.eq."null",title.eq."")',
  ]]);
});

Deno.test("raw emits column=operator.value verbatim and validates the operator", () => {
  assert.deepEqual(where((w) => w.raw(t.id, "not.in", "(1,2)")), [["id", "not.in.(1,2)"]]);
  assert.throws(() => where((w) => w.raw(t.id, "eq&x=1", "2")), TypeError);
});

Deno.test("orderBy merges keys per table with nulls; limit/offset last call wins; range derives limit", () => {
  assert.deepEqual(
    render((q) =>
      q.orderBy(t.created_at, { order: Order.DESC, nulls: Nulls.LAST }).orderBy(t.id)
        .orderBy(column("name"), { referencedTable: "users", nulls: Nulls.FIRST })
        .limit(5).limit(10).offset(3).offset(4).limit(2, { referencedTable: "users" })
    ),
    [
      ["order", "created_at.desc.nullslast,id.asc"],
      ["users.order", "name.asc.nullsfirst"],
      ["limit", "10"],
      ["users.limit", "2"],
      ["offset", "4"],
    ],
  );
  assert.deepEqual(render((q) => q.range(20, 29)), [["limit", "10"], ["offset", "20"]]);
  assert.deepEqual(render((q) => q.range(5, 5)), [["limit", "1"], ["offset", "5"]]);
});

Deno.test("order, limit and offset: a referenced table's window is not the top level's; pairs are copies", () => {
  const q = new QueryBuilder().limit(3, { referencedTable: "users" }).offset(1, {
    referencedTable: "users",
  });
  assert.equal(q.hasWindow, false);
  assert.equal(new QueryBuilder().offset(0).hasWindow, true);
  assert.equal(new QueryBuilder().limit(0).hasWindow, true);
  q.orderBy(t.id).limit(5).orderBy(column("name"), { referencedTable: "users" }).orderBy(t.title);
  const first = q.toQueryPairs();
  first[0][1] = "changed";
  first.pop();
  assert.deepEqual(q.toQueryPairs(), [
    ["order", "id.asc,title.asc"],
    ["users.order", "name.asc"],
    ["users.limit", "3"],
    ["limit", "5"],
    ["users.offset", "1"],
  ]);
  // A table path before a JSON path is refused; a `.` inside a JSON key is no table path (the key
  // goes quoted).
  assert.throws(() => q.orderBy(column("author.data->>x")), /referencedTable/);
  assert.deepEqual(new QueryBuilder().orderBy(column("data->>x.y")).toQueryPairs(), [
    ["order", 'data->>"x.y".asc'],
  ]);
  assert.deepEqual(new QueryBuilder().orderBy(column("data->x->>y")).toQueryPairs(), [
    ["order", "data->x->>y.asc"],
  ]);
});

Deno.test("misuse is refused before any request", () => {
  assert.throws(() => render((q) => q.range(5, 4)), RangeError);
  assert.throws(() => render((q) => q.limit(-1)), RangeError);
  assert.throws(() => render((q) => q.offset(1.5)), RangeError);
  assert.throws(() => where((w) => w.eq(column("x"), undefined as unknown as string)), TypeError);
  assert.throws(() => where((w) => w.inList(column("x"), [1, undefined as never])), TypeError);
  // Reserved query keys, and names PostgREST would read only in part unquoted, go double-quoted
  // (its `pFieldName` and `pJsonKeyName` read a quoted name whole, and a quoted key is a filter).
  for (
    const [name, wire] of [
      ["select", '"select"'],
      ["order", '"order"'],
      ["limit", '"limit"'],
      ["offset", '"offset"'],
      ["or", '"or"'],
      ["and", '"and"'],
      ["columns", '"columns"'],
      ["on_conflict", '"on_conflict"'],
      ["author.limit", 'author."limit"'],
      ["author.offset", 'author."offset"'],
      ["a.b.order", 'a.b."order"'],
      ["author.and", 'author."and"'],
      ["author.or", 'author."or"'],
      ["order->>x", '"order"->>x'],
      ["data->>a.b", 'data->>"a.b"'],
      ["data->a:b", 'data->"a:b"'],
      ["data->a>b", 'data->"a>b"'],
      ["a:b", '"a:b"'],
      ["a!b", '"a!b"'],
      ["price€", '"price€"'],
      ["x-", '"x-"'],
      ["a,b", '"a,b"'],
      ["f(x)", '"f(x)"'],
      ["a -b", '"a -b"'],
      ["a\tb", '"a\tb"'],
    ]
  ) {
    assert.deepEqual(where((w) => w.eq(column(name), 1)), [[wire, "eq.1"]], name);
  }
  for (const bad of ["a..b", ".a", "a.", "data->", "data->>", "->x", " a", "a. b", "data->>k "]) {
    assert.throws(() => where((w) => w.eq(column(bad), 1)), TypeError, bad);
  }
  assert.deepEqual(where((w) => w.eq(column("users.name"), "x")), [["users.name", "eq.x"]]);
  // `not` is an ordinary filter key; so are names that only contain a reserved word.
  assert.deepEqual(where((w) => w.eq(column("not"), 1)), [["not", "eq.1"]]);
  assert.deepEqual(where((w) => w.eq(column("author.limits"), 1)), [["author.limits", "eq.1"]]);
  assert.deepEqual(where((w) => w.eq(column("data->>order"), 1)), [["data->>order", "eq.1"]]);
  // Letters beyond ASCII go quoted: PostgREST's Unicode tables (GHC's) may be older than ours.
  assert.deepEqual(where((w) => w.eq(column("ünï->>é"), 1)), [['"ünï"->>"é"', "eq.1"]]);
  assert.deepEqual(where((w) => w.eq(column("a\u{10D4A}b"), 1)), [['"a\u{10D4A}b"', "eq.1"]]);
  for (
    const ok of [
      "first-name",
      "a$b",
      "data->0",
      "data->-1",
      "data->>k",
      "a.b.c",
      "data->>content-type",
      "headers->x-request-id",
      "a b",
      "a  b-c",
      "my table.first name->>some key",
    ]
  ) {
    assert.deepEqual(where((w) => w.eq(column(ok), 1)), [[ok, "eq.1"]], ok);
  }
  assert.throws(() => where((w) => w.eq(column("x"), NaN)), TypeError);
  assert.throws(() => column(""), TypeError);
  assert.throws(() => render((q) => q.orderBy(t.id, { order: "up" as Order })), TypeError);
  // An order term takes no table path (PostgREST answers 400): the embed's rows are ordered
  // with referencedTable.
  assert.throws(() => render((q) => q.orderBy(column("author.name"))), {
    name: "TypeError",
    message: /referencedTable/,
  });
  assert.deepEqual(render((q) => q.orderBy(column("data->>a"))), [["order", "data->>a.asc"]]);
  assert.throws(() => where((w) => w.isExactly(t.done, "yes" as unknown as boolean)), TypeError);
});

Deno.test("dates become ISO strings; numbers and booleans are verbatim", () => {
  assert.deepEqual(
    where((w) =>
      w.greater(column<Date>("at"), new Date(Date.UTC(2026, 0, 2))).eq(column<boolean>("b"), false)
        .eq(column<number>("n"), 1.5)
    ),
    [["at", "gt.2026-01-02T00:00:00.000Z"], ["b", "eq.false"], ["n", "eq.1.5"]],
  );
});

Deno.test("is-values stay bare inside groups (PostgREST's `is` reads only null/true/false/unknown)", () => {
  assert.deepEqual(
    where((w) =>
      w.or((o) =>
        o.isNull(t.title).eq(t.title, null).neq(t.title, null).isNotNull(t.id).isExactly(
          t.done,
          true,
        )
      )
    ),
    [["or", "(title.is.null,title.is.null,title.not.is.null,id.not.is.null,done.is.true)"]],
  );
  assert.deepEqual(where((w) => w.not((n) => n.isNull(t.title).eq(t.id, 1))), [[
    "not.and",
    "(title.is.null,id.eq.1)",
  ]]);
  // A string "null" is still quoted: it is the text, not NULL.
  assert.deepEqual(where((w) => w.or((o) => o.eq(t.title, "null").isNull(t.title))), [[
    "or",
    '(title.eq."null",title.is.null)',
  ]]);
});

Deno.test("isDistinctFrom(null) is IS NOT NULL, at top level and in groups", () => {
  assert.deepEqual(where((w) => w.isDistinctFrom(t.title, null)), [["title", "not.is.null"]]);
  assert.deepEqual(where((w) => w.or((o) => o.isDistinctFrom(t.title, null).eq(t.id, 1))), [[
    "or",
    "(title.not.is.null,id.eq.1)",
  ]]);
});

Deno.test("arrays holding braces go quoted whole inside groups; plain arrays stay bare", () => {
  assert.deepEqual(
    where((w) => w.or((o) => o.contains(t.tags, ["a}b", "c"]).eq(t.id, 1))),
    [["or", '(tags.cs."{\\"a}b\\",c}",id.eq.1)']],
  );
  assert.deepEqual(
    where((w) => w.or((o) => o.likeAnyOf(t.title, ["%x{%", "y"]).eq(t.id, 1))),
    [["or", '(title.like(any)."{\\"%x{%\\",y}",id.eq.1)']],
  );
  assert.deepEqual(where((w) => w.or((o) => o.contains(t.tags, ["a,b", "c"]).eq(t.id, 1))), [[
    "or",
    '(tags.cs.{"a,b",c},id.eq.1)',
  ]]);
  // Top level takes the rest of the value verbatim: no quoting needed there.
  assert.deepEqual(where((w) => w.contains(t.tags, ["a}b"])), [["tags", 'cs.{"a}b"}']]);
});

Deno.test("within on an embedded column targets the embedded table; dotted columns in groups are refused", () => {
  assert.deepEqual(where((w) => w.within(column<number>("author.age"), { from: 1, to: 5 })), [[
    "author.and",
    "(age.gte.1,age.lte.5)",
  ]]);
  assert.deepEqual(where((w) => w.within(column<number>("a.b.c"), { from: 1, to: 5 })), [[
    "a.b.and",
    "(c.gte.1,c.lte.5)",
  ]]);
  assert.throws(
    () => where((w) => w.or((o) => o.eq(column<number>("author.age"), 1).eq(t.id, 2))),
    { name: "TypeError", message: /inside a group .*referencedTable/ },
  );
});

Deno.test("empty or/and/not blocks are refused (PostgREST rejects `or=()`)", () => {
  for (
    const block of [
      (w: WhereBuilder) => w.or(() => {}),
      (w: WhereBuilder) => w.and(() => {}),
      (w: WhereBuilder) => w.not(() => {}),
      (w: WhereBuilder) => w.or((o) => o.and(() => {})),
    ]
  ) {
    assert.throws(() => where(block), { name: "TypeError", message: /added no predicate/ });
  }
});

Deno.test("text-search configurations are PostgREST identifiers (no dots)", () => {
  assert.throws(
    () => where((w) => w.textSearch(t.title, "x", { config: "pg_catalog.english" })),
    TypeError,
  );
  assert.deepEqual(where((w) => w.textSearch(t.title, "x", { config: "english" })), [[
    "title",
    "plfts(english).x",
  ]]);
});

Deno.test("inList refuses null items (PostgREST would send the text 'null')", () => {
  assert.throws(() => where((w) => w.inList(t.id, [1, null as unknown as number])), {
    name: "TypeError",
    message: /holds null/,
  });
  assert.throws(() => where((w) => w.notInList(t.id, [null as unknown as number])), TypeError);
  assert.deepEqual(where((w) => w.contains(t.tags, ["a", null as unknown as string])), [[
    "tags",
    "cs.{a,null}",
  ]]);
});

Deno.test("order terms may name columns that are reserved query keys", () => {
  assert.deepEqual(render((q) => q.orderBy(column("limit")).orderBy(column("order"))), [[
    "order",
    "limit.asc,order.asc",
  ]]);
  assert.deepEqual(where((w) => w.eq(column("limit"), 1)), [['"limit"', "eq.1"]]);
});

Deno.test("an embed named like a modifier (order, limit) can be ordered, limited and grouped", () => {
  assert.deepEqual(
    render((q) =>
      q.orderBy(column("id"), { referencedTable: "order" }).limit(3, { referencedTable: "limit" })
        .offset(1, { referencedTable: "offset" })
    ),
    [["order.order", "id.asc"], ["limit.limit", "3"], ["offset.offset", "1"]],
  );
  assert.deepEqual(
    where((w) =>
      w.or((o) => o.eq(column("a"), 1).eq(column("b"), 2), { referencedTable: "order" })
    ),
    [["order.or", "(a.eq.1,b.eq.2)"]],
  );
  assert.deepEqual(render((q) => q.limit(1, { referencedTable: "a:b" })), [['"a:b".limit', "1"]]);
  assert.throws(() => render((q) => q.limit(1, { referencedTable: "a..b" })), TypeError);
});

Deno.test("an async block (its filters would come after the request) is INVALID_ARGUMENT with no request, at every level; its promise is settled quietly", async () => {
  const { db, rec } = makeDb(() => jsonResponse([]));
  const idCol = column<number>("id");
  let unhandled = 0;
  const onUnhandled = (e: PromiseRejectionEvent) => {
    unhandled++;
    e.preventDefault();
  };
  globalThis.addEventListener("unhandledrejection", onUnhandled);
  try {
    // Refused by the types too (a block returns no promise): cast to reach the run-time check.
    const asyncWhere = (async (w: WhereBuilder) => {
      await null;
      w.eq(idCol, 1);
    }) as (w: WhereBuilder) => void;
    const rejecting = ((_: WhereBuilder) => Promise.reject(new Error("late"))) as (
      w: WhereBuilder,
    ) => void;
    const results = [
      await db.delete("todos", asyncWhere),
      await db.update("todos", "{}", asyncWhere),
      await db.delete("todos", rejecting),
      await db.select("todos", { block: (q) => q.where(asyncWhere) }),
      await db.select("todos", {
        block: ((q) => Promise.resolve(void q.limit(1))) as (q: QueryBuilder) => void,
      }),
      await db.delete("todos", (w) => w.or(asyncWhere)),
      await db.delete("todos", (w) => w.not(asyncWhere)),
    ];
    for (const r of results) {
      assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
      assert.match(r.errorOrNull()?.message ?? "", /returned a promise/);
    }
    assert.equal(rec.requests.length, 0);
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(unhandled, 0);
  } finally {
    globalThis.removeEventListener("unhandledrejection", onUnhandled);
  }
});
