// Database and storage calls made while a session manager restores into their client (an app that
// starts `initialize()` without awaiting it, as auth-js allows) wait for the restore, as
// supabase-js's data calls await its auth initialisation: they went out at once with the API key
// as their bearer, and Row Level Security answered them as for no user (no rows, no error). Their
// timeout and signal bound the wait; calls that carry no user's token, or one of their own, do not
// wait; a restore that finds nothing lets them go with the key once its read is over.
import assert from "node:assert/strict";
import { createAuthClient, decodeSession, type Session } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import { createDatabaseClient } from "../../database/client.ts";
import { createStorageClient } from "../../storage/client.ts";
import { createSessionManager, type SessionStorage } from "../../session/mod.ts";
import { BASE, KEY, sessionJson, track, withClock } from "./_helpers.ts";

/** How long the storage takes to read (fake time). */
const READ_MS = 800;

/** Every request as `METHOD path bearer`, answered at once; a manager whose read is slow. */
function setup(o: { stored: "live" | "none"; timeout?: number }) {
  const log: string[] = [];
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    const path = new URL(req.url).pathname;
    log.push(`${req.method} ${path} ${req.headers.get("authorization")}`);
    if (path.endsWith("/token")) return Promise.resolve(Response.json(sessionJson(2)));
    if (path.startsWith("/storage/v1/object/list/")) return Promise.resolve(Response.json([]));
    if (path.startsWith("/storage/v1/object/")) {
      return Promise.resolve(
        req.method === "POST"
          ? Response.json({ Key: "b/a.txt", Id: "id-1" })
          : new Response("hello", { headers: { "content-type": "text/plain" } }),
      );
    }
    return Promise.resolve(
      new Response("[]", {
        headers: { "content-type": "application/json", "content-range": "*/0" },
      }),
    );
  };
  const client = createBaseClient(BASE, KEY, {
    fetch,
    retry: { maxAttempts: 1 },
    timeout: o.timeout ?? 0,
  });
  const stored: Session | null = o.stored === "live" ? decodeSession(sessionJson(1)) : null;
  const storage: SessionStorage = {
    save: () => {},
    clear: () => {},
    load: () => new Promise((resolve) => setTimeout(() => resolve(stored), READ_MS)),
  };
  const auth = createAuthClient(client);
  const m = createSessionManager(auth, client, { storage, autoRefresh: false });
  return {
    log,
    m,
    auth,
    client,
    db: createDatabaseClient(client),
    storage: createStorageClient(client),
  };
}

Deno.test("database and storage calls made during a restore go with the restored session's token, once it is held", async () => {
  await withClock(async (clock) => {
    const h = setup({ stored: "live" });
    const init = h.m.initialize();
    const calls = [
      track(clock, () => h.db.select("todos")),
      track(clock, () => h.db.selectCount("todos")),
      track(clock, () => h.db.insert("todos", JSON.stringify([{ title: "a" }]))),
      track(clock, () => h.storage.list("b")),
      track(clock, () => h.storage.download("b", "a.txt")),
      track(clock, () => h.storage.upload("b", "a.txt", "hi")),
    ];
    await clock.tickAsync(READ_MS - 1);
    assert.deepEqual(h.log, [], "nothing is sent while the storage is read");
    await clock.tickAsync(1);
    for (const c of calls) {
      await c.done;
      assert.equal(c.out.r?.ok, true, String(c.out.r?.errorOrNull()));
      assert.equal(c.out.at, READ_MS);
    }
    assert.equal(h.log.length, calls.length);
    for (const line of h.log) assert.match(line, / Bearer access-1$/);
    await init;
    h.m.dispose();
  });
});

