// Managers sharing one storage, as browser tabs share localStorage, against a model of GoTrue's
// refresh-token rotation: a token that is neither the active one nor its parent, sent outside
// the reuse interval, revokes the whole session (GoTrue's tokens service). A tab that fell
// behind must not send its old token, and a tab's dead session must not clear another tab's
// newer sign-in from the storage (found by a review against GoTrue's source).
import assert from "node:assert/strict";
import { createAuthClient } from "../../auth/client.ts";
import { decodeSession, type Session } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import { createSessionManager, type SessionStorage } from "../../session/mod.ts";
import { BASE, duringAnswer, json, KEY, withClock } from "./_helpers.ts";

/** The server's clock against this device's, ms (a device clock ahead: positive). */
const skew = { ms: 0 };

/** An unsigned access token with GoTrue's time claims (the manager only reads them). */
function fakeJwt(sub: string, lifetime: number): string {
  const iat = Math.floor((Date.now() - skew.ms) / 1000);
  const part = (o: object) =>
    btoa(JSON.stringify(o)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  return `${part({ alg: "HS256", typ: "JWT" })}.${
    part({ sub, iat, exp: iat + lifetime, session_id: "s1" })
  }.c2lnbmF0dXJl`;
}

/** One GoTrue session's refresh tokens: rotation, the 10 s reuse interval, family revocation. */
function rotatingGoTrue() {
  let counter = 1;
  let active = "refresh-1";
  let parent: string | null = null;
  let rotatedAt = 0;
  let revoked = false;
  const ended = new Set<string>(); // refresh tokens of sessions signed out
  const grants: string[] = [];
  const lifetime = { seconds: 3600, jwt: false };
  const body = (n: number, user = "u1") => ({
    access_token: lifetime.jwt ? fakeJwt(user, lifetime.seconds) : `access-${n}`,
    refresh_token: `refresh-${n}`,
    expires_in: lifetime.seconds,
    expires_at: Math.floor(Date.now() / 1000) + lifetime.seconds,
    token_type: "bearer",
    user: { id: user, email: `${user}@x.io` },
  });
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    if (url.pathname.endsWith("/logout")) {
      revoked = true;
      return new Response(null, { status: 204 });
    }
    const token = (await req.json()).refresh_token as string;
    grants.push(token);
    if (revoked || ended.has(token)) {
      return json({ error_code: "refresh_token_not_found", msg: "Invalid" }, 400);
    }
    if (token === parent && Date.now() - rotatedAt < 10_000) return json(body(counter));
    if (token !== active) {
      revoked = true; // the whole family
      return json({ error_code: "refresh_token_already_used", msg: "Already Used" }, 400);
    }
    parent = active;
    counter++;
    active = `refresh-${counter}`;
    rotatedAt = Date.now();
    return json(body(counter));
  };
  return {
    fetch,
    grants,
    body,
    lifetime,
    isRevoked: () => revoked,
    /** Makes GoTrue answer this token as not found (it ended outside this model's rules). */
    endToken: (token: string) => void ended.add(token),
    /** A new sign-in (another session of the server's). */
    signIn(user: string, endOld = true) {
      // The old session's tokens end with it, unless it goes on (an account switch).
      if (endOld) { for (let n = 1; n <= counter; n++) ended.add(`refresh-${n}`); }
      revoked = false;
      counter += 100;
      active = `refresh-${counter}`;
      parent = null;
      return body(counter, user);
    },
  };
}

/** A storage object shared by every manager given it, as one origin's localStorage is. */
function sharedStorage(): SessionStorage & { value: Session | null } {
  return {
    value: null,
    save(s: Session) {
      this.value = s;
    },
    load() {
      return this.value;
    },
    clear() {
      this.value = null;
    },
  };
}

function tab(fetch: typeof globalThis.fetch, storage: SessionStorage, autoRefresh = false) {
  const client = createBaseClient(BASE, KEY, { fetch, retry: { maxAttempts: 1 } });
  const manager = createSessionManager(createAuthClient(client), client, { storage, autoRefresh });
  const events: string[] = [];
  manager.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
  return { client, manager, events };
}

/** A storage over `inner` whose writes can fail and whose reads can fail or hang. */
function faulty(inner: SessionStorage) {
  const faults = { writes: false, loads: 0, hang: false };
  const storage: SessionStorage = {
    save(s) {
      if (faults.writes) throw new Error("quota exceeded");
      return inner.save(s);
    },
    load() {
      if (faults.hang) return new Promise<Session | null>(() => {});
      if (faults.loads > 0) {
        faults.loads--;
        throw new Error("read failed");
      }
      return inner.load();
    },
    clear: () => inner.clear(),
  };
  return { storage, faults };
}

