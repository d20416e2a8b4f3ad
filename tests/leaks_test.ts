// Secrets that reached a Failure or a rendering by paths a review found: fields of a request body
// not listed as secrets, a token in its percent-encoded form, a pre-signed upload URL's token
// named alone or quoted by a URL store, a server's per-item text, a session written after a merge,
// and model fields that hold a one-time code or an image of a TOTP secret.
import assert from "node:assert/strict";
import { createAuthClient, generateOAuthState, userUpdateRequest } from "../auth/mod.ts";
import { createBaseClient } from "../core/client.ts";
import {
  createSessionManager,
  type Session,
  type SessionStorage,
  signInWithEmailAndSaveSession,
  updateUserForCurrentSession,
} from "../session/mod.ts";
import { createResumableUpload, createStorageClient } from "../storage/mod.ts";
import { jsonResponse } from "./support/recording_fetch.ts";

const KEY = "anon-key-123456";

/** Every way a result or error is commonly printed or kept. */
function renderings(x: unknown): string {
  const parts = [String(x), Deno.inspect(x, { depth: 20, showHidden: true })];
  try {
    parts.push(JSON.stringify(x) ?? "");
  } catch {
    // A value JSON cannot write is shown by the others.
  }
  let cause = (x as { error?: { cause?: unknown } })?.error?.cause;
  for (let i = 0; cause !== undefined && cause !== null && i < 8; i++) {
    parts.push(String(cause), (cause as Error).stack ?? "");
    cause = (cause as Error).cause;
  }
  return parts.join("\n");
}

function assertHidden(x: unknown, secrets: Record<string, string>): void {
  const text = renderings(x);
  for (const [name, secret] of Object.entries(secrets)) {
    for (const form of new Set([secret, encodeURIComponent(secret)])) {
      assert.ok(!text.includes(form), `${name} shows (as ${form}):\n${text.slice(0, 2000)}`);
    }
  }
}

/** Auth clients whose server echoes each request's body in a 400, or whose fetch quotes it in a network error. */
function echoingAuthClients() {
  const echo = (_u: string, body: string) =>
    jsonResponse({ msg: `Bad request: ${body}` }, { status: 400 });
  const net = (u: string, body: string): Response => {
    throw new TypeError(`error sending request for url (${u}) body=${body}`);
  };
  return [echo, net].map((answer) =>
    createAuthClient(createBaseClient("https://p.example", KEY, {
      retry: { maxAttempts: 1 },
      fetch: (input: RequestInfo | URL, init?: RequestInit) =>
        Promise.resolve().then(() => answer(String(input), String(init?.body))),
    }))
  );
}

Deno.test("a provider's ID and access tokens and a PKCE authorization code echoed by the server or quoted by a network error stay hidden", async () => {
  const PROVIDER_AT = "ya29.a0AfH6SMB0paqueProviderAccessToken";
  const ID_TOKEN = "idtok0paque-not-a-jwt";
  const CODE = "ac0de-0paque-1234-5678";
  for (const auth of echoingAuthClients()) {
    const signIn = await auth.signInWithIdToken("google", ID_TOKEN, { accessToken: PROVIDER_AT });
    assert.equal(signIn.ok, false);
    assertHidden(signIn, { PROVIDER_AT, ID_TOKEN });
    const exchanged = await auth.exchangeCodeForSession(
      CODE,
      "cv_V3rifi3r-0paque_abcdefghijklmnopqrstuvwxyz0123456789",
    );
    assert.equal(exchanged.ok, false);
    assertHidden(exchanged, { CODE });
  }
});

Deno.test("a captcha token (sent nested in gotrue_meta_security) echoed by the server or quoted by a network error stays hidden", async () => {
  const CAPTCHA = "P1_captchaTokenSecret0123456789";
  for (const auth of echoingAuthClients()) {
    const o = { captchaToken: CAPTCHA };
    for (
      const r of [
        await auth.signInWithEmail("a@x.io", "correct-horse-battery", o),
        await auth.signUpWithEmail("a@x.io", "correct-horse-battery", o),
        await auth.signInAnonymously(o),
        await auth.resetPasswordForEmail("a@x.io", o),
        await auth.passkeyStartAuthentication(o),
      ]
    ) {
      assert.equal(r.ok, false);
      assert.match(renderings(r), /gotrue_meta_security|captcha_token/);
      assertHidden(r, { CAPTCHA });
    }
  }
});

