/**
 * Conformance with @supabase/auth-js: the same operation through both
 * clients into recording fetches; method, path, query, apikey/Authorization
 * and the JSON body must match. Deliberate differences are normalised here
 * and listed in docs/CONFORMANCE.md.
 */
import assert from "node:assert/strict";
import { documentedCount } from "../support/conformance_doc.ts";
import type { AuthClient } from "../../auth/mod.ts";
import { createAuthClient } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import { jsonResponse, type RecordedRequest, recordingFetch } from "../support/recording_fetch.ts";
import { authJs, BASE, dropNulls, KEY, makeAuth, SESSION, TOKEN } from "./_helpers.ts";

const userAnswer = {
  id: "u1",
  email: "a@x.io",
  factors: [{ id: "f1", factor_type: "totp", status: "verified" }],
  identities: [{ id: "prov", identity_id: "pk-1", provider: "github", user_id: "u1" }],
};

function answer(req: RecordedRequest): Response {
  const p = req.url.pathname;
  if (p.endsWith("/user") && req.method === "GET") return jsonResponse(userAnswer);
  if (p.endsWith("/factors") && req.method === "POST") {
    return jsonResponse({ id: "f1", type: "totp", totp: { qr_code: "q", secret: "s", uri: "u" } });
  }
  if (p.includes("/challenge")) return jsonResponse({ id: "c1", type: "totp", expires_at: 1 });
  if (p.endsWith("/sso")) return jsonResponse({ url: "https://idp" });
  if (p.includes("/user/identities/authorize")) return jsonResponse({ url: "https://github" });
  if (p.includes("/passkeys/") && p.endsWith("options")) {
    return jsonResponse({ challenge_id: "c", options: {}, expires_at: 1 });
  }
  if (p.endsWith("/passkeys")) return jsonResponse([]);
  if (p.includes("/oauth/authorizations")) {
    return jsonResponse({ redirect_url: "https://c", authorization_id: "az" });
  }
  if (p.endsWith("/user/oauth/grants") && req.method === "GET") return jsonResponse([]);
  return jsonResponse(SESSION);
}

function shape(r: RecordedRequest) {
  let body: unknown = null;
  if (r.text) body = dropNulls(JSON.parse(r.text));
  // Deliberate: auth-js posts its own call parameters ({ factorId }) in the challenge body; GoTrue
  // ignores them. The rest of the body is compared.
  if (r.url.pathname.endsWith("/challenge") && body !== null && typeof body === "object") {
    delete (body as Record<string, unknown>).factorId;
  }
  return {
    method: r.method,
    path: r.url.pathname,
    query: [...r.url.searchParams.entries()].sort(),
    apikey: r.headers.get("apikey"),
    authorization: r.headers.get("authorization"),
    apiVersion: r.headers.get("x-supabase-api-version"),
    // Compared where there is a body to type (auth-js also labels a bodiless POST).
    contentType: r.text ? r.headers.get("content-type")?.split(";")[0] ?? null : null,
    body,
  };
}

const theirs = () => authJs(answer);

// deno-lint-ignore no-explicit-any
type Theirs = (c: any) => Promise<unknown>;
type Ours = (a: AuthClient) => Promise<unknown>;

/** Operations that act on a session in auth-js get one set first (not recorded). */
async function withSession(
  c: { setSession(s: unknown): Promise<unknown> },
  rec: { requests: unknown[] },
  claims: Record<string, unknown> = { session_id: "6f1c1d2e-0000-4000-8000-000000000001" },
) {
  const jwt = `e30.${
    btoa(JSON.stringify({ sub: "u1", exp: 4_000_000_000, aal: "aal1", ...claims }))
      .replace(/=+$/, "")
  }.c2ln`;
  await c.setSession({ access_token: jwt, refresh_token: "r" });
  rec.requests.length = 0;
  return jwt;
}

