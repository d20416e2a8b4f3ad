import assert from "node:assert/strict";
import { column, columns, WhereBuilder } from "../../database/mod.ts";

interface Todo {
  id: number;
  done: boolean;
  title: string;
}

Deno.test("typed columns reject mismatched operands at compile time", () => {
  const todo = columns<Todo>();
  const w = new WhereBuilder();
  // @ts-expect-error a boolean column cannot be compared with a string
  w.eq(todo.done, "yes");
  // @ts-expect-error a number column cannot take a string list
  w.inList(todo.id, ["1"]);
  // @ts-expect-error like needs a text column
  w.like(todo.id, "%1%");
  // @ts-expect-error unknown column on the row type
  todo.nope;
  w.eq(todo.done, true).eq(todo.id, 1).like(todo.title, "%a%");
  w.eq(column<number>("n"), 2);
  w.eq("free_text_column", "anything");
  assert.equal(w.predicates.length, 8);
});

Deno.test("a text column (a timestamp as JSON gives it) takes a Date, sent as its ISO text; other columns do not", () => {
  interface Row {
    id: number;
    created_at: string;
    due: string | null;
  }
  const row = columns<Row>();
  const at = new Date(Date.UTC(2026, 10, 28, 12, 0, 0));
  const w = new WhereBuilder()
    .greater(row.created_at, at)
    .lessEq(row.created_at, "2026-12-01")
    .within(row.created_at, { from: at, to: new Date(Date.UTC(2026, 11, 1)) })
    .eq(row.due, at)
    .inList(row.created_at, [at]);
  assert.deepEqual(
    w.predicates.map((p) => p.kind === "filter" ? p.value : ""),
    [
      "2026-11-28T12:00:00.000Z",
      "2026-12-01",
      "",
      "2026-11-28T12:00:00.000Z",
      '("2026-11-28T12:00:00.000Z")',
    ],
  );
  // @ts-expect-error a number column takes no Date
  w.greater(row.id, at);
});

Deno.test("an enum column (a union of string literals) takes no Date", () => {
  interface Row {
    status: "open" | "closed";
    note: string | null;
  }
  const row = columns<Row>();
  const w = new WhereBuilder().eq(row.status, "open").eq(row.note, new Date(0));
  // @ts-expect-error an enum column takes none of its values as a Date
  w.eq(row.status, new Date(0));
  // @ts-expect-error nor in a list
  w.inList(row.status, [new Date(0)]);
  assert.equal(w.predicates.length, 4);
});

Deno.test("branded and template-literal string columns take a Date too", () => {
  type Iso = string & { readonly __brand: "iso" };
  interface Row {
    at: Iso;
    day: `${number}-${number}-${number}`;
  }
  const row = columns<Row>();
  const w = new WhereBuilder().greater(row.at, new Date(0)).lessEq(row.day, new Date(0));
  assert.equal(w.predicates.length, 2);
});
