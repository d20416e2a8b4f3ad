// Findings of a review of the session manager and its helpers, each reduced to
// one sequence: a refresh's new tokens are live before they are stored, a
// disposed manager leaves the base client alone, a sign-out during a restore
// signs out what the restore finds, restored sessions are masked, a 429's
// Retry-After is honoured beyond the backoff's cap, and a lapsed restored
// session keeps its token on the base client.
import assert from "node:assert/strict";
import { createAuthClient, decodeSession, type Session } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import {
  createSessionManager,
  DEFAULT_KEY,
  importAuthToken,
  InMemorySessionStorage,
  KeyValueSessionStorage,
  parseStoredSession,
  serializeSession,
  signInWith,
  signInWithIdTokenAndSaveSession,
  signOutCurrentSession,
  updateUserForCurrentSession,
} from "../../session/mod.ts";
import { failure, success } from "../../core/result.ts";
import { BASE, KEY, sessionJson, withClock } from "./_helpers.ts";

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

type Handler = (req: Request, path: string) => Response | Promise<Response>;

/** A client whose fetch answers through `handler` and logs `METHOD path`. */
function server(handler: Handler) {
  const log: string[] = [];
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    log.push(`${req.method} ${url.pathname}`);
    return Promise.resolve(handler(req, url.pathname));
  };
  const client = createBaseClient(BASE, KEY, { fetch, retry: { maxAttempts: 1 }, timeout: 0 });
  return { client, auth: createAuthClient(client), log };
}

Deno.test("a user update saved while a refresh is being stored keeps the new tokens, in memory and in storage", async () => {
  await withClock(async (clock) => {
    let n = 1;
    const { client, auth } = server((req, path) =>
      path.endsWith("/token")
        ? json(sessionJson(++n))
        : json({ id: "u1", email: req.method === "PUT" ? "new@x.io" : "a@x.io" })
    );
    // An asynchronous key-value store whose writes take 50 ms.
    const data = new Map<string, string>();
    const store = {
      get: (k: string) => data.get(k) ?? null,
      set: (k: string, v: string) =>
        new Promise<void>((r) =>
          setTimeout(() => {
            data.set(k, v);
            r();
          }, 50)
        ),
      remove: (k: string) => void data.delete(k),
    };
    const storage = new KeyValueSessionStorage(store);
    const m = createSessionManager(auth, client, { storage, autoRefresh: false });
    const events: string[] = [];
    m.onAuthStateChange((e, s) => events.push(`${e}:${s?.refreshToken ?? null}`), {
      emitInitialSession: false,
    });
    const first = m.saveSession(decodeSession(sessionJson(1)));
    await clock.tickAsync(100);
    await first;
    const refreshed = m.refreshSession();
    await clock.tickAsync(10); // answered; the save of refresh-2 is still pending
    const updated = updateUserForCurrentSession(auth, m, { data: { a: 1 } });
    await clock.tickAsync(500);
    assert.ok((await refreshed).ok);
    assert.ok((await updated).ok);
    m.dispose();
    assert.equal(m.currentSession?.refreshToken, "refresh-2");
    assert.equal(JSON.parse(data.get(DEFAULT_KEY)!).refreshToken, "refresh-2");
    assert.deepEqual(events, [
      "SIGNED_IN:refresh-1",
      "TOKEN_REFRESHED:refresh-2",
      "USER_UPDATED:refresh-2",
    ]);
  });
});

Deno.test("a refresh answered after dispose() leaves the token another request has set on the client", async () => {
  let answer!: (r: Response) => void;
  const { client, auth } = server((_req, path) =>
    path.endsWith("/token") ? new Promise<Response>((r) => (answer = r)) : json({ id: "u1" })
  );
  const m1 = createSessionManager(auth, client, { autoRefresh: false });
  await m1.saveSession(decodeSession(sessionJson(1)));
  const pending = m1.refreshSession();
  await new Promise((r) => setTimeout(r, 0));
  m1.dispose();
  assert.equal(client.accessToken, null, "dispose takes its own token back");
  // The next request reuses the base client with its own manager.
  const m2 = createSessionManager(auth, client, { autoRefresh: false });
  await m2.saveSession(decodeSession({ ...sessionJson(7), user: { id: "u2" } }));
  answer(json({ code: "refresh_token_not_found", msg: "Invalid Refresh Token" }, 400));
  assert.equal((await pending).ok, false);
  assert.equal(client.accessToken, "access-7");
  assert.equal(m2.sessionState.value.kind, "Authenticated");
  m2.dispose();
});

