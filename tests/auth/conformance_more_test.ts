/**
 * More conformance with @supabase/auth-js: the operations that
 * tests/auth/conformance_test.ts leaves out (web3, PKCE code exchange,
 * passkeys, OAuth consent details and revocation, MFA phone/WebAuthn,
 * challenge-and-verify, factor listing, assurance levels, identities, local
 * sign-out, user update with a redirect). Every request either client sends
 * is compared (method, path, query, apikey, Authorization,
 * X-Supabase-Api-Version, JSON body); deliberate differences are asserted
 * explicitly and listed in docs/CONFORMANCE.md.
 */
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import {
  type AuthClient,
  createClaimsVerifier,
  mfaChallengeAndVerify,
  type PkceParams,
} from "../../auth/mod.ts";
import { jsonResponse, type RecordedRequest, recordingFetch } from "../support/recording_fetch.ts";
import {
  authJs,
  BASE,
  compareRequests,
  holdTheirSession,
  jwtOf,
  KEY,
  latestPkce,
  makeAuth,
  type RequestShape,
  requestShape,
  SESSION,
} from "./_helpers.ts";

const userAnswer = {
  id: "u1",
  email: "a@x.io",
  factors: [{ id: "f1", factor_type: "totp", status: "verified" }],
  identities: [{ id: "prov", identity_id: "pk-1", provider: "github", user_id: "u1" }],
};

function answer(req: RecordedRequest): Response {
  const p = req.url.pathname;
  if (p.endsWith("/user") && req.method !== "DELETE") return jsonResponse(userAnswer);
  if (p.endsWith("/factors") && req.method === "POST") {
    return jsonResponse({ id: "f1", type: "totp", totp: { qr_code: "q", secret: "s", uri: "u" } });
  }
  if (p.endsWith("/challenge")) return jsonResponse({ id: "c1", type: "totp", expires_at: 1 });
  if (p.includes("/passkeys/") && p.endsWith("/options")) {
    return jsonResponse({ challenge_id: "c", options: {}, expires_at: 1 });
  }
  if (p.includes("/passkeys/registration/verify")) {
    return jsonResponse({ id: "pk", friendly_name: "n", created_at: "2024-01-01T00:00:00Z" });
  }
  if (p.includes("/passkeys/") && req.method === "PATCH") {
    return jsonResponse({ id: "pk", friendly_name: "n", created_at: "2024-01-01T00:00:00Z" });
  }
  if (req.method === "DELETE") return new Response(null, { status: 204 });
  if (p.includes("/oauth/authorizations/") && req.method === "GET") {
    return jsonResponse({
      authorization_id: "az",
      redirect_uri: "https://c/cb",
      client: { id: "cl", name: "C", uri: "https://c", logo_uri: "" },
      user: { id: "u1", email: "a@x.io" },
      scope: "openid",
    });
  }
  return jsonResponse(SESSION);
}

type Shape = RequestShape;
const shape = requestShape;

const theirs = (extra: Record<string, unknown> = {}) => authJs(answer, extra);

const JWT = jwtOf({ sub: "u1", exp: 4_000_000_000, aal: "aal1", session_id: "s1" });

// deno-lint-ignore no-explicit-any
type Theirs = (c: any) => Promise<unknown>;
type Ours = (a: AuthClient, jwt: string) => Promise<unknown>;
/** Turns the recorded pair into what must be equal; asserts any deliberate difference. */
type Adjust = (ours: Shape[], theirs: Shape[]) => void;

interface Case {
  label: string;
  theirs: Theirs;
  ours: Ours;
  /** auth-js acts on a stored session (set first, not recorded). */
  session?: boolean;
  /** auth-js client options (flow type, storage). */
  options?: Record<string, unknown>;
  adjust?: Adjust;
}

const credential = { id: "cred", rawId: "cred", type: "public-key", response: { x: "y" } };
/** A browser credential whose WebAuthn Level 3 `toJSON` serialises it. */
const browserCredential = { toJSON: () => credential };

