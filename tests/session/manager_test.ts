import assert from "node:assert/strict";
import { createAuthClient, decodeSession } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import {
  AuthStateChangeEvent,
  CookieSessionStorage,
  createSessionManager,
  InMemorySessionStorage,
  KeyValueSessionStorage,
  type SessionState,
  updateUserForCurrentSession,
} from "../../session/mod.ts";
import { jsonResponse, type RecordedRequest, recordingFetch } from "../support/recording_fetch.ts";
import { BASE, KEY, sessionJson, withClock } from "./_helpers.ts";

const nowS = () => Math.floor(Date.now() / 1000);

/** A GoTrue stand-in: refresh grants rotate tokens; a script can inject faults. */
function gotrue(fault?: (req: RecordedRequest, n: number) => Response | null) {
  let grants = 0;
  const rec = recordingFetch((req) => {
    if (req.url.pathname.endsWith("/token")) {
      grants++;
      const injected = fault?.(req, grants);
      if (injected) return injected;
      return jsonResponse(sessionJson(grants + 1));
    }
    if (req.url.pathname.endsWith("/user") && req.method === "PUT") {
      return jsonResponse({ id: "u1", email: "new@x.io" });
    }
    if (req.url.pathname.endsWith("/logout")) return new Response(null, { status: 204 });
    return jsonResponse({ id: "u1" });
  });
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch, retry: { maxAttempts: 1 } });
  return { rec, client, auth: createAuthClient(client), grants: () => grants };
}

Deno.test("saveSession persists, applies the token, emits SIGNED_IN; clearSession undoes it", async () => {
  const g = gotrue();
  const storage = new InMemorySessionStorage();
  const m = createSessionManager(g.auth, g.client, { storage, autoRefresh: false });
  const events: string[] = [];
  m.onAuthStateChange((e) => events.push(e));
  const s = decodeSession(sessionJson(1));
  await m.saveSession(s);
  assert.equal(g.client.accessToken, "access-1");
  assert.equal(m.accessToken, "access-1");
  assert.equal(m.sessionState.value.kind, "Authenticated");
  assert.equal(storage.load()?.refreshToken, "refresh-1");
  await m.clearSession();
  assert.equal(g.client.accessToken, null);
  assert.equal(storage.load(), null);
  assert.deepEqual(events, ["INITIAL_SESSION", "SIGNED_IN", "SIGNED_OUT"]);
  m.dispose();
});

Deno.test("refresh is scheduled refreshBufferSeconds before expiresAt, and expiresAt wins over expiresIn", () =>
  withClock(async (clock) => {
    const g = gotrue();
    const m = createSessionManager(g.auth, g.client, { refreshBufferSeconds: 60 });
    m.startAutoRefresh();
    const now = Math.floor(Date.now() / 1000);
    await m.saveSession(
      decodeSession({ ...sessionJson(1), expires_in: 3600, expires_at: now + 300 }),
    );
    await clock.tickAsync(239_000);
    assert.equal(g.grants(), 0);
    await clock.tickAsync(1_000);
    assert.equal(g.grants(), 1, "refreshed at expiresAt - 60 s, not at expiresIn");
    assert.equal(m.accessToken, "access-2");
    assert.equal(g.client.accessToken, "access-2");
    // The new session (expires_in 3600) is scheduled at 3540 s.
    await clock.tickAsync(3_539_000);
    assert.equal(g.grants(), 1);
    await clock.tickAsync(1_000);
    assert.equal(g.grants(), 2);
    m.dispose();
  }));

Deno.test("without expiresAt the refresh uses save time + expiresIn", () =>
  withClock(async (clock) => {
    const g = gotrue();
    const m = createSessionManager(g.auth, g.client, { refreshBufferSeconds: 10 });
    m.startAutoRefresh();
    await m.saveSession(
      decodeSession({ ...sessionJson(1, { expires_in: 100 }), expires_at: null }),
    );
    await clock.tickAsync(89_000);
    assert.equal(g.grants(), 0);
    await clock.tickAsync(1_000);
    assert.equal(g.grants(), 1);
    m.dispose();
  }));

