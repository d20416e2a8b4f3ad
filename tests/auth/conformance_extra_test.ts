/**
 * Extra conformance with @supabase/auth-js, for the calls the other conformance files leave out:
 * the OAuth authorize URLs, the wrappers of auth/extensions.ts, the OTP verify/resend variants and
 * the session helpers of session/extensions.ts that send requests. Every request either client
 * sends is compared (method, decoded path, sorted query, apikey, Authorization,
 * X-Supabase-Api-Version, Accept, the Content-Type media type and the JSON body); URL builders
 * compare the returned URL (origin, path, decoded query). Deliberate differences are asserted
 * explicitly and listed in docs/CONFORMANCE.md.
 */
import assert from "node:assert/strict";
import {
  type AuthClient,
  forgotPassword,
  type PkceParams,
  resendPhoneSignInOtp,
  resendSignUpEmailOtp,
  sendOtp,
  sendPhoneOtp,
  signIn,
  signInPhone,
  signOutGlobal,
  signOutLocal,
  signOutOthers,
  signUp,
  signUpPhone,
  verifyEmailOtp,
  verifyEmailOtpWithTokenHash,
  verifyEmailSignUpOtp,
  verifyPhoneOtp,
  verifyPhoneSignInOtp,
} from "../../auth/mod.ts";
import {
  exchangeCodeForSessionAndSave,
  getUserForCurrentSession,
  getUserIdentitiesForCurrentSession,
  linkIdentityForCurrentSession,
  linkIdentityWithIdTokenForCurrentSession,
  reauthenticateCurrentSession,
  refreshCurrentSession,
  type SessionManager,
  signOutCurrentSession,
  unlinkIdentityForCurrentSession,
  updateUserForCurrentSession,
} from "../../session/mod.ts";
import { jsonResponse, type RecordedRequest } from "../support/recording_fetch.ts";
import {
  authJs,
  compareRequests,
  dropUserReread,
  holdTheirSession,
  isUserRead,
  jwtOf,
  latestPkce,
  makeAuth,
  managedSession,
  type RequestShape,
  sessionAnswer,
} from "./_helpers.ts";

const JWT = jwtOf({ sub: "u1", exp: 4_000_000_000, aal: "aal1", session_id: "s1" });
const userAnswer = {
  id: "u1",
  email: "a@x.io",
  factors: [],
  identities: [{ id: "prov", identity_id: "pk-1", provider: "github", user_id: "u1" }],
};
const SESSION_ANSWER = sessionAnswer(JWT, userAnswer);

function answer(r: RecordedRequest): Response {
  const p = r.url.pathname;
  if (p.includes("/user/identities/authorize")) return jsonResponse({ url: "https://github" });
  if (r.method === "DELETE") return new Response(null, { status: 204 });
  if (p.endsWith("/user")) return jsonResponse(userAnswer);
  return jsonResponse(SESSION_ANSWER);
}

type Shape = RequestShape;

const body = (s: Shape) => s.body as Record<string, unknown>;

type UrlShape = ReturnType<typeof urlShape>;

function urlShape(u: string) {
  const x = new URL(u);
  return { origin: x.origin, path: x.pathname, query: [...x.searchParams.entries()].sort() };
}

