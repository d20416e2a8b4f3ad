// With auto-refresh on, the operations that send the held session's token refresh a lapsed session
// first (`Expired`: a device that woke before the manager's overdue timer fired, a refresh retry
// backing off), as auth-js refreshes before such a call: they join or start the manager's one
// shared refresh (the timer's included), then act with the new token. They answered NO_SESSION and
// sent nothing, the next call succeeding once the timer had refreshed. A refused grant signs the
// session out and the operation sends nothing; the caller's signal ends only its own wait, and its
// timeout bounds the refresh and the request together. With auto-refresh off nothing changes: the
// caller asks for a refresh (NO_SESSION, no grant).
import assert from "node:assert/strict";
import { createAuthClient, decodeSession } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import type { ServiceResult } from "../../core/result.ts";
import {
  AuthStateChangeEvent,
  createSessionManager,
  getClaimsForCurrentSession,
  getSsoUrlForCurrentSession,
  getUserForCurrentSession,
  getUserIdentitiesForCurrentSession,
  KeyValueSessionStorage,
  linkIdentityForCurrentSession,
  linkIdentityWithIdTokenForCurrentSession,
  mfaVerifyAndSaveSession,
  parseCurrentSessionJwtClaims,
  reauthenticateCurrentSession,
  type SessionManager,
  unlinkIdentityForCurrentSession,
  updateUserForCurrentSession,
} from "../../session/mod.ts";
import { BASE, type Clock, json, jwt, KEY, track, withClock } from "./_helpers.ts";

/** A GoTrue session body of session `s1` whose refresh token is `refresh-n`, live for an hour. */
function body(n: number, lifetime = 3600): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    access_token: jwt({ sub: "u1", session_id: "s1", n, exp: now + lifetime, iat: now }),
    refresh_token: `refresh-${n}`,
    expires_in: lifetime,
    expires_at: now + lifetime,
    token_type: "bearer",
    user: { id: "u1", email: "a@x.io", identities: [{ id: "i1" }, { id: "i2" }] },
  };
}

/** The number in an access token made by `body` (which refresh it came from). */
function tokenNumber(bearer: string | null): number | null {
  const token = bearer?.replace(/^Bearer /, "") ?? "";
  try {
    return JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))).n ?? null;
  } catch {
    return null;
  }
}

/**
 * A GoTrue whose refresh grants wait until the test releases them (each answered with the next
 * session, or as `grant` says), and whose other routes answer at once; every request is logged as
 * `METHOD path` and, but for the grant, the number of the session whose token it carried
 * (`GET /user #2`). Requests honour their signal (the transport's timeout).
 */
function setup(o: { autoRefresh?: boolean; timeout?: number; held?: boolean } = {}) {
  const log: string[] = [];
  const grants: Array<(answer?: Response) => void> = [];
  let next = 2;
  const unlinked = new Set<string>();
  const holdOthers = o.held ?? false;
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    const path = url.pathname.replace("/auth/v1", "");
    const signal = init?.signal ?? req.signal;
    if (path === "/token" && url.searchParams.get("grant_type") === "refresh_token") {
      log.push(`${req.method} ${path}`);
      return new Promise<Response>((resolve, reject) => {
        signal?.addEventListener("abort", () => reject(signal.reason));
        grants.push((answer) => resolve(answer ?? json(body(next++))));
      });
    }
    log.push(`${req.method} ${path} #${tokenNumber(req.headers.get("authorization"))}`);
    const answer = () => {
      if (path === "/sso") return json({ url: "https://idp.example" });
      if (path === "/reauthenticate") return json({});
      if (path.endsWith("/authorize")) return json({ url: "https://github.example" });
      if (req.method === "DELETE") {
        unlinked.add(path.split("/").pop()!);
        return new Response(null, { status: 204 });
      }
      if (path.endsWith("/verify") || path === "/token") return json(body(next++));
      return json({
        id: "u1",
        email: req.method === "PUT" ? "new@x.io" : "a@x.io",
        identities: [
          { id: "i1", identity_id: "i1", user_id: "u1", provider: "email" },
          { id: "i2", identity_id: "i2", user_id: "u1", provider: "github" },
        ].filter((i) => !unlinked.has(i.id)),
      });
    };
    if (!holdOthers) return Promise.resolve(answer());
    return new Promise<Response>((_resolve, reject) => {
      signal?.addEventListener("abort", () => reject(signal.reason));
    });
  };
  const client = createBaseClient(BASE, KEY, {
    fetch,
    retry: { maxAttempts: 1 },
    timeout: o.timeout ?? 0,
  });
  const auth = createAuthClient(client);
  const m = createSessionManager(auth, client, {
    autoRefresh: o.autoRefresh ?? true,
    refreshBufferSeconds: 60,
  });
  const events: string[] = [];
  m.onAuthStateChange((e) => void events.push(e), { emitInitialSession: false });
  return {
    auth,
    m,
    log,
    events,
    grants,
    /** Answers the oldest unanswered grant (the next session, or `answer`). */
    release(answer?: Response) {
      const g = grants.shift();
      assert.ok(g, "a grant is waiting");
      g(answer);
    },
  };
}

