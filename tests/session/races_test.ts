// Session manager races, timer limits and lapsed sessions: each test holds the
// server's answers back (or moves fake time) to put the manager in the window
// where the race happens.
import assert from "node:assert/strict";
import { createAuthClient, decodeSession, type Session } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import { MutableStateFlow } from "../../core/state_flow.ts";
import {
  AuthStateChangeEvent,
  createSessionManager,
  getUserForCurrentSession,
  importSessionFromFragment,
  InMemorySessionStorage,
  KeyValueSessionStorage,
  linkIdentityWithIdTokenForCurrentSession,
  mfaVerifyAndSaveSession,
  refreshTokenAndSaveSession,
  signInWithEmailAndSaveSession,
  signOut,
  signOutCurrentSession,
  unlinkIdentityAndUpdateSession,
  updateUserForCurrentSession,
} from "../../session/mod.ts";
import { BASE, heldServer, json, KEY, sessionJson, withClock } from "./_helpers.ts";

/** An in-memory storage whose clear waits until the test calls `release`. */
function slowClearStorage() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const inner = new InMemorySessionStorage();
  const storage = {
    save: (x: Session) => inner.save(x),
    load: () => inner.load(),
    clear: () => gate.then(() => inner.clear()),
  };
  return { inner, storage, release: () => release() };
}

/** A fetch answering at once through `answer`; counts refresh grants. */
function autoServer(answer: (path: string) => Response) {
  const paths: string[] = [];
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const path = new URL(new Request(input, init).url).pathname;
    paths.push(path);
    return Promise.resolve().then(() => answer(path));
  };
  const client = createBaseClient(BASE, KEY, { fetch, retry: { maxAttempts: 1 }, timeout: 0 });
  return {
    client,
    auth: createAuthClient(client),
    grants: () => paths.filter((p) => p.endsWith("/token")).length,
  };
}

const turns = async (n = 20) => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};

Deno.test("a refresh answered after clearSession is dropped: no resurrected session", async () => {
  const s = heldServer();
  const storage = new InMemorySessionStorage();
  const m = createSessionManager(s.auth, s.client, { storage, autoRefresh: false });
  const events: string[] = [];
  m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  const pending = m.refreshSession();
  await turns();
  await m.clearSession();
  s.find("/token").release(json(sessionJson(2)));
  const r = await pending;
  assert.equal(r.ok, false);
  assert.equal(r.errorOrNull()?.category, "CANCELLED");
  assert.equal(m.sessionState.value.kind, "NotAuthenticated");
  assert.equal(s.client.accessToken, null);
  assert.equal(storage.load(), null);
  assert.deepEqual(events, ["SIGNED_IN", "SIGNED_OUT"]);
  m.dispose();
});

Deno.test("a refresh of the old session answered after a new sign-in leaves the new session alone", async () => {
  for (
    const answer of [
      json(sessionJson(2)),
      json({ error_code: "refresh_token_not_found", msg: "Invalid Refresh Token" }, 400),
    ]
  ) {
    const s = heldServer();
    const m = createSessionManager(s.auth, s.client, { autoRefresh: false });
    await m.saveSession(decodeSession(sessionJson(1)));
    const pending = m.refreshSession();
    await turns();
    await m.saveSession(decodeSession(sessionJson(9)));
    s.find("/token").release(answer);
    await pending;
    assert.equal(m.accessToken, "access-9");
    assert.equal(s.client.accessToken, "access-9");
    // A refresh asked for now concerns the new session, not the old grant.
    const next = m.refreshSession();
    await turns();
    const grants = s.held.filter((h) => h.path.endsWith("/token"));
    assert.equal(grants.length, 2);
    assert.match(grants[1].body, /refresh-9/);
    grants[1].release(json(sessionJson(10)));
    assert.equal((await next).getOrThrow().accessToken, "access-10");
    m.dispose();
  }
});