const cases: Case[] = [
  {
    label: "web3 ethereum with captcha",
    theirs: (c) =>
      c.signInWithWeb3({
        chain: "ethereum",
        message: "m",
        signature: "0xsig",
        options: { captchaToken: "cap" },
      }),
    ours: (a) => a.signInWithWeb3("ethereum", "m", "0xsig", { captchaToken: "cap" }),
  },
  {
    label: "web3 solana (signature bytes → base64url)",
    theirs: (c) =>
      c.signInWithWeb3({ chain: "solana", message: "m", signature: new Uint8Array([1, 2, 250]) }),
    ours: (a) => a.signInWithWeb3("solana", "m", "AQL6"),
    adjust: (o) => {
      // Deliberate (docs/CONFORMANCE.md): an empty gotrue_meta_security is sent
      // without a captcha token; auth-js leaves the key out. GoTrue reads both as no captcha.
      assert.deepEqual((o[0].body as Record<string, unknown>).gotrue_meta_security, {});
      delete (o[0].body as Record<string, unknown>).gotrue_meta_security;
    },
  },
  {
    label: "web3 solana, the wallet's signature bytes given as they are",
    theirs: (c) =>
      c.signInWithWeb3({ chain: "solana", message: "m", signature: new Uint8Array([1, 2, 250]) }),
    ours: (a) => a.signInWithWeb3("solana", "m", new Uint8Array([1, 2, 250])),
    adjust: (o) => {
      assert.deepEqual((o[0].body as Record<string, unknown>).gotrue_meta_security, {});
      delete (o[0].body as Record<string, unknown>).gotrue_meta_security;
    },
  },
  {
    label: "exchangeCodeForSession",
    options: { flowType: "pkce", storageKey: "sk" },
    theirs: async (c) => {
      // auth-js stores values as JSON (setItemAsync) and reads them back with JSON.parse.
      await c.storage.setItem("sk-code-verifier", JSON.stringify("verifier-123"));
      return c.exchangeCodeForSession("auth-code");
    },
    ours: (a) => a.exchangeCodeForSession("auth-code", "verifier-123"),
  },
  {
    label: "passkey startAuthentication with captcha",
    theirs: (c) => c.passkey.startAuthentication({ options: { captchaToken: "cap" } }),
    ours: (a) => a.passkeyStartAuthentication({ captchaToken: "cap" }),
  },
  {
    label: "passkey startAuthentication",
    theirs: (c) => c.passkey.startAuthentication(),
    ours: (a) => a.passkeyStartAuthentication(),
  },
  {
    label: "passkey verifyAuthentication",
    theirs: (c) => c.passkey.verifyAuthentication({ challengeId: "ch", credential }),
    ours: (a) => a.passkeyVerifyAuthentication("ch", credential),
  },
  {
    label: "passkey startRegistration",
    session: true,
    theirs: (c) => c.passkey.startRegistration(),
    ours: (a, t) => a.passkeyStartRegistration(t),
    adjust: (o, t) => {
      // Deliberate (docs/CONFORMANCE.md): fetchbase accepts a captcha token on every
      // passkey start and sends gotrue_meta_security (empty without one); auth-js posts `{}`.
      assert.deepEqual(o[0].body, { gotrue_meta_security: {} });
      assert.deepEqual(t[0].body, {});
      o[0].body = {};
    },
  },
  {
    label: "passkey verifyRegistration",
    session: true,
    theirs: (c) => c.passkey.verifyRegistration({ challengeId: "ch", credential }),
    ours: (a, t) => a.passkeyVerifyRegistration(t, "ch", credential),
  },
  {
    label: "passkey update",
    session: true,
    theirs: (c) => c.passkey.update({ passkeyId: "pk", friendlyName: "Laptop" }),
    ours: (a, t) => a.passkeyUpdate(t, "pk", "Laptop"),
  },
  {
    label: "passkey delete",
    session: true,
    theirs: (c) => c.passkey.delete({ passkeyId: "pk" }),
    ours: (a, t) => a.passkeyDelete(t, "pk"),
  },
  {
    label: "oauth getAuthorizationDetails",
    session: true,
    theirs: (c) => c.oauth.getAuthorizationDetails("az"),
    ours: (a, t) => a.oauthGetAuthorizationDetails(t, "az"),
  },
  {
    label: "oauth revokeGrant",
    session: true,
    theirs: (c) => c.oauth.revokeGrant({ clientId: "client-1" }),
    ours: (a, t) => a.oauthRevokeGrant(t, "client-1"),
  },
  {
    label: "signOut local (default scope)",
    session: true,
    theirs: (c) => c.signOut(),
    ours: (a, t) => a.signOut(t),
    adjust: (o, t) => {
      // Deliberate (docs/CONFORMANCE.md): `signOut` without a scope revokes this
      // session only (LOCAL, the document's default); auth-js's default scope is global.
      assert.deepEqual(o[0].query, [["scope", "local"]]);
      assert.deepEqual(t[0].query, [["scope", "global"]]);
      t[0].query = o[0].query;
    },
  },
  {
    label: "updateUser with emailRedirectTo, password and nonce",
    session: true,
    theirs: (c) =>
      c.updateUser({ password: "new", nonce: "n1", data: { a: 1 } }, {
        emailRedirectTo: "https://r/cb",
      }),
    ours: (a, t) =>
      a.updateUser(t, { password: "new", nonce: "n1", data: { a: 1 } }, {
        emailRedirectTo: "https://r/cb",
      }),
  },
  {
    label: "getUserIdentities",
    session: true,
    theirs: (c) => c.getUserIdentities(),
    ours: (a, t) => a.getUserIdentities(t),
  },
  {
    label: "linkIdentity with id token",
    session: true,
    theirs: (c) =>
      c.linkIdentity({ provider: "google", token: "idt", access_token: "pat", nonce: "n" }),
    ours: (a, t) =>
      a.linkIdentityWithIdToken(t, "google", "idt", { providerAccessToken: "pat", nonce: "n" }),
  },
  {
    label: "unlinkIdentity",
    session: true,
    theirs: (c) => c.unlinkIdentity(userAnswer.identities[0]),
    ours: (a, t) => a.unlinkIdentity(t, "pk-1"),
  },
  {
    label: "mfa enroll phone",
    session: true,
    theirs: (c) => c.mfa.enroll({ factorType: "phone", phone: "+1555", friendlyName: "p" }),
    ours: (a, t) => a.mfaEnroll(t, "phone", { phone: "+1555", friendlyName: "p" }),
  },
  {
    label: "mfa enroll webauthn",
    session: true,
    theirs: (c) => c.mfa.enroll({ factorType: "webauthn", friendlyName: "key" }),
    ours: (a, t) => a.mfaEnroll(t, "webauthn", { friendlyName: "key" }),
  },
  {
    label: "mfa challenge phone channel",
    session: true,
    theirs: (c) => c.mfa.challenge({ factorId: "f1", channel: "whatsapp" }),
    ours: (a, t) => a.mfaChallenge(t, "f1", { channel: "whatsapp" }),
    adjust: (_o, t) => {
      // Deliberate (docs/CONFORMANCE.md): auth-js posts its own parameters, factorId included.
      assert.deepEqual(t[0].body, { factorId: "f1", channel: "whatsapp" });
      delete (t[0].body as Record<string, unknown>).factorId;
    },
  },
  {
    label: "mfa challenge webauthn",
    session: true,
    theirs: (c) =>
      c.mfa.challenge({ factorId: "f1", webauthn: { rpId: "x.io", rpOrigins: ["https://x.io"] } }),
    ours: (a, t) => a.mfaChallenge(t, "f1"),
    adjust: (o, t) => {
      // Deliberate: auth-js posts its call parameters, here camelCase `webauthn.rpId`/`rpOrigins`,
      // which GoTrue's challenge parameters (`channel`, `webauthn.{type,credential_response}`)
      // do not read: the relying party is GoTrue's configuration. fetchbase sends `{}`.
      assert.deepEqual(t[0].body, {
        factorId: "f1",
        webauthn: { rpId: "x.io", rpOrigins: ["https://x.io"] },
      });
      assert.deepEqual(o[0].body, {});
      t[0].body = {};
    },
  },
  {
    label: "mfa verify webauthn",
    session: true,
    theirs: (c) =>
      c.mfa.verify({
        factorId: "f1",
        challengeId: "c1",
        webauthn: { type: "create", rpId: "x.io", credential_response: browserCredential },
      }),
    ours: (a, t) =>
      a.mfaVerify(t, "f1", "c1", "", {
        webauthn: { type: "create", credentialResponse: credential },
      }),
    adjust: (_o, t) => {
      // Deliberate: auth-js also sends its `rpId`/`rpOrigins`, which GoTrue's verify parameters
      // (`webauthn.{type,credential_response}`) do not read.
      const w = (t[0].body as { webauthn: Record<string, unknown> }).webauthn;
      assert.equal(w.rpId, "x.io");
      delete w.rpId;
    },
  },
  {
    label: "mfa challengeAndVerify",
    session: true,
    theirs: (c) => c.mfa.challengeAndVerify({ factorId: "f1", code: "123456" }),
    ours: (a, t) => mfaChallengeAndVerify(a, "f1", "123456", t),
    adjust: (_o, t) => {
      // Deliberate (docs/CONFORMANCE.md): the challenge body of auth-js is `{ factorId }`.
      assert.deepEqual(t[0].body, { factorId: "f1" });
      t[0].body = {};
    },
  },
  {
    label: "mfa listFactors",
    session: true,
    theirs: (c) => c.mfa.listFactors(),
    ours: (a, t) => a.mfaListFactors(t),
  },
  {
    label: "mfa getAuthenticatorAssuranceLevel(jwt)",
    session: true,
    theirs: (c) => c.mfa.getAuthenticatorAssuranceLevel(JWT),
    ours: (a, t) => a.mfaGetAuthenticatorAssuranceLevels(t),
  },
];