type Setup = ReturnType<typeof setup>;

/**
 * Holds session 1 (live for 120 s: its refresh timer is due 60 s after the save), then moves the
 * wall clock 200 s on without running timers, as a device that slept: the session has lapsed and
 * the manager's timer, now overdue, has not fired yet (it fires 60 s of running time later).
 */
async function lapse(h: Setup, clock: Clock): Promise<void> {
  await h.m.saveSession(decodeSession(body(1, 120)));
  clock.setSystemTime(clock.now + 200_000);
  assert.equal(h.m.sessionState.value.kind, "Expired");
  h.events.length = 0;
}

type Options = { signal?: AbortSignal; timeout?: number };

/** The operations on the held session, each with the request it sends and a check of its answer. */
const OPERATIONS: Array<{
  name: string;
  run: (h: Setup, o: Options) => Promise<ServiceResult<unknown>>;
  /** The request it sends with the held session's token, logged as by `setup`. */
  request: string;
  /** Requests the operation sends after its own. */
  then?: string[];
  check?: (value: unknown, m: SessionManager) => void;
}> = [
  {
    name: "getUserForCurrentSession",
    run: (h, o) => getUserForCurrentSession(h.auth, h.m, o),
    request: "GET /user",
    check: (v) => assert.equal((v as { email: string }).email, "a@x.io"),
  },
  {
    name: "updateUserForCurrentSession",
    run: (h, o) => updateUserForCurrentSession(h.auth, h.m, { email: "new@x.io" }, o),
    request: "PUT /user",
    check: (_v, m) => {
      assert.equal(m.currentSession?.user.email, "new@x.io");
      assert.equal(m.currentSession?.refreshToken, "refresh-2", "saved into the new session");
    },
  },
  {
    name: "reauthenticateCurrentSession",
    run: (h, o) => reauthenticateCurrentSession(h.auth, h.m, o),
    request: "GET /reauthenticate",
  },
  {
    name: "getUserIdentitiesForCurrentSession",
    run: (h, o) => getUserIdentitiesForCurrentSession(h.auth, h.m, o),
    request: "GET /user",
    check: (v) => assert.equal((v as Array<{ id: string }>).length, 2),
  },
  {
    name: "getSsoUrlForCurrentSession",
    run: (h, o) => getSsoUrlForCurrentSession(h.auth, h.m, { domain: "corp.example", ...o }),
    request: "POST /sso",
    check: (v) => assert.equal((v as { url: string }).url, "https://idp.example"),
  },
  {
    name: "linkIdentityForCurrentSession",
    run: (h, o) => linkIdentityForCurrentSession(h.auth, h.m, "github", o),
    request: "GET /user/identities/authorize",
  },
  {
    name: "linkIdentityWithIdTokenForCurrentSession",
    run: (h, o) => linkIdentityWithIdTokenForCurrentSession(h.auth, h.m, "google", "idt", o),
    request: "POST /token",
    check: (_v, m) => assert.equal(m.currentSession?.refreshToken, "refresh-3"),
  },
  {
    name: "unlinkIdentityForCurrentSession",
    run: (h, o) => unlinkIdentityForCurrentSession(h.auth, h.m, "i1", o),
    request: "DELETE /user/identities/i1",
    // The user is read again with the same token: GoTrue rewrites email, phone and providers.
    then: ["GET /user #2"],
    check: (_v, m) => {
      assert.deepEqual(m.currentSession?.user.identities?.map((i) => i.id), ["i2"]);
      assert.equal(m.currentSession?.refreshToken, "refresh-2");
    },
  },
  {
    name: "mfaVerifyAndSaveSession",
    run: (h, o) => mfaVerifyAndSaveSession(h.auth, h.m, "f1", "c1", "123456", o),
    request: "POST /factors/f1/verify",
    check: (_v, m) => assert.equal(m.currentSession?.refreshToken, "refresh-3"),
  },
  {
    name: "getClaimsForCurrentSession",
    // An HS256 token is checked by the server (GET /user with it).
    run: (h, o) => getClaimsForCurrentSession(h.m, h.auth, { signal: o.signal }),
    request: "GET /user",
    check: (v) => assert.equal((v as { raw: { n: number } }).raw.n, 2),
  },
];