/** Tab A signs in with the model's first session; tab B restores it from the shared storage. */
async function twoTabs(
  server: ReturnType<typeof rotatingGoTrue>,
  storage: SessionStorage,
  b: { storage?: SessionStorage; autoRefresh?: boolean; fetch?: typeof globalThis.fetch } = {},
) {
  const a = tab(server.fetch, storage);
  const other = tab(b.fetch ?? server.fetch, b.storage ?? storage, b.autoRefresh);
  await a.manager.saveSession(decodeSession(server.body(1)));
  assert.ok((await other.manager.restoreSession()).ok);
  return { a, b: other };
}

Deno.test("a tab that fell two refreshes behind takes the stored session instead of sending its old token (which revokes the session)", () =>
  withClock(async (clock) => {
    const server = rotatingGoTrue();
    const storage = sharedStorage();
    const { a, b } = await twoTabs(server, storage, { autoRefresh: true });
    // Tab A refreshes twice while B's timer waits (B's tokens expire at t0 + 3600 s).
    await clock.tickAsync(60_000);
    assert.ok((await a.manager.refreshSession()).ok);
    await clock.tickAsync(60_000);
    assert.ok((await a.manager.refreshSession()).ok);
    assert.deepEqual(server.grants, ["refresh-1", "refresh-2"]);
    // B's timer comes due: the stored session is the same one, newer and not due, so B takes
    // it and sends no grant.
    await clock.tickAsync(3_500_000);
    assert.equal(b.manager.currentSession?.refreshToken, "refresh-3");
    assert.equal(b.client.accessToken, "access-3");
    assert.deepEqual(server.grants, ["refresh-1", "refresh-2"]);
    assert.deepEqual(b.events, ["SIGNED_IN", "TOKEN_REFRESHED"]);
    // Its next timer follows the taken session: the newest token is sent when that is due.
    await clock.tickAsync(200_000);
    assert.deepEqual(server.grants, ["refresh-1", "refresh-2", "refresh-3"]);
    assert.equal(b.manager.currentSession?.refreshToken, "refresh-4");
    // An explicit refresh in A takes B's newer session and refreshes it (the caller asked for
    // new claims): with the newest token, so the session lives on.
    assert.equal((await a.manager.refreshSession()).getOrThrow().refreshToken, "refresh-5");
    assert.deepEqual(server.grants, ["refresh-1", "refresh-2", "refresh-3", "refresh-4"]);
    assert.equal(server.isRevoked(), false);
    assert.equal(storage.value?.refreshToken, "refresh-5");
    a.manager.dispose();
    b.manager.dispose();
  }));

Deno.test("a stale tab finds another tab's newer sign-in of another user: its session ends in memory, no token of it is sent, the sign-in stays stored", () =>
  withClock(async (clock) => {
    const server = rotatingGoTrue();
    const storage = sharedStorage();
    const { a, b } = await twoTabs(server, storage);
    // A signs out (the server ends the session) and signs in again as another user.
    await clock.tickAsync(60_000);
    await a.manager.clearSession();
    await server.fetch(`${BASE}/auth/v1/logout`, { method: "POST" });
    await a.manager.saveSession(decodeSession(server.signIn("u2")));
    // B's refresh sends nothing (these tokens carry no sign-in time: the later expiry tells).
    const r = await b.manager.refreshSession();
    assert.equal(r.errorOrNull()?.code, "signed_in_elsewhere");
    assert.deepEqual(server.grants, []);
    assert.equal(b.manager.currentSession, null);
    assert.deepEqual(b.events, ["SIGNED_IN", "SIGNED_OUT"]);
    assert.equal(storage.value?.user.id, "u2", "A's sign-in is still stored");
    // Its next restore takes it.
    assert.equal((await b.manager.restoreSession()).getOrThrow().user.id, "u2");
    a.manager.dispose();
    b.manager.dispose();
  }));

Deno.test("a refresh refused as dead while another tab signed in keeps that sign-in stored", () =>
  withClock(async (clock) => {
    const server = rotatingGoTrue();
    const storage = sharedStorage();
    // B's grant is answered only after A has signed in again.
    let signInDuringGrant: (() => void) | null = null;
    const slow: typeof globalThis.fetch = async (input, init) => {
      const answer = await server.fetch(input, init);
      signInDuringGrant?.();
      return answer;
    };
    const a = tab(server.fetch, storage);
    const b = tab(slow, storage);
    await a.manager.saveSession(decodeSession(server.body(1)));
    assert.ok((await b.manager.restoreSession()).ok);
    await server.fetch(`${BASE}/auth/v1/logout`, { method: "POST" }); // ended elsewhere
    await clock.tickAsync(60_000);
    signInDuringGrant = () => {
      signInDuringGrant = null;
      storage.value = null;
      void a.manager.saveSession(decodeSession(server.signIn("u2")));
    };
    const r = await b.manager.refreshSession();
    assert.deepEqual(server.grants, ["refresh-1"]); // refused: refresh_token_not_found
    assert.equal(r.ok, false);
    assert.equal(storage.value?.user.id, "u2", "the new sign-in is still stored");
    assert.equal(b.manager.currentSession, null);
    a.manager.dispose();
    b.manager.dispose();
  }));

