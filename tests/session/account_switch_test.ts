// Tabs sharing one storage when the user switches account, and restores that find a lapsed
// session (found by reviews of the session manager against auth-js): a background refresh in the
// tab switched away from once wrote its account back over the switch; a lapsed session taken from
// the storage was announced only as TOKEN_REFRESHED, never SIGNED_IN; and a refresh refused as
// dead cleared another tab's sign-in when the storage could not be read. A tab switched away from
// ends its session in memory at its next refresh: it neither sends that session's token nor acts
// for the other account.
import assert from "node:assert/strict";
import { createAuthClient } from "../../auth/client.ts";
import { decodeSession, type Session, SignOutScope } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import {
  createSessionManager,
  type SessionManager,
  type SessionStorage,
  signOutCurrentSession,
  updateUserForCurrentSession,
} from "../../session/mod.ts";
import { BASE, type Clock, duringAnswer, json, jwt, KEY, withClock } from "./_helpers.ts";

/**
 * GoTrue with any number of sessions: a grant of a session's active refresh token rotates it
 * (its old token is then refused as dead; its access tokens keep the sign-in's `amr` time);
 * `end` ends a session (a sign-out elsewhere); `/logout` and `PUT /user` act for the bearer.
 */
function goTrue() {
  let counter = 0;
  const active = new Map<string, { user: string; sid: string; at: number }>();
  const grants: string[] = [];
  const log: string[] = [];
  const body = (user: string, sid: string, at: number, lifetime = 3600) => {
    const token = `refresh-${++counter}`;
    active.set(token, { user, sid, at });
    const iat = Math.floor(Date.now() / 1000);
    return {
      access_token: jwt({
        sub: user,
        session_id: sid,
        iat,
        exp: iat + lifetime,
        amr: [{ method: "password", timestamp: at }],
      }),
      refresh_token: token,
      expires_in: lifetime,
      expires_at: iat + lifetime,
      token_type: "bearer",
      user: { id: user, email: `${user}@x.io` },
    };
  };
  const claims = (req: Request) => {
    const token = (req.headers.get("authorization") ?? "").replace(/^Bearer /, "");
    return JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
  };
  const bearer = (req: Request) => claims(req).sub;
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    const path = new URL(req.url).pathname;
    if (path.endsWith("/logout")) {
      const { sub, session_id, exp } = claims(req);
      if (exp * 1000 <= Date.now()) return json({ error_code: "bad_jwt", msg: "expired" }, 403);
      const scope = new URL(req.url).searchParams.get("scope") ?? "global";
      log.push(scope === "local" ? `logout ${sub}` : `logout ${sub} ${scope}`);
      for (const [token, owner] of active) {
        const own = owner.sid === session_id;
        if (owner.user === sub && (scope === "global" || own === (scope === "local"))) {
          active.delete(token);
        }
      }
      return new Response(null, { status: 204 });
    }
    if (path.endsWith("/user")) {
      log.push(`update ${bearer(req)}`);
      return json({ id: bearer(req), email: "changed@x.io" });
    }
    const token = (await req.json()).refresh_token as string;
    grants.push(token);
    const owner = active.get(token);
    if (!owner) return json({ error_code: "refresh_token_not_found", msg: "Invalid" }, 400);
    active.delete(token);
    return json(body(owner.user, owner.sid, owner.at));
  };
  return {
    fetch,
    grants,
    log,
    /** A new sign-in of `user` (a session of its own), now. */
    signIn: (user: string, lifetime = 3600) =>
      decodeSession(
        body(user, `sid-${user}-${counter}`, Math.floor(Date.now() / 1000), lifetime),
      ),
    /** Whether `user` has a live session at the server. */
    alive: (user: string) => [...active.values()].some((o) => o.user === user),
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
  const auth = createAuthClient(client);
  const manager = createSessionManager(auth, client, { storage, autoRefresh });
  const events: string[] = [];
  manager.onAuthStateChange((e, s) => events.push(s ? `${e}:${s.user.id}` : e), {
    emitInitialSession: false,
  });
  return { client, auth, manager, events };
}

const userOf = (s: Session | null) => s?.user.id ?? null;

/** One tab, signed in as alice, over its own storage. */
async function signedIn() {
  const server = goTrue();
  const storage = sharedStorage();
  const one = tab(server.fetch, storage);
  await one.manager.saveSession(server.signIn("alice"));
  return { server, storage, one };
}

