// Session storages against slow, failing or hostile stores and headers.
import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { createAuthClient, decodeSession } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import { MutableStateFlow } from "../../core/state_flow.ts";
import {
  CookieSessionStorage,
  createSessionManager,
  DEFAULT_KEY,
  KeyValueSessionStorage,
  namespaceStore,
  parseStoredSession,
  serializeSession,
  type SessionStorage,
  webStorageStore,
} from "../../session/mod.ts";
import type { Session } from "../../auth/models.ts";

const sessionBody = {
  access_token: "header.payload.signature",
  refresh_token: "refresh-1",
  expires_in: 3600,
  expires_at: 2_000_000_000,
  user: {
    id: "u1",
    email: "a@x.io",
    user_metadata: { email: "meta@x.io", phone: "+15550100" },
    identities: [{ id: "i1", identity_id: "i1", identity_data: { email: "id@x.io" } }],
  },
};
const session = decodeSession(sessionBody);

/** A session like `session` with another refresh token and user, valid for an hour from now. */
function sessionWith(refreshToken: string, userId = "u1"): Session {
  return decodeSession({
    ...JSON.parse(JSON.stringify(sessionBody)),
    refresh_token: refreshToken,
    expires_at: Math.floor(Date.now() / 1000) + 3600,
    user: { id: userId },
  });
}

/** A manager without auto-refresh over `storage`, its auth calls answered by `fetch`. */
function managerOver(storage: SessionStorage, fetch?: typeof globalThis.fetch) {
  const c = createBaseClient("https://p.example", "anon-key-0123456789", fetch ? { fetch } : {});
  return createSessionManager(createAuthClient(c), c, { storage, autoRefresh: false });
}

