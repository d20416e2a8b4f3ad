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