/** Makes the storage's reads answer `ms` later, or never; the function returned undoes it. */
function delayReads(storage: SessionStorage, ms: number | "hang"): () => void {
  const read = storage.load;
  const load = read.bind(storage);
  storage.load = () =>
    new Promise<Session | null>((r) => {
      if (ms !== "hang") setTimeout(() => r(load()), ms);
    });
  return () => void (storage.load = read);
}

/**
 * Tab one, whose grants are answered after `slow.next`'s action, signs alice in; tab two, over the
 * same storage, restores her; a minute passes.
 */
async function aliceWithSlowGrants(clock: Clock) {
  const server = goTrue();
  const storage = sharedStorage();
  const slow = duringAnswer(server.fetch);
  const one = tab(slow.fetch, storage);
  const two = tab(server.fetch, storage);
  await one.manager.saveSession(server.signIn("alice"));
  assert.equal(userOf((await two.manager.restoreSession()).getOrThrow()), "alice");
  await clock.tickAsync(60_000);
  return { server, storage, slow, one, two };
}

/**
 * Tab one signs alice in; `gapMs` later tab two signs bob in over it, in the same storage (the
 * user switched account). `fetch` wraps the server for tab one.
 */
async function switchedAway(
  clock: Clock,
  o: {
    autoRefresh?: boolean;
    gapMs?: number;
    fetch?: (server: ReturnType<typeof goTrue>) => typeof globalThis.fetch;
    before?: (server: ReturnType<typeof goTrue>) => void;
  } = {},
) {
  const server = goTrue();
  const storage = sharedStorage();
  const one = tab(o.fetch?.(server) ?? server.fetch, storage, o.autoRefresh ?? false);
  const two = tab(server.fetch, storage);
  o.before?.(server);
  await one.manager.saveSession(server.signIn("alice"));
  await clock.tickAsync(o.gapMs ?? 30_000);
  await two.manager.saveSession(server.signIn("bob"));
  return { server, storage, one, two };
}

Deno.test("a tab whose account another tab switched away from ends it at its next refresh: its token is not sent, the switch stays stored", () =>
  withClock(async (clock) => {
    const server = goTrue();
    const storage = sharedStorage();
    const one = tab(server.fetch, storage, true);
    const two = tab(server.fetch, storage, true);
    const three = tab(server.fetch, storage); // another tab on alice, asleep
    await one.manager.saveSession(server.signIn("alice"));
    assert.equal(userOf((await three.manager.restoreSession()).getOrThrow()), "alice");
    await clock.tickAsync(10 * 60_000);
    await two.manager.saveSession(server.signIn("bob")); // the user switches account in tab two
    // Tab one's timer, due for alice 59 minutes after her sign-in, finds bob's sign-in.
    await clock.tickAsync(50 * 60_000);
    assert.equal(one.manager.currentSession, null);
    assert.equal(one.client.accessToken, null);
    assert.deepEqual(one.events, ["SIGNED_IN:alice", "SIGNED_OUT"]);
    assert.equal(server.grants.length, 0, "alice's token was not sent");
    assert.equal(userOf(storage.value), "bob", "the switch stays stored");
    // The sleeping tab wakes and refreshes: it ends alice too, sending nothing of hers.
    const r = await three.manager.refreshSession();
    assert.equal(r.errorOrNull()?.code, "signed_in_elsewhere");
    assert.equal(r.errorOrNull()?.category, "NO_SESSION");
    assert.deepEqual(three.events, ["SIGNED_IN:alice", "SIGNED_OUT"]);
    assert.equal(server.grants.length, 0);
    // Bob's tab refreshes him when due; a restore or a reloaded page finds him.
    await clock.tickAsync(20 * 60_000);
    assert.equal(server.grants.length, 1);
    assert.equal(two.manager.currentSession?.refreshToken, storage.value?.refreshToken);
    assert.equal(userOf((await one.manager.restoreSession()).getOrThrow()), "bob");
    assert.deepEqual(one.events, ["SIGNED_IN:alice", "SIGNED_OUT", "SIGNED_IN:bob"]);
    const reloaded = tab(server.fetch, storage);
    assert.equal(userOf((await reloaded.manager.restoreSession()).getOrThrow()), "bob");
    for (const t of [one, two, three, reloaded]) t.manager.dispose();
  }));

