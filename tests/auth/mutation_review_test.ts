/**
 * Tests written from a second mutation review of `auth/` (twenty-eighth session): each pins a
 * behaviour that a one-line change of the sources left unnoticed by the other tests. Each test
 * name starts with its mutant's id.
 */
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createAuthClient } from "../../auth/mod.ts";
import { jsonResponse } from "../support/recording_fetch.ts";
import { KEY, makeAuth } from "./_helpers.ts";

// SI27 auth/sign_in.ts:314  verifyOtp must refuse both email and phone.
Deno.test("SI27 verifyOtp refuses email AND phone together, sending nothing", async () => {
  const { auth, rec } = makeAuth();
  const r = await auth.verifyOtp("123456", "sms", { email: "a@x.io", phone: "+15550001" });
  assert.equal(r.ok, false);
  assert.equal(!r.ok && r.error.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 0);
});

// SI33 auth/sign_in.ts:361  resend must refuse a blank email / phone locally.
Deno.test("SI33 resendEmailOtp/resendPhoneOtp refuse a blank target, sending nothing", async () => {
  const { auth, rec } = makeAuth(() => jsonResponse({}));
  for (
    const r of [await auth.resendEmailOtp("signup", "  "), await auth.resendPhoneOtp("sms", "")]
  ) {
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.error.category, "INVALID_ARGUMENT");
  }
  assert.equal(rec.requests.length, 0);
});

// SI38 auth/sign_in.ts:424  the PKCE exchange must refuse a blank code verifier.
Deno.test("SI38 exchangeCodeForSession refuses a blank codeVerifier, sending nothing", async () => {
  const { auth, rec } = makeAuth();
  const r = await auth.exchangeCodeForSession("auth-code-1", " ");
  assert.equal(r.ok, false);
  assert.equal(!r.ok && r.error.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 0);
});

// SI03 auth/sign_in.ts:77  a blank sign-up password goes to GoTrue (its weak_password answer), as
// a blank sign-in password does: only a non-string is refused locally.
Deno.test("SI03 signUpWithEmail sends a blank password to the server", async () => {
  const { auth, rec } = makeAuth();
  await auth.signUpWithEmail("a@x.io", "");
  assert.equal(rec.requests.length, 1);
  assert.equal((rec.only.json() as { password: string }).password, "");
});

// SI25 auth/sign_in.ts:289  a phone OTP carries no redirect_to even when emailRedirectTo is set.
Deno.test("SI25 signInWithOtp by phone sends no redirect_to", async () => {
  const { auth, rec } = makeAuth(() => jsonResponse({}));
  const r = await auth.signInWithOtp({
    phone: "+15550001",
    emailRedirectTo: "https://app.example/cb",
  });
  assert.ok(r.ok);
  assert.equal(rec.only.url.searchParams.has("redirect_to"), false);
});

// SI40 auth/sign_in.ts:340  verifyOtpWithTokenHash refuses a blank token hash locally.
Deno.test("SI40 verifyOtpWithTokenHash refuses a blank tokenHash, sending nothing", async () => {
  const { auth, rec } = makeAuth();
  const r = await auth.verifyOtpWithTokenHash("   ", "email");
  assert.equal(r.ok, false);
  assert.equal(!r.ok && r.error.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 0);
});

// RQ05 auth/_request.ts:105  a token hash GoTrue's error echoes is redacted, as a token is.
Deno.test("RQ05 an echoed token_hash is redacted from the failure", async () => {
  const HASH = "pkce_6f1c0f2e9a7b4d3c8e5a1b2c3d4e5f60";
  const { auth } = makeAuth(() =>
    jsonResponse({ code: "otp_expired", message: `Token ${HASH} has expired or is invalid` }, {
      status: 403,
    })
  );
  const e = (await auth.verifyOtpWithTokenHash(HASH, "email")).errorOrNull()!;
  assert.equal(e.code, "otp_expired");
  assert.ok(
    !JSON.stringify([e.message, e.details, String(e.cause ?? "")]).includes(HASH),
    e.message,
  );
});

// RQ06 auth/_request.ts:107  a reauthentication nonce GoTrue's error echoes is redacted.
Deno.test("RQ06 an echoed reauthentication nonce is redacted from the failure", async () => {
  const NONCE = "493817";
  const { auth } = makeAuth(() =>
    jsonResponse({ code: "reauthentication_not_valid", message: `Nonce ${NONCE} is not valid` }, {
      status: 400,
    })
  );
  const e =
    (await auth.updateUser("user-access-token-xyz", { password: "NewPassw0rd!x", nonce: NONCE }))
      .errorOrNull()!;
  assert.equal(e.code, "reauthentication_not_valid");
  assert.ok(!JSON.stringify([e.message, e.details]).includes(NONCE), e.message);
});

