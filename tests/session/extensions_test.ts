import assert from "node:assert/strict";
import {
  createAuthClient,
  decodeSession,
  parseSessionTokensFromUrl,
  SignOutScope,
} from "../../auth/mod.ts";
import { createBaseClient, failure, success } from "../../core/mod.ts";
import { createLocalBackend } from "../../demo/local_backend/mod.ts";
import {
  createSessionManager,
  exchangeCodeForSessionAndSave,
  generateNonce,
  getClaimsForCurrentSession,
  getSsoUrlForCurrentSession,
  getUserForCurrentSession,
  getUserIdentitiesForCurrentSession,
  importAuthToken,
  importSessionFromFragment,
  importSessionFromUrl,
  InMemorySessionStorage,
  linkIdentityForCurrentSession,
  linkIdentityWithIdTokenForCurrentSession,
  type NativeAuthProvider,
  parseCurrentSessionJwtClaims,
  reauthenticateCurrentSession,
  refreshCurrentSession,
  refreshTokenAndSaveSession,
  signInAnonymouslyAndSaveSession,
  signInWith,
  signInWithAndSaveSession,
  signInWithEmail,
  signInWithEmailAndSaveSession,
  signInWithIdTokenAndSaveSession,
  signInWithPhoneAndSaveSession,
  signOut,
  signOutCurrentSession,
  signUpWithEmail,
  signUpWithEmailAndSaveSession,
  signUpWithPhoneAndSaveSession,
  unlinkIdentityForCurrentSession,
  updateUserForCurrentSession,
  verifyOtpAndSaveSession,
  verifyOtpWithTokenHashAndSaveSession,
} from "../../session/mod.ts";
import { jsonResponse, recordingFetch } from "../support/recording_fetch.ts";
import { serve } from "../support/serve.ts";

const SESSION = {
  access_token: "e30.eyJzdWIiOiJ1MSIsImV4cCI6NDAwMDAwMDAwMH0.c2ln",
  refresh_token: "r",
  expires_in: 3600,
  user: { id: "u1" },
};

function setup(answer: () => Response = () => jsonResponse(SESSION)) {
  const rec = recordingFetch(answer);
  const client = createBaseClient("https://p.example", "anon-key-123456", { fetch: rec.fetch });
  const auth = createAuthClient(client);
  const manager = createSessionManager(auth, client, { autoRefresh: false });
  return { rec, client, auth, manager };
}

Deno.test("session-aware extensions fail with 'No active session' without a session, before any request", async () => {
  const { rec, auth, manager } = setup();
  const results = await Promise.all([
    getUserForCurrentSession(auth, manager),
    reauthenticateCurrentSession(auth, manager),
    updateUserForCurrentSession(auth, manager, { data: {} }),
    refreshCurrentSession(auth, manager),
    getSsoUrlForCurrentSession(auth, manager, { domain: "x" }),
    getUserIdentitiesForCurrentSession(auth, manager),
    linkIdentityForCurrentSession(auth, manager, "github"),
    linkIdentityWithIdTokenForCurrentSession(auth, manager, "google", "t"),
    unlinkIdentityForCurrentSession(auth, manager, "i"),
    getClaimsForCurrentSession(manager, auth),
  ]);
  for (const r of results) assert.equal(r.errorOrNull()?.message, "No active session");
  assert.equal(parseCurrentSessionJwtClaims(manager).errorOrNull()?.message, "No active session");
  assert.equal((await signOutCurrentSession(auth, manager)).ok, true, "idempotent by default");
  assert.equal(
    (await signOutCurrentSession(auth, manager, { succeedIfNoSession: false })).ok,
    false,
  );
  assert.equal(rec.requests.length, 0);
});

