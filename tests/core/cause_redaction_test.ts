// Secrets in a failure's cause chain, and an error answer whose body is cut (found by a review of
// the transport): V8's SyntaxError quoted the first characters of a non-JSON body, which may start
// with a secret cut where no redaction knows it; an AggregateError's hidden `errors` (undici's
// shape) kept unredacted errors; and a 401 whose body read failed became a retried NETWORK failure.
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { request } from "../../core/transport.ts";
import { redactCause } from "../../core/http_error.ts";
import { parseJsonInt64 } from "../../core/_json_int64.ts";
import { selectTyped } from "../../database/typed.ts";
import { makeDb } from "../database/_helpers.ts";
import { rawServer } from "../support/raw_server.ts";

const KEY = "sb_publishable_abcdefghijkl";
const TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXNlY3JldA";

Deno.test("a 2xx body that is not JSON keeps no cause that quotes its start (a secret's first characters)", async () => {
  const password = "Tr0ub4dor&3-horse";
  const client = createBaseClient("https://p.example", KEY, {
    fetch: () => Promise.resolve(new Response(`${password} is not accepted here`, { status: 200 })),
  });
  const r = await request(client, {
    method: "POST",
    area: "auth",
    path: "/token",
    json: { password },
    secrets: [password],
  });
  assert.equal(r.ok, false);
  const error = r.ok ? null : r.error;
  assert.equal(error?.category, "DECODE");
  assert.match(error!.message, /^Response is not valid JSON: \*\*\* is not accepted here/);
  const shown = Deno.inspect(error, { depth: 10 }) + String(error?.cause);
  assert.ok(!shown.includes(password.slice(0, 8)), shown);
});

Deno.test("an AggregateError in a thrown error's causes is redacted like any other: its hidden errors are dropped", async () => {
  const inner = Object.assign(new Error(`connect to https://p.example/?apikey=${KEY} failed`), {
    config: { headers: { authorization: `Bearer ${TOKEN}` } },
  });
  const thrown = new TypeError("fetch failed", {
    cause: new AggregateError([inner], "all failed"),
  });
  const client = createBaseClient("https://p.example", KEY, {
    accessToken: TOKEN,
    fetch: () => Promise.reject(thrown),
    retry: { maxAttempts: 1 },
  });
  const r = await request(client, { area: "auth", path: "/user" });
  assert.equal(r.ok, false);
  const shown = Deno.inspect(r.ok ? null : r.error, { depth: 20 });
  assert.ok(!shown.includes(KEY), shown);
  assert.ok(!shown.includes(TOKEN), shown);
  assert.match(shown, /all failed/, "the aggregate's own (redacted) message stays");
});

Deno.test("an error answer whose body is cut off keeps its status and category, and is not retried as a network error", async () => {
  await using server = rawServer(async (x) => {
    await x.write(
      "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n",
    );
    await x.write('{"code":401,"error_code":"bad_jwt","msg":"invalid JWT: unable to parse');
    x.close(); // the connection drops mid-body
  });
  const client = createBaseClient(server.url, KEY, {
    retry: { baseDelayMs: 1, maxDelayMs: 1 },
  });
  const r = await request(client, { area: "auth", path: "/user", accessToken: TOKEN });
  assert.equal(r.ok, false);
  const error = r.ok ? null : r.error;
  assert.equal(error?.category, "UNAUTHORIZED");
  assert.equal(error?.status, 401);
  assert.equal(server.connections, 1);
});

Deno.test("redactCause drops every hidden own property that can hold a secret, and keeps an error whose class only reads its fields", () => {
  const inner = new Error(`token ${TOKEN}`);
  // A SuppressedError's `error` and `suppressed` are own, non-enumerable, as `errors` is.
  const suppressed = new SuppressedError(inner, new Error("cleanup"), "disposal failed");
  const copy = redactCause(suppressed, [TOKEN]) as Error;
  assert.notEqual(copy, suppressed);
  assert.equal(copy.name, "SuppressedError");
  assert.ok(!Deno.inspect(copy, { depth: 10 }).includes(TOKEN));
  // A subclass whose `errors` is a getter on its prototype holds nothing of its own: kept.
  class ValidationError extends Error {
    get errors() {
      return ["title is required"];
    }
  }
  const validation = new ValidationError("invalid row");
  assert.equal(redactCause(validation, [TOKEN]), validation);
});

Deno.test("the 64-bit JSON parser's SyntaxError quotes nothing of the text: a typed read of a body that is not JSON shows none of it", async () => {
  const secret = "sb_secret_abcdefghijklmnop";
  assert.throws(
    () => parseJsonInt64(`${secret} is not JSON`),
    (e: unknown) => e instanceof SyntaxError && !e.message.includes(secret.slice(0, 6)),
  );
  const { db } = makeDb(() => new Response(`${secret} is not JSON`, { status: 200 }));
  const r = await selectTyped<{ id: number }>(db, "todos");
  assert.equal(r.errorOrNull()?.category, "DECODE");
  const shown = Deno.inspect(r.errorOrNull(), { depth: 10 });
  assert.ok(!shown.includes(secret.slice(0, 6)), shown);
});