/** A refresh answer of `sessionBody` with these fields. */
function refreshAnswer(fields: Record<string, unknown>): Response {
  return new Response(JSON.stringify({ ...sessionBody, ...fields }), {
    headers: { "content-type": "application/json" },
  });
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("a clear is never overtaken by an earlier, slower save", async () => {
  const data = new Map<string, string>();
  const storage = new KeyValueSessionStorage(namespaceStore({
    get: (k) => Promise.resolve(data.get(k) ?? null),
    put: async (k, v) => {
      await delay(30);
      data.set(k, v);
    },
    delete: async (k) => {
      await delay(1);
      data.delete(k);
    },
  }));
  const saving = storage.save(session);
  await storage.clear();
  await saving;
  assert.equal(await storage.load(), null);
});

Deno.test("renderings hide emails and phones at any depth, and tokens of plain sessions once held", () => {
  for (const text of [String(session), Deno.inspect(session, { depth: 10 })]) {
    assert.doesNotMatch(text, /a@x\.io|meta@x\.io|id@x\.io|15550100|payload|refresh-1/);
  }
  const s = createBaseClient("https://p.example", "anon-key-0123456789");
  const m = createSessionManager(createAuthClient(s), s, { autoRefresh: false });
  const plain = JSON.parse(JSON.stringify(session)) as Session; // no masking attached
  return m.saveSession(plain).then(() => {
    assert.doesNotMatch(Deno.inspect(m.currentSession, { depth: 10 }), /payload|refresh-1/);
    m.dispose();
  });
});

Deno.test("stored payloads with mistyped fields are no session", () => {
  const base = JSON.parse(serializeSession(session));
  for (
    const patch of [
      { user: { ...base.user, appMetadata: "str" } },
      { user: { ...base.user, identities: [null] } },
      { user: { ...base.user, factors: [7] } },
      { user: { ...base.user, userMetadata: [1] } },
      { expiresAt: 1e999 },
    ]
  ) {
    const text = JSON.stringify({ ...base, ...patch }).replace(
      '"expiresAt":null',
      '"expiresAt":1e999',
    );
    assert.equal(parseStoredSession(text), null, JSON.stringify(patch).slice(0, 60));
  }
  assert.ok(parseStoredSession(serializeSession(session)));
});

Deno.test("cookie headers: first duplicate wins, quoted values, joined headers; a prefixed name never comes from after a comma", () => {
  // A plain name (a configuration with a domain, say): the default is prefixed.
  const plain = { name: "fb-session" };
  const out = new CookieSessionStorage(null, plain);
  out.save(session);
  const value = out.setCookieHeaders()[0].split(";")[0].split("=").slice(1).join("=");
  for (
    const header of [
      `fb-session=${value}; fb-session=junk`,
      `fb-session="${value}"`,
      `a=1;fb-session=${value}`,
      // Several Cookie headers joined with ", " (workerd's Headers).
      `a=1, fb-session=${value}`,
    ]
  ) {
    const loaded = new CookieSessionStorage(header, plain).load();
    assert.equal(loaded?.refreshToken, "refresh-1", header.slice(0, 40));
  }
  // A cookie another origin may set (a sibling subdomain, plain http) cannot carry a session
  // inside its value past the __Host- prefix (found by a security review).
  const planted = new CookieSessionStorage(`pref=x,__Host-s=${value}`, { name: "__Host-s" });
  assert.equal(planted.load(), null);
  for (const name of ["__Secure-s", "__SECURE-s", "__host-s"]) {
    const carried = new CookieSessionStorage(`pref=x,${name}=${value}`, { name } as never);
    assert.equal(carried.load(), null, name);
  }
  const both = new CookieSessionStorage(`pref=x,__Host-s=junk; __Host-s=${value}`, {
    name: "__Host-s",
  });
  assert.equal(both.load()?.refreshToken, "refresh-1");
});

Deno.test("cookie options that browsers would drop are refused at once", () => {
  for (
    const options of [
      { chunkSize: 100_000 },
      { maxAge: -5.5 },
      { sameSite: "None" as const, secure: false },
      { name: "x".repeat(300) },
      { name: "bad name" },
      // Not strings: a number passed the pattern as its text, a symbol made the check throw.
      { name: 5 as never },
      { name: Symbol("s") as never },
      { maxAge: 0 },
      { name: "__Host-s", domain: "example.com" },
      { name: "__Host-s", path: "/app" },
      { name: "__Host-s", secure: false },
      { name: "__Secure-s", secure: false },
      { maxChunks: 0 },
      { maxChunks: 2.5 },
    ]
  ) {
    assert.throws(
      () => new CookieSessionStorage(null, options),
      RangeError,
      String(options.name ?? JSON.stringify(options)),
    );
  }
  assert.ok(new CookieSessionStorage(null, { sameSite: "None", secure: true }));
  assert.ok(new CookieSessionStorage(null, { name: "__Host-s" }));
  // Small chunk sizes keep working: the default maxChunks is capped at 50.
  for (const chunkSize of [100, 200, 253]) assert.ok(new CookieSessionStorage(null, { chunkSize }));
  assert.throws(
    () => new CookieSessionStorage(null, { chunkSize: Number.NaN }),
    (e: Error) => e instanceof RangeError && e.message.includes("'chunkSize'"),
  );
  assert.ok(new CookieSessionStorage(null, { name: "__Secure-s", domain: "example.com" }));
});

/** The cookie jar a browser keeps after applying `Set-Cookie` headers in order. */
function apply(jar: Map<string, string>, setCookies: string[]): void {
  for (const c of setCookies) {
    const [pair] = c.split(";");
    const eq = pair.indexOf("=");
    if (/Max-Age=0(?:;|$)/.test(c)) jar.delete(pair.slice(0, eq));
    else jar.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
}
const header = (jar: Map<string, string>) => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
const withBio = (refresh: string, bio: number) =>
  decodeSession({
    access_token: "header.payload.signature",
    refresh_token: refresh,
    expires_in: 3600,
    user: { id: "u1", user_metadata: { bio: "b".repeat(bio) } },
  });

Deno.test("concurrent responses cannot leave two sessions' chunks mixed: the last response wins whole", () => {
  for (
    const [first, second] of [
      [3000, 1500], // three chunks, then two: chunk .2 of the first must go
      [10, 1500], // one bare cookie, then chunks: the bare one must go
      [1500, 10], // chunks, then a bare cookie: the chunks must go
    ]
  ) {
    const jar = new Map<string, string>();
    apply(
      jar,
      (() => {
        const s = new CookieSessionStorage(null, { chunkSize: 1000 });
        s.save(withBio("refresh-0", 2500));
        return s.setCookieHeaders();
      })(),
    );
    // Two requests carrying the same cookies; their responses arrive in order.
    const a = new CookieSessionStorage(header(jar), { chunkSize: 1000 });
    const b = new CookieSessionStorage(header(jar), { chunkSize: 1000 });
    a.save(withBio("refresh-a", first));
    b.save(withBio("refresh-b", second));
    apply(jar, a.setCookieHeaders());
    apply(jar, b.setCookieHeaders());
    const loaded = new CookieSessionStorage(header(jar), { chunkSize: 1000 }).load();
    assert.equal(loaded?.refreshToken, "refresh-b", `${first} then ${second}: ${[...jar.keys()]}`);
  }
  // A clear from a request that carried only some of the cookies still deletes them all.
  const jar = new Map<string, string>();
  const s = new CookieSessionStorage(null, { chunkSize: 1000 });
  s.save(withBio("refresh-0", 2500));
  apply(jar, s.setCookieHeaders());
  const partial = new CookieSessionStorage("other=1", { chunkSize: 1000 });
  partial.clear();
  apply(jar, partial.setCookieHeaders());
  assert.deepEqual([...jar.keys()], []);
});

Deno.test("a session that needs more than maxChunks cookies is refused instead of locking the user out", () => {
  const s = new CookieSessionStorage(null);
  assert.throws(
    () => s.save(withBio("r", 40_000)),
    (e: Error) =>
      e instanceof RangeError && /needs \d+ chunks and 'maxChunks' is 4/.test(e.message),
  );
  // Nothing of it queued: only deletions, so no session from before comes back.
  assert.ok(s.setCookieHeaders().every((h) => /=; .*Max-Age=0/.test(h)), "only deletions");
  const roomy = new CookieSessionStorage(null, { maxChunks: 20 });
  roomy.save(withBio("r", 40_000));
  const jar = new Map<string, string>();
  apply(jar, roomy.setCookieHeaders());
  assert.equal(new CookieSessionStorage(header(jar), { maxChunks: 20 }).load()?.refreshToken, "r");
});

Deno.test("Web Storage that refuses writes does not fail a sign-in", async () => {
  const refusing = {
    getItem: () => null,
    setItem: () => {
      throw new DOMException("full", "QuotaExceededError");
    },
    removeItem: () => {
      throw new DOMException("denied", "SecurityError");
    },
  };
  const c = createBaseClient("https://p.example", "anon-key-0123456789");
  const m = createSessionManager(createAuthClient(c), c, {
    storage: new KeyValueSessionStorage(webStorageStore(refusing)),
    autoRefresh: false,
  });
  await m.saveSession(session);
  assert.equal(m.sessionState.value.kind, "Authenticated");
  await m.clearSession();
  assert.equal(m.sessionState.value.kind, "NotAuthenticated");
  // A storage that throws still leaves the session live in memory, and says so.
  const failing = createSessionManager(createAuthClient(c), c, {
    storage: { save: () => Promise.reject(new Error("down")), load: () => null, clear: () => {} },
    autoRefresh: false,
  });
  await assert.rejects(failing.saveSession(session), /down/);
  assert.equal(failing.sessionState.value.kind, "Authenticated");
  failing.dispose();
  m.dispose();
});

Deno.test("StateFlow: next() called twice without awaiting settles both", async () => {
  const flow = new MutableStateFlow(0);
  const it = flow[Symbol.asyncIterator]();
  assert.equal((await it.next()).value, 0);
  const a = it.next();
  const b = it.next();
  flow.value = 1;
  assert.equal((await a).value, 1);
  flow.value = 2;
  assert.equal((await b).value, 2);
  const c = it.next();
  await it.return?.();
  assert.equal((await c).done, true);
});

Deno.test("cookie path and domain are checked: an attribute cannot be smuggled into every Set-Cookie", () => {
  for (const path of ["/; Domain=evil.example", "no-slash", "/a b", "/\n"]) {
    assert.throws(() => new CookieSessionStorage(null, { path }), RangeError, path);
  }
  for (const domain of ["evil.example; SameSite=None", "a b.example", "", "-bad.example"]) {
    assert.throws(() => new CookieSessionStorage(null, { domain }), RangeError, domain);
  }
  // Ordinary values pass.
  new CookieSessionStorage(null, { path: "/app/v1", domain: ".example.com" });
  new CookieSessionStorage(null, { domain: "app.example.com" });
});

Deno.test("chunk 0 carries the chunk count: chunks left by a response with another chunk size are never mixed in", () => {
  const jar = new Map<string, string>();
  const a = new CookieSessionStorage(null, { chunkSize: 1000 });
  a.save(withBio("refresh-a", 7000));
  const b = new CookieSessionStorage(null); // chunkSize 3180, maxChunks 4
  b.save(withBio("refresh-b", 10000));
  assert.ok(a.setCookieHeaders().filter((c) => !/Max-Age=0/.test(c)).length > 4);
  assert.equal(b.setCookieHeaders().filter((c) => !/Max-Age=0/.test(c)).length, 4);
  apply(jar, a.setCookieHeaders());
  apply(jar, b.setCookieHeaders());
  assert.ok(jar.has("__Host-fb-session.5"), "A's later chunks are still there");
  for (const options of [{}, { chunkSize: 1000 }]) {
    const loaded = new CookieSessionStorage(header(jar), options).load();
    assert.equal(loaded?.refreshToken, "refresh-b", JSON.stringify(options));
  }
  // A missing chunk is never read as a shorter session.
  jar.delete("__Host-fb-session.2");
  assert.equal(new CookieSessionStorage(header(jar)).load(), null);
  // Every chunk stays within chunkSize, the count included.
  for (const c of a.setCookieHeaders()) assert.ok(c.split(";")[0].split("=")[1].length <= 1000);
});

Deno.test("planted chunk names at indices no configuration writes are not deleted on every response", () => {
  const header = Array.from({ length: 3000 }, (_, i) => `__Host-fb-session.${i}=x`).join("; ");
  const storage = new CookieSessionStorage(header);
  storage.save(session);
  const headers = storage.setCookieHeaders();
  assert.ok(headers.length <= 51, `${headers.length} Set-Cookie headers for one save`);
  // Every index a configuration can write (below 50) is still deleted when not written.
  assert.ok(headers.some((h) => h.startsWith("__Host-fb-session.49=;")));
  assert.ok(!headers.some((h) => h.startsWith("__Host-fb-session.50=")));
});

Deno.test("a due refresh whose new session cannot be stored is reported, not hidden behind the spent one", async () => {
  const now = Math.floor(Date.now() / 1000);
  const fresh = {
    access_token: "access-2",
    refresh_token: "refresh-2",
    expires_in: 3600,
    expires_at: now + 3600,
    token_type: "bearer",
    user: { id: "u1" },
  };
  const client = createBaseClient("https://p.example", "anon-key", {
    fetch: () =>
      Promise.resolve(
        new Response(JSON.stringify(fresh), { headers: { "content-type": "application/json" } }),
      ),
  });
  const due = decodeSession({
    ...fresh,
    access_token: "access-1",
    refresh_token: "refresh-1",
    expires_at: now + 30,
  });
  const storage = {
    perRequest: true,
    load: () => due,
    save: () => {
      throw new RangeError("the session no longer fits the cookies");
    },
    clear: () => {},
  };
  const m = createSessionManager(createAuthClient(client), client, { storage });
  const r = await m.initialize();
  m.dispose();
  assert.equal(r.ok, false, "the browser keeps a refresh token the server has spent");
});

Deno.test("CookieSessionStorage given a Node or Hono request object (no Fetch headers) is a TypeError saying what to pass", () => {
  const nodeLike = { headers: { cookie: "__Host-fb-session=x" } };
  const honoLike = { raw: new Request("https://a.example"), header: () => undefined };
  for (const bad of [nodeLike, honoLike, undefined, 5]) {
    assert.throws(() => new CookieSessionStorage(bad as never), {
      name: "TypeError",
      message:
        /'request' must be a Fetch Request, a Cookie header or null \(in Hono, pass c\.req\.raw\)/,
    });
  }
  // What it takes still works.
  const req = new Request("https://a.example", { headers: { cookie: "a=b" } });
  for (const ok of [req, "a=b", null]) assert.equal(new CookieSessionStorage(ok).load(), null);
});

Deno.test("a clear queued behind a slow restore and a slow save still waits for the save: the storage is empty after a sign-out", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    let stored: string | null = null;
    const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
    // A custom storage that is slow but always settles (a remote key-value store).
    const storage = {
      async load() {
        await wait(9_000);
        return null;
      },
      async save(s: Session) {
        await wait(2_000);
        stored = s.refreshToken;
      },
      async clear() {
        await wait(10);
        stored = null;
      },
    };
    const c = createBaseClient("https://p.example", "anon-key-0123456789");
    const m = createSessionManager(createAuthClient(c), c, { storage, autoRefresh: false });
    const all = Promise.allSettled([m.restoreSession(), m.saveSession(session), m.clearSession()]);
    await clock.tickAsync(12_000);
    assert.deepEqual((await all).map((r) => r.status), ["fulfilled", "fulfilled", "fulfilled"]);
    assert.equal(m.currentSession, null);
    assert.equal(stored, null, "the clear ran after the save, not during it");
    m.dispose();
  } finally {
    clock.uninstall();
  }
});