const direct: Array<[string, Theirs, Ours]> = [
  [
    "signUp email",
    (c) =>
      c.signUp({
        email: "a@x.io",
        password: "pw",
        options: { data: { k: 1 }, emailRedirectTo: "https://r", captchaToken: "cap" },
      }),
    (a) =>
      a.signUpWithEmail("a@x.io", "pw", {
        data: { k: 1 },
        emailRedirectTo: "https://r",
        captchaToken: "cap",
      }),
  ],
  [
    "signUp phone",
    (c) => c.signUp({ phone: "+1", password: "pw", options: { channel: "whatsapp" } }),
    (a) => a.signUpWithPhone("+1", "pw", { channel: "whatsapp" }),
  ],
  [
    "password email",
    (c) => c.signInWithPassword({ email: "a@x.io", password: "pw" }),
    (a) => a.signInWithEmail("a@x.io", "pw"),
  ],
  [
    "password phone",
    (c) => c.signInWithPassword({ phone: "+1", password: "pw", options: { captchaToken: "c" } }),
    (a) => a.signInWithPhone("+1", "pw", { captchaToken: "c" }),
  ],
  [
    "anonymous",
    (c) => c.signInAnonymously({ options: { data: { a: 1 } } }),
    (a) => a.signInAnonymously({ data: { a: 1 } }),
  ],
  [
    "id token",
    (c) =>
      c.signInWithIdToken({ provider: "google", token: "idt", nonce: "n", access_token: "at" }),
    (a) => a.signInWithIdToken("google", "idt", { nonce: "n", accessToken: "at" }),
  ],
  [
    "otp email",
    (c) =>
      c.signInWithOtp({
        email: "a@x.io",
        options: { shouldCreateUser: false, emailRedirectTo: "https://r" },
      }),
    (a) => a.signInWithOtp({ email: "a@x.io", createUser: false, emailRedirectTo: "https://r" }),
  ],
  [
    "otp phone",
    (c) => c.signInWithOtp({ phone: "+1", options: { channel: "sms", shouldCreateUser: true } }),
    (a) => a.signInWithOtp({ phone: "+1", channel: "sms", createUser: true }),
  ],
  [
    "verify email",
    (c) => c.verifyOtp({ email: "a@x.io", token: "123", type: "email" }),
    (a) => a.verifyOtp("123", "email", { email: "a@x.io" }),
  ],
  [
    "verify phone",
    (c) => c.verifyOtp({ phone: "+1", token: "123", type: "sms" }),
    (a) => a.verifyOtp("123", "sms", { phone: "+1" }),
  ],
  [
    "verify token hash",
    (c) => c.verifyOtp({ token_hash: "h", type: "magiclink" }),
    (a) => a.verifyOtpWithTokenHash("h", "magiclink"),
  ],
  [
    "resend email",
    (c) => c.resend({ type: "signup", email: "a@x.io", options: { emailRedirectTo: "https://r" } }),
    (a) => a.resendEmailOtp("signup", "a@x.io", { redirectTo: "https://r" }),
  ],
  [
    "resend phone",
    (c) => c.resend({ type: "sms", phone: "+1" }),
    (a) => a.resendPhoneOtp("sms", "+1"),
  ],
  [
    "recover",
    (c) => c.resetPasswordForEmail("a@x.io", { redirectTo: "https://r" }),
    (a) => a.resetPasswordForEmail("a@x.io", { redirectTo: "https://r" }),
  ],
  ["refresh", (c) => c.refreshSession({ refresh_token: "r1" }), (a) => a.refreshToken("r1")],
  ["getUser with jwt", (c) => c.getUser(TOKEN), (a) => a.getUser(TOKEN)],
  [
    "sso domain",
    (c) => c.signInWithSSO({ domain: "corp.example", options: { redirectTo: "https://r" } }),
    (a) => a.getSsoUrl({ domain: "corp.example", redirectTo: "https://r" }),
  ],
  [
    "sso provider",
    (c) => c.signInWithSSO({ providerId: "p1" }),
    (a) => a.getSsoUrl({ providerId: "p1" }),
  ],
  ["jwks", (c) => c.fetchJwk("nope", { keys: [] }).catch(() => undefined), (a) => a.getJwks()],
];

