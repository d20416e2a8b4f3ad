/**
 * Tests added by a mutation audit of `auth/`: each pins a documented or
 * user-visible behaviour that a one-line change to the sources left unnoticed.
 */

import assert from "node:assert/strict";
import {
  createAuthClient,
  decodeUser,
  parseSessionTokensFromFragment,
  parseSessionTokensFromUrl,
} from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import { encodeBase64Url } from "../../core/encoding.ts";
import { recordingFetch } from "../support/recording_fetch.ts";
import { BASE, KEY, makeAuth, SESSION, TOKEN } from "./_helpers.ts";

Deno.test("verifyOtp with a blank token fails INVALID_ARGUMENT without a request", async () => {
  const { auth, rec } = makeAuth();
  for (const token of ["", "   "]) {
    const r = await auth.verifyOtp(token, "email", { email: "ada@example.com" });
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  }
  assert.equal(rec.requests.length, 0);
});

Deno.test("signInWithIdToken with a blank provider fails INVALID_ARGUMENT without a request", async () => {
  const { auth, rec } = makeAuth();
  for (const provider of ["", "  "]) {
    const r = await auth.signInWithIdToken(provider, "id.token.jwt");
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  }
  assert.equal(rec.requests.length, 0);
});

Deno.test("updateUser sends the messaging channel of a phone change", async () => {
  const { auth, rec } = makeAuth(() => Response.json({ id: "u1" }));
  const r = await auth.updateUser(TOKEN, { phone: "+15550100", channel: "whatsapp" });
  assert.equal(r.ok, true);
  assert.equal(rec.only.method, "PUT");
  assert.equal(rec.only.url.pathname, "/auth/v1/user");
  assert.deepEqual(rec.only.json(), { phone: "+15550100", channel: "whatsapp" });
});

Deno.test("a sign-in POST answered 503 is not retried by the transport (not idempotent)", async () => {
  const { auth, rec } = makeAuth([
    new Response("", { status: 503 }),
    Response.json(SESSION),
  ]);
  const r = await auth.signInWithEmail("ada@example.com", "pw");
  assert.equal(r.errorOrNull()?.status, 503);
  assert.equal(rec.requests.length, 1);
  const otp = await auth.signInWithOtp({ email: "ada@example.com" });
  assert.equal(otp.ok, true);
  assert.equal(rec.requests.length, 2, "one /otp request: an OTP is sent once");
});

Deno.test("getJwks sends the API key, never the client's current user token", async () => {
  const rec = recordingFetch(() => Response.json({ keys: [] }));
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch });
  client.setAccessToken("someone-else-token");
  const r = await createAuthClient(client).getJwks();
  assert.equal(r.ok, true);
  assert.equal(rec.only.url.pathname, "/auth/v1/.well-known/jwks.json");
  assert.equal(rec.only.headers.get("authorization"), `Bearer ${KEY}`);
});

function jwt(payload: Record<string, unknown>): string {
  const part = (o: unknown) => encodeBase64Url(JSON.stringify(o));
  return `${part({ alg: "HS256", typ: "JWT" })}.${part(payload)}.sig`;
}

const FACTORS = [
  { id: "f-totp-new", factor_type: "totp", status: "unverified" },
  { id: "f-phone-new", factor_type: "phone", status: "unverified" },
  { id: "f-totp-ok", factor_type: "totp", status: "verified" },
];

Deno.test("mfaVerify with a blank code and no WebAuthn response fails without a request", async () => {
  const { auth, rec } = makeAuth();
  for (const code of ["", "  "]) {
    const r = await auth.mfaVerify(TOKEN, "factor-1", "challenge-1", code);
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  }
  assert.equal(rec.requests.length, 0);
});

Deno.test("mfaUnenroll returns the factor id even when the server answers without one", async () => {
  const { auth, rec } = makeAuth(() => Response.json({}));
  const r = await auth.mfaUnenroll(TOKEN, "factor-9");
  assert.deepEqual(r.getOrThrow(), { id: "factor-9" });
  assert.equal(rec.only.method, "DELETE");
  assert.equal(rec.only.url.pathname, "/auth/v1/factors/factor-9");
});

Deno.test("assurance levels: next is AAL1 when the only factors are unverified", async () => {
  const aal1 = jwt({ sub: "u1", aal: "aal1" });
  const unverified = makeAuth(() => Response.json({ id: "u1", factors: FACTORS.slice(0, 2) }));
  assert.deepEqual(
    (await unverified.auth.mfaGetAuthenticatorAssuranceLevels(aal1)).getOrThrow(),
    { current: "aal1", next: "aal1" },
  );
  const verified = makeAuth(() => Response.json({ id: "u1", factors: FACTORS }));
  assert.deepEqual(
    (await verified.auth.mfaGetAuthenticatorAssuranceLevels(aal1)).getOrThrow(),
    { current: "aal1", next: "aal2" },
  );
});