Deno.test("conformance with @supabase/auth-js: OAuth authorize URLs", async () => {
  const cases: Array<{
    label: string;
    pkce?: boolean;
    // deno-lint-ignore no-explicit-any
    theirs: (c: any) => Promise<{ data: { url: string } }>;
    ours: (a: AuthClient, pkceParams: PkceParams) => string;
    /** Asserts a deliberate difference between the two URLs' shapes, then removes it. */
    adjust?: (ours: UrlShape, theirs: UrlShape) => void;
  }> = [
    {
      label: "signInWithOAuth with redirect, scopes and query params",
      theirs: (c) =>
        c.signInWithOAuth({
          provider: "github",
          options: {
            redirectTo: "https://r/cb",
            scopes: "repo user",
            queryParams: { prompt: "consent" },
            skipBrowserRedirect: true,
          },
        }),
      ours: (a) =>
        a.signInWithOAuth("github", {
          redirectTo: "https://r/cb",
          scopes: ["repo", "user"],
          queryParams: { prompt: "consent" },
        }).url,
    },
    {
      label: "getOAuthSignInUrl with redirect, scopes and query params",
      theirs: (c) =>
        c.signInWithOAuth({
          provider: "github",
          options: {
            redirectTo: "https://r/cb",
            scopes: "repo user",
            queryParams: { prompt: "consent" },
            skipBrowserRedirect: true,
          },
        }),
      ours: (a) =>
        a.getOAuthSignInUrl("github", {
          redirectTo: "https://r/cb",
          scopes: ["repo", "user"],
          queryParams: { prompt: "consent" },
        }),
    },
    {
      label: "signInWithOAuth with PKCE",
      pkce: true,
      theirs: (c) =>
        c.signInWithOAuth({
          provider: "google",
          options: { redirectTo: "https://r/cb", skipBrowserRedirect: true },
        }),
      ours: (a, pkceParams) =>
        a.signInWithOAuth("google", { redirectTo: "https://r/cb", pkceParams }).url,
    },
    {
      label: "signInWithOAuth with skipBrowserRedirect",
      theirs: (c) =>
        c.signInWithOAuth({ provider: "github", options: { skipBrowserRedirect: true } }),
      ours: (a) => a.signInWithOAuth("github", { skipBrowserRedirect: true }).url,
      adjust: (o, t) => {
        // Deliberate (docs/CONFORMANCE.md): the document's `skipBrowserRedirect` adds
        // `skip_http_redirect=true`; auth-js's signInWithOAuth only skips its own redirect.
        const skip = (s: UrlShape) => s.query.filter(([k]) => k === "skip_http_redirect");
        assert.deepEqual(skip(o), [["skip_http_redirect", "true"]]);
        assert.deepEqual(skip(t), []);
        o.query = o.query.filter(([k]) => k !== "skip_http_redirect");
      },
    },
    {
      label: "signInWithOAuth without options",
      theirs: (c) =>
        c.signInWithOAuth({ provider: "azure", options: { skipBrowserRedirect: true } }),
      ours: (a) => a.signInWithOAuth("azure").url,
    },
  ];
  const failures: string[] = [];
  for (const c of cases) {
    const them = authJs(answer, c.pkce ? { flowType: "pkce" } : {});
    const { data } = await c.theirs(them.client);
    const pkce = c.pkce
      ? await latestPkce(them.client)
      : { codeVerifier: "", codeChallenge: "", codeChallengeMethod: "S256" as const };
    const us = makeAuth(answer);
    try {
      assert.equal(them.rec.requests.length, 0, "auth-js sent nothing");
      const o = urlShape(c.ours(us.auth, pkce));
      const t = urlShape(data.url);
      c.adjust?.(o, t);
      assert.deepEqual(o, t, c.label);
      assert.equal(us.rec.requests.length, 0, "fetchbase sent nothing");
    } catch (e) {
      failures.push(`${c.label}: ${(e as Error).message}`);
    }
  }
  assert.deepEqual(failures, []);
});

// deno-lint-ignore no-explicit-any
type Theirs = (c: any) => Promise<unknown>;
/** Turns the recorded pair into what must be equal; asserts any deliberate difference. */
type Adjust = (ours: Shape[], theirs: Shape[]) => void;

