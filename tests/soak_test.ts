// Soak tests: thousands of calls through ONE long-lived AbortSignal (an app-wide controller, a
// server's shutdown signal), as a long-running server or page makes them. Every call must take
// back the listener it adds to that signal, every timer it arms must be cleared or have fired
// once the calls have settled, and the caches kept between calls must stay bounded. The listeners
// are counted by wrapping the signal's addEventListener/removeEventListener; the timers by
// wrapping setTimeout/clearTimeout. Streamed downloads are also checked for what the garbage
// collector can take back (tests/support/soak_gc.ts, in a process run with --expose-gc).
import assert from "node:assert/strict";
import { Hono } from "hono";
import { createClient } from "../client.ts";
import { getClaims } from "../auth/get_claims.ts";
import { decodeSession } from "../auth/mod.ts";
import { createAuthClient } from "../auth/client.ts";
import { createBaseClient } from "../core/client.ts";
import { createPaginator } from "../core/paginator.ts";
import { success } from "../core/result.ts";
import { fetchbaseAuth } from "../hono/mod.ts";
import { createSessionManager, InMemorySessionStorage } from "../session/mod.ts";
import { createResumableUpload } from "../storage/mod.ts";
import { claims, deferred, harness, jwksBody, makeKey, signEs256 } from "./auth_jwt/_helpers.ts";
import { sessionJson } from "./session/_helpers.ts";
import { tusScript } from "./storage_tus/_tus_script.ts";
import { jsonResponse, recordingFetch } from "./support/recording_fetch.ts";

/** Counts the `abort` listeners added to `signal` and not removed since. */
function countListeners(signal: AbortSignal): { readonly signal: AbortSignal; count(): number } {
  const live = new Set<unknown>();
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((type: string, listener: EventListener, o?: unknown) => {
    if (type === "abort") live.add(listener);
    add(type, listener, o as AddEventListenerOptions);
  }) as typeof signal.addEventListener;
  signal.removeEventListener = ((type: string, listener: EventListener, o?: unknown) => {
    if (type === "abort") live.delete(listener);
    remove(type, listener, o as EventListenerOptions);
  }) as typeof signal.removeEventListener;
  return { signal, count: () => live.size };
}

/** One long-lived signal that never aborts, with its listener count. */
const appSignal = () => countListeners(new AbortController().signal);

const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;

/**
 * Runs `fn` with setTimeout/clearTimeout wrapped, and resolves how many timers it left armed
 * (neither fired nor cleared), and how many it armed in all (so a test knows timers were used).
 */
async function timersLeft(fn: () => Promise<void>): Promise<{ armed: number; left: number }> {
  const pending = new Set<ReturnType<typeof setTimeout>>();
  let armed = 0;
  const g = globalThis as unknown as Record<string, unknown>;
  g.setTimeout = (callback: () => void, ms?: number) => {
    armed++;
    const id = realSetTimeout(() => {
      pending.delete(id);
      callback();
    }, ms);
    pending.add(id);
    return id;
  };
  g.clearTimeout = (id: ReturnType<typeof setTimeout>) => {
    pending.delete(id);
    realClearTimeout(id);
  };
  try {
    await fn();
  } finally {
    globalThis.setTimeout = realSetTimeout;
    globalThis.clearTimeout = realClearTimeout;
  }
  const left = pending.size;
  for (const id of pending) realClearTimeout(id);
  return { armed, left };
}

/** Resolves after `n` promise turns: past the transport's few turns, so its timer is armed. */
async function turns(n = 40): Promise<void> {
  for (let i = 0; i < n; i++) await Promise.resolve();
}

/** A fetch answering `answer` after some promise turns, failing at once when its signal aborts. */
function slowFetch(answer: (url: URL, index: number) => Response | Promise<Response>) {
  let index = 0;
  return ((input: RequestInfo | URL, init?: RequestInit) => {
    const signal = init?.signal;
    const n = index++;
    return new Promise<Response>((resolve, reject) => {
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      turns().then(() => answer(new URL(String(input)), n)).then(resolve, reject);
    });
  }) as typeof fetch;
}