/** Web Storage over a Map whose writes throw QuotaExceededError while `quota.full`. */
function fullingWebStorage(full: boolean) {
  const data = new Map<string, string>();
  const quota = { full };
  const web = {
    getItem: (k: string) => data.get(k) ?? null,
    setItem: (k: string, v: string) => {
      if (quota.full) throw new DOMException("full", "QuotaExceededError");
      data.set(k, v);
    },
    removeItem: (k: string) => void data.delete(k),
  };
  return { data, web, quota };
}

Deno.test("Web Storage refusing a write removes the session before it: a spent refresh token is not left to restore", async () => {
  const { data, web, quota } = fullingWebStorage(false);
  const storage = new KeyValueSessionStorage(webStorageStore(web));
  await storage.save(session);
  assert.equal((await storage.load())?.refreshToken, "refresh-1");
  quota.full = true;
  await storage.save({ ...session, refreshToken: "refresh-2" });
  assert.equal(data.size, 0);
  // Read by this page, the empty key is a fault (the session lives in its memory); a reload or
  // another tab reads no session.
  await assert.rejects(storage.load(), /refused the last write/);
  assert.equal(await new KeyValueSessionStorage(webStorageStore(web)).load(), null);
  // The store itself answers as Web Storage does (it may be a resumable upload's URL store,
  // where a throwing get failed every later upload of the same data).
  const store = webStorageStore(web);
  await store.set("upload-key", "https://p.example/upload/1");
  assert.equal(await store.get("upload-key"), null);
});

