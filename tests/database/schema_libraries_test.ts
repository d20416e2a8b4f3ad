/**
 * The typed helpers with the schema libraries apps use, as published (zod 4, valibot 1, arktype
 * 2, all Standard Schemas): rows pass or fail through each, and the row type comes from the
 * schema. Type-checking this file is part of the test: arktype's types can also be called (the
 * call returns the value or an `ArkErrors`), and the row type was `T | ArkErrors` until the
 * function form of `Validator` stopped giving `T` where a schema gives it.
 */
import assert from "node:assert/strict";
import { type } from "arktype";
import * as v from "valibot";
import * as z from "zod";
import {
  rpcGetTyped,
  rpcTyped,
  selectSingleTyped,
  selectTyped,
  type Validator,
} from "../../database/mod.ts";
import { jsonResponse } from "../support/recording_fetch.ts";
import { makeDb } from "./_helpers.ts";

const good = [{ id: 1, title: "a" }, { id: 2, title: "b" }];
const bad = [{ id: 1, title: "a" }, { id: "2", title: "b" }];

const zodTodo = z.object({ id: z.number(), title: z.string() });
const valibotTodo = v.object({ id: v.number(), title: v.string() });
const arkTodo = type({ id: "number", title: "string" });

for (
  const [name, schema] of [
    ["zod", zodTodo],
    ["valibot", valibotTodo],
    ["arktype", arkTodo],
  ] as const
) {
  Deno.test(`${name}: good rows pass as the schema's output; a bad row is DECODE naming its index`, async () => {
    const { db } = makeDb([jsonResponse(good), jsonResponse(bad)]);
    const ok = await selectTyped(db, "todos", { validator: schema });
    assert.deepEqual(ok.getOrThrow(), good);
    const failed = await selectTyped(db, "todos", { validator: schema });
    assert.equal(failed.errorOrNull()?.category, "DECODE");
    assert.match(failed.errorOrNull()!.message, /^Cannot decode row 1: /);
    // The field goes with its message, and the issues are the cause (a form can map them).
    assert.match(failed.errorOrNull()!.message, /^Cannot decode row 1: id: /);
    const issues = failed.errorOrNull()!.cause as ReadonlyArray<{ path?: ReadonlyArray<unknown> }>;
    assert.ok(Array.isArray(issues) && issues.length >= 1, String(issues));
  });
}

Deno.test("the row type is the schema's output type, arktype's included", async () => {
  const { db } = makeDb([
    jsonResponse(good),
    jsonResponse(good),
    jsonResponse(good),
    jsonResponse(good[0]),
  ]);
  const fromZod = (await selectTyped(db, "todos", { validator: zodTodo })).getOrThrow();
  const fromValibot = (await selectTyped(db, "todos", { validator: valibotTodo })).getOrThrow();
  const fromArk = (await selectTyped(db, "todos", { validator: arkTodo })).getOrThrow();
  const one = (await selectSingleTyped(db, "todos", { validator: arkTodo })).getOrThrow();
  // Each of these assignments fails to type-check if the row type is wider (`T | ArkErrors`).
  const titles: string[] = [...fromZod, ...fromValibot, ...fromArk].map((row) => row.title);
  const id: number = one.id;
  assert.deepEqual(titles, ["a", "b", "a", "b", "a", "b"]);
  assert.equal(id, 1);
  // @ts-expect-error a title is a string
  const wrong: number = fromArk[0].title;
  assert.equal(wrong, "a");
});

Deno.test("scalar and nullable results: the type follows the schema, and a null passes where allowed", async () => {
  const { db } = makeDb([jsonResponse(null), jsonResponse(7), jsonResponse(null)]);
  const nullable = (await rpcTyped(db, "f", { validator: z.number().nullable() })).getOrThrow();
  const count = (await rpcGetTyped(db, "g", { validator: type("number") })).getOrThrow();
  const refused = await rpcTyped(db, "f", { validator: v.number() });
  const n: number | null = nullable;
  const c: number = count;
  assert.equal(n, null);
  assert.equal(c, 7);
  assert.equal(refused.errorOrNull()?.category, "DECODE");
});

Deno.test("functions still give the row type, nullable and asynchronous ones included", async () => {
  const { db } = makeDb(() => jsonResponse(good));
  const plain = (await selectTyped(db, "todos", {
    validator: (row) => row as { id: number; title: string },
  })).getOrThrow();
  const later = (await selectTyped(db, "todos", {
    validator: (row) => Promise.resolve((row as { title: string }).title),
  })).getOrThrow();
  const orNull = (await selectTyped(db, "todos", {
    validator: (row): string | null => (row as { id: number }).id === 1 ? null : "two",
  })).getOrThrow();
  const title: string = plain[0].title;
  const names: string[] = later;
  const maybe: Array<string | null> = orNull;
  assert.equal(title, "a");
  assert.deepEqual(names, ["a", "b"]);
  assert.deepEqual(maybe, [null, "two"]);
  // A schema and a function are both a Validator of their type.
  const validators: Array<Validator<{ id: number; title: string }>> = [
    zodTodo,
    valibotTodo,
    arkTodo,
    (row) => row as { id: number; title: string },
  ];
  assert.equal(validators.length, 4);
});