const BASE = "https://project.example";
const N = 1000;

Deno.test("soak: auth, database and storage JSON calls through one signal leave no listener and no timer", async () => {
  const app = appSignal();
  const client = createClient(BASE, "anon-key", {
    fetch: slowFetch((url) =>
      jsonResponse(url.pathname.startsWith("/auth") ? { id: "u1", aud: "authenticated" } : [])
    ),
  });
  const t = await timersLeft(async () => {
    for (let i = 0; i < N; i++) {
      const calls = await Promise.all([
        client.auth.getUser("token", { signal: app.signal }),
        client.database.select("todos", { signal: app.signal }),
        client.storage.list("bucket", { signal: app.signal }),
      ]);
      for (const r of calls) assert.ok(r.ok, r.ok ? "" : r.error.message);
    }
  });
  assert.equal(app.count(), 0);
  assert.ok(t.armed >= N, `the transport's timeout timer was armed (${t.armed})`);
  assert.equal(t.left, 0);
});

Deno.test("soak: retried calls (503 then success), calls whose fetch rejects and timed-out calls leave no listener and no timer", async () => {
  const app = appSignal();
  const retry = { maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 1 };
  const flaky = createClient(BASE, "anon-key", {
    retry,
    fetch: slowFetch((_u, n) =>
      n % 2 === 0 ? new Response("{}", { status: 503 }) : jsonResponse([])
    ),
  });
  const down = createClient(BASE, "anon-key", {
    retry,
    fetch: () => Promise.reject(new TypeError("connection refused")),
  });
  // Never answers: only its signal (the call's timeout) ends it.
  const stalled = createClient(BASE, "anon-key", {
    timeout: 1,
    fetch: (_i, init) =>
      new Promise((_resolve, reject) =>
        init?.signal?.addEventListener("abort", () => reject(init.signal!.reason), { once: true })
      ),
  });
  const t = await timersLeft(async () => {
    for (let i = 0; i < 150; i++) {
      assert.ok((await flaky.database.select("t", { signal: app.signal })).ok);
      const r = await down.database.select("t", { signal: app.signal });
      assert.equal(r.errorOrNull()?.category, "NETWORK");
    }
    for (let i = 0; i < 100; i++) {
      const r = await stalled.database.select("t", { signal: app.signal });
      assert.equal(r.errorOrNull()?.category, "TIMEOUT");
    }
  });
  assert.equal(app.count(), 0);
  assert.ok(t.armed >= 400, `backoff and timeout timers were armed (${t.armed})`);
  assert.equal(t.left, 0);
});

Deno.test("soak: streamed downloads read, cancelled or left unread leave no listener on the caller's signal, with AbortSignal.any and without it", async () => {
  const any = AbortSignal.any;
  for (const joined of [true, false]) {
    // deno-lint-ignore no-explicit-any
    if (!joined) (AbortSignal as any).any = undefined;
    try {
      const app = appSignal();
      const client = createClient(BASE, "anon-key", {
        fetch: slowFetch(() => new Response("object bytes")),
      });
      const t = await timersLeft(async () => {
        for (let i = 0; i < 300; i++) {
          const r = await client.storage.downloadStream("b", "k", { signal: app.signal });
          assert.ok(r.ok);
          if (i % 3 === 0) assert.equal(await new Response(r.value.stream).text(), "object bytes");
          else if (i % 3 === 1) await r.value.stream.cancel();
          // else: never read. Where AbortSignal.any is missing, the pipe that ties it to the
          // signal holds it until the signal aborts: Deno keeps that pipe's abort step inside the
          // signal (not counted here), Node as a listener (one per unread stream). See the next
          // test for what is collected.
        }
      });
      assert.equal(app.count(), 0, `AbortSignal.any ${joined ? "present" : "missing"}`);
      assert.equal(t.left, 0, "a stream's call takes its timeout back once the headers came");
    } finally {
      AbortSignal.any = any;
    }
  }
});

