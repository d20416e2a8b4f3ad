import assert from "node:assert/strict";
import {
  createAuthClient,
  forgotPassword,
  mfaChallengeAndVerify,
  parseSessionTokensFromFragment,
  parseSessionTokensFromUrl,
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
import { createBaseClient } from "../../core/client.ts";
import { encodeBase64Url } from "../../core/encoding.ts";
import { jsonResponse, recordingFetch } from "../support/recording_fetch.ts";
import { BASE, KEY, makeAuth, SESSION, TOKEN } from "./_helpers.ts";

const A = `${BASE}/auth/v1`;
const pkce = {
  codeVerifier: "v".repeat(43),
  codeChallenge: "challenge-123",
  codeChallengeMethod: "S256",
};

Deno.test("sign-up: email and phone bodies, redirect_to, captcha, PKCE; blank identifiers fail without a request", async () => {
  const { auth, rec } = makeAuth();
  const s = await auth.signUpWithEmail("ada@example.com", "pw", {
    data: { plan: "free" },
    emailRedirectTo: "https://app.example/welcome",
    captchaToken: "cap",
    pkceParams: pkce,
  });
  assert.equal(s.getOrThrow().user.id, "u1");
  assert.equal(rec.last.url.href, `${A}/signup?redirect_to=https%3A%2F%2Fapp.example%2Fwelcome`);
  assert.deepEqual(rec.last.json(), {
    email: "ada@example.com",
    password: "pw",
    data: { plan: "free" },
    gotrue_meta_security: { captcha_token: "cap" },
    code_challenge: "challenge-123",
    code_challenge_method: "s256",
  });
  await auth.signUpWithPhone("+15550100", "pw", { channel: "whatsapp" });
  assert.deepEqual(rec.last.json(), {
    phone: "+15550100",
    password: "pw",
    data: {},
    channel: "whatsapp",
    gotrue_meta_security: {},
  });
  const n = rec.requests.length;
  assert.equal((await auth.signUpWithEmail(" ", "pw")).errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal((await auth.signUpWithPhone("", "pw")).errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, n);
});

Deno.test("sign-up with confirmation returns a session without tokens around the bare user", async () => {
  const { auth } = makeAuth(() =>
    jsonResponse({ id: "u9", email: "new@example.com", confirmation_sent_at: "now" })
  );
  const s = (await auth.signUpWithEmail("new@example.com", "pw")).getOrThrow();
  assert.equal(s.accessToken, "");
  assert.equal(s.user.id, "u9");
});

Deno.test("password, anonymous, id_token, web3, refresh and pkce grants", async () => {
  const { auth, rec } = makeAuth();
  await auth.signInWithEmail("ada@example.com", "pw");
  assert.equal(rec.last.url.href, `${A}/token?grant_type=password`);
  assert.deepEqual(rec.last.json(), {
    email: "ada@example.com",
    password: "pw",
    gotrue_meta_security: {},
  });
  await auth.signInWithPhone("+1555", "pw", { captchaToken: "c" });
  assert.deepEqual(rec.last.json(), {
    phone: "+1555",
    password: "pw",
    gotrue_meta_security: { captcha_token: "c" },
  });
  await auth.signInAnonymously({ data: { a: 1 } });
  assert.equal(rec.last.url.href, `${A}/signup`);
  assert.deepEqual(rec.last.json(), { data: { a: 1 }, gotrue_meta_security: {} });
  await auth.signInWithIdToken("apple", "idtok", {
    nonce: "n",
    accessToken: "at",
    clientId: "cid",
    issuer: "https://iss",
  });
  assert.equal(rec.last.url.href, `${A}/token?grant_type=id_token`);
  assert.deepEqual(rec.last.json(), {
    provider: "apple",
    id_token: "idtok",
    gotrue_meta_security: {},
    access_token: "at",
    nonce: "n",
    client_id: "cid",
    issuer: "https://iss",
  });
  await auth.signInWithWeb3("solana", "msg", "sig");
  assert.equal(rec.last.url.href, `${A}/token?grant_type=web3`);
  assert.deepEqual(rec.last.json(), {
    chain: "solana",
    message: "msg",
    signature: "sig",
    gotrue_meta_security: {},
  });
  await auth.refreshToken("r1");
  assert.equal(rec.last.url.href, `${A}/token?grant_type=refresh_token`);
  assert.deepEqual(rec.last.json(), { refresh_token: "r1" });
  await auth.exchangeCodeForSession("code", "verifier");
  assert.equal(rec.last.url.href, `${A}/token?grant_type=pkce`);
  assert.deepEqual(rec.last.json(), { auth_code: "code", code_verifier: "verifier" });
  assert.equal(rec.last.headers.get("authorization"), `Bearer ${KEY}`);
  assert.equal((await auth.signInWithEmail("", "pw")).errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal((await auth.refreshToken(" ")).errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(
    (await auth.signInWithWeb3("bitcoin" as "solana", "m", "s")).errorOrNull()?.category,
    "INVALID_ARGUMENT",
  );
});

Deno.test("web3: signature bytes go as GoTrue reads each chain's; other values are INVALID_ARGUMENT", async () => {
  const { auth, rec } = makeAuth(() => jsonResponse({ ...SESSION }));
  const eth = new Uint8Array(65).map((_, i) => i * 3);
  await auth.signInWithWeb3("ethereum", "msg", eth);
  const hex = (rec.last.json() as { signature: string }).signature;
  assert.match(hex, /^0x[0-9a-f]{130}$/);
  assert.equal(hex.slice(0, 10), "0x00030609");
  const sol = new Uint8Array(64).fill(251);
  await auth.signInWithWeb3("solana", "msg", sol);
  const b64 = (rec.last.json() as { signature: string }).signature;
  // GoTrue takes 86 (unpadded) or 88 characters.
  assert.equal(b64.length, 86);
  assert.equal(b64.slice(0, 4), "-_v7");
  // Ethereum's hex as text goes with GoTrue's exact "0x" prefix (it measures the signature without
  // "0x" only and decodes no unprefixed hex); any other text goes as given.
  const signedAs = async (chain: "ethereum" | "solana", text: string) => {
    await auth.signInWithWeb3(chain, "msg", text);
    return (rec.last.json() as { signature: string }).signature;
  };
  const digits = hex.slice(2);
  assert.equal(await signedAs("ethereum", digits), hex);
  assert.equal(
    await signedAs("ethereum", `0X${digits.toUpperCase()}`),
    `0x${digits.toUpperCase()}`,
  );
  assert.equal(await signedAs("ethereum", hex), hex);
  for (const text of [digits.slice(2), `${digits}00`, `0x0x${digits}`, `z${digits.slice(1)}`]) {
    assert.equal(await signedAs("ethereum", text), text);
  }
  assert.equal(await signedAs("solana", digits), digits);
  const sent = rec.requests.length;
  for (const bad of [[1, 2], 42, null, new ArrayBuffer(64)]) {
    const e = (await auth.signInWithWeb3("solana", "msg", bad as never)).errorOrNull();
    assert.equal(e?.category, "INVALID_ARGUMENT");
    assert.match(e!.message, /'signature' must be a string or a Uint8Array: current value is/);
  }
  const empty = await auth.signInWithWeb3("solana", "msg", new Uint8Array(0));
  assert.match(empty.errorOrNull()!.message, /must be non-blank/);
  assert.equal(rec.requests.length, sent);
});

Deno.test("bad credentials are a Failure carrying GoTrue's error code", async () => {
  const { auth } = makeAuth(() =>
    jsonResponse(
      { code: 400, error_code: "invalid_credentials", msg: "Invalid login credentials" },
      { status: 400 },
    )
  );
  const r = await auth.signInWithEmail("ada@example.com", "wrong");
  assert.equal(r.errorOrNull()?.code, "invalid_credentials");
  assert.equal(r.errorOrNull()?.message, "Invalid login credentials");
});

Deno.test("OTP: exactly one of email/phone; verify with email, phone or token hash; resend; recover", async () => {
  const { auth, rec } = makeAuth(() => jsonResponse({}));
  await auth.signInWithOtp({
    email: "a@x.io",
    createUser: false,
    emailRedirectTo: "https://r",
    data: { k: 1 },
    pkceParams: pkce,
  });
  assert.equal(rec.last.url.href, `${A}/otp?redirect_to=https%3A%2F%2Fr`);
  assert.deepEqual(rec.last.json(), {
    email: "a@x.io",
    data: { k: 1 },
    code_challenge: "challenge-123",
    code_challenge_method: "s256",
    create_user: false,
    gotrue_meta_security: {},
  });
  await auth.signInWithOtp({ phone: "+1", channel: "whatsapp" });
  assert.deepEqual(rec.last.json(), {
    phone: "+1",
    data: {},
    channel: "whatsapp",
    gotrue_meta_security: {},
  });
  const n = rec.requests.length;
  assert.equal((await auth.signInWithOtp({})).errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(
    (await auth.signInWithOtp({ email: "a", phone: "b" })).errorOrNull()?.category,
    "INVALID_ARGUMENT",
  );
  assert.equal(rec.requests.length, n);
  const v = (await auth.verifyOtp("123456", "email", { email: "a@x.io", redirectTo: "https://r" }))
    .getOrThrow();
  assert.deepEqual(v, { kind: "VerifiedNoSession" });
  assert.equal(rec.last.url.href, `${A}/verify?redirect_to=https%3A%2F%2Fr`);
  assert.deepEqual(rec.last.json(), {
    email: "a@x.io",
    token: "123456",
    type: "email",
    gotrue_meta_security: {},
  });
  await auth.verifyOtp("1", "sms", { phone: "+1" });
  assert.deepEqual(rec.last.json(), {
    phone: "+1",
    token: "1",
    type: "sms",
    gotrue_meta_security: {},
  });
  await auth.verifyOtpWithTokenHash("hash", "magiclink");
  assert.deepEqual(rec.last.json(), {
    token_hash: "hash",
    type: "magiclink",
    gotrue_meta_security: {},
  });
  await auth.resendEmailOtp("signup", "a@x.io", { redirectTo: "https://r" });
  assert.equal(rec.last.url.href, `${A}/resend?redirect_to=https%3A%2F%2Fr`);
  assert.deepEqual(rec.last.json(), { email: "a@x.io", type: "signup", gotrue_meta_security: {} });
  await auth.resendPhoneOtp("sms", "+1");
  assert.deepEqual(rec.last.json(), { phone: "+1", type: "sms", gotrue_meta_security: {} });
  await auth.resetPasswordForEmail("a@x.io", {
    redirectTo: "https://r",
    pkceParams: pkce,
    captchaToken: "c",
  });
  assert.equal(rec.last.url.href, `${A}/recover?redirect_to=https%3A%2F%2Fr`);
  assert.deepEqual(rec.last.json(), {
    email: "a@x.io",
    code_challenge: "challenge-123",
    code_challenge_method: "s256",
    gotrue_meta_security: { captcha_token: "c" },
  });
});

Deno.test("verifyOtp returns Authenticated when the answer carries a session", async () => {
  const { auth } = makeAuth();
  const v = (await auth.verifyOtp("1", "email", { email: "a@x.io" })).getOrThrow();
  assert.equal(v.kind, "Authenticated");
  if (v.kind === "Authenticated") assert.equal(v.session.refreshToken, "refresh-abc");
});

Deno.test("user operations carry the explicit token: get, identities, update, reauthenticate, sign-out scopes", async () => {
  const { auth, rec } = makeAuth(() =>
    jsonResponse({
      id: "u1",
      identities: [{ id: "prov-1", identity_id: "pk-1", provider: "github", user_id: "u1" }],
    })
  );
  const u = (await auth.getUser(TOKEN)).getOrThrow();
  assert.equal(rec.last.url.href, `${A}/user`);
  assert.equal(rec.last.headers.get("authorization"), `Bearer ${TOKEN}`);
  assert.equal(u.identities?.[0].identityId, "pk-1");
  assert.deepEqual(
    (await auth.getUserIdentities(TOKEN)).getOrThrow().map((i) => i.id),
    ["pk-1"],
    "id is GoTrue's primary key, identity_id",
  );
  await auth.updateUser(TOKEN, {
    email: "b@x.io",
    password: "p2",
    currentPassword: "p1",
    data: { a: 1 },
    nonce: "n",
    phone: null,
  }, {
    emailRedirectTo: "https://r",
  });
  assert.equal(rec.last.method, "PUT");
  assert.equal(rec.last.url.href, `${A}/user?redirect_to=https%3A%2F%2Fr`);
  assert.deepEqual(rec.last.json(), {
    email: "b@x.io",
    password: "p2",
    current_password: "p1",
    data: { a: 1 },
    nonce: "n",
  });
  await auth.reauthenticate(TOKEN);
  assert.equal(rec.last.url.href, `${A}/reauthenticate`);
  assert.equal(rec.last.method, "GET");
  await auth.signOut(TOKEN);
  assert.equal(rec.last.url.href, `${A}/logout?scope=local`);
  await signOutGlobal(auth, TOKEN);
  assert.equal(rec.last.url.href, `${A}/logout?scope=global`);
  await signOutOthers(auth, TOKEN);
  assert.equal(rec.last.url.href, `${A}/logout?scope=others`);
  await signOutLocal(auth, TOKEN);
  assert.equal(rec.last.url.href, `${A}/logout?scope=local`);
  assert.equal((await auth.getUser(" ")).errorOrNull()?.category, "INVALID_ARGUMENT");
});

Deno.test("identities: link by URL (skip_http_redirect), by id token (link_identity), unlink by id", async () => {
  const { auth, rec } = makeAuth([
    jsonResponse({ url: "https://github.com/login/oauth" }),
    jsonResponse(SESSION),
    jsonResponse({}),
  ]);
  const link = (await auth.linkIdentity(TOKEN, "github", {
    redirectTo: "https://r",
    scopes: ["repo", "user"],
    queryParams: { x: "1" },
  }))
    .getOrThrow();
  assert.deepEqual(link, { url: "https://github.com/login/oauth", provider: "github" });
  assert.equal(
    rec.last.url.href,
    `${A}/user/identities/authorize?provider=github&redirect_to=https%3A%2F%2Fr&scopes=repo%20user&x=1&skip_http_redirect=true`,
  );
  assert.equal(rec.last.headers.get("authorization"), `Bearer ${TOKEN}`);
  await auth.linkIdentityWithIdToken(TOKEN, "google", "idt", { nonce: "n" });
  assert.deepEqual(rec.last.json(), {
    provider: "google",
    id_token: "idt",
    gotrue_meta_security: {},
    nonce: "n",
    link_identity: true,
  });
  assert.equal(rec.last.headers.get("authorization"), `Bearer ${TOKEN}`);
  await auth.unlinkIdentity(TOKEN, "pk-1");
  assert.equal(rec.last.method, "DELETE");
  assert.equal(rec.last.url.href, `${A}/user/identities/pk-1`);
});

Deno.test("SSO: domain or provider id (exactly one), skip_http_redirect, optional bearer", async () => {
  const { auth, rec } = makeAuth(() => jsonResponse({ url: "https://idp.example/sso" }));
  assert.equal(
    (await auth.getSsoUrl({ domain: "corp.example", redirectTo: "https://r", pkceParams: pkce }))
      .getOrThrow().url,
    "https://idp.example/sso",
  );
  assert.deepEqual(rec.last.json(), {
    domain: "corp.example",
    redirect_to: "https://r",
    code_challenge: "challenge-123",
    code_challenge_method: "s256",
    skip_http_redirect: true,
  });
  assert.equal(rec.last.headers.get("authorization"), `Bearer ${KEY}`);
  await auth.getSsoUrl({ providerId: "p-1", accessToken: TOKEN });
  assert.equal((rec.last.json() as Record<string, unknown>).provider_id, "p-1");
  assert.equal(rec.last.headers.get("authorization"), `Bearer ${TOKEN}`);
  const n = rec.requests.length;
  assert.equal((await auth.getSsoUrl({})).errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(
    (await auth.getSsoUrl({ domain: "a", providerId: "b" })).errorOrNull()?.category,
    "INVALID_ARGUMENT",
  );
  assert.equal(rec.requests.length, n);
});

Deno.test("an optional access token left blank sends the API key, never the client's current token", async () => {
  const rec = recordingFetch(() => jsonResponse({ url: "https://idp.example/sso" }));
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch });
  client.setAccessToken("someone-elses-token-123");
  const auth = createAuthClient(client);
  for (const accessToken of ["  ", "", null]) {
    assert.ok((await auth.getSsoUrl({ domain: "corp.example", accessToken })).ok);
    assert.equal(rec.last.headers.get("authorization"), `Bearer ${KEY}`, String(accessToken));
  }
});

Deno.test("PKCE params without a method use the document's default, S256", async () => {
  const { auth, rec } = makeAuth(() => jsonResponse({ id: "u1" }));
  const bare = { codeVerifier: "v".repeat(64), codeChallenge: "c".repeat(43) };
  assert.ok((await auth.signUpWithEmail("a@x.io", "pw", { pkceParams: bare })).ok);
  assert.equal((rec.last.json() as Record<string, unknown>).code_challenge_method, "s256");
  assert.ok((await auth.resetPasswordForEmail("a@x.io", { pkceParams: bare })).ok);
  assert.equal((rec.last.json() as Record<string, unknown>).code_challenge_method, "s256");
  const url = new URL(auth.getOAuthSignInUrl("github", { pkceParams: bare }));
  assert.equal(url.searchParams.get("code_challenge_method"), "s256");
  assert.equal(url.searchParams.get("code_challenge"), "c".repeat(43));
});

Deno.test("settings, health and JWKS need only the API key; settings decode tolerantly", async () => {
  const { auth, rec } = makeAuth([
    jsonResponse({
      external: { google: true, github: false, weird: "x" },
      disable_signup: false,
      mailer_autoconfirm: true,
      new_field: 1,
    }),
    jsonResponse({ name: "GoTrue", version: "v2" }),
    new Response('{"keys":[]}'),
  ]);
  const s = (await auth.getSettings()).getOrThrow();
  assert.deepEqual(s.external, { google: true, github: false });
  assert.equal(s.mfaEnabled, null);
  assert.equal(rec.last.headers.get("apikey"), KEY);
  assert.deepEqual((await auth.getHealth()).getOrThrow(), {
    name: "GoTrue",
    version: "v2",
    description: null,
  });
  assert.equal((await auth.getJwks()).getOrThrow(), '{"keys":[]}');
  assert.equal(rec.last.url.href, `${A}/.well-known/jwks.json`);
});

Deno.test("MFA: enroll (TOTP secret masked), challenge, verify (AAL2 session), unenroll, list, assurance levels", async () => {
  const aal = (level: string) =>
    `e30.${encodeBase64Url(JSON.stringify({ aal: level, sub: "u1" }))}.sig`;
  const { auth, rec } = makeAuth([
    jsonResponse({
      id: "f1",
      type: "totp",
      totp: {
        qr_code: '<?xml version="1.0"?><svg></svg>',
        secret: "SECRETSECRET",
        uri: "otpauth://totp/x?secret=SECRETSECRET",
      },
    }),
    jsonResponse({ id: "c1", type: "totp", expires_at: 1700 }),
    jsonResponse({ ...SESSION, access_token: aal("aal2") }),
    jsonResponse({ id: "f1" }),
    jsonResponse({
      id: "u1",
      factors: [
        { id: "f1", factor_type: "totp", status: "verified" },
        { id: "f2", factor_type: "phone", status: "unverified" },
        { id: "f3", factor_type: "quantum", status: "weird" },
      ],
    }),
    jsonResponse({ id: "u1", factors: [{ id: "f1", factor_type: "totp", status: "verified" }] }),
    jsonResponse({ id: "c2" }),
    jsonResponse({ ...SESSION }),
  ]);
  const e = (await auth.mfaEnroll(TOKEN, "totp", { friendlyName: "phone", issuer: "acme" }))
    .getOrThrow();
  assert.deepEqual(rec.last.json(), {
    factor_type: "totp",
    friendly_name: "phone",
    issuer: "acme",
  });
  assert.equal(e.totp?.secret, "SECRETSECRET");
  // GoTrue sends SVG markup; the model holds a data URI, as auth-js gives it.
  assert.equal(e.totp?.qrCode, 'data:image/svg+xml;utf-8,<?xml version="1.0"?><svg></svg>');
  assert.ok(!String(e.totp).includes("SECRETSECRET"));
  assert.ok(!Deno.inspect(e.totp).includes("SECRETSECRET"));
  await auth.mfaChallenge(TOKEN, "f1");
  assert.equal(rec.last.url.href, `${A}/factors/f1/challenge`);
  assert.deepEqual(rec.last.json(), {});
  const v = (await auth.mfaVerify(TOKEN, "f1", "c1", "123456")).getOrThrow();
  assert.deepEqual(rec.last.json(), { challenge_id: "c1", code: "123456" });
  assert.equal(auth.mfaGetAuthenticatorAssuranceLevel(v.accessToken).getOrThrow(), "aal2");
  assert.ok(!String(v).includes(v.accessToken));
  assert.equal((await auth.mfaUnenroll(TOKEN, "f1")).getOrThrow().id, "f1");
  assert.equal(rec.last.method, "DELETE");
  const list = (await auth.mfaListFactors(TOKEN)).getOrThrow();
  assert.equal(list.all.length, 3);
  assert.deepEqual(list.totp.map((f) => f.id), ["f1"]);
  assert.equal(list.phone.length, 0);
  assert.equal(list.all[2].factorType, "unknown");
  assert.equal(list.all[2].status, "unknown");
  const levels = (await auth.mfaGetAuthenticatorAssuranceLevels(aal("aal1"))).getOrThrow();
  assert.deepEqual(levels, { current: "aal1", next: "aal2" });
  await mfaChallengeAndVerify(auth, "f1", "654321", TOKEN);
  assert.deepEqual(rec.last.json(), { challenge_id: "c2", code: "654321" });
  assert.equal(auth.mfaGetAuthenticatorAssuranceLevel("not-a-jwt").ok, false);
  assert.equal((await auth.mfaEnroll(TOKEN, "phone")).errorOrNull()?.category, "INVALID_ARGUMENT");
});

Deno.test("passkeys on /passkeys routes", async () => {
  const { auth, rec } = makeAuth([
    jsonResponse({ challenge_id: "ch", options: { rp: { id: "x" } }, expires_at: 99 }),
    jsonResponse({ id: "pk1", friendly_name: "laptop", created_at: "t" }),
    jsonResponse({ challenge_id: "ch2", options: {}, expires_at: 100 }),
    jsonResponse(SESSION),
    jsonResponse([{ id: "pk1", friendly_name: "laptop", created_at: "t", last_used_at: "u" }]),
    jsonResponse({ id: "pk1", friendly_name: "work", created_at: "t" }),
    jsonResponse({}),
  ]);
  assert.equal(
    (await auth.passkeyStartRegistration(TOKEN, { captchaToken: "cap" })).getOrThrow().challengeId,
    "ch",
  );
  assert.equal(rec.last.url.href, `${A}/passkeys/registration/options`);
  assert.deepEqual(rec.last.json(), { gotrue_meta_security: { captcha_token: "cap" } });
  assert.equal(
    (await auth.passkeyVerifyRegistration(TOKEN, "ch", { id: "cred" })).getOrThrow().friendlyName,
    "laptop",
  );
  assert.deepEqual(rec.last.json(), { challenge_id: "ch", credential: { id: "cred" } });
  await auth.passkeyStartAuthentication({ captchaToken: "c" });
  assert.deepEqual(rec.last.json(), { gotrue_meta_security: { captcha_token: "c" } });
  assert.equal(rec.last.headers.get("authorization"), `Bearer ${KEY}`);
  assert.equal(
    (await auth.passkeyVerifyAuthentication("ch2", { id: "cred" })).getOrThrow().user.id,
    "u1",
  );
  assert.equal(rec.last.url.href, `${A}/passkeys/authentication/verify`);
  assert.equal((await auth.passkeyList(TOKEN)).getOrThrow()[0].lastUsedAt, "u");
  assert.equal((await auth.passkeyUpdate(TOKEN, "pk1", "work")).getOrThrow().friendlyName, "work");
  assert.equal(rec.last.method, "PATCH");
  assert.deepEqual(rec.last.json(), { friendly_name: "work" });
  await auth.passkeyDelete(TOKEN, "pk1");
  assert.equal(rec.last.method, "DELETE");
  assert.equal(rec.last.url.href, `${A}/passkeys/pk1`);
});

Deno.test("OAuth consent: details, approve, deny, grants, revoke", async () => {
  const { auth, rec } = makeAuth([
    jsonResponse({
      authorization_id: "az",
      redirect_uri: "https://c/cb",
      client: { id: "c1", name: "App", uri: "https://c", logo_uri: "" },
      user: { id: "u1", email: "a@x" },
      scope: "openid",
    }),
    jsonResponse({ redirect_url: "https://c/cb?code=1" }),
    jsonResponse({ redirect_url: "https://c/cb?error=access_denied" }),
    jsonResponse([{ client: { id: "c1", name: "App" }, scopes: ["openid"], granted_at: "t" }]),
    new Response(null, { status: 204 }),
  ]);
  const d = (await auth.oauthGetAuthorizationDetails(TOKEN, "az")).getOrThrow();
  assert.equal(d.client?.name, "App");
  assert.equal(rec.last.url.href, `${A}/oauth/authorizations/az`);
  assert.equal(
    (await auth.oauthApproveAuthorization(TOKEN, "az")).getOrThrow().redirectUrl,
    "https://c/cb?code=1",
  );
  assert.deepEqual(rec.last.json(), { action: "approve" });
  assert.equal(rec.last.url.href, `${A}/oauth/authorizations/az/consent`);
  await auth.oauthDenyAuthorization(TOKEN, "az");
  assert.deepEqual(rec.last.json(), { action: "deny" });
  assert.deepEqual((await auth.oauthListGrants(TOKEN)).getOrThrow()[0].scopes, ["openid"]);
  assert.equal(rec.last.url.href, `${A}/user/oauth/grants`);
  assert.ok((await auth.oauthRevokeGrant(TOKEN, "c1")).ok);
  assert.equal(rec.last.method, "DELETE");
  assert.equal(rec.last.url.href, `${A}/user/oauth/grants?client_id=c1`);
});

Deno.test("OAuth URLs: provider, redirect, space-joined scopes, params, skip redirect, PKCE, invite token; no I/O", () => {
  const { auth, rec } = makeAuth();
  const url = auth.getOAuthSignInUrl("linkedin_oidc", {
    redirectTo: "https://app/cb",
    scopes: ["openid", "email"],
    queryParams: { access_type: "offline", prompt: "consent" },
    skipBrowserRedirect: true,
    pkceParams: pkce,
    inviteToken: "inv",
  });
  assert.equal(
    url,
    `${A}/authorize?provider=linkedin_oidc&redirect_to=https%3A%2F%2Fapp%2Fcb&scopes=openid%20email&code_challenge=challenge-123&code_challenge_method=s256&access_type=offline&prompt=consent&invite_token=inv&skip_http_redirect=true`,
  );
  assert.deepEqual(auth.signInWithOAuth("github"), {
    url: `${A}/authorize?provider=github`,
    provider: "github",
  });
  assert.throws(() => auth.getOAuthSignInUrl(""), TypeError);
  // A `state` in queryParams would replace GoTrue's own at the provider: refused.
  assert.throws(
    () => auth.getOAuthSignInUrl("github", { queryParams: { state: "s1" } }),
    (e: Error) => e instanceof TypeError && /redirectTo/.test(e.message),
  );
  assert.equal(rec.requests.length, 0);
});

Deno.test("fragment parsing: leading #, percent-decoding, missing fields and errors fail", () => {
  const t = parseSessionTokensFromFragment(
    "#access_token=a%2Eb&refresh_token=r%20x&expires_in=3600&token_type=bearer&extra=1",
  ).getOrThrow();
  assert.deepEqual({ ...t }, {
    accessToken: "a.b",
    refreshToken: "r x",
    expiresIn: 3600,
    tokenType: "bearer",
  });
  assert.ok(!String(t).includes("a.b"));
  assert.equal(
    parseSessionTokensFromFragment("access_token=a&expires_in=1&token_type=bearer").ok,
    false,
  );
  const noAccess = parseSessionTokensFromFragment(
    "refresh_token=r&expires_in=60&token_type=bearer",
  );
  assert.equal(noAccess.errorOrNull()?.category, "DECODE");
  assert.match(noAccess.errorOrNull()?.message ?? "", /access_token/);
  assert.equal(
    parseSessionTokensFromFragment("access_token=a&refresh_token=r&expires_in=x&token_type=b").ok,
    false,
  );
  assert.equal(parseSessionTokensFromFragment("access_token=%E0%A4%A&refresh_token=r").ok, false);
  assert.equal(
    parseSessionTokensFromFragment("#error=access_denied&error_description=Denied").errorOrNull()
      ?.message,
    "Denied",
  );
  assert.ok(
    parseSessionTokensFromUrl(
      "https://a/cb?x=1#access_token=a&refresh_token=r&expires_in=1&token_type=bearer",
    ).ok,
  );
  assert.equal(parseSessionTokensFromUrl("https://a/cb?access_token=a").ok, false);
});

Deno.test("decoding is tolerant; sessions mask tokens and users mask email in renderings", async () => {
  const { auth } = makeAuth(() =>
    jsonResponse({
      ...SESSION,
      unknown_key: { deep: 1 },
      user: { id: "u1", email: "ada@example.com", brand_new: true },
    })
  );
  const s = (await auth.signInWithEmail("ada@example.com", "pw")).getOrThrow();
  assert.equal(s.user.phone, null);
  assert.equal(s.providerToken, null);
  assert.equal(s.tokenType, "bearer");
  for (const text of [String(s), Deno.inspect(s, { depth: 5 })]) {
    assert.ok(!text.includes(SESSION.access_token));
    assert.ok(!text.includes("refresh-abc"));
    assert.ok(!text.includes("ada@example.com"));
  }
  assert.equal(JSON.parse(JSON.stringify(s)).accessToken, SESSION.access_token);
  const { auth: bad } = makeAuth(() => jsonResponse({ user: { id: "u" } }));
  assert.equal((await bad.signInWithEmail("a@x", "pw")).errorOrNull()?.category, "DECODE");
});

Deno.test("convenience extensions wrap the right operations", async () => {
  const { auth, rec } = makeAuth(() => jsonResponse({}));
  await signUp(auth, "a@x", "p", { data: { k: 1 } });
  assert.deepEqual((rec.last.json() as Record<string, unknown>).data, { k: 1 });
  await signIn(auth, "a@x", "p");
  assert.equal(rec.last.url.search, "?grant_type=password");
  await signUpPhone(auth, "+1", "p");
  assert.equal((rec.last.json() as Record<string, unknown>).phone, "+1");
  await signInPhone(auth, "+1", "p");
  assert.equal((rec.last.json() as Record<string, unknown>).phone, "+1");
  await sendOtp(auth, "a@x");
  assert.equal(rec.last.url.pathname, "/auth/v1/otp");
  await sendPhoneOtp(auth, "+1", { channel: "whatsapp" });
  assert.equal((rec.last.json() as Record<string, unknown>).channel, "whatsapp");
  await resendSignUpEmailOtp(auth, "a@x");
  assert.equal(
    (rec.last.json() as Record<string, unknown>).type,
    "signup",
    "what GoTrue's /resend takes",
  );
  await resendPhoneSignInOtp(auth, "+1");
  assert.equal((rec.last.json() as Record<string, unknown>).type, "sms");
  await verifyEmailOtp(auth, "a@x", "1", "recovery");
  assert.equal((rec.last.json() as Record<string, unknown>).type, "recovery");
  await verifyPhoneOtp(auth, "+1", "1", "phone_change");
  assert.equal((rec.last.json() as Record<string, unknown>).type, "phone_change");
  await verifyEmailSignUpOtp(auth, "a@x", "1");
  assert.equal((rec.last.json() as Record<string, unknown>).type, "email");
  await verifyPhoneSignInOtp(auth, "+1", "1");
  assert.equal((rec.last.json() as Record<string, unknown>).type, "sms");
  await verifyEmailOtpWithTokenHash(auth, "h", "invite");
  assert.equal((rec.last.json() as Record<string, unknown>).token_hash, "h");
  await forgotPassword(auth, "a@x", { redirectTo: "https://r", captchaToken: "cap" });
  assert.equal(rec.last.url.pathname, "/auth/v1/recover");
  assert.equal(rec.last.url.searchParams.get("redirect_to"), "https://r");
  assert.deepEqual((rec.last.json() as Record<string, unknown>).gotrue_meta_security, {
    captcha_token: "cap",
  });
  await resendSignUpEmailOtp(auth, "a@x", { captchaToken: "c2", redirectTo: "https://r2" });
  assert.deepEqual((rec.last.json() as Record<string, unknown>).gotrue_meta_security, {
    captcha_token: "c2",
  });
  await verifyEmailSignUpOtp(auth, "a@x", "1", { captchaToken: "c3" });
  assert.deepEqual((rec.last.json() as Record<string, unknown>).gotrue_meta_security, {
    captcha_token: "c3",
  });

  // Every extension takes a signal: an aborted one resolves Failure(CANCELLED) and sends nothing.
  const before = rec.requests.length;
  const signal = AbortSignal.abort();
  const calls: Array<Promise<{ errorOrNull(): { category: string } | null }>> = [
    signUp(auth, "a@x", "p", { signal }),
    signIn(auth, "a@x", "p", { signal }),
    signUpPhone(auth, "+1", "p", { signal }),
    signInPhone(auth, "+1", "p", { signal }),
    sendOtp(auth, "a@x", { signal }),
    sendPhoneOtp(auth, "+1", { signal }),
    resendSignUpEmailOtp(auth, "a@x", { signal }),
    resendPhoneSignInOtp(auth, "+1", { signal }),
    verifyEmailOtp(auth, "a@x", "1", "email", { signal }),
    verifyPhoneOtp(auth, "+1", "1", "sms", { signal }),
    verifyEmailSignUpOtp(auth, "a@x", "1", { signal }),
    verifyPhoneSignInOtp(auth, "+1", "1", { signal }),
    verifyEmailOtpWithTokenHash(auth, "h", "invite", { signal }),
    forgotPassword(auth, "a@x", { signal }),
    signOutGlobal(auth, "t", { signal }),
    signOutLocal(auth, "t", { signal }),
    signOutOthers(auth, "t", { signal }),
    mfaChallengeAndVerify(auth, "f", "123456", "t", { signal }),
  ];
  for (const [i, r] of (await Promise.all(calls)).entries()) {
    assert.equal(r.errorOrNull()?.category, "CANCELLED", `call ${i}`);
  }
  assert.equal(rec.requests.length, before);
});

Deno.test("review fixes: unlink takes the identity's primary key; reauthenticate is never retried; link answers that do not decode are Failures", async () => {
  const { auth, rec } = makeAuth((req) => {
    if (req.url.pathname.endsWith("/user") && req.method === "GET") {
      return jsonResponse({
        id: "u1",
        identities: [{
          id: "1234567",
          identity_id: "bbbbbbbb-0000-4000-8000-000000000001",
          provider: "github",
        }],
      });
    }
    if (req.url.pathname.endsWith("/reauthenticate")) return new Response("busy", { status: 503 });
    if (req.url.pathname.endsWith("/authorize")) return jsonResponse({});
    return new Response(null, { status: 204 });
  });
  const [identity] = (await auth.getUserIdentities(TOKEN)).getOrThrow();
  await auth.unlinkIdentity(TOKEN, identity.id);
  assert.equal(
    rec.last.url.pathname,
    "/auth/v1/user/identities/bbbbbbbb-0000-4000-8000-000000000001",
  );
  const before = rec.requests.length;
  assert.equal((await auth.reauthenticate(TOKEN)).errorOrNull()?.status, 503);
  assert.equal(rec.requests.length - before, 1, "one code sent, not three");
  const link = await auth.linkIdentity(TOKEN, "github");
  assert.equal(link.errorOrNull()?.category, "DECODE");
});

Deno.test("fragments: an empty error description still reports the error; expires_in must be digits", () => {
  const e = parseSessionTokensFromFragment("#error=server_error&error_description=");
  assert.equal(e.errorOrNull()?.category, "UNAUTHORIZED");
  assert.equal(e.errorOrNull()?.message, "server_error");
  for (const bad of ["%20%20", "3600.9", "-1", "1e3"]) {
    const r = parseSessionTokensFromFragment(
      `#access_token=a.b.c&refresh_token=r&token_type=bearer&expires_in=${bad}`,
    );
    assert.equal(r.errorOrNull()?.category, "DECODE", bad);
  }
});

Deno.test("MFA: a WebAuthn challenge keeps GoTrue's credential options for the browser", async () => {
  const options = { challenge: "Y2hhbGxlbmdl", rpId: "example.com", allowCredentials: [] };
  const { auth } = makeAuth([
    jsonResponse({
      id: "c9",
      type: "webauthn",
      expires_at: 1700,
      webauthn: { type: "request", credential_options: { publicKey: options } },
    }),
    jsonResponse({ id: "c8", type: "totp", expires_at: 1700 }),
  ]);
  const c = (await auth.mfaChallenge(TOKEN, "f9")).getOrThrow();
  assert.deepEqual(c.webauthn, { type: "request", credentialOptions: { publicKey: options } });
  assert.equal((await auth.mfaChallenge(TOKEN, "f1")).getOrThrow().webauthn, null);
});

Deno.test("MFA: a WebAuthn verification without GoTrue's type or credential response is INVALID_ARGUMENT, nothing sent", async () => {
  const { auth, rec } = makeAuth(() => jsonResponse({ ...SESSION }));
  const credential = { id: "cred", response: {} };
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [
      { credentialResponse: credential },
      /'type' must be "create" or "request": current value is undefined/,
    ],
    [{ type: null, credentialResponse: credential }, /current value is null/],
    [{ type: "Create", credentialResponse: credential }, /current value is "Create"/],
    [{ type: "create" }, /'credentialResponse' is missing/],
    [{ type: "request", credentialResponse: null }, /'credentialResponse' is missing/],
  ];
  for (const [webauthn, message] of cases) {
    const e = (await auth.mfaVerify(TOKEN, "f1", "c1", "", { webauthn: webauthn as never }))
      .errorOrNull();
    assert.equal(e?.category, "INVALID_ARGUMENT", String(message));
    assert.match(e!.message, message);
  }
  assert.equal(rec.requests.length, 0);
  for (const type of ["create", "request"] as const) {
    assert.ok(
      (await auth.mfaVerify(TOKEN, "f1", "c1", "", {
        webauthn: { type, credentialResponse: credential },
      })).ok,
    );
    assert.deepEqual(rec.last.json(), {
      challenge_id: "c1",
      webauthn: { type, credential_response: credential },
    });
  }
});

Deno.test("MFA and passkeys: GoTrue's empty friendly name reads as null, as an absent one does", async () => {
  const { auth } = makeAuth([
    jsonResponse({
      id: "f1",
      type: "totp",
      friendly_name: "",
      totp: { qr_code: "", secret: "S", uri: "u" },
    }),
    jsonResponse({
      id: "u1",
      factors: [{ id: "f1", factor_type: "totp", status: "verified", friendly_name: "" }],
    }),
    jsonResponse({ id: "u1", factors: [{ id: "f1", factor_type: "totp", status: "verified" }] }),
    jsonResponse({ id: "pk1", friendly_name: "", created_at: "t" }),
    jsonResponse({ id: "f2", type: "phone", friendly_name: "work", phone: "+15550100" }),
  ]);
  assert.equal((await auth.mfaEnroll(TOKEN, "totp")).getOrThrow().friendlyName, null);
  assert.equal((await auth.mfaListFactors(TOKEN)).getOrThrow().all[0].friendlyName, null);
  assert.equal((await auth.mfaListFactors(TOKEN)).getOrThrow().all[0].friendlyName, null);
  const pk = (await auth.passkeyVerifyRegistration(TOKEN, "ch", { id: "c" })).getOrThrow();
  assert.equal(pk.friendlyName, null);
  const named = await auth.mfaEnroll(TOKEN, "phone", { phone: "+15550100", friendlyName: "work" });
  assert.equal(named.getOrThrow().friendlyName, "work");
});

Deno.test("GoTrue wire: error format version header; PKCE only where GoTrue takes it; consent details never retried", async () => {
  const { auth, rec } = makeAuth((req) =>
    req.url.pathname.includes("/oauth/authorizations/")
      ? new Response("bad gateway", { status: 502 })
      : jsonResponse({ id: "u1" })
  );
  // Phone sign-up: GoTrue refuses a challenge (400 "PKCE not supported for phone signups").
  await auth.signUpWithPhone("+15550100", "pw", { pkceParams: pkce });
  assert.equal(rec.last.headers.get("x-supabase-api-version"), "2024-01-01");
  const phone = rec.last.json() as Record<string, unknown>;
  assert.equal(phone.code_challenge, undefined);
  assert.equal(phone.code_challenge_method, undefined);
  // Resend of an email link and an email change carry it, so their links follow the PKCE flow.
  await auth.resendEmailOtp("signup", "a@x.io", { pkceParams: pkce });
  assert.equal((rec.last.json() as Record<string, unknown>).code_challenge, "challenge-123");
  assert.equal((rec.last.json() as Record<string, unknown>).code_challenge_method, "s256");
  await auth.resendPhoneOtp("sms", "+15550100");
  assert.equal((rec.last.json() as Record<string, unknown>).code_challenge, undefined);
  await auth.updateUser(TOKEN, { email: "new@x.io" }, { pkceParams: pkce });
  assert.deepEqual(rec.last.json(), {
    email: "new@x.io",
    code_challenge: "challenge-123",
    code_challenge_method: "s256",
  });
  await auth.updateUser(TOKEN, { data: { a: 1 } }, { pkceParams: pkce });
  assert.deepEqual(rec.last.json(), { data: { a: 1 } }, "no email change, no challenge");
  // Reading consent details may approve it: a lost answer is not asked again.
  const before = rec.requests.length;
  const details = await auth.oauthGetAuthorizationDetails(TOKEN, "az1");
  assert.equal(details.errorOrNull()?.status, 502);
  assert.equal(rec.requests.length, before + 1);
});

Deno.test("calls made for no user carry the API key as bearer, never the client's current (maybe lapsed) token", async () => {
  const { auth, rec } = makeAuth();
  auth.client.setAccessToken("lapsed-user-token-0123456789");
  await auth.refreshToken("refresh-1");
  assert.equal(rec.last.headers.get("authorization"), `Bearer ${KEY}`);
  await auth.signInWithEmail("a@x.io", "pw");
  assert.equal(rec.last.headers.get("authorization"), `Bearer ${KEY}`);
  await auth.getUser(TOKEN);
  assert.equal(rec.last.headers.get("authorization"), `Bearer ${TOKEN}`);
});

Deno.test("a server error echoing a refresh token, password or PKCE verifier shows none of them", async () => {
  const RT = "rt-Secret-0123456789abcdef";
  const PW = "correct horse battery staple";
  const echo = (req: { text?: string | null }) =>
    jsonResponse({ message: `rejected: ${req.text}`, code: `bad ${req.text}` }, { status: 400 });
  const { auth } = makeAuth((req) => echo(req));
  for (
    const r of [
      await auth.refreshToken(RT),
      await auth.signInWithEmail("a@x.io", PW),
      await auth.exchangeCodeForSession("code-1", "verifier-Secret-0123456789"),
    ]
  ) {
    const e = r.errorOrNull()!;
    const shown = `${e.message} ${e.code} ${String(e)} ${JSON.stringify(e)}`;
    for (const secret of [RT, PW, "verifier-Secret-0123456789"]) {
      assert.ok(!shown.includes(secret), shown);
    }
    assert.match(e.message, /\*\*\*/);
  }
});

Deno.test("signInWithOtp without options (a JavaScript caller) resolves INVALID_ARGUMENT with no request", async () => {
  const { auth, rec } = makeAuth(() => jsonResponse({}));
  const call = auth.signInWithOtp as (o?: unknown) => ReturnType<typeof auth.signInWithOtp>;
  const r = await call.call(auth);
  assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(r.errorOrNull()?.message ?? "", /exactly one of 'email' and 'phone'/);
  assert.equal(rec.requests.length, 0);
});

Deno.test("a LOCAL sign-out of a token that names no session sends nothing; other scopes go", async () => {
  // GoTrue's /logout loads no session for a token without session_id (or with the nil UUID) and
  // then ends every session of the user, whatever the scope: LOCAL would end them all.
  const { auth, rec } = makeAuth(() => new Response(null, { status: 204 }));
  const jwt = (payload: Record<string, unknown>) =>
    `e30.${encodeBase64Url(JSON.stringify(payload))}.sig`;
  const noSession = [
    jwt({ sub: "u1" }),
    jwt({ sub: "u1", session_id: null }),
    jwt({ sub: "u1", session_id: "" }),
    jwt({ sub: "u1", session_id: "00000000-0000-0000-0000-000000000000" }),
  ];
  for (const token of noSession) {
    assert.equal((await auth.signOut(token)).ok, true);
    assert.equal((await signOutLocal(auth, token)).ok, true);
  }
  // The call's signal is honoured as if the request had been made.
  const aborted = AbortSignal.abort();
  assert.equal(
    (await auth.signOut(noSession[0], { signal: aborted })).errorOrNull()?.category,
    "CANCELLED",
  );
  const notASignal = { signal: {} as AbortSignal };
  assert.equal(
    (await auth.signOut(noSession[0], notASignal)).errorOrNull()?.category,
    "INVALID_ARGUMENT",
  );
  assert.equal(rec.requests.length, 0);
  await signOutGlobal(auth, noSession[0]);
  assert.equal(rec.last.url.href, `${A}/logout?scope=global`);
  await signOutOthers(auth, noSession[0]);
  assert.equal(rec.last.url.href, `${A}/logout?scope=others`);
  // A token with a session, and one that is no JWT, go to the server as before.
  await auth.signOut(jwt({ sub: "u1", session_id: "6f1c1d2e-0000-4000-8000-000000000001" }));
  assert.equal(rec.last.url.href, `${A}/logout?scope=local`);
  await auth.signOut(TOKEN);
  assert.equal(rec.requests.length, 4);
});
