// Tabs sharing one storage when the user switches account, and restores that find a lapsed
// session (found by a review of the session manager against auth-js): a background refresh in
// the tab switched away from once wrote its account back over the switch; a lapsed session taken
// from the storage was announced only as TOKEN_REFRESHED, never SIGNED_IN; and a refresh refused
// as dead cleared another tab's sign-in when the storage could not be read.
import assert from "node:assert/strict";
import { createAuthClient } from "../../auth/client.ts";
import { decodeSession, type Session } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import { createSessionManager, type SessionStorage } from "../../session/mod.ts";
import { BASE, json, jwt, KEY, withClock } from "./_helpers.ts";

/**
 * GoTrue with any number of sessions: a grant of a session's active refresh token rotates it
 * (its old token is then refused as dead); `end` ends a session (a sign-out elsewhere).
 */
function goTrue() {
  let counter = 0;
  const active = new Map<string, { user: string; sid: string }>();
  const grants: string[] = [];
  const body = (user: string, sid: string, lifetime = 3600) => {
    const token = `refresh-${++counter}`;
    active.set(token, { user, sid });
    const iat = Math.floor(Date.now() / 1000);
    return {
      access_token: jwt({ sub: user, session_id: sid, iat, exp: iat + lifetime }),
      refresh_token: token,
      expires_in: lifetime,
      expires_at: iat + lifetime,
      token_type: "bearer",
      user: { id: user, email: `${user}@x.io` },
    };
  };
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const token = (await new Request(input, init).json()).refresh_token as string;
    grants.push(token);
    const owner = active.get(token);
    if (!owner) return json({ error_code: "refresh_token_not_found", msg: "Invalid" }, 400);
    active.delete(token);
    return json(body(owner.user, owner.sid));
  };
  return {
    fetch,
    grants,
    /** A new sign-in of `user` (a session of its own). */
    signIn: (user: string, lifetime = 3600) =>
      decodeSession(body(user, `sid-${user}-${counter}`, lifetime)),
    /** Ends every session of `user` at the server. */
    end(user: string) {
      for (const [token, owner] of active) if (owner.user === user) active.delete(token);
    },
  };
}

