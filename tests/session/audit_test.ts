// Findings of the spec audit of sessions: a store that cannot read signs
// nobody out; without auto-refresh a lapsed stored session is not refreshed
// behind the caller's back; a clear with no session tells subscribers nothing.
import assert from "node:assert/strict";
import { createAuthClient, decodeSession } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import {
  CookieSessionStorage,
  createSessionManager,
  KeyValueSessionStorage,
  signInWithEmailAndSaveSession,
} from "../../session/mod.ts";
import { BASE, KEY, sessionJson } from "./_helpers.ts";

function setup() {
  let grants = 0;
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    if (new URL(new Request(input, init).url).pathname.endsWith("/token")) grants++;
    return Promise.resolve(Response.json(sessionJson(2)));
  };
  const client = createBaseClient(BASE, KEY, { fetch, retry: { maxAttempts: 1 }, timeout: 0 });
  return { client, auth: createAuthClient(client), grants: () => grants };
}

function mapStore() {
  const map = new Map<string, string>();
  let failing = false;
  return {
    map,
    fail: (on: boolean) => (failing = on),
    store: {
      get: (k: string) => {
        if (failing) throw new Error("store down");
        return map.get(k) ?? null;
      },
      set: (k: string, v: string) => void map.set(k, v),
      remove: (k: string) => void map.delete(k),
    },
  };
}

Deno.test("a key-value store that fails to read keeps the held session: no SIGNED_OUT, token kept", async () => {
  const { auth, client } = setup();
  const kv = mapStore();
  const m = createSessionManager(auth, client, {
    storage: new KeyValueSessionStorage(kv.store),
    autoRefresh: false,
  });
  const events: string[] = [];
  m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  kv.fail(true);
  const r = await m.restoreSession();
  assert.equal(r.getOrThrow().accessToken, "access-1");
  assert.equal(m.sessionState.value.kind, "Authenticated");
  assert.equal(client.accessToken, "access-1");
  assert.deepEqual(events, ["SIGNED_IN"]);
  assert.equal(kv.map.size, 1, "the stored session is still there");
  m.dispose();
});

Deno.test("autoRefresh: false restores a lapsed session as Expired without spending its refresh token", async () => {
  const s = setup();
  const kv = mapStore();
  const storage = new KeyValueSessionStorage(kv.store);
  await storage.save(
    decodeSession(sessionJson(1, { expires_at: Math.floor(Date.now() / 1000) - 5 })),
  );
  const m = createSessionManager(s.auth, s.client, { storage, autoRefresh: false });
  const events: string[] = [];
  m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
  const r = await m.restoreSession();
  assert.equal(r.errorOrNull()?.category, "NO_SESSION");
  assert.match(r.errorOrNull()?.message ?? "", /expired/);
  assert.equal(s.grants(), 0);
  const state = m.sessionState.value;
  assert.equal(state.kind, "Expired");
  assert.deepEqual(events, []);
  // The caller decides: refreshSession recovers it.
  assert.equal((await m.refreshSession()).getOrThrow().accessToken, "access-2");
  assert.equal(s.grants(), 1);
  m.dispose();
});

Deno.test("clearing with no session held tells state subscribers nothing new", async () => {
  const { auth, client } = setup();
  const m = createSessionManager(auth, client, { autoRefresh: false });
  const seen: string[] = [];
  const stop = m.sessionState.subscribe((s) => seen.push(s.kind));
  await m.saveSession(decodeSession(sessionJson(1)));
  await m.clearSession();
  await m.clearSession();
  await m.clearSession();
  assert.deepEqual(seen, ["NotAuthenticated", "Authenticated", "NotAuthenticated"]);
  stop();
  m.dispose();
});

/** A manager over `storage` whose GoTrue signs in a user with 20 KB of metadata (session `n`). */
function tooLargeForCookies(n: number, storage: CookieSessionStorage) {
  const big = { ...sessionJson(n) };
  big.user = { id: `u${n}`, email: "a@x.io", user_metadata: { profile: "x".repeat(20_000) } };
  const client = createBaseClient(BASE, KEY, {
    fetch: () => Promise.resolve(Response.json(big)),
  });
  const auth = createAuthClient(client);
  return { auth, m: createSessionManager(auth, client, { storage }) };
}

Deno.test("a session too large for the cookies fails the helper with the advice in the message, not only in the cause", async () => {
  const { auth, m } = tooLargeForCookies(1, new CookieSessionStorage(null));
  const r = await signInWithEmailAndSaveSession(auth, m, "a@x.io", "pw");
  const message = r.errorOrNull()?.message ?? "";
  assert.match(message, /needs \d+ chunks and 'maxChunks' is \d+: keep less user metadata/);
  assert.ok(!message.includes("access-1") && !message.includes("refresh-1"), message);
  m.dispose();
});

Deno.test("a session too large for the cookies deletes the request's session cookies: the one before (another user's, or a spent one) does not come back", async () => {
  // The browser holds user A's session.
  const before = new CookieSessionStorage(null);
  before.save(decodeSession(sessionJson(1)));
  const cookie = before.setCookieHeaders().map((h) => h.split(";")[0]).join("; ");
  const storage = new CookieSessionStorage(cookie);
  const { auth, m } = tooLargeForCookies(2, storage);
  assert.equal((await m.restoreSession()).getOrThrow()?.refreshToken, "refresh-1");
  const r = await signInWithEmailAndSaveSession(auth, m, "b@x.io", "pw");
  assert.match(r.errorOrNull()?.message ?? "", /needs \d+ chunks/);
  assert.equal(storage.load(), null);
  // Only deletions go out, A's cookie among them.
  const headers = storage.setCookieHeaders();
  assert.ok(headers.every((h) => /Max-Age=0/.test(h)), headers.join("\n"));
  assert.ok(headers.some((h) => h.startsWith("__Host-fb-session=;")), headers.join("\n"));
  // Restored again in this request: not user A's session.
  const again = await m.restoreSession();
  assert.notEqual(again.ok && again.value?.refreshToken, "refresh-1");
  m.dispose();
});