for (const op of OPERATIONS) {
  Deno.test(`${op.name} on a lapsed session with auto-refresh on: one grant, then its request with the new token`, async () => {
    await withClock(async (clock) => {
      const h = setup();
      await lapse(h, clock);
      const { out, done } = track(clock, () => op.run(h, {}));
      await clock.tickAsync(0);
      assert.deepEqual(h.log, ["POST /token"], `${op.name} asks for a grant first`);
      assert.equal(out.r, null, `${op.name} waits for it`);
      h.release();
      await done;
      const r = out.r as ServiceResult<unknown> | null;
      assert.ok(r?.ok, `${op.name}: ${r?.errorOrNull()?.message}`);
      // The request went with session 2's token (an id-token link posts to /token, bearer 2).
      assert.deepEqual(h.log, ["POST /token", `${op.request} #2`, ...op.then ?? []], op.name);
      op.check?.(r.value, h.m);
      assert.equal(h.m.sessionState.value.kind, "Authenticated", op.name);
      assert.equal(h.events[0], AuthStateChangeEvent.TOKEN_REFRESHED, op.name);
      h.m.dispose();
    });
  });
}

Deno.test("two helpers on a lapsed session at once share one grant, and both use the new token", async () => {
  await withClock(async (clock) => {
    const h = setup();
    await lapse(h, clock);
    const a = track(clock, () => getUserForCurrentSession(h.auth, h.m));
    const b = track(clock, () => reauthenticateCurrentSession(h.auth, h.m));
    const c = track(clock, () => getSsoUrlForCurrentSession(h.auth, h.m, { domain: "c.example" }));
    await clock.tickAsync(0);
    assert.deepEqual(h.log, ["POST /token"]);
    h.release();
    await Promise.all([a.done, b.done, c.done]);
    assert.ok(a.out.r?.ok && b.out.r?.ok && c.out.r?.ok);
    assert.deepEqual(h.log.slice(1).sort(), [
      "GET /reauthenticate #2",
      "GET /user #2",
      "POST /sso #2",
    ]);
    assert.equal(h.log.filter((l) => l === "POST /token").length, 1, "one grant");
    h.m.dispose();
  });
});

Deno.test("the manager's overdue timer firing while a helper's grant is under way joins it: one grant", async () => {
  await withClock(async (clock) => {
    const h = setup();
    await lapse(h, clock);
    const { out, done } = track(clock, () => getUserForCurrentSession(h.auth, h.m));
    await clock.tickAsync(0);
    assert.deepEqual(h.log, ["POST /token"]);
    await clock.tickAsync(60_000); // the timer armed at the save fires
    assert.deepEqual(h.log, ["POST /token"], "the timer joined the helper's grant");
    h.release();
    await done;
    assert.ok(out.r?.ok);
    assert.deepEqual(h.log, ["POST /token", "GET /user #2"]);
    assert.equal(h.m.currentSession?.refreshToken, "refresh-2");
    await clock.tickAsync(5_000);
    assert.equal(h.log.length, 2, "no grant after");
    h.m.dispose();
  });
});

