// An app developer's review of the session layer: scenarios checked and found to hold.
import assert from "node:assert/strict";
import { decodeSession } from "../../auth/mod.ts";
import { createSessionManager, KeyValueSessionStorage } from "../../session/mod.ts";
import { heldServer, json, sessionJson, withClock } from "./_helpers.ts";

function mapStore() {
  const map = new Map<string, string>();
  const storage = new KeyValueSessionStorage({
    get: (k) => map.get(k) ?? null,
    set: (k, v) => void map.set(k, v),
    remove: (k) => void map.delete(k),
  });
  const refreshToken = () => {
    const v = [...map.values()][0];
    return v === undefined ? null : JSON.parse(v).refreshToken as string;
  };
  return { storage, refreshToken };
}

Deno.test("offline through the expiry: bounded retries, then one TOKEN_REFRESHED on reconnect", async () => {
  await withClock(async (clock) => {
    const h = heldServer();
    const m = createSessionManager(h.auth, h.client);
    const events: string[] = [];
    m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
    await m.saveSession(decodeSession(sessionJson(1, { expires_in: 120 })));
    let sent = 0;
    // The backoff is capped at 60 s (retryMaxDelayMs): within 80 s of reconnecting a retry comes.
    for (let t = 0; t < 280; t++) {
      await clock.tickAsync(1_000);
      for (const r of h.held.splice(0)) {
        sent++;
        r.release(t < 200 ? new TypeError("Failed to fetch") : json(sessionJson(2)));
      }
      if (t === 199) assert.equal(m.sessionState.value.kind, "Expired");
    }
    assert.ok(sent <= 15, `${sent} refreshes`);
    assert.deepEqual(events, ["SIGNED_IN", "TOKEN_REFRESHED"]);
    assert.equal(m.currentSession?.refreshToken, "refresh-2");
    m.dispose();
  });
});

Deno.test("disposed mid-refresh: the answer is stored, nobody is told, the client keeps no token", async () => {
  await withClock(async (clock) => {
    const h = heldServer();
    const { storage, refreshToken } = mapStore();
    const m = createSessionManager(h.auth, h.client, { storage });
    const events: string[] = [];
    m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
    await m.saveSession(decodeSession(sessionJson(1, { expires_in: 120 })));
    await clock.tickAsync(61_000);
    const grant = h.held.splice(0);
    assert.equal(grant.length, 1);
    m.dispose();
    grant[0].release(json(sessionJson(2, { expires_in: 120 })));
    await clock.tickAsync(600_000);
    assert.deepEqual(events, ["SIGNED_IN"]);
    assert.equal(h.client.accessToken, null);
    assert.equal(refreshToken(), "refresh-2"); // the spent token is not left stored
    assert.equal(h.held.length, 0); // no timer outlived dispose
  });
});

Deno.test("initialize twice (StrictMode) over a stored session: one SIGNED_IN, the lapsed one's after its one grant", async () => {
  // A lapsed session taken from the storage is announced as a live one is: SIGNED_IN (it was
  // TOKEN_REFRESHED, and a page that listened for SIGNED_IN showed the user signed out).
  for (const [at, want] of [[3600, ["SIGNED_IN"]], [-100, ["SIGNED_IN"]]] as const) {
    await withClock(async (clock) => {
      const h = heldServer();
      const { storage, refreshToken } = mapStore();
      const now = Math.floor(Date.now() / 1000);
      const m0 = createSessionManager(h.auth, h.client, { storage });
      await m0.saveSession(decodeSession(sessionJson(1, { expires_at: now + at })));
      m0.dispose();
      const m = createSessionManager(h.auth, h.client, { storage });
      const events: string[] = [];
      m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
      const both = Promise.all([m.initialize(), m.initialize()]);
      await clock.tickAsync(10);
      const grants = h.held.splice(0);
      assert.equal(grants.length, at < 0 ? 1 : 0);
      grants.forEach((g) => g.release(json(sessionJson(2))));
      await clock.tickAsync(10);
      assert.ok((await both).every((r) => r.ok));
      assert.deepEqual(events, want);
      assert.equal(refreshToken(), m.currentSession?.refreshToken);
      m.dispose();
    });
  }
});
