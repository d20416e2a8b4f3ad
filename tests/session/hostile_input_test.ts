// Session values a JavaScript caller can hand in whatever the types say
// (found by fuzzing the public API): each is refused with a TypeError or
// RangeError naming the field before anything is applied, and a storage
// that never settles cannot freeze later sign-ins.
import assert from "node:assert/strict";
import { createAuthClient, decodeSession, type Session } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import { createSessionManager, InMemorySessionStorage } from "../../session/mod.ts";
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
