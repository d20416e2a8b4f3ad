/**
 * Requirements of the interface document that no other test pins down:
 * `replace`'s default projection, the wire value of `CountOption.ESTIMATED`
 * (checked against @supabase/postgrest-js), and `insert` sending
 * `on_conflict=` only for an upsert.
 */
import assert from "node:assert/strict";
import { PostgrestClient } from "@supabase/postgrest-js";
import type { ServiceResult } from "../../core/result.ts";
import {
  column,
  CountOption,
  type DatabaseClient,
  ReturnOption,
  UpsertResolution,
} from "../../database/mod.ts";
import { jsonResponse, recordingFetch } from "../support/recording_fetch.ts";
import { assertInvalid, BASE, KEY, makeDb, pairs, q, shape } from "./_helpers.ts";

const id = column<number>("id");

type Theirs = (c: PostgrestClient) => PromiseLike<unknown>;
type Ours = (db: DatabaseClient) => Promise<ServiceResult<unknown>>;

function theirsClient() {
  const rec = recordingFetch(() => jsonResponse([]));
  const client = new PostgrestClient(`${BASE}/rest/v1`, {
    headers: { apikey: KEY, Authorization: `Bearer ${KEY}` },
    fetch: rec.fetch,
  });
  return { client, rec };
}

/** The directives of a `Prefer` header, in order. */
function prefer(headers: Headers): string[] {
  return (headers.get("prefer") ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
}

Deno.test("replace: without columns the returned representation is projected with select=*", async () => {
  const { db, rec } = makeDb(() => jsonResponse([{ id: 7, title: "t" }]));
  const r = await db.replace("todos", '{"id":7,"title":"t"}', (w) => w.eq(id, 7));
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  const req = rec.only;
  assert.equal(req.method, "PUT");
  assert.equal(req.url.pathname, "/rest/v1/todos");
  assert.deepEqual(pairs(req.url), [["select", "*"], ["id", "eq.7"]]);
  assert.deepEqual(prefer(req.headers), ["return=representation"]);
  assert.equal(req.text, '{"id":7,"title":"t"}');

  // The same default with REPRESENTATION stated; a given projection replaces it.
  await db.replace("todos", '{"id":7}', (w) => w.eq(id, 7), {
    returning: ReturnOption.REPRESENTATION,
  });
  assert.equal(q(rec.last.url, "select"), "*");
  await db.replace("todos", '{"id":7}', (w) => w.eq(id, 7), { columns: "id,title" });
  assert.equal(q(rec.last.url, "select"), "id,title");
  // MINIMAL returns no rows, so no projection is sent.
  await db.replace("todos", '{"id":7}', (w) => w.eq(id, 7), { returning: ReturnOption.MINIMAL });
  assert.equal(q(rec.last.url, "select"), null);
  assert.deepEqual(prefer(rec.last.headers), ["return=minimal"]);
});

Deno.test("replace: a primary key named with inner spaces goes as the raw filter key PostgREST compares", async () => {
  const { db, rec } = makeDb(() => jsonResponse([]));
  // PostgREST's PUT checks that the set of raw filter keys equals the primary key's columns
  // (`qsFilterFields = S.fromList (fst <$> filters)`): `"first name"` would be answered 405 (PGRST105).
  const r = await db.replace(
    "people",
    '{"first name":"Ada","last  name":"L","id":1}',
    (w) => w.eq(column("first name"), "Ada").eq(column("last  name"), "L").eq(id, 1),
  );
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.equal(rec.only.method, "PUT");
  assert.equal(
    rec.only.url.search,
    "?select=*&first%20name=eq.Ada&last%20%20name=eq.L&id=eq.1",
  );
});

Deno.test("replace: a filter key that must go quoted is refused, as it never matches a primary key", async () => {
  const { db, rec } = makeDb(() => jsonResponse([]));
  // `"order"` (a reserved query key), `"Total €"`, `"a - b"`: PostgREST compares the raw key with
  // the column's name, and a bare `order=eq.1` would be read as an ordering.
  for (const name of ["order", "Total €", "a - b", "author.limit"]) {
    await assertInvalid(
      db.replace("t", "{}", (w) => w.eq(id, 1).eq(column(name), 1)),
      /Cannot replace a row by .* as PostgREST.s PUT matches no quoted name.*use insert with upsert/,
      name,
    );
  }
  assert.equal(rec.requests.length, 0);
});

Deno.test("CountOption.ESTIMATED is sent as Prefer: count=estimated, as postgrest-js sends count: 'estimated'", async () => {
  assert.equal(CountOption.ESTIMATED, "estimated");
  const cases: Array<[string, Theirs, Ours]> = [
    [
      "select",
      (c) => c.from("t").select("*", { count: "estimated" }),
      (db) => db.select("t", { count: CountOption.ESTIMATED }),
    ],
    [
      "select head",
      (c) => c.from("t").select("*", { count: "estimated", head: true }),
      (db) => db.selectCount("t", { count: CountOption.ESTIMATED }),
    ],
  ];
  for (const [label, theirs, ours] of cases) {
    const them = theirsClient();
    await theirs(them.client);
    const us = makeDb(() =>
      new Response(null, {
        headers: { "content-type": "application/json", "content-range": "*/42" },
      })
    );
    const r = await ours(us.db);
    assert.ok(r.ok, label);
    assert.ok(prefer(us.rec.only.headers).includes("count=estimated"), label);
    assert.deepEqual(shape(us.rec.only), shape(them.rec.only), label);
  }
  // A write too: the count directive sits beside the return directive.
  const { db, rec } = makeDb();
  await db.insert("t", '{"a":1}', { count: CountOption.ESTIMATED });
  assert.deepEqual(prefer(rec.only.headers), ["return=representation", "count=estimated"]);
});

Deno.test("insert: on_conflict is sent only with upsert; onConflict alone is a plain insert, as postgrest-js insert()", async () => {
  // Not an upsert: neither on_conflict= nor a resolution, whatever onConflict says.
  const plain = makeDb();
  await plain.db.insert("t", '{"id":1,"a":2}', { onConflict: "id" });
  assert.equal(plain.rec.only.url.searchParams.has("on_conflict"), false);
  assert.deepEqual(pairs(plain.rec.only.url), [["select", "*"]]);
  assert.deepEqual(prefer(plain.rec.only.headers), ["return=representation"]);
  // The same through postgrest-js, whose insert() takes no onConflict.
  const them = theirsClient();
  await them.client.from("t").insert({ id: 1, a: 2 }).select();
  assert.deepEqual(shape(plain.rec.only), shape(them.rec.only));

  // An upsert with onConflict sends it, with the resolution; postgrest-js upsert() agrees.
  const up = makeDb();
  await up.db.insert("t", '{"id":1,"a":2}', { upsert: true, onConflict: "id" });
  assert.equal(q(up.rec.only.url, "on_conflict"), "id");
  assert.ok(
    prefer(up.rec.only.headers).includes(`resolution=${UpsertResolution.MERGE_DUPLICATES}`),
  );
  const them2 = theirsClient();
  await them2.client.from("t").upsert({ id: 1, a: 2 }, { onConflict: "id" }).select();
  assert.deepEqual(shape(up.rec.only), shape(them2.rec.only));

  // on_conflict goes as given: a space inside a name is part of it for PostgREST.
  const spaced = makeDb();
  await spaced.db.insert("t", '{"first name":"a"}', {
    upsert: true,
    onConflict: "first name, id",
  });
  assert.equal(q(spaced.rec.only.url, "on_conflict"), "first name, id");
  const them3 = theirsClient();
  await them3.client.from("t").upsert({ "first name": "a" }, { onConflict: "first name, id" })
    .select();
  assert.equal(q(them3.rec.only.url, "on_conflict"), "first name, id");

  // upsert: false stated explicitly behaves as the default.
  const off = makeDb();
  await off.db.insert("t", '[{"id":1}]', { upsert: false, onConflict: "id" });
  assert.equal(off.rec.only.url.searchParams.has("on_conflict"), false);
  assert.equal(prefer(off.rec.only.headers).some((p) => p.startsWith("resolution=")), false);
});
