/**
 * `getUserForCurrentSession` answered that GoTrue no longer knows the session
 * (`session_not_found`) signs the session out here, as auth-js's `getUser` does.
 */

import assert from "node:assert/strict";
import { decodeSession } from "../../auth/mod.ts";
import {
  createSessionManager,
  getClaimsForCurrentSession,
  getUserForCurrentSession,
  getUserIdentitiesForCurrentSession,
  InMemorySessionStorage,
} from "../../session/mod.ts";
import { heldServer, json, jwt, sessionJson } from "./_helpers.ts";

/** A session whose access token carries GoTrue session id `sid`. */
function sessionOf(n: number, sid: string) {
  const body = sessionJson(n);
  const exp = Math.floor(Date.now() / 1000) + 3600;
  return decodeSession({ ...body, access_token: jwt({ sub: "u1", session_id: sid, exp }) });
}

async function setup() {
  const s = heldServer();
  const storage = new InMemorySessionStorage();
  const manager = createSessionManager(s.auth, s.client, { storage, autoRefresh: false });
  await manager.saveSession(sessionOf(1, "sid-1"));
  const events: string[] = [];
  manager.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
  return { ...s, storage, manager, events };
}

/** Waits until the held server has a request for `/user`. */
async function sent(s: Awaited<ReturnType<typeof setup>>) {
  for (let i = 0; i < 50 && !s.held.some((h) => h.path.endsWith("/user")); i++) {
    await new Promise((r) => setTimeout(r, 0));
  }
  return s.find("/user");
}

/** A second call answered 403 session_not_found: the session held is signed out. */
async function endedNext(s: Awaited<ReturnType<typeof setup>>) {
  s.held.length = 0;
  const call = getUserForCurrentSession(s.auth, s.manager);
  (await sent(s)).release(json({ code: "session_not_found", msg: "Session not found" }, 403));
  assert.equal((await call).errorOrNull()?.code, "session_not_found");
  assert.equal(s.manager.currentSession, null);
  assert.equal(s.storage.load(), null);
  assert.equal(s.events.at(-1), "SIGNED_OUT");
}

Deno.test("getUserForCurrentSession: a 403 session_not_found signs the session out and is returned", async () => {
  const s = await setup();
  const call = getUserForCurrentSession(s.auth, s.manager);
  (await sent(s)).release(json({ code: "session_not_found", msg: "Session not found" }, 403));
  const r = await call;
  assert.equal(r.ok, false);
  assert.equal(r.errorOrNull()?.code, "session_not_found");
  assert.equal(r.errorOrNull()?.status, 403);
  assert.equal(s.manager.currentSession, null);
  assert.equal(s.manager.sessionState.value.kind, "NotAuthenticated");
  assert.equal(s.storage.load(), null, "storage cleared");
  assert.deepEqual(s.events, ["SIGNED_OUT"]);
});

for (
  const [name, status, body] of [
    ["a 401", 401, { code: "bad_jwt", msg: "invalid JWT" }],
    ["a 401 no_authorization", 401, { code: "no_authorization", msg: "no" }],
    ["a 5xx carrying session_not_found", 503, { code: "session_not_found", msg: "x" }],
    ["a 500", 500, { msg: "boom" }],
    ["a 403 user_not_found (auth-js keeps the session too)", 403, {
      code: "user_not_found",
      msg: "User from sub claim in JWT does not exist",
    }],
    ["a 403 bad_jwt", 403, { code: "bad_jwt", msg: "invalid JWT" }],
  ] as const
) {
  Deno.test(`getUserForCurrentSession: ${name} keeps the session`, async () => {
    const s = await setup();
    const before = s.manager.currentSession;
    const call = getUserForCurrentSession(s.auth, s.manager);
    (await sent(s)).release(json(body, status));
    const r = await call;
    assert.equal(r.ok, false);
    assert.equal(r.errorOrNull()?.status, status);
    assert.equal(s.manager.currentSession, before);
    assert.notEqual(s.storage.load(), null);
    assert.deepEqual(s.events, []);
    // The same session answered session_not_found next is signed out: only that code ends it.
    await endedNext(s);
  });
}

Deno.test("getUserForCurrentSession: a sign-in while the request was out is not signed out", async () => {
  const s = await setup();
  const call = getUserForCurrentSession(s.auth, s.manager);
  const req = await sent(s);
  const next = sessionOf(2, "sid-2");
  await s.manager.saveSession(next);
  req.release(json({ code: "session_not_found", msg: "Session not found" }, 403));
  const r = await call;
  assert.equal(r.errorOrNull()?.code, "session_not_found");
  assert.equal(s.manager.currentSession?.accessToken, next.accessToken);
  assert.equal(s.storage.load()?.accessToken, next.accessToken);
  assert.deepEqual(s.events, ["SIGNED_IN"]);
  // The new session's own session_not_found signs it out.
  await endedNext(s);
});

Deno.test("getUserForCurrentSession: a refresh of the same session while the request was out is signed out", async () => {
  const s = await setup();
  const call = getUserForCurrentSession(s.auth, s.manager);
  const req = await sent(s);
  await s.manager.saveSession(sessionOf(2, "sid-1"));
  req.release(json({ code: "session_not_found", msg: "Session not found" }, 403));
  const r = await call;
  assert.equal(r.errorOrNull()?.code, "session_not_found");
  assert.equal(s.manager.currentSession, null);
  assert.equal(s.storage.load(), null);
  assert.equal(s.events.at(-1), "SIGNED_OUT");
});

Deno.test("getUserIdentitiesForCurrentSession and getClaimsForCurrentSession (checked by GET /user) sign out on session_not_found, as auth-js's go through getUser", async () => {
  for (
    const run of [
      (s: Awaited<ReturnType<typeof setup>>) =>
        getUserIdentitiesForCurrentSession(s.auth, s.manager),
      (s: Awaited<ReturnType<typeof setup>>) => getClaimsForCurrentSession(s.manager, s.auth),
    ]
  ) {
    const s = await setup();
    const call = run(s);
    (await sent(s)).release(json({ code: "session_not_found", msg: "Session not found" }, 403));
    const r = await call;
    assert.equal(r.errorOrNull()?.code, "session_not_found");
    assert.equal(s.manager.currentSession, null);
    assert.equal(s.storage.load(), null);
    assert.deepEqual(s.events, ["SIGNED_OUT"]);
  }
});

Deno.test("getClaimsForCurrentSession: a 403 bad_jwt from GET /user keeps the session", async () => {
  const s = await setup();
  const before = s.manager.currentSession;
  const call = getClaimsForCurrentSession(s.manager, s.auth);
  (await sent(s)).release(json({ code: "bad_jwt", msg: "invalid JWT" }, 403));
  const r = await call;
  assert.equal(r.errorOrNull()?.code, "bad_jwt");
  assert.equal(s.manager.currentSession, before);
  assert.deepEqual(s.events, []);
  await endedNext(s);
});
