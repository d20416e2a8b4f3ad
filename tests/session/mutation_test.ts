/**
 * Tests added by a mutation audit of `session/`: each pins a documented or
 * user-visible behaviour that a one-line change to the sources left unnoticed.
 */

import assert from "node:assert/strict";
import { createAuthClient, decodeSession } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import { encodeBase64Url } from "../../core/encoding.ts";
import { success } from "../../core/result.ts";
import {
  CookieSessionStorage,
  createSessionManager,
  DEFAULT_KEY,
  getUserForCurrentSession,
  importAuthToken,
  InMemorySessionStorage,
  KeyValueSessionStorage,
  mfaVerifyAndSaveSession,
  refreshTokenAndSaveSession,
  type SessionManager,
  signInWith,
  signOutCurrentSession,
  signUpWithEmailAndSaveSession,
  signUpWithPhoneAndSaveSession,
  unlinkIdentityAndUpdateSession,
} from "../../session/mod.ts";
import { jsonResponse, type RecordedRequest, recordingFetch } from "../support/recording_fetch.ts";
import { BASE, KEY, sessionJson, withClock } from "./_helpers.ts";

const nowS = () => Math.floor(Date.now() / 1000);

/** A GoTrue stand-in: refresh grants rotate tokens unless `fault` answers instead. */
function gotrue(fault?: (req: RecordedRequest, grant: number) => Response | null) {
  let grants = 0;
  const rec = recordingFetch((req) => {
    if (req.url.pathname.endsWith("/token")) {
      grants++;
      return fault?.(req, grants) ?? jsonResponse(sessionJson(grants + 1));
    }
    if (req.url.pathname.endsWith("/logout")) return new Response(null, { status: 204 });
    return jsonResponse({ id: "u1", email: "a@x.io" });
  });
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch, retry: { maxAttempts: 1 } });
  return { rec, client, auth: createAuthClient(client), grants: () => grants };
}

Deno.test("the default refresh backoff starts at 1 s: a failed refresh is retried within a second", () =>
  withClock(async (clock) => {
    const g = gotrue((_req, n) => (n === 1 ? new Response("", { status: 503 }) : null));
    // Defaults: autoRefresh on, retryBaseDelayMs 1000 (1 s doubling, half of it jitter).
    const m = createSessionManager(g.auth, g.client);
    await m.saveSession(decodeSession({ ...sessionJson(1), expires_at: nowS() + 61 }));
    await clock.tickAsync(1_000);
    assert.equal(g.grants(), 1, "refreshed 60 s before the expiry");
    assert.equal(m.accessToken, "access-1", "a 503 keeps the session");
    await clock.tickAsync(1_000);
    assert.equal(g.grants(), 2, "the first retry waits at most 1 s");
    assert.equal(m.accessToken, "access-3");
    m.dispose();
  }));

for (
  const [label, body, status] of [
    ["code session_expired", { code: "session_expired", message: "Session Expired" }, 403],
    ["code user_banned", { code: "user_banned", message: "User is banned" }, 403],
    ["a 403 saying 'Invalid Refresh Token' (no code)", {
      message: "Invalid Refresh Token: Refresh Token Not Found",
    }, 403],
    ["a 400 saying 'invalid grant' (no code)", { message: "Invalid grant" }, 400],
  ] as const
) {
  Deno.test(`a refresh answered with ${label} ends the session (SIGNED_OUT), no retry`, () =>
    withClock(async (clock) => {
      const g = gotrue(() => jsonResponse(body, { status }));
      const storage = new InMemorySessionStorage();
      const m = createSessionManager(g.auth, g.client, { storage });
      const events: string[] = [];
      m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
      await m.saveSession(decodeSession(sessionJson(1)));
      const r = await m.refreshSession();
      assert.equal(r.ok, false);
      assert.equal(m.sessionState.value.kind, "NotAuthenticated");
      assert.equal(g.client.accessToken, null);
      assert.equal(storage.load(), null);
      assert.deepEqual(events, ["SIGNED_IN", "SIGNED_OUT"]);
      await clock.tickAsync(120_000);
      assert.equal(g.grants(), 1, "an ended session is not retried");
      m.dispose();
    }));
}