Deno.test("during a restore: a data call's timeout bounds its wait (TIMEOUT, nothing sent), and its signal ends it (CANCELLED)", async () => {
  await withClock(async (clock) => {
    const h = setup({ stored: "live" });
    const init = h.m.initialize();
    const timed = track(clock, () => h.db.select("todos", { timeout: 300 }));
    const timedStorage = track(clock, () => h.storage.download("b", "a.txt", { timeout: 300 }));
    const abort = new AbortController();
    const cancelled = track(clock, () => h.db.select("todos", { signal: abort.signal }));
    const cancelledStorage = track(clock, () => h.storage.list("b", { signal: abort.signal }));
    await clock.tickAsync(100);
    abort.abort();
    await clock.tickAsync(200);
    for (const c of [timed, timedStorage]) {
      await c.done;
      assert.equal(c.out.r?.errorOrNull()?.category, "TIMEOUT");
      assert.equal(c.out.r?.errorOrNull()?.message, "Request timed out after 300 ms");
      assert.equal(c.out.at, 300);
    }
    for (const c of [cancelled, cancelledStorage]) {
      await c.done;
      assert.equal(c.out.r?.errorOrNull()?.category, "CANCELLED");
      assert.equal(c.out.at, 100);
    }
    await clock.tickAsync(READ_MS);
    await init;
    assert.deepEqual(h.log, [], "no call went out with the API key");
    h.m.dispose();
  });
});

Deno.test("during a restore: the client's timeout bounds the wait and the request together", async () => {
  await withClock(async (clock) => {
    const h = setup({ stored: "live", timeout: 500 });
    const init = h.m.initialize();
    const cut = track(clock, () => h.db.select("todos"));
    await clock.tickAsync(500);
    await cut.done;
    assert.equal(cut.out.r?.errorOrNull()?.message, "Request timed out after 500 ms");
    await clock.tickAsync(READ_MS);
    await init;
    assert.deepEqual(h.log, []);
    h.m.dispose();
  });
});

Deno.test("during a restore that finds no session, data calls go with the API key once the read is over", async () => {
  await withClock(async (clock) => {
    const h = setup({ stored: "none" });
    const init = h.m.initialize();
    const c = track(clock, () => h.db.select("todos"));
    await clock.tickAsync(READ_MS);
    await c.done;
    assert.equal(c.out.at, READ_MS);
    assert.deepEqual(h.log, [`GET /rest/v1/todos Bearer ${KEY}`]);
    assert.equal((await init).errorOrNull()?.category, "NO_SESSION");
    h.m.dispose();
  });
});

Deno.test("during a restore, calls for no user, with a token of their own, or to a public route do not wait", async () => {
  await withClock(async (clock) => {
    const h = setup({ stored: "live" });
    const init = h.m.initialize();
    const grant = track(clock, () => h.auth.refreshToken("refresh-9"));
    const own = track(clock, () => h.auth.getUser("access-own"));
    const open = track(clock, () => h.storage.downloadPublic("b", "a.txt"));
    await clock.tickAsync(0);
    for (const c of [grant, own, open]) await c.done;
    for (const c of [grant, open]) assert.equal(c.out.at, 0);
    assert.equal(own.out.at, 0);
    assert.deepEqual(h.log, [
      `POST /auth/v1/token Bearer ${KEY}`,
      "GET /auth/v1/user Bearer access-own",
      "GET /storage/v1/object/public/b/a.txt null",
    ]);
    await clock.tickAsync(READ_MS);
    await init;
    // Once the restore has settled, calls go at once.
    const after = track(clock, () => h.db.select("todos"));
    await clock.tickAsync(0);
    await after.done;
    assert.equal(after.out.at, 0);
    assert.equal(h.log.at(-1), "GET /rest/v1/todos Bearer access-1");
    h.m.dispose();
  });
});

Deno.test("two managers restoring into one client: a data call waits for both, not only the first to finish", async () => {
  await withClock(async (clock) => {
    const h = setup({ stored: "live" }); // its read takes READ_MS
    const other = createSessionManager(h.auth, h.client, {
      storage: {
        save: () => {},
        clear: () => {},
        load: () => new Promise((resolve) => setTimeout(() => resolve(null), READ_MS / 2)),
      },
      autoRefresh: false,
    });
    const inits = [h.m.initialize(), other.initialize()];
    const c = track(clock, () => h.db.select("todos"));
    await clock.tickAsync(READ_MS / 2);
    assert.deepEqual(h.log, [], "the other's restore ended; this one still reads");
    await clock.tickAsync(READ_MS / 2);
    await c.done;
    assert.equal(c.out.at, READ_MS);
    assert.deepEqual(h.log, ["GET /rest/v1/todos Bearer access-1"]);
    await Promise.all(inits);
    h.m.dispose();
    other.dispose();
  });
});
