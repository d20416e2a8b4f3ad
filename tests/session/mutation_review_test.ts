/**
 * Tests written from a second mutation review of `session/` (twenty-eighth session): each pins a
 * behaviour that a one-line change of the sources left unnoticed. Each test name starts with its
 * mutant's id.
 */
import assert from "node:assert/strict";
import { createAuthClient, decodeSession } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import {
  type AuthStateChangeEvent,
  createSessionManager,
  InMemorySessionStorage,
} from "../../session/mod.ts";
import { jsonResponse, recordingFetch, type Responder } from "../support/recording_fetch.ts";
import { BASE, KEY, sessionJson, withClock } from "../session/_helpers.ts";

function managed(answer: Responder, autoRefresh = false) {
  const rec = recordingFetch(answer);
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch, retry: { maxAttempts: 1 } });
  const auth = createAuthClient(client);
  const storage = new InMemorySessionStorage();
  const m = createSessionManager(auth, client, { storage, autoRefresh });
  const events: AuthStateChangeEvent[] = [];
  m.onAuthStateChange((e) => void events.push(e), { emitInitialSession: false });
  return { rec, client, auth, storage, m, events };
}

// SM03 session/manager.ts:154  a refresh refused 403 session_not_found (GoTrue's words do not
// mention a refresh token) is a dead grant: the session is signed out, not retried as transient.
Deno.test("SM03 a refresh answered 403 session_not_found signs the session out", async () => {
  const t = managed(() =>
    jsonResponse({ code: "session_not_found", message: "Session not found" }, { status: 403 })
  );
  await t.m.saveSession(decodeSession(sessionJson(1)));
  const r = await t.m.refreshSession();
  assert.equal(r.ok, false);
  assert.equal(t.m.sessionState.value.kind, "NotAuthenticated");
  assert.equal(t.storage.load(), null);
  assert.deepEqual(t.events, ["SIGNED_IN", "SIGNED_OUT"]);
  t.m.dispose();
});

// SM21 session/manager.ts:597  a listener unsubscribed by an earlier listener during the same
// emission is not called.
Deno.test("SM21 a listener removed by another during an emission is not called", async () => {
  const t = managed(() => jsonResponse({}));
  const seen: string[] = [];
  let offB = () => {};
  t.m.onAuthStateChange(() => {
    seen.push("a");
    offB();
  }, { emitInitialSession: false });
  offB = t.m.onAuthStateChange(() => void seen.push("b"), { emitInitialSession: false });
  await t.m.saveSession(decodeSession(sessionJson(1)));
  assert.deepEqual(seen, ["a"]);
  t.m.dispose();
});

// SM23 session/manager.ts:637  a subscriber told INITIAL_SESSION(null) gets no SIGNED_OUT for the
// sign-out already under way when it subscribed.
Deno.test("SM23 subscribing while signed out: no redundant SIGNED_OUT after INITIAL_SESSION(null)", async () => {
  const t = managed(() => jsonResponse({}));
  await t.m.saveSession(decodeSession(sessionJson(1)));
  const clearing = t.m.clearSession();
  const seen: Array<[string, unknown]> = [];
  t.m.onAuthStateChange((e, s) => void seen.push([e, s]));
  await clearing;
  assert.deepEqual(seen, [["INITIAL_SESSION", null]]);
  assert.deepEqual(t.events, ["SIGNED_IN", "SIGNED_OUT"]); // the earlier subscriber is told
  t.m.dispose();
});