Deno.test("mfaListFactors: all holds every factor, totp and phone only verified ones (as auth-js)", async () => {
  const { auth } = makeAuth(() => Response.json({ id: "u1", factors: FACTORS }));
  const r = (await auth.mfaListFactors(TOKEN)).getOrThrow();
  assert.deepEqual(r.all.map((f) => f.id), ["f-totp-new", "f-phone-new", "f-totp-ok"]);
  assert.deepEqual(r.totp.map((f) => f.id), ["f-totp-ok"]);
  assert.deepEqual(r.phone, []);
  assert.deepEqual(r.webauthn, []);
});

Deno.test("OAuth URL query parameters are percent-encoded, keys and values", () => {
  const { auth } = makeAuth();
  const url = new URL(
    auth.getOAuthSignInUrl("google", {
      queryParams: { prompt: "select account", "a&b": "c=d&e", hd: "ex.io#x" },
    }),
  );
  assert.equal(url.searchParams.get("prompt"), "select account");
  assert.equal(url.searchParams.get("a&b"), "c=d&e");
  assert.equal(url.searchParams.get("hd"), "ex.io#x");
  assert.equal(url.hash, "");
  assert.equal(url.searchParams.get("provider"), "google");
  assert.equal(url.searchParams.get("e"), null, "no parameter split off a value");
});

Deno.test("mfaChallenge returns the challenge's expires_at", async () => {
  const { auth } = makeAuth(() =>
    Response.json({ id: "ch-1", type: "totp", expires_at: 1_900_000_300 })
  );
  const r = (await auth.mfaChallenge(TOKEN, "factor-1")).getOrThrow();
  assert.equal(r.id, "ch-1");
  assert.equal(r.type, "totp");
  assert.equal(r.expiresAt, 1_900_000_300);
});

Deno.test("a session keeps provider_refresh_token and the user phone, both masked in renderings", async () => {
  const body = {
    ...SESSION,
    provider_token: "prov-access-secret",
    provider_refresh_token: "prov-refresh-secret",
    user: { id: "u1", email: "ada@example.com", phone: "+15550199" },
  };
  const { auth } = makeAuth(() => Response.json(body));
  const s = (await auth.signInWithEmail("ada@example.com", "pw")).getOrThrow();
  assert.equal(s.providerRefreshToken, "prov-refresh-secret");
  assert.equal(s.user.phone, "+15550199");
  for (const v of [s, s.user]) {
    for (const text of [String(v), Deno.inspect(v, { depth: 10 })]) {
      assert.ok(!text.includes("prov-refresh-secret"), text);
      assert.ok(!text.includes("+15550199"), text);
    }
  }
});

Deno.test("verifyOtp answered with an empty access_token is VerifiedNoSession", async () => {
  const { auth } = makeAuth(() =>
    Response.json({ access_token: "", refresh_token: "", user: { id: "u1" } })
  );
  const r = await auth.verifyOtp("123456", "email_change", { email: "ada@example.com" });
  assert.deepEqual(r.getOrThrow(), { kind: "VerifiedNoSession" });
});

Deno.test("a sign-up answer without tokens and with a nested user keeps that user", async () => {
  const { auth } = makeAuth(() =>
    Response.json({ user: { id: "u-new", email: "new@example.com" }, session: null })
  );
  const s = (await auth.signUpWithEmail("new@example.com", "pw")).getOrThrow();
  assert.equal(s.accessToken, "");
  assert.equal(s.user.id, "u-new");
  assert.equal(s.user.email, "new@example.com");
});

Deno.test("OAuth grants decode a client given with client_id / client_name / client_uri", async () => {
  const { auth } = makeAuth(() =>
    Response.json([{
      client: { client_id: "c-7", client_name: "Seven", client_uri: "https://seven.example" },
      scopes: ["openid", "email"],
      granted_at: "2026-01-01T00:00:00Z",
    }])
  );
  const grants = (await auth.oauthListGrants(TOKEN)).getOrThrow();
  assert.deepEqual(grants, [{
    client: { id: "c-7", name: "Seven", uri: "https://seven.example", logoUri: "" },
    scopes: ["openid", "email"],
    grantedAt: "2026-01-01T00:00:00Z",
  }]);
});

Deno.test("getSettings decodes saml_enabled, mfa_enabled and passkeys_enabled", async () => {
  let body: Record<string, unknown> = {
    external: { google: true },
    saml_enabled: true,
    mfa_enabled: false,
    passkeys_enabled: true,
  };
  const { auth } = makeAuth(() => Response.json(body));
  const s = (await auth.getSettings()).getOrThrow();
  assert.equal(s.samlEnabled, true);
  assert.equal(s.mfaEnabled, false);
  assert.equal(s.passkeysEnabled, true);
  body = { external: {} };
  assert.equal((await auth.getSettings()).getOrThrow().passkeysEnabled, null);
  assert.deepEqual(s.external, { google: true });
});

