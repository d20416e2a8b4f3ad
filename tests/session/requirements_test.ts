/**
 * Requirements of the interface document that had no test able to fail:
 * the events of MFA verification and password recovery, the
 * `updateStoredSession` and `clearStoredSessionOnSuccess` switches,
 * `applySession`, the bearer of `getSsoUrlForCurrentSession`, native sign-in
 * (`signInWith`) and `importAuthToken`'s options.
 */
import assert from "node:assert/strict";
import { createAuthClient, type Session } from "../../auth/mod.ts";
import { createBaseClient, success } from "../../core/mod.ts";
import {
  applySession,
  createSessionManager,
  getSsoUrlForCurrentSession,
  importAuthToken,
  importSessionFromFragment,
  linkIdentityWithIdTokenForCurrentSession,
  mfaVerifyAndSaveSession,
  type NativeAuthProvider,
  type SessionStorage,
  signInWith,
  signOutCurrentSession,
  unlinkIdentityAndUpdateSession,
  unlinkIdentityForCurrentSession,
  updateUserForCurrentSession,
  verifyOtpWithTokenHashAndSaveSession,
} from "../../session/mod.ts";
import { jsonResponse, recordingFetch, type Responder } from "../support/recording_fetch.ts";
import { BASE, KEY, sessionJson } from "./_helpers.ts";

/** A storage that keeps a JSON copy of what it was given and counts its calls. */
class RecordingStorage implements SessionStorage {
  saves = 0;
  clears = 0;
  #json: string | null = null;
  save(session: Session): void {
    this.saves++;
    this.#json = JSON.stringify(session);
  }
  load(): Session | null {
    return this.#json === null ? null : JSON.parse(this.#json) as Session;
  }
  clear(): void {
    this.clears++;
    this.#json = null;
  }
  /** The stored session as plain JSON data, or null. */
  get stored(): Record<string, unknown> | null {
    return this.#json === null ? null : JSON.parse(this.#json);
  }
}

/** A GoTrue user body: the user of `sessionJson` with other fields merged in. */
function userJson(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...(sessionJson(0).user as Record<string, unknown>), ...extra };
}

/**
 * A manager (no auto-refresh: no timers) over a recording fetch and storage,
 * holding the session of `sessionJson(1)` when `signedIn`; events are
 * recorded from then on.
 */
async function setup(answer: Responder, signedIn = true) {
  const rec = recordingFetch(answer);
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch });
  const auth = createAuthClient(client);
  const storage = new RecordingStorage();
  const manager = createSessionManager(auth, client, { autoRefresh: false, storage });
  if (signedIn) {
    const s = await auth.refreshToken("seed");
    await manager.saveSession(s.getOrThrow());
    rec.requests.length = 0;
    storage.saves = 0;
  }
  const events: string[] = [];
  manager.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
  return { rec, client, auth, manager, storage, events };
}

/** Answers the seed refresh with `sessionJson(1)`, then defers to `rest`. */
function seeded(rest: Responder): Responder {
  return (req, i) =>
    req.url.searchParams.get("grant_type") === "refresh_token" &&
      (req.json() as { refresh_token?: string }).refresh_token === "seed"
      ? jsonResponse(sessionJson(1))
      : rest(req, i);
}

// 1. MFA_CHALLENGE_VERIFIED

Deno.test("mfaVerifyAndSaveSession emits MFA_CHALLENGE_VERIFIED (not SIGNED_IN) and saves the AAL2 session", async () => {
  const { rec, auth, manager, storage, events } = await setup(
    seeded(() => jsonResponse(sessionJson(2))),
  );
  const r = await mfaVerifyAndSaveSession(auth, manager, "f1", "c1", "123456");
  assert.equal(r.getOrThrow().accessToken, "access-2");
  assert.equal(rec.only.url.pathname, "/auth/v1/factors/f1/verify");
  assert.equal(rec.only.headers.get("authorization"), "Bearer access-1");
  assert.deepEqual(events, ["MFA_CHALLENGE_VERIFIED"]);
  assert.equal(manager.accessToken, "access-2");
  assert.equal(storage.stored?.accessToken, "access-2");
});

// 2. PASSWORD_RECOVERY

Deno.test("verifyOtpWithTokenHashAndSaveSession emits PASSWORD_RECOVERY for type recovery, SIGNED_IN otherwise", async () => {
  for (const [type, event] of [["recovery", "PASSWORD_RECOVERY"], ["magiclink", "SIGNED_IN"]]) {
    const { rec, auth, manager, storage, events } = await setup(
      () => jsonResponse(sessionJson(3)),
      false,
    );
    const r = await verifyOtpWithTokenHashAndSaveSession(
      auth,
      manager,
      "hash-1",
      type as "recovery" | "magiclink",
    );
    assert.equal(r.getOrThrow().kind, "Authenticated", type);
    assert.equal((rec.only.json() as { type: string }).type, type);
    assert.deepEqual(events, [event], type);
    assert.equal(manager.accessToken, "access-3", type);
    assert.equal(storage.stored?.accessToken, "access-3", type);
  }
});

