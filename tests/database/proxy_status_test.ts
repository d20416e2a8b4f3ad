/**
 * PostgREST 13 names its error in `Proxy-Status` (`PostgREST; error=PGRST116`); a HEAD answer has
 * no body, so that header is the only place its code is. These answers are shaped like PostgREST
 * v13's (src/library/PostgREST/Error.hs `errorResponseFor`, test/spec/Feature/Query/ErrorSpec.hs).
 */

import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import {
  createDatabaseClient,
  ResponseFormat,
  rpcGetHead,
  rpcHead,
  selectHead,
  selectMaybeSingleTyped,
} from "../../database/mod.ts";
import { isNoRows } from "../../database/_decode.ts";
import { proxyStatusCode } from "../../database/_proxy_status.ts";
import { BASE, KEY, makeDb } from "./_helpers.ts";
import { recordingFetch } from "../support/recording_fetch.ts";
import { serve } from "../support/serve.ts";

/** PostgREST v13's error answer to a HEAD request: the status, Proxy-Status, and no body. */
function headError(status: number, code: string, extra?: Record<string, string>): Response {
  return new Response(null, {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "proxy-status": `PostgREST; error=${code}`,
      ...extra,
    },
  });
}

Deno.test("HEAD failures take PostgREST's code from Proxy-Status: selectCount, selectHead, rpc and rpcGet", async () => {
  let slow = 0;
  const rec = recordingFetch((req) => {
    const path = req.url.pathname;
    if (path.endsWith("/missing")) return headError(404, "PGRST205");
    // The first attempt meets another error: the failure is the last answer's.
    if (path.endsWith("/rpc/slow")) {
      return slow++ % 3 === 0 ? headError(503, "PGRST002") : headError(500, "57014");
    }
    return headError(402, "PT402");
  });
  const db = createDatabaseClient(
    createBaseClient(BASE, KEY, { fetch: rec.fetch, retry: { baseDelayMs: 1, maxDelayMs: 1 } }),
  );
  const count = await db.selectCount("missing");
  assert.equal(rec.last.method, "HEAD");
  const e = count.errorOrNull()!;
  assert.equal(e.code, "PGRST205");
  assert.equal(e.status, 404);
  assert.equal(e.category, "NOT_FOUND");
  assert.match(
    e.message,
    /^HTTP 404 .*: PostgREST error PGRST205 \(from Proxy-Status\)$/,
  );
  assert.equal(e.details, null);

  const head = await selectHead(db, "missing");
  assert.equal(head.errorOrNull()?.code, "PGRST205");

  // 57014 (statement timeout) is PostgREST's own example of a HEAD count that fails: the first
  // answer's 503 (schema cache loading) is retried, the 500 is not (the timed-out query ran
  // three times), and the last answer's code is the failure's.
  const timedOut = await db.rpc("slow", { format: ResponseFormat.HEAD });
  assert.equal(slow, 2);
  assert.equal(rec.last.method, "HEAD");
  assert.equal(timedOut.errorOrNull()?.code, "57014");
  assert.equal(timedOut.errorOrNull()?.category, "SERVER");
  assert.match(timedOut.errorOrNull()!.message, /: PostgREST error 57014 \(from Proxy-Status\)$/);
  assert.equal((await rpcHead(db, "slow")).errorOrNull()?.code, "57014");

  // Any code, known or not, is named after the transport's message.
  const pay = await rpcGetHead(db, "pay");
  assert.equal(rec.last.method, "HEAD");
  assert.equal(pay.errorOrNull()?.code, "PT402");
  assert.equal(
    pay.errorOrNull()?.message,
    "HTTP 402 (empty body): PostgREST error PT402 (from Proxy-Status)",
  );
  assert.equal(
    (await db.rpcGet("pay", { format: ResponseFormat.HEAD })).errorOrNull()?.code,
    "PT402",
  );
});