Deno.test("Web Storage refusing a write leaves a mark other tabs read as a fault: their refresh goes on, not ended as a sign-out elsewhere", async () => {
  // A full quota: the session's write is refused; removing it makes room for the small mark.
  const data = new Map<string, string>();
  let full = false;
  const web = {
    getItem: (k: string) => data.get(k) ?? null,
    setItem: (k: string, v: string) => {
      if (full && v.length > 100) throw new DOMException("full", "QuotaExceededError");
      data.set(k, v);
    },
    removeItem: (k: string) => void data.delete(k),
  };
  let grants = 0;
  const answer = () =>
    Response.json({
      access_token: session.accessToken,
      refresh_token: `refresh-next-${++grants}`,
      expires_in: 3600,
      token_type: "bearer",
      user: { id: "u1" },
    });
  const tab = () => {
    const c = createBaseClient("https://p.example", "anon-key-0123456789", {
      fetch: () => Promise.resolve(answer()),
    });
    const storage = new KeyValueSessionStorage(webStorageStore(web));
    return createSessionManager(createAuthClient(c), c, { storage, autoRefresh: false });
  };
  const [a, b] = [tab(), tab()];
  await a.saveSession(session);
  assert.equal((await b.restoreSession()).getOrThrow().refreshToken, "refresh-1");
  full = true;
  // Tab B refreshes; its write is refused: the key holds the mark, and B the session in memory.
  assert.equal((await b.refreshSession()).getOrThrow().refreshToken, "refresh-next-1");
  assert.ok(!data.get(DEFAULT_KEY)?.includes("refresh-"), "the refused session is not stored");
  assert.equal(await webStorageStore(web).get(DEFAULT_KEY), null, "the store's own get");
  // Tab A's refresh reads a fault, not a sign-out: it goes on.
  const r = await a.refreshSession();
  assert.notEqual(r.errorOrNull()?.code, "signed_out_elsewhere");
  assert.equal(grants, 2);
  assert.equal(a.currentSession?.refreshToken, "refresh-next-2");
  // The mark reads as a fault in any page; a sign-out removes it, and a page then reads no session.
  await assert.rejects(new KeyValueSessionStorage(webStorageStore(web)).load(), /refused/);
  full = false;
  await b.clearSession();
  assert.equal(data.size, 0);
  assert.equal(await new KeyValueSessionStorage(webStorageStore(web)).load(), null);
  a.dispose();
  b.dispose();
});

Deno.test("Web Storage refusing a write: a restore keeps the session held in memory (it read as signed out elsewhere and dropped the refresh token)", async () => {
  const { data, web, quota } = fullingWebStorage(true);
  const c = createBaseClient("https://p.example", "anon-key-0123456789");
  const m = createSessionManager(createAuthClient(c), c, {
    storage: new KeyValueSessionStorage(webStorageStore(web)),
    autoRefresh: false,
  });
  const events: string[] = [];
  m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
  await m.saveSession(session);
  assert.equal((await m.restoreSession()).getOrThrow().refreshToken, "refresh-1");
  assert.equal(m.sessionState.value.kind, "Authenticated");
  assert.equal(c.accessToken, session.accessToken);
  assert.deepEqual(events, ["SIGNED_IN"]);
  // Once a write lands, the key reads as any other: emptied elsewhere, it is a sign-out.
  quota.full = false;
  await m.saveSession(session);
  assert.equal(data.size, 1);
  data.clear();
  assert.equal((await m.restoreSession()).ok, false);
  assert.deepEqual(events, ["SIGNED_IN", "SIGNED_IN", "SIGNED_OUT"]);
  m.dispose();
});