Deno.test("a refresh answered after another tab switched account is not stored over the switch: its session ends here", () =>
  withClock(async (clock) => {
    const { server, storage, slow, one, two } = await aliceWithSlowGrants(clock);
    slow.next(() => two.manager.saveSession(server.signIn("bob")));
    const r = await one.manager.refreshSession();
    assert.equal(r.errorOrNull()?.code, "signed_in_elsewhere");
    assert.equal(userOf(storage.value), "bob");
    assert.equal(one.manager.currentSession, null);
    assert.deepEqual(one.events, ["SIGNED_IN:alice", "SIGNED_OUT"]);
    one.manager.dispose();
    two.manager.dispose();
  }));

Deno.test("an older sign-in of another account stays older though refreshed later: the tab's own sign-in is refreshed and stored over it", () =>
  withClock(async (clock) => {
    for (const when of ["before the grant", "during the grant"] as const) {
      const server = goTrue();
      const storage = sharedStorage();
      const slow = duringAnswer(server.fetch);
      const three = tab(server.fetch, storage);
      await three.manager.saveSession(server.signIn("carol"));
      await clock.tickAsync(60_000);
      // Tab one signs dave in, but its write fails: the storage keeps carol's older sign-in.
      const one = tab(slow.fetch, storage);
      const save = storage.save;
      storage.save = () => {
        throw new Error("quota");
      };
      await assert.rejects(one.manager.saveSession(server.signIn("dave")));
      storage.save = save;
      await clock.tickAsync(60_000);
      // Carol's tab refreshes her: her state is issued later than dave's, her sign-in is not.
      const refreshCarol = () => three.manager.refreshSession();
      if (when === "before the grant") assert.ok((await refreshCarol()).ok);
      else slow.next(refreshCarol);
      assert.equal(userOf((await one.manager.refreshSession()).getOrThrow()), "dave", when);
      assert.equal(userOf(storage.value), "dave", when);
      assert.deepEqual(one.events, ["SIGNED_IN:dave", "TOKEN_REFRESHED:dave"], when);
      one.manager.dispose();
      three.manager.dispose();
    }
  }));

Deno.test("a lapsed session's sign-out or user update in a tab switched away from acts for no other account", () =>
  withClock(async (clock) => {
    const { server, storage, one, two } = await switchedAway(clock, { autoRefresh: true });
    // The device sleeps past alice's expiry: no timer has run when the app acts.
    clock.setSystemTime(clock.now + 2 * 3600_000);
    const updated = await updateUserForCurrentSession(one.auth, one.manager, { email: "n@x.io" });
    assert.equal(updated.errorOrNull()?.code, "signed_in_elsewhere");
    assert.deepEqual(server.log, [], "bob's user was not changed");
    assert.deepEqual(one.events, ["SIGNED_IN:alice", "SIGNED_OUT"]);
    // Signed in again as alice, lapsed again, then signed out: alice is signed out with a token
    // of her own grant, and nothing goes out with bob's.
    const again = server.signIn("alice");
    await one.manager.saveSession(again);
    await clock.tickAsync(1_000);
    await two.manager.saveSession(server.signIn("bob"));
    clock.setSystemTime(clock.now + 2 * 3600_000);
    assert.ok((await signOutCurrentSession(one.auth, one.manager)).ok);
    assert.deepEqual(server.log, ["logout alice"]);
    assert.deepEqual(server.grants, [again.refreshToken]);
    assert.equal(one.manager.currentSession, null);
    assert.equal(userOf(storage.value), "bob", "bob's sign-in stays stored");
    assert.ok(server.alive("bob"));
    one.manager.dispose();
    two.manager.dispose();
  }));

Deno.test("a user update in a tab whose account another tab switched away from stays in memory: the switch stays stored", () =>
  withClock(async (clock) => {
    const server = goTrue();
    const storage = sharedStorage();
    const one = tab(server.fetch, storage);
    const two = tab(server.fetch, storage);
    const alice = server.signIn("alice");
    await one.manager.saveSession(alice);
    await clock.tickAsync(60_000);
    await two.manager.saveSession(server.signIn("bob"));
    const updated = { ...alice, user: { ...alice.user, email: "new@x.io" } };
    await one.manager.saveSession(updated, { event: "USER_UPDATED" });
    assert.equal(one.manager.currentSession?.user.email, "new@x.io");
    assert.deepEqual(one.events, ["SIGNED_IN:alice", "USER_UPDATED:alice"]);
    assert.equal(userOf(storage.value), "bob");
    assert.equal((await one.manager.refreshSession()).errorOrNull()?.code, "signed_in_elsewhere");
    assert.equal(server.grants.length, 0);
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
    const { server, storage, one } = await signedIn();
    server.end("alice");
    assert.equal((await one.manager.refreshSession()).ok, false);
    assert.equal(storage.value, null);
    one.manager.dispose();
  }));