const wrapperCases: Array<{
  label: string;
  theirs: Theirs;
  ours: (a: AuthClient, jwt: string) => Promise<unknown>;
  session?: boolean;
  adjust?: Adjust;
}> = [
  {
    label: "sendOtp",
    theirs: (c) => c.signInWithOtp({ email: "a@x.io" }),
    ours: (a) => sendOtp(a, "a@x.io"),
    adjust: (o, t) => {
      // Deliberate (docs/CONFORMANCE.md): without `createUser` fetchbase leaves `create_user` to
      // GoTrue's default (true); auth-js always sends `create_user: true`.
      assert.equal(body(t[0]).create_user, true);
      assert.equal("create_user" in body(o[0]), false);
      delete body(t[0]).create_user;
    },
  },
  {
    label: "sendPhoneOtp whatsapp",
    theirs: (c) => c.signInWithOtp({ phone: "+1", options: { channel: "whatsapp" } }),
    ours: (a) => sendPhoneOtp(a, "+1", { channel: "whatsapp" }),
    adjust: (o, t) => {
      // Deliberate (docs/CONFORMANCE.md): `create_user` only when `createUser` is given.
      assert.equal(body(t[0]).create_user, true);
      assert.equal("create_user" in body(o[0]), false);
      delete body(t[0]).create_user;
    },
  },
  {
    label: "verifyEmailSignUpOtp",
    theirs: (c) => c.verifyOtp({ email: "a@x.io", token: "1", type: "email" }),
    ours: (a) => verifyEmailSignUpOtp(a, "a@x.io", "1"),
  },
  {
    label: "verifyPhoneSignInOtp",
    theirs: (c) => c.verifyOtp({ phone: "+1", token: "1", type: "sms" }),
    ours: (a) => verifyPhoneSignInOtp(a, "+1", "1"),
  },
  {
    label: "verifyEmailOtp magiclink",
    theirs: (c) => c.verifyOtp({ email: "a@x.io", token: "1", type: "magiclink" }),
    ours: (a) => verifyEmailOtp(a, "a@x.io", "1", "magiclink"),
  },
  {
    label: "verifyPhoneOtp phone_change",
    theirs: (c) => c.verifyOtp({ phone: "+1", token: "1", type: "phone_change" }),
    ours: (a) => verifyPhoneOtp(a, "+1", "1", "phone_change"),
  },
  {
    label: "verifyEmailOtpWithTokenHash recovery",
    theirs: (c) => c.verifyOtp({ token_hash: "h", type: "recovery" }),
    ours: (a) => verifyEmailOtpWithTokenHash(a, "h", "recovery"),
  },
  ...(["recovery", "invite", "signup", "email_change"] as const).map((type) => ({
    label: `verifyOtp ${type}`,
    theirs: (c: { verifyOtp(p: unknown): Promise<unknown> }) =>
      c.verifyOtp({ email: "a@x.io", token: "1", type }),
    ours: (a: AuthClient) => a.verifyOtp("1", type, { email: "a@x.io" }),
  })),
  {
    label: "verifyOtp phone_change",
    theirs: (c) => c.verifyOtp({ phone: "+1", token: "1", type: "phone_change" }),
    ours: (a) => a.verifyOtp("1", "phone_change", { phone: "+1" }),
  },
  {
    label: "verifyOtpWithTokenHash with captcha",
    theirs: (c) =>
      c.verifyOtp({ token_hash: "h", type: "email", options: { captchaToken: "cap" } }),
    ours: (a) => a.verifyOtpWithTokenHash("h", "email", { captchaToken: "cap" }),
    adjust: (o, t) => {
      // Deliberate (docs/CONFORMANCE.md): auth-js also posts its call's `options` as a body key,
      // which GoTrue ignores; both send the captcha in `gotrue_meta_security`.
      assert.deepEqual(body(t[0]).options, { captchaToken: "cap" });
      assert.equal("options" in body(o[0]), false);
      assert.deepEqual(body(o[0]).gotrue_meta_security, { captcha_token: "cap" });
      delete body(t[0]).options;
    },
  },
  {
    label: "resendSignUpEmailOtp",
    theirs: (c) =>
      c.resend({ type: "signup", email: "a@x.io", options: { emailRedirectTo: "https://r" } }),
    ours: (a) => resendSignUpEmailOtp(a, "a@x.io", { redirectTo: "https://r" }),
  },
  {
    label: "resendPhoneSignInOtp with captcha",
    theirs: (c) => c.resend({ type: "sms", phone: "+1", options: { captchaToken: "cap" } }),
    ours: (a) => resendPhoneSignInOtp(a, "+1", { captchaToken: "cap" }),
  },
  {
    label: "resend phone_change",
    theirs: (c) => c.resend({ type: "phone_change", phone: "+1" }),
    ours: (a) => a.resendPhoneOtp("phone_change", "+1"),
  },
  {
    label: "forgotPassword",
    theirs: (c) => c.resetPasswordForEmail("a@x.io", { redirectTo: "https://r" }),
    ours: (a) => forgotPassword(a, "a@x.io", { redirectTo: "https://r" }),
  },
  {
    label: "signUp (extension)",
    theirs: (c) => c.signUp({ email: "a@x.io", password: "pw" }),
    ours: (a) => signUp(a, "a@x.io", "pw"),
  },
  {
    label: "signIn (extension)",
    theirs: (c) => c.signInWithPassword({ email: "a@x.io", password: "pw" }),
    ours: (a) => signIn(a, "a@x.io", "pw"),
  },
  {
    label: "signUpPhone",
    theirs: (c) => c.signUp({ phone: "+1", password: "pw" }),
    ours: (a) => signUpPhone(a, "+1", "pw"),
  },
  {
    label: "signInPhone",
    theirs: (c) => c.signInWithPassword({ phone: "+1", password: "pw" }),
    ours: (a) => signInPhone(a, "+1", "pw"),
  },
  {
    label: "signInWithIdToken apple with nonce",
    theirs: (c) => c.signInWithIdToken({ provider: "apple", token: "t", nonce: "n" }),
    ours: (a) => a.signInWithIdToken("apple", "t", { nonce: "n" }),
  },
  {
    label: "signOutGlobal",
    session: true,
    theirs: (c) => c.signOut({ scope: "global" }),
    ours: (a, t) => signOutGlobal(a, t),
  },
  {
    label: "signOutLocal",
    session: true,
    theirs: (c) => c.signOut({ scope: "local" }),
    ours: (a, t) => signOutLocal(a, t),
  },
  {
    label: "signOutOthers",
    session: true,
    theirs: (c) => c.signOut({ scope: "others" }),
    ours: (a, t) => signOutOthers(a, t),
  },
  {
    label: "updateUser phone",
    session: true,
    theirs: (c) => c.updateUser({ phone: "+1" }),
    ours: (a, t) => a.updateUser(t, { phone: "+1" }),
  },
  {
    label: "mfa verify",
    session: true,
    theirs: (c) => c.mfa.verify({ factorId: "f1", challengeId: "c1", code: "1" }),
    ours: (a, t) => a.mfaVerify(t, "f1", "c1", "1"),
  },
];

