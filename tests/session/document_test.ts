// Session behaviour the document states in words: OTHERS keeps this device's
// session, an imported token stays a session (restored, without a refresh
// token or a known lifetime), Expired reaches a held StateFlow, allowExpired
// reads a lapsed token, nobody is signed out who was never signed in, and a
// pre-refresh token still names its session.
import assert from "node:assert/strict";
import { createAuthClient, decodeSession, SignOutScope } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import { encodeBase64Url } from "../../core/encoding.ts";
import {
  createSessionManager,
  getClaimsForCurrentSession,
  importAuthToken,
  KeyValueSessionStorage,
  type KeyValueStore,
  parseCurrentSessionJwtClaims,
  refreshTokenAndSaveSession,
  signInWithEmail,
  signOut,
  signOutCurrentSession,
  unlinkIdentityAndUpdateSession,
} from "../../session/mod.ts";
import { jsonResponse, type RecordedRequest, recordingFetch } from "../support/recording_fetch.ts";
import { BASE, KEY, sessionJson, withClock } from "./_helpers.ts";

function jwt(payload: Record<string, unknown>): string {
  const part = (o: unknown) => encodeBase64Url(JSON.stringify(o));
  return `${part({ alg: "HS256", typ: "JWT" })}.${part(payload)}.sig`;
}

/** A GoTrue whose token grant answers session 2 unless `route` answers first. */
function gotrue(route?: (req: RecordedRequest) => Response | null) {
  const rec = recordingFetch((req) => {
    const r = route?.(req);
    if (r) return r;
    if (req.url.pathname.endsWith("/token")) return jsonResponse(sessionJson(2));
    if (req.url.pathname.endsWith("/logout")) return new Response(null, { status: 204 });
    if (req.method === "DELETE") return new Response(null, { status: 204 });
    return jsonResponse({ id: "u1", email: "a@x.io" });
  });
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch, retry: { maxAttempts: 1 } });
  return { rec, client, auth: createAuthClient(client) };
}

function mapStore(): KeyValueStore & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    get: (k) => map.get(k) ?? null,
    set: (k, v) => void map.set(k, v),
    remove: (k) => void map.delete(k),
  };
}

