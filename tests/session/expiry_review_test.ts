// A review of when subscribers hear a lapse: a refresh grant still unanswered at
// the expiry (a slow or hanging network, ended only by the client's timeout) and
// a user update saved while a grant was under way.
import assert from "node:assert/strict";
import { createAuthClient, decodeSession } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import {
  createSessionManager,
  getUserForCurrentSession,
  type SessionState,
} from "../../session/mod.ts";
import { BASE, heldServer, json, KEY, sessionJson, withClock } from "./_helpers.ts";

const heldOf = (s: SessionState) =>
  s.kind === "Authenticated" ? s.session : s.kind === "Expired" ? s.lastSession : null;

Deno.test("a refresh grant unanswered at the expiry (a hanging network) does not hold back Expired until the client's timeout", async () => {
  // [lifetime s, first retry delay ms]: a grant started before the expiry and hanging past it
  // (refreshed at half the 20 s life), and a retry run at the expiry itself.
  for (const [lifetime, retryBaseDelayMs] of [[20, 1_000], [120, 60_000]]) {
    await withClock(async (clock) => {
      let grants = 0;
      // A network that never answers: each request ends at the client's timeout (30 s by default).
      const fetch = (_input: RequestInfo | URL, init?: RequestInit) => {
        grants++;
        return new Promise<Response>((_, reject) =>
          init?.signal?.addEventListener("abort", () => reject(init.signal!.reason))
        );
      };
      const client = createBaseClient(BASE, KEY, { fetch, retry: { maxAttempts: 1 } });
      const m = createSessionManager(createAuthClient(client), client, { retryBaseDelayMs });
      const seen: Array<[string, number]> = [];
      const start = Date.now();
      m.sessionState.subscribe((s) => seen.push([s.kind, Date.now() - start]));
      await m.saveSession(decodeSession(sessionJson(1, { expires_in: lifetime })));
      await clock.tickAsync(lifetime * 1000 + 40_000);
      m.dispose();
      assert.ok(grants >= 2, `${grants} grants`);
      const expired = seen.filter(([kind]) => kind === "Expired");
      assert.equal(expired.length, 1, JSON.stringify(seen));
      // It lapsed at the expiry; the grant in flight then failed up to 30 s later.
      assert.equal(expired[0][1], lifetime * 1000, JSON.stringify(seen));
    });
  }
});

Deno.test("a grant failing after the expiry keeps a user update saved meanwhile: Expired holds the updated user, once", async () => {
  await withClock(async (clock) => {
    const h = heldServer();
    const m = createSessionManager(h.auth, h.client);
    const seen: Array<[string, string | null | undefined]> = [];
    m.sessionState.subscribe((s) => seen.push([s.kind, heldOf(s)?.user.email]));
    await m.saveSession(decodeSession(sessionJson(1, { expires_in: 120 })));
    await clock.tickAsync(61_000); // the refresh is due 60 s before the expiry
    const [grant] = h.held.splice(0);
    assert.equal(grant.path, "/auth/v1/token");
    const update = getUserForCurrentSession(h.auth, m, { updateStoredSession: true });
    await clock.tickAsync(1);
    h.held.splice(0).forEach((r) => r.release(json({ id: "u1", email: "new@x.io" })));
    assert.ok((await update).ok);
    await clock.tickAsync(70_000); // past the expiry, the grant still unanswered
    grant.release(new TypeError("Failed to fetch"));
    await clock.tickAsync(1);
    m.dispose();
    assert.deepEqual(seen, [
      ["NotAuthenticated", undefined],
      ["Authenticated", "a@x.io"],
      ["Authenticated", "new@x.io"],
      ["Expired", "new@x.io"],
    ]);
  });
});
