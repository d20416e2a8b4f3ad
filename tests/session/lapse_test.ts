// Findings of model-based testing of the session manager (random operation
// sequences against a fake GoTrue, fake time and slow or failing storage),
// each reduced to one sequence: lapses are seen when they happen, and a
// refresh or restore never leaves a session without its next refresh.
import assert from "node:assert/strict";
import { createAuthClient, decodeSession } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import { createSessionManager, InMemorySessionStorage } from "../../session/mod.ts";
import { BASE, KEY, sessionJson, withClock } from "./_helpers.ts";

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const b64u = (o: unknown) =>
  btoa(JSON.stringify(o)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
const jwt = (c: Record<string, unknown>) => `${b64u({ alg: "HS256", typ: "JWT" })}.${b64u(c)}.c2ln`;

Deno.test("a saved session without expiresIn lapses at its token's exp, in memory as after a restore", async () => {
  await withClock(async (clock) => {
    const client = createBaseClient(BASE, KEY, {
      fetch: () => Promise.resolve(json({}, 503)),
      retry: { maxAttempts: 1 },
      timeout: 0,
    });
    const storage = new InMemorySessionStorage();
    const m = createSessionManager(createAuthClient(client), client, {
      storage,
      autoRefresh: false,
    });
    const exp = Math.floor(Date.now() / 1000) + 20;
    const body = {
      access_token: jwt({ sub: "u1", exp }),
      refresh_token: "r1",
      expires_in: 0,
      token_type: "bearer",
      user: { id: "u1" },
    };
    await m.saveSession(decodeSession(body));
    await clock.tickAsync(10_000); // 10 s before the token's exp: live
    const before = m.sessionState.value.kind;
    await clock.tickAsync(20_000); // 10 s past it
    const after = m.sessionState.value.kind;
    const m2 = createSessionManager(createAuthClient(client), client, {
      storage,
      autoRefresh: false,
    });
    await m2.restoreSession();
    const restored = m2.sessionState.value.kind;
    m.dispose();
    m2.dispose();
    assert.deepEqual([before, after, restored], ["Authenticated", "Expired", "Expired"]);
  });
});

Deno.test("a refresh answered with a token whose expires_at is 40 s behind its expires_in (a device clock ahead) is live for its 30 s here; the spent token's timer is dropped", async () => {
  await withClock(async (clock) => {
    let calls = 0;
    const fetch = () => {
      calls++;
      // First answer: the device clock runs 40 s ahead of the server's, which wrote expires_at.
      const j = sessionJson(100 + calls, { expires_in: 30 });
      if (calls === 1) j.expires_at = Math.floor(Date.now() / 1000) - 10;
      return Promise.resolve(json(j));
    };
    const client = createBaseClient(BASE, KEY, { fetch, retry: { maxAttempts: 1 }, timeout: 0 });
    const m = createSessionManager(createAuthClient(client), client); // autoRefresh on
    await m.saveSession(decodeSession(sessionJson(1, { expires_in: 3600 }))); // timer at ~3540 s
    const r = await m.refreshSession(); // manual refresh, answered with that token
    assert.ok(r.ok);
    // Lapsed by the server's expires_at as this clock reads it; live by its 30 s from arrival.
    assert.equal(m.sessionState.value.kind, "Authenticated");
    await clock.tickAsync(120_000); // a short-lived token is refreshed within its life
    const kind = m.sessionState.value.kind, grants = calls;
    m.dispose();
    assert.ok(grants >= 2, "refreshed within 120 s, not at the spent token's ~3540 s");
    assert.equal(kind, "Authenticated");
  });
});

Deno.test("a refreshed token with less than the minimum gap left is reported Expired at its expiry, timed from its arrival", async () => {
  await withClock(async (clock) => {
    let calls = 0;
    const fetch = () => {
      calls++;
      if (calls > 1) return Promise.resolve(json({ msg: "unavailable" }, 503));
      const j = sessionJson(2, { expires_in: 30 });
      j.expires_at = Math.floor(Date.now() / 1000) + 5; // device clock 25 s ahead of the server's
      return Promise.resolve(json(j));
    };
    const client = createBaseClient(BASE, KEY, { fetch, retry: { maxAttempts: 1 }, timeout: 0 });
    const m = createSessionManager(createAuthClient(client), client); // autoRefresh on
    await m.saveSession(decodeSession(sessionJson(1, { expires_in: 3600 })));
    const heard: [string, number][] = [];
    const t0 = Date.now();
    m.sessionState.subscribe((s) => heard.push([s.kind, Date.now() - t0]));
    assert.ok((await m.refreshSession()).ok); // fresh token: 30 s from its arrival
    await clock.tickAsync(40_000); // every later refresh fails transiently
    m.dispose();
    const expired = heard.find(([k]) => k === "Expired");
    assert.ok(expired);
    assert.ok(
      expired[1] >= 29_000 && expired[1] <= 30_000 + 1_000,
      `Expired heard at +${expired[1]} ms, token lapsed at +30000 ms`,
    );
  });
});

Deno.test("an iterator of the state reads a lapse at each next(), not only when it was made", async () => {
  await withClock(async (clock) => {
    const client = createBaseClient(BASE, KEY, {
      fetch: () => Promise.resolve(json({}, 503)),
      retry: { maxAttempts: 1 },
      timeout: 0,
    });
    const m = createSessionManager(createAuthClient(client), client, { autoRefresh: false });
    await m.saveSession(decodeSession(sessionJson(1, { expires_in: 20 })));
    const it = m.sessionState[Symbol.asyncIterator](); // e.g. a `for await` loop set up at startup
    await clock.tickAsync(60_000); // 40 s past the expiry
    const first = (await it.next()).value!;
    await it.return?.();
    m.dispose();
    assert.equal(first.kind, "Expired");
  });
});

Deno.test("restoring a lapsed stored session while another session's refresh is in flight refreshes the restored one", async () => {
  await withClock(async (clock) => {
    const grants: string[] = [];
    let release!: () => void;
    const fetch = async (_: unknown, init?: RequestInit) => {
      const token = JSON.parse(String(init?.body ?? "{}")).refresh_token;
      grants.push(token);
      if (grants.length === 1) await new Promise<void>((r) => (release = r)); // slow network
      return json(sessionJson(100 + grants.length, { expires_in: 3600 }));
    };
    const client = createBaseClient(BASE, KEY, { fetch, retry: { maxAttempts: 1 }, timeout: 0 });
    const storage = new InMemorySessionStorage();
    const m = createSessionManager(createAuthClient(client), client, { storage }); // autoRefresh on
    await m.saveSession(decodeSession(sessionJson(1, { expires_in: 3600 })));
    const refreshing = m.refreshSession(); // refresh-1 in flight
    await clock.tickAsync(0);
    // Another tab signs in as B and stores it; this tab then restores (B's token has lapsed).
    storage.save(
      decodeSession(
        sessionJson(2, { expires_in: 3600, expires_at: Math.floor(Date.now() / 1000) - 10 }),
      ),
    );
    const restoring = m.restoreSession();
    await clock.tickAsync(0);
    release();
    const r = await restoring;
    await refreshing;
    await clock.tickAsync(600_000);
    const kind = m.sessionState.value.kind;
    m.dispose();
    // The restore must not share refresh-1's refresh (superseded by the restore): refresh-2 is
    // granted, and the restored session is live.
    assert.deepEqual(
      { restore: r.ok ? "ok" : r.error.category, refreshedB: grants.includes("refresh-2"), kind },
      { restore: "ok", refreshedB: true, kind: "Authenticated" },
    );
  });
});

Deno.test("failed retries of a lapsed session tell subscribers Expired once", async () => {
  await withClock(async (clock) => {
    let grants = 0;
    const fetch = () => (grants++, Promise.resolve(json({ msg: "unavailable" }, 503)));
    const client = createBaseClient(BASE, KEY, { fetch, retry: { maxAttempts: 1 }, timeout: 0 });
    const m = createSessionManager(createAuthClient(client), client, {
      retryBaseDelayMs: 1_000,
      retryMaxDelayMs: 5_000,
    });
    await m.saveSession(decodeSession(sessionJson(1, { expires_in: 60 })));
    const kinds: string[] = [];
    m.sessionState.subscribe((s) => kinds.push(s.kind));
    await clock.tickAsync(300_000);
    m.dispose();
    assert.ok(grants > 5, `retried ${grants} times`);
    assert.deepEqual(kinds, ["Authenticated", "Expired"]);
  });
});

Deno.test("a 429's Retry-After is honoured even when the token lapses sooner; the lapse is reported at it", async () => {
  await withClock(async (clock) => {
    const grants: number[] = [];
    const t0 = Date.now();
    const fetch = () => (grants.push(Date.now() - t0),
      Promise.resolve(
        new Response(JSON.stringify({ msg: "slow down" }), {
          status: 429,
          headers: { "content-type": "application/json", "retry-after": "50" },
        }),
      ));
    const client = createBaseClient(BASE, KEY, { fetch, retry: { maxAttempts: 1 }, timeout: 0 });
    const m = createSessionManager(createAuthClient(client), client);
    const heard: Array<[string, number]> = [];
    m.sessionState.subscribe((s) => heard.push([s.kind, Date.now() - t0]));
    await m.saveSession(decodeSession(sessionJson(1, { expires_in: 30 }))); // refresh due at +10 s
    await clock.tickAsync(59_000);
    const expired = heard.find(([kind]) => kind === "Expired");
    await clock.tickAsync(2_000);
    m.dispose();
    // The first refresh at +10 s, then not before the server's 50 s: +60 s, not at the expiry.
    assert.deepEqual(grants, [10_000, 60_000]);
    assert.ok(expired && expired[1] <= 30_000, JSON.stringify(heard));
  });
});

Deno.test("a GoTrue granting lifetimes of a millisecond or 1e308 seconds is not refreshed in a loop: at most once a second, and never", async () => {
  const cases: Array<[string, Record<string, unknown>, number]> = [
    // [what the refresh answers carry, its expiry fields, most grants in 10 minutes]
    ["a millisecond", { expires_in: 0.001 }, 601],
    ["a millisecond, with expires_at", { expires_in: 0.001, expires_at: "now" }, 601],
    ["one second (GoTrue's shortest)", { expires_in: 1, expires_at: "now+1" }, 601],
    ["1e308 seconds", { expires_in: 1e308 }, 1],
    ["1e308 seconds, at 1e308", { expires_in: 1e308, expires_at: 1e308 }, 1],
  ];
  for (const [what, fields, most] of cases) {
    await withClock(async (clock) => {
      let grants = 0;
      const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
        await new Request(input, init).text();
        const now = Date.now() / 1000;
        const at = fields.expires_at === "now"
          ? now + 0.001
          : fields.expires_at === "now+1"
          ? Math.floor(now) + 1
          : fields.expires_at;
        grants++;
        return json({
          ...sessionJson(grants + 1),
          expires_in: fields.expires_in,
          expires_at: at,
        });
      };
      const client = createBaseClient(BASE, KEY, { fetch, retry: { maxAttempts: 1 }, timeout: 0 });
      const m = createSessionManager(createAuthClient(client), client);
      // The first session lives 70 s: its refresh, at +10 s, brings the server's lifetime.
      await m.saveSession(decodeSession(sessionJson(1, { expires_in: 70 })));
      const t0 = Date.now();
      // In steps, so that a loop (thousands of grants a second) ends the test instead of hanging it.
      while (Date.now() - t0 < 600_000 && grants <= 10 * most + 10) await clock.tickAsync(1_000);
      m.dispose();
      assert.ok(grants >= 1 && grants <= most, `${what}: ${grants} grants in 10 minutes`);
    });
  }
});