Deno.test(`conformance with @supabase/auth-js: ${cases.length} more operations, every request`, async () => {
  const failures: string[] = [];
  for (const c of cases) {
    const them = theirs(c.options);
    if (c.session) await holdTheirSession(them, JWT);
    await c.theirs(them.client);
    const us = makeAuth(answer);
    await c.ours(us.auth, JWT);
    compareRequests(failures, c.label, us.rec.requests, them.rec.requests, c.adjust);
  }
  assert.deepEqual(failures, []);
});

Deno.test("conformance with @supabase/auth-js: web3 without a captcha sends an empty gotrue_meta_security", async () => {
  const them = theirs();
  await them.client.signInWithWeb3({ chain: "ethereum", message: "m", signature: "0xsig" });
  const us = makeAuth(answer);
  await us.auth.signInWithWeb3("ethereum", "m", "0xsig");
  const ours = shape(us.rec.only);
  const their = shape(them.rec.only);
  assert.deepEqual(their.body, { chain: "ethereum", message: "m", signature: "0xsig" });
  // Deliberate: GoTrue reads an empty gotrue_meta_security as no captcha token.
  assert.deepEqual(ours.body, { ...their.body as object, gotrue_meta_security: {} });
  assert.deepEqual({ ...ours, body: null }, { ...their, body: null });
});