Deno.test("a refresh answer without expires_in keeps the session and reports a Failure", async () => {
  const g = gotrue(() => {
    const { expires_in: _, expires_at: __, ...rest } = sessionJson(2);
    return jsonResponse(rest);
  });
  const m = createSessionManager(g.auth, g.client, { autoRefresh: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  const r = await m.refreshSession();
  assert.equal(r.errorOrNull()?.category, "DECODE");
  assert.equal(m.accessToken, "access-1");
  assert.equal(g.client.accessToken, "access-1");
  m.dispose();
});

Deno.test("initialize() restarts auto-refresh after stopAutoRefresh()", () =>
  withClock(async (clock) => {
    const g = gotrue();
    const storage = new InMemorySessionStorage();
    storage.save(decodeSession({ ...sessionJson(1), expires_at: nowS() + 120 }));
    const m = createSessionManager(g.auth, g.client, { storage });
    m.stopAutoRefresh();
    const r = await m.initialize();
    assert.equal(r.getOrThrow().accessToken, "access-1");
    await clock.tickAsync(60_000);
    assert.equal(g.grants(), 1, "refreshed 60 s before the expiry, as initialize starts it");
    assert.equal(m.accessToken, "access-2");
    m.dispose();
  }));

Deno.test("dispose() takes back only the token it applied: a token set since stays", async () => {
  const g = gotrue();
  const m = createSessionManager(g.auth, g.client, { autoRefresh: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  assert.equal(g.client.accessToken, "access-1");
  g.client.setAccessToken("next-request-token");
  m.dispose();
  assert.equal(g.client.accessToken, "next-request-token");

  const own = createSessionManager(g.auth, g.client, { autoRefresh: false });
  await own.saveSession(decodeSession(sessionJson(2)));
  own.dispose();
  assert.equal(g.client.accessToken, null, "its own token is taken back");
});

Deno.test("a disposed manager calls no auth state listener any more", async () => {
  const g = gotrue();
  const m = createSessionManager(g.auth, g.client, { autoRefresh: false });
  const events: string[] = [];
  m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  m.dispose();
  await m.clearSession();
  await m.saveSession(decodeSession(sessionJson(2)));
  assert.deepEqual(events, ["SIGNED_IN"]);
});

Deno.test("clearing an Expired session emits SIGNED_OUT", () =>
  withClock(async (clock) => {
    const g = gotrue();
    const m = createSessionManager(g.auth, g.client, { autoRefresh: false });
    const events: string[] = [];
    m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
    await m.saveSession(decodeSession({ ...sessionJson(1), expires_at: nowS() + 30 }));
    await clock.tickAsync(31_000);
    assert.equal(m.sessionState.value.kind, "Expired");
    await m.clearSession();
    assert.equal(m.sessionState.value.kind, "NotAuthenticated");
    assert.deepEqual(events, ["SIGNED_IN", "SIGNED_OUT"]);
    assert.equal(g.grants(), 0);
    m.dispose();
  }));

Deno.test("refreshSession of a session without a refresh token is NO_SESSION, with no request", async () => {
  const g = gotrue();
  const m = createSessionManager(g.auth, g.client);
  await m.saveSession(decodeSession({ ...sessionJson(1), refresh_token: "" }));
  const r = await m.refreshSession();
  assert.equal(r.errorOrNull()?.category, "NO_SESSION");
  assert.equal(r.errorOrNull()?.message, "The session has no refresh token");
  assert.equal(g.rec.requests.length, 0);
  assert.equal(m.accessToken, "access-1");
  m.dispose();
});

Deno.test("stored sessions round-trip provider tokens and isAnonymous; a missing tokenType is bearer", async () => {
  const values = new Map<string, string>();
  const store = {
    get: (k: string) => values.get(k) ?? null,
    set: (k: string, v: string) => void values.set(k, v),
    remove: (k: string) => void values.delete(k),
  };
  const storage = new KeyValueSessionStorage(store);
  await storage.save(decodeSession({
    ...sessionJson(1),
    provider_token: "prov-a",
    provider_refresh_token: "prov-r",
    user: { id: "u1", is_anonymous: true },
  }));
  const back = await storage.load();
  assert.equal(back?.providerToken, "prov-a");
  assert.equal(back?.providerRefreshToken, "prov-r");
  assert.equal(back?.user.isAnonymous, true);
  assert.equal(back?.tokenType, "bearer");

  const raw = JSON.parse(values.get(DEFAULT_KEY)!);
  delete raw.tokenType;
  values.set(DEFAULT_KEY, JSON.stringify(raw));
  assert.equal((await storage.load())?.tokenType, "bearer");
});

Deno.test("session cookies default to Max-Age 400 days, Path=/, SameSite=Lax, Secure, HttpOnly", () => {
  const storage = new CookieSessionStorage(null);
  storage.save(decodeSession(sessionJson(1)));
  const [cookie] = storage.setCookieHeaders();
  assert.match(cookie, /^__Host-fb-session=/);
  const attrs = cookie.split("; ").slice(1);
  assert.deepEqual(attrs, [
    "Path=/",
    `Max-Age=${400 * 24 * 3600}`,
    "SameSite=Lax",
    "Secure",
    "HttpOnly",
  ]);
});

Deno.test("a cookie domain option is written as the Domain attribute of every cookie but the host-only deletions", () => {
  const storage = new CookieSessionStorage(null, { domain: "example.com", maxChunks: 50 });
  storage.save(decodeSession(sessionJson(1)));
  const withDomain = (list: string[]) =>
    list.filter((c) => !(c.includes("Max-Age=0") && !c.includes("Domain=")));
  const cookies = withDomain(storage.setCookieHeaders());
  assert.ok(cookies.length > 1, "the session cookie and deletions of stale chunk names");
  for (const c of cookies) assert.ok(c.split("; ").includes("Domain=example.com"), c);
  // The host-only deletions are one per name, none of them a session cookie.
  assert.equal(storage.setCookieHeaders().length - cookies.length, 51);
  storage.clear();
  for (const c of withDomain(storage.setCookieHeaders())) {
    assert.ok(c.split("; ").includes("Domain=example.com"), c);
  }
});

/** The URL-encoded JSON of a stored session, as the cookie storage writes it. */
function cookieValue(n: number): string {
  const storage = new CookieSessionStorage(null, { chunkSize: 3000 });
  storage.save(decodeSession(sessionJson(n)));
  const [cookie] = storage.setCookieHeaders();
  return cookie.slice("__Host-fb-session=".length, cookie.indexOf(";"));
}

Deno.test("a session just over one chunk is split with the chunk count in chunk 0", () => {
  const length = cookieValue(1).length;
  const chunkSize = Math.ceil(length * 0.75);
  const storage = new CookieSessionStorage(null, { chunkSize, maxChunks: 4 });
  storage.save(decodeSession(sessionJson(1)));
  const written = storage.setCookieHeaders().filter((c) => !c.includes("Max-Age=0"));
  assert.deepEqual(written.map((c) => c.slice(0, c.indexOf("="))), [
    "__Host-fb-session.0",
    "__Host-fb-session.1",
  ]);
  for (const c of written) {
    assert.ok(c.indexOf(";") - c.indexOf("=") - 1 <= chunkSize, "no cookie value over chunkSize");
  }
  assert.ok(written[0].startsWith("__Host-fb-session.0=2."), written[0]);
});

Deno.test("a session needing more than maxChunks cookies makes save throw a RangeError", () => {
  const length = cookieValue(1).length;
  const storage = new CookieSessionStorage(null, {
    chunkSize: Math.ceil(length * 0.75),
    maxChunks: 1,
  });
  assert.throws(() => storage.save(decodeSession(sessionJson(1))), RangeError);
  // Nothing of the refused session goes out: only deletions of the request's session cookies.
  const headers = storage.setCookieHeaders();
  assert.ok(
    headers.length > 0 && headers.every((h) => /=; .*Max-Age=0/.test(h)),
    headers.join("\n"),
  );
  assert.equal(storage.load(), null);
});

Deno.test("counted chunks with one missing read as no session, even if the rest parses", () => {
  const value = cookieValue(1);
  const half = Math.floor(value.length / 2);
  // Chunk 0 says three chunks; the first two already hold the whole session; chunk 2 is gone.
  const header = `__Host-fb-session.0=3.${value.slice(0, half)}; __Host-fb-session.1=${
    value.slice(half)
  }`;
  assert.equal(new CookieSessionStorage(header).load(), null);
  const complete = `__Host-fb-session.0=2.${value.slice(0, half)}; __Host-fb-session.1=${
    value.slice(half)
  }`;
  assert.equal(new CookieSessionStorage(complete).load()?.accessToken, "access-1");
});

Deno.test("default cookie options hold a session of about 12.4 KiB (4 chunks of 3180)", () => {
  const big = (pad: number) =>
    decodeSession({
      ...sessionJson(1),
      user: { id: "u1", user_metadata: { pad: "x".repeat(pad) } },
    });
  const probe = new CookieSessionStorage(null, { maxChunks: 50 });
  // Mostly ASCII: written percent-encoded (with `*`), a character for each character of padding.
  probe.save(big(1000));
  const base = probe.setCookieHeaders()[0].indexOf(";") - "__Host-fb-session=".length - 1000;
  // Encoded value of 12,700 characters: the count prefix "4." still fits in 4 * 3180.
  const storage = new CookieSessionStorage(null);
  storage.save(big(12_700 - base));
  const written = storage.setCookieHeaders().filter((c) => !c.includes("Max-Age=0"));
  assert.equal(written.length, 4);
  const value = (c: string) => c.slice(c.indexOf("=") + 1, c.indexOf(";"));
  assert.equal(value(written[0]).length, 3180);
  assert.ok(value(written[0]).startsWith("4."));
  // Text of another script goes as base64url (4 characters for 3 bytes, where percent-encoding
  // takes 6 for each 2-byte letter): 4,000 of them fit, which percent-encoded took 24,000.
  const accented = decodeSession({
    ...sessionJson(1),
    user: { id: "u1", user_metadata: { bio: "é".repeat(4000) } },
  });
  const other = new CookieSessionStorage(null);
  other.save(accented);
  const kept = other.setCookieHeaders().filter((c) => !c.includes("Max-Age=0"));
  assert.equal(kept.length, 4);
  assert.ok(value(kept[0]).startsWith("4.base64-"));
  const back = new CookieSessionStorage(kept.map((c) => c.split(";")[0]).join("; ")).load();
  assert.equal((back?.user.userMetadata as { bio: string }).bio, "é".repeat(4000));
});

/** A manager over an auth client whose every request `answer` answers. */
function managed(answer: (req: RecordedRequest) => Response) {
  const rec = recordingFetch(answer);
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch, retry: { maxAttempts: 1 } });
  const auth = createAuthClient(client);
  const storage = new InMemorySessionStorage();
  const m = createSessionManager(auth, client, { autoRefresh: false, storage });
  const events: string[] = [];
  m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
  return { rec, client, auth, storage, m, events };
}

Deno.test("sign-up ...AndSaveSession with confirmation pending: Success, nothing saved or emitted", async () => {
  const t = managed(() => jsonResponse({ id: "u-new", email: "new@x.io", phone: "" }));
  const email = await signUpWithEmailAndSaveSession(t.auth, t.m, "new@x.io", "pw");
  assert.equal(email.getOrThrow().accessToken, "");
  assert.equal(email.getOrThrow().user.id, "u-new");
  const phone = await signUpWithPhoneAndSaveSession(t.auth, t.m, "+15550100", "pw");
  assert.equal(phone.getOrThrow().accessToken, "");
  assert.equal(t.m.sessionState.value.kind, "NotAuthenticated");
  assert.equal(t.storage.load(), null);
  assert.equal(t.client.accessToken, null);
  assert.deepEqual(t.events, []);
  t.m.dispose();
});

Deno.test("refreshTokenAndSaveSession with a token the manager does not hold emits TOKEN_REFRESHED", async () => {
  const t = managed(() => jsonResponse(sessionJson(7)));
  const r = await refreshTokenAndSaveSession(t.auth, t.m, "refresh-from-elsewhere");
  assert.equal(r.getOrThrow().accessToken, "access-7");
  assert.deepEqual(t.rec.only.json(), { refresh_token: "refresh-from-elsewhere" });
  assert.equal(t.m.accessToken, "access-7");
  assert.deepEqual(t.events, ["TOKEN_REFRESHED"]);
  t.m.dispose();
});

for (const code of ["session_not_found", "user_not_found"]) {
  Deno.test(`a GLOBAL sign-out answered 403 ${code} counts as signed out`, async () => {
    const t = managed(() => jsonResponse({ code, message: "gone" }, { status: 403 }));
    await t.m.saveSession(decodeSession(sessionJson(1)));
    const r = await signOutCurrentSession(t.auth, t.m, { scope: "global" });
    assert.equal(r.ok, true);
    assert.equal(t.rec.only.url.searchParams.get("scope"), "global");
    assert.equal(t.m.sessionState.value.kind, "NotAuthenticated");
    assert.equal(t.storage.load(), null);
    assert.deepEqual(t.events, ["SIGNED_IN", "SIGNED_OUT"]);
    t.m.dispose();
  });
}

Deno.test("a GLOBAL sign-out refused 403 without an ended-session code keeps the session", async () => {
  const t = managed(() =>
    jsonResponse({ code: "bad_jwt", message: "invalid JWT" }, { status: 403 })
  );
  await t.m.saveSession(decodeSession(sessionJson(1)));
  const r = await signOutCurrentSession(t.auth, t.m, { scope: "global" });
  assert.equal(r.errorOrNull()?.status, 403);
  assert.equal(t.m.accessToken, "access-1");
  t.m.dispose();
});

function jwt(payload: Record<string, unknown>): string {
  const part = (o: unknown) => encodeBase64Url(JSON.stringify(o));
  return `${part({ alg: "HS256", typ: "JWT" })}.${part(payload)}.sig`;
}

Deno.test("importAuthToken keeps the given refreshToken and expiresIn", () =>
  withClock(async () => {
    const t = managed(() => jsonResponse({ id: "u1" }));
    const r = await importAuthToken(t.auth, t.m, "opaque-token", {
      refreshToken: "refresh-imported",
      expiresIn: 3600,
      tokenType: "bearer",
    });
    const s = r.getOrThrow();
    assert.equal(s.refreshToken, "refresh-imported");
    assert.equal(s.expiresIn, 3600);
    assert.equal(s.expiresAt, nowS() + 3600);
    assert.equal(t.m.currentSession?.refreshToken, "refresh-imported");
    assert.equal(t.m.currentSession?.expiresAt, nowS() + 3600);
    t.m.dispose();
  }));

Deno.test("importAuthToken takes the token's exp over now + expiresIn", () =>
  withClock(async () => {
    const t = managed(() => jsonResponse({ id: "u1" }));
    const exp = nowS() + 100;
    const token = jwt({ sub: "u1", exp });
    const s = (await importAuthToken(t.auth, t.m, token, { expiresIn: 3600 })).getOrThrow();
    assert.equal(s.expiresAt, exp);
    assert.equal(t.m.currentSession?.expiresAt, exp);
    const unknown = (await importAuthToken(t.auth, t.m, jwt({ sub: "u1", exp }))).getOrThrow();
    assert.equal(unknown.expiresAt, exp, "expiresIn 0: the token's exp");
    t.m.dispose();
  }));

Deno.test("getUserForCurrentSession does not write its user into a session that replaced it meanwhile", async () => {
  let m: SessionManager | null = null;
  const t = managed((req) => {
    if (req.url.pathname.endsWith("/user")) {
      // Another user signs in while the request is under way.
      void m!.saveSession(
        decodeSession({ ...sessionJson(2), user: { id: "u2", email: "b@x.io" } }),
      );
      return jsonResponse({ id: "u1", email: "changed@x.io" });
    }
    return jsonResponse({});
  });
  m = t.m;
  await t.m.saveSession(decodeSession(sessionJson(1)));
  const r = await getUserForCurrentSession(t.auth, t.m, { updateStoredSession: true });
  assert.equal(r.getOrThrow().id, "u1");
  assert.equal(t.m.currentSession?.accessToken, "access-2");
  assert.equal(t.m.currentSession?.user.id, "u2");
  assert.equal(t.storage.load()?.user.email, "b@x.io");
  assert.ok(!t.events.includes("USER_UPDATED"));
  t.m.dispose();
});

Deno.test("unlinkIdentityAndUpdateSession recognises another token of the held user (no session id)", async () => {
  const t = managed(() => new Response(null, { status: 204 }));
  await t.m.saveSession(
    decodeSession({ ...sessionJson(1), access_token: jwt({ sub: "u1", n: 1 }) }),
  );
  const r = await unlinkIdentityAndUpdateSession(t.auth, jwt({ sub: "u1", n: 2 }), "i2", t.m);
  assert.equal(r.ok, true);
  assert.deepEqual(t.storage.load()?.user.identities?.map((i) => i.id), ["i1"]);
  const other = await unlinkIdentityAndUpdateSession(t.auth, jwt({ sub: "u9" }), "i1", t.m);
  assert.equal(other.ok, true);
  assert.deepEqual(t.storage.load()?.user.identities?.map((i) => i.id), ["i1"], "not u9's");
  t.m.dispose();
});

Deno.test("mfaVerifyAndSaveSession saves nothing when the same user signed in again meanwhile (another session_id)", async () => {
  let m: SessionManager | null = null;
  const t = managed((req) => {
    if (req.url.pathname.endsWith("/verify")) {
      void m!.saveSession(decodeSession({
        ...sessionJson(2),
        access_token: jwt({ sub: "u1", session_id: "sid-B" }),
      }));
      return jsonResponse({
        ...sessionJson(3),
        access_token: jwt({ sub: "u1", session_id: "sid-A", aal: "aal2" }),
      });
    }
    return jsonResponse({});
  });
  m = t.m;
  await t.m.saveSession(decodeSession({
    ...sessionJson(1),
    access_token: jwt({ sub: "u1", session_id: "sid-A" }),
  }));
  const r = await mfaVerifyAndSaveSession(t.auth, t.m, "factor-1", "challenge-1", "123456");
  assert.equal(r.errorOrNull()?.category, "CANCELLED");
  assert.equal(t.m.currentSession?.refreshToken, "refresh-2");
  assert.ok(!t.events.includes("MFA_CHALLENGE_VERIFIED"));
  t.m.dispose();
});

Deno.test("signInWith an already aborted signal starts no native flow", async () => {
  const t = managed(() => jsonResponse(sessionJson(1)));
  let started = 0;
  const provider = {
    provider: "google" as const,
    signIn: () => {
      started++;
      return Promise.resolve(success({ provider: "google" as const, idToken: "id.token" }));
    },
  };
  const r = await signInWith(t.auth, provider, { signal: AbortSignal.abort() });
  assert.equal(r.errorOrNull()?.category, "CANCELLED");
  assert.equal(started, 0);
  assert.equal(t.rec.requests.length, 0);
  t.m.dispose();
});

Deno.test("restoreSession reports Loading while storage is read", async () => {
  const t = managed(() => jsonResponse({}));
  let release: ((s: ReturnType<typeof decodeSession> | null) => void) | null = null;
  const slow = {
    save: () => {},
    clear: () => {},
    load: () => new Promise<ReturnType<typeof decodeSession> | null>((r) => (release = r)),
  };
  const m = createSessionManager(t.auth, t.client, { storage: slow, autoRefresh: false });
  const pending = m.restoreSession();
  assert.equal(m.sessionState.value.kind, "Loading");
  for (let i = 0; i < 10 && release === null; i++) await Promise.resolve();
  assert.equal(m.sessionState.value.kind, "Loading", "still reading");
  release!(decodeSession(sessionJson(1)));
  assert.equal((await pending).getOrThrow().accessToken, "access-1");
  assert.equal(m.sessionState.value.kind, "Authenticated");
  m.dispose();
  t.m.dispose();
});

Deno.test("importAuthToken of a whitespace token is INVALID_ARGUMENT, with no request", async () => {
  const t = managed(() => jsonResponse({ id: "u1" }));
  for (const retrieveUser of [true, false]) {
    const r = await importAuthToken(t.auth, t.m, "   ", { retrieveUser });
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  }
  assert.equal(t.rec.requests.length, 0);
  assert.equal(t.m.sessionState.value.kind, "NotAuthenticated");
  t.m.dispose();
});

Deno.test("mfaVerifyAndSaveSession saves an AAL2 session with null provider tokens and emits MFA_CHALLENGE_VERIFIED", async () => {
  const t = managed((req) =>
    req.url.pathname.endsWith("/verify") ? jsonResponse(sessionJson(2)) : jsonResponse({})
  );
  await t.m.saveSession(decodeSession({ ...sessionJson(1), provider_token: "prov-1" }));
  const r = await mfaVerifyAndSaveSession(t.auth, t.m, "factor-1", "challenge-1", "123456");
  assert.equal(r.getOrThrow().accessToken, "access-2");
  assert.equal(t.m.currentSession?.providerToken, null);
  assert.equal(t.m.currentSession?.providerRefreshToken, null);
  assert.deepEqual(t.events, ["SIGNED_IN", "MFA_CHALLENGE_VERIFIED"]);
  t.m.dispose();
});