Deno.test("a session this manager replaced is never taken back from the storage: a failed write leaves it there", () =>
  withClock(async (clock) => {
    const server = rotatingGoTrue();
    const storage = sharedStorage();
    const { storage: flaky, faults } = faulty(storage);
    const a = tab(server.fetch, flaky);
    await a.manager.saveSession(decodeSession(server.body(1)));
    await clock.tickAsync(60_000);
    faults.writes = true;
    // The new tokens are live in memory; the storage still holds the spent refresh-1, which
    // even expires later than they do (the project's token lifetime was shortened meanwhile).
    server.lifetime.seconds = 600;
    assert.equal((await a.manager.refreshSession()).ok, false);
    assert.equal(a.manager.currentSession?.refreshToken, "refresh-2");
    assert.equal(storage.value?.refreshToken, "refresh-1");
    faults.writes = false;
    await clock.tickAsync(600_000);
    assert.equal((await a.manager.refreshSession()).getOrThrow().refreshToken, "refresh-3");
    assert.deepEqual(server.grants, ["refresh-1", "refresh-2"]);
    assert.equal(server.isRevoked(), false);
    a.manager.dispose();
  }));

Deno.test("which stored session is newer is read from the tokens' iat: one issued later is taken even when it expires sooner", () =>
  withClock(async (clock) => {
    const server = rotatingGoTrue();
    server.lifetime.jwt = true;
    const storage = sharedStorage();
    const { a, b } = await twoTabs(server, storage);
    // The project's token lifetime is shortened; A refreshes under it.
    server.lifetime.seconds = 600;
    await clock.tickAsync(60_000);
    assert.ok((await a.manager.refreshSession()).ok);
    await clock.tickAsync(60_000);
    // B takes A's session, issued later though it expires sooner, and refreshes with its token.
    assert.equal((await b.manager.refreshSession()).getOrThrow().refreshToken, "refresh-3");
    assert.deepEqual(server.grants, ["refresh-1", "refresh-2"]);
    assert.equal(server.isRevoked(), false);
    a.manager.dispose();
    b.manager.dispose();
  }));

Deno.test("a refresh token reported reused is not replaced by a session this manager left behind in the storage", () =>
  withClock(async (clock) => {
    const server = rotatingGoTrue();
    const storage = sharedStorage();
    const { storage: flaky, faults } = faulty(storage);
    const a = tab(server.fetch, flaky);
    await a.manager.saveSession(decodeSession(server.body(1)));
    await clock.tickAsync(60_000);
    faults.writes = true;
    assert.equal((await a.manager.refreshSession()).ok, false); // refresh-2 held, not stored
    faults.writes = false;
    // Another holder of the session spends refresh-2 first.
    await server.fetch(`${BASE}/auth/v1/token?grant_type=refresh_token`, {
      method: "POST",
      body: JSON.stringify({ refresh_token: "refresh-2" }),
    });
    await clock.tickAsync(600_000);
    const r = await a.manager.refreshSession();
    assert.equal(r.errorOrNull()?.code, "refresh_token_already_used");
    assert.equal(a.manager.currentSession, null, "the spent refresh-1 is not taken back");
    assert.ok(a.events.includes("SIGNED_OUT"));
    a.manager.dispose();
  }));

Deno.test("GoTrue's OAuth server refusing a refresh without the client's id (invalid_client) ends the session: no retry for ever", () =>
  withClock(async (clock) => {
    let grants = 0;
    const storage = sharedStorage();
    const refusing: typeof globalThis.fetch = () => {
      grants++;
      return Promise.resolve(json({
        error: "invalid_client",
        error_description: "Client authentication required for OAuth session",
      }, 400));
    };
    const a = tab(refusing, storage);
    a.manager.startAutoRefresh();
    await a.manager.saveSession(decodeSession(rotatingGoTrue().body(1)));
    await clock.tickAsync(3_600_000);
    assert.equal(a.manager.currentSession, null);
    assert.equal(storage.value, null);
    assert.deepEqual(a.events, ["SIGNED_IN", "SIGNED_OUT"]);
    await clock.tickAsync(3_600_000);
    assert.equal(grants, 1);
    a.manager.dispose();
  }));