type OursWithPkce = (a: AuthClient, jwt: string, pkce: PkceParams) => Promise<unknown>;

const optionCases: Array<{
  label: string;
  theirs: Theirs;
  ours: OursWithPkce;
  pkce?: boolean;
  session?: boolean;
  adjust?: Adjust;
}> = [
  {
    label: "otp email without options",
    theirs: (c) => c.signInWithOtp({ email: "a@x.io" }),
    ours: (a) => a.signInWithOtp({ email: "a@x.io" }),
    adjust: (o, t) => {
      // Deliberate (docs/CONFORMANCE.md): without `createUser` fetchbase leaves
      // `create_user` to GoTrue's default (true); auth-js always sends `create_user: true`.
      assert.equal((t[0].body as Record<string, unknown>).create_user, true);
      assert.equal("create_user" in (o[0].body as Record<string, unknown>), false);
      delete (t[0].body as Record<string, unknown>).create_user;
    },
  },
  {
    label: "otp email with data, captcha and PKCE",
    pkce: true,
    theirs: (c) =>
      c.signInWithOtp({
        email: "a@x.io",
        options: {
          emailRedirectTo: "https://r/cb",
          data: { a: 1 },
          captchaToken: "cap",
          shouldCreateUser: true,
        },
      }),
    ours: (a, _t, pkceParams) =>
      a.signInWithOtp({
        email: "a@x.io",
        emailRedirectTo: "https://r/cb",
        data: { a: 1 },
        captchaToken: "cap",
        createUser: true,
        pkceParams,
      }),
  },
  {
    label: "otp phone with data and captcha",
    theirs: (c) =>
      c.signInWithOtp({
        phone: "+1",
        options: { data: { a: 1 }, captchaToken: "cap", shouldCreateUser: false },
      }),
    ours: (a) =>
      a.signInWithOtp({ phone: "+1", data: { a: 1 }, captchaToken: "cap", createUser: false }),
  },
  {
    label: "recover with PKCE and captcha",
    pkce: true,
    theirs: (c) =>
      c.resetPasswordForEmail("a@x.io", { redirectTo: "https://r/cb", captchaToken: "cap" }),
    ours: (a, _t, pkceParams) =>
      a.resetPasswordForEmail("a@x.io", {
        redirectTo: "https://r/cb",
        captchaToken: "cap",
        pkceParams,
      }),
  },
  {
    label: "signUp email with PKCE",
    pkce: true,
    theirs: (c) =>
      c.signUp({ email: "a@x.io", password: "pw", options: { emailRedirectTo: "https://r/cb" } }),
    ours: (a, _t, pkceParams) =>
      a.signUpWithEmail("a@x.io", "pw", { emailRedirectTo: "https://r/cb", pkceParams }),
  },
  {
    label: "signUp phone with data and captcha",
    theirs: (c) =>
      c.signUp({ phone: "+1", password: "pw", options: { data: { a: 1 }, captchaToken: "cap" } }),
    ours: (a) => a.signUpWithPhone("+1", "pw", { data: { a: 1 }, captchaToken: "cap" }),
  },
  {
    label: "sso with PKCE and captcha",
    pkce: true,
    theirs: (c) =>
      c.signInWithSSO({
        domain: "corp.example",
        options: { redirectTo: "https://r/cb", captchaToken: "cap" },
      }),
    ours: (a, _t, pkceParams) =>
      a.getSsoUrl({
        domain: "corp.example",
        redirectTo: "https://r/cb",
        captchaToken: "cap",
        pkceParams,
      }),
  },
  {
    label: "verify email with redirect and captcha",
    theirs: (c) =>
      c.verifyOtp({
        email: "a@x.io",
        token: "123",
        type: "email",
        options: { redirectTo: "https://r/cb", captchaToken: "cap" },
      }),
    ours: (a) =>
      a.verifyOtp("123", "email", {
        email: "a@x.io",
        redirectTo: "https://r/cb",
        captchaToken: "cap",
      }),
    adjust: (_o, t) => {
      // Deliberate (docs/CONFORMANCE.md): auth-js spreads its call parameters into the body, so its `options`
      // (captcha token and redirect, both also sent where GoTrue reads them) travel as an
      // extra `options` key, which GoTrue ignores.
      const body = t[0].body as Record<string, unknown>;
      assert.deepEqual(body.options, { redirectTo: "https://r/cb", captchaToken: "cap" });
      delete body.options;
    },
  },
  {
    label: "resend email_change with captcha",
    theirs: (c) =>
      c.resend({ type: "email_change", email: "a@x.io", options: { captchaToken: "cap" } }),
    ours: (a) => a.resendEmailOtp("email_change", "a@x.io", { captchaToken: "cap" }),
  },
  {
    label: "anonymous with captcha",
    theirs: (c) => c.signInAnonymously({ options: { captchaToken: "cap" } }),
    ours: (a) => a.signInAnonymously({ captchaToken: "cap" }),
  },
  {
    label: "id token with captcha",
    theirs: (c) =>
      c.signInWithIdToken({ provider: "apple", token: "idt", options: { captchaToken: "cap" } }),
    ours: (a) => a.signInWithIdToken("apple", "idt", { captchaToken: "cap" }),
  },
  {
    label: "updateUser email change with PKCE",
    pkce: true,
    session: true,
    theirs: (c) => c.updateUser({ email: "b@x.io" }, { emailRedirectTo: "https://r/cb" }),
    ours: (a, t, pkceParams) =>
      a.updateUser(t, { email: "b@x.io" }, { emailRedirectTo: "https://r/cb", pkceParams }),
  },
  {
    label: "linkIdentity OAuth with PKCE and query params",
    pkce: true,
    session: true,
    theirs: (c) =>
      c.linkIdentity({
        provider: "github",
        options: { redirectTo: "https://r/cb", scopes: "repo user", queryParams: { prompt: "x" } },
      }),
    ours: (a, t, pkceParams) =>
      a.linkIdentity(t, "github", {
        redirectTo: "https://r/cb",
        scopes: ["repo", "user"],
        queryParams: { prompt: "x" },
        pkceParams,
      }),
  },
];

