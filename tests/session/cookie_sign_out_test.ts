// A server-side (cookie) sign-out of a session whose access token has lapsed must end the
// session on the server, not only delete the cookies: GoTrue refuses a lapsed token at
// /logout (401/403), which leaves its refresh token usable.
import assert from "node:assert/strict";
import { createLocalBackend } from "../../demo/local_backend/mod.ts";
import { createClient } from "../../client.ts";
import {
  CookieSessionStorage,
  createSessionManager,
  getClaimsForCurrentSession,
  signInWithEmailAndSaveSession,
  signOutCurrentSession,
} from "../../session/mod.ts";
import { decodeSession } from "../../auth/mod.ts";
import { sessionJson, withClock } from "./_helpers.ts";

const cookiesOf = (storage: CookieSessionStorage) =>
  storage.setCookieHeaders().map((c) => c.split(";")[0]).filter((c) => !c.endsWith("=")).join(
    "; ",
  );

/**
 * A local backend whose access tokens last 60 s, a user signed up, and request 1 of a browser
 * signing in with cookies: the cookies it sets and the session's refresh token.
 */
async function signedInBrowser(email: string, refreshReuseIntervalMs?: number) {
  const backend = await createLocalBackend({ accessTokenTtl: 60, refreshReuseIntervalMs });
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) =>
    await backend.app.fetch(new Request(input, init));
  const client = () => createClient("http://backend.test", backend.apiKey, { fetch });
  const anon = client();
  assert.ok((await anon.auth.signUpWithEmail(email, "secret-pw")).ok);
  const c1 = client();
  const s1 = new CookieSessionStorage(null);
  const m1 = createSessionManager(c1.auth, c1, { storage: s1, autoRefresh: false });
  const signIn = await signInWithEmailAndSaveSession(c1.auth, m1, email, "secret-pw");
  m1.dispose();
  return { client, anon, cookies: cookiesOf(s1), refreshToken: signIn.getOrThrow().refreshToken };
}

/** A later request of that browser signing out with its cookies; the cookies it leaves. */
async function signOutRequest(client: () => ReturnType<typeof createClient>, cookies: string) {
  const c2 = client();
  const s2 = new CookieSessionStorage(cookies);
  const m2 = createSessionManager(c2.auth, c2, { storage: s2, autoRefresh: false });
  await m2.initialize();
  const state = m2.sessionState.value.kind;
  const out = await signOutCurrentSession(c2.auth, m2);
  m2.dispose();
  return { out, state, storage: s2 };
}

Deno.test("signOutCurrentSession of a lapsed session (LOCAL) revokes it on the server", async () => {
  await withClock(async (clock) => {
    const { client, anon, cookies, refreshToken } = await signedInBrowser("out@example.test");
    clock.tick(3_600_000); // the access token lapses
    const { out, state, storage } = await signOutRequest(client, cookies);
    assert.equal(state, "Expired");
    assert.ok(out.ok);
    assert.equal(cookiesOf(storage), "", "the session cookies are deleted");
    // Ended on the server too: neither its refresh token nor a successor works.
    const after = await anon.auth.refreshToken(refreshToken);
    assert.equal(after.ok, false, "the signed-out session can still be refreshed");
  });
});

Deno.test("signOutCurrentSession of a lapsed session whose refresh token was spent elsewhere still deletes the cookies", async () => {
  await withClock(async (clock) => {
    const { client, anon, cookies, refreshToken } = await signedInBrowser("spent@example.test", 0);
    // Another request spent the refresh token; this browser never got its answer.
    assert.ok((await anon.auth.refreshToken(refreshToken)).ok);
    clock.tick(3_600_000);
    const { out, storage } = await signOutRequest(client, cookies);
    assert.ok(out.ok);
    assert.equal(cookiesOf(storage), "", "the dead session's cookies are deleted");
    assert.ok(storage.setCookieHeaders().some((c) => /^__Host-fb-session=;.*Max-Age=0/.test(c)));
  });
});

Deno.test("a clock gap or arrival time sent in a session cookie is not taken: a forged clockOffset cannot make an expired token pass getClaimsForCurrentSession", () =>
  withClock(async (clock) => {
    const URL_ = "http://backend.test";
    const backend = await createLocalBackend(); // 1 h access tokens
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) =>
      await backend.app.fetch(new Request(input, init));
    const client = createClient(URL_, backend.apiKey, { fetch });
    await client.auth.signUpWithEmail("clock@example.test", "secret-pw");
    const signedIn = (await client.auth.signInWithEmail("clock@example.test", "secret-pw"))
      .getOrThrow();
    // Two days later, only the old access token is at hand (a log line, a proxy); the browser
    // sends a cookie it wrote itself, with a gap that would move the server's clock 3 days back.
    clock.tick(2 * 24 * 3600 * 1000);
    const forged = {
      accessToken: signedIn.accessToken,
      refreshToken: "whatever",
      tokenType: "bearer",
      expiresIn: 3600,
      expiresAt: signedIn.expiresAt,
      user: { id: signedIn.user.id },
      clockOffset: -3 * 24 * 3600 * 1000,
      obtainedAt: Date.now(),
    };
    const cookie = `__Host-fb-session=${encodeURIComponent(JSON.stringify(forged))}`;
    const per = createClient(URL_, backend.apiKey, { fetch, retry: { maxAttempts: 1 } });
    const manager = createSessionManager(per.auth, per, {
      storage: new CookieSessionStorage(
        new Request("https://app.example/", { headers: { cookie } }),
      ),
    });
    await manager.initialize();
    const verifier = createClient(URL_, backend.apiKey, { fetch }).auth;
    const claims = await getClaimsForCurrentSession(manager, verifier);
    assert.equal(claims.ok, false, "an expired token's claims were accepted");
    manager.dispose();
  }));