Deno.test("AndSaveSession extensions save on success only; verify saves only Authenticated", async () => {
  const { auth, manager, rec } = setup();
  const events: string[] = [];
  manager.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
  for (
    const run of [
      () => signInWithEmailAndSaveSession(auth, manager, "a@x.io", "pw"),
      () => signInWithPhoneAndSaveSession(auth, manager, "+1", "pw"),
      () => signUpWithEmailAndSaveSession(auth, manager, "a@x.io", "pw"),
      () => signUpWithPhoneAndSaveSession(auth, manager, "+1", "pw"),
      () => signInAnonymouslyAndSaveSession(auth, manager),
      () => signInWithIdTokenAndSaveSession(auth, manager, "apple", "idt"),
      () => refreshTokenAndSaveSession(auth, manager, "r"),
      () => exchangeCodeForSessionAndSave(auth, "code", "verifier", manager),
    ]
  ) {
    await manager.clearSession();
    assert.ok((await run()).ok);
    assert.equal(manager.accessToken, SESSION.access_token);
  }
  await manager.clearSession();
  const v = await verifyOtpAndSaveSession(auth, manager, "1", "recovery", { email: "a@x.io" });
  assert.equal(v.getOrThrow().kind, "Authenticated");
  assert.ok(events.includes("PASSWORD_RECOVERY"));
  assert.ok(rec.requests.length >= 9);
  const none = setup(() => jsonResponse({ id: "u1" }));
  const nv = await verifyOtpWithTokenHashAndSaveSession(
    none.auth,
    none.manager,
    "h",
    "email_change",
  );
  assert.equal(nv.getOrThrow().kind, "VerifiedNoSession");
  assert.equal(none.manager.currentSession, null, "a no-session result is returned untouched");
});

Deno.test("client sign-in helpers apply the token; signOut keeps it when the server fails and skips I/O when signed out", async () => {
  let fail = false;
  const rec = recordingFetch((req) => {
    if (req.url.pathname.endsWith("/logout")) {
      return fail ? new Response("", { status: 500 }) : new Response(null, { status: 204 });
    }
    if (req.url.pathname.endsWith("/signup")) return jsonResponse({ id: "u9" });
    return jsonResponse(SESSION);
  });
  const client = createBaseClient("https://p.example", "anon-key-123456", {
    fetch: rec.fetch,
    retry: { maxAttempts: 1 },
  });
  assert.ok((await signInWithEmail(client, "a@x.io", "pw")).ok);
  assert.equal(client.accessToken, SESSION.access_token);
  fail = true;
  assert.equal((await signOut(client)).ok, false);
  assert.equal(client.accessToken, SESSION.access_token, "kept for a retry");
  assert.equal(rec.last.url.search, "?scope=global");
  fail = false;
  assert.ok((await signOut(client)).ok);
  assert.equal(client.accessToken, null);
  const n = rec.requests.length;
  assert.ok((await signOut(client)).ok);
  assert.equal(rec.requests.length, n, "no request when signed out");
  assert.ok((await signUpWithEmail(client, "b@x.io", "pw")).ok);
  assert.equal(client.accessToken, null, "no token without a session");
});

Deno.test("native sign-in redeems the credential with the id_token grant; generateNonce limits", async () => {
  const { auth, manager, rec } = setup();
  const seen: string[] = [];
  const provider: NativeAuthProvider = {
    provider: "apple",
    signIn: () =>
      Promise.resolve(
        success({
          provider: "apple" as const,
          idToken: "apple-id-token",
          nonce: "raw-nonce",
          fullName: "Ada",
        }),
      ),
  };
  const rendered: string[] = [];
  assert.ok(
    (await signInWith(auth, provider, {
      onCredential: (c) => {
        seen.push(c.idToken);
        rendered.push(String(c), Deno.inspect(c));
      },
    })).ok,
  );
  assert.deepEqual(seen, ["apple-id-token"]);
  for (const text of rendered) assert.doesNotMatch(text, /apple-id-token|raw-nonce|Ada/);
  assert.deepEqual(rec.last.json(), {
    provider: "apple",
    id_token: "apple-id-token",
    gotrue_meta_security: {},
    nonce: "raw-nonce",
  });
  assert.ok((await signInWithAndSaveSession(auth, manager, provider)).ok);
  assert.equal(manager.accessToken, SESSION.access_token);
  const cancelled: NativeAuthProvider = {
    provider: "google",
    signIn: () =>
      Promise.resolve(
        { ok: false, error: { message: "cancelled", category: "CANCELLED" } } as never,
      ),
  };
  const c = await signInWith(auth, cancelled);
  assert.equal(c.ok, false);
  assert.match(generateNonce(), /^[A-Za-z0-9_-]{32}$/);
  assert.equal(generateNonce({ byteCount: 16 }).length, 16);
  assert.throws(() => generateNonce({ byteCount: 15 }), RangeError);
  // The document writes generateNonce(byteCount): a bare number is refused, not read as none.
  assert.throws(() => generateNonce(8 as never), {
    name: "TypeError",
    message: /such as \{ byteCount \}: current value is 8/,
  });
  assert.notEqual(generateNonce(), generateNonce());
});

