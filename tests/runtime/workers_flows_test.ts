/**
 * Cloudflare Workers: the library's main flows run inside workerd (miniflare) against the local
 * backend served on loopback, at the runner's current compatibility date, 2024-01-01 and
 * 2022-01-01, each with the global `fetch` and with workerd's own handed to the client
 * (`{ fetch }`): `tests/runtime/workers/flows_worker.ts` runs sessions over a Workers KV namespace
 * (within one request and across two), auto-refresh inside a request, cancellation, the database
 * and storage, and a verifier kept across concurrent requests; this test asserts its JSON results,
 * what downloads sent, and that workerd logged no uncaught exception, hung request, I/O or promise
 * across requests, nor any warning to the Worker's console.
 */
import assert from "node:assert/strict";
import { createLocalBackend } from "../../demo/local_backend/mod.ts";
import { serve } from "../support/serve.ts";
import { startWorker } from "./support.ts";
import { ABORT, DATABASE, SESSIONS, STORAGE, STORAGE_HEADERS } from "./flows/expected.ts";

const root = new URL("../../", import.meta.url).pathname;

type Json = Record<string, unknown>;

/** The bytes the storage flow's request body carries (the Worker makes them too). */
function bodyBytes(size: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(size);
  for (let i = 0; i < size; i++) b[i] = (i * 7 + 3) % 251;
  return b;
}

/**
 * What every flow reports, at every date and with either fetch: for those the page runs too, what
 * every runtime reports (`flows/expected.ts`) and the Worker's own.
 */
const EXPECTED: Record<string, Json> = {
  sessions: {
    ...SESSIONS,
    userMetadata: { from: "worker" },
    events2: ["SIGNED_IN", "SIGNED_OUT"],
    events1: ["INITIAL_SESSION", "SIGNED_IN", "TOKEN_REFRESHED", "SIGNED_OUT"],
  },
  save: { saved: true },
  restore: {
    restore: "ok",
    applied: true,
    claims: "ES256",
    refresh: "ok",
    storedAfterRefresh: true,
    signOut: "ok",
    kvAfterSignOut: null,
    state: "NotAuthenticated",
  },
  abort: ABORT,
  database: DATABASE,
  storage: {
    ...STORAGE,
    upload: {
      body: "ok",
      bytes: "ok",
      blob: "ok",
      string: "ok",
      blobStream: "ok",
      pipe: "ok",
    },
    uploadedBack: { body: true, blobStream: true, pipe: true },
    ...STORAGE_HEADERS,
    list: ["blob-stream.bin", "blob.txt", "body.bin", "bytes.bin", "pipe.bin", "string.txt"],
    removeMany: [
      "files/blob-stream.bin",
      "files/blob.txt",
      "files/body.bin",
      "files/bytes.bin",
      "files/pipe.bin",
    ],
  },
};