Deno.test("a session JSON cannot hold is a rejected save, not a synchronous throw", async () => {
  const storage = new KeyValueSessionStorage({ get: () => null, set: () => {}, remove: () => {} });
  const odd = {
    ...session,
    user: { ...session.user, userMetadata: { n: 1n } },
  } as unknown as Session;
  let saving: Promise<void> | undefined;
  assert.doesNotThrow(() => {
    saving = storage.save(odd);
  });
  await assert.rejects(saving!, TypeError);
});

Deno.test("cookie sameSite must be Lax, Strict or None exactly", () => {
  for (const sameSite of ["none", "lax", "Lax; Domain=evil.example", 1]) {
    assert.throws(
      () => new CookieSessionStorage(null, { sameSite: sameSite as never }),
      TypeError,
      String(sameSite),
    );
  }
  for (const sameSite of ["Lax", "Strict"] as const) new CookieSessionStorage(null, { sameSite });
  new CookieSessionStorage(null, { sameSite: "None", secure: true });
});

Deno.test("a key-value write that never settles is given up on after 10 s: later saves and clears still reach the store", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const data = new Map<string, string>();
    let sets = 0;
    const storage = new KeyValueSessionStorage({
      get: (k) => data.get(k) ?? null,
      set: (k, v) => {
        // The first write is lost in the store (a call with no timeout); later ones work.
        if (sets++ === 0) return new Promise<void>(() => {});
        data.set(k, v);
        return Promise.resolve();
      },
      remove: (k) => void data.delete(k),
    });
    void storage.save(session);
    const second = { ...session, refreshToken: "refresh-2" } as Session;
    const saved = storage.save(second);
    await clock.tickAsync(10_000);
    await saved;
    assert.equal((await storage.load())?.refreshToken, "refresh-2");
    const cleared = storage.clear();
    await clock.tickAsync(0);
    await cleared;
    assert.equal(data.size, 0);
  } finally {
    clock.uninstall();
  }
});

Deno.test("a save given up on that lands after a later clear does not have the last word: the clear runs again", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const data = new Map<string, string>();
    let slow = true;
    const storage = new KeyValueSessionStorage({
      get: (k) => data.get(k) ?? null,
      set: async (k, v) => {
        if (slow) {
          slow = false;
          await new Promise((r) => setTimeout(r, 15_000)); // lands after the wait bound
        }
        data.set(k, v);
      },
      remove: (k) => void data.delete(k),
    });
    void storage.save(session);
    const cleared = storage.clear();
    await clock.tickAsync(10_000);
    await cleared;
    assert.equal(data.size, 0, "the clear ran once the save was given up on");
    await clock.tickAsync(5_000); // the save lands, then the clear runs again
    await clock.tickAsync(0);
    assert.equal(data.size, 0, "the late save did not leave the session stored");
  } finally {
    clock.uninstall();
  }
});

Deno.test("a restore right after a sign-out whose earlier save landed late reads the sign-out, not the late save", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const data = new Map<string, string>();
    let first = true;
    const storage = new KeyValueSessionStorage({
      get: async (k) => {
        await wait(10);
        return data.get(k) ?? null;
      },
      set: async (k, v) => {
        await wait(first ? 15_000 : 10);
        first = false;
        data.set(k, v);
      },
      remove: async (k) => {
        await wait(200);
        data.delete(k);
      },
    });
    const c = createBaseClient("https://p.example", "anon-key-0123456789");
    const m = createSessionManager(createAuthClient(c), c, { storage, autoRefresh: false });
    const saving = m.saveSession(session).catch(() => {});
    await clock.tickAsync(1_000);
    const clearing = m.clearSession().catch(() => {});
    await clock.tickAsync(14_050); // the save lands at 15 s; the clear runs again
    const restored = m.restoreSession();
    await clock.tickAsync(1_000);
    await Promise.all([saving, clearing]);
    assert.equal((await restored).ok, false, "the signed-out session stayed out");
    assert.equal(data.size, 0);
    m.dispose();
  } finally {
    clock.uninstall();
  }
});

Deno.test("a restore while the manager's own save is still writing (past the 10 s it waits) keeps the session: the read is older, no sign-out", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const data = new Map<string, string>();
    const storage = new KeyValueSessionStorage({
      get: (k) => data.get(k) ?? null,
      set: (k, v) =>
        new Promise<void>((r) =>
          setTimeout(() => {
            data.set(k, v);
            r();
          }, 15_000)
        ),
      remove: (k) => void data.delete(k),
    });
    const c = createBaseClient("https://p.example", "anon-key-0123456789");
    const m = createSessionManager(createAuthClient(c), c, { storage, autoRefresh: false });
    const events: string[] = [];
    m.onAuthStateChange((e) => void events.push(e));
    const saving = m.saveSession(session).catch(() => {});
    await clock.tickAsync(1_000);
    const restored = m.restoreSession();
    await clock.tickAsync(30_000);
    assert.equal((await restored).getOrThrow().refreshToken, "refresh-1");
    assert.equal(m.currentSession?.refreshToken, "refresh-1");
    assert.equal(events.includes("SIGNED_OUT"), false, `${events}`);
    await saving;
    assert.ok(data.size > 0, "the save landed");
    m.dispose();
  } finally {
    clock.uninstall();
  }
});

