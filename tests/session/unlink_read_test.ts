// An unlink reads the user again (GoTrue rewrites its email, phone and providers): the two
// requests share the call's one deadline, a read that fails or is cancelled leaves the unlink done
// with the identity dropped from the stored user, and a session signed out or replaced during the
// unlink is neither read nor written (found by a review of the change that added the read).
import assert from "node:assert/strict";
import { createAuthClient, decodeSession } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/mod.ts";
import { createSessionManager, unlinkIdentityAndUpdateSession } from "../../session/mod.ts";
import { BASE, jwt, KEY, withClock } from "./_helpers.ts";

const TOKEN = jwt({ sub: "u1", session_id: "s1", exp: 4_000_000_000 });
const session = () =>
  decodeSession({
    access_token: TOKEN,
    refresh_token: "r1",
    expires_in: 3600,
    token_type: "bearer",
    user: { id: "u1", email: "a@x.io", identities: [{ id: "i1" }, { id: "i2" }] },
  });

/** A GoTrue whose DELETE answers after `deleteMs` and whose GET /user never answers. */
function gotrue(deleteMs: number, onDelete?: () => void) {
  const log: string[] = [];
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    log.push(`${req.method} ${new URL(req.url).pathname}`);
    const signal = init?.signal;
    return new Promise<Response>((resolve, reject) => {
      signal?.addEventListener("abort", () => reject(signal.reason));
      if (req.method === "DELETE") {
        setTimeout(() => {
          onDelete?.();
          resolve(new Response(null, { status: 204 }));
        }, deleteMs);
      }
    });
  };
  const client = createBaseClient(BASE, KEY, { fetch, retry: { maxAttempts: 1 } });
  const auth = createAuthClient(client);
  return { log, client, auth };
}

Deno.test("an unlink and its read share one deadline; a read that times out leaves the identity dropped", async () => {
  await withClock(async (clock) => {
    const g = gotrue(200);
    const m = createSessionManager(g.auth, g.client, { autoRefresh: false });
    await m.saveSession(session());
    let out: { ok: boolean } | null = null;
    const started = Date.now();
    const call = unlinkIdentityAndUpdateSession(g.auth, TOKEN, "i1", m, { timeout: 300 })
      .then((r) => out = r);
    await clock.tickAsync(300);
    await call;
    assert.equal(Date.now() - started, 300, "the read got what the unlink left of 300 ms");
    assert.ok(out!.ok);
    assert.deepEqual(g.log, ["DELETE /auth/v1/user/identities/i1", "GET /auth/v1/user"]);
    assert.deepEqual(m.currentSession?.user.identities?.map((i) => i.id), ["i2"]);
    m.dispose();
  });
});

Deno.test("a session signed out during the unlink is not read again nor written", async () => {
  await withClock(async (clock) => {
    const held: { m?: ReturnType<typeof createSessionManager> } = {};
    const g = gotrue(10, () => void held.m!.clearSession());
    const m = held.m = createSessionManager(g.auth, g.client, { autoRefresh: false });
    await m.saveSession(session());
    const call = unlinkIdentityAndUpdateSession(g.auth, TOKEN, "i1", m);
    await clock.tickAsync(10);
    assert.ok((await call).ok);
    assert.deepEqual(g.log, ["DELETE /auth/v1/user/identities/i1"]);
    assert.equal(m.currentSession, null);
    m.dispose();
  });
});

Deno.test("a user stored while the unlink's read is under way keeps its fields; only the identity goes", async () => {
  let release!: () => void;
  const log: string[] = [];
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    log.push(`${req.method} ${new URL(req.url).pathname}`);
    if (req.method === "DELETE") return Promise.resolve(new Response(null, { status: 204 }));
    // The read answers the user as it was before the update below.
    return new Promise<Response>((resolve) => {
      release = () =>
        resolve(Response.json({ id: "u1", email: "old@x.io", identities: [{ id: "i2" }] }));
    });
  };
  const client = createBaseClient(BASE, KEY, { fetch, retry: { maxAttempts: 1 } });
  const auth = createAuthClient(client);
  const m = createSessionManager(auth, client, { autoRefresh: false });
  await m.saveSession(session());
  const call = unlinkIdentityAndUpdateSession(auth, TOKEN, "i1", m);
  while (log.length < 2) await new Promise((r) => setTimeout(r, 1));
  // An update lands meanwhile (another helper stored GoTrue's answer to PUT /user).
  const now = m.currentSession!;
  await m.saveSession({ ...now, user: { ...now.user, email: "new@x.io" } });
  release();
  assert.ok((await call).ok);
  assert.equal(m.currentSession?.user.email, "new@x.io");
  assert.deepEqual(m.currentSession?.user.identities?.map((i) => i.id), ["i2"]);
  m.dispose();
});