/** Runs every flow in the Worker at `date` (undefined: the runner's current one). */
async function runFlows(date: string | undefined): Promise<void> {
  const tmp = await Deno.makeTempDir({ prefix: "fetchbase-worker-flows-" });
  const backend = await createLocalBackend();
  // A second backend whose access tokens live 2 s, for the auto-refresh flows; a refresh token
  // spent twice revokes its session there.
  const short = await createLocalBackend({
    apiKey: backend.apiKey,
    accessTokenTtl: 2,
    refreshReuseIntervalMs: 0,
  });
  const held = new Set<() => void>();
  let jwksFetches = 0;
  const downloadCacheControl = new Set<string>();
  const server = await serve(async (req) => {
    const path = new URL(req.url).pathname;
    if (path.endsWith("__slow")) {
      // A route that never answers (until the test ends): the cancellation flow gives up on it.
      await new Promise<void>((release) => held.add(release));
      return new Response(null, { status: 504 });
    }
    if (path.endsWith("__stall")) {
      // A download that sends its headers and then nothing (until the test ends).
      return new Response(
        new ReadableStream({
          start: () => new Promise<void>((release) => held.add(release)),
        }),
        { headers: { "content-length": "4096" } },
      );
    }
    if (path.endsWith("/.well-known/jwks.json")) jwksFetches++;
    // What a download asks of caches on its way: workerd sends the `no-cache` mode on.
    if (path.startsWith("/storage/v1/object/authenticated/")) {
      downloadCacheControl.add(req.headers.get("cache-control") ?? "none");
    }
    return backend.app.fetch(req);
  });
  const shortServer = await serve((req) => short.app.fetch(req));
  const worker = await startWorker(
    `${root}tests/runtime/workers/flows_worker.ts`,
    tmp,
    server.url,
    backend.apiKey,
    date,
  );
  const at = date ?? "the current date";
  try {
    const signUp = (email: string) =>
      fetch(`${server.url}/auth/v1/signup`, {
        method: "POST",
        headers: { apikey: backend.apiKey, "content-type": "application/json" },
        body: JSON.stringify({ email, password: "secret-pw" }),
      }).then((r) => r.json()) as Promise<{ access_token: string; user: { id: string } }>;
    const user = await signUp("flows@example.test");

    // The flag's effect: Node's globals are there (and the library takes workerd for no Node).
    const compat = date?.includes("+nodejs_compat") ?? false;
    assert.deepEqual(await fetch(`${worker.url}?flow=runtime`).then((r) => r.json()), {
      node: compat,
      buffer: compat,
      userAgent: date === "2022-01-01" ? null : "Cloudflare-Workers",
    }, at);

    // A verifier kept at module scope: eight requests arrive together before it knows the JWKS.
    const verified = await Promise.all(
      Array.from({ length: 8 }, () =>
        fetch(`${worker.url}?flow=verify`, {
          headers: { authorization: `Bearer ${user.access_token}` },
        })
          .then((r) => r.json())),
    );
    for (const v of verified) assert.deepEqual(v, { alg: "ES256", sub: user.user.id }, at);
    assert.equal(jwksFetches, 1, `${at}: one JWKS fetch for the requests that came together`);

    // A manager left undisposed as its response goes, its refresh timer armed: workerd drops the
    // timer with the request (the token it would have spent stays stored, and valid).
    const shortUrl = encodeURIComponent(shortServer.url);
    const left = await fetch(`${worker.url}?flow=save&id=left&short=${shortUrl}`)
      .then((r) => r.json()) as { saved: boolean; refreshToken: string };
    assert.equal(left.saved, true, at);

    for (const own of [false, true]) {
      const label = `${at}, ${own ? "workerd's own fetch given" : "the global fetch"}`;
      const id = `${(date ?? "now").replace(/\+/g, "-")}-${own ? "own" : "global"}`;
      // A user of its own, whose rows (row-level security) no other run sees.
      const token = (await signUp(`flows-${id}@example.test`)).access_token;
      const call = (flow: string, query = "", init: RequestInit = {}, name = id) =>
        fetch(
          `${worker.url}?flow=${flow}&id=${name}&token=${encodeURIComponent(token)}` +
            `${own ? "&fetch=own" : ""}${query}`,
          init,
        ).then((r) => r.json()) as Promise<Json>;
      const bucket = `worker-${id}`;
      const made = await fetch(`${server.url}/storage/v1/bucket`, {
        method: "POST",
        headers: {
          apikey: backend.apiKey,
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ id: bucket }),
      });
      assert.equal(made.status, 200, await made.text());
      const size = 70_001;
      const results: Record<string, Json> = {};
      for (const flow of ["sessions", "abort", "database"]) results[flow] = await call(flow);
      // A stalled download ends at the client's timeout, at every date (before 2022-01-31
      // workerd keeps a Response's `body` on the Response, not its prototype).
      const stalled = { category: "TIMEOUT", withinMs: true };
      // (Bounded: a download that hung held the Worker's answer, and this test, for ever.)
      const stall = await call("stall", "", { signal: AbortSignal.timeout(15_000) });
      assert.deepEqual(stall, { bytes: stalled, text: stalled }, `${label}: stall`);
      results.storage = await call("storage", `&bucket=${bucket}&size=${size}`, {
        method: "POST",
        body: bodyBytes(size),
      });
      // A session saved by one request and restored by the next.
      results.save = await call("save", "", {}, `${id}-kv`);
      results.restore = await call("restore", "", {}, `${id}-kv`);
      for (const [flow, expected] of Object.entries(EXPECTED)) {
        assert.deepEqual(results[flow], expected, `${label}: ${flow}`);
      }
      const auto = await call("autoRefresh", `&short=${shortUrl}`);
      const afterMs = auto.afterMs as number;
      delete auto.afterMs;
      assert.deepEqual(auto, {
        event: "TOKEN_REFRESHED",
        rotated: true,
        stored: true,
        applied: true,
      }, `${label}: autoRefresh`);
      // Due 1 s before an expiry given in whole seconds: within the token's 2 s of life.
      assert.ok(afterMs < 2_500, `${label}: refreshed after ${afterMs} ms`);
    }
    // Well past the left timer's due time (at most 1 s after the sign-up; the flows took longer).
    const stillStored = await fetch(`${worker.url}?flow=peek&id=left`).then((r) => r.json());
    assert.deepEqual(stillStored, { refreshToken: left.refreshToken }, `${at}: KV untouched`);
    const spent = await fetch(`${shortServer.url}/auth/v1/token?grant_type=refresh_token`, {
      method: "POST",
      headers: { apikey: backend.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ refresh_token: left.refreshToken }),
    });
    assert.equal(spent.status, 200, `${at}: the left session's token was never spent`);
    await spent.body?.cancel();
    // At 2025-08-07 and later workerd takes `cache: "no-cache"` and sends it as
    // `Cache-Control: no-cache`; before, a `Request` refuses the field or the mode and downloads
    // go without it.
    assert.deepEqual(
      [...downloadCacheControl],
      date === undefined || date >= "2025-08-07" ? ["no-cache"] : ["none"],
      `${at}: downloads' Cache-Control`,
    );
    const logs = worker.logs();
    // workerd's warnings to the Worker's console: a text download of an object stored as
    // `application/octet-stream` read with `Response.text()` gave one ("Called .text() on an HTTP
    // body which does not appear to be text") until downloads decoded the bytes themselves.
    const reports = ["uncaught exception", "hung", "different request", "Cannot perform I/O"];
    for (const bad of [...reports, "console warning"]) {
      assert.ok(!logs.includes(bad), `${at}: workerd logged ${bad}:\n${logs}`);
    }
  } finally {
    for (const release of held) release();
    await worker.stop();
    await server.close();
    await shortServer.close();
    await Deno.remove(tmp, { recursive: true });
  }
}

Deno.test("the main flows run in workerd at the current compatibility date: sessions over KV, auto-refresh, cancellation, database, storage, with either fetch", async () => {
  await runFlows(undefined);
});

Deno.test("the main flows run in workerd with nodejs_compat (process, Buffer and node: modules present)", async () => {
  await runFlows("2026-08-01+nodejs_compat");
});

Deno.test("the main flows run in workerd at compatibility date 2024-01-01", async () => {
  await runFlows("2024-01-01");
});

Deno.test("the main flows run in workerd at compatibility date 2022-01-01", async () => {
  await runFlows("2022-01-01");
});