Deno.test("the slow-save guard follows the held session's own write: a write that never settles does not hide a later sign-out elsewhere, and a slow refresh write keeps its tokens over an older read", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const mk = (n: number) => sessionWith(`refresh-${n}`);
    // 1. Save A never settles, save B lands, another tab clears the storage: a sign-out.
    let stored: Session | null = null;
    let first = true;
    const storage = {
      save(s: Session): void | Promise<void> {
        if (first) {
          first = false;
          return new Promise<void>(() => {});
        }
        stored = s;
      },
      load: () => stored,
      clear() {
        stored = null;
      },
    };
    const m = managerOver(storage);
    const a = m.saveSession(mk(1)).catch(() => {});
    await clock.tickAsync(10_000);
    await a;
    await m.saveSession(mk(2));
    stored = null; // another tab signed out
    assert.equal((await m.restoreSession()).ok, false);
    assert.equal(m.currentSession, null);
    m.dispose();

    // 2. A refresh whose write is slow: a restore meanwhile reads the older session and keeps
    //    the refreshed one (its refresh token is the live one).
    let data: Session | null = null;
    let slow = false;
    const slowStore = {
      save(s: Session): void | Promise<void> {
        if (!slow) {
          data = s;
          return;
        }
        return new Promise<void>((r) =>
          setTimeout(() => {
            data = s;
            r();
          }, 15_000)
        );
      },
      load: () => data,
      clear() {
        data = null;
      },
    };
    const m2 = managerOver(
      slowStore,
      () =>
        Promise.resolve(refreshAnswer({ access_token: "h.p.s2", refresh_token: "refresh-new" })),
    );
    await m2.saveSession(mk(1));
    slow = true;
    const refreshing = m2.refreshSession();
    await clock.tickAsync(1_000);
    const restored = m2.restoreSession();
    await clock.tickAsync(12_000);
    assert.equal((await restored).getOrThrow().refreshToken, "refresh-new");
    assert.equal(m2.currentSession?.refreshToken, "refresh-new");
    await clock.tickAsync(10_000);
    await refreshing;
    m2.dispose();
  } finally {
    clock.uninstall();
  }
});

Deno.test("concurrent restores each report what they read: another project's session, or none", async () => {
  const foreign = JSON.parse(serializeSession(session));
  for (const order of [[foreign, null], [null, foreign]]) {
    let i = 0;
    const storage = {
      save() {},
      clear() {},
      load(): Promise<Session | null> {
        const k = i++;
        const v = order[k] ? { ...order[k], project: "https://other.example" } : null;
        return new Promise((r) => setTimeout(() => r(v), k ? 1 : 5));
      },
    };
    const m = managerOver(storage);
    const [a, b] = await Promise.all([m.restoreSession(), m.restoreSession()]);
    const want = order.map((x) => x ? "session_of_another_project" : null);
    assert.deepEqual([a.errorOrNull()?.code ?? null, b.errorOrNull()?.code ?? null], want);
    m.dispose();
  }
});

Deno.test("the slow-write guard is per write and bounded: a same-token update keeps it, another tab's newer session is adopted, and after a minute a write that never lands stops hiding a sign-out", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const mk = sessionWith;
    const make = (storage: SessionStorage) => managerOver(storage);
    // 1. The same refresh token saved twice (a user update): the first write settling late does
    //    not clear the second one's mark.
    let stored: Session | null = null;
    let n = 0;
    const m1 = make({
      save(s: Session): Promise<void> {
        return n++ === 0
          ? new Promise((_, reject) => setTimeout(() => reject(new Error("lost")), 12_000))
          : new Promise((r) =>
            setTimeout(() => {
              stored = s;
              r();
            }, 20_000)
          );
      },
      load: () => stored,
      clear() {
        stored = null;
      },
    });
    const first = m1.saveSession(mk("refresh-A")).catch(() => {});
    await clock.tickAsync(10_001);
    const second = m1.saveSession(mk("refresh-A")).catch(() => {});
    await clock.tickAsync(3_000);
    const kept = m1.restoreSession();
    await clock.tickAsync(8_000);
    assert.equal((await kept).getOrThrow().refreshToken, "refresh-A");
    await clock.tickAsync(30_000);
    await Promise.all([first, second]);
    m1.dispose();

    // 2. Another tab's sign-in while this manager's write never lands: adopted, not hidden.
    let other: Session | null = null;
    const m2 = make({
      save: () => new Promise<void>(() => {}),
      load: () => other,
      clear() {
        other = null;
      },
    });
    const pending = m2.saveSession(mk("refresh-A")).catch(() => {});
    await clock.tickAsync(10_000);
    await pending;
    other = mk("refresh-C", "u2");
    assert.equal((await m2.restoreSession()).getOrThrow().refreshToken, "refresh-C");
    assert.equal(m2.currentSession?.user.id, "u2");

    // 3. A minute later, that never-landing write no longer hides a sign-out made elsewhere.
    const again = m2.saveSession(mk("refresh-D")).catch(() => {});
    await clock.tickAsync(10_000);
    await again;
    other = null;
    assert.equal((await m2.restoreSession()).ok, true, "within the bound: the read is older");
    await clock.tickAsync(60_000);
    assert.equal((await m2.restoreSession()).ok, false);
    assert.equal(m2.currentSession, null);
    m2.dispose();
  } finally {
    clock.uninstall();
  }
});