Deno.test("a token reported reused is not answered with another user's sign-in stored during the grant: that stays stored, this session ends in memory", () =>
  withClock(async (clock) => {
    const server = rotatingGoTrue();
    const storage = sharedStorage();
    const slow = duringAnswer(server.fetch);
    const { a, b } = await twoTabs(server, storage, { fetch: slow.fetch });
    await clock.tickAsync(60_000);
    assert.ok((await a.manager.refreshSession()).ok); // refresh-1 rotated: B's is behind
    // B's read before its grant finds nothing newer to take (its own state, put back).
    storage.value = b.manager.currentSession;
    // A signs in as another user, without ending the first session, while B's grant is out.
    slow.next(() => a.manager.saveSession(decodeSession(server.signIn("u2", false))));
    await clock.tickAsync(60_000);
    const r = await b.manager.refreshSession();
    assert.equal(r.errorOrNull()?.code, "refresh_token_already_used");
    assert.equal(b.manager.currentSession, null);
    assert.deepEqual(b.events, ["SIGNED_IN", "SIGNED_OUT"]);
    assert.equal((storage.value as Session | null)?.user.id, "u2"); // written during the grant
    a.manager.dispose();
    b.manager.dispose();
  }));

Deno.test("the read before a refresh waits at most 2 s and holds up no write; a manager disposed meanwhile sends no grant", () =>
  withClock(async (clock) => {
    const server = rotatingGoTrue();
    const storage = sharedStorage();
    const { storage: stuck, faults } = faulty(storage);
    const a = tab(server.fetch, stuck);
    await a.manager.saveSession(decodeSession(server.body(1)));
    faults.hang = true;
    const t0 = Date.now();
    let refreshedAt = 0;
    const refreshing = a.manager.refreshSession().then((r) => (refreshedAt = Date.now(), r));
    await clock.tickAsync(1_999);
    assert.deepEqual(server.grants, []);
    await clock.tickAsync(1);
    assert.deepEqual(server.grants, ["refresh-1"]);
    assert.equal((await refreshing).getOrThrow().refreshToken, "refresh-2");
    assert.equal(refreshedAt - t0, 2_000, "stored without waiting on the hanging read");
    assert.equal(storage.value?.refreshToken, "refresh-2");
    let savedAt = 0;
    await a.manager.saveSession(decodeSession(server.signIn("u2"))).then(() =>
      savedAt = Date.now()
    );
    assert.equal(savedAt - t0, 2_000, "a sign-in is stored at once");
    a.manager.dispose();

    // Disposed while the read waits: nothing is sent, nothing stored.
    const b = tab(server.fetch, stuck);
    faults.hang = false;
    await b.manager.saveSession(decodeSession(server.body(200)));
    faults.hang = true;
    const grants = server.grants.length;
    const late = b.manager.refreshSession();
    await clock.tickAsync(100);
    b.manager.dispose();
    await clock.tickAsync(2_000);
    assert.equal((await late).errorOrNull()?.category, "CANCELLED");
    assert.equal(server.grants.length, grants);
  }));

Deno.test("a stored session without a refresh token is never taken as a newer state of a refreshable one", () =>
  withClock(async (clock) => {
    const server = rotatingGoTrue();
    const storage = sharedStorage();
    const b = tab(server.fetch, storage, true);
    await b.manager.saveSession(decodeSession(server.body(1)));
    // Another tab imports a later access token of the same user, with no refresh token.
    await clock.tickAsync(60_000);
    storage.value = decodeSession({ ...server.body(7), refresh_token: "" });
    await clock.tickAsync(3_500_000); // B's timer comes due
    assert.deepEqual(server.grants, ["refresh-1"]);
    assert.equal(b.manager.currentSession?.refreshToken, "refresh-2");
    assert.equal((await b.manager.refreshSession()).getOrThrow().refreshToken, "refresh-3");
    b.manager.dispose();
  }));

Deno.test("an explicit refreshSession that joins a timer's refresh while it reads the storage still gets a grant", () =>
  withClock(async (clock) => {
    const server = rotatingGoTrue();
    const storage = sharedStorage();
    const slowLoad: SessionStorage = {
      save: (s) => storage.save(s),
      load: () => new Promise<Session | null>((r) => setTimeout(() => r(storage.load()), 50)),
      clear: () => storage.clear(),
    };
    const a = tab(server.fetch, storage);
    const b = tab(server.fetch, slowLoad, true);
    await a.manager.saveSession(decodeSession(server.body(1)));
    const restored = b.manager.restoreSession();
    await clock.tickAsync(100);
    assert.ok((await restored).ok);
    await clock.tickAsync(120_000 - 100);
    assert.ok((await a.manager.refreshSession()).ok); // refresh-2 stored, not due for B
    await clock.tickAsync(3_420_000 - 10); // just before B's timer
    const grants = server.grants.length;
    await clock.tickAsync(20); // B's timer starts its read
    const explicit = b.manager.refreshSession(); // joins it
    await clock.tickAsync(100);
    assert.equal((await explicit).getOrThrow().refreshToken, "refresh-3");
    assert.equal(server.grants.length, grants + 1);
    assert.equal(server.isRevoked(), false);
    a.manager.dispose();
    b.manager.dispose();
  }));

