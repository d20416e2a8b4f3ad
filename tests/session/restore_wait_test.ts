// While a restore started with no session held is still reading storage (`Loading`),
// refreshSession and the session-aware helpers wait for it, as auth-js's methods await its
// initialisation: they answered NO_SESSION at once, so an app that called initialize() without
// awaiting it and then asked for the user saw a signed-out user. The caller's signal ends only its
// own wait, its timeout (the client's by default) bounds it, and a restore that finds nothing
// leads to the usual NO_SESSION, once the read is over.
import assert from "node:assert/strict";
import { createAuthClient, decodeSession, type Session } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import type { ServiceResult } from "../../core/result.ts";
import {
  createSessionManager,
  getClaimsForCurrentSession,
  getUserForCurrentSession,
  getUserIdentitiesForCurrentSession,
  importSessionFromUrl,
  linkIdentityWithIdTokenForCurrentSession,
  mfaVerifyAndSaveSession,
  reauthenticateCurrentSession,
  refreshCurrentSession,
  refreshTokenAndSaveSession,
  type SessionManager,
  type SessionStorage,
  unlinkIdentityForCurrentSession,
  updateUserForCurrentSession,
} from "../../session/mod.ts";
import { BASE, jwt, KEY, sessionJson, track, withClock } from "./_helpers.ts";

/** How long the storage takes to read (fake time). */
const READ_MS = 800;

/** The stored session: its access token a JWT of session `s1` (so its claims can be read). */
function storedSession(o: { lapsed?: boolean; exp?: number } = {}): Session {
  const now = Math.floor(Date.now() / 1000);
  const exp = o.exp ?? (o.lapsed ? now - 30 : now + 3600);
  return decodeSession({
    ...sessionJson(1),
    access_token: jwt({ sub: "u1", session_id: "s1", exp, iat: exp - 3600 }),
    expires_at: exp,
  });
}

/**
 * A GoTrue answering at once (logging `METHOD path` and the bearer) and a manager over a storage
 * whose `load` answers after READ_MS: the stored session, none, or a read failure.
 */
function setup(o: {
  stored: "live" | "lapsed" | "none" | "unreadable";
  timeout?: number;
  autoRefresh?: boolean;
  /** Whether the first read takes READ_MS (default true). */
  slow?: boolean;
  /** How long a refresh-token grant takes to be answered (fake time; default at once). */
  grantMs?: number;
  /** Whether the first refresh-token grant fails (503: GoTrue unreachable for now). */
  firstGrantFails?: boolean;
}) {
  const log: string[] = [];
  let grants = 0;
  const unlinked = new Set<string>();
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    const path = new URL(req.url).pathname;
    const bearer = path.endsWith("/token") ? "" : ` ${req.headers.get("authorization")}`;
    log.push(`${req.method} ${path}${bearer}`);
    if (path.endsWith("/token") && o.grantMs) {
      const answer = o.firstGrantFails && grants++ === 0
        ? () => Response.json({ code: "unexpected_failure", message: "down" }, { status: 503 })
        : () => Response.json(sessionJson(2));
      return new Promise<Response>((resolve) => setTimeout(() => resolve(answer()), o.grantMs));
    }
    if (path.endsWith("/token") || path.endsWith("/verify")) {
      return Promise.resolve(Response.json(sessionJson(2)));
    }
    if (req.method === "DELETE") {
      unlinked.add(path.split("/").pop()!);
      return Promise.resolve(new Response(null, { status: 204 }));
    }
    if (path.endsWith("/reauthenticate")) return Promise.resolve(Response.json({}));
    return Promise.resolve(Response.json({
      id: "u1",
      email: req.method === "PUT" ? "new@x.io" : "a@x.io",
      identities: [
        { id: "i1", identity_id: "i1", user_id: "u1", provider: "email" },
        { id: "i2", identity_id: "i2", user_id: "u1", provider: "github" },
      ].filter((i) => !unlinked.has(i.id)),
    }));
  };
  const client = createBaseClient(BASE, KEY, {
    fetch,
    retry: { maxAttempts: 1 },
    timeout: o.timeout ?? 0,
  });
  const auth = createAuthClient(client);
  const stored = o.stored === "live"
    ? storedSession()
    : o.stored === "lapsed"
    ? storedSession({ lapsed: true })
    : null;
  let loads = 0;
  let current = stored;
  const storage: SessionStorage = {
    save: (session) => void (current = session),
    clear: () => void (current = null),
    load: () => {
      // The restore's read is the slow one; a refresh's read before its grant answers at once.
      if (loads++ > 0 || o.slow === false) return Promise.resolve(current);
      return new Promise<Session | null>((resolve, reject) =>
        setTimeout(
          () => o.stored === "unreadable" ? reject(new Error("store down")) : resolve(current),
          READ_MS,
        )
      );
    },
  };
  const m = createSessionManager(auth, client, { storage, autoRefresh: o.autoRefresh ?? false });
  return { auth, client, m, log, stored };
}