Deno.test("a lapsed session taken but not yet announced is announced SIGNED_IN however it comes alive: another tab's refresh read, or a save", () =>
  withClock(async (clock) => {
    for (const held of ["none", "another account"] as const) {
      const server = goTrue();
      const storage = sharedStorage();
      const page = tab(server.fetch, storage);
      const other = tab(server.fetch, storage);
      if (held === "another account") await page.manager.saveSession(server.signIn("alice"));
      storage.value = server.signIn("bob", 60);
      await clock.tickAsync(120_000);
      // Taken lapsed (auto-refresh off): not refreshed, not announced.
      assert.equal((await page.manager.restoreSession()).ok, false);
      const before = held === "none" ? [] : ["SIGNED_IN:alice", "SIGNED_OUT"];
      assert.deepEqual(page.events, before, held);
      // Another tab takes bob too and refreshes him: a live state of his session is stored.
      assert.equal((await other.manager.restoreSession()).ok, false);
      assert.ok((await other.manager.refreshSession()).ok);
      assert.equal(userOf((await page.manager.restoreSession()).getOrThrow()), "bob", held);
      assert.deepEqual(page.events, [...before, "SIGNED_IN:bob"], held);
      page.manager.dispose();
      other.manager.dispose();
    }
    // Saved by the app meanwhile: the save's SIGNED_IN announces it, the grant is a refresh.
    const server = goTrue();
    const storage = sharedStorage();
    storage.value = server.signIn("carol", 60);
    await clock.tickAsync(120_000);
    const page = tab(server.fetch, storage);
    assert.equal((await page.manager.restoreSession()).ok, false);
    const lapsed = page.manager.sessionState.value;
    assert.equal(lapsed.kind, "Expired");
    await page.manager.saveSession(lapsed.kind === "Expired" ? lapsed.lastSession : null!);
    assert.ok((await page.manager.refreshSession()).ok);
    assert.deepEqual(page.events, ["SIGNED_IN:carol", "TOKEN_REFRESHED:carol"]);
    page.manager.dispose();
  }));

Deno.test("the same user signing in again in another tab is no switch: the tab goes on with its own session, no sign-out", () =>
  withClock(async (clock) => {
    const server = goTrue();
    const storage = sharedStorage();
    const one = tab(server.fetch, storage, true);
    const two = tab(server.fetch, storage);
    const first = server.signIn("alice");
    await one.manager.saveSession(first);
    await clock.tickAsync(10 * 60_000);
    // A magic link opened in a new tab: another session of the same user.
    await two.manager.saveSession(server.signIn("alice"));
    await clock.tickAsync(50 * 60_000);
    assert.deepEqual(server.grants, [first.refreshToken], "its own token, not the other's");
    assert.deepEqual(one.events, ["SIGNED_IN:alice", "TOKEN_REFRESHED:alice"]);
    assert.equal(storage.value?.refreshToken, one.manager.currentSession?.refreshToken);
    one.manager.dispose();
    two.manager.dispose();
  }));

Deno.test("after signing out the user's other sessions, the tab keeps its own: the revoked one still stored is not taken", () =>
  withClock(async (clock) => {
    const server = goTrue();
    const storage = sharedStorage();
    const one = tab(server.fetch, storage, true);
    const two = tab(server.fetch, storage);
    await one.manager.saveSession(server.signIn("alice"));
    await clock.tickAsync(10 * 60_000);
    await two.manager.saveSession(server.signIn("alice")); // a magic link's tab, then closed
    two.manager.dispose();
    const others = await signOutCurrentSession(one.auth, one.manager, {
      scope: SignOutScope.OTHERS,
    });
    assert.ok(others.ok);
    assert.deepEqual(server.log, ["logout alice others"]);
    await clock.tickAsync(50 * 60_000); // tab one's timer refreshes
    await clock.tickAsync(30 * 60_000); // (past when the revoked session's refresh was due)
    assert.equal(userOf(one.manager.currentSession), "alice");
    assert.deepEqual(one.events, ["SIGNED_IN:alice", "TOKEN_REFRESHED:alice"]);
    assert.equal(storage.value?.refreshToken, one.manager.currentSession?.refreshToken);
    one.manager.dispose();
  }));