Deno.test("a spent token stays refused after many failed writes: no reuse answer takes it back, nor does a restore", () =>
  withClock(async (clock) => {
    const server = rotatingGoTrue();
    const storage = sharedStorage();
    const { storage: flaky, faults } = faulty(storage);
    const a = tab(server.fetch, flaky);
    await a.manager.saveSession(decodeSession(server.body(1)));
    faults.writes = true;
    const refreshes = async (n: number) => {
      for (let i = 0; i < n; i++) {
        await clock.tickAsync(60_000);
        await a.manager.refreshSession();
      }
    };
    await refreshes(10);
    assert.equal(storage.value?.refreshToken, "refresh-1");
    // A restore keeps what it holds rather than the spent session it left behind.
    assert.equal((await a.manager.restoreSession()).getOrThrow().refreshToken, "refresh-11");
    await refreshes(60); // past the 64 tokens remembered as left
    assert.equal(a.manager.currentSession?.refreshToken, "refresh-71");
    assert.equal(storage.value?.refreshToken, "refresh-1");
    // Another holder spends the current token: the answer is a reuse; refresh-1 is not taken.
    await server.fetch(`${BASE}/auth/v1/token?grant_type=refresh_token`, {
      method: "POST",
      body: JSON.stringify({ refresh_token: "refresh-71" }),
    });
    await clock.tickAsync(60_000);
    const r = await a.manager.refreshSession();
    assert.equal(r.errorOrNull()?.code, "refresh_token_already_used");
    assert.equal(a.manager.currentSession, null);
    a.manager.dispose();
  }));

Deno.test("two tabs asking for a refresh within one second: the second takes the first's fresh state and issues no alike token", () =>
  withClock(async (clock) => {
    const server = rotatingGoTrue();
    server.lifetime.jwt = true; // iat in whole seconds
    const storage = sharedStorage();
    const { a, b } = await twoTabs(server, storage);
    await clock.tickAsync(60_000);
    assert.ok((await a.manager.refreshSession()).ok); // refresh-2
    await clock.tickAsync(300);
    // B takes refresh-2, issued 300 ms ago: as new as a grant's, so none is made (a grant would
    // issue, in the same second, a token A could not tell from its own).
    assert.equal((await b.manager.refreshSession()).getOrThrow().refreshToken, "refresh-2");
    assert.deepEqual(server.grants, ["refresh-1"]);
    await clock.tickAsync(60_000);
    assert.equal((await a.manager.refreshSession()).getOrThrow().refreshToken, "refresh-3");
    assert.equal((await b.manager.refreshSession()).getOrThrow().refreshToken, "refresh-3");
    assert.deepEqual(server.grants, ["refresh-1", "refresh-2"]);
    assert.equal(server.isRevoked(), false);
    a.manager.dispose();
    b.manager.dispose();
  }));

Deno.test("an older token of the same second written back by a stale tab is not taken: the held one is sent", () =>
  withClock(async (clock) => {
    const server = rotatingGoTrue();
    server.lifetime.jwt = true;
    const storage = sharedStorage();
    const a = tab(server.fetch, storage);
    await a.manager.saveSession(decodeSession(server.body(1)));
    const first = storage.value!;
    assert.ok((await a.manager.refreshSession()).ok); // refresh-2 in the same second
    const c = tab(server.fetch, storage);
    assert.equal((await c.manager.restoreSession()).getOrThrow().refreshToken, "refresh-2");
    storage.value = first; // a stale tab writes refresh-1 back
    await clock.tickAsync(60_000);
    assert.equal((await c.manager.refreshSession()).getOrThrow().refreshToken, "refresh-3");
    assert.deepEqual(server.grants, ["refresh-1", "refresh-2"]);
    assert.equal(server.isRevoked(), false);
    a.manager.dispose();
    c.manager.dispose();
  }));

Deno.test("a user update in a tab that fell behind stores the user in the newer state of the session, not its spent tokens", () =>
  withClock(async (clock) => {
    const server = rotatingGoTrue();
    const storage = sharedStorage();
    const { a, b } = await twoTabs(server, storage);
    await clock.tickAsync(60_000);
    assert.ok((await a.manager.refreshSession()).ok);
    await clock.tickAsync(60_000);
    assert.ok((await a.manager.refreshSession()).ok); // storage: refresh-3
    const held = b.manager.currentSession!;
    await b.manager.saveSession(
      { ...held, user: { ...held.user, email: "new@x.io" } },
      { event: "USER_UPDATED" },
    );
    assert.equal(storage.value?.refreshToken, "refresh-3");
    assert.equal(storage.value?.user.email, "new@x.io");
    assert.equal(b.manager.currentSession?.refreshToken, "refresh-3");
    assert.deepEqual(b.events, ["SIGNED_IN", "USER_UPDATED"]);
    assert.equal((await b.manager.refreshSession()).getOrThrow().refreshToken, "refresh-4");
    assert.equal(server.isRevoked(), false);
    a.manager.dispose();
    b.manager.dispose();
  }));

