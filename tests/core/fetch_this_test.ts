// The client's fetch is called unbound: a runtime's own fetch handed in as `{ fetch }` refuses any
// other `this` (workerd and browsers throw "Illegal invocation"); tests/runtime/workers_tus_test.ts
// runs that case in workerd.
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createDatabaseClient } from "../../database/mod.ts";

Deno.test("the client's fetch is called without a `this`, for GET, HEAD and POST alike", async () => {
  const seen: unknown[] = [];
  // As WebIDL operations on the global object do: any `this` but the global or none is refused.
  function strictFetch(this: unknown, _input: RequestInfo | URL, init?: RequestInit) {
    seen.push(this);
    if (this !== undefined && this !== globalThis) {
      return Promise.reject(new TypeError("Illegal invocation"));
    }
    return Promise.resolve(
      init?.method === "HEAD"
        ? new Response(null, { status: 200, headers: { "content-range": "*/3" } })
        : new Response("[]", { headers: { "content-type": "application/json" } }),
    );
  }
  const db = createDatabaseClient(
    createBaseClient("https://p.example", "anon-key-0123456789", { fetch: strictFetch }),
  );
  assert.equal((await db.select("t")).ok, true);
  assert.equal((await db.selectCount("t")).ok, true);
  assert.equal((await db.insert("t", "{}")).ok, true);
  assert.deepEqual(seen, [undefined, undefined, undefined]);
});