Deno.test("a signed upload token that is no JWT stays hidden in its percent-encoded form, as a runtime's network error shows it", async () => {
  const TOKEN = "AbC+dEf/GhI0paqueSign3dT0k3n==";
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (closed.addr as Deno.NetAddr).port;
  closed.close();
  const storage = createStorageClient(
    createBaseClient(`http://127.0.0.1:${port}`, KEY, { retry: { maxAttempts: 1 } }),
  );
  const r = await storage.uploadToSignedUrl("b", "k.txt", TOKEN, "data");
  assert.equal(r.errorOrNull()?.category, "NETWORK");
  // The runtime's own words are kept, with the token out of them.
  assert.match(renderings(r), /\/object\/upload\/sign\/b\/k\.txt\?token=\*\*\*/);
  assertHidden(r, { TOKEN });
});

Deno.test("a pre-signed resumable upload URL's token stays hidden when the server names it alone, when a URL store quotes it, and when a refused uploadUrl is shown", async () => {
  const TOKEN = "tusT0kenOPAQUEvalue99";
  const created = createBaseClient("https://p.example", KEY, {
    retry: { maxAttempts: 1 },
    fetch: (_input: RequestInfo | URL, init?: RequestInit) =>
      Promise.resolve(
        init?.method === "POST"
          ? new Response(null, {
            status: 201,
            headers: {
              location: `/storage/v1/upload/resumable/abc?token=${TOKEN}&expires=9`,
              "upload-offset": "0",
            },
          })
          : jsonResponse({ message: `token ${TOKEN} is expired` }, { status: 403 }),
      ),
  });
  const refused = await createResumableUpload(created, "b", "k", new Uint8Array(8), {
    maxAttempts: 1,
    creationWithUpload: false,
  }).await();
  assert.equal(refused.errorOrNull()?.status, 403);
  assert.match(refused.errorOrNull()!.message, /token \*\*\* is expired/);
  assertHidden(refused, { TOKEN });

  const saved = `https://p.example/storage/v1/upload/resumable/abc?token=${TOKEN}`;
  const client = createBaseClient("https://p.example", KEY, {
    fetch: () => Promise.resolve(new Response(null, { status: 204 })),
  });
  const storeFailed = await createResumableUpload(client, "b", "k", new Uint8Array(4), {
    urlStore: {
      get: () => {
        throw new Error(`stale entry: ${saved}`);
      },
      set: () => {},
      remove: () => {},
    },
  }).await();
  assert.equal(storeFailed.errorOrNull()?.category, "UNKNOWN");
  assert.match(storeFailed.errorOrNull()!.message, /stale entry: .*\?token=\*\*\*/);
  assertHidden(storeFailed, { TOKEN });

  assert.throws(
    () =>
      createResumableUpload(client, "b", "k", new Uint8Array(1), {
        uploadUrl: `//p.example/storage/v1/upload/resumable/x?token=${TOKEN}`,
      }),
    (e: unknown) =>
      e instanceof TypeError && e.message.includes("'uploadUrl' must be an http or https URL") &&
      !e.message.includes("tusT0ken"),
  );
});

