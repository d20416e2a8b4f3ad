// Every async member of the session manager takes a `signal` (the mapping's rule): it ends the
// caller's wait, never the shared work behind it, and one already aborted starts nothing.
import assert from "node:assert/strict";
import { decodeSession, type Session } from "../../auth/mod.ts";
import {
  AuthStateChangeEvent,
  createSessionManager,
  InMemorySessionStorage,
  type SessionStorage,
} from "../../session/mod.ts";
import {
  refreshCurrentSession,
  signInWithEmailAndSaveSession,
  signOutCurrentSession,
} from "../../session/mod.ts";
import { heldServer, json, sessionJson } from "./_helpers.ts";

const turns = async (n = 20) => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};

/** A storage whose every call waits until the test calls `release`. */
function gatedStorage(inner: SessionStorage = new InMemorySessionStorage()) {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const storage: SessionStorage = {
    load: () => gate.then(() => inner.load()),
    save: (s: Session) => gate.then(() => inner.save(s)),
    clear: () => gate.then(() => inner.clear()),
  };
  return { storage, release: () => open() };
}

Deno.test("refreshSession: an aborted signal ends only its caller's wait; the grant still lands", async () => {
  const s = heldServer();
  const m = createSessionManager(s.auth, s.client, { autoRefresh: false });
  await m.saveSession(decodeSession(sessionJson(1)));
  const ctl = new AbortController();
  const mine = m.refreshSession({ signal: ctl.signal });
  const other = m.refreshSession();
  await turns();
  ctl.abort();
  const r = await mine;
  assert.equal(r.errorOrNull()?.category, "CANCELLED");
  // The shared grant goes on for the other caller and is applied.
  s.find("/token").release(json(sessionJson(2)));
  assert.equal((await other).getOrThrow().refreshToken, "refresh-2");
  assert.equal(m.currentSession?.refreshToken, "refresh-2");
  assert.equal(s.client.accessToken, "access-2");
  m.dispose();
});

Deno.test("refreshSession, restoreSession and initialize with an aborted signal start nothing", async () => {
  const s = heldServer();
  const stored = new InMemorySessionStorage();
  await stored.save(decodeSession(sessionJson(1, { expires_in: 3600 })));
  let loads = 0;
  const storage: SessionStorage = {
    load: () => (loads++, stored.load()),
    save: (x) => stored.save(x),
    clear: () => stored.clear(),
  };
  const m = createSessionManager(s.auth, s.client, { autoRefresh: false, storage });
  const signal = AbortSignal.abort();
  for (const r of [await m.restoreSession({ signal }), await m.initialize({ signal })]) {
    assert.equal(r.errorOrNull()?.category, "CANCELLED");
  }
  assert.equal(loads, 0);
  assert.equal(m.sessionState.value.kind, "NotAuthenticated");
  await m.saveSession(decodeSession(sessionJson(1)));
  assert.equal((await m.refreshSession({ signal })).errorOrNull()?.category, "CANCELLED");
  await turns();
  assert.equal(s.held.length, 0, "no grant sent");
  m.dispose();
});

Deno.test("initialize: an aborted signal ends the wait on a slow storage; the restore still completes", async () => {
  const s = heldServer();
  const inner = new InMemorySessionStorage();
  await inner.save(decodeSession(sessionJson(1)));
  const { storage, release } = gatedStorage(inner);
  const m = createSessionManager(s.auth, s.client, { autoRefresh: false, storage });
  const ctl = new AbortController();
  const pending = m.initialize({ signal: ctl.signal });
  await turns();
  assert.equal(m.sessionState.value.kind, "Loading");
  ctl.abort();
  assert.equal((await pending).errorOrNull()?.category, "CANCELLED");
  release();
  await turns();
  assert.equal(m.sessionState.value.kind, "Authenticated");
  assert.equal(s.client.accessToken, "access-1");
  m.dispose();
});