Deno.test("a GLOBAL or OTHERS sign-out of a lapsed session in a tab switched away from still reaches the server, with a token of its own grant", () =>
  withClock(async (clock) => {
    for (const scope of [SignOutScope.GLOBAL, SignOutScope.OTHERS]) {
      let phone!: Session; // another device
      const { server, storage, one, two } = await switchedAway(clock, {
        autoRefresh: true,
        before: (server) => void (phone = server.signIn("alice")),
      });
      clock.setSystemTime(clock.now + 2 * 3600_000); // tab one slept past alice's expiry
      const r = await signOutCurrentSession(one.auth, one.manager, { scope });
      assert.ok(r.ok, scope);
      assert.deepEqual(server.log, [`logout alice ${scope}`], scope);
      assert.equal(server.alive("alice"), scope === SignOutScope.OTHERS, scope);
      assert.equal(server.grants.includes(phone.refreshToken), false);
      // OTHERS keeps the session, in memory only (its next refresh ends it: bob is stored).
      assert.equal(
        userOf(one.manager.currentSession),
        scope === SignOutScope.OTHERS ? "alice" : null,
        scope,
      );
      assert.equal(userOf(storage.value), "bob", `${scope}: bob's sign-in stays stored`);
      assert.ok(server.alive("bob"), scope);
      one.manager.dispose();
      two.manager.dispose();
    }
  }));

Deno.test("a LOCAL sign-out of a live session in a tab switched away from leaves the other account's sign-in stored", () =>
  withClock(async (clock) => {
    const { server, storage, one, two } = await switchedAway(clock);
    assert.ok((await signOutCurrentSession(one.auth, one.manager)).ok);
    assert.deepEqual(server.log, ["logout alice"], "alice is signed out with her own token");
    assert.equal(one.manager.currentSession, null);
    assert.deepEqual(one.events, ["SIGNED_IN:alice", "SIGNED_OUT"]);
    assert.equal(userOf(storage.value), "bob", "bob's sign-in stays stored");
    // Without a switch the sign-out clears the storage, as before.
    await one.manager.saveSession(server.signIn("carol"));
    assert.ok((await signOutCurrentSession(one.auth, one.manager)).ok);
    assert.equal(storage.value, null);
    one.manager.dispose();
    two.manager.dispose();
  }));

Deno.test("a sign-out in a tab switched away from that fails can be retried: the session is still held, with the tokens of its own grant", () =>
  withClock(async (clock) => {
    for (const fault of ["offline", "logout fails"] as const) {
      let failing: "grant" | "logout" | null = fault === "offline" ? "grant" : "logout";
      const { server, storage, one, two } = await switchedAway(clock, {
        autoRefresh: true,
        fetch: (server) => (input, init) => {
          const path = new URL(new Request(input, init).url).pathname;
          if (failing === "grant" && path.endsWith("/token")) {
            return Promise.reject(new TypeError("offline"));
          }
          if (failing === "logout" && path.endsWith("/logout")) {
            return Promise.resolve(json({ msg: "unavailable" }, 503));
          }
          return server.fetch(input, init);
        },
      });
      clock.setSystemTime(clock.now + 2 * 3600_000);
      const global = { scope: SignOutScope.GLOBAL };
      const first = await signOutCurrentSession(one.auth, one.manager, global);
      assert.equal(first.ok, false, fault);
      assert.equal(userOf(one.manager.currentSession ?? heldLapsed(one.manager)), "alice", fault);
      failing = null;
      await clock.tickAsync(20_000); // past GoTrue's reuse interval
      assert.ok((await signOutCurrentSession(one.auth, one.manager, global)).ok, fault);
      assert.deepEqual(server.log, ["logout alice global"], fault);
      assert.equal(server.alive("alice"), false, fault);
      assert.equal(userOf(storage.value), "bob", fault);
      one.manager.dispose();
      two.manager.dispose();
    }
  }));

Deno.test("a LOCAL sign-out of a session found dead leaves another account's sign-in stored, made before or after it", () =>
  withClock(async (clock) => {
    const server = goTrue();
    const storage = sharedStorage();
    const two = tab(server.fetch, storage);
    await two.manager.saveSession(server.signIn("bob")); // bob first
    await clock.tickAsync(60_000);
    const one = tab(server.fetch, storage);
    const save = storage.save;
    storage.save = () => {
      throw new Error("quota"); // alice's write fails: bob stays stored
    };
    await assert.rejects(one.manager.saveSession(server.signIn("alice")));
    storage.save = save;
    server.end("alice"); // signed out elsewhere
    clock.setSystemTime(clock.now + 2 * 3600_000);
    assert.ok((await signOutCurrentSession(one.auth, one.manager)).ok);
    assert.equal(one.manager.currentSession, null);
    assert.equal(userOf(storage.value), "bob");
    one.manager.dispose();
    two.manager.dispose();
  }));