Deno.test("session flow against the local backend: import token and fragment, update, identities, claims, sign-out", async () => {
  const backend = await createLocalBackend();
  await using server = await serve(backend.app.fetch);
  const client = createBaseClient(server.url, backend.apiKey);
  const auth = createAuthClient(client);
  const manager = createSessionManager(auth, client, { autoRefresh: false });
  const s = (await auth.signUpWithEmail("sess@example.test", "secret-pw")).getOrThrow();

  const imported = (await importAuthToken(auth, manager, s.accessToken, {
    refreshToken: s.refreshToken,
    expiresIn: 3600,
  })).getOrThrow();
  assert.equal(imported.user.email, "sess@example.test");
  assert.equal(client.accessToken, s.accessToken);
  const fromFragment = (await importSessionFromFragment(
    auth,
    `#access_token=${s.accessToken}&refresh_token=${s.refreshToken}&expires_in=3600&token_type=bearer`,
    manager,
  )).getOrThrow();
  assert.equal(fromFragment.user.id, s.user.id);
  assert.ok(
    (await importSessionFromUrl(
      auth,
      `https://app/cb#access_token=${s.accessToken}&refresh_token=${s.refreshToken}&expires_in=3600&token_type=bearer`,
      manager,
    )).ok,
  );
  assert.equal(
    (await importSessionFromUrl(auth, "https://app/cb", manager)).errorOrNull()?.message,
    "Cannot import the session as the URL has no fragment",
  );
  // A PKCE redirect's code: the message says which helper finishes that flow.
  assert.match(
    (await importSessionFromUrl(auth, "https://app/cb?state=s&code=3e17a", manager)).errorOrNull()
      ?.message ?? "",
    /PKCE flow's, to exchange with exchangeCodeForSessionAndSave/,
  );

  const user = (await updateUserForCurrentSession(auth, manager, { data: { plan: "pro" } }))
    .getOrThrow();
  assert.equal(user.userMetadata?.plan, "pro");
  assert.equal(manager.currentSession?.user.userMetadata?.plan, "pro", "stored session updated");
  assert.equal((await getUserForCurrentSession(auth, manager)).getOrThrow().id, s.user.id);
  const identities = (await getUserIdentitiesForCurrentSession(auth, manager)).getOrThrow();
  assert.equal(identities[0].provider, "email");
  const claims = (await getClaimsForCurrentSession(manager, auth)).getOrThrow();
  assert.equal(claims.claims.subject, s.user.id);
  assert.equal(parseCurrentSessionJwtClaims(manager).getOrThrow().sub, s.user.id);
  const refreshed = (await refreshCurrentSession(auth, manager)).getOrThrow();
  assert.notEqual(refreshed.refreshToken, s.refreshToken);
  assert.ok((await signOutCurrentSession(auth, manager)).ok);
  assert.equal(manager.currentSession, null);
  assert.equal(client.accessToken, null);
  manager.dispose();
});

Deno.test("every session-aware and client sign-in helper takes a signal: aborted, it resolves CANCELLED and sends nothing", async () => {
  const { rec, client, auth, manager } = setup();
  await manager.saveSession((await auth.signInWithEmail("a@x.io", "pw")).getOrThrow());
  client.setAccessToken(SESSION.access_token);
  const before = rec.requests.length;
  const signal = AbortSignal.abort();
  const fragment = "access_token=a.b.c&refresh_token=r&expires_in=60&token_type=bearer";
  const native: NativeAuthProvider = {
    provider: "apple",
    signIn: () => Promise.resolve(success({ provider: "apple", idToken: "id" })),
  };
  const results = await Promise.all([
    getUserForCurrentSession(auth, manager, { signal }),
    reauthenticateCurrentSession(auth, manager, { signal }),
    updateUserForCurrentSession(auth, manager, { data: { a: 1 } }, { signal }),
    refreshCurrentSession(auth, manager, { signal }),
    signOutCurrentSession(auth, manager, { signal, clearStoredSessionOnSuccess: false }),
    getSsoUrlForCurrentSession(auth, manager, { domain: "x.io", signal }),
    getUserIdentitiesForCurrentSession(auth, manager, { signal }),
    linkIdentityForCurrentSession(auth, manager, "github", { signal }),
    linkIdentityWithIdTokenForCurrentSession(auth, manager, "apple", "id", { signal }),
    unlinkIdentityForCurrentSession(auth, manager, "i1", { signal }),
    importAuthToken(auth, manager, "a.b.c", { signal }),
    importSessionFromFragment(auth, fragment, manager, { signal }),
    importSessionFromUrl(auth, `https://app.example/#${fragment}`, manager, { signal }),
    exchangeCodeForSessionAndSave(auth, "code", "verifier", manager, { signal }),
    signInWithEmail(client, "a@x.io", "pw", { signal }),
    signUpWithEmail(client, "a@x.io", "pw", { signal, data: { plan: "free" } }),
    signOut(client, { signal }),
    signInWith(auth, native, { signal }),
    signInWithAndSaveSession(auth, manager, native, { signal }),
  ]);
  for (const [i, r] of results.entries()) {
    assert.equal(r.errorOrNull()?.category, "CANCELLED", `call ${i}`);
  }
  assert.equal(rec.requests.length, before);
  assert.equal(manager.currentSession?.accessToken, SESSION.access_token, "nothing was cleared");
  // signUpWithEmail sends its metadata and confirmation redirect from the options object.
  await signUpWithEmail(client, "b@x.io", "pw", {
    data: { plan: "free" },
    emailRedirectTo: "https://app.example/welcome",
  });
  assert.deepEqual((rec.last.json() as { data: unknown }).data, { plan: "free" });
  assert.equal(rec.last.url.searchParams.get("redirect_to"), "https://app.example/welcome");
  manager.dispose();
});