Deno.test("a helper called while the timer's grant of a lapsed session is under way joins it: one grant", async () => {
  await withClock(async (clock) => {
    const h = setup();
    await lapse(h, clock);
    await clock.tickAsync(60_000); // the overdue timer fires: its grant waits for an answer
    assert.deepEqual(h.log, ["POST /token"]);
    const a = track(clock, () => getUserIdentitiesForCurrentSession(h.auth, h.m));
    const b = track(clock, () => mfaVerifyAndSaveSession(h.auth, h.m, "f1", "c1", "123456"));
    await clock.tickAsync(0);
    assert.deepEqual(h.log, ["POST /token"], "the helpers joined the timer's grant");
    h.release();
    await Promise.all([a.done, b.done]);
    assert.ok(a.out.r?.ok && b.out.r?.ok);
    assert.deepEqual(h.log.slice(1).sort(), ["GET /user #2", "POST /factors/f1/verify #2"]);
    h.m.dispose();
  });
});

Deno.test("a helper on a lapsed session while a refresh retry backs off refreshes at once, and the retry finds nothing to do", async () => {
  await withClock(async (clock) => {
    const h = setup();
    await h.m.saveSession(decodeSession(body(1, 120)));
    await clock.tickAsync(60_000); // the scheduled grant
    h.release(json({ message: "unavailable" }, 503)); // a retry is scheduled, backing off
    await clock.tickAsync(0);
    clock.setSystemTime(clock.now + 100_000); // lapsed meanwhile; the retry has not run
    assert.equal(h.m.sessionState.value.kind, "Expired");
    assert.deepEqual(h.log, ["POST /token"]);
    const { out, done } = track(
      clock,
      () => updateUserForCurrentSession(h.auth, h.m, { data: {} }),
    );
    await clock.tickAsync(0);
    assert.deepEqual(h.log, ["POST /token", "POST /token"], "the helper's grant, at once");
    h.release();
    await done;
    assert.ok(out.r?.ok, out.r?.errorOrNull()?.message);
    assert.deepEqual(h.log.slice(2), ["PUT /user #2"]);
    await clock.tickAsync(5_000);
    assert.equal(h.log.length, 3, "the retry sends no second grant");
    h.m.dispose();
  });
});

Deno.test("a refused grant of a lapsed session signs it out: the helpers answer the refusal and send nothing", async () => {
  for (const op of OPERATIONS) {
    await withClock(async (clock) => {
      const h = setup();
      await lapse(h, clock);
      const { out, done } = track(clock, () => op.run(h, {}));
      await clock.tickAsync(0);
      h.release(json({ code: 400, error_code: "refresh_token_not_found", msg: "Invalid" }, 400));
      await done;
      const e = out.r?.errorOrNull();
      assert.ok(e, `${op.name} fails`);
      assert.equal(e.code, "refresh_token_not_found", op.name);
      assert.deepEqual(h.log, ["POST /token"], `${op.name} sent nothing after the grant`);
      assert.equal(h.m.sessionState.value.kind, "NotAuthenticated", op.name);
      assert.deepEqual(h.events, [AuthStateChangeEvent.SIGNED_OUT], op.name);
      h.m.dispose();
    });
  }
});

Deno.test("a failing grant of a lapsed session (503) is the helper's answer: nothing sent, the session kept lapsed", async () => {
  await withClock(async (clock) => {
    const h = setup();
    await lapse(h, clock);
    const { out, done } = track(clock, () => getUserForCurrentSession(h.auth, h.m));
    await clock.tickAsync(0);
    h.release(json({ message: "unavailable" }, 503));
    await done;
    assert.equal(out.r?.errorOrNull()?.status, 503);
    assert.deepEqual(h.log, ["POST /token"]);
    assert.equal(h.m.sessionState.value.kind, "Expired");
    h.m.dispose();
  });
});