Deno.test("a sign-out whose request lost a chunk of the session deletes the chunks it brought (the first holds the refresh token)", async () => {
  // A session written as chunks (a small chunk size), of which the browser sends only the first.
  const big = new CookieSessionStorage(null, { chunkSize: 600 });
  const backend = await createLocalBackend();
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) =>
    await backend.app.fetch(new Request(input, init));
  const client = () => createClient("http://backend.test", backend.apiKey, { fetch });
  assert.ok((await client().auth.signUpWithEmail("chunk@example.test", "secret-pw")).ok);
  const c1 = client();
  const m1 = createSessionManager(c1.auth, c1, { storage: big, autoRefresh: false });
  assert.ok(
    (await signInWithEmailAndSaveSession(c1.auth, m1, "chunk@example.test", "secret-pw")).ok,
  );
  m1.dispose();
  const chunks = cookiesOf(big).split("; ");
  assert.ok(chunks.length >= 2, `${chunks.length} chunks`);
  const partial = chunks[0];
  const c2 = client();
  const s2 = new CookieSessionStorage(partial, { chunkSize: 600 });
  const m2 = createSessionManager(c2.auth, c2, { storage: s2, autoRefresh: false });
  assert.equal((await m2.initialize()).ok, false, "a partial session is no session");
  // A caller that has already given up hears so, as with a session held.
  const gaveUp = new AbortController();
  gaveUp.abort();
  const aborted = await signOutCurrentSession(c2.auth, m2, { signal: gaveUp.signal });
  assert.equal(aborted.errorOrNull()?.category, "CANCELLED");
  assert.ok((await signOutCurrentSession(c2.auth, m2)).ok);
  m2.dispose();
  const deleted = s2.setCookieHeaders().filter((c) => /Max-Age=0/.test(c)).map((c) =>
    c.split("=")[0]
  );
  assert.ok(deleted.includes(partial.split("=")[0]), deleted.join(" "));
});

Deno.test("a cookie whose name only looks like the __Host- session after a no-break space is not read as it", async () => {
  const name = "__Host-fb-session";
  const writer = new CookieSessionStorage(null, { name });
  await writer.save(decodeSession(sessionJson(1)));
  const [written] = cookiesOf(writer).split("; ");
  const value = written.slice(written.indexOf("=") + 1);
  // Read under its own name, it is the session.
  assert.equal(
    new CookieSessionStorage(`${name}=${value}`, { name }).load()?.refreshToken,
    "refresh-1",
  );
  // Browsers strip only spaces and tabs around a name: "\u00a0__Host-..." has no prefix to them,
  // so any origin able to set cookies for the site can set it. It is no session here.
  assert.equal(new CookieSessionStorage(`\u00a0${name}=${value}`, { name }).load(), null);
  assert.equal(new CookieSessionStorage(`${name}\u00a0=${value}`, { name }).load(), null);
  // Spaces and tabs around a name are not part of it, as in browsers.
  assert.equal(
    new CookieSessionStorage(` \t${name}\t =${value}`, { name }).load()?.refreshToken,
    "refresh-1",
  );
});

Deno.test("a Cookie header holding a long run of spaces or tabs inside a value is read in linear time", async () => {
  const name = "fb-session";
  const writer = new CookieSessionStorage(null, { name });
  await writer.save(decodeSession(sessionJson(1)));
  const [written] = cookiesOf(writer).split("; ");
  const value = written.slice(written.indexOf("=") + 1);
  // Anyone can send such a header; the parser's trim was a regular expression ending in
  // `[ \t]+$`, which took about 8 s for a 64 KB run (quadratic), before any session was read.
  for (const run of [" ", "\t"]) {
    const header = `a=x${run.repeat(64_000)}x; ${name}=${value} ${run.repeat(64_000)}`;
    const t0 = performance.now();
    const storage = new CookieSessionStorage(header, { name });
    assert.equal(storage.load()?.refreshToken, "refresh-1");
    const ms = performance.now() - t0;
    assert.ok(ms < 500, `took ${ms.toFixed(0)} ms`);
  }
});