Deno.test("refreshCurrentSession: a signal fired mid-refresh ends only this caller's wait", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const { auth, manager } = setup();
  await manager.saveSession((await auth.signInWithEmail("a@x.io", "pw")).getOrThrow());
  const slow = setup(() => jsonResponse({ ...SESSION, refresh_token: "r2" }));
  const m = createSessionManager(
    createAuthClient(
      createBaseClient("https://p.example", "anon-key-123456", {
        fetch: async (input, init) => {
          await gate;
          return slow.rec.fetch(input, init);
        },
      }),
    ),
    slow.client,
    { autoRefresh: false },
  );
  await m.saveSession(manager.currentSession!);
  const ac = new AbortController();
  const waiting = refreshCurrentSession(slow.auth, m, { signal: ac.signal });
  const other = refreshCurrentSession(slow.auth, m);
  ac.abort();
  assert.equal((await waiting).errorOrNull()?.category, "CANCELLED");
  release();
  assert.equal((await other).getOrThrow().refreshToken, "r2", "the shared refresh went on");
  manager.dispose();
  m.dispose();
});

Deno.test("the client sign-in helpers carry the document's names, from the package root and ./session", async () => {
  const root = await import("../../mod.ts") as Record<string, unknown>;
  const session = await import("../../session/mod.ts") as Record<string, unknown>;
  for (
    const name of [
      "signInWithEmail",
      "signInWithPhone",
      "signInAnonymously",
      "signInWithIdToken",
      "signUpWithEmail",
      "signOut",
    ]
  ) {
    assert.equal(typeof root[name], "function", name);
    assert.equal(root[name], session[name], name);
  }
});