Deno.test("importSessionFromFragment emits PASSWORD_RECOVERY when the fragment has type=recovery, SIGNED_IN otherwise", async () => {
  const tokens = "access_token=frag-access&refresh_token=frag-refresh&expires_in=3600" +
    "&token_type=bearer";
  const cases: Array<[string, string]> = [
    [`#${tokens}&type=recovery`, "PASSWORD_RECOVERY"],
    [`type=recovery&${tokens}`, "PASSWORD_RECOVERY"],
    [`#${tokens}`, "SIGNED_IN"],
    [`#${tokens}&type=signup`, "SIGNED_IN"],
  ];
  for (const [fragment, event] of cases) {
    const { rec, auth, manager, storage, events } = await setup(
      () => jsonResponse(userJson()),
      false,
    );
    const r = await importSessionFromFragment(auth, fragment, manager);
    assert.equal(r.getOrThrow().accessToken, "frag-access", fragment);
    assert.equal(rec.only.url.pathname, "/auth/v1/user", fragment);
    assert.deepEqual(events, [event], fragment);
    assert.equal(storage.stored?.accessToken, "frag-access", fragment);
  }
});

// 3. updateStoredSession

type Mode = boolean | undefined;
const MODES: Mode[] = [false, true, undefined];
const label = (m: Mode) => `updateStoredSession: ${m ?? "default"}`;

Deno.test("updateUserForCurrentSession: updateStoredSession false leaves the stored session untouched; true and the default store the new user", async () => {
  for (const mode of MODES) {
    const { rec, auth, manager, storage, events } = await setup(
      seeded(() => jsonResponse(userJson({ email: "new@x.io" }))),
    );
    const before = storage.stored;
    const r = await updateUserForCurrentSession(
      auth,
      manager,
      { email: "new@x.io" },
      mode === undefined ? {} : { updateStoredSession: mode },
    );
    assert.equal(r.getOrThrow().email, "new@x.io", label(mode));
    assert.equal(rec.only.method, "PUT", label(mode));
    if (mode === false) {
      assert.equal(storage.saves, 0, label(mode));
      assert.deepEqual(storage.stored, before, label(mode));
      assert.equal(manager.currentSession?.user.email, "a@x.io", label(mode));
      assert.deepEqual(events, [], label(mode));
    } else {
      assert.equal(storage.saves, 1, label(mode));
      assert.equal((storage.stored?.user as { email: string }).email, "new@x.io", label(mode));
      assert.equal(storage.stored?.accessToken, "access-1", label(mode));
      assert.equal(manager.currentSession?.user.email, "new@x.io", label(mode));
      assert.deepEqual(events, ["USER_UPDATED"], label(mode));
    }
  }
});

Deno.test("linkIdentityWithIdTokenForCurrentSession: updateStoredSession false leaves the stored session untouched; true and the default save the new session", async () => {
  for (const mode of MODES) {
    const { rec, auth, manager, storage, events } = await setup(
      seeded(() => jsonResponse(sessionJson(2))),
    );
    const before = storage.stored;
    const r = await linkIdentityWithIdTokenForCurrentSession(
      auth,
      manager,
      "google",
      "id-token",
      mode === undefined ? {} : { updateStoredSession: mode },
    );
    assert.equal(r.getOrThrow().accessToken, "access-2", label(mode));
    assert.equal(rec.only.headers.get("authorization"), "Bearer access-1", label(mode));
    if (mode === false) {
      assert.equal(storage.saves, 0, label(mode));
      assert.deepEqual(storage.stored, before, label(mode));
      assert.equal(manager.accessToken, "access-1", label(mode));
      assert.deepEqual(events, [], label(mode));
    } else {
      assert.equal(storage.saves, 1, label(mode));
      assert.equal(storage.stored?.accessToken, "access-2", label(mode));
      assert.equal(manager.accessToken, "access-2", label(mode));
      assert.deepEqual(events, ["USER_UPDATED"], label(mode));
    }
  }
});

