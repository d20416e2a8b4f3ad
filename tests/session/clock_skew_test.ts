/**
 * A device whose clock is far from the server's. GoTrue's `expires_at` is the server's clock, and
 * a session's lapse and refresh were timed by it as this device reads it: a clock two hours ahead
 * held every new session `Expired` and granted a refresh every 10 s (61 in ten minutes, each
 * answer lapsed again); one two hours behind refreshed two hours after the token had lapsed.
 * The gap is measured when the tokens arrive (their `expiresAt` against the arrival and
 * `expiresIn`), kept past 10 s, and stored with the session.
 */
import assert from "node:assert/strict";
import { createAuthClient } from "../../auth/client.ts";
import { decodeSession, type Session } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import {
  createSessionManager,
  getClaimsForCurrentSession,
  KeyValueSessionStorage,
  mfaVerifyAndSaveSession,
  signInWithEmailAndSaveSession,
} from "../../session/mod.ts";
import { BASE, json, jwt, KEY, sessionJson, withClock } from "./_helpers.ts";

const HOUR = 3_600_000;

/** A GoTrue whose clock is `skewMs` behind this device's (a device ahead: positive). */
function skewedGoTrue(skewMs: number) {
  let n = 0;
  const grants: number[] = [];
  const body = () => {
    const serverNow = Math.floor((Date.now() - skewMs) / 1000);
    return { ...sessionJson(++n), expires_in: 3600, expires_at: serverNow + 3600 };
  };
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(new Request(input, init).url);
    if (url.pathname.endsWith("/token")) {
      if (url.searchParams.get("grant_type") === "refresh_token") grants.push(Date.now());
      return Promise.resolve(json(body()));
    }
    // An MFA verification: a new (AAL2) session.
    if (url.pathname.endsWith("/verify")) return Promise.resolve(json(body()));
    return Promise.resolve(json({ msg: "not here" }, 404));
  };
  return { fetch, grants, body };
}

/** A key-value store shared by managers (tabs), and what it holds. */
function sharedStore() {
  const items = new Map<string, string>();
  return {
    items,
    storage: () =>
      new KeyValueSessionStorage({
        get: (k) => items.get(k) ?? null,
        set: (k, v) => void items.set(k, v),
        remove: (k) => void items.delete(k),
      }),
  };
}

function setup(skewMs: number, store = sharedStore()) {
  const server = skewedGoTrue(skewMs);
  const base = createBaseClient(BASE, KEY, { fetch: server.fetch });
  const auth = createAuthClient(base);
  const manager = createSessionManager(auth, base, { storage: store.storage() });
  const kinds: string[] = [];
  manager.sessionState.subscribe((s) => kinds.push(s.kind));
  return { server, auth, manager, kinds, store };
}

for (const [label, skewMs] of [["ahead of", 2 * HOUR], ["behind", -2 * HOUR]] as const) {
  Deno.test(`a device clock two hours ${label} the server's: a signed-in session lives its hour, and is refreshed once an hour`, async () => {
    await withClock(async (clock) => {
      const { server, auth, manager, kinds } = setup(skewMs);
      const signedIn = await auth.signInWithEmail("a@x.io", "pw");
      await manager.saveSession(signedIn.getOrThrow());
      assert.equal(manager.sessionState.value.kind, "Authenticated");
      // Three hours: a refresh a minute before each hour's end (the 60 s buffer), by this clock.
      const start = clock.now;
      for (let i = 0; i < 36; i++) await clock.tickAsync(5 * 60_000);
      assert.deepEqual(
        server.grants.map((t) => Math.round((t - start) / 60_000)),
        [59, 118, 177],
      );
      assert.ok(!kinds.includes("Expired"), kinds.join(","));
      assert.equal(manager.sessionState.value.kind, "Authenticated");
      manager.dispose();
    });
  });
}

Deno.test("a session saved from elsewhere (no arrival known) is judged by expiresAt as it is; its first refresh measures the gap, and no refresh loop follows", async () => {
  await withClock(async (clock) => {
    const { server, manager, kinds } = setup(2 * HOUR);
    // Decoded from JSON, not by the auth client: when it was issued is unknown.
    await manager.saveSession(decodeSession(server.body()));
    const start = clock.now;
    for (let i = 0; i < 20; i++) await clock.tickAsync(30_000);
    // Lapsed by this clock: one grant at once, then none for the new token's hour.
    assert.deepEqual(server.grants.map((t) => t - start), [0]);
    assert.equal(kinds.at(-1), "Authenticated");
    manager.dispose();
  });
});