/** A key-value store holding session 1, whose reads take 20 ms (a remote store). */
function slowReadStore(stored: boolean) {
  const data = new Map<string, string>();
  if (stored) data.set(DEFAULT_KEY, serializeSession(decodeSession(sessionJson(1))));
  const store = {
    get: (k: string) =>
      new Promise<string | null>((r) => setTimeout(() => r(data.get(k) ?? null), 20)),
    set: (k: string, v: string) => void data.set(k, v),
    remove: (k: string) => void data.delete(k),
  };
  return { data, storage: new KeyValueSessionStorage(store) };
}

Deno.test("signOutCurrentSession during a restore waits for it and signs the restored session out", async () => {
  await withClock(async (clock) => {
    const { client, auth, log } = server((_req, path) =>
      path.endsWith("/logout") ? new Response(null, { status: 204 }) : json({ id: "u1" })
    );
    const { data, storage } = slowReadStore(true);
    const m = createSessionManager(auth, client, { storage, autoRefresh: false });
    const init = m.initialize();
    assert.equal(m.sessionState.value.kind, "Loading");
    const out = signOutCurrentSession(auth, m);
    await clock.tickAsync(50);
    assert.ok((await out).ok);
    await init;
    m.dispose();
    assert.deepEqual(log, ["POST /auth/v1/logout"]);
    assert.equal(m.sessionState.value.kind, "NotAuthenticated");
    assert.equal(client.accessToken, null);
    assert.equal(data.has(DEFAULT_KEY), false);
  });
});

Deno.test("signOutCurrentSession during a restore: an empty storage is no session, an abort ends only the wait", async () => {
  await withClock(async (clock) => {
    const { client, auth, log } = server(() => new Response(null, { status: 204 }));
    const empty = createSessionManager(auth, client, {
      storage: slowReadStore(false).storage,
      autoRefresh: false,
    });
    void empty.initialize();
    const strict = signOutCurrentSession(auth, empty, { succeedIfNoSession: false });
    await clock.tickAsync(50);
    const none = await strict;
    assert.equal(!none.ok && none.error.category, "NO_SESSION");
    empty.dispose();

    const kept = createSessionManager(auth, client, {
      storage: slowReadStore(true).storage,
      autoRefresh: false,
    });
    const init = kept.initialize();
    const ac = new AbortController();
    const out = signOutCurrentSession(auth, kept, { signal: ac.signal });
    ac.abort();
    const r = await out;
    assert.equal(!r.ok && r.error.category, "CANCELLED");
    await clock.tickAsync(50);
    assert.ok((await init).ok);
    assert.equal(kept.sessionState.value.kind, "Authenticated");
    assert.deepEqual(log, []);
    kept.dispose();
  });
});

Deno.test("a session restored from a custom storage that loads plain objects is held as a masked copy", async () => {
  const { client, auth } = server(() => json({ id: "u1" }));
  let row: string | null = null; // a database column holding the session JSON
  const storage = {
    save: (s: Session) => void (row = JSON.stringify(s)),
    load: () => (row === null ? null : JSON.parse(row) as Session),
    clear: () => void (row = null),
  };
  const body = {
    ...sessionJson(1),
    access_token: "SECRET-ACCESS",
    refresh_token: "SECRET-REFRESH",
  };
  const m1 = createSessionManager(auth, client, { storage, autoRefresh: false });
  await m1.saveSession(decodeSession(body));
  m1.dispose();
  const m2 = createSessionManager(auth, client, { storage, autoRefresh: false });
  const r = await m2.restoreSession();
  m2.dispose();
  assert.ok(r.ok);
  for (const shown of [r.value, m2.currentSession, m2.sessionState.value]) {
    assert.doesNotMatch(Deno.inspect(shown, { depth: 8 }), /SECRET/);
  }
  assert.doesNotMatch(String(m2.currentSession), /SECRET/);
  assert.equal(m2.currentSession?.refreshToken, "SECRET-REFRESH", "the values themselves are kept");
});