Deno.test("unlinkIdentityForCurrentSession and unlinkIdentityAndUpdateSession: updateStoredSession false leaves the stored session untouched; true and the default drop the identity", async () => {
  const ops = [
    [
      "unlinkIdentityForCurrentSession",
      (
        auth: ReturnType<typeof createAuthClient>,
        manager: ReturnType<typeof createSessionManager>,
        o: { updateStoredSession?: boolean },
      ) => unlinkIdentityForCurrentSession(auth, manager, "i1", o),
    ],
    [
      "unlinkIdentityAndUpdateSession",
      (
        auth: ReturnType<typeof createAuthClient>,
        manager: ReturnType<typeof createSessionManager>,
        o: { updateStoredSession?: boolean },
      ) => unlinkIdentityAndUpdateSession(auth, "access-1", "i1", manager, o),
    ],
  ] as const;
  for (const [name, op] of ops) {
    for (const mode of MODES) {
      const what = `${name}, ${label(mode)}`;
      const { rec, auth, manager, storage, events } = await setup(
        seeded(() => jsonResponse({})),
      );
      const before = storage.stored;
      const r = await op(auth, manager, mode === undefined ? {} : { updateStoredSession: mode });
      assert.equal(r.ok, true, what);
      // With the update, the user is read again (here a GET answered `{}`, which is no user: the
      // identity is dropped from the stored one).
      assert.deepEqual(
        rec.requests.map((q) => `${q.method} ${q.url.pathname}`),
        [
          "DELETE /auth/v1/user/identities/i1",
          ...mode === false ? [] : ["GET /auth/v1/user"],
        ],
        what,
      );
      const ids = (s: Record<string, unknown> | null) =>
        (s?.user as { identities: Array<{ id: string }> }).identities.map((i) => i.id);
      if (mode === false) {
        assert.equal(storage.saves, 0, what);
        assert.deepEqual(storage.stored, before, what);
        assert.deepEqual(manager.currentSession?.user.identities?.map((i) => i.id), [
          "i1",
          "i2",
        ], what);
        assert.deepEqual(events, [], what);
      } else {
        assert.equal(storage.saves, 1, what);
        assert.deepEqual(ids(storage.stored), ["i2"], what);
        assert.deepEqual(manager.currentSession?.user.identities?.map((i) => i.id), ["i2"], what);
        assert.deepEqual(events, ["USER_UPDATED"], what);
      }
    }
  }
});

// 4. clearStoredSessionOnSuccess

Deno.test("signOutCurrentSession: clearStoredSessionOnSuccess false keeps the stored session on success; true and the default clear it", async () => {
  for (const mode of MODES) {
    const what = `clearStoredSessionOnSuccess: ${mode ?? "default"}`;
    const { rec, client, auth, manager, storage, events } = await setup(
      seeded(() => new Response(null, { status: 204 })),
    );
    const before = storage.stored;
    const r = await signOutCurrentSession(
      auth,
      manager,
      mode === undefined ? {} : { clearStoredSessionOnSuccess: mode },
    );
    assert.equal(r.ok, true, what);
    assert.equal(rec.only.url.pathname, "/auth/v1/logout", what);
    assert.equal(rec.only.headers.get("authorization"), "Bearer access-1", what);
    if (mode === false) {
      assert.equal(storage.clears, 0, what);
      assert.deepEqual(storage.stored, before, what);
      assert.equal(manager.accessToken, "access-1", what);
      assert.deepEqual(events, [], what);
    } else {
      assert.equal(storage.clears, 1, what);
      assert.equal(storage.stored, null, what);
      assert.equal(manager.currentSession, null, what);
      assert.equal(client.accessToken, null, what);
      assert.deepEqual(events, ["SIGNED_OUT"], what);
    }
  }
});

// 5. applySession

Deno.test("applySession applies the session's token to the base client and returns the session; a blank token is ignored", async () => {
  const rec = recordingFetch(() => jsonResponse([]));
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch });
  const session = (await createAuthClient(
    createBaseClient(BASE, KEY, { fetch: () => Promise.resolve(jsonResponse(sessionJson(4))) }),
  ).refreshToken("r")).getOrThrow();
  assert.equal(client.accessToken, null);
  assert.equal(applySession(client, session), session);
  assert.equal(client.accessToken, "access-4");
  // Later requests through the client are authenticated with it.
  await client.request({ method: "GET", area: "rest", path: "/todos" });
  assert.equal(rec.last.headers.get("authorization"), "Bearer access-4");

  for (const blank of ["", "   "]) {
    const blankSession = { ...session, accessToken: blank };
    assert.equal(applySession(client, blankSession), blankSession);
    assert.equal(client.accessToken, "access-4", `${JSON.stringify(blank)} keeps the token`);
    const fresh = createBaseClient(BASE, KEY, { fetch: rec.fetch });
    applySession(fresh, blankSession);
    assert.equal(fresh.accessToken, null, `${JSON.stringify(blank)} applies nothing`);
  }
  await client.request({ method: "GET", area: "rest", path: "/todos" });
  assert.equal(rec.last.headers.get("authorization"), "Bearer access-4");
  // No session at all is the caller's mistake, named (it read 'accessToken' of undefined).
  for (const missing of [undefined, null, "access-5"]) {
    assert.throws(() => applySession(client, missing as never), {
      name: "TypeError",
      message: /^Cannot apply the session as it must be a Session: current value is /,
    });
  }
  assert.equal(client.accessToken, "access-4");
});

