// Behaviour a mutation review found no test pinning (each mutant of it passed the suite): the
// Proxy-Status code of HEAD failures, the rollback check's reads, the union of an insert's keys,
// an empty `columns=`, and the projection of minimal writes.
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { proxyStatusCode } from "../../database/_proxy_status.ts";
import {
  createDatabaseClient,
  ReturnOption,
  unionOfKeys,
  validateAll,
} from "../../database/mod.ts";
import { BASE, KEY, makeDb } from "./_helpers.ts";

Deno.test("a HEAD failure takes its code from Proxy-Status only when PostgREST's member comes first, by that name", async () => {
  assert.equal(proxyStatusCode("PostgREST; error=PGRST116"), "PGRST116");
  assert.equal(proxyStatusCode("MyPostgREST; error=PGRST116"), null);
  assert.equal(proxyStatusCode("gw; error=x, PostgREST; error=PGRST116"), null);
  const { db } = makeDb(() =>
    new Response(null, {
      status: 406,
      headers: {
        "proxy-status": "edge-cache; error=http_response_incomplete, PostgREST; error=PGRST116",
      },
    })
  );
  const r = await db.selectCount("t");
  assert.equal(r.errorOrNull()?.status, 406);
  assert.equal(r.errorOrNull()?.code, null);
});

Deno.test("a HEAD read whose last attempt failed on the network does not carry an earlier attempt's PostgREST code", async () => {
  let n = 0;
  const fetch = (() => {
    if (++n === 1) {
      return Promise.resolve(
        new Response(null, {
          status: 503,
          headers: { "proxy-status": "PostgREST; error=PGRST001" },
        }),
      );
    }
    return Promise.reject(new TypeError("connection reset"));
  }) as typeof globalThis.fetch;
  const db = createDatabaseClient(
    createBaseClient(BASE, KEY, { fetch, retry: { baseDelayMs: 1, maxDelayMs: 1 } }),
  );
  const e = (await db.selectCount("t")).errorOrNull();
  assert.equal(n, 3);
  assert.equal(e?.category, "NETWORK");
  assert.equal(e?.code, null);
});

Deno.test("reads under a Prefer of tx=rollback are not held to the rollback check (a GET answer confirms nothing)", async () => {
  const { db, rec } = makeDb();
  const clientWide = createDatabaseClient(
    createBaseClient(BASE, KEY, { fetch: rec.fetch, headers: { prefer: "tx=rollback" } }),
  );
  assert.ok((await clientWide.select("todos")).ok);
  assert.ok((await clientWide.selectCount("todos")).ok);
  assert.ok((await db.rpcGet("stable_fn", { headers: { Prefer: "tx=rollback" } })).ok);
  assert.equal(rec.requests.length, 3);
});

Deno.test("an insert's derived columns= is the union of its object rows' keys (array rows add none), and is left out when empty", async () => {
  assert.deepEqual(unionOfKeys('[[1,2],{"id":1}]'), ["id"]);
  const { db, rec } = makeDb();
  await db.insert("t", '[{"id":1},[5]]');
  await db.insert("t", "[]");
  await db.insert("t", "[{}]");
  await db.insert("t", '{"a":1}', { columns: [] });
  const columns = rec.requests.map((r) => r.url.searchParams.get("columns"));
  // An empty `columns=` is one PostgREST cannot parse (PGRST100).
  assert.deepEqual(columns, ['"id"', null, null, null]);
});

Deno.test("an update or delete given columns keeps its select= projection whatever it returns (an embedded filter needs it)", async () => {
  const { db, rec } = makeDb(() =>
    new Response(null, { status: 204, headers: { "preference-applied": "return=minimal" } })
  );
  await db.update("t", '{"a":1}', null, { returning: ReturnOption.MINIMAL, columns: "id,a" });
  await db.delete("t", null, { returning: ReturnOption.HEADERS_ONLY, columns: "id" });
  assert.deepEqual(rec.requests.map((r) => r.url.searchParams.get("select")), ["id,a", "id"]);
});

Deno.test("columns= is derived from the body only for JSON: a body sent under another type (CSV, text) gets none", async () => {
  const { db, rec } = makeDb();
  await db.insert("t", '[{"a":1}]', { contentType: "text/plain" });
  await db.insert("t", '[{"a":1}]', { contentType: "application/json; charset=utf-8" });
  assert.deepEqual(rec.requests.map((r) => r.url.searchParams.get("columns")), [null, '"a"']);
});

Deno.test("a validator's issues are named by their paths joined with '.', one after another with '; '", async () => {
  const schema = {
    "~standard": {
      version: 1 as const,
      vendor: "test",
      validate: () => ({
        issues: [
          { message: "Expected string", path: [{ key: "items" }, 0, "name"] },
          { message: "Required", path: ["title"] },
          { message: "Bad row" },
        ],
      }),
    },
  };
  const r = await validateAll([{}], schema);
  assert.equal(
    r.errorOrNull()?.message,
    "Cannot decode row 0: items.0.name: Expected string; title: Required; Bad row",
  );
});

Deno.test("a call's Prefer directive replaces the client-wide one of its name whatever the case", async () => {
  const { rec } = makeDb(() => new Response(null, { status: 201 }));
  const db = createDatabaseClient(
    createBaseClient(BASE, KEY, { fetch: rec.fetch, headers: { Prefer: "Return=representation" } }),
  );
  await db.insert("t", '{"a":1}', { returning: ReturnOption.MINIMAL });
  const prefer = rec.requests[0].headers.get("prefer") ?? "";
  assert.deepEqual(prefer.split(",").filter((d) => /^return=/i.test(d)), ["return=minimal"]);
});
