/**
 * A per-call `timeout` or `maxBodyBytes` that is no non-negative number is the caller's input:
 * every service resolves `Failure(INVALID_ARGUMENT)` for it, before anything is sent, and no call
 * rejects (the document's rule 3: malformed requests are returned as `Failure`, never thrown).
 */
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createAuthClient } from "../../auth/client.ts";
import { createDatabaseClient } from "../../database/client.ts";
import { createStorageClient } from "../../storage/client.ts";
import { jsonResponse, recordingFetch } from "../support/recording_fetch.ts";

// (null or undefined takes the client's own timeout.)
const BAD: readonly unknown[] = [-1, Number.NaN, "5000", {}];

function setup() {
  const rec = recordingFetch(() => jsonResponse([]));
  const base = createBaseClient("https://project.example", "anon-key-0123456789", {
    fetch: rec.fetch,
  });
  return { rec, base };
}

Deno.test("an invalid per-call timeout is Failure(INVALID_ARGUMENT) in auth, database and storage, nothing sent", async () => {
  const { rec, base } = setup();
  const auth = createAuthClient(base);
  const db = createDatabaseClient(base);
  const storage = createStorageClient(base);
  for (const timeout of BAD) {
    const t = timeout as number;
    const calls = {
      "auth getUser": () => auth.getUser("access-token-value", { timeout: t }),
      "auth refreshToken": () => auth.refreshToken("refresh-token-value", { timeout: t }),
      "database select": () => db.select("todos", { timeout: t }),
      "database rpc": () => db.rpc("fn", { timeout: t }),
      "database insert": () => db.insert("todos", `[{"a":1}]`, { timeout: t }),
      "storage listBuckets": () => storage.listBuckets({ timeout: t }),
    };
    for (const [name, call] of Object.entries(calls)) {
      let r;
      try {
        r = await call();
      } catch (e) {
        assert.fail(`${name} with timeout ${String(timeout)} rejected: ${e}`);
      }
      const e = r.errorOrNull();
      assert.equal(e?.category, "INVALID_ARGUMENT", `${name} ${String(timeout)}`);
      assert.match(e!.message, /'timeout' must be a non-negative number/, name);
      assert.ok(e!.cause instanceof RangeError, name);
      assert.ok(
        !e!.message.includes("access-token-value") && !e!.message.includes("refresh-token"),
      );
    }
  }
  assert.equal(rec.requests.length, 0);
  // A valid one still sends.
  assert.ok((await db.select("todos", { timeout: 0 })).ok);
  assert.equal(rec.requests.length, 1);
});

Deno.test("an invalid per-call setting on the transport resolves; an aborted signal still wins as CANCELLED", async () => {
  const { rec, base } = setup();
  const r = await base.request({ area: "rest", path: "/t", timeout: -5 });
  assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(r.errorOrNull()!.message, /current value is -5/);
  const capped = await base.request({ area: "rest", path: "/t", maxBodyBytes: 0.5 });
  assert.match(capped.errorOrNull()!.message, /'maxBodyBytes' must be a non-negative integer/);
  const aborted = await base.request({
    area: "rest",
    path: "/t",
    timeout: -5,
    signal: AbortSignal.abort(),
  });
  assert.equal(aborted.errorOrNull()?.category, "CANCELLED");
  assert.equal(rec.requests.length, 0);
});

Deno.test("a numeric setting written as a string shows quoted in its refusal", async () => {
  const { base } = setup();
  const { createJwksResolver } = await import("../../auth/jwks.ts");
  const url = "https://project.example";
  assert.throws(() => createBaseClient(url, "anon-key", { timeout: "5000" as never }), {
    name: "RangeError",
    message: /'timeout' must be a non-negative number: current value is "5000"$/,
  });
  assert.throws(
    () => createBaseClient(url, "anon-key", { retry: { maxAttempts: "3" as never } }),
    { name: "RangeError", message: /'maxAttempts' .*: current value is "3"$/ },
  );
  assert.throws(
    () => createBaseClient(url, "anon-key", { retry: { maxDelayMs: "10" as never } }),
    { name: "RangeError", message: /'maxDelayMs' .*: current value is "10"$/ },
  );
  assert.throws(() => createJwksResolver(base, { maxAgeMs: "60000" as never }), {
    name: "RangeError",
    message: /current value is "60000"$/,
  });
  const r = await base.request({ area: "rest", path: "/t", timeout: "5000" as never });
  assert.match(r.errorOrNull()!.message, /current value is "5000"$/);
  // Numbers and other values show as before.
  assert.throws(() => createBaseClient(url, "anon-key", { timeout: -1 }), {
    message: /current value is -1$/,
  });
});
