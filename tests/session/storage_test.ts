import assert from "node:assert/strict";
import { decodeSession } from "../../auth/mod.ts";
import {
  CookieSessionStorage,
  DEFAULT_KEY,
  InMemorySessionStorage,
  KeyValueSessionStorage,
  namespaceStore,
  parseStoredSession,
  serializeSession,
  webStorageStore,
} from "../../session/mod.ts";

const session = decodeSession({
  access_token: "header.payload.signature",
  refresh_token: "refresh-1",
  expires_in: 3600,
  expires_at: 2_000_000_000,
  user: { id: "u1", email: "a@x.io", user_metadata: { bio: "x".repeat(6000) } },
});

Deno.test("stored sessions round-trip; corrupt or unusable payloads are null, never a crash", () => {
  const back = parseStoredSession(serializeSession(session))!;
  assert.equal(back.accessToken, session.accessToken);
  assert.equal(back.user.userMetadata?.bio, session.user.userMetadata?.bio);
  assert.ok(!String(back).includes("refresh-1"), "masked");
  for (
    const bad of [
      null,
      "",
      "{",
      "[]",
      "42",
      '{"accessToken":"a"}',
      '{"accessToken":" ","refreshToken":"r","expiresIn":1,"user":{"id":"u"}}',
      '{"accessToken":"a","refreshToken":null,"expiresIn":1,"user":{"id":"u"}}',
      '{"accessToken":"a","refreshToken":"r","expiresIn":-1,"user":{"id":"u"}}',
      '{"accessToken":"a","refreshToken":"r","expiresIn":1,"expiresAt":-4,"user":{"id":"u"}}',
      '{"accessToken":"a","refreshToken":"r","expiresIn":1,"user":{}}',
    ]
  ) {
    assert.equal(parseStoredSession(bad), null, String(bad));
  }
  // An imported token without a refresh token (importAuthToken's default "") is a session.
  const imported = parseStoredSession(
    '{"accessToken":"a","refreshToken":"","expiresIn":0,"user":{"id":""}}',
  );
  assert.equal(imported?.refreshToken, "");
  assert.equal(imported?.expiresAt, null);
});

Deno.test("in-memory, key-value (DEFAULT_KEY), Web Storage and namespace adapters", async () => {
  const mem = new InMemorySessionStorage();
  mem.save(session);
  assert.equal(mem.load(), session);
  mem.clear();
  assert.equal(mem.load(), null);

  const items = new Map<string, string>();
  const fakeStorage = {
    getItem: (k: string) => items.get(k) ?? null,
    setItem: (k: string, v: string) => void items.set(k, v),
    removeItem: (k: string) => void items.delete(k),
  };
  const web = new KeyValueSessionStorage(webStorageStore(fakeStorage));
  await web.save(session);
  assert.ok(items.has(DEFAULT_KEY));
  assert.equal((await web.load())?.refreshToken, "refresh-1");
  items.set(DEFAULT_KEY, "garbage");
  assert.equal(await web.load(), null);
  await web.clear();
  assert.equal(items.size, 0);

  const kv = new Map<string, string>();
  const ns = {
    get: (k: string) => Promise.resolve(kv.get(k) ?? null),
    put: (k: string, v: string) => Promise.resolve(void kv.set(k, v)),
    delete: (k: string) => Promise.resolve(kv.delete(k)),
  };
  const s = new KeyValueSessionStorage(namespaceStore(ns), "user-1");
  await s.save(session);
  assert.ok(kv.has("user-1"));
  assert.equal((await s.load())?.user.id, "u1");
  await s.clear();
  assert.equal(kv.size, 0);
  // With an expiry, each save passes it to KV (abandoned sessions then go by themselves).
  const ttls: unknown[] = [];
  const expiring = new KeyValueSessionStorage(
    namespaceStore({
      ...ns,
      put: (k: string, v: string, o?: { expirationTtl?: number }) => (
        ttls.push(o?.expirationTtl), ns.put(k, v)
      ),
    }, { expirationTtl: 30 * 24 * 3600 }),
    "user-2",
  );
  await expiring.save(session);
  assert.deepEqual(ttls, [2_592_000]);
  for (const bad of [0, -1, 1.5, 59, "60"]) {
    assert.throws(() => namespaceStore(ns, { expirationTtl: bad as never }), RangeError);
  }
  const throwing = new KeyValueSessionStorage({
    get: () => Promise.reject(new Error("down")),
    set: () => {},
    remove: () => {},
  });
  // A store that cannot read rejects: the manager then keeps the session it holds.
  await assert.rejects(throwing.load(), { message: "down" });
});