Deno.test("saveSession and clearSession: an aborted signal rejects with its reason; the write goes on", async () => {
  const s = heldServer();
  const { storage, release } = gatedStorage();
  const m = createSessionManager(s.auth, s.client, { autoRefresh: false, storage });
  const events: string[] = [];
  m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
  const ctl = new AbortController();
  const saving = m.saveSession(decodeSession(sessionJson(1)), { signal: ctl.signal });
  await turns();
  ctl.abort(new Error("user left"));
  await assert.rejects(saving, /user left/);
  // Live in memory at once; the event comes when the write has landed.
  assert.equal(s.client.accessToken, "access-1");
  assert.deepEqual(events, []);
  release();
  await turns();
  assert.deepEqual(events, [AuthStateChangeEvent.SIGNED_IN]);
  assert.equal((await storage.load())?.refreshToken, "refresh-1");

  const ctl2 = new AbortController();
  const clearing = m.clearSession({ signal: ctl2.signal });
  ctl2.abort();
  await assert.rejects(clearing, (e: unknown) => (e as Error).name === "AbortError");
  await turns();
  assert.equal(m.currentSession, null);
  assert.deepEqual(events, [AuthStateChangeEvent.SIGNED_IN, AuthStateChangeEvent.SIGNED_OUT]);
  assert.equal(await storage.load(), null);
  m.dispose();
});

Deno.test("saveSession and clearSession with an aborted signal apply nothing; a signal that is no AbortSignal is a TypeError", async () => {
  const s = heldServer();
  const storage = new InMemorySessionStorage();
  const m = createSessionManager(s.auth, s.client, { autoRefresh: false, storage });
  const held = () => m.currentSession?.refreshToken ?? null;
  const signal = AbortSignal.abort();
  await assert.rejects(m.saveSession(decodeSession(sessionJson(1)), { signal }), {
    name: "AbortError",
  });
  assert.equal(held(), null);
  assert.equal(s.client.accessToken, null);
  assert.equal(await storage.load(), null);
  await m.saveSession(decodeSession(sessionJson(1)));
  await assert.rejects(m.clearSession({ signal }), { name: "AbortError" });
  assert.equal(held(), "refresh-1");
  assert.equal((await storage.load())?.refreshToken, "refresh-1");
  const notASignal = { aborted: false } as unknown as AbortSignal;
  await assert.rejects(
    m.saveSession(decodeSession(sessionJson(2)), { signal: notASignal }),
    (e: unknown) => e instanceof TypeError && /'signal' is not an AbortSignal/.test(e.message),
  );
  await assert.rejects(m.clearSession({ signal: notASignal }), TypeError);
  assert.equal(held(), "refresh-1");
  for (
    const r of [
      await m.refreshSession({ signal: notASignal }),
      await m.restoreSession({ signal: notASignal }),
    ]
  ) {
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  }
  m.dispose();
});

Deno.test("without a signal, a save or clear resolves as soon as its write lands: before the next write's event", async () => {
  const s = heldServer();
  const m = createSessionManager(s.auth, s.client, { autoRefresh: false });
  const log: string[] = [];
  m.onAuthStateChange((e) => log.push(`event ${e}`), { emitInitialSession: false });
  const saved = m.saveSession(decodeSession(sessionJson(1))).then(() => log.push("save 1"));
  const again = m.saveSession(decodeSession(sessionJson(2))).then(() => log.push("save 2"));
  await Promise.all([saved, again]);
  assert.deepEqual(log, ["save 1", "event SIGNED_IN", "save 2"]);
  log.length = 0;
  const save3 = m.saveSession(decodeSession(sessionJson(3))).then(() => log.push("save 3"));
  const clear = m.clearSession().then(() => log.push("clear"));
  await Promise.all([save3, clear]);
  assert.deepEqual(log, ["save 3", "event SIGNED_OUT", "clear"]);
  m.dispose();
});