// SM13 session/manager.ts:492  the default retryMaxDelayMs is 60 s: the 7th retry after
// transient failures waits 60 s (1, 2, 4, 8, 16, 32, then capped at 60), not 30.
Deno.test("SM13 transient refresh failures back off up to the 60 s default cap", async () => {
  const random = Math.random;
  Math.random = () => 1; // no jitter: the wait is the exponential delay itself
  try {
    await withClock(async (clock) => {
      const t = managed(() => new Response("{}", { status: 500 }), true);
      // A long-lived session: no refresh is due, so only the retries send grants.
      await t.m.saveSession(decodeSession(sessionJson(1, { expires_in: 86_400 })));
      const grants = () => t.rec.requests.length;
      await t.m.refreshSession(); // failure 1: retry in 1 s
      assert.equal(grants(), 1);
      for (
        const [wait, n] of [[1_000, 2], [2_000, 3], [4_000, 4], [8_000, 5], [16_000, 6], [
          32_000,
          7,
        ]]
      ) {
        await clock.tickAsync(wait);
        assert.equal(grants(), n, `after ${wait} ms`);
      }
      // Failure 7: the next retry comes 60 s later.
      await clock.tickAsync(59_000);
      assert.equal(grants(), 7, "no retry before 60 s");
      await clock.tickAsync(1_000);
      assert.equal(grants(), 8);
      t.m.dispose();
    });
  } finally {
    Math.random = random;
  }
});

// SM31 session/manager.ts:787  saving a session resets the transient-failure backoff: after three
// failed refreshes (next wait 8 s), a new sign-in's first failed refresh retries after 1 s.
Deno.test("SM31 saveSession resets the refresh backoff", async () => {
  const random = Math.random;
  Math.random = () => 1;
  try {
    await withClock(async (clock) => {
      const t = managed(() => new Response("{}", { status: 500 }), true);
      await t.m.saveSession(decodeSession(sessionJson(1, { expires_in: 86_400 })));
      await t.m.refreshSession(); // failure 1, retry in 1 s
      await clock.tickAsync(1_000); // failure 2, retry in 2 s
      await clock.tickAsync(2_000); // failure 3, retry in 4 s
      assert.equal(t.rec.requests.length, 3);
      await t.m.saveSession(decodeSession(sessionJson(2, { expires_in: 86_400 })));
      await t.m.refreshSession(); // the new session's first failure: retry in 1 s
      assert.equal(t.rec.requests.length, 4);
      await clock.tickAsync(1_000);
      assert.equal(t.rec.requests.length, 5, "retried after 1 s");
      t.m.dispose();
    });
  } finally {
    Math.random = random;
  }
});

// SM46 session/manager.ts:1080  a successful refresh resets the backoff: after three failures and
// a success, the next failure retries after 1 s, not 8 s.
Deno.test("SM46 a successful refresh resets the refresh backoff", async () => {
  const random = Math.random;
  Math.random = () => 1;
  try {
    await withClock(async (clock) => {
      let ok = false;
      const t = managed(
        () =>
          ok
            ? jsonResponse(sessionJson(9, { expires_in: 86_400 }))
            : new Response("{}", { status: 500 }),
        true,
      );
      await t.m.saveSession(decodeSession(sessionJson(1, { expires_in: 86_400 })));
      await t.m.refreshSession(); // failure 1, retry in 1 s
      await clock.tickAsync(1_000); // failure 2, retry in 2 s
      await clock.tickAsync(2_000); // failure 3, retry in 4 s
      ok = true;
      assert.ok((await t.m.refreshSession()).ok); // success
      ok = false;
      const before = t.rec.requests.length;
      await t.m.refreshSession(); // first failure since the success: retry in 1 s
      await clock.tickAsync(1_000);
      assert.equal(t.rec.requests.length, before + 2, "retried after 1 s");
      t.m.dispose();
    });
  } finally {
    Math.random = random;
  }
});

// SM57 session/manager.ts:1349  a retry is never scheduled past the session's expiry: a session
// 500 ms from lapsing whose refresh fails (backoff 1 s) is retried at its expiry, not after it.
Deno.test("SM57 a failed refresh is retried no later than the session's expiry", async () => {
  const random = Math.random;
  Math.random = () => 1;
  try {
    await withClock(async (clock) => {
      const t = managed(() => new Response("{}", { status: 500 }), false);
      const s = decodeSession(sessionJson(1, { expires_in: 3600 }));
      await t.m.saveSession({ ...s, expiresAt: Date.now() / 1000 + 0.5 } as typeof s);
      t.m.startAutoRefresh(); // due (inside the 60 s buffer): the grant goes now and fails
      await clock.tickAsync(0);
      assert.equal(t.rec.requests.length, 1);
      await clock.tickAsync(500);
      assert.equal(t.rec.requests.length, 2, "retried at the expiry");
      t.m.dispose();
    });
  } finally {
    Math.random = random;
  }
});

