// Session storages against slow, failing or hostile stores and headers.
import assert from "node:assert/strict";
import { createAuthClient, decodeSession } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import { MutableStateFlow } from "../../core/state_flow.ts";
import {
  CookieSessionStorage,
  createSessionManager,
  KeyValueSessionStorage,
  namespaceStore,
  parseStoredSession,
  serializeSession,
  webStorageStore,
} from "../../session/mod.ts";
import type { Session } from "../../auth/models.ts";

const session = decodeSession({
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
});

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

Deno.test("cookie headers: first duplicate wins, quoted values, and joined Cookie headers", () => {
  const out = new CookieSessionStorage(null);
  out.save(session);
  const value = out.setCookieHeaders()[0].split(";")[0].split("=").slice(1).join("=");
  for (
    const header of [
      `fb-session=${value}; fb-session=junk`,
      `fb-session="${value}"`,
      `a=1, fb-session=${value}`,
    ]
  ) {
    const loaded = new CookieSessionStorage(header).load();
    assert.equal(loaded?.refreshToken, "refresh-1", header.slice(0, 40));
  }
});

Deno.test("cookie options that browsers would drop are refused at once", () => {
  for (
    const options of [
      { chunkSize: 100_000 },
      { maxAge: -5.5 },
      { sameSite: "None" as const, secure: false },
      { name: "x".repeat(300) },
      { name: "bad name" },
    ]
  ) {
    assert.throws(
      () => new CookieSessionStorage(null, options),
      RangeError,
      JSON.stringify(options),
    );
  }
  assert.ok(new CookieSessionStorage(null, { sameSite: "None", secure: true }));
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
