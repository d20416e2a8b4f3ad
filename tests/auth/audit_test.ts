// Findings of the audits of auth: password fields masked in renderings of
// an update request; malformed key ids and link options are Failures; an id
// that is a dot segment is refused; enrolment phones and consent emails masked.
import assert from "node:assert/strict";
import { userUpdateRequest } from "../../auth/mod.ts";
import { jsonResponse } from "../support/recording_fetch.ts";
import { makeAuth, SESSION, TOKEN } from "./_helpers.ts";

Deno.test("userUpdateRequest masks both passwords when printed; the request body still carries them", async () => {
  const update = userUpdateRequest({
    password: "new-secret-pw",
    currentPassword: "old-secret-pw",
    data: { plan: "pro" },
  });
  for (
    const rendering of [
      String(update),
      Deno.inspect(update),
      Deno.inspect({ nested: update }),
    ]
  ) {
    assert.ok(!rendering.includes("new-secret-pw"), rendering);
    assert.ok(!rendering.includes("old-secret-pw"), rendering);
    assert.ok(rendering.includes("pro"), rendering);
  }
  const { auth, rec } = makeAuth(() => jsonResponse(SESSION.user));
  assert.ok((await auth.updateUser(TOKEN, update)).ok);
  const body = rec.only.json() as Record<string, unknown>;
  assert.equal(body.password, "new-secret-pw");
  assert.equal(body.current_password, "old-secret-pw");
});

Deno.test("an id of '.' or '..' is refused before sending: a dot segment would take the call, with its token, to another route", async () => {
  const { auth, rec } = makeAuth(() => jsonResponse({}));
  const calls: Array<[string, () => Promise<{ ok: boolean; errorOrNull(): unknown }>]> = [];
  for (const id of [".", ".."]) {
    calls.push(
      [`mfaChallenge ${id}`, () => auth.mfaChallenge(TOKEN, id)],
      [`mfaVerify ${id}`, () => auth.mfaVerify(TOKEN, id, "challenge", "123456")],
      [`mfaUnenroll ${id}`, () => auth.mfaUnenroll(TOKEN, id)],
      [`passkeyUpdate ${id}`, () => auth.passkeyUpdate(TOKEN, id, "name")],
      [`passkeyDelete ${id}`, () => auth.passkeyDelete(TOKEN, id)],
      [`unlinkIdentity ${id}`, () => auth.unlinkIdentity(TOKEN, id)],
      [`oauthGetAuthorizationDetails ${id}`, () => auth.oauthGetAuthorizationDetails(TOKEN, id)],
      [`oauthApproveAuthorization ${id}`, () => auth.oauthApproveAuthorization(TOKEN, id)],
      [`oauthDenyAuthorization ${id}`, () => auth.oauthDenyAuthorization(TOKEN, id)],
    );
  }
  for (const [name, call] of calls) {
    const r = await call();
    assert.equal(r.ok, false, name);
    const e = r.errorOrNull() as { category: string; message: string };
    assert.equal(e.category, "INVALID_ARGUMENT", name);
    assert.match(e.message, /must not be '\.\.?'/, name);
  }
  assert.equal(rec.requests.length, 0);
  // Ids that only contain dots are ids: they go out encoded as one segment.
  assert.ok((await auth.mfaUnenroll(TOKEN, "...")).ok);
  assert.equal(new URL(rec.only.url).pathname, "/auth/v1/factors/...");
});

Deno.test("a phone factor's number and a consent page's user email are masked in renderings, kept in JSON", async () => {
  const { auth } = makeAuth((req) =>
    new URL(req.url).pathname.endsWith("/factors")
      ? jsonResponse({ id: "f1", type: "phone", friendly_name: "mine", phone: "+15550100" })
      : jsonResponse({
        authorization_id: "az",
        redirect_uri: "https://app.example/cb",
        client: { id: "c", name: "App" },
        user: { id: "u1", email: "alice@secret.example" },
        scope: "openid",
      })
  );
  const enrolled = (await auth.mfaEnroll(TOKEN, "phone", { phone: "+15550100" })).getOrThrow();
  const details = (await auth.oauthGetAuthorizationDetails(TOKEN, "az")).getOrThrow();
  for (const rendering of [String(enrolled), Deno.inspect(enrolled), Deno.inspect({ enrolled })]) {
    assert.ok(!rendering.includes("5550100"), rendering);
    assert.ok(rendering.includes("mine"), rendering);
  }
  for (const rendering of [String(details.user), Deno.inspect(details), Deno.inspect([details])]) {
    assert.ok(!rendering.includes("alice@"), rendering);
    assert.ok(rendering.includes("u1"), rendering);
  }
  assert.equal(enrolled.phone, "+15550100");
  assert.equal(JSON.parse(JSON.stringify(details)).user.email, "alice@secret.example");
});