Deno.test("the gap is stored with the session: another tab restoring it times it the same way", async () => {
  await withClock(async (clock) => {
    const store = sharedStore();
    const a = setup(2 * HOUR, store);
    await a.manager.saveSession((await a.auth.signInWithEmail("a@x.io", "pw")).getOrThrow());
    const stored = JSON.parse([...store.items.values()][0]);
    // The server's clock minus this device's: two hours behind, within a second.
    assert.ok(Math.abs(stored.clockOffset + 2 * HOUR) <= 1000, String(stored.clockOffset));
    const b = setup(2 * HOUR, store);
    await clock.tickAsync(30 * 60_000);
    const restored = await b.manager.restoreSession();
    assert.equal(restored.ok && restored.value.refreshToken, "refresh-1");
    assert.equal(b.manager.sessionState.value.kind, "Authenticated");
    assert.deepEqual(b.server.grants, [], "no refresh of a live session");
    a.manager.dispose();
    b.manager.dispose();
  });
});

Deno.test("clocks within 10 s of each other: nothing is measured or stored, and expiresAt is used as it is", async () => {
  await withClock(async (clock) => {
    const { server, auth, manager, store } = setup(5_000);
    const session: Session = (await auth.signInWithEmail("a@x.io", "pw")).getOrThrow();
    await manager.saveSession(session);
    assert.equal("clockOffset" in JSON.parse([...store.items.values()][0]), false);
    const due = session.expiresAt! * 1000 - 60_000 - clock.now;
    await clock.tickAsync(due - 1);
    assert.deepEqual(server.grants, []);
    await clock.tickAsync(1);
    assert.equal(server.grants.length, 1);
    manager.dispose();
  });
});

/**
 * A GoTrue `skewMs` behind this device whose access tokens are JWTs (HS256-labelled: getClaims
 * asks `GET /user`, which answers while the token's exp has not passed by the server's clock).
 */
function jwtGoTrue(skewMs: number, tokenSeconds = 3600) {
  const serverNow = () => Math.floor((Date.now() - skewMs) / 1000);
  const userCalls: string[] = [];
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    if (url.pathname.endsWith("/token")) {
      const now = serverNow();
      const token = jwt({ sub: "u1", iat: now, exp: now + tokenSeconds, session_id: "s1" });
      return Promise.resolve(
        json({ ...sessionJson(1), access_token: token, expires_at: now + 3600 }),
      );
    }
    if (url.pathname.endsWith("/user")) {
      const token = req.headers.get("authorization")!.slice("Bearer ".length);
      userCalls.push(token);
      const exp = JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))).exp;
      return Promise.resolve(
        exp > serverNow() ? json({ id: "u1", email: "a@x.io" }) : json({ msg: "expired" }, 401),
      );
    }
    return Promise.resolve(json({ msg: "not here" }, 404));
  };
  return { fetch, userCalls };
}

/** A manager without auto-refresh holding a session signed in on `server`. */
async function signedInWithJwts(server: ReturnType<typeof jwtGoTrue>) {
  const base = createBaseClient(BASE, KEY, { fetch: server.fetch });
  const auth = createAuthClient(base);
  const manager = createSessionManager(auth, base, { autoRefresh: false });
  await manager.saveSession((await auth.signInWithEmail("a@x.io", "pw")).getOrThrow());
  return { server, auth, manager };
}

Deno.test("getClaimsForCurrentSession on a device clock two hours ahead: a live token's exp is read by the server's clock", async () => {
  await withClock(async (clock) => {
    const { server, auth, manager } = await signedInWithJwts(jwtGoTrue(2 * HOUR));
    await clock.tickAsync(30 * 60_000);
    // Past its exp by this clock, within it by the server's: accepted, the server asked.
    const r = await getClaimsForCurrentSession(manager, auth);
    assert.equal(r.ok ? r.value.claims.subject : r.error.message, "u1");
    assert.equal(server.userCalls.length, 1);
    manager.dispose();
  });
});

Deno.test("getClaimsForCurrentSession on a device clock two hours ahead: a token past its own exp by the server's clock is refused without a request", async () => {
  await withClock(async (clock) => {
    // The session lives an hour; its access token's exp is a minute.
    const { server, auth, manager } = await signedInWithJwts(jwtGoTrue(2 * HOUR, 60));
    await clock.tickAsync(30_000);
    // Within exp by the server's clock (and so accepted by it too).
    const live = await getClaimsForCurrentSession(manager, auth);
    assert.equal(live.ok ? "ok" : live.error.message, "ok");
    // Past exp and its 30 s leeway by the server's clock, an hour before the session's end.
    await clock.tickAsync(61_000);
    const r = await getClaimsForCurrentSession(manager, auth);
    assert.equal(r.errorOrNull()?.code, "token_expired");
    assert.equal(r.errorOrNull()?.category, "UNAUTHORIZED");
    assert.equal(server.userCalls.length, 1, "the second call sent nothing");
    manager.dispose();
  });
});