// SM66 session/manager.ts:1471  a per-request (cookie) store gets no obtainedAt/clockOffset tags:
// they are not trusted on load from a cookie, so they are not written there either.
import { CookieSessionStorage } from "../../session/mod.ts";
Deno.test("SM66 a cookie-stored session carries no obtainedAt tag", async () => {
  const rec = recordingFetch(() => jsonResponse({}));
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch });
  const storage = new CookieSessionStorage(null);
  const m = createSessionManager(createAuthClient(client), client, { storage });
  await m.saveSession(decodeSession(sessionJson(1)));
  const cookie = storage.setCookieHeaders().map((h) => h.split(";")[0]).join("; ");
  const loaded = new CookieSessionStorage(cookie).load() as unknown as Record<string, unknown>;
  assert.equal(loaded.accessToken, "access-1");
  assert.equal("obtainedAt" in loaded, false);
  m.dispose();
});

// SM44 session/manager.ts:1057  an explicit refresh finding a newer stored session of the same
// session still asks for a grant when that session's obtainedAt lies ahead of this clock (a
// negative age: a clock stepped back), rather than trusting it as just obtained.
Deno.test("SM44 refreshSession grants even when the newer stored session's age is negative", async () => {
  const rec = recordingFetch(() => jsonResponse(sessionJson(3)));
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch, retry: { maxAttempts: 1 } });
  const storage = new InMemorySessionStorage();
  const m = createSessionManager(createAuthClient(client), client, { storage, autoRefresh: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  const newer = decodeSession(sessionJson(2, { expires_in: 3700 }));
  storage.save({ ...newer, obtainedAt: Date.now() + 60_000 } as typeof newer);
  const r = await m.refreshSession();
  assert.ok(r.ok);
  assert.equal(rec.requests.length, 1, "a grant was asked for");
  assert.deepEqual(rec.only.json(), { refresh_token: "refresh-2" });
  assert.equal(m.accessToken, "access-3");
  m.dispose();
});

// SM72 session/manager.ts:1645  a stored session whose refresh falls due exactly now is refreshed
// by restoreSession itself (due in 0 ms counts as due), which then returns the new session.
Deno.test("SM72 restoreSession refreshes a session due exactly now before returning", async () => {
  await withClock(async () => {
    const rec = recordingFetch(() => jsonResponse(sessionJson(2)));
    const client = createBaseClient(BASE, KEY, { fetch: rec.fetch, retry: { maxAttempts: 1 } });
    const storage = new InMemorySessionStorage();
    // Due at expiry minus the 60 s buffer: exactly now.
    storage.save(
      decodeSession(sessionJson(1, { expires_in: 3600, expires_at: Date.now() / 1000 + 60 })),
    );
    const m = createSessionManager(createAuthClient(client), client, {
      storage,
      autoRefresh: true,
    });
    const r = await m.restoreSession();
    assert.equal(r.ok && r.value.accessToken, "access-2");
    assert.equal(rec.requests.length, 1);
    m.dispose();
  });
});

// SM80 session/manager.ts:1731  a refresh timer is unref'd where timers are objects (Node), so a
// manager left running never holds the process open.
Deno.test("SM80 the auto-refresh timer is unref'd when the runtime's timers can be", async () => {
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  let unrefs = 0;
  // deno-lint-ignore no-explicit-any
  (globalThis as any).setTimeout = (fn: () => void, ms?: number) => {
    const id = realSet(fn, ms);
    return { id, unref: () => void unrefs++, [Symbol.toPrimitive]: () => id };
  };
  // deno-lint-ignore no-explicit-any
  (globalThis as any).clearTimeout = (t: any) => realClear(typeof t === "object" && t ? t.id : t);
  try {
    const t = managed(() => jsonResponse({}), true);
    await t.m.saveSession(decodeSession(sessionJson(1)));
    assert.ok(unrefs >= 1, "the refresh timer was unref'd");
    t.m.dispose();
  } finally {
    globalThis.setTimeout = realSet;
    globalThis.clearTimeout = realClear;
  }
});