Deno.test("a 429's Retry-After longer than retryMaxDelayMs is honoured, not cut to the backoff's cap", async () => {
  await withClock(async (clock) => {
    const t0 = Date.now();
    const grants: number[] = [];
    const { client, auth } = server((_req, path) => {
      if (!path.endsWith("/token")) return json({ id: "u1" });
      grants.push((Date.now() - t0) / 1000);
      return new Response(JSON.stringify({ msg: "rate limited" }), {
        status: 429,
        headers: { "content-type": "application/json", "retry-after": "300" },
      });
    });
    const m = createSessionManager(auth, client); // buffer 60 s, retryMaxDelayMs 60 s
    const lapsedAt: number[] = [];
    m.sessionState.subscribe((s) =>
      s.kind === "Expired" && lapsedAt.push((Date.now() - t0) / 1000)
    );
    await m.saveSession(decodeSession(sessionJson(1, { expires_in: 3600 })));
    await clock.tickAsync(3_540_000 + 400_000);
    m.dispose();
    // Due at 3540 s; the server asked for 300 s more: 3840 s (the lapse is reported at 3600 s).
    assert.deepEqual(grants, [3540, 3840]);
    assert.deepEqual(lapsedAt, [3600]);
  });
});

Deno.test("a lapsed session restored from storage keeps its token on the base client while it cannot be refreshed", async () => {
  await withClock(async (clock) => {
    for (const autoRefresh of [true, false]) {
      const { client, auth } = server((_req, path) =>
        path.endsWith("/token") ? new Response("down", { status: 503 }) : json({ id: "u1" })
      );
      const storage = new InMemorySessionStorage();
      const lapsedAt = Math.floor(Date.now() / 1000) - 10;
      storage.save(decodeSession(sessionJson(1, { expires_in: 3600, expires_at: lapsedAt })));
      const m = createSessionManager(auth, client, { storage, autoRefresh });
      const r = await m.initialize();
      await clock.tickAsync(5_000);
      const kind = m.sessionState.value.kind;
      const applied = client.accessToken;
      m.dispose();
      assert.equal(r.ok, false);
      assert.equal(kind, "Expired", `autoRefresh ${autoRefresh}`);
      // Requests fail with 401 rather than running as the anonymous key.
      assert.equal(applied, "access-1", `autoRefresh ${autoRefresh}`);
      assert.equal(m.accessToken, null, "a lapsed session is not live");
      assert.equal(client.accessToken, null, "dispose takes it back");
    }
  });
});

Deno.test("a storage failure's cause hides the provider's tokens too", async () => {
  const { client, auth } = server(() =>
    json({
      ...sessionJson(1),
      provider_token: "provider-secret-abcdef",
      provider_refresh_token: "provider-refresh-uvwxyz",
    })
  );
  // A store whose error echoes what it was given.
  const storage = {
    save(s: Session): void {
      throw new Error(`cannot write ${JSON.stringify(s)}`);
    },
    load: () => null,
    clear: () => {},
  };
  const m = createSessionManager(auth, client, { storage, autoRefresh: false });
  const r = await signInWithIdTokenAndSaveSession(auth, m, "google", "id-token");
  m.dispose();
  assert.equal(r.errorOrNull()?.category, "UNKNOWN");
  const shown = Deno.inspect(r, { depth: 10 });
  for (const secret of ["provider-secret-abcdef", "provider-refresh-uvwxyz", "refresh-1"]) {
    assert.ok(!shown.includes(secret), secret);
  }
});

Deno.test("native sign-in: an onCredential that throws ends the sign-in as a Failure, nothing redeemed; an async one is waited for", async () => {
  const { auth, log } = server(() => json(sessionJson(1)));
  const provider = {
    provider: "apple" as const,
    signIn: () => Promise.resolve(success({ provider: "apple" as const, idToken: "id-token" })),
  };
  for (
    const onCredential of [() => {
      throw new Error("callback bug");
    }, () => Promise.reject(new Error("async callback bug"))]
  ) {
    const r = await signInWith(auth, provider, { onCredential });
    assert.equal(r.errorOrNull()?.category, "UNKNOWN");
    assert.match(
      r.errorOrNull()!.message,
      /^Cannot sign in as 'onCredential' threw: .*callback bug$/,
    );
  }
  assert.deepEqual(log, []);
  const order: string[] = [];
  const ok = await signInWith(auth, provider, {
    onCredential: async () => {
      await new Promise((r) => setTimeout(r, 5));
      order.push(`callback done, ${log.length} requests`);
    },
  });
  assert.ok(ok.ok);
  assert.deepEqual(order, ["callback done, 0 requests"]);
  assert.deepEqual(log, ["POST /auth/v1/token"]);
});