type Auth = ReturnType<typeof setup>["auth"];
type Options = { signal?: AbortSignal; timeout?: number };

/** The operations that read the held session, with what each answers for the restored one. */
const OPERATIONS: Array<{
  name: string;
  run: (auth: Auth, m: SessionManager, o: Options) => Promise<ServiceResult<unknown>>;
  /** Checks the answer for the restored session (its tokens: session 1's). */
  check: (value: unknown, m: SessionManager, log: string[]) => void;
}> = [
  {
    name: "refreshSession",
    run: (_auth, m, o) => m.refreshSession(o),
    check: (v) => assert.equal((v as Session).refreshToken, "refresh-2"),
  },
  {
    name: "refreshCurrentSession",
    run: (auth, m, o) => refreshCurrentSession(auth, m, o),
    check: (v) => assert.equal((v as Session).refreshToken, "refresh-2"),
  },
  {
    name: "getUserForCurrentSession",
    run: (auth, m, o) => getUserForCurrentSession(auth, m, o),
    check: (v, _m, log) => {
      assert.equal((v as { email: string }).email, "a@x.io");
      assert.match(log[0], /^GET \/auth\/v1\/user Bearer ey/);
    },
  },
  {
    name: "updateUserForCurrentSession",
    run: (auth, m, o) => updateUserForCurrentSession(auth, m, { email: "new@x.io" }, o),
    check: (v, m) => {
      assert.equal((v as { email: string }).email, "new@x.io");
      assert.equal(m.currentSession?.user.email, "new@x.io", "the restored session got the user");
    },
  },
  {
    name: "getClaimsForCurrentSession",
    run: (auth, m, o) => getClaimsForCurrentSession(m, auth, { verify: false, signal: o.signal }),
    check: (v) => assert.equal((v as { claims: { subject: string } }).claims.subject, "u1"),
  },
  {
    name: "getUserIdentitiesForCurrentSession",
    run: (auth, m, o) => getUserIdentitiesForCurrentSession(auth, m, o),
    check: (v) => assert.equal((v as Array<{ id: string }>)[0].id, "i1"),
  },
  {
    name: "reauthenticateCurrentSession",
    run: (auth, m, o) => reauthenticateCurrentSession(auth, m, o),
    check: (_v, _m, log) => assert.match(log[0], /^GET \/auth\/v1\/reauthenticate Bearer ey/),
  },
  {
    name: "unlinkIdentityForCurrentSession",
    run: (auth, m, o) => unlinkIdentityForCurrentSession(auth, m, "i1", o),
    check: (_v, m) => assert.deepEqual(m.currentSession?.user.identities?.map((i) => i.id), ["i2"]),
  },
  {
    name: "linkIdentityWithIdTokenForCurrentSession",
    run: (auth, m, o) => linkIdentityWithIdTokenForCurrentSession(auth, m, "google", "id-token", o),
    check: (_v, m) => assert.equal(m.currentSession?.refreshToken, "refresh-2"),
  },
  {
    name: "mfaVerifyAndSaveSession",
    run: (auth, m, o) => mfaVerifyAndSaveSession(auth, m, "f1", "c1", "123456", o),
    check: (_v, m) => assert.equal(m.currentSession?.refreshToken, "refresh-2"),
  },
];

