// Session values a JavaScript caller can hand in whatever the types say
// (found by fuzzing the public API): each is refused with a TypeError or
// RangeError naming the field before anything is applied, and a storage
// that never settles cannot freeze later sign-ins.
import assert from "node:assert/strict";
import { createAuthClient, decodeSession, type Session } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import {
  createSessionManager,
  InMemorySessionStorage,
  KeyValueSessionStorage,
  signOutCurrentSession,
  unlinkIdentityForCurrentSession,
  webStorageStore,
} from "../../session/mod.ts";
import { BASE, KEY, sessionJson, withClock } from "./_helpers.ts";

function setup(answer: () => Response = () => new Response("{}", { status: 503 })) {
  let grants = 0;
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    if (new URL(new Request(input, init).url).pathname.endsWith("/token")) grants++;
    return Promise.resolve(answer());
  };
  const client = createBaseClient(BASE, KEY, { fetch, retry: { maxAttempts: 1 }, timeout: 0 });
  return { client, auth: createAuthClient(client), grants: () => grants };
}

Deno.test("retry delays that would refresh in a tight loop are refused at construction", () => {
  const { auth, client } = setup();
  for (const name of ["retryBaseDelayMs", "retryMaxDelayMs"] as const) {
    for (const bad of [NaN, 0, -5, Infinity, "abc"]) {
      assert.throws(
        () => createSessionManager(auth, client, { [name]: bad as never }),
        (e: unknown) =>
          e instanceof RangeError && e.message.includes(`'${name}' must be a positive number`),
        `${name} = ${String(bad)}`,
      );
    }
  }
  // The smallest positive values are still taken.
  createSessionManager(auth, client, { retryBaseDelayMs: 1, retryMaxDelayMs: 1 }).dispose();
});

Deno.test("saveSession refuses lifetimes and refresh tokens that are not what a session holds, applying nothing", async () => {
  const base = decodeSession(sessionJson(1));
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ["expiresIn as a string", { expiresIn: "1" }, /'expiresIn' must be a non-negative number.*"1"/],
    ["negative expiresIn", { expiresIn: -1 }, /'expiresIn' must be a non-negative number/],
    ["NaN expiresIn", { expiresIn: NaN }, /'expiresIn'/],
    ["expiresAt as a string", { expiresAt: "soon" }, /'expiresAt' must be null or a number/],
    ["Infinity expiresAt", { expiresAt: Infinity }, /'expiresAt'/],
    ["no refresh token", { refreshToken: undefined }, /'refreshToken' must be a string/],
    ["a numeric refresh token", { refreshToken: 5 }, /'refreshToken' must be a string/],
  ];
  for (const [label, patch, message] of cases) {
    const { auth, client } = setup();
    const storage = new InMemorySessionStorage();
    const m = createSessionManager(auth, client, { storage, autoRefresh: false });
    const events: string[] = [];
    m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
    await assert.rejects(
      m.saveSession({ ...base, ...patch } as unknown as Session),
      (e: unknown) =>
        e instanceof TypeError && message.test(e.message) && !e.message.includes("access-1"),
      label,
    );
    assert.equal(client.accessToken, null, label);
    assert.notEqual(m.sessionState.value.kind, "Authenticated", label);
    assert.equal(storage.load(), null, label);
    assert.deepEqual(events, [], label);
    m.dispose();
  }
});

Deno.test("saveSession takes an absent expiresIn or expiresAt as unknown (the token or the other field decides)", async () => {
  const { auth, client } = setup();
  const m = createSessionManager(auth, client, { autoRefresh: false });
  const now = Math.floor(Date.now() / 1000);
  const { expiresIn: _, ...noIn } = decodeSession(sessionJson(1));
  await m.saveSession({ ...noIn, expiresAt: now + 600 } as unknown as Session);
  assert.equal(m.currentSession?.expiresAt, now + 600);
  assert.equal(m.currentSession?.expiresIn, 0, "an unknown lifetime, not undefined");
  await m.saveSession({ ...decodeSession(sessionJson(2)), expiresAt: undefined } as never);
  assert.ok(Math.abs((m.currentSession?.expiresAt ?? 0) - (now + 3600)) <= 1);
  m.dispose();
});