// SM29 session/manager.ts:730  adopting a newer stored session that has itself lapsed (another
// tab wrote it) does not end the restore's wait: a database call made during initialize() waits
// for the refresh and goes with the new token, never with the lapsed one.
import { createDatabaseClient } from "../../database/client.ts";
import type { Session, SessionStorage } from "../../session/mod.ts";
Deno.test("SM29 a data call waits past the adoption of a lapsed stored session for the refresh", async () => {
  await withClock(async (clock) => {
    const now = Math.floor(Date.now() / 1000);
    const s1 = decodeSession(sessionJson(1, { expires_at: now - 100 }));
    const s2 = decodeSession(sessionJson(2, { expires_at: now - 50 }));
    let loads = 0;
    const storage: SessionStorage = {
      save: () => {},
      clear: () => {},
      load: (): Session => (loads++ === 0 ? s1 : s2),
    };
    const log: string[] = [];
    const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      const path = new URL(req.url).pathname;
      log.push(`${req.method} ${path} ${req.headers.get("authorization")}`);
      if (path.endsWith("/token")) {
        return new Promise<Response>((resolve) =>
          setTimeout(() => resolve(Response.json(sessionJson(3))), 500)
        );
      }
      return Promise.resolve(
        new Response("[]", {
          headers: { "content-type": "application/json", "content-range": "*/0" },
        }),
      );
    };
    const client = createBaseClient(BASE, KEY, { fetch, retry: { maxAttempts: 1 }, timeout: 0 });
    const m = createSessionManager(createAuthClient(client), client, {
      storage,
      autoRefresh: true,
    });
    const init = m.initialize();
    const select = createDatabaseClient(client).select("todos");
    await clock.tickAsync(499);
    assert.ok(!log.some((l) => l.includes("/rest/v1/")), log.join("\n"));
    await clock.tickAsync(1);
    await select;
    await init;
    assert.equal(log.find((l) => l.includes("/rest/v1/")), "GET /rest/v1/todos Bearer access-3");
    m.dispose();
  });
});

// SM64 session/manager.ts:1459  restoreSession while the held session has lapsed and storage
// still holds the token it replaced: with auto-refresh on, the lapsed session is refreshed
// (a grant is asked for), not answered NO_SESSION at once.
Deno.test("SM64 restoreSession over a lapsed held session refreshes it when auto-refresh is on", async () => {
  await withClock(async (clock) => {
    let grants = 0;
    const rec = recordingFetch(() =>
      grants++ === 0 ? jsonResponse(sessionJson(2)) : new Response("{}", { status: 500 })
    );
    const client = createBaseClient(BASE, KEY, { fetch: rec.fetch, retry: { maxAttempts: 1 } });
    let kept: Session | null = null;
    const storage: SessionStorage = {
      save: (s) => void (kept ??= s), // keeps the first session only: the refreshed one never lands
      load: () => kept,
      clear: () => void (kept = null),
    };
    const m = createSessionManager(createAuthClient(client), client, {
      storage,
      autoRefresh: true,
    });
    await m.saveSession(decodeSession(sessionJson(1)));
    assert.ok((await m.refreshSession()).ok); // holds access-2; storage still holds refresh-1
    await clock.tickAsync(3_700_000); // access-2 lapses (its refresh retries fail)
    assert.equal(m.sessionState.value.kind, "Expired");
    const before = rec.requests.length;
    await m.restoreSession();
    assert.equal(rec.requests.length, before + 1, "the lapsed session's refresh was tried");
    m.dispose();
  });
});