for (const op of OPERATIONS) {
  Deno.test(`${op.name} during a restore (Loading) waits for it and acts on the session it brings in`, async () => {
    await withClock(async (clock) => {
      const h = setup({ stored: "live" });
      const init = h.m.initialize();
      assert.equal(h.m.sessionState.value.kind, "Loading");
      const { out, done } = track(clock, () => op.run(h.auth, h.m, {}));
      await clock.tickAsync(READ_MS - 1);
      assert.equal(out.r, null, `${op.name} waits for the restore`);
      assert.deepEqual(h.log, [], `${op.name} sent nothing yet`);
      await clock.tickAsync(1);
      await done;
      const r = out.r as ServiceResult<unknown> | null;
      assert.ok(r?.ok, `${op.name}: ${r?.errorOrNull()?.message}`);
      assert.equal(out.at, READ_MS, op.name);
      // The request carried the restored session's token.
      for (const line of h.log) {
        if (!/\/token|\/verify/.test(line)) assert.match(line, / Bearer ey/, op.name);
      }
      op.check(r.value, h.m, h.log);
      await init;
      h.m.dispose();
    });
  });

  Deno.test(`${op.name} during a restore: its signal ends only its own wait (CANCELLED), the restore goes on`, async () => {
    await withClock(async (clock) => {
      const h = setup({ stored: "live" });
      const init = h.m.initialize();
      const ctl = new AbortController();
      const { out, done } = track(clock, () => op.run(h.auth, h.m, { signal: ctl.signal }));
      await clock.tickAsync(300);
      ctl.abort();
      await done;
      assert.equal(out.r?.errorOrNull()?.category, "CANCELLED", op.name);
      assert.equal(out.at, 300, op.name);
      await clock.tickAsync(READ_MS);
      assert.equal((await init).getOrThrow().refreshToken, "refresh-1", op.name);
      assert.equal(h.m.sessionState.value.kind, "Authenticated", op.name);
      assert.deepEqual(h.log, [], `${op.name} sent nothing`);
      h.m.dispose();
    });
  });

  Deno.test(`${op.name} during a restore: its timeout bounds its wait (TIMEOUT), the restore goes on`, async () => {
    // getClaimsForCurrentSession takes no timeout: the client's bounds its wait.
    await withClock(async (clock) => {
      const claims = op.name === "getClaimsForCurrentSession";
      const h = setup({ stored: "live", timeout: claims ? 500 : 0 });
      const init = h.m.initialize();
      const { out, done } = track(clock, () => op.run(h.auth, h.m, { timeout: 500 }));
      await clock.tickAsync(500);
      await done;
      assert.equal(out.r?.errorOrNull()?.category, "TIMEOUT", op.name);
      assert.equal(out.r?.errorOrNull()?.message, "Request timed out after 500 ms", op.name);
      assert.equal(out.at, 500, op.name);
      await clock.tickAsync(READ_MS);
      assert.equal((await init).getOrThrow().refreshToken, "refresh-1", op.name);
      assert.deepEqual(h.log, [], `${op.name} sent nothing`);
      h.m.dispose();
    });
  });

  Deno.test(`${op.name} during a restore that finds no session, or cannot read the storage, answers NO_SESSION once it has settled`, async () => {
    for (const stored of ["none", "unreadable"] as const) {
      await withClock(async (clock) => {
        const h = setup({ stored });
        const init = h.m.initialize();
        const { out, done } = track(clock, () => op.run(h.auth, h.m, {}));
        await clock.tickAsync(READ_MS - 1);
        assert.equal(out.r, null, `${op.name} waits for the restore (${stored})`);
        await clock.tickAsync(1);
        await done;
        const r = out.r as ServiceResult<unknown> | null;
        assert.equal(r?.errorOrNull()?.category, "NO_SESSION", `${op.name} (${stored})`);
        assert.equal(out.at, READ_MS, `${op.name} (${stored})`);
        assert.deepEqual(h.log, [], `${op.name} sent nothing (${stored})`);
        await init;
        h.m.dispose();
      });
    }
  });
}

