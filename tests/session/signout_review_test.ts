// Findings of a review against GoTrue's source (supabase/auth, internal/api).
import assert from "node:assert/strict";
import { createAuthClient, decodeSession, type Session, SignOutScope } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import { createSessionManager, signOutCurrentSession } from "../../session/mod.ts";
import { jsonResponse, type RecordedRequest, recordingFetch } from "../support/recording_fetch.ts";
import { BASE, KEY, sessionJson, withClock } from "./_helpers.ts";

/**
 * GoTrue as auth.go's parseJWTClaims answers: a lapsed access token is refused with 403 `bad_jwt`
 * before logout.go runs, so the session and its refresh token stay live; a live token signs out.
 */
function gotrue(refresh: (req: RecordedRequest) => Response) {
  const logouts: string[] = [];
  const rec = recordingFetch((req) => {
    if (req.url.pathname.endsWith("/token")) return refresh(req);
    if (req.url.pathname.endsWith("/logout")) {
      const token = (req.headers.get("authorization") ?? "").slice(7);
      logouts.push(token);
      return token === "access-1"
        ? jsonResponse({
          code: "bad_jwt",
          message: "invalid JWT: unable to parse or verify signature, token is expired",
        }, { status: 403 })
        : new Response(null, { status: 204 });
    }
    return jsonResponse({ id: "u1" });
  });
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch, retry: { maxAttempts: 1 } });
  return { rec, client, auth: createAuthClient(client), logouts };
}

Deno.test("a LOCAL sign-out of a lapsed session refreshes first, so GoTrue revokes the session", async () => {
  await withClock(async (clock) => {
    const g = gotrue(() => jsonResponse(sessionJson(2)));
    const m = createSessionManager(g.auth, g.client, { autoRefresh: false });
    await m.saveSession(decodeSession(sessionJson(1, { expires_in: 60 })));
    await clock.tickAsync(120_000);
    assert.equal(m.sessionState.value.kind, "Expired");
    assert.ok((await signOutCurrentSession(g.auth, m)).ok);
    // The lapsed token would have been refused (403) and the session left live on the server.
    assert.deepEqual(g.logouts, ["access-2"]);
    assert.equal(m.currentSession, null);
    m.dispose();
  });
});

Deno.test("a LOCAL sign-out of a lapsed session whose refresh fails still signs this device out", async () => {
  await withClock(async (clock) => {
    for (
      const answer of [
        // The session already ended on the server (invalid grant), or GoTrue is unreachable.
        () =>
          jsonResponse({ code: "session_expired", message: "Invalid Refresh Token" }, {
            status: 400,
          }),
        () => jsonResponse({ code: "unexpected_failure", message: "down" }, { status: 503 }),
      ]
    ) {
      const g = gotrue(answer);
      const m = createSessionManager(g.auth, g.client, { autoRefresh: false });
      await m.saveSession(decodeSession(sessionJson(1, { expires_in: 60 })));
      await clock.tickAsync(120_000);
      const r = await signOutCurrentSession(g.auth, m, { scope: SignOutScope.LOCAL });
      assert.ok(r.ok, r.ok ? "" : r.error.message);
      assert.equal(m.currentSession, null);
      assert.equal(g.client.accessToken, null);
      m.dispose();
    }
  });
});

Deno.test("a sign-out of a lapsed session whose refresh got new tokens but could not store them sends the new token", async () => {
  await withClock(async (clock) => {
    for (const scope of [SignOutScope.LOCAL, SignOutScope.GLOBAL, SignOutScope.OTHERS]) {
      const g = gotrue(() => jsonResponse(sessionJson(2)));
      // Saves the first session, then fails: the refresh's new tokens live in memory only.
      let saves = 0;
      let cleared = 0;
      let kept: Session | null = null;
      const storage = {
        save: (session: Session) =>
          ++saves > 1 ? Promise.reject(new Error("quota")) : Promise.resolve(void (kept = session)),
        load: () => Promise.resolve(kept),
        clear: () => {
          cleared++;
          return Promise.resolve();
        },
      };
      const m = createSessionManager(g.auth, g.client, { autoRefresh: false, storage });
      await m.saveSession(decodeSession(sessionJson(1, { expires_in: 60 })));
      await clock.tickAsync(120_000);
      assert.equal(m.sessionState.value.kind, "Expired");
      const r = await signOutCurrentSession(g.auth, m, { scope });
      // The lapsed token would be refused (403) and the refreshed session left live on the server.
      assert.deepEqual(g.logouts, ["access-2"]);
      if (scope === SignOutScope.OTHERS) {
        // This session is kept, live in memory only: the storage failure is still said.
        assert.ok(!r.ok && /refreshed but could not be stored/.test(r.error.message));
        assert.equal(m.currentSession?.accessToken, "access-2");
        assert.equal(cleared, 0);
      } else {
        assert.ok(r.ok, r.ok ? "" : r.error.message);
        assert.equal(m.currentSession, null);
        assert.equal(cleared, 1);
      }
      m.dispose();
    }
  });
});