Deno.test("a session the manager cannot hold is INVALID_ARGUMENT, not a storage fault 'applied': importAuthToken checks expiresIn before any request", async () => {
  const { client, auth, log } = server(() => json({ ...sessionJson(1), expires_in: -1 }));
  const m = createSessionManager(auth, client, { autoRefresh: false });
  for (const expiresIn of [-5, NaN, Infinity, "3600" as never]) {
    const r = await importAuthToken(auth, m, "access-1", { expiresIn });
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", String(expiresIn));
    assert.match(r.errorOrNull()!.message, /'expiresIn' must be a non-negative number of seconds/);
  }
  assert.deepEqual(log, []);
  // A server answer with an unusable expiry: refused as such, nothing applied.
  const r = await signInWithIdTokenAndSaveSession(auth, m, "google", "id-token");
  assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(r.errorOrNull()!.message, /^Cannot save the session as its 'expiresIn'/);
  assert.equal(client.accessToken, null);
  assert.equal(m.sessionState.value.kind, "NotAuthenticated");
  m.dispose();
});

/** A key-value storage whose writes and removals take 50 ms (a remote store). */
function slowWrites() {
  const data = new Map<string, string>();
  const slow = <T>(f: () => T) => new Promise<T>((r) => setTimeout(() => r(f()), 50));
  const storage = new KeyValueSessionStorage({
    get: (k) => data.get(k) ?? null,
    set: (k, v) => slow(() => void data.set(k, v)),
    remove: (k) => slow(() => void data.delete(k)),
  });
  return { data, storage };
}

Deno.test("a user update answered while a sign-out is being stored does not bring the session back", async () => {
  await withClock(async (clock) => {
    let answerPut!: () => void;
    const { client, auth } = server((req, path) => {
      if (path.endsWith("/logout")) return new Response(null, { status: 204 });
      if (req.method === "PUT") {
        return new Promise((r) => (answerPut = () => r(json({ id: "u1", email: "new@x.io" }))));
      }
      return json({ id: "u1" });
    });
    const { data, storage } = slowWrites();
    const m = createSessionManager(auth, client, { storage, autoRefresh: false });
    const events: string[] = [];
    m.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
    const saving = m.saveSession(decodeSession(sessionJson(1)));
    await clock.tickAsync(60);
    await saving;
    const update = updateUserForCurrentSession(auth, m, { data: { theme: "dark" } });
    await clock.tickAsync(1);
    const out = signOutCurrentSession(auth, m);
    await clock.tickAsync(10); // the clear is being stored
    assert.equal(m.sessionState.value.kind, "NotAuthenticated", "forgotten in memory at once");
    assert.equal(client.accessToken, null);
    answerPut();
    await clock.tickAsync(200);
    assert.ok((await out).ok);
    // The server did update the user; the ended session is not saved back.
    assert.ok((await update).ok);
    assert.equal(m.sessionState.value.kind, "NotAuthenticated");
    assert.equal(client.accessToken, null);
    assert.equal(data.has(DEFAULT_KEY), false);
    assert.deepEqual(events, ["SIGNED_IN", "SIGNED_OUT"]);
    m.dispose();
  });
});

Deno.test("startAutoRefresh after the device slept past the expiry refreshes at once, not when the old timer would fire", async () => {
  await withClock(async (clock) => {
    let n = 1;
    const { client, auth, log } = server((_req, path) =>
      path.endsWith("/token") ? json(sessionJson(++n)) : json({ id: "u1" })
    );
    const m = createSessionManager(auth, client); // auto-refresh on
    await m.saveSession(decodeSession(sessionJson(1))); // refresh due in about 3540 s
    await clock.tickAsync(1_000);
    // Asleep for 2 h: the wall clock moves on, the pending timer does not.
    clock.setSystemTime(Date.now() + 7_200_000);
    assert.equal(m.sessionState.value.kind, "Expired");
    m.startAutoRefresh(); // what an app calls when it comes back to the foreground
    await clock.tickAsync(1_000);
    assert.deepEqual(log, ["POST /auth/v1/token"]);
    assert.equal(m.sessionState.value.kind, "Authenticated");
    assert.equal(m.currentSession?.refreshToken, "refresh-2");
    m.dispose();
  });
});