Deno.test("while writes are pending, a read of any session this manager replaced or cleared is older: refresh chains, two sign-ins, a sign-out then a sign-in", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const mk = sessionWith;
    /** A storage whose writes never land within these checks. */
    const hanging = (initial: Session) => {
      const st = { stored: initial as Session | null };
      const storage: SessionStorage = {
        save: () => new Promise<void>(() => {}),
        load: () => st.stored,
        clear: () => new Promise<void>(() => {}),
      };
      return { st, storage };
    };
    const step = async (p: Promise<unknown>) => {
      const settled = p.catch(() => {}); // a save given up on rejects: handled at once
      await clock.tickAsync(10_001); // the manager gives up waiting on the write
      await settled;
    };
    // 1. A refresh chain A → A2 → A3: the storage still holds A, which was spent.
    let n = 1;
    const chain = hanging(mk("refresh-A"));
    const m1 = managerOver(
      chain.storage,
      () => Promise.resolve(refreshAnswer({ refresh_token: `refresh-A${++n}` })),
    );
    await m1.restoreSession();
    await step(m1.refreshSession());
    await step(m1.refreshSession());
    const r1 = m1.restoreSession();
    await step(r1);
    assert.equal(m1.currentSession?.refreshToken, "refresh-A3");
    m1.dispose();

    // 2. Two sign-ins (A, then B) over a stored X: X is older.
    const two = hanging(mk("refresh-X", "ux"));
    const m2 = managerOver(two.storage);
    await m2.restoreSession();
    await step(m2.saveSession(mk("refresh-A", "ua")));
    await step(m2.saveSession(mk("refresh-B", "ub")));
    await step(m2.restoreSession());
    assert.equal(m2.currentSession?.user.id, "ub");
    m2.dispose();

    // 3. A sign-out then a sign-in: the signed-out X is not signed in again.
    const out = hanging(mk("refresh-X", "ux"));
    const m3 = managerOver(out.storage);
    await m3.restoreSession();
    await step(m3.clearSession());
    const afterClear = m3.restoreSession();
    await step(afterClear);
    assert.equal(m3.currentSession, null, "a restore right after the sign-out reads it as none");
    await step(m3.saveSession(mk("refresh-B", "ub")));
    await step(m3.restoreSession());
    assert.equal((m3.currentSession as Session | null)?.user.id, "ub");
    m3.dispose();
  } finally {
    clock.uninstall();
  }
});

Deno.test("a held session that lapses while its own write has not landed stays the one to refresh: a read of the replaced session or of none changes nothing", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    for (const read of ["the replaced session", "nothing"]) {
      let stored: Session | null = null;
      let hang = false;
      const storage: SessionStorage = {
        save(s: Session): void | Promise<void> {
          if (hang) return new Promise<void>(() => {});
          stored = s;
        },
        load: () => stored,
        clear() {
          stored = null;
        },
      };
      const grants: string[] = [];
      const m = managerOver(storage, (_u, init) => {
        grants.push(JSON.parse(String(init?.body)).refresh_token);
        return Promise.resolve(
          refreshAnswer({ expires_at: undefined, refresh_token: "refresh-A2", expires_in: 20 }),
        );
      });
      // "nothing": the sign-in's own write has never landed either (a storage that emptied after
      // holding the session is a sign-out in another tab, which a refresh takes as such).
      hang = read === "nothing";
      const saving = m.saveSession(
        decodeSession({ ...sessionBody, expires_at: Math.floor(Date.now() / 1000) + 3600 }),
      ).catch((e) => assert.equal((e as Error).name, "TimeoutError")); // a write not landed in 10 s
      await clock.tickAsync(hang ? 10_001 : 0);
      await saving;
      hang = true;
      const refreshing = m.refreshSession();
      await clock.tickAsync(10_001);
      await refreshing; // its write never lands
      await clock.tickAsync(15_000); // the 20 s token lapses
      const r = await m.restoreSession();
      assert.equal(r.ok, false, read);
      const state = m.sessionState.value;
      assert.equal(state.kind, "Expired", read);
      assert.equal(state.kind === "Expired" && state.lastSession.refreshToken, "refresh-A2", read);
      const next = m.refreshSession();
      await clock.tickAsync(10_001);
      await next;
      assert.equal(grants.at(-1), "refresh-A2", `${read}: the next grant spends the live token`);
      m.dispose();
    }
  } finally {
    clock.uninstall();
  }
});

/**
 * A browser's cookie jar as RFC 6265 keeps it: a cookie is its name, domain and path (a
 * host-only one's domain is the request's host); Set-Cookie headers apply in order; the Cookie
 * header lists longer paths first, then older cookies first.
 */
function cookieJar(host: string) {
  const jar = new Map<string, { name: string; value: string; created: number }>();
  let clock = 0;
  return {
    apply(headers: string[]) {
      for (const h of headers) {
        const [pair, ...attrs] = h.split("; ");
        const eq = pair.indexOf("=");
        const name = pair.slice(0, eq);
        const domain = attrs.find((a) => a.startsWith("Domain="))?.slice(7).replace(/^\./, "") ??
          host;
        const path = attrs.find((a) => a.startsWith("Path="))?.slice(5) ?? "/";
        const key = `${name}|${domain}|${path}`;
        if (attrs.includes("Max-Age=0")) jar.delete(key);
        else {
          jar.set(key, {
            name,
            value: pair.slice(eq + 1),
            created: jar.get(key)?.created ?? clock++,
          });
        }
      }
    },
    header: () =>
      [...jar.values()].sort((a, b) => a.created - b.created)
        .map((c) => `${c.name}=${c.value}`).join("; "),
    size: () => jar.size,
  };
}

Deno.test("a domain set after host-only cookies deletes those: they are older, come first and would be read instead of every new session", () => {
  // A plain name throughout (the default, `__Host-`, cannot take a domain).
  const old = cookieJar("app.example.com");
  // The first deploy: host-only (no domain), then the session is signed out on another path.
  const first = new CookieSessionStorage(null, { secure: true, name: "fb-session" });
  first.save(session);
  old.apply(first.setCookieHeaders());
  const other = decodeSession({ ...sessionBody, refresh_token: "new-refresh-token" });
  const second = new CookieSessionStorage(old.header(), { domain: "example.com" });
  second.save(other);
  const headers = second.setCookieHeaders();
  // Host-only deletions (no Domain) come first, then the cookies with the domain.
  assert.ok(headers[0].includes("Max-Age=0") && !headers[0].includes("Domain="), headers[0]);
  old.apply(headers);
  assert.equal(
    new CookieSessionStorage(old.header(), { name: "fb-session" }).load()?.refreshToken,
    "new-refresh-token",
  );
  // The domain is the host itself: one cookie for the browser; the deletion before the save
  // leaves the new session in place.
  const same = cookieJar("example.com");
  const third = new CookieSessionStorage(null, { domain: "example.com" });
  third.save(other);
  same.apply(third.setCookieHeaders());
  assert.equal(
    new CookieSessionStorage(same.header(), { name: "fb-session" }).load()?.refreshToken,
    "new-refresh-token",
  );
  // A clear removes both scopes.
  const clearing = new CookieSessionStorage(old.header(), { domain: "example.com" });
  clearing.clear();
  old.apply(clearing.setCookieHeaders());
  assert.equal(old.size(), 0);
  // Without a domain, nothing more is sent than before.
  const plain = new CookieSessionStorage(null, { name: "fb-session" });
  plain.save(session);
  assert.ok(plain.setCookieHeaders().every((h) => !h.includes("Domain=")));
  assert.equal(plain.setCookieHeaders().filter((h) => h.includes("Max-Age=0")).length, 4);
});