Deno.test("linkIdentityForCurrentSession: a bad URL option is a Failure, never thrown or a rejection", async () => {
  const { auth, manager } = setup();
  await manager.saveSession((await auth.signInWithEmail("a@x.io", "pw")).getOrThrow());
  const state = await linkIdentityForCurrentSession(auth, manager, "github", {
    queryParams: { state: "s" },
  });
  assert.equal(state.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(state.errorOrNull()?.message ?? "", /'queryParams' holds 'state'/);
  const direct = await auth.linkIdentity("tok", "github", { queryParams: { state: "s" } });
  assert.equal(direct.errorOrNull()?.category, "INVALID_ARGUMENT");
  // A blank provider is a Failure, as from auth.linkIdentity.
  const blank = await linkIdentityForCurrentSession(auth, manager, "");
  assert.equal(blank.errorOrNull()?.category, "INVALID_ARGUMENT");
  manager.dispose();
});

Deno.test("importing a session whose user cannot be fetched is that Failure, with nothing saved or applied", async () => {
  const { rec, client, auth, manager } = setup(() =>
    jsonResponse({ message: "invalid JWT" }, { status: 401 })
  );
  const fragment = "access_token=a.b.c&refresh_token=r&expires_in=60&token_type=bearer";
  const results = [
    await importAuthToken(auth, manager, "a.b.c"),
    await importSessionFromFragment(auth, fragment, manager),
    await importSessionFromUrl(auth, `https://app.example/cb#${fragment}`, manager),
  ];
  for (const r of results) assert.equal(r.errorOrNull()?.category, "UNAUTHORIZED");
  assert.equal(rec.requests.length, 3);
  assert.ok(rec.requests.every((r) => r.url.pathname === "/auth/v1/user"));
  assert.equal(manager.currentSession, null);
  assert.equal(client.accessToken, null);
  manager.dispose();
});

Deno.test("native sign-in: a cancelled, throwing or missing provider is a Failure, with no request, no credential and nothing saved", async () => {
  const { rec, auth, manager } = setup();
  const cancelledProvider: NativeAuthProvider = {
    provider: "google",
    signIn: () => Promise.resolve(failure({ message: "cancelled", category: "CANCELLED" })),
  };
  let credentials = 0;
  const onCredential = () => void credentials++;
  const c = await signInWith(auth, cancelledProvider, { onCredential });
  assert.equal(c.errorOrNull()?.category, "CANCELLED");
  const saved = await signInWithAndSaveSession(auth, manager, cancelledProvider);
  assert.equal(saved.errorOrNull()?.category, "CANCELLED");
  // A provider should resolve a Failure; one that throws or rejects still gives one.
  for (
    const signIn of [() => Promise.reject(new Error("no native sign-in")), () => {
      throw new Error("no native sign-in");
    }]
  ) {
    const r = await signInWith(auth, { provider: "apple", signIn }, { onCredential });
    assert.equal(r.errorOrNull()?.category, "UNKNOWN");
    assert.match(r.errorOrNull()?.message ?? "", /Native sign-in failed: no native sign-in/);
  }
  const notProvider = await signInWith(auth, {} as unknown as NativeAuthProvider);
  assert.equal(notProvider.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(credentials, 0);
  assert.equal(rec.requests.length, 0);
  assert.equal(manager.currentSession, null);
  manager.dispose();
});

// --- importing a session from a redirect URL (found by a security review) --------------------

const b64 = (o: unknown) =>
  btoa(JSON.stringify(o)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
/** An unsigned token shape: the import checks it with GET /user, which the tests answer. */
const tokenOf = (claims: Record<string, unknown>) =>
  `${b64({ alg: "ES256", kid: "k" })}.${b64(claims)}.c2ln`;
const fragmentOf = (access: string, refresh: string, extra = "") =>
  `#access_token=${access}&refresh_token=${refresh}&expires_in=3600&token_type=bearer${extra}`;

/** `sessionStorage.getItem` of a browser that stored nothing. */
const sessionStorageGetItem = (_key: string): string | null => null;

Deno.test("importSessionFromUrl with expectedState refuses a URL carrying another state or none, before any request", async () => {
  const { rec, auth, manager } = setup(() => jsonResponse({ id: "u1" }));
  const access = tokenOf({ sub: "u1", session_id: "s1", exp: 4_000_000_000 });
  for (
    const [url, code] of [
      [`https://app.example/cb?state=forged${fragmentOf(access, "r1")}`, "oauth_state_mismatch"],
      [`https://app.example/cb${fragmentOf(access, "r1")}`, "oauth_state_missing"],
    ]
  ) {
    const r = await importSessionFromUrl(auth, url, manager, { expectedState: "sent-state" });
    assert.equal(r.errorOrNull()?.code, code, url);
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  }
  // A blank expected state is no state: refused, not skipped.
  const blank = await importSessionFromUrl(
    auth,
    `https://app.example/cb?state=${fragmentOf(access, "r1")}`,
    manager,
    { expectedState: "" },
  );
  assert.equal(blank.errorOrNull()?.code, "oauth_state_missing");
  // Nor is null, what sessionStorage.getItem gives when this browser started no sign-in: in a
  // login CSRF the victim stored no state, and the attacker's link (a recovery one here, which
  // would ask the victim to set a password on the attacker's account) must not be imported.
  for (const query of ["", "?state=attacker-state"]) {
    const forged = await importSessionFromUrl(
      auth,
      `https://app.example/cb${query}${fragmentOf(access, "r1")}&type=recovery`,
      manager,
      { expectedState: sessionStorageGetItem("oauth-state") },
    );
    assert.equal(forged.errorOrNull()?.code, "oauth_state_missing", query);
    // Nor is undefined given as the option, what Map.get or a cookie library answers.
    const unset = await importSessionFromUrl(
      auth,
      `https://app.example/cb${query}${fragmentOf(access, "r1")}&type=recovery`,
      manager,
      { expectedState: new Map<string, string>().get("oauth-state") },
    );
    assert.equal(unset.errorOrNull()?.code, "oauth_state_missing", query);
  }
  // importSessionFromFragment checks no state: one given to it is refused, not ignored.
  const unchecked = await importSessionFromFragment(
    auth,
    fragmentOf(access, "r1").slice(1),
    manager,
    { expectedState: "sent-state" } as Parameters<typeof importSessionFromFragment>[3],
  );
  assert.equal(unchecked.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(unchecked.errorOrNull()!.message, /importSessionFromUrl/);
  assert.equal(rec.requests.length, 0);
  assert.equal(manager.currentSession, null);
  const ok = await importSessionFromUrl(
    auth,
    `https://app.example/cb?state=sent-state${fragmentOf(access, "r1")}`,
    manager,
    { expectedState: "sent-state" },
  );
  assert.equal(ok.getOrThrow().refreshToken, "r1");
});

Deno.test("a URL imported again after its session was refreshed returns the held session and does not put back its spent refresh token", async () => {
  const { rec, auth, manager } = setup(() => jsonResponse({ id: "u1" }));
  const first = tokenOf({ sub: "u1", session_id: "s1", exp: 4_000_000_000 });
  await importSessionFromFragment(auth, fragmentOf(first, "r0"), manager);
  // The refresh that followed: same session, a later token.
  const refreshed = tokenOf({ sub: "u1", session_id: "s1", exp: 4_000_003_600 });
  await importSessionFromFragment(auth, fragmentOf(refreshed, "r1"), manager);
  const asked = rec.requests.length;
  // The reload: the same URL as the first time.
  const again = (await importSessionFromFragment(auth, fragmentOf(first, "r0"), manager))
    .getOrThrow();
  assert.equal(again.refreshToken, "r1");
  assert.equal(manager.currentSession?.refreshToken, "r1");
  assert.equal(rec.requests.length, asked, "no request for a fragment of the held session");
  // Another token of the held session expiring at the same time (another iat): not newer.
  const twin = tokenOf({ sub: "u1", session_id: "s1", exp: 4_000_003_600, iat: 1 });
  assert.equal(
    (await importSessionFromFragment(auth, fragmentOf(twin, "r-twin"), manager)).getOrThrow()
      .refreshToken,
    "r1",
  );
  assert.equal(rec.requests.length, asked);
  // Another session (another sign-in) is imported.
  const other = tokenOf({ sub: "u1", session_id: "s2", exp: 4_000_000_000 });
  assert.equal(
    (await importSessionFromFragment(auth, fragmentOf(other, "r9"), manager)).getOrThrow()
      .refreshToken,
    "r9",
  );
});

Deno.test("the import reads the link's type as the tokens are read: decoded, the last value", async () => {
  const events: string[] = [];
  for (
    const [extra, event] of [
      ["&type=recover%79", "PASSWORD_RECOVERY"],
      ["&typ%65=recovery", "PASSWORD_RECOVERY"],
      ["&type=recovery&type=signup", "SIGNED_IN"],
      ["&type=signup&type=recovery", "PASSWORD_RECOVERY"],
    ]
  ) {
    const { auth, manager } = setup(() => jsonResponse({ id: "u1" }));
    events.length = 0;
    manager.onAuthStateChange((e) => void events.push(e));
    const token = tokenOf({ sub: "u1", session_id: extra, exp: 4_000_000_000 });
    (await importSessionFromFragment(auth, fragmentOf(token, "r", extra), manager)).getOrThrow();
    assert.ok(events.includes(event), `${extra}: ${events}`);
  }
});

Deno.test("a reloaded recovery link (the very same token) is imported again and still says PASSWORD_RECOVERY; a relative URL's state is read", async () => {
  const { auth, manager } = setup(() => jsonResponse({ id: "u1" }));
  const events: string[] = [];
  manager.onAuthStateChange((e) => void events.push(e));
  const token = tokenOf({ sub: "u1", session_id: "s1", exp: 4_000_000_000 });
  const url = `/reset?state=st${fragmentOf(token, "r1", "&type=recovery")}`;
  for (let load = 0; load < 2; load++) {
    (await importSessionFromUrl(auth, url, manager, { expectedState: "st" })).getOrThrow();
  }
  assert.equal(events.filter((e) => e === "PASSWORD_RECOVERY").length, 2, `${events}`);
});

Deno.test("a reload imported while the held session refreshes keeps the refreshed tokens, not the URL's spent ones", async () => {
  const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const a1 = tokenOf({ sub: "u1", session_id: "s1", exp: 4_000_000_000 });
  const a2 = tokenOf({ sub: "u1", session_id: "s1", exp: 4_000_003_600 });
  const user = { id: "u1", aud: "authenticated" };
  const fetch = (async (input: RequestInfo | URL) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.includes("grant_type=refresh_token")) {
      await delay(10);
      return jsonResponse({
        access_token: a2,
        refresh_token: "r2",
        expires_in: 3600,
        token_type: "bearer",
        user,
      });
    }
    await delay(50); // GET /user, slower than the refresh
    return jsonResponse(user);
  }) as typeof globalThis.fetch;
  const client = createBaseClient("https://p.example", "anon-key-123456", { fetch });
  const auth = createAuthClient(client);
  const manager = createSessionManager(auth, client, { autoRefresh: false });
  await importSessionFromFragment(auth, fragmentOf(a1, "r1"), manager);
  const reload = importSessionFromUrl(auth, `/cb${fragmentOf(a1, "r1")}`, manager);
  const refresh = manager.refreshSession();
  assert.ok((await refresh).ok);
  assert.equal((await reload).getOrThrow().refreshToken, "r2");
  assert.equal(manager.currentSession?.refreshToken, "r2");
});

// --- what GoTrue puts in a redirect instead of tokens (a review against its source) ----------

Deno.test("an error GoTrue sends in the query alone (a failed OAuth state check) is the Failure, not 'no fragment', with or without expectedState", async () => {
  const { auth, manager, rec } = setup();
  const url =
    "https://app.example/?error=invalid_request&error_code=bad_oauth_state&error_description=OAuth+state+has+expired";
  for (const options of [{}, { expectedState: "s-123" }]) {
    const r = await importSessionFromUrl(auth, url, manager, options);
    assert.equal(r.errorOrNull()?.code, "bad_oauth_state");
    assert.equal(r.errorOrNull()?.message, "OAuth state has expired");
  }
  const parsed = parseSessionTokensFromUrl(url);
  assert.equal(parsed.errorOrNull()?.code, "bad_oauth_state");
  // A fragment's own error still wins, and a URL with neither still says so.
  assert.equal(
    parseSessionTokensFromUrl("https://a/?error=x#error=access_denied&error_code=otp_expired")
      .errorOrNull()?.code,
    "otp_expired",
  );
  assert.match(
    (await importSessionFromUrl(auth, "https://app.example/?q=1", manager)).errorOrNull()!.message,
    /no fragment/,
  );
  assert.equal(rec.requests.length, 0);
  assert.equal(manager.currentSession, null);
});

Deno.test("the first of an email change's two links (a notice, no tokens) is NO_SESSION with the server's words, not a broken link", async () => {
  const { auth, manager, rec } = setup();
  const notice =
    "Confirmation link accepted. Please proceed to confirm link sent to the other email";
  for (
    const url of [
      `https://app.example/cb#message=${notice.replaceAll(" ", "+")}&sb=`,
      // The PKCE form: in the query too.
      `https://app.example/cb?message=${encodeURIComponent(notice)}#message=${
        encodeURIComponent(notice)
      }&sb=`,
    ]
  ) {
    const r = await importSessionFromUrl(auth, url, manager);
    assert.equal(r.errorOrNull()?.category, "NO_SESSION", url);
    assert.equal(r.errorOrNull()?.message, notice, url);
    assert.equal(parseSessionTokensFromUrl(url).errorOrNull()?.message, notice, url);
  }
  // A page's own parameters are not GoTrue's words: no `sb`, or an `error` without a description.
  for (
    const url of [
      "https://app.example/cb?error=0#/dashboard",
      "https://app.example/cb?message=Saved#/settings",
      "https://app.example/cb#message=hi",
      "https://app.example/list?error=0",
    ]
  ) {
    assert.equal(
      (await importSessionFromUrl(auth, url, manager)).errorOrNull()?.category,
      "DECODE",
      url,
    );
  }
  assert.equal(rec.requests.length, 0);
});

Deno.test("a password recovery link in the PKCE flow (a code whose session's amr says recovery) emits PASSWORD_RECOVERY", async () => {
  const part = (o: object) =>
    btoa(JSON.stringify(o)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  const token = (method: string) =>
    `${part({ alg: "HS256" })}.${
      part({ sub: "u1", exp: 4000000000, amr: [{ method, timestamp: 1 }] })
    }.c2ln`;
  for (const [method, event] of [["recovery", "PASSWORD_RECOVERY"], ["otp", "SIGNED_IN"]]) {
    const { auth, manager } = setup(() =>
      jsonResponse({ ...SESSION, access_token: token(method) })
    );
    const events: string[] = [];
    manager.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
    assert.ok((await exchangeCodeForSessionAndSave(auth, "code", "verifier", manager)).ok);
    assert.deepEqual(events, [event], method);
  }
});

Deno.test("signOutCurrentSession with nothing held leaves a shared storage alone: another tab's sign-in stays stored", async () => {
  const { auth, client } = setup();
  const storage = new InMemorySessionStorage();
  const tabA = createSessionManager(auth, client, { storage, autoRefresh: false });
  // Tab B signs in after tab A restored nothing.
  assert.equal((await tabA.restoreSession()).ok, false);
  const tabB = createSessionManager(auth, client, { storage, autoRefresh: false });
  await tabB.saveSession(decodeSession(SESSION));
  assert.ok((await signOutCurrentSession(auth, tabA)).ok);
  assert.equal(storage.load()?.refreshToken, decodeSession(SESSION).refreshToken);
  tabA.dispose();
  tabB.dispose();
});

Deno.test("importSessionFromUrl given options that are no object resolves a Result, as it did", async () => {
  const { auth, manager } = setup();
  for (const odd of ["x", 5, true]) {
    const r = await importSessionFromUrl(
      auth,
      "https://app.example/cb#access_token=a&refresh_token=b&expires_in=3600&token_type=bearer",
      manager,
      odd as unknown as Parameters<typeof importSessionFromUrl>[3],
    );
    assert.equal(r.ok, false);
  }
  // A function carrying the option is read as any object is: the state is checked.
  const fn = Object.assign(() => {}, { expectedState: "sent-state" });
  const checked = await importSessionFromUrl(
    auth,
    "https://app.example/cb?state=attacker#access_token=a&refresh_token=b&expires_in=3600&token_type=bearer",
    manager,
    fn as unknown as Parameters<typeof importSessionFromUrl>[3],
  );
  assert.equal(checked.errorOrNull()?.code, "oauth_state_mismatch");
});

Deno.test("refreshCurrentSession takes the auth client first, as its siblings; a manager given first is a clear Failure, not a throw", async () => {
  const { rec, auth, manager } = setup();
  await manager.saveSession(decodeSession(SESSION));
  const old = refreshCurrentSession as unknown as (m: unknown) => Promise<{ ok: boolean }>;
  const r = await old(manager);
  assert.equal(r.ok, false);
  assert.equal(rec.requests.length, 0);
  assert.ok((await refreshCurrentSession(auth, manager)).ok);
  manager.dispose();
});

Deno.test("the client's signOut takes a session GoTrue has already ended as signed out (its token failed every sign-out for ever)", async () => {
  // GoTrue's answers for a session that is gone (internal/api/auth.go, maybeLoadUserOrSession):
  // 403 session_not_found for GLOBAL and OTHERS, and for LOCAL any token it refuses (an expired
  // one is 403 bad_jwt).
  const gone = {
    code: "session_not_found",
    message: "Session from session_id claim in JWT does not exist",
  };
  const expired = { code: "bad_jwt", message: "invalid JWT: token is expired" };
  const cases: Array<[SignOutScope, Record<string, string>, number, boolean]> = [
    [SignOutScope.GLOBAL, gone, 403, true],
    [SignOutScope.OTHERS, gone, 403, true],
    [SignOutScope.LOCAL, expired, 403, true],
    [SignOutScope.LOCAL, { code: "unexpected_failure", message: "down" }, 401, true],
    // A refused token revoked nothing for GLOBAL: kept for a retry with a fresh one; a 404 that
    // is no GoTrue answer (a proxy's page, a wrong route) ended nothing either.
    [SignOutScope.GLOBAL, expired, 403, false],
    [SignOutScope.GLOBAL, { message: "Not Found" }, 404, false],
    [SignOutScope.OTHERS, { message: "no Route matched with those values" }, 404, false],
    [SignOutScope.GLOBAL, { code: "unexpected_failure", message: "down" }, 500, false],
  ];
  for (const [scope, body, status, signedOut] of cases) {
    const what = `${scope} ${status} ${body.code}`;
    const rec = recordingFetch((req) =>
      req.url.pathname.endsWith("/logout") ? jsonResponse(body, { status }) : jsonResponse(SESSION)
    );
    const client = createBaseClient("https://p.example", "anon-key-123456", {
      fetch: rec.fetch,
      retry: { maxAttempts: 1 },
    });
    assert.ok((await signInWithEmail(client, "a@x.io", "pw")).ok);
    const r = await signOut(client, { scope });
    assert.equal(r.ok, signedOut, what);
    assert.equal(client.accessToken, signedOut ? null : SESSION.access_token, what);
  }
});