Deno.test("a listener told INITIAL_SESSION of a session hears its SIGNED_OUT, even right after an earlier one", async () => {
  await withClock(async (clock) => {
    const { client, auth } = server(() => json({ id: "u1" }));
    const { storage } = slowWrites();
    const m = createSessionManager(auth, client, { storage, autoRefresh: false });
    const first = m.saveSession(decodeSession(sessionJson(1)));
    await clock.tickAsync(60);
    await first;
    const clearing = m.clearSession(); // SIGNED_OUT for session 1
    await clock.tickAsync(60);
    await clearing;
    const second = m.saveSession(decodeSession(sessionJson(2))); // stored in 50 ms
    const seen: string[] = [];
    m.onAuthStateChange((e, s) => seen.push(`${e}:${s?.refreshToken ?? null}`));
    const out = m.clearSession(); // session 2 signed out before its save finished
    await clock.tickAsync(200);
    await second;
    await out;
    assert.equal(m.sessionState.value.kind, "NotAuthenticated");
    assert.deepEqual(seen, ["INITIAL_SESSION:refresh-2", "SIGNED_OUT:null"]);
    m.dispose();
  });
});

Deno.test("a stored session belongs to its project: another project's manager on the same storage key neither uses nor sends its tokens, nor clears it", async () => {
  const map = new Map<string, string>();
  const store = {
    get: (k: string) => map.get(k) ?? null,
    set: (k: string, v: string) => void map.set(k, v),
    remove: (k: string) => void map.delete(k),
  };
  const make = (url: string) => {
    const log: string[] = [];
    const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      log.push(`${req.method} ${new URL(req.url).host} ${req.headers.get("authorization")}`);
      return Promise.resolve(json(sessionJson(9)));
    };
    const client = createBaseClient(url, KEY, { fetch, retry: { maxAttempts: 1 }, timeout: 0 });
    const manager = createSessionManager(createAuthClient(client), client, {
      storage: new KeyValueSessionStorage(store), // the default key, for both projects
      autoRefresh: false,
    });
    return { client, manager, log };
  };
  const a = make("https://project-a.example");
  await a.manager.saveSession(decodeSession(sessionJson(1)));
  assert.equal(JSON.parse(map.get(DEFAULT_KEY)!).project, "https://project-a.example");
  // A refresh stores its session tagged too.
  (await a.manager.refreshSession()).getOrThrow();
  const stored = map.get(DEFAULT_KEY)!;
  assert.equal(JSON.parse(stored).refreshToken, "refresh-9");
  assert.equal(JSON.parse(stored).project, "https://project-a.example");

  // Project B, same key: no session, no token on its client, nothing sent, A's left in place.
  const b = make("https://project-b.example");
  const restored = await b.manager.initialize();
  assert.equal(restored.ok, false);
  assert.equal(b.manager.currentSession, null);
  assert.equal(b.client.accessToken, null);
  assert.deepEqual(b.log, []);
  assert.equal(map.get(DEFAULT_KEY), stored);

  // Project A's own manager restores it; the tag does not show on the session it holds.
  const again = make("https://project-a.example");
  const mine = (await again.manager.initialize()).getOrThrow();
  assert.equal(mine.accessToken, "access-9");
  assert.equal("project" in mine, false);
  assert.equal(again.client.accessToken, "access-9");

  // A session without a tag (a custom storage keeping only the document's fields) is taken.
  const untagged = JSON.parse(stored);
  delete untagged.project;
  map.set(DEFAULT_KEY, JSON.stringify(untagged));
  const c = make("https://project-c.example");
  assert.equal((await c.manager.initialize()).getOrThrow().accessToken, "access-9");
});