Deno.test("the session cookie is __Host- by default, and plain where the prefix's rules cannot hold", () => {
  const nameOf = (options?: Record<string, unknown>) => {
    const s = new CookieSessionStorage(null, options);
    s.save(session);
    return s.setCookieHeaders().find((h) => !h.includes("Max-Age=0"))!.split("=")[0];
  };
  // A plain name can be set by any sibling subdomain, for any path, and is read first.
  assert.equal(nameOf(), "__Host-fb-session");
  assert.equal(nameOf({ secure: true, path: "/" }), "__Host-fb-session");
  assert.equal(nameOf({ secure: false }), "fb-session");
  assert.equal(nameOf({ domain: "example.com" }), "fb-session");
  assert.equal(nameOf({ path: "/app" }), "fb-session");
  assert.equal(nameOf({ name: "mine" }), "mine");
  // A planted plain cookie is not read by the default configuration.
  const planted = new CookieSessionStorage(`fb-session=${encodeURIComponent("{}")}`);
  assert.equal(planted.load(), null);
});

Deno.test("every cookie chunk survives frameworks' cookie helpers, which decode and encode each value", () => {
  // A percent-encoded session cut into chunks could end a chunk inside an escape ("%C3%"): Next.js
  // drops a cookie whose value decodeURIComponent refuses, and its cookies() and
  // request.cookies.set decode or encode values, which garbled escapes read again.
  const decodeEach = (jar: Map<string, string>) => {
    const out = new Map<string, string>();
    for (const [k, v] of jar) {
      try {
        out.set(k, decodeURIComponent(v));
      } catch {
        // dropped, as Next.js drops it
      }
    }
    return out;
  };
  const encodeEach = (jar: Map<string, string>) =>
    new Map([...jar].map(([k, v]) => [k, encodeURIComponent(v)]));
  // Both forms: mostly ASCII (percent-encoded with `*`), and mostly another script (base64url).
  const bios = [(n: number) => "é,".repeat(n), (n: number) => `*%2A${"abcd".repeat(n)}`];
  for (let pad = 1495; pad < 1515; pad++) {
    const s = decodeSession({
      ...sessionBody,
      user: { id: "u1", user_metadata: { name: "Zoë Åström 100%", bio: bios[pad % 2](pad) } },
    });
    const storage = new CookieSessionStorage(null, { chunkSize: 1000 });
    storage.save(s);
    const jar = new Map<string, string>();
    apply(jar, storage.setCookieHeaders());
    assert.ok(jar.size > 1, "chunked");
    assert.equal(jar.get("__Host-fb-session.0")!.includes("base64-"), pad % 2 === 0);
    for (const [k, v] of jar) {
      assert.equal(encodeURIComponent(v), v, k);
      assert.equal(decodeURIComponent(v), v, k);
    }
    for (const seen of [jar, decodeEach(jar), encodeEach(jar), encodeEach(decodeEach(jar))]) {
      const loaded = new CookieSessionStorage(header(seen), { chunkSize: 1000 }).load();
      assert.deepEqual(loaded?.user.userMetadata, s.user.userMetadata, `pad ${pad}`);
    }
  }
});

Deno.test("a cookie session of the earlier percent-encoded form is still read", () => {
  // That form leaves `*` as it is: read as the new form's escape, "**Bold**" failed to decode (a
  // sign-out) and "5*40" became "5@".
  for (const n of ["Zoë", "**Bold**", "5*40=200"]) {
    const s = decodeSession({ ...sessionBody, user: { id: "u1", user_metadata: { n } } });
    const cookie = `__Host-fb-session=${encodeURIComponent(serializeSession(s))}`;
    assert.deepEqual(new CookieSessionStorage(cookie).load()?.user.userMetadata, { n });
  }
  // A base64 value that is no session is none.
  assert.equal(new CookieSessionStorage("__Host-fb-session=base64-eyJ").load(), null);
  assert.equal(new CookieSessionStorage("__Host-fb-session=base64-%%%").load(), null);
});

Deno.test("a storage that cannot be read answers NO_SESSION with the code storage_unreadable, not a plain none", async () => {
  const client = createBaseClient("https://p.example", "anon-key", {
    fetch: () => Promise.resolve(new Response("{}")),
  });
  const storage: SessionStorage = {
    load: () => Promise.reject(new Error("IndexedDB is closed")),
    save: () => {},
    clear: () => {},
  };
  const m = createSessionManager(createAuthClient(client), client, { storage, autoRefresh: false });
  const r = await m.initialize();
  assert.equal(r.errorOrNull()?.category, "NO_SESSION");
  assert.equal(r.errorOrNull()?.code, "storage_unreadable");
  assert.match(r.errorOrNull()!.message, /could not be read/);
  // An empty storage stays a plain none.
  const empty = createSessionManager(createAuthClient(client), client, { autoRefresh: false });
  assert.equal((await empty.initialize()).errorOrNull()?.code, null);
  m.dispose();
  empty.dispose();
});