Deno.test("a gap measured before this clock was set right no longer holds: a tab restoring the session then times it by expiresAt", async () => {
  await withClock(async (clock) => {
    const store = sharedStore();
    const a = setup(2 * HOUR, store);
    await a.manager.saveSession((await a.auth.signInWithEmail("a@x.io", "pw")).getOrThrow());
    const signedIn = clock.now;
    a.manager.dispose();
    // Ten minutes later the device's clock is set right: two hours back, to the server's.
    await clock.tickAsync(10 * 60_000);
    clock.setSystemTime(clock.now - 2 * HOUR);
    const b = setup(0, store);
    assert.ok((await b.manager.restoreSession()).ok);
    assert.equal(b.manager.sessionState.value.kind, "Authenticated");
    // Refreshed a minute before the token's hour ends (not two hours after).
    await clock.tickAsync(48 * 60_000);
    assert.deepEqual(b.server.grants, []);
    await clock.tickAsync(2 * 60_000);
    assert.equal(b.server.grants.length, 1);
    assert.equal(Math.round((b.server.grants[0] + 2 * HOUR - signedIn) / 60_000), 59);
    b.manager.dispose();
  });
});

Deno.test("the save-session helpers carry the answer's arrival: sign-in and MFA verification on a device two hours ahead", async () => {
  await withClock(async (clock) => {
    const { server, auth, manager, kinds } = setup(2 * HOUR);
    assert.ok((await signInWithEmailAndSaveSession(auth, manager, "a@x.io", "pw")).ok);
    assert.equal(manager.sessionState.value.kind, "Authenticated");
    // The MFA answer is rebuilt into a session (provider tokens dropped): it keeps its arrival.
    assert.ok((await mfaVerifyAndSaveSession(auth, manager, "f1", "c1", "123456")).ok);
    assert.equal(manager.sessionState.value.kind, "Authenticated");
    await clock.tickAsync(30 * 60_000);
    assert.deepEqual(server.grants, []);
    assert.ok(!kinds.includes("Expired"), kinds.join(","));
    manager.dispose();
  });
});

Deno.test("getClaimsForCurrentSession after the clock was set right reads exp by this clock again", async () => {
  await withClock(async (clock) => {
    // The token's exp is a minute; the session an hour.
    const { server, auth, manager } = await signedInWithJwts(jwtGoTrue(2 * HOUR, 60));
    // Set two hours back, to the server's; two minutes later the token is past exp and leeway.
    clock.setSystemTime(clock.now - 2 * HOUR);
    await clock.tickAsync(2 * 60_000);
    const r = await getClaimsForCurrentSession(manager, auth);
    assert.equal(r.errorOrNull()?.code, "token_expired");
    assert.deepEqual(server.userCalls, []);
    manager.dispose();
  });
});

Deno.test("a device clock restarted at 1970 is measured like any other; a stored gap past a century is no gap", async () => {
  await withClock(async (clock) => {
    // 56 years behind: the server's clock is now; this device's reads early 1970.
    clock.setSystemTime(3_600_000);
    const { server, auth, manager, store } = setup(-(1_800_000_000_000 - 3_600_000));
    await manager.saveSession((await auth.signInWithEmail("a@x.io", "pw")).getOrThrow());
    assert.equal(manager.sessionState.value.kind, "Authenticated");
    await clock.tickAsync(58 * 60_000);
    assert.deepEqual(server.grants, []);
    await clock.tickAsync(2 * 60_000);
    assert.equal(server.grants.length, 1);
    manager.dispose();
    // A stored gap of 1e300 ms (a corrupt or planted value) is none: the session is judged by
    // expiresAt, 56 years on by this clock, rather than lapsed since forever and refreshed.
    const key = [...store.items.keys()][0];
    const stored = JSON.parse(store.items.get(key)!);
    store.items.set(key, JSON.stringify({ ...stored, clockOffset: 1e300 }));
    const b = setup(0, store);
    await b.manager.restoreSession();
    assert.equal(b.manager.sessionState.value.kind, "Authenticated");
    assert.deepEqual(b.server.grants, []);
    b.manager.dispose();
  });
});
