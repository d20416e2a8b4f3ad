// A call that sends several requests in turn finishes within its one `timeout`, counted from its
// start: the later request gets only the time left (they each got the whole timeout, so a call
// could take up to twice it), and with none left the call ends as the transport's timeout does.
import assert from "node:assert/strict";
import { createAuthClient, decodeSession, mfaChallengeAndVerify } from "../auth/mod.ts";
import { createBaseClient } from "../core/client.ts";
import type { ServiceResult } from "../core/result.ts";
import {
  createDatabaseClient,
  rpcGetMaybeSingleTyped,
  selectMaybeSingleTyped,
} from "../database/mod.ts";
import { createSessionManager, signOutCurrentSession } from "../session/mod.ts";
import { createStorageClient } from "../storage/client.ts";
import { createSignedRenderUrls } from "../storage/extensions.ts";
import { BASE, KEY, sessionJson, track, withClock } from "./session/_helpers.ts";

/** How one request is answered: after `ms` of (fake) time, or never ("hang"). */
type Step = { ms: number; answer: () => Response } | "hang";

/** A fetch that answers the requests whose path ends with a key as told; counts what it is sent. */
function timedFetch(steps: Record<string, Step[]>) {
  const sent: string[] = [];
  const fetch: typeof globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    const path = new URL(input instanceof Request ? input.url : String(input)).pathname;
    sent.push(`${init?.method ?? "GET"} ${path}`);
    const key = Object.keys(steps).find((k) => path.endsWith(k));
    const step = key === undefined ? "hang" : steps[key].shift() ?? "hang";
    return new Promise<Response>((resolve, reject) => {
      const signal = init?.signal;
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      if (step === "hang") return;
      if (step.ms === 0) resolve(step.answer());
      else setTimeout(() => resolve(step.answer()), step.ms);
    });
  }) as typeof globalThis.fetch;
  return { fetch, sent };
}

/** PostgREST 16's zero-or-many 406 under `client-error-verbosity = "minimal"`: no `details`. */
const minimal406 = () =>
  Response.json({
    code: "PGRST116",
    details: null,
    hint: null,
    message: "JSON object requested, multiple (or no) rows returned",
  }, { status: 406 });

/** Asserts the call ended as the transport's timeout of `ms` does, at `ms` after its start. */
function assertTimedOut(out: { at: number; r: ServiceResult<unknown> | null }, ms: number) {
  assert.equal(out.at, ms, `settled at ${out.at} ms, not at its timeout (${ms} ms)`);
  assert.equal(out.r?.errorOrNull()?.category, "TIMEOUT");
  assert.equal(out.r?.errorOrNull()?.message, `Request timed out after ${ms} ms`);
  assert.equal(out.r?.errorOrNull()?.status, null);
}