Deno.test("a newer stored state that has lapsed too is taken quietly: no TOKEN_REFRESHED, no Authenticated, until a grant succeeds", () =>
  withClock(async (clock) => {
    let offline = false;
    const server = rotatingGoTrue();
    const net: typeof globalThis.fetch = (input, init) =>
      offline ? Promise.reject(new TypeError("offline")) : server.fetch(input, init);
    const storage = sharedStorage();
    const a = tab(net, storage);
    const b = tab(net, storage);
    await a.manager.saveSession(decodeSession(server.body(1)));
    assert.ok((await b.manager.restoreSession()).ok);
    await clock.tickAsync(60_000);
    assert.ok((await a.manager.refreshSession()).ok); // refresh-2, then both sleep past it
    await clock.tickAsync(7_200_000);
    offline = true;
    const states: string[] = [];
    b.manager.sessionState.subscribe((s) => states.push(s.kind));
    assert.equal((await b.manager.refreshSession()).errorOrNull()?.category, "NETWORK");
    assert.deepEqual(b.events, ["SIGNED_IN"]);
    assert.ok(!states.slice(1).includes("Authenticated"), states.join(" "));
    assert.equal(b.manager.sessionState.value.kind, "Expired");
    offline = false;
    assert.equal((await b.manager.refreshSession()).getOrThrow().refreshToken, "refresh-3");
    assert.deepEqual(b.events, ["SIGNED_IN", "TOKEN_REFRESHED"]);
    a.manager.dispose();
    b.manager.dispose();
  }));

Deno.test("a lapsed newer state taken after a refused grant is refreshed by the timer: auto-refresh goes on", () =>
  withClock(async (clock) => {
    const server = rotatingGoTrue();
    const storage = sharedStorage();
    const { storage: flakyRead, faults } = faulty(storage);
    const { a, b } = await twoTabs(server, storage, { storage: flakyRead, autoRefresh: true });
    await clock.tickAsync(60_000);
    assert.ok((await a.manager.refreshSession()).ok); // refresh-2 stored; A closes
    a.manager.dispose();
    // B sleeps past every expiry; its read before the grant fails once, so it sends its own
    // spent refresh-1 (GoTrue still takes it within its reuse interval here: say it does not).
    faults.loads = 1;
    server.endToken("refresh-1");
    clock.setSystemTime(Date.now() + 25 * 3_600_000); // asleep: no timer ran meanwhile
    await clock.tickAsync(3_600_000); // B's timer, late: everything stored has lapsed
    await clock.tickAsync(120_000);
    assert.equal(b.manager.currentSession?.refreshToken.startsWith("refresh-"), true);
    assert.equal(b.manager.sessionState.value.kind, "Authenticated");
    assert.ok(server.grants.includes("refresh-2"), server.grants.join(" "));
    assert.equal(server.isRevoked(), false);
    b.manager.dispose();
  }));

Deno.test("a sign-out right after a user update is stored at once, whatever the update's storage read waits for", () =>
  withClock(async (clock) => {
    const server = rotatingGoTrue();
    const storage = sharedStorage();
    const { storage: stuck, faults } = faulty(storage);
    const a = tab(server.fetch, stuck);
    await a.manager.saveSession(decodeSession(server.body(1)));
    faults.hang = true;
    const held = a.manager.currentSession!;
    const t0 = Date.now();
    const update = a.manager.saveSession({ ...held, user: { ...held.user, email: "n@x.io" } }, {
      event: "USER_UPDATED",
    });
    let clearedAt = 0;
    const clear = a.manager.clearSession().then(() => (clearedAt = Date.now()));
    await clock.tickAsync(10);
    await update;
    await clear;
    assert.equal(clearedAt - t0, 0);
    assert.equal(storage.value, null);
    a.manager.dispose();
  }));

Deno.test("which stored state is later is told by when it was obtained (ms, this device's clock): clock skew and one-second ties do not matter", async () => {
  for (const ms of [60_000, -3_000_000, 0]) {
    skew.ms = ms;
    try {
      await withClock(async (clock) => {
        const server = rotatingGoTrue();
        server.lifetime.jwt = true;
        const storage = sharedStorage();
        const a = tab(server.fetch, storage);
        const b = tab(server.fetch, storage);
        await a.manager.saveSession(decodeSession(server.body(1)));
        assert.ok((await b.manager.restoreSession()).ok);
        await clock.tickAsync(60_000);
        assert.ok((await a.manager.refreshSession()).ok); // refresh-2
        await clock.tickAsync(300);
        // B takes refresh-2, obtained 300 ms ago: no grant, whatever the server's clock says.
        assert.equal((await b.manager.refreshSession()).getOrThrow().refreshToken, "refresh-2");
        await clock.tickAsync(300);
        // A asks again within the same second: its own refresh-2, granted (refresh-3).
        assert.equal((await a.manager.refreshSession()).getOrThrow().refreshToken, "refresh-3");
        await clock.tickAsync(60_000);
        // B takes refresh-3 (obtained after its refresh-2, though of the same iat second).
        assert.equal((await b.manager.refreshSession()).getOrThrow().refreshToken, "refresh-4");
        assert.deepEqual(server.grants, ["refresh-1", "refresh-2", "refresh-3"], `skew ${ms}`);
        assert.equal(server.isRevoked(), false, `skew ${ms}`);
        // Thirty minutes later an explicit refresh is granted, whatever the server's clock.
        await clock.tickAsync(1_800_000);
        assert.equal((await a.manager.refreshSession()).getOrThrow().refreshToken, "refresh-5");
        assert.equal(storage.value?.refreshToken, "refresh-5");
        a.manager.dispose();
        b.manager.dispose();
      });
    } finally {
      skew.ms = 0;
    }
  }
});