function heldLapsed(manager: SessionManager): Session | null {
  const state = manager.sessionState.value;
  return state.kind === "Expired" ? state.lastSession : null;
}

Deno.test("a sign-out whose storage read hangs forgets the session at once, and clears the storage in its turn after at most 1 s; its signal ends only the wait", () =>
  withClock(async (clock) => {
    for (const abort of [true, false]) {
      const { server, storage, one } = await signedIn();
      delayReads(storage, "hang");
      const aborted = new AbortController();
      const settled: string[] = [];
      const out = signOutCurrentSession(one.auth, one.manager, { signal: aborted.signal })
        .then((r) => settled.push(r.ok ? "ok" : r.error.category));
      await clock.tickAsync(100);
      assert.deepEqual(server.log, ["logout alice"]);
      assert.equal(one.manager.currentSession, null, "forgotten at once");
      if (abort) aborted.abort();
      await clock.tickAsync(1);
      assert.deepEqual(settled, abort ? ["CANCELLED"] : [], `abort ${abort}`);
      await clock.tickAsync(1_000);
      await out;
      assert.deepEqual(settled, [abort ? "CANCELLED" : "ok"]);
      assert.equal(storage.value, null, "cleared all the same");
      assert.deepEqual(one.events, ["SIGNED_IN:alice", "SIGNED_OUT"]);
      one.manager.dispose();
    }
  }));

Deno.test("a sign-in right after a sign-out whose storage read hangs is not held back: it ends the read, and its write replaces what is stored", () =>
  withClock(async (clock) => {
    const { server, storage, one } = await signedIn();
    delayReads(storage, "hang");
    const out = signOutCurrentSession(one.auth, one.manager);
    await clock.tickAsync(10);
    const carol = server.signIn("carol");
    let saved = false;
    const saving = one.manager.saveSession(carol).then(() => (saved = true));
    await clock.tickAsync(5);
    assert.ok(saved, "the save waited for no read");
    await saving;
    assert.ok((await out).ok);
    assert.equal(storage.value?.refreshToken, carol.refreshToken);
    assert.equal(one.manager.currentSession?.refreshToken, carol.refreshToken);
    one.manager.dispose();
  }));

Deno.test("a restore during a sign-out's storage turn finds the session cleared: it does not come back", () =>
  withClock(async (clock) => {
    const { storage, one } = await signedIn();
    delayReads(storage, 20);
    const restored: boolean[] = [];
    one.manager.onAuthStateChange((e) => {
      // An app that reads the storage again on SIGNED_OUT (or on focus, meanwhile).
      if (e === "SIGNED_OUT") void one.manager.restoreSession().then((r) => restored.push(r.ok));
    }, { emitInitialSession: false });
    const out = signOutCurrentSession(one.auth, one.manager);
    await clock.tickAsync(5);
    const meanwhile = one.manager.restoreSession().then((r) => restored.push(r.ok));
    await clock.tickAsync(200);
    assert.ok((await out).ok);
    await meanwhile;
    assert.deepEqual(restored, [false, false]);
    assert.equal(one.manager.currentSession, null);
    assert.equal(storage.value, null);
    one.manager.dispose();
  }));

Deno.test("a lapsed session's sign-out whose storage read hangs stops at its timeout, with nothing sent and the session kept", () =>
  withClock(async (clock) => {
    const { server, storage, one } = await signedIn();
    clock.setSystemTime(clock.now + 2 * 3600_000);
    delayReads(storage, "hang");
    const out = signOutCurrentSession(one.auth, one.manager, { timeout: 500 });
    await clock.tickAsync(500);
    assert.equal((await out).errorOrNull()?.category, "TIMEOUT");
    assert.deepEqual(server.log, []);
    assert.deepEqual(server.grants, []);
    assert.equal(heldLapsed(one.manager)?.user.id, "alice");
    one.manager.dispose();
  }));