Deno.test("a maybe-single read's fallback gets only what its first request left of the timeout", async () => {
  await withClock(async (clock) => {
    for (const kind of ["select", "rpcGet"] as const) {
      const maybe = (db: ReturnType<typeof createDatabaseClient>, timeout?: number) =>
        kind === "select"
          ? selectMaybeSingleTyped<{ id: number }>(db, "todos", { timeout })
          : rpcGetMaybeSingleTyped<{ id: number }>(db, "by_id", { timeout });
      const at = kind === "select" ? "/todos" : "/by_id";
      // The first read takes 800 ms of 1000, the fallback list hangs: over at 1000 ms, not 1800.
      // The call's own timeout, then the client's when the call gives none.
      for (const own of [true, false]) {
        const f = timedFetch({ [at]: [{ ms: 800, answer: minimal406 }, "hang"] });
        const db = createDatabaseClient(createBaseClient(BASE, KEY, {
          fetch: f.fetch,
          retry: { maxAttempts: 1 },
          timeout: own ? 30_000 : 1000,
        }));
        const { out, done } = track(clock, () => maybe(db, own ? 1000 : undefined));
        await clock.tickAsync(1000);
        assert.equal(f.sent.length, 2, `${kind}: the fallback was sent`);
        assertTimedOut(out, 1000);
        await clock.tickAsync(2000);
        await done;
      }
      // The first answer takes the whole timeout: the fallback is not sent at all.
      {
        const f = timedFetch({ [at]: [{ ms: 1000, answer: minimal406 }] });
        const db = createDatabaseClient(createBaseClient(BASE, KEY, {
          fetch: f.fetch,
          retry: { maxAttempts: 1 },
        }));
        const { out, done } = track(clock, () => maybe(db, 1000));
        await clock.tickAsync(1000);
        await done;
        assertTimedOut(out, 1000);
        assert.equal(f.sent.length, 1, `${kind}: no fallback past the deadline`);
      }
      // Within the timeout the fallback answers: one row, then none.
      for (const [rows, want] of [['[{"id":7}]', { id: 7 }], ["[]", null]] as const) {
        const f = timedFetch({
          [at]: [{ ms: 300, answer: minimal406 }, { ms: 300, answer: () => new Response(rows) }],
        });
        const db = createDatabaseClient(createBaseClient(BASE, KEY, { fetch: f.fetch }));
        const { out, done } = track(clock, () => maybe(db, 1000));
        await clock.tickAsync(600);
        await done;
        assert.deepEqual(out.r?.getOrThrow(), want);
        assert.equal(out.at, 600);
      }
      // The caller's signal still cuts the fallback.
      {
        const f = timedFetch({ [at]: [{ ms: 300, answer: minimal406 }, "hang"] });
        const db = createDatabaseClient(createBaseClient(BASE, KEY, { fetch: f.fetch }));
        const ctl = new AbortController();
        const { out, done } = track(
          clock,
          () =>
            kind === "select"
              ? selectMaybeSingleTyped(db, "todos", { timeout: 1000, signal: ctl.signal })
              : rpcGetMaybeSingleTyped(db, "by_id", { timeout: 1000, signal: ctl.signal }),
        );
        await clock.tickAsync(500);
        ctl.abort();
        await done;
        assert.equal(f.sent.length, 2);
        assert.equal(out.r?.errorOrNull()?.category, "CANCELLED");
        assert.equal(out.at, 500);
      }
    }
  });
});

/** GoTrue whose `/token` takes `refreshMs` and whose `/logout` hangs (or answers 204 at once). */
function gotrue(refreshMs: number, logout: "hang" | "answer", clientTimeout: number) {
  const f = timedFetch({
    "/token": [{ ms: refreshMs, answer: () => Response.json(sessionJson(2)) }],
    "/logout": [
      logout === "hang" ? "hang" : {
        ms: 0,
        answer: () => new Response(null, { status: 204 }),
      },
    ],
  });
  const client = createBaseClient(BASE, KEY, {
    fetch: f.fetch,
    retry: { maxAttempts: 1 },
    timeout: clientTimeout,
  });
  return { f, client, auth: createAuthClient(client) };
}

Deno.test("signOutCurrentSession: the logout after a lapsed session's refresh gets only the time left", async () => {
  await withClock(async (clock) => {
    // The call's own timeout, then the client's when the call gives none.
    for (const own of [true, false]) {
      const g = gotrue(800, "hang", own ? 30_000 : 1000);
      const m = createSessionManager(g.auth, g.client, { autoRefresh: false });
      await m.saveSession(decodeSession(sessionJson(1, { expires_in: 60 })));
      await clock.tickAsync(120_000);
      assert.equal(m.sessionState.value.kind, "Expired");
      const { out, done } = track(
        clock,
        () => signOutCurrentSession(g.auth, m, own ? { timeout: 1000 } : {}),
      );
      await clock.tickAsync(1000);
      assert.deepEqual(g.f.sent, ["POST /auth/v1/token", "POST /auth/v1/logout"]);
      assertTimedOut(out, 1000);
      assert.equal(m.currentSession?.accessToken, "access-2", "nothing was signed out");
      await clock.tickAsync(2000);
      await done;
      m.dispose();
    }
    // Within the timeout the refresh and the sign-out both go through.
    const g = gotrue(300, "answer", 30_000);
    const m = createSessionManager(g.auth, g.client, { autoRefresh: false });
    await m.saveSession(decodeSession(sessionJson(1, { expires_in: 60 })));
    await clock.tickAsync(120_000);
    const { out, done } = track(clock, () => signOutCurrentSession(g.auth, m, { timeout: 1000 }));
    await clock.tickAsync(300);
    await done;
    assert.ok(out.r?.ok, out.r?.errorOrNull()?.message);
    assert.equal(out.at, 300);
    assert.equal(m.currentSession, null);
    m.dispose();
    // The caller's signal still cuts the sign-out after the refresh.
    const h = gotrue(300, "hang", 30_000);
    const n = createSessionManager(h.auth, h.client, { autoRefresh: false });
    await n.saveSession(decodeSession(sessionJson(1, { expires_in: 60 })));
    await clock.tickAsync(120_000);
    const ctl = new AbortController();
    const cut = track(
      clock,
      () => signOutCurrentSession(h.auth, n, { timeout: 1000, signal: ctl.signal }),
    );
    await clock.tickAsync(500);
    ctl.abort();
    await cut.done;
    assert.deepEqual(h.f.sent, ["POST /auth/v1/token", "POST /auth/v1/logout"]);
    assert.equal(cut.out.r?.errorOrNull()?.category, "CANCELLED");
    assert.equal(cut.out.at, 500);
    n.dispose();
  });
});