Deno.test(`conformance with @supabase/auth-js: ${direct.length} stateless operations`, async () => {
  assert.equal(await documentedCount("Auth (stateless)"), direct.length, "docs/CONFORMANCE.md");
  const failures: string[] = [];
  for (const [label, t, o] of direct) {
    const them = theirs();
    await t(them.client);
    const us = makeAuth(answer);
    await o(us.auth);
    try {
      // Every request either client sent, in order.
      assert.deepEqual(us.rec.requests.map(shape), them.rec.requests.map(shape), label);
    } catch (e) {
      failures.push(`${label}: ${(e as Error).message}`);
    }
  }
  assert.deepEqual(failures, []);
});

const sessionOps: Array<[string, Theirs, (a: AuthClient, jwt: string) => Promise<unknown>]> = [
  [
    "updateUser",
    (c) => c.updateUser({ email: "b@x.io", data: { a: 1 } }),
    (a, t) => a.updateUser(t, { email: "b@x.io", data: { a: 1 } }),
  ],
  ["reauthenticate", (c) => c.reauthenticate(), (a, t) => a.reauthenticate(t)],
  [
    "signOut global",
    (c) => c.signOut({ scope: "global" }),
    (a, t) => a.signOut(t, { scope: "global" }),
  ],
  [
    "signOut others",
    (c) => c.signOut({ scope: "others" }),
    (a, t) => a.signOut(t, { scope: "others" }),
  ],
  [
    "mfa enroll",
    (c) => c.mfa.enroll({ factorType: "totp", friendlyName: "f", issuer: "acme" }),
    (a, t) => a.mfaEnroll(t, "totp", { friendlyName: "f", issuer: "acme" }),
  ],
  ["mfa challenge", (c) => c.mfa.challenge({ factorId: "f1" }), (a, t) => a.mfaChallenge(t, "f1")],
  [
    "mfa verify",
    (c) => c.mfa.verify({ factorId: "f1", challengeId: "c1", code: "123" }),
    (a, t) => a.mfaVerify(t, "f1", "c1", "123"),
  ],
  ["mfa unenroll", (c) => c.mfa.unenroll({ factorId: "f1" }), (a, t) => a.mfaUnenroll(t, "f1")],
  [
    "link identity",
    (c) =>
      c.linkIdentity({ provider: "github", options: { redirectTo: "https://r", scopes: "repo" } }),
    (a, t) => a.linkIdentity(t, "github", { redirectTo: "https://r", scopes: ["repo"] }),
  ],
  ["passkey list", (c) => c.passkey?.list?.() ?? Promise.resolve(), (a, t) => a.passkeyList(t)],
  [
    "oauth approve",
    (c) => c.oauth?.approveAuthorization?.("az") ?? Promise.resolve(),
    (a, t) => a.oauthApproveAuthorization(t, "az"),
  ],
  [
    "oauth deny",
    (c) => c.oauth?.denyAuthorization?.("az") ?? Promise.resolve(),
    (a, t) => a.oauthDenyAuthorization(t, "az"),
  ],
  [
    "oauth grants",
    (c) => c.oauth?.listGrants?.() ?? Promise.resolve(),
    (a, t) => a.oauthListGrants(t),
  ],
];

