import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createAuthClient, getClaims } from "../../auth/mod.ts";
import { createLocalBackend } from "../../demo/local_backend/mod.ts";
import { serve } from "../support/serve.ts";

Deno.test("auth flow against the local GoTrue stand-in: sign up, sign in, verify locally, update, refresh, sign out", async () => {
  const backend = await createLocalBackend();
  await using server = await serve(backend.app.fetch);
  let requests = 0;
  const client = createBaseClient(server.url, backend.apiKey, {
    fetch: (input, init) => {
      requests++;
      return fetch(input, init);
    },
  });
  const auth = createAuthClient(client);
  const up =
    (await auth.signUpWithEmail("flow@example.test", "s3cret-pw", { data: { name: "Flow" } }))
      .getOrThrow();
  assert.equal(up.user.email, "flow@example.test");
  const bad = await auth.signInWithEmail("flow@example.test", "wrong");
  assert.equal(bad.errorOrNull()?.code, "invalid_credentials");
  const session = (await auth.signInWithEmail("flow@example.test", "s3cret-pw")).getOrThrow();
  assert.ok(session.expiresAt! > Date.now() / 1000);

  const first = (await getClaims(auth, session.accessToken)).getOrThrow();
  assert.equal(first.claims.subject, up.user.id);
  assert.equal(first.header.algorithm, "ES256");
  const before = requests;
  const second = (await getClaims(auth, session.accessToken, { expectedAudience: "authenticated" }))
    .getOrThrow();
  assert.equal(second.claims.email, "flow@example.test");
  assert.equal(requests, before, "a cached key verifies with no request");
  assert.equal(
    (await getClaims(auth, session.accessToken, { expectedAudience: "other" })).ok,
    false,
  );

  const user = (await auth.updateUser(session.accessToken, { data: { theme: "dark" } }))
    .getOrThrow();
  assert.equal(user.userMetadata?.theme, "dark");
  assert.equal((await auth.getUser(session.accessToken)).getOrThrow().userMetadata?.name, "Flow");

  const refreshed = (await auth.refreshToken(session.refreshToken)).getOrThrow();
  assert.notEqual(refreshed.refreshToken, session.refreshToken);
  // Spent again within GoTrue's 10 s reuse interval: the session's active token comes back.
  assert.equal(
    (await auth.refreshToken(session.refreshToken)).getOrThrow().refreshToken,
    refreshed.refreshToken,
  );

  assert.ok((await auth.signOut(refreshed.accessToken)).ok);
  assert.equal((await auth.refreshToken(refreshed.refreshToken)).ok, false);
  const settings = (await auth.getSettings()).getOrThrow();
  assert.equal(settings.mailerAutoconfirm, true);
  assert.equal((await auth.getHealth()).getOrThrow().name, "GoTrue");
});
