/** End-to-end auth flows against a fake GoTrue answering as GoTrue does, with a SessionManager. */

import assert from "node:assert/strict";
import {
  createAuthClient,
  generatePkceParams,
  getOAuthSignInUrl,
  type Session,
} from "../../auth/mod.ts";
import { createBaseClient } from "../../core/mod.ts";
import {
  createSessionManager,
  exchangeCodeForSessionAndSave,
  getSsoUrlForCurrentSession,
  importAuthToken,
  importSessionFromUrl,
  InMemorySessionStorage,
  linkIdentityForCurrentSession,
  mfaVerifyAndSaveSession,
  unlinkIdentityAndUpdateSession,
  updateUserForCurrentSession,
  verifyOtpAndSaveSession,
} from "../../session/mod.ts";
import { jsonResponse, type RecordedRequest, recordingFetch } from "../support/recording_fetch.ts";

const BASE = "https://project.example.com";
const b64 = (o: unknown) =>
  btoa(JSON.stringify(o)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
/** A GoTrue-shaped access token. */
function jwt(claims: Record<string, unknown>): string {
  const now = Math.floor(Date.now() / 1000);
  return `${b64({ alg: "HS256", typ: "JWT" })}.${
    b64({ sub: "u1", session_id: "s1", exp: now + 3600, iat: now, aal: "aal1", ...claims })
  }.c2ln`;
}
const USER = {
  id: "u1",
  email: "ada@example.com",
  identities: [{ id: "i1", identity_id: "i1", provider: "email" }, {
    id: "i2",
    identity_id: "i2",
    provider: "github",
  }],
};
function tokens(n: number, claims: Record<string, unknown> = {}) {
  return {
    access_token: jwt({ n, ...claims }),
    refresh_token: `refresh-${n}`,
    expires_in: 3600,
    expires_at: Math.floor(Date.now() / 1000) + 3600,
    token_type: "bearer",
    user: USER,
  };
}

/** A held session numbered `n` (its refresh token `refresh-n`), saved as a sign-in would. */
function heldSession(n: number): Session {
  return {
    accessToken: tokens(n).access_token,
    refreshToken: `refresh-${n}`,
    expiresIn: 3600,
    expiresAt: null,
    tokenType: "bearer",
    user: { id: "u1" } as never,
    providerToken: null,
    providerRefreshToken: null,
  };
}

type Route = (req: RecordedRequest) => Response | undefined | void;
function setup(route: Route) {
  const rec = recordingFetch((req) =>
    route(req) ?? jsonResponse({ code: 404, error_code: "not_found", msg: "no route" }, {
      status: 404,
    })
  );
  const client = createBaseClient(BASE, "anon-key-0123456789", { fetch: rec.fetch });
  const auth = createAuthClient(client);
  const storage = new InMemorySessionStorage();
  const manager = createSessionManager(auth, client, { autoRefresh: false, storage });
  const events: string[] = [];
  manager.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
  return { rec, client, auth, manager, storage, events };
}
const path = (r: RecordedRequest) => `${r.method} ${r.url.pathname}${r.url.search}`;

Deno.test("flows: PKCE sign-in: challenge in the URL, exchange with the verifier, saved once", async () => {
  const pkce = await generatePkceParams();
  const spent = new Set<string>();
  const { rec, auth, manager, storage, events } = setup((req) => {
    if (req.url.pathname.endsWith("/token") && req.url.searchParams.get("grant_type") === "pkce") {
      const b = req.json() as Record<string, string>;
      if (
        b.auth_code === "code-1" && !spent.has("code-1") && b.code_verifier === pkce.codeVerifier
      ) {
        spent.add("code-1"); // GoTrue destroys the flow state on success
        return jsonResponse(tokens(1));
      }
      return jsonResponse({
        code: 404,
        error_code: "flow_state_not_found",
        msg: "invalid flow state, no valid flow state found",
      }, { status: 404 });
    }
    return undefined;
  });
  const url = new URL(
    getOAuthSignInUrl(auth, "github", { redirectTo: "https://app.example/cb", pkceParams: pkce }),
  );
  assert.equal(url.searchParams.get("code_challenge"), pkce.codeChallenge);
  assert.equal(url.searchParams.get("code_challenge_method"), "s256");
  assert.ok(!url.toString().includes(pkce.codeVerifier));
  const r = await exchangeCodeForSessionAndSave(auth, "code-1", pkce.codeVerifier, manager);
  assert.ok(r.ok);
  assert.deepEqual(rec.only.json(), { auth_code: "code-1", code_verifier: pkce.codeVerifier });
  assert.equal(storage.load()?.refreshToken, "refresh-1");
  assert.deepEqual(events, ["SIGNED_IN"]);
  assert.ok(!String(r.value).includes("refresh-1"));
  assert.ok(!Deno.inspect(r.value).includes("refresh-1"));
  // Replayed: the server has spent the flow state; the held session stays, nothing saved.
  const again = await exchangeCodeForSessionAndSave(auth, "code-1", pkce.codeVerifier, manager);
  assert.ok(!again.ok);
  assert.ok(!JSON.stringify(again.error).includes(pkce.codeVerifier));
  assert.equal(again.error.code, "flow_state_not_found");
  // A foreign code (another browser's flow): the verifier does not match; nothing saved.
  const foreign = await exchangeCodeForSessionAndSave(auth, "code-2", pkce.codeVerifier, manager);
  assert.ok(!foreign.ok);
  assert.equal(manager.currentSession?.refreshToken, "refresh-1");
  assert.deepEqual(events, ["SIGNED_IN"]);
});

Deno.test("flows: a PKCE error redirect imports nothing and says the server's error", async () => {
  const { rec, auth, manager, events } = setup(() => undefined);
  const url =
    "https://app.example/cb?error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired&sb=";
  const r = await importSessionFromUrl(auth, url, manager);
  assert.ok(!r.ok);
  assert.equal(r.error.message, "Email link is invalid or has expired");
  assert.equal(rec.requests.length, 0);
  assert.equal(manager.currentSession, null);
  assert.deepEqual(events, []);
});

for (const type of ["recovery", "invite", "magiclink", "signup"]) {
  Deno.test(`flows: implicit fragment of type ${type}`, async () => {
    const t = tokens(2);
    const { rec, auth, manager, storage, events } = setup((req) =>
      req.url.pathname.endsWith("/user") ? jsonResponse(USER) : undefined
    );
    const url =
      `https://app.example/cb#access_token=${t.access_token}&expires_at=${t.expires_at}&expires_in=3600&refresh_token=refresh-2&token_type=bearer&type=${type}`;
    const r = await importSessionFromUrl(auth, url, manager);
    assert.ok(r.ok, !r.ok ? r.error.message : "");
    assert.equal(rec.only.headers.get("authorization"), `Bearer ${t.access_token}`);
    assert.equal(storage.load()?.refreshToken, "refresh-2");
    assert.deepEqual(events, [type === "recovery" ? "PASSWORD_RECOVERY" : "SIGNED_IN"]);
  });
}

Deno.test("flows: OTP verify saves; a failed one saves nothing", async () => {
  const { rec, auth, manager, events } = setup((req) => {
    if (!req.url.pathname.endsWith("/verify")) return undefined;
    const b = req.json() as Record<string, string>;
    return b.token === "123456" ? jsonResponse(tokens(3)) : jsonResponse({
      code: 403,
      error_code: "otp_expired",
      msg: "Token has expired or is invalid",
    }, { status: 403 });
  });
  const bad = await verifyOtpAndSaveSession(auth, manager, "000000", "email", {
    email: "ada@example.com",
  });
  assert.ok(!bad.ok);
  assert.equal(manager.currentSession, null);
  const ok = await verifyOtpAndSaveSession(auth, manager, "123456", "email", {
    email: "ada@example.com",
  });
  assert.ok(ok.ok);
  assert.deepEqual(rec.last.json(), {
    email: "ada@example.com",
    token: "123456",
    type: "email",
    gotrue_meta_security: {},
  });
  assert.deepEqual(events, ["SIGNED_IN"]);
});

Deno.test("flows: MFA enroll, challenge, verify: AAL2 stored, MFA_CHALLENGE_VERIFIED", async () => {
  const { rec, auth, manager, storage, events } = setup((req) => {
    const p = req.url.pathname;
    if (p.endsWith("/factors")) {
      return jsonResponse({
        id: "f1",
        type: "totp",
        friendly_name: "phone",
        totp: { qr_code: "data:", secret: "S", uri: "otpauth://x" },
      });
    }
    if (p.endsWith("/factors/f1/challenge")) {
      return jsonResponse({ id: "c1", type: "totp", expires_at: 9999999999 });
    }
    if (p.endsWith("/factors/f1/verify")) {
      const b = req.json() as Record<string, string>;
      if (b.code !== "123456") {
        return jsonResponse({
          code: 422,
          error_code: "mfa_verification_failed",
          msg: "Invalid TOTP code entered",
        }, { status: 422 });
      }
      return jsonResponse(tokens(5, { aal: "aal2", amr: [{ method: "totp", timestamp: 1 }] }));
    }
    return undefined;
  });
  await manager.saveSession(heldSession(4));
  events.length = 0;
  const at = manager.currentSession!.accessToken;
  const e = await auth.mfaEnroll(at, "totp", { friendlyName: "phone" });
  assert.ok(e.ok, !e.ok ? e.error.message : "");
  const c = await auth.mfaChallenge(at, "f1");
  assert.ok(c.ok);
  const bad = await mfaVerifyAndSaveSession(auth, manager, "f1", c.value.id, "000000");
  assert.ok(!bad.ok);
  assert.equal(manager.currentSession?.refreshToken, "refresh-4");
  assert.deepEqual(events, []);
  const v = await mfaVerifyAndSaveSession(auth, manager, "f1", c.value.id, "123456");
  assert.ok(v.ok);
  assert.deepEqual(rec.last.json(), { challenge_id: "c1", code: "123456" });
  assert.equal(storage.load()?.refreshToken, "refresh-5");
  const aal = auth.mfaGetAuthenticatorAssuranceLevel(manager.currentSession!.accessToken);
  assert.ok(aal.ok && aal.value === "aal2");
  assert.equal(manager.sessionState.value.kind, "Authenticated");
  assert.deepEqual(events, ["MFA_CHALLENGE_VERIFIED"]);
});

Deno.test("flows: an email change through updateUserForCurrentSession sends its PKCE challenge and redirect", async () => {
  const pkce = await generatePkceParams();
  const { rec, auth, manager, storage, events } = setup((req) =>
    req.method === "PUT" ? jsonResponse({ ...USER, new_email: "new@example.com" }) : undefined
  );
  await manager.saveSession(heldSession(6));
  events.length = 0;
  const r = await updateUserForCurrentSession(auth, manager, { email: "new@example.com" }, {
    pkceParams: pkce,
    emailRedirectTo: "https://app.example/cb",
  });
  assert.ok(r.ok);
  // As updateUser sends it (and auth-js in the PKCE flow): GoTrue keeps a flow state for the
  // link only with the challenge, and sends the link to redirect_to.
  assert.equal(
    path(rec.only),
    `PUT /auth/v1/user?redirect_to=${encodeURIComponent("https://app.example/cb")}`,
  );
  assert.deepEqual(rec.only.json(), {
    email: "new@example.com",
    code_challenge: pkce.codeChallenge,
    code_challenge_method: "s256",
  });
  assert.equal(storage.load()?.user.email, "ada@example.com");
  assert.deepEqual(events, ["USER_UPDATED"]);
});

Deno.test("flows: unlink updates the stored session; importAuthToken", async () => {
  // GoTrue's user loses the identity with the DELETE.
  let unlinked = false;
  const { auth, manager, storage, events } = setup((req) =>
    req.method === "DELETE"
      ? (unlinked = true, jsonResponse({}))
      : req.url.pathname.endsWith("/user")
      ? jsonResponse(unlinked ? { ...USER, identities: USER.identities.slice(0, 1) } : USER)
      : undefined
  );
  const t = tokens(7);
  const r = await importAuthToken(auth, manager, t.access_token, {
    refreshToken: "refresh-7",
    expiresIn: 3600,
  });
  assert.ok(r.ok);
  const u = await unlinkIdentityAndUpdateSession(auth, t.access_token, "i2", manager);
  assert.ok(u.ok);
  assert.deepEqual(storage.load()?.user.identities?.map((i) => i.id), ["i1"]);
  assert.deepEqual(events, ["SIGNED_IN", "USER_UPDATED"]);
});

const hidden = (v: unknown, ...secrets: string[]) => {
  for (const t of [String(v), Deno.inspect(v, { depth: 10 })]) {
    for (const x of secrets) assert.ok(!t.includes(x), `rendering leaks ${x}: ${t}`);
  }
};

Deno.test("flows: renderings of every saved session mask the tokens", async () => {
  const t = tokens(8);
  const { auth, manager } = setup((req) => {
    if (req.url.pathname.endsWith("/user")) return jsonResponse(USER);
    if (req.url.pathname.endsWith("/verify")) return jsonResponse(tokens(9, { aal: "aal2" }));
    if (req.url.pathname.endsWith("/token")) {
      return jsonResponse({
        ...tokens(10),
        provider_token: "ptok",
        provider_refresh_token: "prtok",
      });
    }
    return undefined;
  });
  const a = await importAuthToken(auth, manager, t.access_token, { refreshToken: "refresh-8" });
  assert.ok(a.ok);
  hidden(a.value, t.access_token, "refresh-8");
  hidden(manager.currentSession, t.access_token, "refresh-8");
  const f = await importSessionFromUrl(
    auth,
    `https://a.example/#access_token=${t.access_token}&refresh_token=refresh-8&expires_in=60&token_type=bearer&provider_token=ptok`,
    manager,
  );
  assert.ok(f.ok);
  hidden(f.value, t.access_token, "refresh-8", "ptok");
  const m = await mfaVerifyAndSaveSession(auth, manager, "f1", "c1", "123456");
  assert.ok(m.ok);
  hidden(m.value, "refresh-9", tokens(9).access_token.split(".")[1]);
  hidden(manager.currentSession, "refresh-9");
  const x = await exchangeCodeForSessionAndSave(auth, "c", "v".repeat(43), manager);
  assert.ok(x.ok);
  hidden(x.value, "refresh-10", "ptok", "prtok");
  hidden(manager.sessionState.value, "refresh-10", "ptok", "prtok");
});

Deno.test("flows: fragment errors, notices and refused tokens save nothing", async () => {
  const t = tokens(11);
  const { rec, auth, manager, events } = setup((req) =>
    req.url.pathname.endsWith("/user")
      ? jsonResponse({
        code: 403,
        error_code: "bad_jwt",
        msg:
          "invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired",
      }, { status: 403 })
      : undefined
  );
  const err = await importSessionFromUrl(
    auth,
    "https://a.example/cb#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired&sb=",
    manager,
  );
  assert.ok(!err.ok);
  assert.equal(err.error.code, "otp_expired");
  const notice = await importSessionFromUrl(
    auth,
    "https://a.example/cb?message=Confirmation+link+accepted.+Please+proceed+to+confirm+link+sent+to+the+other+email#message=Confirmation+link+accepted.+Please+proceed+to+confirm+link+sent+to+the+other+email&sb=",
    manager,
  );
  assert.ok(!notice.ok);
  assert.equal(notice.error.category, "NO_SESSION");
  assert.equal(rec.requests.length, 0);
  const refused = await importSessionFromUrl(
    auth,
    `https://a.example/cb#access_token=${t.access_token}&refresh_token=refresh-11&expires_in=60&token_type=bearer&type=magiclink`,
    manager,
  );
  assert.ok(!refused.ok);
  assert.ok(!JSON.stringify(refused.error).includes("refresh-11"));
  assert.ok(!JSON.stringify(refused.error).includes(t.access_token));
  const imp = await importAuthToken(auth, manager, t.access_token);
  assert.ok(!imp.ok);
  assert.equal(manager.currentSession, null);
  assert.deepEqual(events, []);
});

Deno.test("flows: linkIdentityForCurrentSession and getSsoUrlForCurrentSession take and send PKCE parameters", async () => {
  const pkce = await generatePkceParams();
  const t = tokens(9);
  const { rec, auth, manager } = setup((req) => {
    if (req.url.pathname.endsWith("/user")) return jsonResponse(USER);
    if (req.url.pathname.endsWith("/sso")) return jsonResponse({ url: "https://idp.example/s" });
    if (req.url.pathname.endsWith("/identities/authorize")) {
      return new Response(null, { status: 302, headers: { location: "https://github.com/x" } });
    }
    return undefined;
  });
  assert.ok((await importAuthToken(auth, manager, t.access_token)).ok);
  const sso = await getSsoUrlForCurrentSession(auth, manager, {
    domain: "corp.example",
    pkceParams: pkce,
  });
  assert.ok(sso.ok, sso.errorOrNull()?.message);
  const ssoBody = rec.requests.find((r) => r.url.pathname.endsWith("/sso"))!.json() as Record<
    string,
    unknown
  >;
  assert.equal(ssoBody.code_challenge, pkce.codeChallenge);
  await linkIdentityForCurrentSession(auth, manager, "github", { pkceParams: pkce });
  const link = rec.requests.find((r) => r.url.pathname.endsWith("/identities/authorize"))!;
  assert.equal(link.url.searchParams.get("code_challenge"), pkce.codeChallenge);
});

Deno.test("flows: an unlink stores the user GoTrue rewrote (phone and providers), or drops the identity where the read fails", async () => {
  // GoTrue's user with email and phone identities; unlinking the phone one empties the phone and
  // rewrites `providers` (internal/api/identity.go).
  const withPhone = {
    id: "u1",
    email: "ada@example.com",
    phone: "15550100",
    app_metadata: { provider: "email", providers: ["email", "phone"] },
    identities: [
      { id: "i1", identity_id: "i1", provider: "email" },
      { id: "i2", identity_id: "i2", provider: "phone" },
    ],
  };
  const after = {
    ...withPhone,
    phone: "",
    app_metadata: { provider: "email", providers: ["email"] },
    identities: withPhone.identities.slice(0, 1),
  };
  for (const read of ["rewritten", "fails", "another user"] as const) {
    let unlinked = false;
    const { rec, auth, manager, storage } = setup((req) =>
      req.method === "DELETE"
        ? (unlinked = true, new Response(null, { status: 204 }))
        : !req.url.pathname.endsWith("/user")
        ? undefined
        : !unlinked
        ? jsonResponse(withPhone)
        : read === "fails"
        ? jsonResponse({ code: "unexpected_failure", message: "down" }, { status: 500 })
        : jsonResponse(read === "another user" ? { ...after, id: "u2" } : after)
    );
    const t = tokens(7);
    assert.ok((await importAuthToken(auth, manager, t.access_token, { refreshToken: "r" })).ok);
    assert.ok((await unlinkIdentityAndUpdateSession(auth, t.access_token, "i2", manager)).ok);
    const user = storage.load()!.user;
    assert.deepEqual(user.identities?.map((i) => i.id), ["i1"], read);
    if (read === "rewritten") {
      assert.equal(user.phone, null); // GoTrue's "" is no phone
      assert.deepEqual(user.appMetadata?.providers, ["email"]);
    } else {
      assert.equal(user.phone, "15550100", read);
    }
    // The read went with the token the unlink was made with.
    assert.equal(rec.last.headers.get("authorization"), `Bearer ${t.access_token}`);
    manager.dispose();
  }
});
