/**
 * Review of the typed layer against PostgREST's answers: a paginator past a counted total (416),
 * and Standard Schema validators whose result has neither `value` nor `issues`.
 */
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import {
  createDatabaseClient,
  deleteTyped,
  insertTyped,
  insertTypedMany,
  paginator,
  rpcGetTyped,
  rpcTyped,
  selectMaybeSingleTyped,
  selectSingleTyped,
  selectTyped,
  selectWithCountTyped,
  type StandardSchemaV1,
  updateTyped,
  upsertTyped,
  type Validator,
} from "../../database/mod.ts";
import { jsonResponse, recordingFetch } from "../support/recording_fetch.ts";
import { BASE, KEY, makeDb } from "./_helpers.ts";

Deno.test("paginator: PostgREST's 416 past a counted total (client-wide count, rows deleted) ends it instead of failing on every loadNext", async () => {
  let total = 5;
  const rec = recordingFetch((req) => {
    const offset = Number(req.url.searchParams.get("offset"));
    const limit = Number(req.url.searchParams.get("limit"));
    if (offset > total) {
      // PostgREST's answer (Response.hs, rangeStatusHeader): 416, PGRST103, Content-Range */total.
      return jsonResponse({
        code: "PGRST103",
        details: `An offset of ${offset} was requested, but there are only ${total} rows.`,
        hint: null,
        message: "Requested range not satisfiable",
      }, { status: 416, headers: { "content-range": `*/${total}` } });
    }
    const rows = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => ({
      id: offset + i,
    }));
    return jsonResponse(rows, {
      headers: { "content-range": `${offset}-${offset + rows.length - 1}/${total}` },
    });
  });
  const db = createDatabaseClient(
    createBaseClient(BASE, KEY, { fetch: rec.fetch, headers: { Prefer: "count=exact" } }),
  );
  const p = paginator<{ id: number }>(db, "t", { pageSize: 5 });
  assert.equal((await p.loadNext()).getOrNull()?.length, 5);
  total = 3; // two rows deleted before the next page
  const next = await p.loadNext();
  assert.equal(rec.last.headers.get("prefer"), "count=exact");
  assert.deepEqual(next.getOrNull(), []);
  assert.equal(p.isEnd.value, true);
  assert.equal(p.error.value, null);
  assert.equal(p.items.value.length, 5);
  assert.deepEqual((await p.loadNext()).getOrNull(), []);
  assert.equal(rec.requests.length, 2, "no request once ended");
});

Deno.test("paginator: other failures still land in error and are retried", async () => {
  const { db, rec } = makeDb(() => jsonResponse({ message: "boom" }, { status: 400 }));
  const p = paginator(db, "t");
  assert.equal((await p.loadNext()).ok, false);
  assert.equal(p.isEnd.value, false);
  assert.equal(p.error.value?.status, 400);
  await p.loadNext();
  assert.equal(rec.requests.length, 2);
});

Deno.test("a Standard Schema result with neither value nor issues is DECODE, not a row of undefined", async () => {
  const broken = (result: unknown): StandardSchemaV1<{ id: number }> => ({
    "~standard": { version: 1, vendor: "test", validate: () => result as { value: { id: 1 } } },
  });
  for (const result of [true, "ok", 1, {}, { issues: undefined }]) {
    const { db } = makeDb(() => jsonResponse([{ id: 1 }]));
    const r = await selectTyped(db, "t", { validator: broken(result) });
    assert.equal(r.errorOrNull()?.category, "DECODE", JSON.stringify(result));
    assert.match(r.errorOrNull()?.message ?? "", /neither value nor issues/);
  }
  // `{ value: undefined }` is a result (a schema may map a row to undefined).
  const { db } = makeDb(() => jsonResponse([{ id: 1 }]));
  const r = await selectTyped(db, "t", { validator: broken({ value: undefined }) });
  assert.deepEqual(r.getOrNull(), [undefined]);
});