Deno.test("two user updates at once in a tab that fell behind: the later one is stored in the newer state, the earlier writes nothing", () =>
  withClock(async (clock) => {
    const server = rotatingGoTrue();
    const storage = sharedStorage();
    const { a, b } = await twoTabs(server, storage);
    await clock.tickAsync(60_000);
    assert.ok((await a.manager.refreshSession()).ok);
    await clock.tickAsync(60_000);
    assert.ok((await a.manager.refreshSession()).ok); // storage: refresh-3
    const held = b.manager.currentSession!;
    const first = b.manager.saveSession({ ...held, user: { ...held.user, email: "x@x.io" } }, {
      event: "USER_UPDATED",
    });
    const second = b.manager.saveSession({ ...held, user: { ...held.user, email: "y@x.io" } }, {
      event: "USER_UPDATED",
    });
    await first;
    await second;
    assert.equal(storage.value?.refreshToken, "refresh-3");
    assert.equal(storage.value?.user.email, "y@x.io");
    assert.equal((await b.manager.refreshSession()).getOrThrow().refreshToken, "refresh-4");
    assert.equal(server.isRevoked(), false);
    a.manager.dispose();
    b.manager.dispose();
  }));

Deno.test("an explicit refresh refused as dead that finds a lapsed newer state refreshes that state: not a lapsed Success", () =>
  withClock(async (clock) => {
    const server = rotatingGoTrue();
    const storage = sharedStorage();
    const { storage: flakyRead, faults } = faulty(storage);
    const { a, b } = await twoTabs(server, storage, { storage: flakyRead });
    await clock.tickAsync(60_000);
    assert.ok((await a.manager.refreshSession()).ok); // refresh-2 stored; A closes
    a.manager.dispose();
    await clock.tickAsync(25 * 3_600_000);
    faults.loads = 1;
    server.endToken("refresh-1");
    const r = await b.manager.refreshSession();
    assert.equal(r.getOrThrow().refreshToken, "refresh-3");
    assert.equal(b.manager.sessionState.value.kind, "Authenticated");
    assert.equal(server.isRevoked(), false);
    b.manager.dispose();
  }));

Deno.test("the server's iat outranks this device's clock: a clock set back between two refreshes does not make the later state look older", () =>
  withClock(async (clock) => {
    const server = rotatingGoTrue();
    server.lifetime.jwt = true;
    const storage = sharedStorage();
    const a = tab(server.fetch, storage);
    const b = tab(server.fetch, storage);
    try {
      await a.manager.saveSession(decodeSession(server.body(1)));
      await clock.tickAsync(60_000);
      assert.ok((await a.manager.refreshSession()).ok); // refresh-2
      assert.ok((await b.manager.restoreSession()).ok);
      // The device clock is set back an hour; the server's is not.
      clock.setSystemTime(Date.now() - 3_600_000);
      skew.ms = -3_600_000;
      await clock.tickAsync(60_000);
      assert.ok((await a.manager.refreshSession()).ok); // refresh-3, stamped "earlier"
      await clock.tickAsync(60_000);
      assert.equal((await b.manager.refreshSession()).getOrThrow().refreshToken, "refresh-4");
      assert.deepEqual(server.grants, ["refresh-1", "refresh-2", "refresh-3"]);
      assert.equal(server.isRevoked(), false);
    } finally {
      skew.ms = 0;
      a.manager.dispose();
      b.manager.dispose();
    }
  }));

Deno.test("a user update of tokens stored without obtainedAt (an older version's payload) still goes into the newer state", () =>
  withClock(async (clock) => {
    const server = rotatingGoTrue();
    const storage = sharedStorage();
    storage.value = decodeSession(server.body(1)); // no obtainedAt: written before this version
    const a = tab(server.fetch, storage);
    const b = tab(server.fetch, storage);
    assert.ok((await a.manager.restoreSession()).ok);
    assert.ok((await b.manager.restoreSession()).ok);
    await clock.tickAsync(60_000);
    assert.ok((await a.manager.refreshSession()).ok); // refresh-2
    await clock.tickAsync(60_000);
    const held = b.manager.currentSession!;
    await b.manager.saveSession({ ...held, user: { ...held.user, email: "z@x.io" } }, {
      event: "USER_UPDATED",
    });
    assert.equal(storage.value?.refreshToken, "refresh-2");
    assert.equal(storage.value?.user.email, "z@x.io");
    assert.equal((await b.manager.refreshSession()).getOrThrow().refreshToken, "refresh-3");
    assert.equal(server.isRevoked(), false);
    a.manager.dispose();
    b.manager.dispose();
  }));