Deno.test("soak: streamed downloads through one signal are garbage collected once read or cancelled; unread ones too where AbortSignal.any exists, else once the signal aborts", async () => {
  const count = 60;
  const run = async (mode: "any" | "noany") => {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--v8-flags=--expose-gc",
        new URL("./support/soak_gc.ts", import.meta.url).pathname,
        mode,
        String(count),
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(stdout);
    assert.equal(code, 0, new TextDecoder().decode(stderr));
    return JSON.parse(text.trim().split("\n").at(-1)!) as Record<string, number>;
  };
  // The last stream of a batch may still be referenced by the loop: one may stay.
  const most = count - 1;
  const joined = await run("any");
  for (const kind of ["read", "cancelled", "unread"]) {
    assert.ok(joined[kind] >= most, `AbortSignal.any, ${kind}: ${JSON.stringify(joined)}`);
  }
  const fallback = await run("noany");
  for (const kind of ["read", "cancelled", "unreadAfterAbort"]) {
    assert.ok(fallback[kind] >= most, `no AbortSignal.any, ${kind}: ${JSON.stringify(fallback)}`);
  }
});

Deno.test("soak: getClaims callers sharing one JWKS fetch through one signal leave no listener and no timer; the negative cache is bounded", async () => {
  const key = await makeKey("k1");
  const token = await signEs256({ alg: "ES256", typ: "JWT", kid: "k1" }, claims(), key.privateKey);
  const app = appSignal();
  const t = await timersLeft(async () => {
    for (let round = 0; round < 20; round++) {
      const gate = deferred<void>();
      const h = harness({
        jwks: async () => {
          await gate.promise;
          return jwksBody(key.jwk);
        },
      });
      const waiting = Array.from(
        { length: 50 },
        () => getClaims(h.auth, token, { signal: app.signal }),
      );
      await turns();
      assert.ok(app.count() <= 50, `one listener per waiting caller at most (${app.count()})`);
      gate.resolve();
      for (const r of await Promise.all(waiting)) assert.ok(r.ok, r.ok ? "" : r.error.message);
      assert.equal(h.jwksCalls(), 1, "the callers shared one fetch");
      for (let i = 0; i < 50; i++) assert.ok((await getClaims(h.auth, token, app)).ok);
    }
  });
  assert.equal(app.count(), 0);
  assert.equal(t.left, 0);

  // Unknown kids, each refetched (no cooldown) and remembered as missing: the memory of them is
  // bounded, so the first one is asked for again after a thousand others.
  const h = harness({ jwks: () => jwksBody(key.jwk), options: { cooldownMs: 0 } });
  const unknown = (n: number) => h.jwks.resolveSigningKey(`gone-${n}`, app);
  for (let n = 0; n < 1100; n++) assert.equal((await unknown(n)).getOrThrow(), null);
  const before = h.jwksCalls();
  await unknown(0);
  assert.equal(h.jwksCalls(), before + 1, "kid 0 was forgotten: the negative cache is bounded");
  assert.equal(app.count(), 0);
});

Deno.test("soak: paginator loads through one signal, two callers at a time, leave no listener", async () => {
  const app = appSignal();
  for (let k = 0; k < 100; k++) {
    const p = createPaginator<number>(
      2,
      async (offset) => {
        await turns(4);
        return success(offset < 40 ? [offset, offset + 1] : []);
      },
    );
    while (!p.isEnd.value) {
      const [a, b] = await Promise.all([p.loadNext(app), p.loadNext(app)]);
      assert.ok(a.ok && b.ok);
    }
    assert.equal(p.items.value.length, 40);
  }
  assert.equal(app.count(), 0);
});