// 7. getSsoUrlForCurrentSession

Deno.test("getSsoUrlForCurrentSession sends the session's access token as the bearer", async () => {
  const { rec, client, auth, manager } = await setup(
    seeded(() => jsonResponse({ url: "https://idp.example/start" })),
  );
  // The client's token is not what the helper must send: the session's is.
  client.setAccessToken("some-other-token");
  const r = await getSsoUrlForCurrentSession(auth, manager, { domain: "corp.example" });
  assert.equal(r.getOrThrow().url, "https://idp.example/start");
  assert.equal(rec.only.method, "POST");
  assert.equal(rec.only.url.pathname, "/auth/v1/sso");
  assert.equal(rec.only.headers.get("authorization"), "Bearer access-1");
  assert.equal(rec.only.headers.get("apikey"), KEY);
  assert.equal((rec.only.json() as { domain: string }).domain, "corp.example");
});

// 8. signInWith

Deno.test("signInWith forwards captchaToken and calls onCredential with the raw credential before it is redeemed", async () => {
  const order: string[] = [];
  const rec = recordingFetch((req) => {
    order.push(`fetch ${req.url.pathname}?${req.url.searchParams}`);
    return jsonResponse(sessionJson(5));
  });
  const auth = createAuthClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  // The redemption itself, not only its request, comes after the callback.
  const redeem = auth.signInWithIdToken.bind(auth);
  auth.signInWithIdToken = (...args) => {
    order.push(`redeem ${args[0]} ${args[1]}`);
    return redeem(...args);
  };
  const provider: NativeAuthProvider = {
    provider: "google",
    signIn: () => {
      order.push("native flow");
      return Promise.resolve(
        success({
          provider: "google" as const,
          idToken: "google-id-token",
          accessToken: "google-access",
          nonce: "raw-nonce",
        }),
      );
    },
  };
  const r = await signInWith(auth, provider, {
    captchaToken: "captcha-abc",
    onCredential: (c) => {
      order.push(`onCredential ${c.provider} ${c.idToken} ${c.nonce}`);
    },
  });
  assert.equal(r.getOrThrow().accessToken, "access-5");
  assert.deepEqual(order, [
    "native flow",
    "onCredential google google-id-token raw-nonce",
    "redeem google google-id-token",
    "fetch /auth/v1/token?grant_type=id_token",
  ]);
  assert.deepEqual(rec.only.json(), {
    provider: "google",
    id_token: "google-id-token",
    access_token: "google-access",
    nonce: "raw-nonce",
    gotrue_meta_security: { captcha_token: "captcha-abc" },
  });
});

// 9. importAuthToken

/** An unsigned JWT-shaped token with these claims (importAuthToken does not verify it). */
function token(claims: Record<string, unknown>): string {
  const part = (v: unknown) =>
    btoa(JSON.stringify(v)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  return `${part({ alg: "HS256", typ: "JWT" })}.${part(claims)}.c2ln`;
}

Deno.test("importAuthToken: retrieveUser false makes no /user request; a custom tokenType is kept on the session", async () => {
  const jwt = token({ sub: "user-9", exp: 4_000_000_000 });
  const { rec, auth, manager, storage, events } = await setup(
    () => jsonResponse(userJson({ id: "user-9" })),
    false,
  );
  const r = await importAuthToken(auth, manager, jwt, {
    retrieveUser: false,
    tokenType: "dpop",
    refreshToken: "imported-refresh",
  });
  const s = r.getOrThrow();
  assert.equal(rec.requests.length, 0, "no request at all, /user included");
  assert.equal(s.user.id, "user-9", "the user id comes from the token's sub claim");
  assert.equal(s.tokenType, "dpop");
  assert.equal(manager.currentSession?.tokenType, "dpop");
  assert.equal(storage.stored?.tokenType, "dpop");
  assert.equal(storage.stored?.accessToken, jwt);
  assert.deepEqual(events, ["SIGNED_IN"]);

  // The default retrieves the user with the imported token, and the token type is bearer.
  const d = await setup(() => jsonResponse(userJson({ id: "user-9", email: "u9@x.io" })), false);
  const dr = (await importAuthToken(d.auth, d.manager, jwt)).getOrThrow();
  assert.equal(d.rec.only.url.pathname, "/auth/v1/user");
  assert.equal(d.rec.only.method, "GET");
  assert.equal(d.rec.only.headers.get("authorization"), `Bearer ${jwt}`);
  assert.equal(dr.user.email, "u9@x.io");
  assert.equal(dr.tokenType, "bearer");
});