/** One origin's storage, whose reads can be made to fail. */
function sharedStorage(): SessionStorage & { value: Session | null; failReads: boolean } {
  return {
    value: null,
    failReads: false,
    save(s: Session) {
      this.value = s;
    },
    load() {
      if (this.failReads) throw new Error("storage unavailable");
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
  manager.onAuthStateChange((e, s) => events.push(s ? `${e}:${s.user.id}` : e), {
    emitInitialSession: false,
  });
  return { client, manager, events };
}

const userOf = (s: Session | null) => s?.user.id ?? null;

Deno.test("a tab's refreshes of an account another tab switched away from are not stored over the switch", () =>
  withClock(async (clock) => {
    const server = goTrue();
    const storage = sharedStorage();
    const one = tab(server.fetch, storage, true);
    const two = tab(server.fetch, storage, true);
    await one.manager.saveSession(server.signIn("alice"));
    await clock.tickAsync(10 * 60_000);
    await two.manager.saveSession(server.signIn("bob")); // the user switches account in tab two
    // Tab one's timer refreshes alice (59 minutes after her sign-in), twice; tab two's, bob.
    await clock.tickAsync(50 * 60_000);
    await clock.tickAsync(60 * 60_000);
    assert.deepEqual(server.grants, ["refresh-1", "refresh-2", "refresh-3"]);
    assert.equal(userOf(one.manager.currentSession), "alice", "tab one keeps her in memory");
    assert.deepEqual(one.events, [
      "SIGNED_IN:alice",
      "TOKEN_REFRESHED:alice",
      "TOKEN_REFRESHED:alice",
    ]);
    assert.equal(userOf(storage.value), "bob", "the switch stays stored");
    // Tab two's restore and a reloaded page find bob.
    assert.equal(userOf((await two.manager.restoreSession()).getOrThrow()), "bob");
    // (A restore re-announces the session it reads, as auth-js's recovery does: never alice.)
    assert.deepEqual(two.events, ["SIGNED_IN:bob", "TOKEN_REFRESHED:bob", "SIGNED_IN:bob"]);
    const reloaded = tab(server.fetch, storage);
    assert.equal(userOf((await reloaded.manager.restoreSession()).getOrThrow()), "bob");
    // Tab one's own restore takes bob; its refreshes of him are stored again.
    assert.equal(userOf((await one.manager.restoreSession()).getOrThrow()), "bob");
    assert.deepEqual(one.events.slice(3), ["SIGNED_IN:bob"]);
    const bobs = (await one.manager.refreshSession()).getOrThrow();
    assert.equal(storage.value?.refreshToken, bobs.refreshToken);
    // And a sign-in in tab one is its own act: stored over whatever another tab wrote.
    await two.manager.saveSession(server.signIn("carol"));
    await one.manager.saveSession(server.signIn("dave"));
    assert.equal(userOf(storage.value), "dave");
    for (const t of [one, two, reloaded]) t.manager.dispose();
  }));

Deno.test("a tab's refresh answered after another tab switched account is not stored over the switch", () =>
  withClock(async (clock) => {
    const server = goTrue();
    const storage = sharedStorage();
    let duringGrant: (() => Promise<void>) | null = null;
    const slow: typeof globalThis.fetch = async (input, init) => {
      const answer = await server.fetch(input, init);
      const hook = duringGrant;
      duringGrant = null;
      await hook?.();
      return answer;
    };
    const one = tab(slow, storage);
    const two = tab(server.fetch, storage);
    await one.manager.saveSession(server.signIn("alice"));
    await clock.tickAsync(60_000);
    duringGrant = () => two.manager.saveSession(server.signIn("bob"));
    assert.equal(userOf((await one.manager.refreshSession()).getOrThrow()), "alice");
    assert.equal(userOf(storage.value), "bob");
    await clock.tickAsync(60_000);
    assert.ok((await one.manager.refreshSession()).ok);
    assert.equal(userOf(storage.value), "bob", "nor by the refresh after it");
    one.manager.dispose();
    two.manager.dispose();
  }));

Deno.test("a restore that takes a lapsed session from the storage announces it SIGNED_IN when its grant succeeds", () =>
  withClock(async (clock) => {
    const server = goTrue();
    const storage = sharedStorage();
    // A fresh page: the stored token lapsed overnight.
    storage.value = server.signIn("alice");
    await clock.tickAsync(3 * 3600_000);
    const page = tab(server.fetch, storage, true);
    assert.equal(userOf((await page.manager.initialize()).getOrThrow()), "alice");
    assert.deepEqual(page.events, ["SIGNED_IN:alice"]);
    // Its later refreshes are refreshes.
    assert.ok((await page.manager.refreshSession()).ok);
    assert.deepEqual(page.events, ["SIGNED_IN:alice", "TOKEN_REFRESHED:alice"]);
    // Another account's lapsed session read while one is held: a sign-in too.
    storage.value = server.signIn("bob", 60);
    await clock.tickAsync(120_000);
    assert.equal(userOf((await page.manager.restoreSession()).getOrThrow()), "bob");
    assert.deepEqual(page.events.slice(2), ["SIGNED_IN:bob"]);
    // The session held, lapsed and read back: its grant is a refresh.
    page.manager.stopAutoRefresh();
    await clock.tickAsync(2 * 3600_000);
    assert.equal(page.manager.sessionState.value.kind, "Expired");
    assert.equal((await page.manager.restoreSession()).errorOrNull()?.category, "NO_SESSION");
    assert.ok((await page.manager.refreshSession()).ok);
    assert.deepEqual(page.events.slice(3), ["TOKEN_REFRESHED:bob"]);
    page.manager.dispose();
  }));

Deno.test("a restore that swaps the account held for a lapsed one it cannot refresh now says SIGNED_OUT; its later grant says SIGNED_IN", () =>
  withClock(async (clock) => {
    const server = goTrue();
    let down = false;
    const flaky: typeof globalThis.fetch = (input, init) =>
      down ? Promise.reject(new TypeError("offline")) : server.fetch(input, init);
    for (const autoRefresh of [false, true]) {
      const storage = sharedStorage();
      const page = tab(flaky, storage, autoRefresh);
      await page.manager.saveSession(server.signIn("alice"));
      storage.value = server.signIn("bob", 60); // another tab's sign-in, lapsed by the read
      await clock.tickAsync(120_000);
      down = true;
      const r = await page.manager.restoreSession();
      assert.equal(r.ok, false, `autoRefresh ${autoRefresh}`);
      assert.equal(page.manager.sessionState.value.kind, "Expired");
      assert.equal(page.client.accessToken, storage.value!.accessToken);
      assert.deepEqual(
        page.events,
        ["SIGNED_IN:alice", "SIGNED_OUT"],
        `autoRefresh ${autoRefresh}`,
      );
      page.manager.stopAutoRefresh();
      down = false;
      assert.equal(userOf((await page.manager.refreshSession()).getOrThrow()), "bob");
      assert.deepEqual(page.events, ["SIGNED_IN:alice", "SIGNED_OUT", "SIGNED_IN:bob"]);
      page.manager.dispose();
    }
  }));

Deno.test("a refresh refused as dead leaves the storage alone when it cannot be read, or holds another sign-in of the same second", () =>
  withClock(async (clock) => {
    for (const how of ["unreadable", "same second"] as const) {
      const server = goTrue();
      const storage = sharedStorage();
      const one = tab(server.fetch, storage);
      const two = tab(server.fetch, storage);
      await one.manager.saveSession(server.signIn("alice"));
      if (how === "unreadable") await clock.tickAsync(60_000);
      server.end("alice"); // signed out elsewhere
      await two.manager.saveSession(server.signIn("bob"));
      storage.failReads = how === "unreadable";
      const r = await one.manager.refreshSession();
      assert.equal(r.errorOrNull()?.code, "refresh_token_not_found", how);
      assert.equal(one.manager.currentSession, null, how);
      assert.deepEqual(one.events, ["SIGNED_IN:alice", "SIGNED_OUT"], how);
      assert.equal(userOf(storage.value), "bob", `${how}: bob's sign-in stays stored`);
      one.manager.dispose();
      two.manager.dispose();
    }
    // The dead session itself stored is still cleared.
    const server = goTrue();
    const storage = sharedStorage();
    const one = tab(server.fetch, storage);
    await one.manager.saveSession(server.signIn("alice"));
    server.end("alice");
    assert.equal((await one.manager.refreshSession()).ok, false);
    assert.equal(storage.value, null);
    one.manager.dispose();
  }));