// SM28 session/manager.ts:697  a token's obtainedAt is when it was first obtained: saving the same
// session again later (switching back to it) keeps the first time in the stored tag.
Deno.test("SM28 re-saving an earlier session keeps its first obtainedAt", async () => {
  await withClock(async (clock) => {
    const t = managed(() => jsonResponse({}));
    const s1 = decodeSession(sessionJson(1));
    const t0 = Date.now();
    await t.m.saveSession(s1);
    await clock.tickAsync(5_000);
    await t.m.saveSession(decodeSession(sessionJson(2)));
    await clock.tickAsync(5_000);
    await t.m.saveSession(s1);
    const stored = t.storage.load() as unknown as { obtainedAt?: number; refreshToken: string };
    assert.equal(stored.refreshToken, "refresh-1");
    assert.equal(stored.obtainedAt, t0);
    t.m.dispose();
  });
});

// SM14 session/manager.ts:249  the tokens a manager has left behind are bounded (64): after 65
// newer sessions the first is forgotten, and its session found in storage again is restored.
Deno.test("SM14 the left-behind token set is bounded at 64", async () => {
  const t = managed(() => jsonResponse({}));
  for (let i = 0; i <= 65; i++) await t.m.saveSession(decodeSession(sessionJson(i)));
  t.storage.save(decodeSession(sessionJson(0, { expires_in: 7200 })));
  const r = await t.m.restoreSession();
  assert.equal(r.ok && r.value.accessToken, "access-0");
  t.m.dispose();
});

// SM84 session/manager.ts:1761  a refreshed session whose earliest next refresh lies past its
// expiry (a 0.5 s token: the 1 s minimum gap) is marked Expired at its expiry: subscribers of
// sessionState see it then, before the refresh.
Deno.test("SM84 a short-lived refreshed session turns Expired at its expiry for subscribers", async () => {
  await withClock(async (clock) => {
    let grants = 0;
    const t = managed(
      () => jsonResponse(sessionJson(2 + grants++, { expires_in: 0.5 })),
      true,
    );
    await t.m.saveSession(decodeSession(sessionJson(1, { expires_in: 3600 })));
    t.m.stopAutoRefresh();
    const kinds: string[] = [];
    assert.ok((await t.m.refreshSession()).ok); // access-2 lives 0.5 s
    t.m.startAutoRefresh();
    t.m.sessionState.subscribe((s) => void kinds.push(s.kind));
    kinds.length = 0;
    await clock.tickAsync(500);
    assert.deepEqual(kinds, ["Expired"], "Expired at the expiry, before any refresh");
    t.m.dispose();
  });
});

// SM87 session/manager.ts:1784  after a refresh, the next one waits the minimum gap counted from
// when the answer was applied: a token that lives 10 s but expires in 5 s (issued 5 s before it
// arrived) is not refreshed again at once.
Deno.test("SM87 a refreshed session is not refreshed again before the minimum gap", async () => {
  await withClock(async (clock) => {
    let grants = 0;
    const t = managed(() => {
      grants++;
      return jsonResponse(
        sessionJson(1 + grants, { expires_in: 10, expires_at: Date.now() / 1000 + 5 }),
      );
    }, true);
    await t.m.saveSession(decodeSession(sessionJson(1, { expires_in: 3600 })));
    assert.ok((await t.m.refreshSession()).ok);
    await clock.tickAsync(100);
    assert.equal(grants, 1, "no second grant right after the first");
    await clock.tickAsync(4_900);
    assert.equal(grants, 2, "the next grant comes 5 s later (the gap, and the expiry)");
    t.m.dispose();
  });
});