Deno.test("a sign-out racing the tab's own timer after another account signed in still signs its session out, with its grant's token", () =>
  withClock(async (clock) => {
    for (const scope of [SignOutScope.LOCAL, SignOutScope.GLOBAL]) {
      const { server, storage, one, two } = await switchedAway(clock, {
        fetch: (server) => (input, init) =>
          new Promise((r) => setTimeout(r, 50)).then(() => server.fetch(input, init)),
      });
      clock.setSystemTime(clock.now + 2 * 3600_000);
      one.manager.startAutoRefresh(); // the woken tab's timer ends alice here meanwhile
      const out = signOutCurrentSession(one.auth, one.manager, { scope });
      await clock.tickAsync(1_000);
      assert.ok((await out).ok, scope);
      assert.deepEqual(server.log, [scope === "local" ? "logout alice" : `logout alice ${scope}`]);
      assert.equal(server.alive("alice"), false, scope);
      assert.equal(one.manager.currentSession, null, scope);
      assert.equal(userOf(storage.value), "bob", scope);
      one.manager.dispose();
      two.manager.dispose();
    }
  }));

Deno.test("a sign-in saved while a sign-out reads the storage is kept: the sign-out clears nothing of it", () =>
  withClock(async (clock) => {
    const { server, storage, one } = await signedIn();
    const fast = delayReads(storage, 500);
    const out = signOutCurrentSession(one.auth, one.manager);
    await clock.tickAsync(100);
    fast();
    const bob = server.signIn("bob");
    const saving = one.manager.saveSession(bob); // signed in again while the sign-out reads
    await clock.tickAsync(1_000);
    await saving;
    assert.ok((await out).ok);
    assert.equal(one.manager.currentSession?.refreshToken, bob.refreshToken);
    assert.equal(storage.value?.refreshToken, bob.refreshToken);
    // (A save that overtakes a clear has the last word, and the clear is not announced.)
    assert.deepEqual(one.events, ["SIGNED_IN:alice", "SIGNED_IN:bob"]);
    one.manager.dispose();
  }));

Deno.test("a session refused as dead while the storage could not be read is cleared by the next restore, never held again", () =>
  withClock(async (clock) => {
    const server = goTrue();
    const storage = sharedStorage();
    const one = tab(server.fetch, storage);
    const alice = server.signIn("alice");
    await one.manager.saveSession(alice);
    await clock.tickAsync(60_000);
    server.end("alice"); // revoked at the server
    storage.failReads = true;
    const r = await one.manager.refreshSession();
    assert.equal(r.errorOrNull()?.code, "refresh_token_not_found");
    assert.equal(storage.value?.refreshToken, alice.refreshToken, "left: whose it was is unknown");
    storage.failReads = false;
    const restored = await one.manager.restoreSession();
    assert.equal(restored.errorOrNull()?.category, "NO_SESSION");
    await clock.tickAsync(1);
    assert.equal(storage.value, null);
    assert.equal(one.manager.currentSession, null);
    assert.deepEqual(one.events, ["SIGNED_IN:alice", "SIGNED_OUT"]);
    one.manager.dispose();
  }));

Deno.test("a sign-out's storage turn cut short by a save does not clear blind: another account's sign-in stays when that save fails", () =>
  withClock(async (clock) => {
    const { server, storage, one, two } = await switchedAway(clock);
    delayReads(storage, 200);
    const out = signOutCurrentSession(one.auth, one.manager);
    await clock.tickAsync(50);
    storage.save = () => {
      throw new Error("quota");
    };
    const saving = one.manager.saveSession(server.signIn("carol")).catch(() => "rejected");
    await clock.tickAsync(500);
    assert.equal(await saving, "rejected");
    assert.ok((await out).ok);
    assert.equal(userOf(storage.value), "bob");
    one.manager.dispose();
    two.manager.dispose();
  }));

Deno.test("the clear of a dead session a restore found leaves the storage alone when its read does not answer", () =>
  withClock(async (clock) => {
    const server = goTrue();
    const storage = sharedStorage();
    const one = tab(server.fetch, storage);
    const two = tab(server.fetch, storage);
    await one.manager.saveSession(server.signIn("alice"));
    await clock.tickAsync(60_000);
    server.end("alice");
    storage.failReads = true;
    assert.equal((await one.manager.refreshSession()).ok, false); // alice left stored
    storage.failReads = false;
    const load = storage.load;
    let loads = 0;
    storage.load = function () {
      // The restore's read answers; the clear's own, in its turn, takes longer than its 1 s, and
      // another tab's sign-in lands meanwhile.
      return ++loads === 1
        ? load.call(this)
        : new Promise((r) => setTimeout(() => r(load.call(this)), 1_200));
    };
    const restoring = one.manager.restoreSession();
    await clock.tickAsync(1);
    assert.equal((await restoring).errorOrNull()?.category, "NO_SESSION");
    await two.manager.saveSession(server.signIn("bob"));
    await clock.tickAsync(2_000);
    assert.equal(userOf(storage.value), "bob");
    one.manager.dispose();
    two.manager.dispose();
  }));