Deno.test("the helpers' own signal ends their wait on a storage that never answers; their timeout bounds a shared refresh", async () => {
  const s = heldServer();
  const { storage } = gatedStorage(); // never released
  const m = createSessionManager(s.auth, s.client, { autoRefresh: false, storage });
  const ctl = new AbortController();
  const started = Date.now();
  const signing = signInWithEmailAndSaveSession(s.auth, m, "a@x.io", "pw", { signal: ctl.signal });
  await turns();
  s.find("/token").release(json(sessionJson(1)));
  await new Promise((r) => setTimeout(r, 20));
  ctl.abort();
  const r = await signing;
  assert.equal(r.errorOrNull()?.category, "CANCELLED");
  assert.match(r.errorOrNull()!.message, /Stopped waiting for the session storage/);
  assert.ok(Date.now() - started < 2000, "not the storage's 10 s");
  assert.equal(m.currentSession?.refreshToken, "refresh-1", "applied in memory");

  // The sign-out's clear: the same.
  const out = new AbortController();
  const signingOut = signOutCurrentSession(s.auth, m, { signal: out.signal });
  await turns();
  s.find("/logout").release(new Response(null, { status: 204 }));
  await new Promise((r) => setTimeout(r, 20));
  out.abort();
  assert.equal((await signingOut).errorOrNull()?.category, "CANCELLED");
  assert.equal(m.currentSession, null);
  m.dispose();

  // A shared refresh whose grant never answers: the helper's timeout ends its wait.
  const t = heldServer();
  const m2 = createSessionManager(t.auth, t.client, { autoRefresh: false });
  await m2.saveSession(decodeSession(sessionJson(1)));
  const refreshStarted = Date.now();
  const refreshed = await refreshCurrentSession(t.auth, m2, { timeout: 100 });
  assert.equal(refreshed.errorOrNull()?.category, "TIMEOUT");
  assert.ok(Date.now() - refreshStarted < 2000);
  t.find("/token").release(json(sessionJson(2))); // the shared grant still lands
  await turns();
  assert.equal(m2.currentSession?.refreshToken, "refresh-2");
  m2.dispose();
});

Deno.test("a storage failure holding errors out of sight (AggregateError) shows no token in its cause", async () => {
  const s = heldServer();
  const storage: SessionStorage = {
    load: () => Promise.resolve(null),
    // Two replicas refusing, each quoting what it was given.
    save: (x: Session) =>
      Promise.any([
        Promise.reject(new Error(`east: value too large: ${JSON.stringify(x)}`)),
        Promise.reject(new Error(`west: refused ${x.refreshToken}`)),
      ]).then(() => {}),
    clear: () => Promise.resolve(),
  };
  const m = createSessionManager(s.auth, s.client, { autoRefresh: false, storage });
  const signing = signInWithEmailAndSaveSession(s.auth, m, "a@x.io", "pw");
  await turns();
  s.find("/token").release(json(sessionJson(7)));
  const r = await signing;
  assert.equal(r.errorOrNull()?.category, "UNKNOWN");
  const shown = Deno.inspect(r.errorOrNull(), { depth: 10, showHidden: true });
  assert.ok(!shown.includes("access-7") && !shown.includes("refresh-7"), shown);
  assert.match(shown, /east: value too large/, "the replicas' errors are kept, redacted");
  m.dispose();
});

Deno.test("a helper's signal never drops what the server issued: aborted before the save, the session is still applied; a storage failure stays one", async () => {
  const { importAuthToken } = await import("../../session/mod.ts");
  const s = heldServer();
  const m = createSessionManager(s.auth, s.client, { autoRefresh: false });
  const r = await importAuthToken(s.auth, m, "access-9", {
    refreshToken: "refresh-9",
    expiresIn: 3600,
    retrieveUser: false,
    signal: AbortSignal.abort(),
  });
  // The storage wait is what the signal ended; the session is held.
  assert.ok(!r.ok ? r.error.category === "CANCELLED" : true, JSON.stringify(r));
  assert.equal(m.currentSession?.refreshToken, "refresh-9");
  m.dispose();
  // A storage that fails (not the abort) is reported as the storage's failure.
  const failing: SessionStorage = {
    load: () => Promise.resolve(null),
    save: () => Promise.reject(new Error("disk full")),
    clear: () => Promise.resolve(),
  };
  const t = heldServer();
  const m2 = createSessionManager(t.auth, t.client, { autoRefresh: false, storage: failing });
  const ctl = new AbortController();
  const signing = signInWithEmailAndSaveSession(t.auth, m2, "a@x.io", "pw", { signal: ctl.signal });
  await turns();
  t.find("/token").release(json(sessionJson(3)));
  const out = await signing;
  ctl.abort();
  assert.equal(out.errorOrNull()?.category, "UNKNOWN");
  m2.dispose();
});