Deno.test("sign-out with scope OTHERS keeps this device's session (manager and client helper)", async () => {
  const g = gotrue();
  const m = createSessionManager(g.auth, g.client, { autoRefresh: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  const events: string[] = [];
  m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
  assert.ok((await signOutCurrentSession(g.auth, m, { scope: SignOutScope.OTHERS })).ok);
  assert.equal(g.rec.last.url.searchParams.get("scope"), "others");
  assert.equal(m.currentSession?.accessToken, "access-1");
  assert.deepEqual(events, []);
  // A token the server no longer knows is cleared whatever the scope.
  const dead = gotrue((req) =>
    req.url.pathname.endsWith("/logout")
      ? jsonResponse({ code: "session_not_found", message: "gone" }, { status: 404 })
      : null
  );
  const m2 = createSessionManager(dead.auth, dead.client, { autoRefresh: false });
  await m2.saveSession(decodeSession(sessionJson(1)));
  assert.ok((await signOutCurrentSession(dead.auth, m2, { scope: SignOutScope.OTHERS })).ok);
  assert.equal(m2.currentSession, null);
  m.dispose();
  m2.dispose();

  const c = gotrue();
  assert.ok((await signInWithEmail(c.client, "a@x.io", "pw")).ok);
  assert.ok((await signOut(c.client, { scope: SignOutScope.OTHERS })).ok);
  assert.equal(c.client.accessToken, "access-2");
  assert.ok((await signOut(c.client)).ok);
  assert.equal(c.client.accessToken, null);
});

Deno.test("an imported token (no refresh token) is restored from storage, by this manager and the next", async () => {
  const g = gotrue();
  const store = mapStore();
  const token = jwt({ sub: "u1", exp: Math.floor(Date.now() / 1000) + 3600 });
  const storage = new KeyValueSessionStorage(store);
  const m = createSessionManager(g.auth, g.client, { autoRefresh: false, storage });
  const events: string[] = [];
  m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
  assert.ok((await importAuthToken(g.auth, m, token)).ok);
  assert.ok((await m.restoreSession()).ok);
  assert.equal(m.currentSession?.accessToken, token);
  assert.deepEqual(events, ["SIGNED_IN", "SIGNED_IN"]);
  const next = createSessionManager(g.auth, g.client, { autoRefresh: false, storage });
  assert.equal((await next.initialize()).getOrThrow().accessToken, token);
  m.dispose();
  next.dispose();
});

Deno.test("an imported token of unknown lifetime (expiresIn 0, no exp) is live, not Expired", async () => {
  const g = gotrue();
  const storage = new KeyValueSessionStorage(mapStore());
  const m = createSessionManager(g.auth, g.client, { storage });
  for (const token of ["opaque-token", jwt({ sub: "u1", role: "authenticated" })]) {
    assert.ok((await importAuthToken(g.auth, m, token, { refreshToken: "r-1" })).ok);
    assert.equal(m.currentSession?.accessToken, token);
    assert.equal(m.currentSession?.expiresAt, null);
    assert.equal(m.sessionState.value.kind, "Authenticated");
    // Restored, it is still live, and no refresh is made for an expiry nobody knows.
    assert.equal((await m.restoreSession()).getOrThrow().accessToken, token);
    assert.equal(g.rec.requests.filter((r) => r.url.pathname.endsWith("/token")).length, 0);
  }
  m.dispose();
});

Deno.test("a held sessionState flow reads Expired once the token lapsed", async () => {
  await withClock(async (clock) => {
    const g = gotrue();
    const m = createSessionManager(g.auth, g.client, { autoRefresh: false });
    const flow = m.sessionState;
    await m.saveSession(decodeSession(sessionJson(1, { expires_in: 60 })));
    assert.equal(flow.value.kind, "Authenticated");
    await clock.tickAsync(61_000);
    assert.equal(flow.value.kind, "Expired");
    const seen: string[] = [];
    flow.subscribe((s) => seen.push(s.kind))();
    assert.deepEqual(seen, ["Expired"]);
    m.dispose();
  });
});

Deno.test("with auto-refresh, subscribers hear Expired at the expiry when every refresh fails", async () => {
  await withClock(async (clock) => {
    const g = gotrue((req) =>
      req.url.pathname.endsWith("/token") ? new Response("down", { status: 503 }) : null
    );
    const m = createSessionManager(g.auth, g.client, {
      retryBaseDelayMs: 60_000,
      retryMaxDelayMs: 60_000,
    });
    const seen: Array<[string, number]> = [];
    m.sessionState.subscribe((s) => seen.push([s.kind, Date.now()]));
    const start = Date.now();
    await m.saveSession(decodeSession(sessionJson(1, { expires_in: 120 })));
    await clock.tickAsync(120_500);
    const expired = seen.find(([kind]) => kind === "Expired");
    assert.ok(expired, JSON.stringify(seen));
    assert.ok(expired[1] - start <= 120_000 + 50, `Expired at +${expired[1] - start} ms`);
    m.dispose();
  });
});

Deno.test("getClaimsForCurrentSession with allowExpired reads a lapsed session's token", async () => {
  const g = gotrue();
  const m = createSessionManager(g.auth, g.client, { autoRefresh: false });
  const now = Math.floor(Date.now() / 1000);
  const token = jwt({ sub: "u1", exp: now - 30, iat: now - 3630 });
  await m.saveSession(
    decodeSession({ ...sessionJson(1), access_token: token, expires_at: now - 30 }),
  );
  const r = await getClaimsForCurrentSession(m, g.auth, { verify: false, allowExpired: true });
  assert.equal(r.getOrThrow().claims.subject, "u1");
  const strict = await getClaimsForCurrentSession(m, g.auth, { verify: false });
  assert.equal(
    strict.errorOrNull()?.message,
    "No active session: the held session has expired and auto-refresh is off",
  );
  assert.equal(strict.errorOrNull()?.code, "session_expired");
  assert.equal(parseCurrentSessionJwtClaims(m).getOrThrow().sub, "u1");
  m.dispose();
});

Deno.test("a clear while a restore still reads storage signs nobody out", async () => {
  const g = gotrue();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const store = {
    get: async () => {
      await gate;
      return null;
    },
    set: () => {},
    remove: () => {},
  };
  const m = createSessionManager(g.auth, g.client, {
    autoRefresh: false,
    storage: new KeyValueSessionStorage(store),
  });
  const events: string[] = [];
  m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
  const init = m.initialize();
  const clear = m.clearSession();
  release();
  await init;
  await clear;
  assert.deepEqual(events, []);
  m.dispose();
});

Deno.test("unlinkIdentityAndUpdateSession updates the session a pre-refresh token belongs to", async () => {
  const sid = "sess-1";
  const body = (n: number) => ({
    ...sessionJson(n),
    access_token: jwt({ sub: "u1", session_id: sid, n, exp: 4_000_000_000 }),
  });
  // GoTrue's user after i1 is unlinked.
  const g = gotrue((req) =>
    req.url.pathname.endsWith("/token")
      ? jsonResponse(body(2))
      : req.method === "GET" && req.url.pathname.endsWith("/user")
      ? jsonResponse({ id: "u1", email: "a@x.io", identities: [{ id: "i2" }] })
      : null
  );
  const m = createSessionManager(g.auth, g.client, { autoRefresh: false });
  await m.saveSession(decodeSession(body(1)));
  const old = m.accessToken!;
  assert.ok((await m.refreshSession()).ok);
  assert.notEqual(m.accessToken, old);
  assert.ok((await unlinkIdentityAndUpdateSession(g.auth, old, "i1", m)).ok);
  assert.deepEqual(m.currentSession?.user.identities?.map((i) => i.id), ["i2"]);
  // Another session's token (another session id) leaves the held user as it is.
  const other = jwt({ sub: "u1", session_id: "sess-9", exp: 4_000_000_000 });
  assert.ok((await unlinkIdentityAndUpdateSession(g.auth, other, "i2", m)).ok);
  assert.deepEqual(m.currentSession?.user.identities?.map((i) => i.id), ["i2"]);
  m.dispose();
});

Deno.test("refreshTokenAndSaveSession takes a signal", async () => {
  const g = gotrue();
  const m = createSessionManager(g.auth, g.client, { autoRefresh: false });
  const before = g.rec.requests.length;
  const r = await refreshTokenAndSaveSession(g.auth, m, "refresh-x", {
    signal: AbortSignal.abort(),
  });
  assert.equal(r.errorOrNull()?.category, "CANCELLED");
  assert.equal(g.rec.requests.length, before);
  m.dispose();
});

Deno.test("GLOBAL and OTHERS sign-outs refresh a lapsed session first; a refused token is not reported as done", async () => {
  await withClock(async (clock) => {
    const logouts: string[] = [];
    const g = gotrue((req) => {
      if (!req.url.pathname.endsWith("/logout")) return null;
      const token = (req.headers.get("authorization") ?? "").slice(7);
      logouts.push(token);
      return token === "access-1"
        ? jsonResponse({ code: "bad_jwt", message: "invalid JWT: token is expired" }, {
          status: 403,
        })
        : new Response(null, { status: 204 });
    });
    const m = createSessionManager(g.auth, g.client, { autoRefresh: false });
    await m.saveSession(decodeSession(sessionJson(1, { expires_in: 60 })));
    await clock.tickAsync(120_000); // lapsed
    assert.ok((await signOutCurrentSession(g.auth, m, { scope: SignOutScope.OTHERS })).ok);
    // Refreshed, then the others signed out with the fresh token; this session is kept.
    assert.deepEqual(logouts, ["access-2"]);
    assert.equal(m.currentSession?.accessToken, "access-2");
    m.dispose();

    // A live-looking token the server refuses: GLOBAL revoked nothing, so it fails and keeps it.
    const m2 = createSessionManager(g.auth, g.client, { autoRefresh: false });
    await m2.saveSession(decodeSession(sessionJson(1)));
    const r = await signOutCurrentSession(g.auth, m2, { scope: SignOutScope.GLOBAL });
    assert.equal(r.errorOrNull()?.code, "bad_jwt");
    assert.equal(m2.currentSession?.accessToken, "access-1");
    // LOCAL: the server no longer knowing the token is as signed out as it gets.
    assert.ok((await signOutCurrentSession(g.auth, m2)).ok);
    assert.equal(m2.currentSession, null);
    m2.dispose();
  });
});

Deno.test("a TOKEN_REFRESHED listener asking for a refresh shares the one under way", async () => {
  let grants = 0;
  const g = gotrue((req) =>
    req.url.pathname.endsWith("/token") ? jsonResponse(sessionJson(100 + ++grants)) : null
  );
  const m = createSessionManager(g.auth, g.client, { autoRefresh: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  let fromListener: Promise<unknown> | null = null;
  m.onAuthStateChange((e) => {
    if (e === "TOKEN_REFRESHED" && !fromListener) fromListener = m.refreshSession();
  }, { emitInitialSession: false });
  assert.ok((await m.refreshSession()).ok);
  await fromListener;
  m.dispose();
  assert.equal(grants, 1);
});

Deno.test("refreshTokenAndSaveSession drops a grant answered after a sign-out or another account's sign-in", async () => {
  // Saved, the late answer signed the user back in after SIGNED_OUT, or switched the account
  // back, announced as TOKEN_REFRESHED (auth-js's commit guard drops it).
  for (const race of ["sign-out", "sign-in"]) {
    let release!: () => void;
    const gate = new Promise<void>((r) => release = r);
    let held = false;
    const g = gotrue((req) => {
      if (req.url.searchParams.get("grant_type") !== "refresh_token") return null;
      held = true;
      return gate.then(() => jsonResponse(sessionJson(2))) as unknown as Response;
    });
    const m = createSessionManager(g.auth, g.client, { autoRefresh: false });
    await m.saveSession(decodeSession(sessionJson(1)));
    const events: string[] = [];
    m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
    const pending = refreshTokenAndSaveSession(g.auth, m, "refresh-from-a-link");
    while (!held) await new Promise((r) => setTimeout(r, 1));
    if (race === "sign-out") assert.ok((await signOutCurrentSession(g.auth, m)).ok);
    else {
      await m.saveSession(
        decodeSession({ ...sessionJson(3), user: { id: "u2", email: "b@x.io" } }),
      );
    }
    release();
    const r = await pending;
    assert.equal(r.errorOrNull()?.category, "CANCELLED", race);
    assert.equal(m.currentSession?.user.id ?? null, race === "sign-out" ? null : "u2");
    assert.deepEqual(events, [race === "sign-out" ? "SIGNED_OUT" : "SIGNED_IN"]);
    m.dispose();
  }
});