Deno.test("a user update answered after a refresh stores the user in the refreshed session", async () => {
  const s = heldServer();
  const m = createSessionManager(s.auth, s.client, { autoRefresh: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  const update = updateUserForCurrentSession(s.auth, m, { data: { a: 1 } });
  const read = getUserForCurrentSession(s.auth, m, { updateStoredSession: true });
  await turns();
  const refresh = m.refreshSession();
  await turns();
  s.find("/token").release(json(sessionJson(2)));
  await refresh;
  for (const h of s.held.filter((h) => h.path.endsWith("/user"))) {
    h.release(json({ id: "u1", email: "new@x.io" }));
  }
  await Promise.all([update, read]);
  assert.equal(m.currentSession?.refreshToken, "refresh-2");
  assert.equal(s.client.accessToken, "access-2");
  assert.equal(m.currentSession?.user.email, "new@x.io");
  // The copy is masked like the original.
  assert.doesNotMatch(String(m.currentSession), /access-2|refresh-2/);
  assert.doesNotMatch(Deno.inspect(m.currentSession), /access-2|refresh-2/);
  m.dispose();
});

Deno.test("unlinking an identity keeps the session masked", async () => {
  const s = autoServer(() => new Response(null, { status: 204 }));
  const m = createSessionManager(s.auth, s.client, { autoRefresh: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  const r = await unlinkIdentityAndUpdateSession(s.auth, "access-1", "i1", m);
  assert.equal(r.ok, true);
  assert.deepEqual(m.currentSession?.user.identities?.map((i) => i.id), ["i2"]);
  assert.doesNotMatch(Deno.inspect(m.currentSession), /access-1|refresh-1|a@x\.io/);
  m.dispose();
});

Deno.test("dispose during a refresh still stores the new tokens (the old refresh token is spent)", async () => {
  const s = heldServer();
  const storage = new InMemorySessionStorage();
  const m = createSessionManager(s.auth, s.client, { storage, autoRefresh: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  const pending = m.refreshSession();
  await turns();
  m.dispose();
  s.find("/token").release(json(sessionJson(2)));
  assert.equal((await pending).ok, true);
  assert.equal(storage.load()?.refreshToken, "refresh-2");
});

Deno.test("refreshTokenAndSaveSession with the manager's token shares its single refresh", async () => {
  const s = heldServer();
  const m = createSessionManager(s.auth, s.client, { autoRefresh: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  const a = m.refreshSession();
  const b = refreshTokenAndSaveSession(s.auth, m, "refresh-1");
  await turns();
  assert.equal(s.held.length, 1);
  s.held[0].release(json(sessionJson(2)));
  const [ra, rb] = await Promise.all([a, b]);
  assert.equal(ra.getOrThrow().accessToken, "access-2");
  assert.equal(rb.getOrThrow().accessToken, "access-2");
  m.dispose();
});

Deno.test("a storage failure while refreshing is a Failure, never an unhandled rejection", async () => {
  let failing = false;
  const map = new Map<string, string>();
  const store = {
    get: (k: string) => map.get(k) ?? null,
    set: (k: string, v: string) => {
      if (failing) throw new DOMException("full", "QuotaExceededError");
      map.set(k, v);
    },
    remove: (k: string) => void map.delete(k),
  };
  const s = autoServer(() => json(sessionJson(2)));
  const m = createSessionManager(s.auth, s.client, {
    storage: new KeyValueSessionStorage(store),
    autoRefresh: false,
  });
  await m.saveSession(decodeSession(sessionJson(1)));
  failing = true;
  const r = await m.refreshSession();
  assert.equal(r.ok, false);
  assert.equal(r.errorOrNull()?.category, "UNKNOWN");
  assert.match(r.errorOrNull()!.message, /refreshed but could not be stored: QuotaExceededError/);
  // The new tokens are live in memory: the server has spent the old ones.
  assert.equal(s.client.accessToken, "access-2");
  await new Promise((done) => setTimeout(done, 5)); // an unhandled rejection would fail here
  m.dispose();
});

Deno.test("a token lifetime beyond setTimeout's limit waits instead of refreshing at once", () =>
  withClock(async (clock) => {
    const days = 30 * 86_400;
    const s = autoServer(() => json(sessionJson(2, { expires_in: days })));
    const m = createSessionManager(s.auth, s.client);
    m.startAutoRefresh();
    await m.saveSession(decodeSession(sessionJson(1, { expires_in: days })));
    await clock.tickAsync(60_000);
    assert.equal(s.grants(), 0);
    // Due 60 s before expiry: one slice of 2^31 - 1 ms, then the rest.
    await clock.tickAsync(days * 1000 - 60_000 - 60_000 - 1_000);
    assert.equal(s.grants(), 0);
    await clock.tickAsync(2_000);
    assert.equal(s.grants(), 1);
    m.dispose();
  }));

Deno.test("tokens not much longer than refreshBufferSeconds are refreshed no sooner than 10 s (or half-life) after their grant, not in a loop", () =>
  withClock(async (clock) => {
    for (const [lifetime, due] of [[30, 10], [61, 10], [16, 8], [100, 40]]) {
      const s = autoServer(() => json(sessionJson(2, { expires_in: lifetime })));
      const m = createSessionManager(s.auth, s.client); // buffer 60 s
      await m.saveSession(decodeSession(sessionJson(1, { expires_in: lifetime })));
      await clock.tickAsync(due * 1000 - 500);
      assert.equal(s.grants(), 0, `${lifetime} s token, before ${due} s`);
      await clock.tickAsync(500);
      assert.equal(s.grants(), 1, `${lifetime} s token, at ${due} s`);
      await clock.tickAsync(due * 1000);
      assert.equal(s.grants(), 2, `${lifetime} s token, again ${due} s after the new grant`);
      m.dispose();
    }
  }));

Deno.test("a token longer than refreshBufferSeconds is refreshed exactly that long before expiry, with no initialize() first", () =>
  withClock(async (clock) => {
    const s = autoServer(() => json(sessionJson(2, { expires_in: 100 })));
    const m = createSessionManager(s.auth, s.client); // buffer 60 s: due at 40 s
    // autoRefresh defaults to true: saveSession schedules the refresh by itself.
    await m.saveSession(decodeSession(sessionJson(1, { expires_in: 100 })));
    await clock.tickAsync(39_000);
    assert.equal(s.grants(), 0);
    await clock.tickAsync(1_000);
    assert.equal(s.grants(), 1);
    m.dispose();
  }));

Deno.test("startAutoRefresh on a lapsed session keeps retrying until the network returns", () =>
  withClock(async (clock) => {
    let offline = true;
    const s = autoServer(() => {
      if (offline) throw new TypeError("network down");
      return json(sessionJson(2));
    });
    const storage = new InMemorySessionStorage();
    storage.save(
      decodeSession(sessionJson(1, { expires_at: Math.floor(Date.now() / 1000) - 10 })),
    );
    const m = createSessionManager(s.auth, s.client, { storage });
    await m.initialize();
    assert.equal(m.sessionState.value.kind, "Expired");
    m.startAutoRefresh();
    offline = false;
    await clock.tickAsync(5 * 60_000);
    assert.equal(m.sessionState.value.kind, "Authenticated");
    assert.equal(m.accessToken, "access-2");
    m.dispose();
  }));

Deno.test("startAutoRefresh on a lapsed session without a pending retry refreshes now", async () => {
  let offline = true;
  const s = autoServer(() => {
    if (offline) throw new TypeError("network down");
    return json(sessionJson(2));
  });
  const storage = new InMemorySessionStorage();
  storage.save(decodeSession(sessionJson(1, { expires_at: Math.floor(Date.now() / 1000) - 10 })));
  const m = createSessionManager(s.auth, s.client, { storage, autoRefresh: false });
  await m.restoreSession(); // auto-refresh off: no grant, nothing scheduled
  assert.equal(m.sessionState.value.kind, "Expired");
  assert.equal(s.grants(), 0);
  offline = false;
  m.startAutoRefresh();
  await new Promise((done) => setTimeout(done, 5));
  assert.equal(s.grants(), 1);
  assert.equal(m.sessionState.value.kind, "Authenticated");
  m.dispose();
});

Deno.test("a stored session without expiresAt is dated by its save, not by its restore", () =>
  withClock(async (clock) => {
    const map = new Map<string, string>();
    const store = {
      get: (k: string) => map.get(k) ?? null,
      set: (k: string, v: string) => void map.set(k, v),
      remove: (k: string) => void map.delete(k),
    };
    const s = autoServer(() => json(sessionJson(2)));
    const first = createSessionManager(s.auth, s.client, {
      storage: new KeyValueSessionStorage(store),
      autoRefresh: false,
    });
    await first.saveSession(decodeSession(sessionJson(1, { expires_at: null })));
    first.dispose();
    clock.tick(3 * 86_400_000); // a new process three days later
    const later = createSessionManager(s.auth, s.client, {
      storage: new KeyValueSessionStorage(store),
    });
    const r = await later.restoreSession();
    assert.equal(s.grants(), 1, "the lapsed token was refreshed, not applied");
    assert.equal(r.getOrThrow().accessToken, "access-2");
    later.dispose();
  }));

Deno.test("a legacy stored session without expiresAt takes the token's exp, else counts as lapsed", async () => {
  const b64 = (o: unknown) => btoa(JSON.stringify(o)).replace(/=+$/, "");
  const future = Math.floor(Date.now() / 1000) + 600;
  const jwt = `${b64({ alg: "HS256" })}.${b64({ exp: future, sub: "u1" })}.c2ln`;
  const legacy = (token: string) =>
    JSON.stringify({
      accessToken: token,
      refreshToken: "refresh-1",
      expiresIn: 3600,
      expiresAt: null,
      tokenType: "bearer",
      user: { id: "u1" },
    });
  for (const [token, kind] of [[jwt, "Authenticated"], ["opaque-token", "Expired"]] as const) {
    const map = new Map([["fetchbase.auth.session", legacy(token)]]);
    const store = {
      get: (k: string) => map.get(k) ?? null,
      set: (k: string, v: string) => void map.set(k, v),
      remove: (k: string) => void map.delete(k),
    };
    const s = autoServer(() => json(sessionJson(2)));
    const m = createSessionManager(s.auth, s.client, {
      storage: new KeyValueSessionStorage(store),
      autoRefresh: false,
    });
    await m.restoreSession();
    assert.equal(s.grants(), 0, token); // auto-refresh off: a lapsed one waits for refreshSession
    assert.equal(m.sessionState.value.kind, kind, token);
    if (kind === "Authenticated") assert.equal(m.currentSession?.expiresAt, future);
    m.dispose();
  }
});

Deno.test("restoring a live session emits SIGNED_IN to listeners subscribed before", async () => {
  const s = autoServer(() => json(sessionJson(2)));
  const storage = new InMemorySessionStorage();
  storage.save(decodeSession(sessionJson(1)));
  const m = createSessionManager(s.auth, s.client, { storage, autoRefresh: false });
  const events: [string, string | null][] = [];
  m.onAuthStateChange((e, session) => events.push([e, session?.accessToken ?? null]));
  await m.initialize();
  assert.deepEqual(events, [["INITIAL_SESSION", null], ["SIGNED_IN", "access-1"]]);
  m.dispose();
});

Deno.test("signOutCurrentSession signs a lapsed session out; 401/403/404 count as signed out", async () => {
  for (const status of [204, 401, 403, 404, 500]) {
    const s = autoServer((path) =>
      path.endsWith("/logout")
        ? status === 204 ? new Response(null, { status }) : json({ msg: "no" }, status)
        : (() => {
          throw new TypeError("offline");
        })()
    );
    const storage = new InMemorySessionStorage();
    storage.save(
      decodeSession(sessionJson(1, { expires_at: Math.floor(Date.now() / 1000) - 10 })),
    );
    const m = createSessionManager(s.auth, s.client, { storage, autoRefresh: false });
    await m.restoreSession();
    assert.equal(m.sessionState.value.kind, "Expired");
    const r = await signOutCurrentSession(s.auth, m);
    if (status === 500) {
      assert.equal(r.ok, false);
      assert.equal(storage.load()?.refreshToken, "refresh-1", "kept for a retry");
    } else {
      assert.equal(r.ok, true, String(status));
      assert.equal(storage.load(), null);
      assert.equal(m.sessionState.value.kind, "NotAuthenticated");
      assert.equal(s.client.accessToken, null);
    }
    m.dispose();
  }
});

Deno.test("StateFlow: a listener that sets a newer value is never followed by the older one", async () => {
  const flow = new MutableStateFlow(0);
  const later: number[] = [];
  flow.subscribe((v) => {
    if (v === 1) flow.value = 2;
  });
  flow.subscribe((v) => later.push(v));
  const it = flow[Symbol.asyncIterator]();
  assert.equal((await it.next()).value, 0);
  flow.value = 1;
  assert.equal(flow.value, 2);
  assert.equal(later.at(-1), 2);
  assert.deepEqual(later, [0, 2]);
  assert.equal((await it.next()).value, 2);
  await it.return?.();
});

Deno.test("a save of the same tokens during a refresh keeps the refresh shared: one grant per refresh token", async () => {
  const s = heldServer();
  const m = createSessionManager(s.auth, s.client, { autoRefresh: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  const first = m.refreshSession();
  await turns();
  const update = updateUserForCurrentSession(s.auth, m, { data: { theme: "dark" } });
  await turns();
  s.find("/user").release(json({ id: "u1", email: "a@example.com" }));
  await update; // saves a copy with the same tokens (USER_UPDATED)
  const second = m.refreshSession();
  await turns();
  assert.equal(second, first);
  const grants = s.held.filter((h) => h.path.endsWith("/token"));
  assert.equal(grants.length, 1);
  grants[0].release(json(sessionJson(2)));
  assert.equal((await second).getOrThrow().refreshToken, "refresh-2");
  m.dispose();
});

Deno.test("restore: no stored session signs the held one out; a refresh or sign-in during the read wins over what was read", () =>
  withClock(async (clock) => {
    // Storage emptied elsewhere: SIGNED_OUT, no token on the client, no timer.
    const s = heldServer();
    const storage = new InMemorySessionStorage();
    const m = createSessionManager(s.auth, s.client, { storage });
    m.startAutoRefresh();
    const events: string[] = [];
    m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
    await m.saveSession(decodeSession(sessionJson(1)));
    storage.clear();
    assert.equal((await m.restoreSession()).ok, false);
    assert.deepEqual(events, ["SIGNED_IN", "SIGNED_OUT"]);
    assert.equal(s.client.accessToken, null);
    assert.equal(clock.countTimers(), 0);
    m.dispose();

    // A storage whose loads answer later, each with what it held when called.
    class SlowLoad {
      #inner = new InMemorySessionStorage();
      #pending: Array<() => void> = [];
      /** Answers every load waiting now. */
      release(): void {
        for (const answer of this.#pending.splice(0)) answer();
      }
      save(x: Session) {
        this.#inner.save(x);
      }
      clear() {
        this.#inner.clear();
      }
      load() {
        const snapshot = this.#inner.load();
        return new Promise<Session | null>((r) => this.#pending.push(() => r(snapshot)));
      }
    }
    // A refresh answered while storage is read is applied, not dropped.
    const s2 = heldServer();
    const slow = new SlowLoad();
    const m2 = createSessionManager(s2.auth, s2.client, { storage: slow, autoRefresh: false });
    await m2.saveSession(decodeSession(sessionJson(1)));
    const refresh = m2.refreshSession();
    await turns();
    // The refresh first reads the storage for a newer session (another tab's): none.
    slow.release();
    await turns();
    const restore = m2.restoreSession();
    await turns();
    s2.find("/token").release(json(sessionJson(2)));
    await turns();
    // Storage runs one operation at a time: the refresh's write waits for the read; in its turn
    // the refresh reads again for a state another tab stored during the grant (none).
    slow.release();
    await turns();
    slow.release();
    assert.ok((await refresh).ok);
    await restore;
    assert.equal(m2.currentSession?.refreshToken, "refresh-2");
    assert.equal(s2.client.accessToken, "access-2");
    m2.dispose();

    // A sign-in while storage is read is not replaced by the older stored session.
    const s3 = heldServer();
    const slow3 = new SlowLoad();
    slow3.save(decodeSession(sessionJson(1)));
    const m3 = createSessionManager(s3.auth, s3.client, { storage: slow3, autoRefresh: false });
    const seen: Array<[string, string | null]> = [];
    m3.onAuthStateChange((e, x) => seen.push([e, x?.accessToken ?? null]), {
      emitInitialSession: false,
    });
    const init = m3.initialize();
    await turns();
    const saving = m3.saveSession(decodeSession(sessionJson(9)));
    slow3.release();
    await saving;
    assert.equal((await init).getOrThrow().accessToken, "access-9");
    assert.equal(m3.accessToken, "access-9");
    assert.equal(s3.client.accessToken, "access-9");
    assert.deepEqual(seen, [["SIGNED_IN", "access-9"]]);
    m3.dispose();
  }));

Deno.test("a session past its expiry reads as Expired, never as the live session (auto-refresh off)", () =>
  withClock(async (clock) => {
    const s = heldServer();
    const m = createSessionManager(s.auth, s.client, { autoRefresh: false });
    await m.saveSession(decodeSession(sessionJson(1, { expires_in: 3600 })));
    assert.equal(m.accessToken, "access-1");
    clock.tick(2 * 3600_000);
    assert.equal(m.accessToken, null);
    assert.equal(m.currentSession, null);
    const state = m.sessionState.value;
    assert.equal(state.kind, "Expired");
    assert.equal(state.kind === "Expired" && state.lastSession.refreshToken, "refresh-1");
    m.dispose();
  }));

Deno.test("a sign-out during a sign-in's slow storage write has the last word: events, state and storage agree", async () => {
  const s = heldServer();
  let stored: unknown = null;
  const storage = {
    save: (x: unknown) => new Promise<void>((r) => setTimeout(() => (stored = x, r()), 20)),
    load: () => stored as never,
    clear: () => new Promise<void>((r) => setTimeout(() => (stored = null, r()), 1)),
  };
  const m = createSessionManager(s.auth, s.client, { storage, autoRefresh: false });
  const events: string[] = [];
  m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
  await Promise.all([m.saveSession(decodeSession(sessionJson(1))), m.clearSession()]);
  assert.equal(m.sessionState.value.kind, "NotAuthenticated");
  assert.deepEqual(events, ["SIGNED_OUT"]);
  assert.equal(stored, null, "the clear ran after the save");
  m.dispose();
});

Deno.test("a disposed manager arms no timer, even when initialize() is called after dispose()", () =>
  withClock(async (clock) => {
    let grants = 0;
    const client = createBaseClient(BASE, KEY, {
      fetch: () => (grants++, Promise.reject(new TypeError("offline"))),
      retry: { maxAttempts: 1 },
      timeout: 0,
    });
    const storage = new InMemorySessionStorage();
    storage.save(decodeSession(sessionJson(1, { expires_at: Math.floor(Date.now() / 1000) - 10 })));
    const m = createSessionManager(createAuthClient(client), client, { storage });
    m.dispose();
    await m.initialize();
    assert.equal(clock.countTimers(), 0);
    await clock.tickAsync(10 * 60_000);
    assert.equal(
      grants,
      0,
      "a disposed manager does not auto-refresh the lapsed session it restores",
    );
    assert.equal(m.sessionState.value.kind, "Expired");
  }));

const asUser = (n: number, id: string) => ({
  ...sessionJson(n),
  user: { id, email: `${id}@x.io` },
});

Deno.test("helpers that waited on the server leave a newer session alone: sign-out, MFA verify, identity link", async () => {
  // A's sign-out answered after B signed in: B stays.
  const s = heldServer();
  const m = createSessionManager(s.auth, s.client, { autoRefresh: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  const out = signOutCurrentSession(s.auth, m);
  await turns();
  await m.saveSession(decodeSession(asUser(2, "u2")));
  s.find("/logout").release(new Response(null, { status: 204 }));
  assert.ok((await out).ok);
  assert.equal(m.currentSession?.user.id, "u2");
  // MFA verified after a sign-out, or after another user signed in: nothing saved.
  for (const between of ["sign-out", "other user"] as const) {
    const h = heldServer();
    const mm = createSessionManager(h.auth, h.client, { autoRefresh: false });
    await mm.saveSession(decodeSession(sessionJson(1)));
    const events: string[] = [];
    mm.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
    const verify = mfaVerifyAndSaveSession(h.auth, mm, "f1", "c1", "123456");
    await turns();
    if (between === "sign-out") await mm.clearSession();
    else await mm.saveSession(decodeSession(asUser(3, "u2")));
    h.find("/verify").release(json(sessionJson(2)));
    assert.equal((await verify).errorOrNull()?.category, "CANCELLED", between);
    assert.ok(!events.includes("MFA_CHALLENGE_VERIFIED"), between);
    assert.equal(mm.currentSession?.user.id ?? null, between === "sign-out" ? null : "u2");
  }
  // An identity linked after a sign-out does not bring the session back.
  const l = heldServer();
  const ml = createSessionManager(l.auth, l.client, { autoRefresh: false });
  await ml.saveSession(decodeSession(sessionJson(1)));
  const link = linkIdentityWithIdTokenForCurrentSession(l.auth, ml, "google", "id-token");
  await turns();
  await ml.clearSession();
  l.find("/token").release(json(sessionJson(2)));
  assert.equal((await link).errorOrNull()?.category, "CANCELLED");
  assert.equal(ml.currentSession, null);
});

Deno.test("signOut clears only the token it signed out; the MFA session returned is masked", async () => {
  const s = heldServer();
  s.client.setAccessToken("access-1");
  const out = signOut(s.client);
  await turns();
  s.client.setAccessToken("access-9"); // a newer sign-in meanwhile
  s.find("/logout").release(new Response(null, { status: 204 }));
  assert.ok((await out).ok);
  assert.equal(s.client.accessToken, "access-9");
  const h = heldServer();
  const m = createSessionManager(h.auth, h.client, { autoRefresh: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  const verify = mfaVerifyAndSaveSession(h.auth, m, "f1", "c1", "123456");
  await turns();
  h.find("/verify").release(json(sessionJson(2)));
  const v = (await verify).getOrThrow();
  assert.ok(!String(v).includes("access-2") && !Deno.inspect(v).includes("refresh-2"));
});

Deno.test("session helpers resolve a Failure, never reject, when the session storage fails", async () => {
  const failing = {
    save: () => Promise.reject(new Error("disk down")),
    load: () => null,
    clear: () => Promise.reject(new Error("disk down")),
  };
  const { client, auth } = autoServer((path) =>
    path.endsWith("/logout") ? new Response(null, { status: 204 }) : json(sessionJson(1))
  );
  const m = createSessionManager(auth, client, { storage: failing, autoRefresh: false });
  const signIn = await signInWithEmailAndSaveSession(auth, m, "a@x.io", "pw");
  assert.equal(signIn.errorOrNull()?.category, "UNKNOWN");
  assert.equal(m.accessToken, "access-1", "live in memory all the same");
  const out = await signOutCurrentSession(auth, m);
  assert.equal(out.errorOrNull()?.category, "UNKNOWN");
});

Deno.test("a fragment's provider tokens are kept; an error_code alone is an auth error", async () => {
  const { client, auth } = autoServer(() => json({ id: "u1", email: "a@x.io" }));
  const m = createSessionManager(auth, client, { autoRefresh: false });
  const r = await importSessionFromFragment(
    auth,
    "#access_token=a.b.c&refresh_token=r1&expires_in=3600&token_type=bearer&provider_token=gh-tok&provider_refresh_token=gh-ref",
    m,
  );
  const session = r.getOrThrow();
  assert.equal(session.providerToken, "gh-tok");
  assert.equal(session.providerRefreshToken, "gh-ref");
  assert.ok(!String(session).includes("gh-tok"));
  const e = await importSessionFromFragment(auth, "#error_code=otp_expired", m);
  assert.equal(e.errorOrNull()?.category, "UNAUTHORIZED");
  assert.equal(e.errorOrNull()?.code, "otp_expired");
});

Deno.test("autoRefresh: false never schedules a refresh, and stopAutoRefresh stops a configured one", () =>
  withClock(async (clock) => {
    const s = autoServer(() => json(sessionJson(2, { expires_in: 100 })));
    const off = createSessionManager(s.auth, s.client, { autoRefresh: false });
    await off.saveSession(decodeSession(sessionJson(1, { expires_in: 100 })));
    const stopped = createSessionManager(s.auth, s.client);
    stopped.stopAutoRefresh();
    await stopped.saveSession(decodeSession(sessionJson(1, { expires_in: 100 })));
    await clock.tickAsync(200_000);
    assert.equal(s.grants(), 0);
    off.dispose();
    stopped.dispose();
  }));

Deno.test("a save that comes while a clear is being stored has the last word", async () => {
  const s = autoServer(() => json(sessionJson(9)));
  const { storage, release } = slowClearStorage();
  const m = createSessionManager(s.auth, s.client, { storage, autoRefresh: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  const clearing = m.clearSession();
  const saving = m.saveSession(decodeSession(sessionJson(2)));
  release();
  await Promise.all([clearing, saving]);
  assert.equal(m.sessionState.value.kind, "Authenticated");
  assert.equal(m.accessToken, "access-2");
  assert.equal(s.client.accessToken, "access-2");
  m.dispose();
});

Deno.test("a device clock far ahead of the server's refreshes at most every 10 s, never in a loop", () =>
  withClock(async (clock) => {
    const ahead = 4000; // seconds: every token looks lapsed on arrival
    const answer = () =>
      json({
        ...sessionJson(2, { expires_in: 3600 }),
        expires_at: Math.floor(Date.now() / 1000) - ahead + 3600,
      });
    const s = autoServer(answer);
    const m = createSessionManager(s.auth, s.client);
    await m.saveSession(decodeSession({
      ...sessionJson(1, { expires_in: 3600 }),
      expires_at: Math.floor(Date.now() / 1000) - ahead + 3600,
    }));
    await clock.tickAsync(60_000);
    assert.ok(s.grants() <= 7, `${s.grants()} grants in 60 s`);
    assert.ok(s.grants() >= 1);
    m.dispose();
  }));

Deno.test("refresh_token_already_used: the winner's session in storage is adopted; else the session ends in memory only", async () => {
  const reused = () =>
    json(
      { error_code: "refresh_token_already_used", msg: "Invalid Refresh Token: Already Used" },
      400,
    );
  // Another tab refreshed first and stored its session while this grant was on its way: adopt
  // it (a session stored before the grant is taken before it, by the read that precedes it).
  const shared = new InMemorySessionStorage();
  const s1 = autoServer(() => {
    shared.save(decodeSession(sessionJson(5)));
    return reused();
  });
  const tab = createSessionManager(s1.auth, s1.client, { storage: shared, autoRefresh: false });
  await tab.saveSession(decodeSession(sessionJson(1)));
  const adopted = await tab.refreshSession();
  assert.equal(adopted.getOrThrow().accessToken, "access-5");
  assert.equal(s1.client.accessToken, "access-5");
  tab.dispose();
  // Nothing newer stored (a server request's own cookies): a live session stays for this
  // request (no SIGNED_OUT that would make an app clear the winner's cookies); a lapsed one
  // ends here, in memory only. Storage is untouched either way.
  const s2 = autoServer(reused);
  let cleared = 0;
  const own = new InMemorySessionStorage();
  const storage = {
    perRequest: true,
    save: (x: Session) => own.save(x),
    load: () => own.load(),
    clear: () => {
      cleared++;
      own.clear();
    },
  };
  const req = createSessionManager(s2.auth, s2.client, { storage, autoRefresh: false });
  const events: string[] = [];
  req.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
  await req.saveSession(decodeSession(sessionJson(1)));
  const lost = await req.refreshSession();
  assert.equal(lost.errorOrNull()?.code, "refresh_token_already_used");
  assert.equal(req.currentSession?.accessToken, "access-1");
  assert.deepEqual(events, ["SIGNED_IN"]);
  const past = Math.floor(Date.now() / 1000) - 10;
  await req.saveSession(decodeSession(sessionJson(2, { expires_at: past })));
  assert.equal((await req.refreshSession()).errorOrNull()?.code, "refresh_token_already_used");
  assert.equal(req.sessionState.value.kind, "NotAuthenticated");
  assert.equal(cleared, 0, "the winner's cookies are not deleted");
  req.dispose();
  // A shared storage that still holds the spent token is cleared: it would bring it back.
  const s3 = autoServer(reused);
  const kept = new InMemorySessionStorage();
  const app = createSessionManager(s3.auth, s3.client, { storage: kept, autoRefresh: false });
  await app.saveSession(decodeSession(sessionJson(1)));
  await app.refreshSession();
  assert.equal(kept.load(), null);
  assert.equal(app.sessionState.value.kind, "NotAuthenticated");
  app.dispose();
});

Deno.test("per-request storage arms no refresh timer; dispose takes back the token it applied to a shared client", () =>
  withClock(async (clock) => {
    const s = autoServer(() => json(sessionJson(2, { expires_in: 100 })));
    const inner = new InMemorySessionStorage();
    const storage = {
      perRequest: true,
      save: (x: Session) => inner.save(x),
      load: () => inner.load(),
      clear: () => inner.clear(),
    };
    const m = createSessionManager(s.auth, s.client, { storage });
    await m.saveSession(decodeSession(sessionJson(1, { expires_in: 100 })));
    await clock.tickAsync(200_000);
    assert.equal(s.grants(), 0, "no timer: the response has long gone");
    assert.equal(s.client.accessToken, "access-1");
    m.dispose();
    assert.equal(s.client.accessToken, null, "the next request on this client is anonymous");
    // A token set by someone else stays.
    s.client.setAccessToken("set-by-the-app-0123456789");
    const m2 = createSessionManager(s.auth, s.client, { storage, autoRefresh: false });
    m2.dispose();
    assert.equal(s.client.accessToken, "set-by-the-app-0123456789");
  }));

Deno.test("saved, restored or imported sessions never wait past expiry; an unknown lifetime uses the buffer", () =>
  withClock(async (clock) => {
    const now = () => Math.floor(Date.now() / 1000);
    // 3600 s token saved with 5 s left: refreshed at once, not 10 s later.
    const a = autoServer(() => json(sessionJson(2)));
    const m1 = createSessionManager(a.auth, a.client);
    await m1.saveSession(decodeSession({ ...sessionJson(1), expires_at: now() + 5 }));
    await clock.tickAsync(100);
    assert.equal(a.grants(), 1);
    m1.dispose();
    // Saved already lapsed: refreshed at once.
    const b = autoServer(() => json(sessionJson(2)));
    const m2 = createSessionManager(b.auth, b.client);
    await m2.saveSession(decodeSession({ ...sessionJson(1), expires_at: now() - 5 }));
    await clock.tickAsync(100);
    assert.equal(b.grants(), 1);
    m2.dispose();
    // expiresIn 0 (importAuthToken without it): refreshBufferSeconds before expiry.
    const c = autoServer(() => json(sessionJson(2)));
    const m3 = createSessionManager(c.auth, c.client);
    await m3.saveSession(
      decodeSession({ ...sessionJson(1), expires_in: 0, expires_at: now() + 3600 }),
    );
    await clock.tickAsync(3540_000 - 1000);
    assert.equal(c.grants(), 0);
    await clock.tickAsync(1000);
    assert.equal(c.grants(), 1);
    m3.dispose();
  }));

Deno.test("per-request storage arms no retry timer either; a refresh after dispose leaves the client alone; a trimmed token is taken back", () =>
  withClock(async (clock) => {
    const now = () => Math.floor(Date.now() / 1000);
    const down = autoServer(() => new Response("", { status: 503 }));
    const inner = new InMemorySessionStorage();
    const storage = {
      perRequest: true,
      save: (x: Session) => inner.save(x),
      load: () => inner.load(),
      clear: () => inner.clear(),
    };
    inner.save(decodeSession({ ...sessionJson(1), expires_at: now() + 30 }));
    const m = createSessionManager(down.auth, down.client, { storage });
    await m.initialize();
    assert.equal(down.grants(), 1);
    await clock.tickAsync(120_000);
    assert.equal(down.grants(), 1, "no retry after the response has gone");
    m.dispose();

    const held = heldServer();
    const m2 = createSessionManager(held.auth, held.client, { autoRefresh: false });
    await m2.saveSession(decodeSession({ ...sessionJson(1), access_token: "access-1-abcdefgh\n" }));
    assert.equal(held.client.accessToken, "access-1-abcdefgh");
    const pending = m2.refreshSession();
    await clock.tickAsync(0);
    m2.dispose();
    assert.equal(held.client.accessToken, null, "the trimmed token is taken back");
    held.find("/token").release(json(sessionJson(2)));
    await pending;
    assert.equal(held.client.accessToken, null, "a refresh landing after dispose leaves it alone");
  }));

Deno.test("a refresh answered while a clear is being stored is not stored", async () => {
  const held = heldServer();
  const { inner, storage, release } = slowClearStorage();
  const m = createSessionManager(held.auth, held.client, { storage, autoRefresh: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  const refreshing = m.refreshSession();
  await new Promise((r) => setTimeout(r, 0));
  const clearing = m.clearSession();
  held.find("/token").release(json(sessionJson(2)));
  const r = await refreshing;
  release();
  await clearing;
  assert.equal(r.errorOrNull()?.category, "CANCELLED");
  assert.equal(inner.load(), null, "the sign-out stands");
  assert.equal(m.sessionState.value.kind, "NotAuthenticated");
  m.dispose();
});

Deno.test("model-based findings: restore and a lost-race reload wait for pending writes; no refresh during a clear; a lapsed save is not left to an old timer", () =>
  withClock(async (clock) => {
    // Restore started with a save in the same tick: the save is what is read.
    const a = autoServer(() => json(sessionJson(2)));
    const m1 = createSessionManager(a.auth, a.client, { autoRefresh: false });
    const events: string[] = [];
    m1.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
    await Promise.all([m1.saveSession(decodeSession(sessionJson(1))), m1.initialize()]);
    assert.equal(m1.sessionState.value.kind, "Authenticated");
    assert.equal(a.client.accessToken, "access-1");
    assert.ok(!events.includes("SIGNED_OUT"), events.join());
    m1.dispose();

    // refresh_token_already_used while our own newer save is still being written: not adopted.
    const reused = autoServer(() =>
      json({ error_code: "refresh_token_already_used", msg: "Already Used" }, 400)
    );
    let releaseWrite!: () => void;
    const inner = new InMemorySessionStorage();
    inner.save(decodeSession(sessionJson(1)));
    let slow = false;
    const storage = {
      save: (x: Session) =>
        slow ? new Promise<void>((r) => (releaseWrite = () => r(inner.save(x)))) : inner.save(x),
      load: () => inner.load(),
      clear: () => inner.clear(),
    };
    const m2 = createSessionManager(reused.auth, reused.client, { storage, autoRefresh: false });
    await m2.saveSession(decodeSession(sessionJson(1)));
    slow = true;
    const saving = m2.saveSession(decodeSession(sessionJson(2)));
    const refreshing = m2.refreshSession();
    await clock.tickAsync(0);
    releaseWrite();
    await saving;
    const r = await refreshing;
    assert.notEqual(
      r.ok && r.value.refreshToken,
      "refresh-1",
      "the stale session is not brought back",
    );
    assert.notEqual(m2.currentSession?.refreshToken, "refresh-1");
    m2.dispose();

    // A refresh asked for while a clear is being stored makes no grant.
    const c = autoServer(() => json(sessionJson(2)));
    let releaseClear!: () => void;
    const inner3 = new InMemorySessionStorage();
    const storage3 = {
      save: (x: Session) => inner3.save(x),
      load: () => inner3.load(),
      clear: () => new Promise<void>((r) => (releaseClear = () => r(inner3.clear()))),
    };
    const m3 = createSessionManager(c.auth, c.client, { storage: storage3, autoRefresh: false });
    await m3.saveSession(decodeSession(sessionJson(1)));
    const clearing = m3.clearSession();
    const refresh3 = await m3.refreshSession();
    assert.equal(refresh3.errorOrNull()?.category, "NO_SESSION");
    assert.equal(c.grants(), 0);
    releaseClear();
    await clearing;
    assert.equal(inner3.load(), null);
    m3.dispose();

    // A lapsed session saved over a live one is refreshed now, not on the old session's timer.
    const d = autoServer(() => json(sessionJson(3)));
    const m4 = createSessionManager(d.auth, d.client);
    await m4.saveSession(decodeSession(sessionJson(1, { expires_in: 3600 })));
    await m4.saveSession(
      decodeSession({ ...sessionJson(2), expires_at: Math.floor(Date.now() / 1000) - 1 }),
    );
    await clock.tickAsync(1_000);
    assert.equal(d.grants(), 1);
    m4.dispose();
  }));

Deno.test("a session saved and cleared before it was stored is never announced, so no second SIGNED_OUT", async () => {
  const s = autoServer(() => json(sessionJson(2)));
  let releaseSave!: () => void;
  const inner = new InMemorySessionStorage();
  let slow = false;
  const storage = {
    save: (x: Session) =>
      slow ? new Promise<void>((r) => (releaseSave = () => r(inner.save(x)))) : inner.save(x),
    load: () => inner.load(),
    clear: () => inner.clear(),
  };
  const m = createSessionManager(s.auth, s.client, { storage, autoRefresh: false });
  const events: string[] = [];
  m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  await m.clearSession();
  slow = true;
  const saving = m.saveSession(decodeSession(sessionJson(2)));
  const clearing = m.clearSession();
  await new Promise((r) => setTimeout(r, 0)); // the save's write has started
  releaseSave();
  await Promise.all([saving, clearing]);
  assert.deepEqual(events, ["SIGNED_IN", "SIGNED_OUT"]);
  assert.equal(m.sessionState.value.kind, "NotAuthenticated");
  m.dispose();
});

Deno.test("overlapping clearSession calls emit SIGNED_OUT once, whichever lands last", async () => {
  for (const clears of [2, 3]) {
    const s = autoServer(() => json({}));
    const m = createSessionManager(s.auth, s.client, { autoRefresh: false });
    const events: string[] = [];
    m.onAuthStateChange((e) => events.push(e));
    await m.saveSession(decodeSession(sessionJson(1)));
    // A 401 handler per failed request, or a logout effect run twice.
    await Promise.all(Array.from({ length: clears }, () => m.clearSession()));
    assert.equal(m.sessionState.value.kind, "NotAuthenticated");
    assert.deepEqual(events, ["INITIAL_SESSION", "SIGNED_IN", "SIGNED_OUT"], `${clears} clears`);
    // Nothing is owed after it: a later clear of no session says nothing.
    await m.clearSession();
    assert.deepEqual(events, ["INITIAL_SESSION", "SIGNED_IN", "SIGNED_OUT"]);
    m.dispose();
  }
  // A clear overtaken by a save is not announced: the save has the last word.
  const s = autoServer(() => json({}));
  const m = createSessionManager(s.auth, s.client, { autoRefresh: false });
  const events: string[] = [];
  m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  await Promise.all([m.clearSession(), m.saveSession(decodeSession(sessionJson(2)))]);
  assert.deepEqual(events, ["SIGNED_IN", "SIGNED_IN"]);
  await m.clearSession();
  assert.deepEqual(events, ["SIGNED_IN", "SIGNED_IN", "SIGNED_OUT"]);
  m.dispose();
});

Deno.test("one callback subscribed twice is two subscriptions, each ended by its own unsubscribe", async () => {
  const s = autoServer(() => json({}));
  const m = createSessionManager(s.auth, s.client, { autoRefresh: false });
  const heard: string[] = [];
  const shared = (e: string) => void heard.push(e);
  const stopA = m.onAuthStateChange(shared, { emitInitialSession: false });
  const stopB = m.onAuthStateChange(shared, { emitInitialSession: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  assert.deepEqual(heard, ["SIGNED_IN", "SIGNED_IN"]);
  stopA();
  await m.clearSession();
  assert.deepEqual(heard, ["SIGNED_IN", "SIGNED_IN", "SIGNED_OUT"], "B still hears");
  stopA(); // twice: still only A's
  stopB();
  await m.saveSession(decodeSession(sessionJson(2)));
  assert.equal(heard.length, 3);
  m.dispose();
});

Deno.test("dispose ends sessionState for its subscribers and a for await over it", async () => {
  const s = autoServer(() => json({}));
  const m = createSessionManager(s.auth, s.client, { autoRefresh: false });
  const kinds: string[] = [];
  m.sessionState.subscribe((st) => kinds.push(st.kind));
  const looped: string[] = [];
  const loop = (async () => {
    for await (const st of m.sessionState) looped.push(st.kind);
  })();
  await m.saveSession(decodeSession(sessionJson(1)));
  await turns();
  m.dispose();
  await loop; // ends: it would have waited for ever
  const before = kinds.length;
  await m.clearSession();
  assert.equal(kinds.length, before, "no state reaches a disposed manager's subscribers");
  assert.ok(looped.includes("Authenticated"), looped.join());
});

Deno.test("a user update saved while a refresh reads the storage for another tab's state is stored after the refresh, never under it", async () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  // An asynchronous storage (IndexedDB, Capacitor Preferences): each read takes 50 ms.
  let stored: Session | null = null;
  const storage = {
    load: async () => {
      const v = stored;
      await sleep(50);
      return v;
    },
    save: (s: Session) => void (stored = structuredClone(s)),
    clear: () => void (stored = null),
  };
  let userUpdate: Promise<void> | undefined;
  const named = (n: number, name: string) => ({
    ...sessionJson(n),
    user: { id: "u1", email: "a@x.io", user_metadata: { name } },
  });
  const fetch = (input: RequestInfo | URL, _init?: RequestInit) => {
    if (String(input).includes("grant_type=refresh_token")) {
      // The app's updateUser answer comes 20 ms after the grant's: it saves the held session
      // (the grant's tokens by then) with the new user.
      setTimeout(() => {
        const held = m.currentSession!;
        userUpdate = m.saveSession(
          { ...held, user: { ...held.user, userMetadata: { name: "new" } } },
          { event: AuthStateChangeEvent.USER_UPDATED },
        );
      }, 20);
      return Promise.resolve(json(named(2, "old")));
    }
    return Promise.resolve(json({}));
  };
  const c = createBaseClient(BASE, KEY, { fetch });
  const m = createSessionManager(createAuthClient(c), c, { storage, autoRefresh: false });
  const events: string[] = [];
  m.onAuthStateChange(
    (e, s) => events.push(`${e}(${s?.user.userMetadata?.name})`),
    { emitInitialSession: false },
  );
  await m.saveSession(decodeSession(named(1, "old")));
  assert.equal((await m.refreshSession()).getOrThrow().refreshToken, "refresh-2");
  await userUpdate;
  await sleep(100);
  assert.equal(m.currentSession?.user.userMetadata?.name, "new");
  assert.equal(stored!.refreshToken, "refresh-2");
  assert.equal(stored!.user.userMetadata?.name, "new", "the update is not written over");
  assert.deepEqual(events, ["SIGNED_IN(old)", "TOKEN_REFRESHED(old)", "USER_UPDATED(new)"]);
  m.dispose();
});

Deno.test("a for await over sessionState that missed a sign-in and its sign-out sees no second NotAuthenticated", async () => {
  const { auth, client } = heldServer();
  const m = createSessionManager(auth, client, { autoRefresh: false });
  const seen: string[] = [];
  const iterator = m.sessionState[Symbol.asyncIterator]();
  seen.push((await iterator.next()).value.kind);
  // Signed in and out before the loop asks again.
  await m.saveSession(decodeSession(sessionJson(1)));
  await m.clearSession();
  const next = iterator.next();
  m.dispose();
  const r = await next;
  if (!r.done) seen.push(r.value.kind);
  assert.deepEqual(seen, ["NotAuthenticated"]);
});
