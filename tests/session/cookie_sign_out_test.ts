// A server-side (cookie) sign-out of a session whose access token has lapsed must end the
// session on the server, not only delete the cookies: GoTrue refuses a lapsed token at
// /logout (401/403), which leaves its refresh token usable.
import assert from "node:assert/strict";
import { createLocalBackend } from "../../demo/local_backend/mod.ts";
import { createClient } from "../../client.ts";
import {
  CookieSessionStorage,
  createSessionManager,
  signInWithEmailAndSaveSession,
  signOutCurrentSession,
} from "../../session/mod.ts";
import { withClock } from "./_helpers.ts";

const cookiesOf = (storage: CookieSessionStorage) =>
  storage.setCookieHeaders().map((c) => c.split(";")[0]).filter((c) => !c.endsWith("=")).join(
    "; ",
  );

Deno.test("signOutCurrentSession of a lapsed session (LOCAL) revokes it on the server", async () => {
  const backend = await createLocalBackend({ accessTokenTtl: 60 });
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) =>
    await backend.app.fetch(new Request(input, init));
  const client = () => createClient("http://backend.test", backend.apiKey, { fetch });
  await withClock(async (clock) => {
    const anon = client();
    assert.ok((await anon.auth.signUpWithEmail("out@example.test", "secret-pw")).ok);

    // Request 1 signs in: the session goes into cookies.
    const c1 = client();
    const s1 = new CookieSessionStorage(null);
    const m1 = createSessionManager(c1.auth, c1, { storage: s1, autoRefresh: false });
    const signIn = await signInWithEmailAndSaveSession(
      c1.auth,
      m1,
      "out@example.test",
      "secret-pw",
    );
    m1.dispose();
    const refreshToken = signIn.getOrThrow().refreshToken;

    clock.tick(3_600_000); // the access token lapses

    // Request 2 signs out with the browser's cookies.
    const c2 = client();
    const s2 = new CookieSessionStorage(cookiesOf(s1));
    const m2 = createSessionManager(c2.auth, c2, { storage: s2, autoRefresh: false });
    await m2.initialize();
    assert.equal(m2.sessionState.value.kind, "Expired");
    const out = await signOutCurrentSession(c2.auth, m2);
    m2.dispose();
    assert.ok(out.ok);
    assert.equal(cookiesOf(s2), "", "the session cookies are deleted");
    // Ended on the server too: neither its refresh token nor a successor works.
    const after = await anon.auth.refreshToken(refreshToken);
    assert.equal(after.ok, false, "the signed-out session can still be refreshed");
  });
});

Deno.test("signOutCurrentSession of a lapsed session whose refresh token was spent elsewhere still deletes the cookies", async () => {
  const backend = await createLocalBackend({ accessTokenTtl: 60, refreshReuseIntervalMs: 0 });
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) =>
    await backend.app.fetch(new Request(input, init));
  const client = () => createClient("http://backend.test", backend.apiKey, { fetch });
  await withClock(async (clock) => {
    const anon = client();
    assert.ok((await anon.auth.signUpWithEmail("spent@example.test", "secret-pw")).ok);
    const c1 = client();
    const s1 = new CookieSessionStorage(null);
    const m1 = createSessionManager(c1.auth, c1, { storage: s1, autoRefresh: false });
    const signIn = await signInWithEmailAndSaveSession(
      c1.auth,
      m1,
      "spent@example.test",
      "secret-pw",
    );
    m1.dispose();
    // Another request spent the refresh token; this browser never got its answer.
    assert.ok((await anon.auth.refreshToken(signIn.getOrThrow().refreshToken)).ok);
    clock.tick(3_600_000);
    const c2 = client();
    const s2 = new CookieSessionStorage(cookiesOf(s1));
    const m2 = createSessionManager(c2.auth, c2, { storage: s2, autoRefresh: false });
    await m2.initialize();
    const out = await signOutCurrentSession(c2.auth, m2);
    m2.dispose();
    assert.ok(out.ok);
    assert.equal(cookiesOf(s2), "", "the dead session's cookies are deleted");
    assert.ok(s2.setCookieHeaders().some((c) => /^fb-session=;.*Max-Age=0/.test(c)));
  });
});