// MF06 auth/mfa.ts:73 and MF12 auth/mfa.ts:95  a blank factor or challenge id is refused locally
// (it would otherwise post to /factors//challenge, or verify no challenge, with the user's token).
Deno.test("MF06 mfaChallenge refuses a blank factorId, sending nothing", async () => {
  const { auth, rec } = makeAuth(() => jsonResponse({ id: "c1" }));
  const r = await auth.mfaChallenge("user-access-token-xyz", " ");
  assert.equal(!r.ok && r.error.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 0);
});
Deno.test("MF12 mfaVerify refuses a blank challengeId, sending nothing", async () => {
  const { auth, rec } = makeAuth();
  const r = await auth.mfaVerify("user-access-token-xyz", "f1", "", "123456");
  assert.equal(!r.ok && r.error.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 0);
});

// MF19 auth/mfa.ts:143  mfaUnenroll refuses a blank factor id (it would DELETE /factors/).
Deno.test("MF19 mfaUnenroll refuses a blank factorId, sending nothing", async () => {
  const { auth, rec } = makeAuth(() => jsonResponse({ id: "f1" }));
  const r = await auth.mfaUnenroll("user-access-token-xyz", "");
  assert.equal(!r.ok && r.error.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 0);
});

// DC03 auth/_decoders.ts:102  an unverified WebAuthn factor is not listed among verified ones.
Deno.test("DC03 mfaListFactors lists only verified WebAuthn factors under webauthn", async () => {
  const user = {
    id: "u1",
    factors: [
      { id: "w1", factor_type: "webauthn", status: "unverified" },
      { id: "w2", factor_type: "webauthn", status: "verified" },
    ],
  };
  const { auth } = makeAuth(() => jsonResponse(user));
  const r = await auth.mfaListFactors("user-access-token-xyz");
  assert.ok(r.ok);
  assert.deepEqual(r.value.webauthn.map((f) => f.id), ["w2"]);
  assert.equal(r.value.all.length, 2);
});

// DC04 auth/_decoders.ts:61  an SVG QR code after leading whitespace is still made a data URI.
Deno.test("DC04 an enrolment's SVG QR code with leading whitespace becomes a data URI", async () => {
  const { auth } = makeAuth(() =>
    jsonResponse({
      id: "f1",
      type: "totp",
      totp: {
        qr_code: "\n  <svg xmlns='http://www.w3.org/2000/svg'></svg>",
        secret: "S",
        uri: "otpauth://x",
      },
    })
  );
  const r = await auth.mfaEnroll("user-access-token-xyz", "totp");
  assert.ok(r.ok);
  assert.ok(r.value.totp!.qrCode.startsWith("data:image/svg+xml;utf-8,"), r.value.totp!.qrCode);
});

// RQ12/RQ13/RQ14/RQ20 auth/_request.ts:219-222  what a redirect_to's query counts as a credential
// when a gateway's page (or a network error) quotes the request URL.
function gateway() {
  return createAuthClient(createBaseClient("https://p.example", KEY, {
    retry: { maxAttempts: 1 },
    fetch: (input: RequestInfo | URL) =>
      Promise.resolve(new Response(`<p>Blocked: ${String(input)}</p>`, { status: 403 })),
  }));
}
async function quoted(redirectTo: string): Promise<string> {
  const r = await gateway().resetPasswordForEmail("a@b.example", { redirectTo });
  const e = r.errorOrNull()!;
  assert.match(e.message, /redirect_to=/);
  return `${e.message} ${e.details ?? ""}`;
}
Deno.test("RQ12 a short 'state' value in redirectTo is hidden (its key names a credential)", async () => {
  const shown = await quoted("https://app.example/cb?state=xyzzyq");
  assert.ok(!shown.includes("xyzzyq"), shown);
});
Deno.test("RQ13 a 16-character random-looking value under a neutral key is hidden", async () => {
  const shown = await quoted("https://app.example/cb?ref=a1b2c3d4e5f6g7h8");
  assert.ok(!shown.includes("a1b2c3d4e5f6g7h8"), shown);
});
Deno.test("RQ14 a state with '/' is hidden also in its percent-encoded form", async () => {
  const shown = await quoted("https://app.example/cb?state=ab/cd/ef/gh/ij");
  assert.ok(!shown.includes("ab%2Fcd%2Fef"), shown);
  assert.ok(!shown.includes("ab/cd/ef"), shown);
});
Deno.test("credentials in the fragment of a redirectTo are hidden too", async () => {
  const shown = await quoted(
    "https://app.example/cb?next=home#access_token=frag-secret-9&state=st8te9",
  );
  assert.ok(!shown.includes("frag-secret-9"), shown);
  assert.ok(!shown.includes("st8te9"), shown);
  assert.ok(shown.includes("next%3Dhome"), shown);
});
Deno.test("RQ20 a long path value without digits (no credential) is not blanked", async () => {
  const shown = await quoted("https://app.example/cb?next=/home/dashboard/settings");
  assert.ok(shown.includes("%2Fhome%2Fdashboard%2Fsettings"), shown);
});