Deno.test("a validator that is neither a function nor a Standard Schema is refused before the request (a write was committed, then reported INVALID_ARGUMENT)", async () => {
  const { db, rec } = makeDb(() => jsonResponse([{ id: 1 }]));
  // A Joi- or yup-style schema: it has `validate`, but no `~standard`.
  const validator = { validate: (v: unknown) => v } as unknown as Validator<{ id: number }>;
  const calls: Array<[string, () => Promise<{ ok: boolean; errorOrNull(): unknown }>]> = [
    ["selectTyped", () => selectTyped(db, "t", { validator })],
    ["selectSingleTyped", () => selectSingleTyped(db, "t", { validator })],
    ["selectMaybeSingleTyped", () => selectMaybeSingleTyped(db, "t", { validator })],
    ["selectWithCountTyped", () => selectWithCountTyped(db, "t", { validator })],
    ["insertTyped", () => insertTyped(db, "t", { id: 1 }, { validator })],
    ["insertTypedMany", () => insertTypedMany(db, "t", [{ id: 1 }], { validator })],
    ["upsertTyped", () => upsertTyped(db, "t", { id: 1 }, { validator })],
    ["updateTyped", () => updateTyped(db, "t", { id: 2 }, null, { validator })],
    ["deleteTyped", () => deleteTyped(db, "t", null, { validator })],
    ["rpcTyped", () => rpcTyped(db, "f", { validator })],
    ["rpcGetTyped", () => rpcGetTyped(db, "f", { validator })],
  ];
  for (const [name, call] of calls) {
    const r = await call();
    const e = r.errorOrNull() as { category: string; message: string } | null;
    assert.equal(e?.category, "INVALID_ARGUMENT", name);
    assert.match(e!.message, /'validator' must be a function or a Standard Schema/);
  }
  assert.equal(rec.requests.length, 0, "nothing sent");
  assert.throws(() => paginator(db, "t", { validator }), {
    name: "TypeError",
    message: /'validator' must be a function or a Standard Schema/,
  });
  // A function and a Standard Schema still go.
  assert.ok((await selectTyped(db, "t", { validator: (v) => v as { id: number } })).ok);
  const schema: StandardSchemaV1<{ id: number }> = {
    "~standard": {
      version: 1,
      vendor: "test",
      validate: (v) => ({ value: v as { id: number } }),
    },
  };
  assert.ok((await insertTyped(db, "t", { id: 1 }, { validator: schema })).ok);
  assert.equal(rec.requests.length, 2);
});

Deno.test("updateTyped sends the value's JSON form (toJSON) without its null fields: an invalid Date leaves its column untouched, NaN is refused", async () => {
  const { db, rec } = makeDb(() => jsonResponse([]));
  class Task {
    isDone = true;
    dueAt: Date | null = null;
    toJSON() {
      return { done: this.isDone, due_at: this.dueAt };
    }
  }
  await updateTyped(db, "tasks", new Task() as unknown as { done: boolean }, null);
  assert.equal(rec.last.text, '{"done":true}');
  await updateTyped(
    db,
    "tasks",
    { title: "x", due: new Date(""), big: 9007199254740993n, gone: null },
    null,
  );
  assert.equal(rec.last.text, '{"title":"x","big":9007199254740993}');
  const nan = await updateTyped(db, "tasks", { title: "x", n: NaN }, null);
  assert.match(nan.errorOrNull()!.message, /'n' is NaN, which JSON cannot carry/);
  // A value whose JSON form is no object is refused, as before.
  const odd = { toJSON: () => [1, 2] } as unknown as { id: number };
  const r = await updateTyped(db, "t", odd, null);
  assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 2);
});

Deno.test("a validator whose '~standard' has no validate function is refused before the request too", async () => {
  const { db, rec } = makeDb(() => jsonResponse([{ id: 1 }]));
  for (
    const validator of [
      { "~standard": undefined },
      { "~standard": { version: 1, vendor: "json-schema" } },
      Object.create({ "~standard": { version: 1 } }),
    ]
  ) {
    const r = await insertTyped(db, "t", { id: 1 }, {
      validator: validator as unknown as Validator<{ id: number }>,
    });
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  }
  assert.equal(rec.requests.length, 0);
});