Deno.test("a storage load that never settles delays a later save by at most 10 s, in order", () =>
  withClock(async (clock) => {
    const { auth, client } = setup();
    const inner = new InMemorySessionStorage();
    const saved: string[] = [];
    const storage = {
      load: () => new Promise<Session | null>(() => {}),
      save: (s: Session) => {
        saved.push(s.accessToken);
        return inner.save(s);
      },
      clear: () => inner.clear(),
    };
    const m = createSessionManager(auth, client, { storage, autoRefresh: false });
    void m.restoreSession();
    let done = false;
    const saving = m.saveSession(decodeSession(sessionJson(1))).then(() => (done = true));
    await clock.tickAsync(9_999);
    assert.deepEqual(saved, [], "the stuck load still has its turn");
    assert.equal(done, false);
    await clock.tickAsync(1);
    await saving;
    assert.deepEqual(saved, ["access-1"]);
    assert.equal(m.sessionState.value.kind, "Authenticated");
    // A settled storage adds no wait: the next save is immediate.
    await m.saveSession(decodeSession(sessionJson(2)));
    assert.deepEqual(saved, ["access-1", "access-2"]);
    m.dispose();
  }));

Deno.test("a session without expiresIn is refreshed before its expiresAt like any other", () =>
  withClock(async (clock) => {
    const s = setup(() => Response.json(sessionJson(2)));
    const m = createSessionManager(s.auth, s.client);
    const { expiresIn: _, ...noIn } = decodeSession(sessionJson(1));
    const now = Math.floor(Date.now() / 1000);
    await m.saveSession({ ...noIn, expiresAt: now + 120 } as unknown as Session);
    await clock.tickAsync(59_000);
    assert.equal(s.grants(), 0, "not before refreshBufferSeconds ahead of expiresAt");
    await clock.tickAsync(1_000);
    assert.equal(s.grants(), 1);
    assert.equal(m.currentSession?.accessToken, "access-2");
    m.dispose();
  }));

Deno.test("a refresh whose storage save never settles resolves a Failure after 10 s with the new tokens live", () =>
  withClock(async (clock) => {
    const { auth, client } = setup(() => Response.json(sessionJson(2)));
    const inner = new InMemorySessionStorage();
    let stuck = false;
    const storage = {
      load: () => inner.load(),
      save: (s: Session) => (stuck ? new Promise<void>(() => {}) : inner.save(s)),
      clear: () => inner.clear(),
    };
    const m = createSessionManager(auth, client, { storage, autoRefresh: false });
    await m.saveSession(decodeSession(sessionJson(1)));
    stuck = true;
    let settled = false;
    const refreshing = m.refreshSession().then((r) => (settled = true, r));
    await clock.tickAsync(9_999);
    assert.equal(settled, false);
    await clock.tickAsync(1);
    const r = await refreshing;
    assert.equal(r.errorOrNull()?.category, "UNKNOWN");
    assert.match(r.errorOrNull()?.message ?? "", /could not be stored: TimeoutError/);
    assert.equal(m.accessToken, "access-2", "the spent token is not kept");
    assert.equal(client.accessToken, "access-2");
    m.dispose();
  }));

Deno.test("a KeyValueSessionStorage whose store never settles a set: the manager's callers are released after 10 s and memory stays right", () =>
  withClock(async (clock) => {
    const { auth, client } = setup();
    const storage = new KeyValueSessionStorage({
      get: () => null,
      set: () => new Promise<void>(() => {}),
      remove: () => Promise.resolve(),
    });
    const m = createSessionManager(auth, client, { storage, autoRefresh: false });
    const first = m.saveSession(decodeSession(sessionJson(1))).then(() => "saved", (e) => e.name);
    const second = m.saveSession(decodeSession(sessionJson(2))).then(() => "saved", (e) => e.name);
    await clock.tickAsync(10_000);
    assert.equal(await first, "TimeoutError");
    await clock.tickAsync(10_000);
    assert.equal(await second, "TimeoutError");
    assert.equal(m.accessToken, "access-2");
    m.dispose();
  }));