Deno.test(`conformance with @supabase/auth-js: ${optionCases.length} option-rich and PKCE calls`, async () => {
  const failures: string[] = [];
  for (const c of optionCases) {
    const them = theirs(c.pkce ? { flowType: "pkce" } : {});
    if (c.session) await holdTheirSession(them, JWT);
    await c.theirs(them.client);
    const pkce = c.pkce
      ? await latestPkce(them.client)
      : { codeVerifier: "", codeChallenge: "", codeChallengeMethod: "S256" };
    const us = makeAuth(answer);
    await c.ours(us.auth, JWT, pkce);
    compareRequests(failures, c.label, us.rec.requests, them.rec.requests, c.adjust);
  }
  assert.deepEqual(failures, []);
});

Deno.test("conformance with @supabase/auth-js: X-Supabase-Api-Version on JWKS and claims-verifier reads", async () => {
  // auth-js's _request adds `X-Supabase-Api-Version: 2024-01-01` to every request.
  const them = theirs();
  // deno-lint-ignore no-explicit-any
  await (them.client as any).fetchJwk("nope", { keys: [] }).catch(() => undefined);
  assert.equal(them.rec.only.url.pathname, "/auth/v1/.well-known/jwks.json");
  assert.equal(them.rec.only.headers.get("x-supabase-api-version"), "2024-01-01");
  const us = makeAuth(() => jsonResponse({ keys: [] }));
  await us.auth.getJwks();
  assert.deepEqual(shape(us.rec.only), shape(them.rec.only));
  // The verify-only path sends it too: createClaimsVerifier's GET /user and its JWKS resolver.
  const verifierRec = recordingFetch(() => jsonResponse(userAnswer));
  const verifier = createClaimsVerifier(createBaseClient(BASE, KEY, { fetch: verifierRec.fetch }));
  await verifier.getUser(JWT);
  assert.equal(verifierRec.only.url.pathname, "/auth/v1/user");
  assert.equal(verifierRec.only.headers.get("x-supabase-api-version"), "2024-01-01");
  const jwksRec = recordingFetch(() => jsonResponse({ keys: [] }));
  const resolver = createClaimsVerifier(createBaseClient(BASE, KEY, { fetch: jwksRec.fetch }));
  await resolver.jwks.verificationKey("nope");
  assert.equal(jwksRec.requests[0].url.pathname, "/auth/v1/.well-known/jwks.json");
  assert.deepEqual(shape(jwksRec.requests[0]), shape(them.rec.only));
});