Deno.test("SessionConfig.project: a server reaching the project through another URL shares the browser's session when both name the same project; null neither tags nor checks", async () => {
  const map = new Map<string, string>();
  const store = {
    get: (k: string) => map.get(k) ?? null,
    set: (k: string, v: string) => void map.set(k, v),
    remove: (k: string) => void map.delete(k),
  };
  const make = (url: string, project?: string | null) => {
    const client = createBaseClient(url, KEY, {
      fetch: () => Promise.resolve(json(sessionJson(9))),
      retry: { maxAttempts: 1 },
      timeout: 0,
    });
    const manager = createSessionManager(createAuthClient(client), client, {
      storage: new KeyValueSessionStorage(store),
      autoRefresh: false,
      ...(project === undefined ? {} : { project }),
    });
    return { client, manager };
  };
  const browser = make("https://abcd.example", "abcd");
  await browser.manager.saveSession(decodeSession(sessionJson(1)));
  assert.equal(JSON.parse(map.get(DEFAULT_KEY)!).project, "abcd");
  // The server's internal address, same project name: the browser's session.
  const server = make("http://kong:8000", "abcd");
  assert.equal((await server.manager.initialize()).getOrThrow().accessToken, "access-1");
  // Left at its default (the URL), the internal address is another project.
  assert.equal((await make("http://kong:8000").manager.initialize()).ok, false);
  // null: stored untagged, and any session is taken.
  const open = make("http://kong:8000", null);
  assert.equal((await open.manager.initialize()).getOrThrow().accessToken, "access-1");
  await open.manager.saveSession(decodeSession(sessionJson(2)));
  assert.equal("project" in JSON.parse(map.get(DEFAULT_KEY)!), false);
  // A project that names nothing is refused when the manager is made.
  for (const bad of ["", "  ", 42, {}]) {
    assert.throws(() => make("https://abcd.example", bad as string), TypeError, String(bad));
  }
});

Deno.test("native sign-in failures do not quote the credential: a provider's or onCredential's error naming the token is redacted, message and cause", async () => {
  const idToken = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJl";
  const nonce = "raw-nonce-0123456789";
  const { auth, log } = server(() => json({}));
  const throwing = {
    provider: "apple",
    signIn: () => {
      throw new Error(`verification failed for ${idToken}`);
    },
  };
  const r1 = await signInWith(auth, throwing as never);
  const issuing = {
    provider: "apple",
    signIn: () => Promise.resolve(success({ provider: "apple", idToken, nonce })),
  };
  const r2 = await signInWith(auth, issuing as never, {
    onCredential: (c) => {
      throw new Error(`rejected credential ${c.idToken} nonce ${c.nonce}`);
    },
  });
  for (const r of [r1, r2]) {
    assert.equal(r.errorOrNull()?.category, "UNKNOWN");
    for (
      const shown of [
        r.errorOrNull()!.message,
        String(r.errorOrNull()),
        Deno.inspect(r, { depth: 8 }),
      ]
    ) {
      assert.ok(!shown.includes(idToken), shown);
      assert.ok(!shown.includes(nonce), shown);
    }
  }
  assert.match(
    r2.errorOrNull()!.message,
    /^Cannot sign in as 'onCredential' threw: .*rejected credential/,
  );
  assert.deepEqual(log, []);
});

Deno.test("a native module's rejection keeps its code on the failure's cause (callers branch on SIGN_IN_CANCELLED)", async () => {
  const { auth } = server(() => json({}));
  const rejection = Object.assign(new Error("Sign in action cancelled"), {
    code: "SIGN_IN_CANCELLED",
    userInfo: null,
    nativeStackAndroid: [],
  });
  const r = await signInWith(auth, {
    provider: "google",
    signIn: () => {
      throw rejection;
    },
  } as never);
  const cause = r.errorOrNull()?.cause as { code?: unknown; userInfo?: unknown };
  assert.equal(cause.code, "SIGN_IN_CANCELLED");
  assert.equal("userInfo" in cause, false, "other fields stay dropped");
});

Deno.test("native sign-in honours its signal while the provider or onCredential has not answered", async () => {
  const { auth, log } = server(() => json({}));
  const never = { provider: "apple", signIn: () => new Promise(() => {}) };
  const issuing = {
    provider: "apple",
    signIn: () => Promise.resolve(success({ provider: "apple", idToken: "id-token-0123456789" })),
  };
  for (
    const [provider, onCredential] of [
      [never, undefined],
      [issuing, () => new Promise<void>(() => {})],
    ] as const
  ) {
    const ac = new AbortController();
    const pending = signInWith(auth, provider as never, { signal: ac.signal, onCredential });
    setTimeout(() => ac.abort(), 5);
    const r = await pending;
    assert.equal(r.errorOrNull()?.category, "CANCELLED");
  }
  assert.deepEqual(log, []);
});