Deno.test("during a restore: without a timeout of its own, the client's bounds the wait, and the request gets what is left", async () => {
  await withClock(async (clock) => {
    // The client's timeout of 1000 ms: the read takes 800 of it.
    const h = setup({ stored: "live", timeout: 1000 });
    const init = h.m.initialize();
    const user = track(clock, () => getUserForCurrentSession(h.auth, h.m));
    const refresh = track(clock, () => h.m.refreshSession());
    await clock.tickAsync(READ_MS);
    await Promise.all([user.done, refresh.done]);
    assert.equal(user.out.r?.getOrThrow().email, "a@x.io");
    assert.equal(refresh.out.r?.getOrThrow().refreshToken, "refresh-2");
    await init;
    h.m.dispose();

    // A read longer than the client's timeout.
    const slow = setup({ stored: "live", timeout: 500 });
    const init2 = slow.m.initialize();
    const cut = [
      track(clock, () => slow.m.refreshSession()),
      track(clock, () => updateUserForCurrentSession(slow.auth, slow.m, { data: { a: 1 } })),
      track(clock, () => getUserIdentitiesForCurrentSession(slow.auth, slow.m)),
    ];
    await clock.tickAsync(500);
    for (const c of cut) {
      await c.done;
      assert.equal(c.out.r?.errorOrNull()?.category, "TIMEOUT");
      assert.equal(c.out.at, 500);
    }
    await clock.tickAsync(READ_MS);
    await init2;
    assert.deepEqual(slow.log, []);
    slow.m.dispose();
  });
});

Deno.test("during a restore of a lapsed session (auto-refresh on), a helper waits for its refresh and uses the new token", async () => {
  await withClock(async (clock) => {
    const h = setup({ stored: "lapsed", autoRefresh: true });
    const init = h.m.initialize();
    const user = track(clock, () => getUserForCurrentSession(h.auth, h.m));
    await clock.tickAsync(READ_MS);
    await user.done;
    assert.equal(user.out.r?.getOrThrow().email, "a@x.io");
    // One grant (the restore's), then the user read with its new token.
    assert.deepEqual(h.log, ["POST /auth/v1/token", "GET /auth/v1/user Bearer access-2"]);
    assert.equal((await init).getOrThrow().refreshToken, "refresh-2");
    h.m.dispose();
  });
});

Deno.test("during a restore, refreshTokenAndSaveSession of the stored token does not wait: one grant, and the restore stands down", async () => {
  await withClock(async (clock) => {
    const h = setup({ stored: "lapsed", autoRefresh: true });
    const init = h.m.initialize();
    const r = track(clock, () => refreshTokenAndSaveSession(h.auth, h.m, "refresh-1"));
    await clock.tickAsync(READ_MS);
    await r.done;
    assert.equal(r.out.r?.getOrThrow().refreshToken, "refresh-2");
    assert.equal((await init).getOrThrow().refreshToken, "refresh-2");
    // Waiting, it would have sent refresh-1 again after the restore's own refresh had spent it.
    assert.deepEqual(h.log, ["POST /auth/v1/token"]);
    h.m.dispose();
  });
});

Deno.test("during a restore's refresh of the lapsed stored session, refreshTokenAndSaveSession of its token joins that grant at once: one grant", async () => {
  await withClock(async (clock) => {
    for (const firstGrantFails of [false, true]) {
      const h = setup({ stored: "lapsed", autoRefresh: true, grantMs: 500, firstGrantFails });
      const init = h.m.initialize();
      await clock.tickAsync(READ_MS);
      // The restore holds the lapsed session and its grant of refresh-1 is under way.
      assert.equal(h.m.sessionState.value.kind, "Expired");
      assert.deepEqual(h.log, ["POST /auth/v1/token"]);
      const r = track(clock, () => refreshTokenAndSaveSession(h.auth, h.m, "refresh-1"));
      await clock.tickAsync(500);
      // The restore's grant is the answer, as for any caller sharing a refresh. Waiting for the
      // restore, it sent refresh-1 again once the restore's grant had failed, and answered later.
      assert.deepEqual(h.log, ["POST /auth/v1/token"]);
      assert.equal(r.out.at, 500);
      if (firstGrantFails) assert.equal(r.out.r?.ok, false);
      else assert.equal(r.out.r?.getOrThrow().refreshToken, "refresh-2");
      await init;
      h.m.dispose();
    }
  });
});