// SM109 session/manager.ts:1012  a per-request (cookie) manager sets no expiry timer while a
// refresh is under way: nothing outlives the request.
Deno.test("SM109 a cookie manager's refresh sets no expiry timer", async () => {
  const realSet = globalThis.setTimeout;
  const long: number[] = [];
  // deno-lint-ignore no-explicit-any
  (globalThis as any).setTimeout = (fn: () => void, ms?: number) => {
    if ((ms ?? 0) > 1_000_000) long.push(ms!);
    return realSet(fn, ms);
  };
  try {
    let release!: (r: Response) => void;
    const rec = recordingFetch(() => new Promise<Response>((r) => (release = r)));
    const client = createBaseClient(BASE, KEY, {
      fetch: rec.fetch,
      retry: { maxAttempts: 1 },
      timeout: 0,
    });
    const storage = new CookieSessionStorage(null);
    const m = createSessionManager(createAuthClient(client), client, { storage });
    await m.saveSession(decodeSession(sessionJson(1)));
    const pending = m.refreshSession();
    await new Promise((r) => realSet(r, 10));
    assert.deepEqual(long, [], "no timer at the session's expiry");
    release(jsonResponse(sessionJson(2)));
    await pending;
    m.dispose();
  } finally {
    globalThis.setTimeout = realSet;
  }
});

// ST16 session/storage.ts:407  clearing after a refused Web Storage write forgets the refusal: the
// next load is "nothing stored", not the refused-write error.
import { KeyValueSessionStorage, webStorageStore } from "../../session/mod.ts";
Deno.test("ST16 a clear after a refused Web Storage write makes load answer null", async () => {
  const map = new Map<string, string>();
  let full = true;
  const web = {
    getItem: (k: string) => map.get(k) ?? null,
    setItem: (k: string, v: string) => {
      if (full && v.startsWith("{")) throw new DOMException("full", "QuotaExceededError");
      map.set(k, v);
    },
    removeItem: (k: string) => void map.delete(k),
  };
  const storage = new KeyValueSessionStorage(webStorageStore(web));
  await storage.save(decodeSession(sessionJson(1)));
  await assert.rejects(() => storage.load()); // the refused write is reported
  full = false;
  await storage.clear();
  assert.equal(await storage.load(), null);
});

// ST26 session/storage.ts:674 and ST29 session/storage.ts:738  cookie size limits.
import { SessionTooLarge } from "../../session/_too_large.ts";
Deno.test("ST26 with chunkSize 3000 the default maxChunks is 4 (12,720 bytes at most)", () => {
  const storage = new CookieSessionStorage(null, { chunkSize: 3000 });
  const s = decodeSession({
    ...sessionJson(1),
    user: { id: "u1", user_metadata: { pad: "x".repeat(12_600) } },
  });
  assert.throws(() => storage.save(s), SessionTooLarge);
});
Deno.test("ST29 a chunkSize leaving no room under the cookie limit is refused", () => {
  assert.throws(() => new CookieSessionStorage(null, { chunkSize: 3790 }), RangeError);
});

// ST31 session/storage.ts:752  maxChunks is at most 50.
Deno.test("ST31 maxChunks above 50 is refused", () => {
  assert.throws(() => new CookieSessionStorage(null, { maxChunks: 51 }), RangeError);
});

// ST38 session/storage.ts:824  the chunk count written in front of a chunked session accounts for
// its own length: every size of session reads back whole.
Deno.test("ST38 chunked sessions of every length read back", () => {
  for (let pad = 0; pad < 150; pad++) {
    const s = decodeSession({
      ...sessionJson(1),
      user: { id: "u1", user_metadata: { p: "x".repeat(pad) } },
    });
    const out = new CookieSessionStorage(null, { chunkSize: 100, maxChunks: 50 });
    out.save(s);
    const cookie = out.setCookieHeaders().filter((h) => !/Max-Age=0/.test(h)).map((h) =>
      h.split(";")[0]
    )
      .join("; ");
    const back = new CookieSessionStorage(cookie, { chunkSize: 100, maxChunks: 50 }).load();
    assert.equal(back?.accessToken, "access-1", `pad ${pad}`);
  }
});