Deno.test("a helper's signal ends only its wait for the grant of a lapsed session (CANCELLED); the grant goes on", async () => {
  await withClock(async (clock) => {
    const h = setup();
    await lapse(h, clock);
    const ctl = new AbortController();
    const { out, done } = track(
      clock,
      () => getUserForCurrentSession(h.auth, h.m, { signal: ctl.signal }),
    );
    await clock.tickAsync(300);
    ctl.abort();
    await done;
    assert.equal(out.r?.errorOrNull()?.category, "CANCELLED");
    assert.equal(out.at, 300);
    h.release();
    await clock.tickAsync(0);
    assert.equal(h.m.currentSession?.refreshToken, "refresh-2", "the grant was applied");
    assert.deepEqual(h.log, ["POST /token"], "the user was not read");
    // A signal aborted before the call starts nothing.
    clock.setSystemTime(clock.now + 7_200_000);
    assert.equal(h.m.sessionState.value.kind, "Expired");
    const aborted = await reauthenticateCurrentSession(h.auth, h.m, {
      signal: AbortSignal.abort(),
    });
    assert.equal(aborted.errorOrNull()?.category, "CANCELLED");
    assert.deepEqual(h.log, ["POST /token"], "no grant for an aborted call");
    h.m.dispose();
  });
});

Deno.test("a helper's timeout bounds its wait for the grant of a lapsed session (TIMEOUT); the grant goes on", async () => {
  await withClock(async (clock) => {
    const h = setup();
    await lapse(h, clock);
    const { out, done } = track(
      clock,
      () => getUserForCurrentSession(h.auth, h.m, { timeout: 500 }),
    );
    await clock.tickAsync(500);
    await done;
    assert.equal(out.r?.errorOrNull()?.category, "TIMEOUT");
    assert.equal(out.r?.errorOrNull()?.message, "Request timed out after 500 ms");
    assert.equal(out.at, 500);
    h.release();
    await clock.tickAsync(0);
    assert.equal(h.m.currentSession?.refreshToken, "refresh-2");
    assert.deepEqual(h.log, ["POST /token"]);
    h.m.dispose();
  });
});

Deno.test("a helper's timeout (the client's by default) bounds the grant and its request together", async () => {
  for (const own of [true, false]) {
    await withClock(async (clock) => {
      const h = setup({ timeout: own ? 0 : 5_000, held: true });
      await lapse(h, clock);
      const { out, done } = track(
        clock,
        () => reauthenticateCurrentSession(h.auth, h.m, own ? { timeout: 5_000 } : {}),
      );
      await clock.tickAsync(3_000);
      h.release(); // the grant took 3 s: the request gets the 2 s left
      await clock.tickAsync(1_999);
      assert.equal(out.r, null);
      assert.deepEqual(h.log, ["POST /token", "GET /reauthenticate #2"]);
      await clock.tickAsync(1);
      await done;
      const e = (out.r as ServiceResult<void> | null)?.errorOrNull();
      assert.equal(e?.category, "TIMEOUT", `own timeout: ${own}`);
      assert.equal(e?.message, "Request timed out after 5000 ms");
      assert.equal(out.at, 5_000);
      h.m.dispose();
    });
  }
});

Deno.test("with auto-refresh off a lapsed session is unchanged: NO_SESSION (code session_expired), no grant", async () => {
  for (const op of OPERATIONS) {
    await withClock(async (clock) => {
      const h = setup({ autoRefresh: false });
      await lapse(h, clock);
      const r = await op.run(h, {});
      assert.equal(r.errorOrNull()?.category, "NO_SESSION", op.name);
      // Told apart from no session at all, which has no code.
      assert.equal(r.errorOrNull()?.code, "session_expired", op.name);
      assert.match(r.errorOrNull()!.message, /expired and auto-refresh is off/, op.name);
      await clock.tickAsync(120_000);
      assert.deepEqual(h.log, [], `${op.name} sent nothing`);
      assert.equal(h.m.sessionState.value.kind, "Expired", op.name);
      h.m.dispose();
    });
  }
  // Stopped (stopAutoRefresh) counts as off.
  await withClock(async (clock) => {
    const h = setup();
    await lapse(h, clock);
    h.m.stopAutoRefresh();
    const r = await getUserForCurrentSession(h.auth, h.m);
    assert.equal(r.errorOrNull()?.category, "NO_SESSION");
    assert.equal(r.errorOrNull()?.code, "session_expired");
    assert.deepEqual(h.log, []);
    h.m.dispose();
  });
});