Deno.test("user helpers pass their signal to the storage write too; a storage error's held errors stay redacted however deep or odd", async () => {
  const { getUserForCurrentSession } = await import("../../session/mod.ts");
  const s = heldServer();
  const inner = new InMemorySessionStorage();
  const m = createSessionManager(s.auth, s.client, { autoRefresh: false, storage: inner });
  await m.saveSession(decodeSession(sessionJson(1)));
  // From now on the storage never answers.
  const { storage: stuck } = gatedStorage();
  inner.save = stuck.save;
  const ctl = new AbortController();
  const started = Date.now();
  const reading = getUserForCurrentSession(s.auth, m, {
    signal: ctl.signal,
    updateStoredSession: true,
  });
  await turns();
  s.find("/user").release(json({ id: "u1", email: "b@x.io" }));
  await new Promise((r) => setTimeout(r, 20));
  ctl.abort();
  const r = await reading;
  assert.equal(r.errorOrNull()?.category, "CANCELLED");
  assert.ok(Date.now() - started < 2000);
  m.dispose();

  // Deep and odd storage errors.
  let deep: Error = new Error(`deepest refresh-5`);
  for (let i = 0; i < 8; i++) deep = new AggregateError([deep], `level ${i}`);
  const getter = new AggregateError([], "x");
  Object.defineProperty(getter, "errors", {
    get() {
      throw new Error("getter");
    },
  });
  for (const error of [deep, getter]) {
    const t = heldServer();
    const m2 = createSessionManager(t.auth, t.client, {
      autoRefresh: false,
      storage: {
        load: () => Promise.resolve(null),
        save: () => Promise.reject(error),
        clear: () => Promise.resolve(),
      },
    });
    const signing = signInWithEmailAndSaveSession(t.auth, m2, "a@x.io", "pw");
    await turns();
    t.find("/token").release(json(sessionJson(5)));
    const out = await signing;
    assert.equal(out.errorOrNull()?.category, "UNKNOWN");
    const shown = Deno.inspect(out.errorOrNull(), { depth: 20, showHidden: true });
    assert.ok(!shown.includes("refresh-5"), shown);
    m2.dispose();
  }
});

Deno.test("an already aborted signal leaves no rejection unhandled: a failing storage, a refused session and a failing clear", async () => {
  const { importAuthToken } = await import("../../session/mod.ts");
  const failing: SessionStorage = {
    load: () => Promise.resolve(null),
    save: () => Promise.reject(new Error("disk full")),
    clear: () => Promise.reject(new Error("clear failed")),
  };
  const s = heldServer();
  const m = createSessionManager(s.auth, s.client, { autoRefresh: false, storage: failing });
  const signal = AbortSignal.abort();
  const saved = await importAuthToken(s.auth, m, "access-1", {
    refreshToken: "refresh-1",
    expiresIn: 3600,
    retrieveUser: false,
    signal,
  });
  assert.equal(saved.errorOrNull()?.category, "CANCELLED");
  assert.equal(m.currentSession?.refreshToken, "refresh-1");
  // A session the manager refuses is still said so, not taken for a cancelled wait.
  const refused = await importAuthToken(s.auth, m, "access-2", {
    refreshToken: 123 as unknown as string,
    retrieveUser: false,
    signal,
  });
  assert.equal(refused.errorOrNull()?.category, "INVALID_ARGUMENT");
  const out = signOutCurrentSession(s.auth, m, { signal });
  assert.equal((await out).errorOrNull()?.category, "CANCELLED");
  // Let the failed writes settle: an unhandled rejection would fail this test.
  await new Promise((r) => setTimeout(r, 10));
  m.dispose();
});
