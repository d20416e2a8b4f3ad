// User metadata and WebAuthn credentials are JSON objects: a value of an interface type type-checks
// (TypeScript lets no interface stand for an index signature), and a list, a scalar or a built-in
// object (a Map went out as `{}`, a Date as text) is INVALID_ARGUMENT with nothing sent.
import assert from "node:assert/strict";
import { makeAuth, TOKEN } from "./_helpers.ts";
import { jsonResponse, recordingFetch } from "../support/recording_fetch.ts";
import { createStorageClient } from "../../storage/mod.ts";
import { createBaseClient } from "../../core/client.ts";

interface Profile {
  name: string;
  plan: "free" | "pro";
}
interface Credential {
  id: string;
  response: { clientDataJSON: string };
}

Deno.test("user metadata and credentials of an interface type type-check and go as given", async () => {
  const profile: Profile = { name: "Ada", plan: "pro" };
  const credential: Credential = { id: "c1", response: { clientDataJSON: "e30" } };
  const { auth, rec } = makeAuth(() => jsonResponse({}, { status: 400 }));
  await auth.signUpWithEmail("a@example.test", "secret-pw", { data: profile });
  await auth.signUpWithPhone("+15550100", "secret-pw", { data: profile });
  await auth.signInAnonymously({ data: profile });
  await auth.signInWithOtp({ email: "a@example.test", data: profile });
  await auth.updateUser(TOKEN, { data: profile });
  await auth.passkeyVerifyRegistration(TOKEN, "ch", credential);
  await auth.passkeyVerifyAuthentication("ch", credential);
  await auth.mfaVerify(TOKEN, "f", "ch", "", {
    webauthn: { type: "create", credentialResponse: credential },
  });
  assert.equal(rec.requests.length, 8);
  for (const req of rec.requests.slice(0, 5)) {
    assert.deepEqual((req.json() as { data: unknown }).data, profile, req.url.pathname);
  }
  assert.deepEqual((rec.requests[5].json() as { credential: unknown }).credential, credential);
  // A class instance goes with its own fields, as JSON.stringify sends it.
  class Meta {
    theme = "dark";
  }
  await auth.signInAnonymously({ data: new Meta() });
  assert.deepEqual((rec.last.json() as { data: unknown }).data, { theme: "dark" });
});

Deno.test("user metadata or a credential that is no JSON object is INVALID_ARGUMENT, nothing sent", async () => {
  const { auth, rec } = makeAuth(() => jsonResponse({}));
  const cases: Array<[unknown, RegExp]> = [
    [new Map([["name", "Ada"]]), /'data' must be a JSON object, not a Map/],
    [["Ada"], /not a list/],
    ["Ada", /not a string/],
    [new Date(0), /not a Date/],
  ];
  for (const [bad, message] of cases) {
    const data = bad as never;
    for (
      const call of [
        auth.signUpWithEmail("a@example.test", "secret-pw", { data }),
        auth.signUpWithPhone("+15550100", "secret-pw", { data }),
        auth.signInAnonymously({ data }),
        auth.signInWithOtp({ phone: "+15550100", data }),
        auth.updateUser(TOKEN, { data }),
      ]
    ) {
      const e = (await call).errorOrNull();
      assert.equal(e?.category, "INVALID_ARGUMENT");
      assert.match(e!.message, message);
    }
    const credential = bad as never;
    for (
      const call of [
        auth.passkeyVerifyRegistration(TOKEN, "ch", credential),
        auth.passkeyVerifyAuthentication("ch", credential),
        auth.mfaVerify(TOKEN, "f", "ch", "", { webauthn: { credentialResponse: credential } }),
      ]
    ) {
      assert.match((await call).errorOrNull()!.message, /must be a JSON object/);
    }
  }
  assert.equal(rec.requests.length, 0);
});

Deno.test("upload metadata of an interface type type-checks", async () => {
  const rec = recordingFetch(() => jsonResponse({ Key: "b/p", Id: "1" }));
  const storage = createStorageClient(
    createBaseClient("https://p.example", "k", { fetch: rec.fetch }),
  );
  const meta: Profile = { name: "Ada", plan: "free" };
  assert.ok((await storage.upload("b", "p", new Uint8Array(1), { metadata: meta })).ok);
  const sent = JSON.parse(atob(rec.last.headers.get("x-metadata")!));
  assert.deepEqual(sent, meta);
});

Deno.test("user metadata or a credential holding a Map or bytes at any depth is INVALID_ARGUMENT (they went as {})", async () => {
  const { auth, rec } = makeAuth(() => jsonResponse({}));
  const data = { prefs: { langs: new Map([["en", 1]]) } } as never;
  for (
    const call of [
      auth.signUpWithEmail("a@example.test", "secret-pw", { data }),
      auth.signInAnonymously({ data }),
      auth.updateUser(TOKEN, { data }),
    ]
  ) {
    const e = (await call).errorOrNull();
    assert.equal(e?.category, "INVALID_ARGUMENT");
    assert.match(e!.message, /'data\.prefs\.langs' must be JSON, not a Map/);
  }
  const credential = { id: "c1", response: { attestationObject: new Uint8Array([1]) } } as never;
  const e = (await auth.passkeyVerifyRegistration(TOKEN, "ch", credential)).errorOrNull();
  assert.match(
    e!.message,
    /'credential\.response\.attestationObject' must be JSON, not a Uint8Array/,
  );
  assert.equal(rec.requests.length, 0);
});

Deno.test("a passkey verification without a credential is INVALID_ARGUMENT, nothing sent", async () => {
  // GoTrue reads a JSON null credential as given, spends the single-use challenge on it and only
  // then fails (webauthn_verification_failed); a missing one costs a round trip.
  const { auth, rec } = makeAuth(() => jsonResponse({}));
  for (const credential of [null, undefined] as never[]) {
    for (
      const call of [
        auth.passkeyVerifyRegistration(TOKEN, "ch", credential),
        auth.passkeyVerifyAuthentication("ch", credential),
      ]
    ) {
      const e = (await call).errorOrNull();
      assert.equal(e?.category, "INVALID_ARGUMENT");
      assert.equal(e!.message, "Cannot verify the passkey as 'credential' is missing");
    }
  }
  assert.equal(rec.requests.length, 0);
});