Deno.test("signInWithOAuth's queryParams cannot repeat a parameter the builder sets (GoTrue reads the first)", () => {
  const { auth } = makeAuth();
  for (const key of ["redirect_to", "code_challenge_method", "Provider", "skip_http_redirect"]) {
    assert.throws(
      () => auth.signInWithOAuth("google", { queryParams: { [key]: "https://evil.example" } }),
      (e: unknown) => e instanceof TypeError && e.message.includes("queryParams"),
      key,
    );
  }
  const url = new URL(
    auth.signInWithOAuth("google", {
      redirectTo: "https://app.example/cb",
      queryParams: { access_type: "offline", prompt: "consent" },
    }).url,
  );
  assert.deepEqual(url.searchParams.getAll("redirect_to"), ["https://app.example/cb"]);
  assert.equal(url.searchParams.get("access_type"), "offline");
  // URLSearchParams (as supabase-js wraps them) and a Map go as their pairs (they went as
  // nothing); a string is refused (it went as one parameter per character).
  for (
    const given of [
      new URLSearchParams({ access_type: "offline", prompt: "consent" }),
      new Map([["access_type", "offline"], ["prompt", "consent"]]),
    ]
  ) {
    const q = new URL(
      auth.signInWithOAuth("google", {
        queryParams: given as unknown as Record<string, string>,
      }).url,
    ).searchParams;
    assert.equal(q.get("access_type"), "offline");
    assert.equal(q.get("prompt"), "consent");
  }
  assert.throws(
    () =>
      auth.signInWithOAuth("google", {
        queryParams: new URLSearchParams({ state: "x" }) as unknown as Record<string, string>,
      }),
    (e: unknown) => e instanceof TypeError && /'state'/.test(e.message),
  );
  assert.throws(
    () =>
      auth.signInWithOAuth("google", {
        queryParams: "prompt=consent" as unknown as Record<string, string>,
      }),
    (e: unknown) => e instanceof TypeError && /'queryParams' must be a record/.test(e.message),
  );
});

Deno.test("linkIdentity with a plain PKCE challenge keeps it (the verifier itself) out of a failure quoting the URL", async () => {
  const verifier = "v".repeat(43);
  const { auth } = makeAuth(() => {
    throw new TypeError(
      `error sending request for url (https://p.example/auth/v1/user/identities/authorize?provider=github&code_challenge=${verifier}&code_challenge_method=plain)`,
    );
  });
  const r = await auth.linkIdentity(TOKEN, "github", {
    pkceParams: { codeVerifier: verifier, codeChallenge: verifier, codeChallengeMethod: "plain" },
  });
  assert.equal(r.errorOrNull()?.category, "NETWORK");
  const shown = [r.errorOrNull()!.message, Deno.inspect(r.errorOrNull(), { depth: 10 })].join();
  assert.ok(!shown.includes(verifier), shown);
});

Deno.test("linkIdentityWithIdToken refuses a blank access token before sending the id token", async () => {
  for (const token of ["", "  "]) {
    const { auth, rec } = makeAuth(() => jsonResponse(SESSION));
    const r = await auth.linkIdentityWithIdToken(token, "google", "provider-id-token-1");
    assert.equal(r.ok, false);
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
    assert.match(r.errorOrNull()!.message, /'accessToken' is blank/);
    // The provider's id token never went out under the API key.
    assert.equal(rec.requests.length, 0);
  }
});

Deno.test("a GoTrue answer that never ends is cut at 8 MiB (DECODE), not read into memory until the timeout", async () => {
  let sent = 0;
  const endless = () =>
    new Response(
      new ReadableStream<Uint8Array>({
        // A network's pace: each piece after a turn of the event loop, where timers run.
        async pull(c) {
          await new Promise((resolve) => setTimeout(resolve, 0));
          const piece = new TextEncoder().encode(`{"id":"u1","pad":"${"x".repeat(65_000)}`);
          sent += piece.length;
          c.enqueue(piece);
        },
      }),
      { headers: { "content-type": "application/json" } },
    );
  const { auth } = makeAuth(endless);
  const started = Date.now();
  const user = await auth.getUser(TOKEN, { timeout: 5_000 });
  assert.equal(user.errorOrNull()?.category, "DECODE");
  assert.match(user.errorOrNull()!.message, /exceeds 8388608 bytes/);
  assert.ok(sent < 16 * 1024 * 1024, `${sent} bytes read`);
  assert.ok(Date.now() - started < 5_000);
  // The JWKS text and a link's answer are cut the same way.
  const jwks = await makeAuth(endless).auth.getJwks();
  assert.equal(jwks.errorOrNull()?.category, "DECODE");
  const link = await makeAuth(endless).auth.linkIdentity(TOKEN, "github");
  assert.equal(link.errorOrNull()?.category, "DECODE");
});

Deno.test("a password or an email of the wrong type is INVALID_ARGUMENT naming it and its type, never its value, before anything is sent", async () => {
  const { auth, rec } = makeAuth();
  const cases: Array<[string, () => Promise<{ errorOrNull(): { message: string } | null }>]> = [
    [
      "Cannot sign up as 'password' must be text, not a number",
      () => auth.signUpWithEmail("a@b.example", 123456 as never),
    ],
    [
      "Cannot sign up as 'password' must be text, not null",
      () => auth.signUpWithPhone("+15550100", null as never),
    ],
    [
      "Cannot sign in as 'password' must be text, not an object",
      () => auth.signInWithEmail("a@b.example", { p: 123456 } as never),
    ],
    [
      "Cannot sign in as 'password' must be text, not undefined",
      () => auth.signInWithPhone("+15550100", undefined as never),
    ],
    // supabase-js's shape, `signInWithPassword({ email, password })`, given to the email helper.
    [
      "Cannot sign in as 'email' must be text, not an object",
      () => auth.signInWithEmail({ email: "a@b.example" } as never, "pw-123456"),
    ],
    ["Cannot sign in as 'email' is blank", () => auth.signInWithEmail(" ", "pw-123456")],
    [
      "Cannot update the user as 'password' must be text, not a number",
      () => auth.updateUser(TOKEN, { password: 123456 as never }),
    ],
  ];
  for (const [message, call] of cases) {
    const r = await call();
    assert.equal(r.errorOrNull()?.message, message);
    assert.ok(!message.includes("123456"));
  }
  assert.equal(rec.requests.length, 0);
});