// DC08 auth/_decoders.ts:112  passkey options without expires_at decode with expiresAt 0.
Deno.test("DC08 passkey options without expires_at have expiresAt 0", async () => {
  const { auth } = makeAuth(() => jsonResponse({ challenge_id: "c1", options: {} }));
  const r = await auth.passkeyStartAuthentication();
  assert.ok(r.ok);
  assert.equal(r.value.expiresAt, 0);
});

// SI31 auth/sign_in.ts:373  a phone resend never carries a PKCE challenge (GoTrue refuses PKCE
// for phone flows), even when options holding pkceParams are passed through.
Deno.test("SI31 resendPhoneOtp sends no code_challenge", async () => {
  const { auth, rec } = makeAuth(() => jsonResponse({}));
  const options = { pkceParams: { codeVerifier: "v".repeat(43), codeChallenge: "c".repeat(43) } };
  const r = await auth.resendPhoneOtp("sms", "+15550001", options as never);
  assert.ok(r.ok);
  const body = rec.only.json() as Record<string, unknown>;
  assert.equal("code_challenge" in body, false);
  assert.equal("code_challenge_method" in body, false);
});

// US14 auth/user.ts:144  signOut refuses a scope that is no SignOutScope, sending nothing.
Deno.test("US14 signOut refuses an unknown scope", async () => {
  const { auth, rec } = makeAuth(() => new Response(null, { status: 204 }));
  const r = await auth.signOut("user-access-token-xyz", { scope: "everything" as never });
  assert.equal(!r.ok && r.error.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 0);
});

// US21 auth/user.ts:225  unlinkIdentity refuses a blank identity id (DELETE /user/identities/).
Deno.test("US21 unlinkIdentity refuses a blank identityId", async () => {
  const { auth, rec } = makeAuth(() => new Response(null, { status: 204 }));
  const r = await auth.unlinkIdentity("user-access-token-xyz", " ");
  assert.equal(!r.ok && r.error.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 0);
});

// US29 auth/user.ts:81 and US30 auth/user.ts:78  updateUser checks currentPassword/nonce are text
// and that updates is an object, before sending anything.
Deno.test("US29 updateUser refuses a currentPassword or nonce that is not text", async () => {
  const { auth, rec } = makeAuth();
  for (const updates of [{ password: "NewPassw0rd!x", currentPassword: 1234 }, { nonce: 493817 }]) {
    const r = await auth.updateUser("user-access-token-xyz", updates as never);
    assert.equal(!r.ok && r.error.category, "INVALID_ARGUMENT", JSON.stringify(updates));
  }
  assert.equal(rec.requests.length, 0);
});
Deno.test("US30 updateUser refuses updates that are not an object", async () => {
  const { auth, rec } = makeAuth();
  const r = await auth.updateUser("user-access-token-xyz", "email=a@b.c" as never);
  assert.equal(!r.ok && r.error.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 0);
});

// PK04 auth/pkce.ts:89  a custom sha256 must return exactly 32 bytes (33 is refused, not cut).
import { pkceChallengeS256 } from "../../auth/mod.ts";
Deno.test("PK04 pkceChallengeS256 refuses a sha256 that returns more than 32 bytes", async () => {
  await assert.rejects(() => pkceChallengeS256("verifier", () => new Uint8Array(33)), TypeError);
});

// PK08 auth/pkce.ts:96  without WebCrypto the S256 challenge fails with the documented TypeError.
Deno.test("PK08 pkceChallengeS256 without WebCrypto names the cause", async () => {
  const desc = Object.getOwnPropertyDescriptor(globalThis, "crypto")!;
  Object.defineProperty(globalThis, "crypto", { value: {}, configurable: true, writable: true });
  try {
    await assert.rejects(() => pkceChallengeS256("verifier"), {
      name: "TypeError",
      message: /WebCrypto SHA-256 is unavailable/,
    });
  } finally {
    Object.defineProperty(globalThis, "crypto", desc);
  }
});