Deno.test("signOutCurrentSession: the wait for a restore counts against the timeout too", async () => {
  await withClock(async (clock) => {
    const g = gotrue(0, "hang", 30_000);
    // A storage that takes 800 ms to read a live session.
    const storage = {
      save: () => {},
      clear: () => {},
      load: () =>
        new Promise<ReturnType<typeof decodeSession>>((resolve) =>
          setTimeout(() => resolve(decodeSession(sessionJson(1))), 800)
        ),
    };
    const m = createSessionManager(g.auth, g.client, { autoRefresh: false, storage });
    const restoring = m.initialize();
    assert.equal(m.sessionState.value.kind, "Loading");
    const { out, done } = track(clock, () => signOutCurrentSession(g.auth, m, { timeout: 1000 }));
    await clock.tickAsync(1000);
    assert.deepEqual(g.f.sent, ["POST /auth/v1/logout"]);
    assertTimedOut(out, 1000);
    await clock.tickAsync(2000);
    await done;
    await restoring;
    m.dispose();
  });
});

Deno.test("mfaChallengeAndVerify: the verify gets only what the challenge left of the timeout", async () => {
  await withClock(async (clock) => {
    const challenge = () => Response.json({ id: "c1", type: "totp", expires_at: 2_000_000_000 });
    const f = timedFetch({ "/challenge": [{ ms: 800, answer: challenge }], "/verify": ["hang"] });
    const auth = createAuthClient(createBaseClient(BASE, KEY, { fetch: f.fetch }));
    const { out, done } = track(
      clock,
      () => mfaChallengeAndVerify(auth, "f1", "123456", "access-1", { timeout: 1000 }),
    );
    await clock.tickAsync(1000);
    assert.deepEqual(f.sent, [
      "POST /auth/v1/factors/f1/challenge",
      "POST /auth/v1/factors/f1/verify",
    ]);
    assertTimedOut(out, 1000);
    await clock.tickAsync(2000);
    await done;
  });
});

Deno.test("updateBucket: the read back after the update gets only the time left", async () => {
  await withClock(async (clock) => {
    const f = timedFetch({
      "/bucket/b": [{ ms: 800, answer: () => Response.json({ message: "Successfully updated" }) }],
    });
    const storage = createStorageClient(createBaseClient(BASE, KEY, { fetch: f.fetch }));
    const { out, done } = track(
      clock,
      () => storage.updateBucket("b", { public: true, timeout: 1000 }),
    );
    await clock.tickAsync(1000);
    assert.deepEqual(f.sent, ["PUT /storage/v1/bucket/b", "GET /storage/v1/bucket/b"]);
    assertTimedOut(out, 1000);
    await clock.tickAsync(2000);
    await done;
  });
});

Deno.test("createSignedRenderUrls: a path cut by the deadline says the call's timeout, not the time left", async () => {
  await withClock(async (clock) => {
    const signed = () => Response.json({ signedURL: "/render/image/sign/b/a.png?token=t" });
    const f = timedFetch({ "/a.png": [{ ms: 800, answer: signed }, "hang"] });
    const storage = createStorageClient(createBaseClient(BASE, KEY, { fetch: f.fetch }));
    const { out, done } = track(
      clock,
      () =>
        createSignedRenderUrls(storage, "b", ["a.png", "a.png"], 60, { width: 8 }, {
          timeout: 1000,
        }),
    );
    await clock.tickAsync(1000);
    assert.equal(f.sent.length, 2);
    assertTimedOut(out, 1000);
    await done;
  });
});