Deno.test("HEAD 406 PGRST116 from Proxy-Status stays a failure: no details tell zero rows from several", async () => {
  // A HEAD read asking for one object (Accept set by hand) gets PostgREST's 406 without a body.
  const { db } = makeDb(() => headError(406, "PGRST116"));
  const r = await db.select("t", {
    format: ResponseFormat.HEAD,
    headers: { Accept: "application/vnd.pgrst.object+json" },
  });
  const e = r.errorOrNull()!;
  assert.equal(e.code, "PGRST116");
  assert.equal(e.category, "NOT_FOUND");
  assert.equal(e.details, null);
  assert.match(e.message, /: PostgREST error PGRST116 \(from Proxy-Status\)$/);
  // The "no rows" rule needs the body's details ("The result contains 0 rows").
  assert.equal(isNoRows(r), false);
  // The maybe-single helpers read with GET and the object format, never HEAD: their body decides.
  const { db: db2, rec } = makeDb(() =>
    new Response(
      JSON.stringify({
        code: "PGRST116",
        details: "The result contains 0 rows",
        hint: null,
        message: "Cannot coerce the result to a single JSON object",
      }),
      { status: 406, headers: { "proxy-status": "PostgREST; error=PGRST116" } },
    )
  );
  const none = await selectMaybeSingleTyped(db2, "t");
  assert.equal(rec.only.method, "GET");
  assert.equal(none.ok && none.value, null);
});

Deno.test("Proxy-Status: only PostgREST's member counts", async () => {
  // A gateway's own member (RFC 9209) is not a database error code.
  const { db } = makeDb([
    headError(404, "PGRST205"),
    new Response(null, {
      status: 403,
      headers: { "proxy-status": "proxy.example; error=destination_ip_prohibited" },
    }),
  ]);
  assert.equal((await db.selectCount("t")).errorOrNull()?.code, "PGRST205");
  const gw = await db.selectCount("t");
  assert.equal(gw.errorOrNull()?.code, null);
  assert.equal(gw.errorOrNull()?.message, "HTTP 403 (empty body)");

  assert.equal(proxyStatusCode("PostgREST; error=PGRST116"), "PGRST116");
  assert.equal(proxyStatusCode('PostgREST; error="42P01", proxy.example; error=x'), "42P01");
  assert.equal(proxyStatusCode('PostgREST;details="d"; error=57014'), "57014");
  assert.equal(proxyStatusCode("proxy.example; error=PGRST116"), null);
  assert.equal(proxyStatusCode("PostgREST"), null);
  assert.equal(proxyStatusCode(null), null);
  // A custom code (a function's `raise`) is taken as it is, whatever it spells.
  const { db: db2 } = makeDb(() => headError(400, "constructor"));
  const custom = (await db2.selectCount("t")).errorOrNull();
  assert.equal(custom?.code, "constructor");
  assert.equal(
    custom?.message,
    "HTTP 400 (empty body): PostgREST error constructor (from Proxy-Status)",
  );
});

Deno.test("HEAD against a local server answering like PostgREST v13 (the body is dropped on the wire)", async () => {
  await using server = await serve((req) => {
    const body = JSON.stringify({
      code: "42P01",
      details: null,
      hint: null,
      message: 'relation "public.gone" does not exist',
    });
    // The server writes the body; HTTP drops it from a HEAD answer.
    return new Response(body, {
      status: 404,
      headers: {
        "content-type": "application/json; charset=utf-8",
        "proxy-status": "PostgREST; error=42P01",
        "x-method": req.method,
      },
    });
  });
  const db = createDatabaseClient(createBaseClient(server.url, "anon-key-0123456789"));
  const head = await db.selectCount("gone");
  assert.equal(head.errorOrNull()?.code, "42P01");
  assert.match(head.errorOrNull()!.message, /: PostgREST error 42P01 \(from Proxy-Status\)$/);
  // A GET reads the same code from the body, as before.
  const get = await db.select("gone");
  assert.equal(get.errorOrNull()?.code, "42P01");
  assert.equal(get.errorOrNull()?.message, 'relation "public.gone" does not exist');
});