Deno.test("a server's words for a path it would not sign are shown without the client's key and token", async () => {
  const API_KEY = "sb_publishable_0paqueKEY12345";
  const TOKEN = "userAccessT0kenOpaque99";
  const client = createBaseClient("https://p.example", API_KEY, {
    accessToken: TOKEN,
    fetch: (_input: RequestInfo | URL, init?: RequestInit) => {
      const h = init?.headers as Record<string, string>;
      return Promise.resolve(jsonResponse([{
        path: "k",
        signedURL: null,
        error: `not authorized (apikey=${h.apikey}, ${h.authorization})`,
      }]));
    },
  });
  const r = await createStorageClient(client).createSignedUrls("b", ["k"], 60);
  assert.equal(r.errorOrNull()?.category, "NOT_FOUND");
  assert.match(r.errorOrNull()!.message, /^Cannot sign "k": not authorized \(apikey=\*\*\*/);
  assertHidden(r, { API_KEY, TOKEN });
});

Deno.test("a session storage that quotes what it was given, failing a user update merged into another tab's newer tokens, does not show those tokens", async () => {
  const b64 = (o: unknown) =>
    btoa(JSON.stringify(o)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  const jwt = (p: Record<string, unknown>) => `${b64({ alg: "HS256" })}.${b64(p)}.c2lnbmF0dXJl`;
  const now = Math.floor(Date.now() / 1000);
  const user = { id: "u1", email: "a@b.example" };
  let stored: Session | null = null;
  let failSave = false;
  const storage: SessionStorage = {
    save(s) {
      if (failSave) throw new Error(`quota exceeded writing ${JSON.stringify(s)}`);
      stored = JSON.parse(JSON.stringify(s));
    },
    load: () => stored,
    clear() {
      stored = null;
    },
  };
  const client = createBaseClient("https://p.example", KEY, {
    fetch: (input: RequestInfo | URL) =>
      Promise.resolve(
        String(input).includes("/token")
          ? jsonResponse({
            access_token: jwt({ sub: "u1", session_id: "s1", iat: now - 100, exp: now + 3600 }),
            refresh_token: "refreshONE0paque11",
            expires_in: 3600,
            expires_at: now + 3600,
            token_type: "bearer",
            user,
          })
          : jsonResponse({ ...user, user_metadata: { x: 1 } }),
      ),
  });
  const auth = createAuthClient(client);
  const manager = createSessionManager(auth, client, { storage, autoRefresh: false });
  try {
    assert.ok((await signInWithEmailAndSaveSession(auth, manager, "a@b.example", "pw-123456")).ok);
    // Another tab refreshed: the storage holds the same session's next tokens.
    const NEXT = "refreshTWO0paque22";
    stored = {
      ...JSON.parse(JSON.stringify(stored)),
      accessToken: jwt({ sub: "u1", session_id: "s1", iat: now - 10, exp: now + 3700 }),
      refreshToken: NEXT,
      expiresAt: now + 3700,
    };
    failSave = true;
    const r = await updateUserForCurrentSession(auth, manager, { data: { x: 1 } });
    assert.equal(r.errorOrNull()?.category, "UNKNOWN");
    assertHidden(r, { NEXT, FIRST: "refreshONE0paque11" });
  } finally {
    manager.dispose();
  }
});

Deno.test("a user update's reauthentication nonce and a TOTP enrolment's QR code (an image of its secret) are masked in renderings; JSON keeps them", async () => {
  const update = userUpdateRequest({ password: "NewPassw0rd!x", nonce: "493817" });
  assert.equal(String(update), '{"password":"***","nonce":"***"}');
  assert.ok(!Deno.inspect(update).includes("493817"));
  assert.equal(JSON.stringify(update), '{"password":"NewPassw0rd!x","nonce":"493817"}');

  const SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
  const svg = `<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0h1v1H0z"/></svg>`;
  const auth = createAuthClient(createBaseClient("https://p.example", KEY, {
    fetch: () =>
      Promise.resolve(jsonResponse({
        id: "f1",
        type: "totp",
        totp: { qr_code: svg, secret: SECRET, uri: `otpauth://totp/x?secret=${SECRET}` },
      })),
  }));
  const enrolled = (await auth.mfaEnroll("userAccessToken0paque", "totp")).getOrThrow();
  const shown = Deno.inspect(enrolled, { depth: 20 });
  assert.ok(!shown.includes("svg") && !shown.includes(SECRET), shown);
  assert.equal(enrolled.totp?.qrCode, `data:image/svg+xml;utf-8,${svg}`);
});

Deno.test("an OAuth state the app put in redirectTo stays hidden when a runtime's network error or a gateway's page quotes the request URL", async () => {
  const STATE = generateOAuthState();
  const redirectTo = `https://app.example/cb?state=${STATE}&next=%2Fhome`;
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (closed.addr as Deno.NetAddr).port;
  closed.close();
  const unreachable = createAuthClient(
    createBaseClient(`http://127.0.0.1:${port}`, KEY, { retry: { maxAttempts: 1 } }),
  );
  const linked = await unreachable.linkIdentity("userAccessT0kenOpaque99", "github", {
    redirectTo,
  });
  assert.equal(linked.errorOrNull()?.category, "NETWORK");
  assertHidden(linked, { STATE });
  const otp = await unreachable.signInWithOtp({
    email: "a@b.example",
    emailRedirectTo: redirectTo,
  });
  assert.equal(otp.errorOrNull()?.category, "NETWORK");
  assertHidden(otp, { STATE });
  const gateway = createAuthClient(createBaseClient("https://p.example", KEY, {
    retry: { maxAttempts: 1 },
    fetch: (input: RequestInfo | URL) =>
      Promise.resolve(new Response(`<p>Blocked: ${String(input)}</p>`, { status: 403 })),
  }));
  const reset = await gateway.resetPasswordForEmail("a@b.example", { redirectTo });
  assert.equal(reset.errorOrNull()?.status, 403);
  assert.match(reset.errorOrNull()!.message, /redirect_to=/);
  assertHidden(reset, { STATE });
  // The app's other values are no secrets: as such, `type=signup` blanked GoTrue's own words.
  const refusing = createAuthClient(createBaseClient("https://p.example", KEY, {
    retry: { maxAttempts: 1 },
    fetch: () =>
      Promise.resolve(jsonResponse({
        code: "signup_disabled",
        msg: "Signups not allowed for this instance",
      }, { status: 422 })),
  }));
  const refused = await refusing.signUpWithEmail("a@b.example", "pw-123456", {
    emailRedirectTo: `https://app.example/cb?type=signup&flow=invite&state=${STATE}`,
  });
  assert.equal(refused.errorOrNull()?.code, "signup_disabled");
  assert.equal(refused.errorOrNull()?.message, "Signups not allowed for this instance");
});