// PU04/PU10/PU12/PU13/PU14/PU15 auth/_provider_url.ts  the OAuth URL builder's argument checks.
import { getOAuthSignInUrl } from "../../auth/mod.ts";
const urlAuth = () => makeAuth().auth;
Deno.test("PU04 a 'State' query parameter (any case) is refused", () => {
  assert.throws(
    () => getOAuthSignInUrl(urlAuth(), "github", { queryParams: { State: "x" } }),
    TypeError,
  );
});
Deno.test("PU10 a number or boolean query parameter goes as its text", () => {
  const url = getOAuthSignInUrl(urlAuth(), "github", {
    queryParams: { max_age: 0, x: true } as never,
  });
  assert.match(url, /[?&]max_age=0(&|$)/);
  assert.match(url, /[?&]x=true(&|$)/);
});
Deno.test("PU12 a whitespace-only provider is refused", () => {
  assert.throws(() => getOAuthSignInUrl(urlAuth(), "   "), TypeError);
});
Deno.test("PU13 a scope that is not a string is refused", () => {
  assert.throws(
    () => getOAuthSignInUrl(urlAuth(), "github", { scopes: ["repo", 7] as never }),
    TypeError,
  );
});
Deno.test("PU14 scopes that are not a list are refused", () => {
  assert.throws(() => getOAuthSignInUrl(urlAuth(), "github", { scopes: {} as never }), TypeError);
});
Deno.test("PU15 query parameters that are not name/value pairs are refused", () => {
  assert.throws(
    () => getOAuthSignInUrl(urlAuth(), "github", { queryParams: new Set(["ab"]) as never }),
    TypeError,
  );
});

// PS04/PS13/PS14 auth/passkeys.ts  blank ids are refused locally (never spent on the server).
Deno.test("PS04 passkeyVerifyRegistration refuses a blank challengeId", async () => {
  const { auth, rec } = makeAuth(() => jsonResponse({ id: "p1" }));
  const r = await auth.passkeyVerifyRegistration("user-access-token-xyz", "", { id: "cred" });
  assert.equal(!r.ok && r.error.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 0);
});
Deno.test("PS13 passkeyDelete refuses a blank passkeyId", async () => {
  const { auth, rec } = makeAuth(() => new Response(null, { status: 204 }));
  const r = await auth.passkeyDelete("user-access-token-xyz", " ");
  assert.equal(!r.ok && r.error.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 0);
});
Deno.test("PS14 approving or denying refuses a blank authorizationId", async () => {
  const { auth, rec } = makeAuth(() => jsonResponse({ redirect_url: "https://x" }));
  for (
    const r of [
      await auth.oauthApproveAuthorization("user-access-token-xyz", ""),
      await auth.oauthDenyAuthorization("user-access-token-xyz", "  "),
    ]
  ) assert.equal(!r.ok && r.error.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 0);
});

// JD01 auth/_jwt_decode.ts:111  a token of exactly MAX_JWT_LENGTH characters is accepted.
import { MAX_JWT_LENGTH, parseJwtClaims } from "../../auth/mod.ts";
Deno.test("JD01 a token of exactly MAX_JWT_LENGTH characters parses", () => {
  const b64 = (o: unknown) =>
    btoa(JSON.stringify(o)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  for (let pad = 0;; pad++) {
    const head = `e30.${b64({ sub: "u1", pad: "x".repeat(24_000 + pad) })}`;
    const rest = MAX_JWT_LENGTH - head.length - 1;
    if (rest % 4 === 1) continue;
    const token = `${head}.${"A".repeat(rest)}`;
    assert.equal(token.length, MAX_JWT_LENGTH);
    assert.ok(parseJwtClaims(token).ok);
    assert.equal(parseJwtClaims(token + "AAAA").ok, false);
    return;
  }
});

// JD08 auth/_jwt_decode.ts:49  a part whose last character sets bits past the data is refused
// (no second spelling of a signature).
Deno.test("JD08 a non-canonical two-character signature is refused", () => {
  assert.ok(parseJwtClaims("e30.e30.AA").ok);
  const r = parseJwtClaims("e30.e30.AE");
  assert.equal(r.ok, false);
  assert.equal(!r.ok && r.error.code, "bad_jwt");
});

// GC04 auth/get_claims.ts:98  a malformed 'crit' (empty, or holding a non-string) is bad_jwt, not
// an unsupported extension.
import { getClaims } from "../../auth/mod.ts";
Deno.test("GC04 a malformed crit header is rejected as bad_jwt", async () => {
  const b64 = (o: unknown) =>
    btoa(JSON.stringify(o)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  const { auth, rec } = makeAuth();
  const exp = Math.floor(Date.now() / 1000) + 600;
  for (const crit of [[], [1]]) {
    const token = `${b64({ alg: "ES256", kid: "k1", crit })}.${b64({ sub: "u1", exp })}.${
      "A".repeat(86)
    }`;
    const r = await getClaims(auth, token);
    assert.equal(!r.ok && r.error.code, "bad_jwt", JSON.stringify(crit));
  }
  assert.equal(rec.requests.length, 0);
});