Deno.test("clearSession called detached rejects, as an async method does, rather than throwing", async () => {
  const server = goTrue();
  const one = tab(server.fetch, sharedStorage());
  const { clearSession } = one.manager;
  let threw = false;
  let rejected: unknown = null;
  try {
    await clearSession().catch((e) => (rejected = e));
  } catch {
    threw = true;
  }
  assert.equal(threw, false);
  assert.ok(rejected instanceof TypeError);
  one.manager.dispose();
});

// A tab that cleared or signed out of the shared storage (found in real Chromium tabs): another
// tab's refresh found the storage empty, granted anyway and stored the session back, so every
// tab and every reload came back signed in.
Deno.test("a tab's refresh that finds the storage emptied by another tab (clearSession, a sign-out) ends its session: nothing is sent or stored back", () =>
  withClock(async (clock) => {
    for (const how of ["clearSession", "signOut"] as const) {
      const { server, storage, one } = await signedIn();
      const two = tab(server.fetch, storage, true);
      assert.equal(userOf((await two.manager.restoreSession()).getOrThrow()), "alice");
      await clock.tickAsync(60_000);
      if (how === "clearSession") await one.manager.clearSession();
      else assert.ok((await signOutCurrentSession(one.auth, one.manager)).ok);
      assert.equal(storage.value, null);
      const grants = server.grants.length;
      // Tab two's timer, due 59 minutes after the sign-in.
      await clock.tickAsync(60 * 60_000);
      assert.equal(server.grants.length, grants, `${how}: no token sent`);
      assert.equal(storage.value, null, `${how}: nothing stored back`);
      assert.equal(two.manager.currentSession, null, how);
      assert.equal(two.client.accessToken, null, how);
      assert.deepEqual(two.events, ["SIGNED_IN:alice", "SIGNED_OUT"], how);
      const r = await two.manager.refreshSession();
      assert.equal(r.errorOrNull()?.category, "NO_SESSION", how);
      // A reloaded page finds no session.
      const reloaded = tab(server.fetch, storage);
      assert.equal((await reloaded.manager.restoreSession()).errorOrNull()?.category, "NO_SESSION");
      for (const t of [one, two, reloaded]) t.manager.dispose();
    }
  }));

Deno.test("an explicit refresh finding the storage emptied says so: NO_SESSION, code signed_out_elsewhere", () =>
  withClock(async (clock) => {
    const { server, storage, one } = await signedIn();
    await clock.tickAsync(60_000);
    storage.value = null; // another tab cleared it
    const r = await one.manager.refreshSession();
    assert.equal(r.errorOrNull()?.category, "NO_SESSION");
    assert.equal(r.errorOrNull()?.code, "signed_out_elsewhere");
    assert.deepEqual(server.grants, []);
    assert.deepEqual(one.events, ["SIGNED_IN:alice", "SIGNED_OUT"]);
    one.manager.dispose();
  }));

Deno.test("a refresh answered after another tab signed out is not stored back: its session ends here", () =>
  withClock(async (clock) => {
    const { storage, slow, one, two } = await aliceWithSlowGrants(clock);
    // Tab two signs out (this device only) while tab one's grant is answered.
    slow.next(() => two.manager.clearSession());
    const r = await one.manager.refreshSession();
    assert.equal(r.errorOrNull()?.code, "signed_out_elsewhere");
    assert.equal(storage.value, null, "the sign-out stays");
    assert.equal(one.manager.currentSession, null);
    assert.deepEqual(one.events, ["SIGNED_IN:alice", "SIGNED_OUT"]);
    one.manager.dispose();
    two.manager.dispose();
  }));

Deno.test("a storage that never kept the session (its writes fail) is no sign-out: the refresh goes on in memory", () =>
  withClock(async (clock) => {
    const server = goTrue();
    const storage = sharedStorage();
    storage.save = () => Promise.reject(new Error("QuotaExceededError"));
    const one = tab(server.fetch, storage);
    await one.manager.saveSession(server.signIn("alice")).catch(() => {});
    assert.equal(one.manager.currentSession?.user.id, "alice");
    await clock.tickAsync(60_000);
    const r = await one.manager.refreshSession();
    // Refreshed: the storage failure is said, the new tokens are held.
    assert.match(r.errorOrNull()?.message ?? "", /could not be stored/);
    assert.equal(server.grants.length, 1);
    assert.equal(one.manager.currentSession?.refreshToken, "refresh-2");
    one.manager.dispose();
  }));