Deno.test("native sign-in: a signal of the wrong type is refused before the sheet; the provider is called in the caller's turn; a cause's code is redacted", async () => {
  const { auth } = server(() => json({}));
  let shown = 0;
  const counting = {
    provider: "apple",
    signIn: () => {
      shown++;
      return Promise.resolve(success({ provider: "apple", idToken: "id-token-0123456789" }));
    },
  };
  const wrong = await signInWith(auth, counting as never, { signal: true as never });
  assert.equal(wrong.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(shown, 0);
  // Synchronously, as a popup opened from a click needs.
  let sync = false;
  const live = new AbortController();
  const started = signInWith(auth, {
    provider: "apple",
    signIn: () => {
      sync = true;
      return Promise.resolve(failure({ message: "no", category: "UNKNOWN" }));
    },
  } as never, { signal: live.signal });
  assert.equal(sync, true, "signIn ran before signInWith returned");
  await started;
  // A code is text the thrower chose: redacted as the message is.
  const idToken = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJl";
  const r = await signInWith(auth, {
    provider: "apple",
    signIn: () => Promise.resolve(success({ provider: "apple", idToken })),
  } as never, {
    onCredential: () => {
      throw Object.assign(new Error("bad"), { code: idToken, extra: 1 });
    },
  });
  assert.equal((r.errorOrNull()?.cause as { code?: string }).code?.includes(idToken), false);
});

Deno.test("a bridge rejecting with a plain { code, message } object: the failure says its message and its cause keeps the code", async () => {
  const { auth } = server(() => json({}));
  const r = await signInWith(auth, {
    provider: "google",
    signIn: () => Promise.reject({ code: "SIGN_IN_CANCELLED", message: "The user cancelled" }),
  } as never);
  assert.match(r.errorOrNull()!.message, /The user cancelled/);
  const cause = r.errorOrNull()?.cause as Error & { code?: unknown };
  assert.ok(cause instanceof Error);
  assert.equal(cause.code, "SIGN_IN_CANCELLED");
  // A hostile thrown object (getters that throw) still ends as a Failure.
  const hostile = {
    get message(): string {
      throw new Error("message getter");
    },
    get code(): string {
      throw new Error("code getter");
    },
  };
  const h = await signInWith(
    auth,
    { provider: "google", signIn: () => Promise.reject(hostile) } as never,
  );
  assert.equal(h.errorOrNull()?.category, "UNKNOWN");
});

Deno.test("a session's project tag is never held: saving a parsed session of another project holds and stores it as this manager's", async () => {
  const map = new Map<string, string>();
  const store = {
    get: (k: string) => map.get(k) ?? null,
    set: (k: string, v: string) => void map.set(k, v),
    remove: (k: string) => void map.delete(k),
  };
  const foreign = parseStoredSession(
    JSON.stringify({
      ...JSON.parse(serializeSession(decodeSession(sessionJson(1)))),
      project: "https://other.example",
    }),
  )!;
  for (const project of [undefined, null]) {
    map.clear();
    const c = createBaseClient(BASE, KEY, { fetch: () => Promise.resolve(json({})) });
    const m = createSessionManager(createAuthClient(c), c, {
      storage: new KeyValueSessionStorage(store),
      autoRefresh: false,
      ...(project === undefined ? {} : { project }),
    });
    await m.saveSession(foreign);
    assert.equal("project" in m.currentSession!, false, String(project));
    const stored = JSON.parse(map.get(DEFAULT_KEY)!);
    assert.equal(stored.project, project === null ? undefined : BASE, String(project));
  }
  // A session of another project is told apart from an empty storage.
  map.set(
    DEFAULT_KEY,
    JSON.stringify({ ...JSON.parse(serializeSession(foreign)), project: "https://other.example" }),
  );
  const c = createBaseClient(BASE, KEY, { fetch: () => Promise.resolve(json({})) });
  const m = createSessionManager(createAuthClient(c), c, {
    storage: new KeyValueSessionStorage(store),
    autoRefresh: false,
  });
  const r = await m.initialize();
  assert.equal(r.errorOrNull()?.code, "session_of_another_project");
  map.clear();
  const empty = (await m.initialize()).errorOrNull();
  assert.equal(empty?.category, "NO_SESSION", String(empty));
  assert.notEqual(empty?.code, "session_of_another_project");
});