Deno.test("cookie storage round-trips through real Request/Response objects, chunked when large", () => {
  const out = new CookieSessionStorage(new Request("https://app.example/"), { chunkSize: 1000 });
  assert.equal(out.load(), null);
  out.save(session);
  const setCookies = out.setCookieHeaders();
  assert.ok(setCookies.length > 1, `chunked into ${setCookies.length} cookies`);
  assert.ok(
    setCookies.every((c) =>
      c.length < 1100 && /HttpOnly/.test(c) && /Secure/.test(c) && /SameSite=Lax/.test(c)
    ),
  );
  const response = new Response("ok");
  for (const c of setCookies) response.headers.append("set-cookie", c);
  const cookieHeader = response.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const next = new CookieSessionStorage(
    new Request("https://app.example/", { headers: { cookie: `other=1; ${cookieHeader}` } }),
    { chunkSize: 1000 },
  );
  const loaded = next.load()!;
  assert.equal(loaded.accessToken, session.accessToken);
  assert.equal(loaded.user.userMetadata?.bio, session.user.userMetadata?.bio);

  // A smaller session replaces the chunks: stale chunks are deleted.
  const small = decodeSession({
    access_token: "a.b.c",
    refresh_token: "r2",
    expires_in: 60,
    user: { id: "u2" },
  });
  next.save(small);
  const headers = next.setCookieHeaders();
  assert.ok(headers.some((h) => h.startsWith("__Host-fb-session=") && !h.includes("Max-Age=0")));
  const written = setCookies.filter((c) => !/Max-Age=0/.test(c)).map((c) => c.split("=")[0]);
  assert.ok(written.length > 1);
  for (const name of written) {
    assert.ok(headers.some((h) => h.startsWith(`${name}=; `) && /Max-Age=0/.test(h)), name);
  }
  next.clear();
  assert.ok(next.setCookieHeaders().every((h) => /Max-Age=0/.test(h)));
  assert.equal(next.load(), null);

  const corrupt = new CookieSessionStorage("__Host-fb-session=%E0%A4%A");
  assert.equal(corrupt.load(), null);
  assert.throws(() => new CookieSessionStorage(null, { chunkSize: 10 }), RangeError);
});

Deno.test("KeyValueSessionStorage takes its key as it is or as { key } (the document's default in the options form); any other key is a TypeError", async () => {
  const data = new Map<string, string>();
  const store = {
    get: (k: string) => data.get(k) ?? null,
    set: (k: string, v: string) => void data.set(k, v),
    remove: (k: string) => void data.delete(k),
  };
  assert.equal(new KeyValueSessionStorage(store).key, DEFAULT_KEY);
  assert.equal(new KeyValueSessionStorage(store, {}).key, DEFAULT_KEY);
  assert.equal(new KeyValueSessionStorage(store, { key: undefined }).key, DEFAULT_KEY);
  assert.equal(new KeyValueSessionStorage(store, "app.a").key, "app.a");
  const byOption = new KeyValueSessionStorage(store, { key: "app.b" });
  assert.equal(byOption.key, "app.b");
  await byOption.save(decodeSession(JSON.parse(JSON.stringify({
    access_token: "a.b.c",
    refresh_token: "r1",
    token_type: "bearer",
    expires_in: 3600,
    user: { id: "u1" },
  }))));
  assert.deepEqual([...data.keys()], ["app.b"]);
  for (const bad of ["", 42, { key: "" }, { key: 7 }, ["k"]]) {
    assert.throws(() => new KeyValueSessionStorage(store, bad as never), {
      name: "TypeError",
      message: /^Cannot store sessions as 'key' must be a non-empty string: current value is /,
    });
  }
});

Deno.test("cookie storage: an unreadable session cookie is null and its deletion is queued; no cookie, or a readable one, queues nothing", () => {
  const deletes = (s: CookieSessionStorage, name: string) =>
    s.setCookieHeaders().some((h) => h.startsWith(`${name}=; `) && /Max-Age=0/.test(h));
  for (
    const header of [
      "__Host-fb-session=garbage",
      "__Host-fb-session=%E0%A4%A",
      "__Host-fb-session=*7B*22accessToken*22:*22*22*7D", // JSON, but no usable session
      "__Host-fb-session.0=3.*7B*22a; __Host-fb-session.1=b", // a chunk of three is missing
    ]
  ) {
    const s = new CookieSessionStorage(header);
    assert.equal(s.load(), null, header);
    assert.ok(deletes(s, header.split("=")[0]), header);
    assert.ok(s.setCookieHeaders().every((h) => /Max-Age=0/.test(h)), header);
    assert.equal(s.load(), null);
  }
  for (const header of [null, "other=1", "__Host-fb-session.1=stray"]) {
    const s = new CookieSessionStorage(header);
    assert.equal(s.load(), null);
    assert.deepEqual(s.setCookieHeaders(), [], String(header));
  }
  // A readable session cookie queues nothing.
  const first = new CookieSessionStorage(null);
  first.save(session);
  const cookie = first.setCookieHeaders().map((c) => c.split(";")[0]).join("; ");
  const again = new CookieSessionStorage(cookie);
  assert.equal(again.load()?.accessToken, session.accessToken);
  assert.deepEqual(again.setCookieHeaders(), []);
  // A save after an unreadable load replaces the queued deletion with the session.
  const mended = new CookieSessionStorage("__Host-fb-session=garbage");
  assert.equal(mended.load(), null);
  mended.save(session);
  assert.ok(mended.setCookieHeaders().some((h) => !/Max-Age=0/.test(h)));
  assert.equal(mended.load()?.accessToken, session.accessToken);
});