Deno.test(`conformance with @supabase/auth-js: ${sessionOps.length} session operations`, async () => {
  assert.equal(await documentedCount("Auth (signed in)"), sessionOps.length, "docs/CONFORMANCE.md");
  const failures: string[] = [];
  for (const [label, t, o] of sessionOps) {
    const them = theirs();
    const jwt = await withSession(them.client, them.rec);
    await t(them.client);
    const first = them.rec.requests.find((r) =>
      !(r.method === "GET" && r.url.pathname.endsWith("/user")) || label === "getUser"
    );
    if (!first) {
      failures.push(`${label}: auth-js sent nothing`);
      continue;
    }
    const us = makeAuth(answer);
    await o(us.auth, jwt);
    try {
      assert.deepEqual(shape(us.rec.requests[0]), shape(first), label);
    } catch (e) {
      failures.push(`${label}: ${(e as Error).message}`);
    }
  }
  assert.deepEqual(failures, []);
});

Deno.test("conformance with @supabase/auth-js: a bodiless POST or DELETE carries no Content-Type", async () => {
  // Deliberate (docs/CONFORMANCE.md): a header that describes no body is not sent; auth-js
  // labels these requests application/json. Everything else about them is compared above.
  const calls: Array<[string, Theirs, (a: AuthClient, jwt: string) => Promise<unknown>]> = [
    ["signOut", (c) => c.signOut({ scope: "global" }), (a, t) => a.signOut(t)],
    ["mfa unenroll", (c) => c.mfa.unenroll({ factorId: "f1" }), (a, t) => a.mfaUnenroll(t, "f1")],
  ];
  for (const [label, t, o] of calls) {
    const them = theirs();
    const jwt = await withSession(them.client, them.rec);
    const before = them.rec.requests.length;
    await t(them.client);
    const their = them.rec.requests.slice(before).find((r) => r.method !== "GET");
    const us = makeAuth(answer);
    await o(us.auth, jwt);
    const our = us.rec.requests[0];
    assert.equal(their?.text ?? null, null, label);
    assert.equal(their?.headers.get("content-type"), "application/json;charset=UTF-8", label);
    assert.equal(our.method, their?.method, label);
    assert.equal(our.text ?? null, null, label);
    assert.equal(our.headers.get("content-type"), null, label);
  }
});

Deno.test("conformance with @supabase/auth-js: a LOCAL sign-out of a token that names no session is not sent", async () => {
  // Deliberate (docs/CONFORMANCE.md): GoTrue loads no session for a token without session_id and
  // then ends every session of the user; auth-js sends it, fetchbase has nothing to end.
  const them = theirs();
  const jwt = await withSession(them.client, them.rec, {});
  await them.client.signOut({ scope: "local" });
  const their = them.rec.requests.filter((r) => r.method === "POST");
  assert.deepEqual(their.map((r) => r.url.href), [`${BASE}/auth/v1/logout?scope=local`]);
  const us = makeAuth(answer);
  assert.equal((await us.auth.signOut(jwt, { scope: "local" })).ok, true);
  assert.equal(us.rec.requests.length, 0);
});

Deno.test("conformance with @supabase/auth-js: a client-wide Authorization header yields to a per-call token", async () => {
  // An edge function often forwards its caller's token as a client-wide header. A call given a
  // user's token explicitly still acts for that user (auth-js: `jwt` replaces the header); a call
  // made for no user sends the client-wide header in both clients.
  const global = { apikey: KEY, Authorization: "Bearer caller-token-from-header" };
  const them = authJs(answer, { headers: global });
  const ours = recordingFetch(answer);
  const auth = createAuthClient(
    createBaseClient(BASE, KEY, { fetch: ours.fetch, headers: global }),
  );
  await them.client.getUser("user-token-explicit");
  await them.client.signInWithPassword({ email: "a@x.io", password: "pw" });
  await auth.getUser("user-token-explicit");
  await auth.signInWithEmail("a@x.io", "pw");
  assert.equal(ours.requests[0].headers.get("authorization"), "Bearer user-token-explicit");
  assert.equal(ours.requests[1].headers.get("authorization"), "Bearer caller-token-from-header");
  assert.deepEqual(ours.requests.map(shape), them.rec.requests.map(shape));
});