// EX13 session/extensions.ts:458  a GLOBAL sign-out of a lapsed session whose refresh fails answers
// that failure and sends no /logout (a lapsed token cannot end the other sessions).
import { signOutCurrentSession } from "../../session/mod.ts";
Deno.test("EX13 a GLOBAL sign-out whose refresh of the lapsed session fails sends nothing more", async () => {
  await withClock(async (clock) => {
    const t = managed((req) =>
      req.url.pathname.endsWith("/token")
        ? new Response("{}", { status: 500 })
        : new Response(null, { status: 204 })
    );
    await t.m.saveSession(decodeSession(sessionJson(1, { expires_in: 100 })));
    await clock.tickAsync(200_000);
    assert.equal(t.m.sessionState.value.kind, "Expired");
    const r = await signOutCurrentSession(t.auth, t.m, { scope: "global" });
    assert.equal(r.ok, false);
    assert.ok(!t.rec.requests.some((q) => q.url.pathname.endsWith("/logout")));
    t.m.dispose();
  });
});

// EX17 session/extensions.ts:534  signing out a lapsed session another account has signed in over
// (in another tab) succeeds when GoTrue answers that the session is already gone (LOCAL: 401).
Deno.test("EX17 a switched-away sign-out answered 401 counts as signed out", async () => {
  await withClock(async (clock) => {
    const t = managed((req) =>
      req.url.pathname.endsWith("/token")
        ? jsonResponse(sessionJson(3))
        : jsonResponse({ code: "bad_jwt", message: "gone" }, { status: 401 })
    );
    await t.m.saveSession(decodeSession(sessionJson(1, { expires_in: 100 })));
    await clock.tickAsync(200_000);
    const other = decodeSession({ ...sessionJson(2, { expires_in: 7200 }), user: { id: "u2" } });
    t.storage.save(other); // another account signed in since, in another tab
    const r = await signOutCurrentSession(t.auth, t.m);
    assert.ok(r.ok, String(r.errorOrNull()?.message));
    assert.ok(t.rec.requests.some((q) => q.url.pathname.endsWith("/logout")));
    t.m.dispose();
  });
});

// EX43 session/extensions.ts:1103  fragment tokens without session_id are never taken for the held
// session's own: they are checked (GET /user) and imported.
import { importSessionFromFragment } from "../../session/mod.ts";
import { jwt } from "../session/_helpers.ts";
Deno.test("EX43 importing fragment tokens without session_id replaces a held session without one", async () => {
  const now = Math.floor(Date.now() / 1000);
  const held = jwt({ sub: "u1", exp: now + 7200 });
  const given = jwt({ sub: "u1", exp: now + 3600 });
  const t = managed(() => jsonResponse({ id: "u1", email: "a@x.io" }));
  await t.m.saveSession(decodeSession({ ...sessionJson(1), access_token: held }));
  const r = await importSessionFromFragment(
    t.auth,
    `#access_token=${given}&refresh_token=r-new&expires_in=3600&token_type=bearer`,
    t.m,
  );
  assert.ok(r.ok);
  assert.equal(t.m.accessToken, given);
  assert.equal(t.rec.requests.length, 1, "the fragment's token was checked");
  t.m.dispose();
});

// AS11 session/and_save.ts:277  refreshTokenAndSaveSession with the held refresh token honours the
// call's timeout (it joins the manager's refresh, bounded by that timeout).
import { refreshTokenAndSaveSession } from "../../session/mod.ts";
Deno.test("AS11 refreshTokenAndSaveSession's timeout bounds the shared refresh", async () => {
  let release: (r: Response) => void = () => {};
  const rec = recordingFetch(() => new Promise<Response>((r) => (release = r)));
  const client = createBaseClient(BASE, KEY, {
    fetch: rec.fetch,
    retry: { maxAttempts: 1 },
    timeout: 0,
  });
  const auth = createAuthClient(client);
  const m = createSessionManager(auth, client, { autoRefresh: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  let guard: ReturnType<typeof setTimeout> | undefined;
  const r = await Promise.race([
    refreshTokenAndSaveSession(auth, m, "refresh-1", { timeout: 50 }),
    new Promise<"hung">((res) => (guard = setTimeout(() => res("hung"), 2_000))),
  ]);
  clearTimeout(guard);
  release(jsonResponse(sessionJson(2)));
  assert.notEqual(r, "hung");
  assert.equal(r !== "hung" && r.errorOrNull()?.category, "TIMEOUT");
  await new Promise((res) => setTimeout(res, 10));
  m.dispose();
});