Deno.test("switching back to an account in one tab: another tab's restore takes it, though that tab once held it", () =>
  withClock(async () => {
    const server = rotatingGoTrue();
    const storage = sharedStorage();
    const a = tab(server.fetch, storage);
    const c = tab(server.fetch, storage);
    const x = decodeSession(server.signIn("ux", false));
    const y = decodeSession(server.signIn("uy", false));
    await a.manager.saveSession(x);
    assert.equal((await c.manager.restoreSession()).getOrThrow().user.id, "ux");
    await a.manager.saveSession(y);
    assert.equal((await c.manager.restoreSession()).getOrThrow().user.id, "uy");
    await a.manager.saveSession(x); // back to the first account, its tokens kept
    assert.equal((await c.manager.restoreSession()).getOrThrow().user.id, "ux");
    assert.equal(storage.value?.user.id, "ux");
    a.manager.dispose();
    c.manager.dispose();
  }));

Deno.test("a restore that reads another tab's refresh of the session held is a TOKEN_REFRESHED, not another SIGNED_IN; another user's session read is a SIGNED_IN", () =>
  withClock(async (clock) => {
    const server = rotatingGoTrue();
    const storage = sharedStorage();
    const { a, b } = await twoTabs(server, storage);
    await clock.tickAsync(60_000);
    assert.ok((await a.manager.refreshSession()).ok);
    // Tab B reads the storage again (an app calling restoreSession on a `storage` event).
    assert.equal((await b.manager.restoreSession()).getOrThrow().refreshToken, "refresh-2");
    assert.deepEqual(b.events, ["SIGNED_IN", "TOKEN_REFRESHED"]);
    // Tab A signs another user in: B's next read of it is a sign-in.
    await a.manager.saveSession(decodeSession(server.body(7, "u2")));
    assert.ok((await b.manager.restoreSession()).ok);
    assert.deepEqual(b.events, ["SIGNED_IN", "TOKEN_REFRESHED", "SIGNED_IN"]);
    a.manager.dispose();
    b.manager.dispose();
  }));

Deno.test("a grant answered after another tab rotated again takes that tab's stored state instead of writing over it (its token was sent next and revoked the session)", async () => {
  for (const gapMs of [1, 2_000]) {
    await withClock(async (clock) => {
      const server = rotatingGoTrue();
      server.lifetime.jwt = true; // iat in whole seconds: 1 ms apart is a tie, 2 s is not
      const storage = sharedStorage();
      // B's network is slow: its request waits for `request`, its answer for `answer`.
      const gates: { request?: Promise<void>; answer?: Promise<void> } = {};
      const slow = async (input: RequestInfo | URL, init?: RequestInit) => {
        await gates.request;
        const response = await server.fetch(input, init);
        await gates.answer;
        return response;
      };
      const { a, b } = await twoTabs(server, storage, { fetch: slow });
      await clock.tickAsync(60_000);
      let sendB!: () => void, answerB!: () => void;
      gates.request = new Promise<void>((r) => (sendB = r));
      gates.answer = new Promise<void>((r) => (answerB = r));
      const pending = b.manager.refreshSession();
      await clock.tickAsync(1);
      assert.ok((await a.manager.refreshSession()).ok); // refresh-1 → refresh-2
      sendB(); // B's refresh-1 reaches GoTrue: the active token's parent, answered refresh-2
      await clock.tickAsync(1);
      await clock.tickAsync(gapMs);
      assert.ok((await a.manager.refreshSession()).ok); // refresh-2 → refresh-3
      answerB(); // B's answer arrives last
      assert.equal((await pending).getOrThrow().refreshToken, "refresh-3", `gap ${gapMs}`);
      assert.equal(storage.value?.refreshToken, "refresh-3", "the newer state stays stored");
      assert.equal(b.manager.currentSession?.refreshToken, "refresh-3");
      assert.equal(b.client.accessToken, a.client.accessToken);
      assert.deepEqual(b.events, ["SIGNED_IN", "TOKEN_REFRESHED"]);
      // A later refresh in either tab sends the active token: the session lives on.
      await clock.tickAsync(60_000);
      assert.equal((await b.manager.refreshSession()).getOrThrow().refreshToken, "refresh-4");
      assert.deepEqual(server.grants, ["refresh-1", "refresh-1", "refresh-2", "refresh-3"]);
      assert.equal(server.isRevoked(), false);
      a.manager.dispose();
      b.manager.dispose();
    });
  }
});