Deno.test("soak: resumable uploads awaited through one signal (twice at once, after a pause, with retried chunks) leave no listener and no timer", async () => {
  const app = appSignal();
  const t = await timersLeft(async () => {
    for (let k = 0; k < 100; k++) {
      const rec = recordingFetch(tusScript({
        // Every third PATCH fails once with 503: the upload's backoff runs.
        onPatch: (_req, n) => n % 3 === 0 ? new Response(null, { status: 503 }) : null,
      }));
      const up = createResumableUpload(
        createBaseClient("https://project.example.com", "anon-key", { fetch: rec.fetch }),
        "b",
        "a.bin",
        new Uint8Array(24),
        { chunkSize: 4, urlStore: null, retryBaseDelayMs: 0, retryMaxDelayMs: 1 },
      );
      // The only caller leaves: the run pauses; then the app's signal resumes it, twice at once.
      const own = new AbortController();
      const first = up.await({ signal: own.signal });
      await turns(8);
      own.abort();
      assert.equal((await first).errorOrNull()?.category, "CANCELLED");
      const [a, b] = await Promise.all([up.await(app), up.await(app)]);
      assert.ok(a.ok && b.ok, a.ok ? (b.ok ? "" : b.error.message) : a.error.message);
      assert.ok((await up.await(app)).ok);
      assert.ok(rec.requests.some((r) => r.method === "HEAD"), "the paused upload was resumed");
    }
  });
  assert.equal(app.count(), 0);
  assert.ok(t.armed > 0, "the backoff armed timers");
  assert.equal(t.left, 0);
});

Deno.test("soak: session refreshes, restores and saves through one signal leave no listener, and no timer once disposed", async () => {
  const app = appSignal();
  let n = 1;
  const client = createBaseClient(BASE, "anon-key", {
    fetch: slowFetch(() => jsonResponse(sessionJson(++n))),
  });
  let alive = -1;
  const t = await timersLeft(async () => {
    const m = createSessionManager(createAuthClient(client), client, {
      storage: new InMemorySessionStorage(),
    });
    await m.saveSession(decodeSession(sessionJson(1)), app);
    for (let i = 0; i < 300; i++) {
      const [a, b] = await Promise.all([
        m.refreshSession(app),
        m.refreshSession({ signal: app.signal, timeout: 5_000 }),
      ]);
      assert.ok(a.ok && b.ok);
      assert.ok((await m.restoreSession(app)).ok);
      await m.saveSession(a.getOrThrow(), app);
    }
    alive = app.count();
    m.dispose();
  });
  assert.equal(alive, 0);
  assert.equal(app.count(), 0);
  assert.ok(t.armed > 0);
  assert.equal(t.left, 0, "dispose clears the refresh timer; nothing else is left armed");
});

Deno.test("soak: the Hono middleware over many requests leaves no listener on any request's signal", async () => {
  const key = await makeKey("k1");
  const token = await signEs256({ alg: "ES256", typ: "JWT", kid: "k1" }, claims(), key.privateKey);
  const gate = deferred<void>();
  const h = harness({
    jwks: async () => {
      await gate.promise;
      return jwksBody(key.jwk);
    },
  });
  const app = new Hono();
  app.use(
    "*",
    fetchbaseAuth({ url: BASE, apiKey: "anon-key", clientOptions: { fetch: h.rec.fetch } }),
  );
  app.get("/", (c) => c.text("ok"));
  const send = async () => {
    const request = new Request("http://app.example/", {
      headers: { authorization: `Bearer ${token}` },
    });
    const counted = countListeners(request.signal);
    const response = await app.fetch(request);
    assert.equal(response.status, 200, await response.text());
    return counted.count();
  };
  // The first 50 wait on one JWKS fetch together, then 500 more find the key cached.
  const first = Array.from({ length: 50 }, send);
  await turns();
  gate.resolve();
  const left = await Promise.all(first);
  for (let i = 0; i < 500; i++) left.push(await send());
  assert.deepEqual(left.filter((n) => n !== 0), []);
  assert.equal(h.jwksCalls(), 1);
});