Deno.test("decodeUser reads GoTrue's empty email and phone (a phone user, an anonymous user) as null", () => {
  const anonymous = decodeUser({ id: "u1", email: "", phone: "", is_anonymous: true });
  assert.equal(anonymous.email, null);
  assert.equal(anonymous.phone, null);
  const phoneUser = decodeUser({ id: "u2", email: "", phone: "15550100" });
  assert.equal(phoneUser.email, null);
  assert.equal(phoneUser.phone, "15550100");
});

Deno.test("decodeUser keeps every documented field (isAnonymous, lastSignInAt, confirmations, role)", () => {
  const u = decodeUser({
    id: "u1",
    email: "ada@example.com",
    phone: "+15550100",
    created_at: "c",
    updated_at: "u",
    app_metadata: { provider: "email" },
    user_metadata: { name: "Ada" },
    identities: [],
    factors: [],
    is_anonymous: true,
    role: "authenticated",
    email_confirmed_at: "ec",
    phone_confirmed_at: "pc",
    confirmed_at: "cf",
    last_sign_in_at: "ls",
  });
  assert.deepEqual({ ...u }, {
    id: "u1",
    email: "ada@example.com",
    phone: "+15550100",
    createdAt: "c",
    updatedAt: "u",
    appMetadata: { provider: "email" },
    userMetadata: { name: "Ada" },
    identities: [],
    factors: [],
    isAnonymous: true,
    role: "authenticated",
    emailConfirmedAt: "ec",
    phoneConfirmedAt: "pc",
    confirmedAt: "cf",
    lastSignInAt: "ls",
  });
});

Deno.test("a session answer without token_type decodes as bearer", async () => {
  const { token_type: _, ...body } = SESSION;
  const { auth } = makeAuth(() => Response.json(body));
  const s = (await auth.signInAnonymously()).getOrThrow();
  assert.equal(s.tokenType, "bearer");
});

Deno.test("passkeyVerifyAuthentication with a blank challengeId fails without a request", async () => {
  const { auth, rec } = makeAuth();
  const r = await auth.passkeyVerifyAuthentication(" ", { id: "cred" });
  assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 0);
});

Deno.test("passkeyVerifyRegistration returns PasskeyMetadata: id, friendlyName, createdAt only", async () => {
  const { auth, rec } = makeAuth(() =>
    Response.json({
      id: "pk-1",
      friendly_name: "Laptop",
      created_at: "2026-01-01T00:00:00Z",
      last_used_at: "2026-01-02T00:00:00Z",
    })
  );
  const r = await auth.passkeyVerifyRegistration(TOKEN, "ch-1", { id: "cred" });
  assert.deepEqual({ ...r.getOrThrow() }, {
    id: "pk-1",
    friendlyName: "Laptop",
    createdAt: "2026-01-01T00:00:00Z",
  });
  assert.deepEqual(rec.only.json(), { challenge_id: "ch-1", credential: { id: "cred" } });
});

Deno.test("a GoTrue error fragment is decoded: '+' is a space, error_code is the code", () => {
  const r = parseSessionTokensFromFragment(
    "#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired",
  );
  const e = r.errorOrNull();
  assert.equal(e?.category, "UNAUTHORIZED");
  assert.equal(e?.code, "otp_expired");
  assert.equal(e?.message, "Email link is invalid or has expired");
  const codeOnly = parseSessionTokensFromFragment("error_code=otp_expired");
  assert.equal(codeOnly.errorOrNull()?.category, "UNAUTHORIZED");
  assert.equal(codeOnly.errorOrNull()?.code, "otp_expired");
});

Deno.test("a fragment without token_type is a Failure (every documented field is required)", () => {
  const r = parseSessionTokensFromFragment("access_token=a&refresh_token=r&expires_in=3600");
  assert.equal(r.errorOrNull()?.category, "DECODE");
  assert.match(r.errorOrNull()?.message ?? "", /token_type/);
});

Deno.test("a fragment's provider_token is kept; the URL's fragment starts at its first '#'", () => {
  const tokens =
    "access_token=a&refresh_token=r&expires_in=60&token_type=bearer&provider_token=gh-1";
  const r = parseSessionTokensFromFragment(`#${tokens}`).getOrThrow();
  assert.equal(r.providerToken, "gh-1");
  const u = parseSessionTokensFromUrl(`https://app.example/cb?x=1#${tokens}&note=a#b`).getOrThrow();
  assert.equal(u.accessToken, "a");
  assert.equal(u.expiresIn, 60);
});