Deno.test("50 concurrent refreshSession calls make one grant and all get the winning session", async () => {
  const g = gotrue();
  const m = createSessionManager(g.auth, g.client, { autoRefresh: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  const results = await Promise.all(Array.from({ length: 50 }, () => m.refreshSession()));
  assert.equal(g.grants(), 1);
  for (const r of results) assert.equal(r.getOrThrow().accessToken, "access-2");
  m.dispose();
});

Deno.test("network errors, 5xx, 429, HTML, empty and token-less answers keep the session; retries back off", () =>
  withClock(async (clock) => {
    const faults = [
      () => Promise.reject(new TypeError("network down")) as unknown as Response,
      () => new Response("<html>bad gateway</html>", { status: 502 }),
      () => new Response("", { status: 503 }),
      () =>
        jsonResponse({ message: "slow down" }, { status: 429, headers: { "retry-after": "2" } }),
      () =>
        jsonResponse({ access_token: "", refresh_token: "", expires_in: 0, user: { id: "u1" } }),
      () => new Response("", { status: 520 }),
    ];
    const g = gotrue((_req, n) => (n <= faults.length ? faults[n - 1]() : null));
    const m = createSessionManager(g.auth, g.client, {
      retryBaseDelayMs: 1000,
      retryMaxDelayMs: 8000,
    });
    const events: string[] = [];
    m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
    m.startAutoRefresh();
    const now = Math.floor(Date.now() / 1000);
    await m.saveSession(decodeSession({ ...sessionJson(1), expires_at: now + 61 }));
    await clock.tickAsync(1_000);
    assert.equal(g.grants(), 1);
    assert.equal(m.accessToken, "access-1", "kept after a network error");
    for (let i = 0; i < 60 && g.grants() < faults.length + 1; i++) await clock.tickAsync(1_000);
    assert.equal(g.grants(), faults.length + 1);
    assert.ok(m.accessToken?.startsWith("access-"));
    assert.notEqual(m.accessToken, "access-1", "recovered after the outage");
    assert.ok(!events.includes("SIGNED_OUT"));
    assert.equal(events.filter((e) => e === "TOKEN_REFRESHED").length, 1);
    m.dispose();
  }));

Deno.test("during an outage at most one refresh call per backoff window", () =>
  withClock(async (clock) => {
    const g = gotrue(() => new Response("", { status: 503 }));
    const m = createSessionManager(g.auth, g.client, {
      retryBaseDelayMs: 1000,
      retryMaxDelayMs: 4000,
    });
    m.startAutoRefresh();
    const now = Math.floor(Date.now() / 1000);
    await m.saveSession(decodeSession({ ...sessionJson(1), expires_at: now + 60 }));
    await clock.tickAsync(70_000);
    // Backoff doubles from 1 s up to a 4 s cap (half fixed, half jitter): at least 2 s apart once capped.
    assert.ok(g.grants() <= 70_000 / 2000 + 3, `${g.grants()} calls in 70 s`);
    assert.ok(g.grants() >= 12, `${g.grants()} calls in 70 s`);
    assert.equal(m.sessionState.value.kind, "Expired", "past expiry with no refresh possible");
    m.dispose();
  }));

Deno.test("only an invalid grant ends the session (SIGNED_OUT, token cleared)", async () => {
  const g = gotrue(() =>
    jsonResponse({
      code: 400,
      error_code: "refresh_token_already_used",
      msg: "Invalid Refresh Token: Already Used",
    }, { status: 400 })
  );
  const m = createSessionManager(g.auth, g.client, { autoRefresh: false });
  const events: string[] = [];
  m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  const r = await m.refreshSession();
  assert.equal(r.errorOrNull()?.code, "refresh_token_already_used");
  assert.equal(m.sessionState.value.kind, "NotAuthenticated");
  assert.equal(g.client.accessToken, null);
  assert.deepEqual(events, ["SIGNED_IN", "SIGNED_OUT"]);
  m.dispose();
});

Deno.test("restore: a corrupt payload is no session; an expired one refreshes or stays Expired", async () => {
  const map = new Map<string, string>();
  const store = {
    get: (k: string) => map.get(k),
    set: (k: string, v: string) => void map.set(k, v),
    remove: (k: string) => void map.delete(k),
  };
  const g = gotrue(() => new Response("", { status: 503 }));
  const storage = new KeyValueSessionStorage(store);
  for (
    const bad of [
      "{nope",
      '{"accessToken":"","refreshToken":"r","expiresIn":1,"user":{"id":"u"}}',
      '{"accessToken":"a","refreshToken":"r","expiresIn":-5,"user":{"id":"u"}}',
    ]
  ) {
    map.set(storage.key, bad);
    const m = createSessionManager(g.auth, g.client, { storage, autoRefresh: false });
    const r = await m.restoreSession();
    assert.equal(r.errorOrNull()?.category, "NO_SESSION", bad);
    assert.equal(m.sessionState.value.kind, "NotAuthenticated");
    m.dispose();
  }
  const expired = decodeSession({
    ...sessionJson(7),
    expires_at: Math.floor(Date.now() / 1000) - 10,
  });
  await storage.save(expired);
  const m = createSessionManager(g.auth, g.client, { storage, autoRefresh: false });
  const r = await m.restoreSession();
  assert.equal(r.ok, false);
  const state = m.sessionState.value as SessionState;
  assert.equal(state.kind, "Expired");
  if (state.kind === "Expired") assert.equal(state.lastSession.accessToken, "access-7");
  m.dispose();
  // With auto-refresh (the default) the restore refreshes it.
  const fresh = createSessionManager(gotrue().auth, g.client, { storage });
  assert.equal((await fresh.restoreSession()).getOrThrow().accessToken, "access-2");
  fresh.dispose();
});

Deno.test("events in order: sign-in → refresh → update → sign-out; listeners may call the manager; a throwing listener is isolated", async () => {
  const g = gotrue();
  const m = createSessionManager(g.auth, g.client, { autoRefresh: false });
  const events: Array<[string, string | null]> = [];
  m.onAuthStateChange(() => {
    throw new Error("bad listener");
  });
  m.onAuthStateChange((e, s) => {
    events.push([e, s?.accessToken ?? null]);
    // Re-entrant calls must not deadlock.
    void m.currentSession;
    if (e === "SIGNED_IN") void m.refreshSession();
  });
  await m.saveSession(decodeSession(sessionJson(1)));
  await new Promise((r) => setTimeout(r, 0));
  await updateUserForCurrentSession(g.auth, m, { email: "new@x.io" });
  await m.clearSession();
  assert.deepEqual(events.map((e) => e[0]), [
    "INITIAL_SESSION",
    "SIGNED_IN",
    "TOKEN_REFRESHED",
    "USER_UPDATED",
    "SIGNED_OUT",
  ]);
  assert.equal(events[2][1], "access-2");
  assert.equal(m.currentSession, null);
  m.dispose();
});

Deno.test("stopAutoRefresh, dispose and close clear timers; unsubscribe stops events", () =>
  withClock(async (clock) => {
    const g = gotrue();
    const m = createSessionManager(g.auth, g.client);
    m.startAutoRefresh();
    await m.saveSession(decodeSession(sessionJson(1, { expires_in: 120 })));
    m.stopAutoRefresh();
    await clock.tickAsync(200_000);
    assert.equal(g.grants(), 0);
    m.startAutoRefresh();
    m.close();
    await clock.tickAsync(200_000);
    assert.equal(g.grants(), 0);
    const events: string[] = [];
    const stop = m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
    stop();
    await m.clearSession();
    assert.deepEqual(events, []);
    assert.equal(clock.countTimers(), 0);
  }));

Deno.test("a refresh with no session fails with 'No active session'; blank config is refused", async () => {
  const g = gotrue();
  const m = createSessionManager(g.auth, g.client, { autoRefresh: false });
  const r = await m.refreshSession();
  assert.equal(r.errorOrNull()?.message, "No active session");
  assert.throws(
    () => createSessionManager(g.auth, g.client, { refreshBufferSeconds: -1 }),
    RangeError,
  );
  await assert.rejects(
    () => m.saveSession({ ...decodeSession(sessionJson(1)), accessToken: " " }),
    TypeError,
  );
  assert.equal(AuthStateChangeEvent.MFA_CHALLENGE_VERIFIED, "MFA_CHALLENGE_VERIFIED");
  m.dispose();
});

Deno.test("a truncated 200 is never persisted, and a refresh that never answers settles within the timeout and frees the slot", () =>
  withClock(async (clock) => {
    let hang = true;
    const rec = recordingFetch((req, n) => {
      if (n === 0) return new Response('{"access_token":"access-2","refresh_tok', { status: 200 });
      if (hang) {
        return new Promise<Response>((_resolve, reject) => {
          req.signal?.addEventListener("abort", () => reject(req.signal!.reason), { once: true });
        });
      }
      return jsonResponse(sessionJson(3));
    });
    const client = createBaseClient(BASE, KEY, {
      fetch: rec.fetch,
      timeout: 5000,
      retry: { maxAttempts: 1 },
    });
    const storage = new InMemorySessionStorage();
    const m = createSessionManager(createAuthClient(client), client, {
      storage,
      autoRefresh: false,
    });
    await m.saveSession(decodeSession(sessionJson(1)));
    const truncated = await m.refreshSession();
    assert.equal(truncated.errorOrNull()?.category, "DECODE");
    assert.equal(storage.load()?.accessToken, "access-1", "the truncated answer was not persisted");
    assert.equal(m.accessToken, "access-1");
    const waiters = [m.refreshSession(), m.refreshSession(), m.refreshSession()];
    await clock.tickAsync(5000);
    for (const r of await Promise.all(waiters)) assert.equal(r.errorOrNull()?.category, "TIMEOUT");
    assert.equal(m.accessToken, "access-1", "kept after the timeout");
    hang = false;
    assert.equal(
      (await m.refreshSession()).getOrThrow().accessToken,
      "access-3",
      "the slot was freed",
    );
    m.dispose();
  }));

Deno.test("a restored session already due for refresh is refreshed before initialize resolves (server rendering)", async () => {
  const g = gotrue();
  // A request's cookie holds a session with 30 s left, inside the 60 s buffer.
  const before = new CookieSessionStorage(null);
  before.save(decodeSession(sessionJson(1, { expires_in: 3600, expires_at: nowS() + 30 })));
  const cookie = before.setCookieHeaders().map((c) => c.split(";")[0]).join("; ");
  const storage = new CookieSessionStorage(cookie);
  const m = createSessionManager(g.auth, g.client, { storage });
  const r = await m.initialize();
  // Everything the response needs is known once initialize resolves.
  assert.equal(g.grants(), 1);
  assert.equal(r.getOrThrow().accessToken, "access-2");
  assert.ok(
    storage.setCookieHeaders().some((c) =>
      c.startsWith("__Host-fb-session=") && !/Max-Age=0/.test(c)
    ),
  );
  m.dispose();

  // A refresh that fails for now keeps the still-live stored session.
  const down = gotrue(() => new Response("", { status: 503 }));
  const m2 = createSessionManager(down.auth, down.client, {
    storage: new CookieSessionStorage(cookie),
  });
  const r2 = await m2.initialize();
  assert.equal(r2.getOrThrow().accessToken, "access-1");
  assert.equal(m2.sessionState.value.kind, "Authenticated");
  m2.dispose();

  // Outside the buffer, or without auto-refresh, nothing is sent.
  const calm = gotrue();
  const m3 = createSessionManager(calm.auth, calm.client, {
    storage: new CookieSessionStorage(cookie),
    autoRefresh: false,
  });
  assert.equal((await m3.initialize()).getOrThrow().accessToken, "access-1");
  assert.equal(calm.grants(), 0);
  m3.dispose();
});

Deno.test("an async auth listener that rejects is isolated: no unhandled rejection, events still reach the others", async () => {
  const client = createBaseClient(BASE, KEY, { fetch: () => Promise.resolve(jsonResponse({})) });
  const m = createSessionManager(createAuthClient(client), client, { autoRefresh: false });
  const events: string[] = [];
  m.onAuthStateChange(() => Promise.reject(new Error("async listener")) as unknown as void);
  m.onAuthStateChange((e) => void events.push(e), { emitInitialSession: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  await m.clearSession();
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(events, ["SIGNED_IN", "SIGNED_OUT"]);
  m.dispose();
});