Deno.test("during a restore, importSessionFromUrl of an older token of the restored session returns the restored one", async () => {
  await withClock(async (clock) => {
    const h = setup({ stored: "live" });
    const init = h.m.initialize();
    // The sign-in's redirect, reloaded after its session was refreshed (and stored): its token
    // expires earlier and its refresh token is spent.
    const older = jwt({ sub: "u1", session_id: "s1", exp: h.stored!.expiresAt! - 600 });
    const url = `https://app.example/cb#access_token=${older}&refresh_token=spent` +
      `&expires_in=3600&token_type=bearer`;
    const r = track(clock, () => importSessionFromUrl(h.auth, url, h.m));
    await clock.tickAsync(READ_MS);
    await r.done;
    assert.equal(r.out.r?.getOrThrow().refreshToken, "refresh-1");
    assert.equal(h.m.currentSession?.refreshToken, "refresh-1", "the spent token is not held");
    assert.deepEqual(h.log, []);
    await init;
    h.m.dispose();
  });
});

Deno.test("with no restore under way, the operations do not wait (refreshSession callers without a signal share one promise)", async () => {
  const h = setup({ stored: "none", slow: false });
  await h.m.saveSession(storedSession());
  const a = h.m.refreshSession();
  const b = h.m.refreshSession();
  assert.equal(a, b);
  assert.equal((await a).getOrThrow().refreshToken, "refresh-2");
  // A helper answers NO_SESSION at once when nothing is held and nothing is being restored.
  const none = setup({ stored: "none", slow: false });
  let settled = false;
  const p = getUserForCurrentSession(none.auth, none.m).then((r) => (settled = true, r));
  await Promise.resolve();
  await Promise.resolve();
  assert.equal(settled, true);
  assert.equal((await p).errorOrNull()?.category, "NO_SESSION");
  h.m.dispose();
  none.m.dispose();
});

Deno.test("during a restore, a sign-in or a sign-out ends the wait at once: the operations act on what it left", async () => {
  await withClock(async (clock) => {
    const h = setup({ stored: "live" });
    const init = h.m.initialize();
    const user = track(clock, () => getUserForCurrentSession(h.auth, h.m));
    await clock.tickAsync(100);
    const signedIn = decodeSession(sessionJson(7));
    void h.m.saveSession(signedIn);
    await clock.tickAsync(0);
    assert.equal(user.out.r?.getOrThrow().email, "a@x.io");
    assert.equal(user.out.at, 100);
    assert.deepEqual(h.log, ["GET /auth/v1/user Bearer access-7"]);
    await clock.tickAsync(READ_MS);
    await init;
    assert.equal(h.m.currentSession?.refreshToken, "refresh-7", "the restore stood down");
    h.m.dispose();

    const out = setup({ stored: "live" });
    const init2 = out.m.initialize();
    const claims = track(clock, () => getClaimsForCurrentSession(out.m, out.auth));
    await clock.tickAsync(100);
    void out.m.clearSession();
    await clock.tickAsync(0);
    assert.equal(claims.out.r?.errorOrNull()?.category, "NO_SESSION");
    assert.equal(claims.out.at, 100);
    await clock.tickAsync(READ_MS);
    await init2;
    out.m.dispose();
  });
});

Deno.test("a restore begun when an earlier one has just found nothing ends the earlier one's wait all the same", async () => {
  // A state subscriber (which may call any manager method) restores again once the first restore
  // has found nothing: the second took over the wait before the first had ended its own, which was
  // then never ended; an operation waiting on it waited out its timeout, or for ever without one.
  await withClock(async (clock) => {
    const h = setup({ stored: "none" });
    let again: Promise<unknown> | null = null;
    let loading = false;
    h.m.sessionState.subscribe((s) => {
      if (s.kind === "Loading") loading = true;
      else if (s.kind === "NotAuthenticated" && loading && again === null) {
        again = h.m.restoreSession();
      }
    });
    const first = h.m.restoreSession();
    const user = track(clock, () => getUserForCurrentSession(h.auth, h.m));
    await clock.tickAsync(READ_MS);
    await first;
    assert.ok(again !== null, "restored again");
    await again;
    await clock.tickAsync(0);
    assert.equal(user.out.r?.errorOrNull()?.category, "NO_SESSION", "the wait has ended");
    assert.equal(user.out.at, READ_MS);
    assert.deepEqual(h.log, []);
    // Nothing is left waiting: a later operation answers at once.
    const later = track(clock, () => getUserForCurrentSession(h.auth, h.m));
    await clock.tickAsync(0);
    assert.equal(later.out.r?.errorOrNull()?.category, "NO_SESSION");
    h.m.dispose();
    await clock.tickAsync(60_000);
    await user.done;
  });
});
