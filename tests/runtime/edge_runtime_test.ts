/**
 * Vercel's Edge Runtime (the `edge-runtime` npm package, which `next dev` and `vercel dev` run
 * middleware and edge routes in): the library, bundled from its sources as a bundler does for
 * an edge route, runs the main flows (`edge_runtime/entry.ts`) in a `node:vm` context whose web
 * APIs are the runtime's own, against the local backend on loopback.
 */
import assert from "node:assert/strict";
import { createLocalBackend } from "../../demo/local_backend/mod.ts";
import { serve } from "../support/serve.ts";
import { run } from "./support.ts";
import {
  ABORT,
  DATABASE,
  SESSIONS,
  SESSIONS_ACROSS,
  STORAGE,
  STORAGE_HEADERS,
} from "./flows/expected.ts";

const root = new URL("../../", import.meta.url).pathname;

Deno.test("the main flows run in Vercel's Edge Runtime: sessions, cancellation, database, storage, a resumable upload", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "fetchbase-edge-runtime-" });
  // A spent refresh token is never answered again (the flow's second manager must not send one).
  const backend = await createLocalBackend({ refreshReuseIntervalMs: 0 });
  const held = new Set<() => void>();
  const server = await serve(async (req) => {
    if (new URL(req.url).pathname === "/rest/v1/__slow") {
      // A route that never answers (until the test ends): the cancellation flow gives up on it.
      await new Promise<void>((release) => held.add(release));
      return new Response(null, { status: 504 });
    }
    return backend.app.fetch(req);
  });
  try {
    const bundle = await run(`${root}node_modules/.bin/esbuild`, [
      `${root}tests/runtime/edge_runtime/entry.ts`,
      "--bundle",
      "--format=iife",
      "--platform=browser",
      `--outfile=${tmp}/edge.js`,
    ]);
    assert.equal(bundle.code, 0, bundle.text);
    const session = await fetch(`${server.url}/auth/v1/signup`, {
      method: "POST",
      headers: { apikey: backend.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ email: "edge@example.test", password: "secret-pw" }),
    }).then((r) => r.json()) as { access_token: string };
    const bucket = await fetch(`${server.url}/storage/v1/bucket`, {
      method: "POST",
      headers: {
        apikey: backend.apiKey,
        authorization: `Bearer ${session.access_token}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ id: "edge" }),
    });
    assert.equal(bucket.status, 200, await bucket.text());
    const query = new URLSearchParams({
      api: server.url,
      key: backend.apiKey,
      token: session.access_token,
      bucket: "edge",
    });
    const out = await run("node", [
      `${root}tests/runtime/edge_runtime/run.mjs`,
      `${tmp}/edge.js`,
      `http://edge.test/?${query}`,
    ], { cwd: root });
    assert.equal(out.code, 0, out.text);
    const results = JSON.parse(out.text.slice(out.text.indexOf("{")));
    assert.deepEqual(results, {
      sessions: { ...SESSIONS, ...SESSIONS_ACROSS, userMetadata: { from: "edge" } },
      abort: ABORT,
      database: DATABASE,
      storage: {
        ...STORAGE,
        upload: { bytes: "ok", blob: "ok", string: "ok", stream: "ok" },
        uploadedBack: { stream: true },
        ...STORAGE_HEADERS,
        list: ["blob.txt", "bytes.bin", "stream.bin", "string.txt"],
        removeMany: ["files/blob.txt", "files/bytes.bin", "files/stream.bin"],
      },
      resumable: { upload: "ok", same: true },
    });
  } finally {
    for (const release of held) release();
    await server.close();
    await Deno.remove(tmp, { recursive: true });
  }
});