Deno.test("a lapsed session's claims are read without a grant by getClaimsForCurrentSession with allowExpired and by parseCurrentSessionJwtClaims", async () => {
  await withClock(async (clock) => {
    const h = setup();
    await lapse(h, clock);
    const parsed = parseCurrentSessionJwtClaims(h.m);
    assert.equal(parsed.getOrThrow().n, 1);
    const r = await getClaimsForCurrentSession(h.m, h.auth, { allowExpired: true });
    assert.ok(r.ok, r.errorOrNull()?.message);
    assert.deepEqual(h.log, ["GET /user #1"], "the lapsed token, checked, and no grant");
    h.m.dispose();
  });
});

Deno.test("with no session at all the helpers answer NO_SESSION without a code", async () => {
  const client = createBaseClient(BASE, KEY, {
    fetch: () => Promise.reject(new Error("nothing may be sent")),
  });
  const auth = createAuthClient(client);
  const m = createSessionManager(auth, client, { autoRefresh: false });
  for (
    const r of [
      await getUserForCurrentSession(auth, m),
      await mfaVerifyAndSaveSession(auth, m, "f", "c", "1"),
    ]
  ) {
    assert.equal(r.errorOrNull()?.category, "NO_SESSION");
    assert.equal(r.errorOrNull()?.code, null);
    assert.equal(r.errorOrNull()?.message, "No active session");
  }
  m.dispose();
});

Deno.test("a manager that has not read a storage that may hold a session answers NO_SESSION with the code not_initialized, until initialize()", async () => {
  const client = createBaseClient(BASE, KEY, {
    fetch: () => Promise.reject(new Error("nothing may be sent")),
  });
  const auth = createAuthClient(client);
  const map = new Map<string, string>();
  const store = {
    get: (k: string) => map.get(k) ?? null,
    set: (k: string, v: string) => void map.set(k, v),
    remove: (k: string) => void map.delete(k),
  };
  const writer = createSessionManager(auth, client, {
    autoRefresh: false,
    storage: new KeyValueSessionStorage(store),
  });
  await writer.saveSession(decodeSession(body(1)));
  writer.dispose();
  // A server handler that forgot initialize(): told so, not "signed out".
  const reader = createSessionManager(auth, createBaseClient(BASE, KEY), {
    autoRefresh: false,
    storage: new KeyValueSessionStorage(store),
  });
  const before = await getClaimsForCurrentSession(reader, auth, { verify: false });
  assert.equal(before.errorOrNull()?.category, "NO_SESSION");
  assert.equal(before.errorOrNull()?.code, "not_initialized");
  assert.match(before.errorOrNull()!.message, /call initialize\(\) first/);
  assert.ok((await reader.initialize()).ok);
  assert.equal(
    (await getClaimsForCurrentSession(reader, auth, { verify: false })).getOrThrow().claims.subject,
    "u1",
  );
  reader.dispose();
  // Read and found empty, or cleared: plain NO_SESSION.
  map.clear();
  const empty = createSessionManager(auth, client, {
    autoRefresh: false,
    storage: new KeyValueSessionStorage(store),
  });
  await empty.initialize();
  assert.equal((await getUserForCurrentSession(auth, empty)).errorOrNull()?.code, null);
  empty.dispose();
  const cleared = createSessionManager(auth, client, {
    autoRefresh: false,
    storage: new KeyValueSessionStorage(store),
  });
  await cleared.clearSession();
  assert.equal((await getUserForCurrentSession(auth, cleared)).errorOrNull()?.code, null);
  cleared.dispose();
});