Deno.test(`conformance with @supabase/auth-js: ${wrapperCases.length} extension wrappers and OTP variants`, async () => {
  const failures: string[] = [];
  for (const c of wrapperCases) {
    const them = authJs(answer);
    if (c.session) await holdTheirSession(them, JWT);
    await c.theirs(them.client);
    const us = makeAuth(answer);
    await c.ours(us.auth, JWT);
    // auth-js reads the user back after some session calls (e.g. updateUser keeps its session).
    compareRequests(
      failures,
      c.label,
      us.rec.requests,
      them.rec.requests.filter((r) => !isUserRead(r)),
      c.adjust,
    );
  }
  assert.deepEqual(failures, []);
});

/** A session manager holding JWT/"r" (saved without a request), and its recorder. */
const managed = () => managedSession(answer, { ...SESSION_ANSWER, refresh_token: "r" });

const sessionCases: Array<{
  label: string;
  theirs: Theirs;
  ours: (a: AuthClient, m: SessionManager) => Promise<unknown>;
  /** auth-js's own `GET /user` is compared (else dropped: it reads the user back). */
  userRead?: boolean;
  /** PKCE flow in auth-js, the verifier given to fetchbase. */
  pkce?: boolean;
  adjust?: Adjust;
}> = [
  {
    label: "refreshCurrentSession",
    theirs: (c) => c.refreshSession(),
    ours: (a, m) => refreshCurrentSession(a, m),
  },
  {
    label: "signOutCurrentSession (default scope)",
    theirs: (c) => c.signOut(),
    ours: (a, m) => signOutCurrentSession(a, m),
    adjust: (o, t) => {
      // Deliberate (docs/CONFORMANCE.md): without a scope this session only is revoked (LOCAL,
      // the document's default); auth-js's default scope is global.
      assert.deepEqual(o[0].query, [["scope", "local"]]);
      assert.deepEqual(t[0].query, [["scope", "global"]]);
      t[0].query = o[0].query;
    },
  },
  {
    label: "signOutCurrentSession global",
    theirs: (c) => c.signOut({ scope: "global" }),
    ours: (a, m) => signOutCurrentSession(a, m, { scope: "global" }),
  },
  {
    label: "getUserForCurrentSession",
    userRead: true,
    theirs: (c) => c.getUser(),
    ours: (a, m) => getUserForCurrentSession(a, m),
  },
  {
    label: "reauthenticateCurrentSession",
    theirs: (c) => c.reauthenticate(),
    ours: (a, m) => reauthenticateCurrentSession(a, m),
  },
  {
    label: "updateUserForCurrentSession",
    theirs: (c) => c.updateUser({ data: { a: 1 } }),
    ours: (a, m) => updateUserForCurrentSession(a, m, { data: { a: 1 } }),
  },
  {
    label: "getUserIdentitiesForCurrentSession",
    userRead: true,
    theirs: (c) => c.getUserIdentities(),
    ours: (a, m) => getUserIdentitiesForCurrentSession(a, m),
  },
  {
    label: "linkIdentityForCurrentSession",
    theirs: (c) =>
      c.linkIdentity({
        provider: "github",
        options: { redirectTo: "https://r/cb", scopes: "repo", skipBrowserRedirect: true },
      }),
    ours: (a, m) =>
      linkIdentityForCurrentSession(a, m, "github", {
        redirectTo: "https://r/cb",
        scopes: ["repo"],
      }),
  },
  {
    label: "linkIdentityWithIdTokenForCurrentSession",
    theirs: (c) => c.linkIdentity({ provider: "google", token: "idt", nonce: "n" }),
    ours: (a, m) => linkIdentityWithIdTokenForCurrentSession(a, m, "google", "idt", { nonce: "n" }),
  },
  {
    label: "unlinkIdentityForCurrentSession",
    theirs: (c) => c.unlinkIdentity(userAnswer.identities[0]),
    ours: (a, m) => unlinkIdentityForCurrentSession(a, m, "pk-1"),
    adjust: dropUserReread,
  },
  {
    label: "exchangeCodeForSessionAndSave",
    pkce: true,
    theirs: async (c) => {
      // auth-js stores values as JSON (setItemAsync) and reads them back with JSON.parse.
      await c.storage.setItem("sk-code-verifier", JSON.stringify("verifier-123"));
      return c.exchangeCodeForSession("auth-code");
    },
    ours: (a, m) => exchangeCodeForSessionAndSave(a, "auth-code", "verifier-123", m),
  },
];

Deno.test(`conformance with @supabase/auth-js: ${sessionCases.length} session helpers`, async () => {
  const failures: string[] = [];
  for (const c of sessionCases) {
    const them = authJs(answer, c.pkce ? { flowType: "pkce", storageKey: "sk" } : {});
    if (!c.pkce) await holdTheirSession(them, JWT);
    await c.theirs(them.client);
    const us = await managed();
    try {
      await c.ours(us.auth, us.manager);
      compareRequests(
        failures,
        c.label,
        us.rec.requests,
        them.rec.requests.filter((r) => c.userRead || !isUserRead(r)),
        c.adjust,
      );
    } catch (e) {
      failures.push(`${c.label}: ${(e as Error).message}`);
    } finally {
      us.manager.dispose();
    }
  }
  assert.deepEqual(failures, []);
});
