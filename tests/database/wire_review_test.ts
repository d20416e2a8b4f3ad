/**
 * Wire review: requests PostgREST would read otherwise than meant.
 */
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import {
  column,
  createDatabaseClient,
  flattenParams,
  insertTyped,
  ResponseFormat,
} from "../../database/mod.ts";
import { serve } from "../support/serve.ts";
import { makeDb, pairs } from "./_helpers.ts";

Deno.test("GET RPC arguments from JSON text keep every number as written (PostgREST reads them as text)", async () => {
  // A double holds 15 to 17 significant digits: a numeric(38,18) argument lost the rest, and
  // a decimal beyond 2^53 was refused as an unsafe integer, where a POST sends it exact.
  const { db, rec } = makeDb(() => new Response("[]"));
  await db.rpcGet("f", {
    params: '{"amount": 1.123456789012345678, "big": 12345678901234567.89, "tiny": 1e400}',
  });
  assert.deepEqual(pairs(rec.last.url), [
    ["amount", "1.123456789012345678"],
    ["big", "12345678901234567.89"],
    ["tiny", "1e400"],
  ]);
  await db.rpc("f", { params: '{"id": 9007199254740993.5}', format: ResponseFormat.HEAD });
  assert.deepEqual(pairs(rec.last.url), [["id", "9007199254740993.5"]]);
  // Nested in a json argument too, and integers beyond 2^53 as before.
  assert.deepEqual(
    flattenParams('{"o": {"p": 123456789.123456789123, "q": [18446744073709551615, 0.5]}}'),
    [["o", '{"p":123456789.123456789123,"q":[18446744073709551615,0.5]}']],
  );
  // Every number goes as written, as a POST body sends it; strings and keys are untouched.
  assert.deepEqual(
    flattenParams(
      '{"a": 1.10, "b": 1E2, "c": -0, "d": "0.1234567890123456789", "e": 9007199254740993}',
    ),
    [["a", "1.10"], ["b", "1E2"], ["c", "-0"], ["d", "0.1234567890123456789"], [
      "e",
      "9007199254740993",
    ]],
  );
});

Deno.test("a schema named beyond ASCII goes in its profile header as UTF-8, which PostgREST decodes", async () => {
  // PostgREST reads Accept-Profile and Content-Profile with `T.decodeUtf8` (ApiRequest.hs,
  // getSchema). fetch sends a header character as one byte: `café` went as Latin-1 (E9, not
  // UTF-8, which PostgREST cannot decode), and `日本` could not be sent at all.
  const got: Array<[string, string, string | null]> = [];
  await using server = await serve((req) => {
    const raw = req.headers.get("accept-profile") ?? req.headers.get("content-profile") ?? "";
    const bytes = Uint8Array.from(raw, (c) => c.charCodeAt(0));
    let decoded: string | null = null;
    try {
      decoded = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      // not UTF-8: PostgREST fails the request
    }
    got.push([req.method, raw, decoded]);
    return new Response("[]", { headers: { "content-type": "application/json" } });
  });
  const db = createDatabaseClient(createBaseClient(server.url, "anon-key-0123456789"));
  for (const schema of ["café", "日本", "app"]) {
    assert.ok((await db.select("t", { schema })).ok, schema);
    assert.ok((await db.insert("t", "{}", { schema })).ok, schema);
  }
  assert.deepEqual(got.map(([m, , d]) => [m, d]), [
    ["GET", "café"],
    ["POST", "café"],
    ["GET", "日本"],
    ["POST", "日本"],
    ["GET", "app"],
    ["POST", "app"],
  ]);
  // An ASCII name goes as it is.
  assert.equal(got[4][1], "app");
});

Deno.test("a PostgREST error quoting a large failing row keeps its code, message and details", async () => {
  // PostgREST's keys come in order (code, details, hint, message): a body cut before its end
  // would not parse, and the code an app branches on would be lost with it.
  const row = `(1, ${"x".repeat(300_000)})`;
  const body = JSON.stringify({
    code: "23514",
    details: `Failing row contains ${row}.`,
    hint: null,
    message: 'new row for relation "docs" violates check constraint "short_body"',
  });
  const { db } = makeDb(() =>
    new Response(body, { status: 400, headers: { "content-type": "application/json" } })
  );
  const e = (await db.insert("docs", '{"body":"..."}')).errorOrNull()!;
  assert.equal(e.code, "23514");
  assert.equal(e.message, 'new row for relation "docs" violates check constraint "short_body"');
  assert.equal(e.details?.length, `Failing row contains ${row}.`.length);
  assert.equal(e.category, "BAD_REQUEST");
});

Deno.test("a JSON key '__proto__' stays a key in object operands and in writes holding a Map (it was dropped, and cs.{} matched every row)", async () => {
  const { db, rec } = makeDb(() => new Response("[]"));
  const fromRequest = JSON.parse('{"__proto__": {"role": "admin"}, "b": 2}');
  // Deno's Object.prototype.__proto__ sets no prototype; Node's, Bun's, browsers' and Workers'
  // do, as this one does for the test.
  const deno = Object.getOwnPropertyDescriptor(Object.prototype, "__proto__");
  Object.defineProperty(Object.prototype, "__proto__", {
    get(this: object) {
      return Object.getPrototypeOf(this);
    },
    set(this: object, proto: unknown) {
      if (proto === null || typeof proto === "object") Object.setPrototypeOf(this, proto);
    },
    configurable: true,
  });
  try {
    await db.delete("t", (w) => w.contains(column("meta"), fromRequest));
    assert.equal(
      rec.last.url.searchParams.get("meta"),
      'cs.{"__proto__":{"role":"admin"},"b":2}',
    );
    await db.select("t", {
      block: (q) => q.where((w) => w.eq(column("meta"), JSON.parse('{"__proto__": 1, "b": 2}'))),
    });
    assert.equal(rec.last.url.searchParams.get("meta"), 'eq.{"__proto__":1,"b":2}');
    // A written row that also holds a Map is copied the same way.
    await insertTyped(db, "t", { meta: fromRequest, tags: new Map([["k", 1]]) });
    assert.deepEqual(JSON.parse(rec.last.text!), {
      meta: JSON.parse('{"__proto__": {"role": "admin"}, "b": 2}'),
      tags: { k: 1 },
    });
    assert.match(rec.last.text!, /"__proto__":\{"role":"admin"\}/);
  } finally {
    if (deno) Object.defineProperty(Object.prototype, "__proto__", deno);
    else delete (Object.prototype as { __proto__?: unknown }).__proto__;
  }
});