Deno.test("a slow store keeps the order of writes: a sign-out during a save that takes 12 s leaves no session stored", () =>
  withClock(async (clock) => {
    const { auth, client } = setup();
    const values = new Map<string, string>();
    const storage = new KeyValueSessionStorage({
      get: (k) => values.get(k) ?? null,
      set: (k, v) =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            values.set(k, v);
            resolve();
          }, 12_000)
        ),
      remove: (k) => void values.delete(k),
    });
    const m = createSessionManager(auth, client, { storage, autoRefresh: false });
    const saving = m.saveSession(decodeSession(sessionJson(1))).catch((e) => e.name);
    await clock.tickAsync(1_000);
    const clearing = m.clearSession().catch((e) => e.name);
    await clock.tickAsync(30_000);
    await saving;
    await clearing;
    assert.equal(values.size, 0, "the late save did not bring the session back");
    assert.equal(m.currentSession, null);
    m.dispose();
  }));

Deno.test("a session storage that throws the tokens it was given: the Failure shows neither, in message or cause", async () => {
  const { auth, client } = setup(() => Response.json(sessionJson(2)));
  const inner = new InMemorySessionStorage();
  let failing = false;
  const storage = {
    load: () => inner.load(),
    save: (s: Session) => {
      if (failing) {
        throw `cannot write ${JSON.stringify({ rt: s.refreshToken, at: s.accessToken })}`;
      }
      return inner.save(s);
    },
    clear: () => inner.clear(),
  };
  const m = createSessionManager(auth, client, { storage, autoRefresh: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  failing = true;
  const r = await m.refreshSession();
  const e = r.errorOrNull();
  assert.equal(e?.category, "UNKNOWN");
  const shown = `${e?.message} ${String(e?.cause)} ${JSON.stringify(e?.cause)}`;
  assert.ok(shown.includes("cannot write"), shown);
  for (const token of ["refresh-2", "access-2"]) assert.ok(!shown.includes(token), shown);
  m.dispose();
});

Deno.test("a custom storage whose load answers no session (a string, {}, snake_case) is read as none: restore resolves NO_SESSION, never a rejection or a stuck Loading", async () => {
  for (const value of ["oops", {}, { access_token: "a", refresh_token: "r" }, 42]) {
    const { auth, client } = setup();
    const storage = {
      load: () => Promise.resolve(value as unknown as Session),
      save: () => {},
      clear: () => {},
    };
    const m = createSessionManager(auth, client, { storage, autoRefresh: false });
    const r = await m.restoreSession();
    assert.equal(r.errorOrNull()?.category, "NO_SESSION", JSON.stringify(value));
    assert.equal(m.sessionState.value.kind, "NotAuthenticated");
    m.dispose();
  }
});

Deno.test("a session without a user (a custom storage's, a JavaScript caller's) is no session: held, it made a sign-out and a later restore throw", async () => {
  const now = Math.floor(Date.now() / 1000);
  const { user: _user, ...userless } = decodeSession(sessionJson(1));
  for (const user of [undefined, null, "u1", { email: "a@x.io" }, { id: 7 }]) {
    const value = { ...userless, expiresAt: now + 3600, user } as unknown as Session;
    const { auth, client, grants } = setup(() => new Response(null, { status: 204 }));
    // Read from a custom storage: no session, as a payload of another shape reads.
    const storage = { load: () => value, save: () => {}, clear: () => {} };
    const m = createSessionManager(auth, client, { storage, autoRefresh: false });
    const r = await m.restoreSession();
    assert.equal(r.errorOrNull()?.category, "NO_SESSION", JSON.stringify(user));
    assert.equal(m.sessionState.value.kind, "NotAuthenticated");
    assert.equal(client.accessToken, null);
    // Saved by a JavaScript caller: refused with the field named, nothing applied.
    await assert.rejects(() => m.saveSession(value), {
      name: "TypeError",
      message: "Cannot save the session as its 'user' must be an object with a string 'id'",
    });
    assert.equal(m.sessionState.value.kind, "NotAuthenticated");
    assert.equal(client.accessToken, null);
    // With nothing held, a sign-out resolves (it once rejected reading the held user's id).
    assert.ok((await signOutCurrentSession(auth, m)).ok);
    assert.equal(grants(), 0);
    m.dispose();
  }
});

Deno.test("a custom storage's session whose user fields have the wrong shape reads as none (a helper walking identities rejected)", async () => {
  const now = Math.floor(Date.now() / 1000);
  const base = decodeSession(sessionJson(1));
  const bad: Array<[string, unknown]> = [
    ["identities", { 0: { id: "i1" } }],
    ["identities", ["i1"]],
    ["identities", [[{ id: "i1" }]]],
    ["factors", "totp"],
    ["appMetadata", ["admin"]],
    ["userMetadata", 5],
  ];
  for (const [field, v] of bad) {
    const value = { ...base, expiresAt: now + 3600, user: { ...base.user, [field]: v } };
    const { auth, client, grants } = setup(() => Response.json({}));
    const storage = { load: () => value as Session, save: () => {}, clear: () => {} };
    const m = createSessionManager(auth, client, { storage, autoRefresh: false });
    const r = await m.restoreSession();
    assert.equal(r.errorOrNull()?.category, "NO_SESSION", field);
    // Nothing held, a helper that walks the user's identities answers a Failure.
    const unlinked = await unlinkIdentityForCurrentSession(auth, m, "i1");
    assert.equal(unlinked.errorOrNull()?.category, "NO_SESSION");
    // Saved by a JavaScript caller: refused with the field named.
    await assert.rejects(() => m.saveSession(value as Session), {
      name: "TypeError",
      message: new RegExp(`its user's '${field}' must be an? (list of objects|object)`),
    });
    assert.equal(grants(), 0);
    m.dispose();
  }
  // Null or absent fields are a session as before.
  const { auth, client } = setup();
  const fine = { ...base, user: { ...base.user, identities: null, factors: undefined } };
  const m = createSessionManager(auth, client, { autoRefresh: false });
  await m.saveSession(fine as unknown as Session);
  assert.equal(m.sessionState.value.kind, "Authenticated");
  m.dispose();
});

Deno.test("Web Storage handed in where a session storage belongs is refused at construction, naming the adapter", async () => {
  const { auth, client } = setup();
  const map = new Map<string, string>();
  // What supabase-js takes: localStorage itself. It failed at the first save ("save is not a function").
  const webStorage = {
    getItem: (k: string) => map.get(k) ?? null,
    setItem: (k: string, v: string) => void map.set(k, v),
    removeItem: (k: string) => void map.delete(k),
  };
  for (const bad of [webStorage, {}, 5, { save() {}, load() {} }]) {
    assert.throws(() => createSessionManager(auth, client, { storage: bad as never }), {
      name: "TypeError",
      message:
        /'storage' must have save, load and clear: wrap Web Storage as new KeyValueSessionStorage\(webStorageStore\(localStorage\)\)/,
    });
    assert.throws(() => new KeyValueSessionStorage(bad as never), {
      name: "TypeError",
      message: /'store' must have get, set and remove: wrap Web Storage as webStorageStore/,
    });
  }
  // localStorage is undefined in Workers, Deno Deploy and Node.
  assert.throws(() => webStorageStore(undefined as never), {
    name: "TypeError",
    message: /must have getItem, setItem and removeItem: current value is undefined/,
  });
  // Wrapped as the message says, it works.
  const manager = createSessionManager(auth, client, {
    storage: new KeyValueSessionStorage(webStorageStore(webStorage)),
    autoRefresh: false,
  });
  await manager.saveSession(decodeSession(sessionJson(1)));
  assert.equal(map.size, 1);
  manager.dispose();
});

Deno.test("a listener that is not a function is refused when subscribing, not isolated into silence", () => {
  const { auth, client } = setup();
  const manager = createSessionManager(auth, client, { autoRefresh: false });
  for (const bad of [undefined, null, {}, "cb"]) {
    assert.throws(() => manager.onAuthStateChange(bad as never), {
      name: "TypeError",
      message: "Cannot subscribe as 'callback' must be a function",
    });
    assert.throws(() => manager.sessionState.subscribe(bad as never), {
      name: "TypeError",
      message: "Cannot subscribe as 'listener' must be a function",
    });
  }
  const seen: string[] = [];
  manager.onAuthStateChange((event) => void seen.push(event))();
  assert.deepEqual(seen, ["INITIAL_SESSION"]);
  manager.dispose();
});
