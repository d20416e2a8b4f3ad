/**
 * The library as a browser page on another origin than the project runs it: every request goes
 * through `crossOriginFetch` (preflights, and only the CORS-safelisted and exposed response
 * headers seen) to the local backend with the deployed services' CORS (`cors: "all"`: the
 * gateway's preflight answers, and the headers GoTrue, PostgREST and the Storage API expose).
 * Each header the library reads is either exposed, or its absence is a clear Failure or a
 * documented null.
 */
import assert from "node:assert/strict";
import { createClient } from "../client.ts";
import { signUpWithEmail } from "../session/client_sign_in.ts";
import { column } from "../database/column.ts";
import { createLocalBackend } from "../demo/local_backend/mod.ts";
import { crossOriginFetch } from "./support/cross_origin_fetch.ts";

const PROJECT = "https://project.example.test";
const PAGE = "https://app.example.test";

async function setup() {
  const backend = await createLocalBackend({ cors: "all" });
  const browser = crossOriginFetch(PAGE, (req) => backend.app.fetch(req));
  const client = createClient(PROJECT, backend.apiKey, { fetch: browser.fetch });
  const up = await signUpWithEmail(client, "page@example.test", "page-secret-pw");
  assert.ok(up.ok, up.ok ? "" : up.error.message);
  return { backend, browser, client };
}

Deno.test("cross-origin: a rollback write whose Preference-Applied the browser hides is Failure(CONFLICT), not a committed write reported as rolled back", async () => {
  const { backend, browser, client } = await setup();
  const title = column<string>("title");
  // PostgREST's default db-tx-end (commit) ignores tx=rollback: each write is committed. On the
  // page's own origin the answer's Preference-Applied (without tx=rollback) shows it; on another
  // origin PostgREST does not expose that header, and the answer cannot tell.
  const inserted = await client.database.insert("todos", '{"title":"kept","done":false}', {
    rollback: true,
  });
  assert.equal(inserted.errorOrNull()?.category, "CONFLICT");
  assert.match(
    inserted.errorOrNull()!.message,
    /^Cannot confirm the rollback .*Preference-Applied/,
  );
  const removed = await client.database.delete("todos", (w) => w.eq(title, "kept"), {
    rollback: true,
  });
  assert.equal(removed.errorOrNull()?.category, "CONFLICT");
  // The writes went through: the rows are gone, as the failure warned.
  assert.deepEqual(backend.tables.get("todos"), []);
  assert.deepEqual(browser.log.refused, []);
  // The same writes on the project's own origin: the header is there, without tx=rollback.
  const own = createClient(PROJECT, backend.apiKey, {
    fetch: async (i, o) => await backend.app.fetch(new Request(i, o)),
  });
  const session = await signUpWithEmail(own, "own@example.test", "page-secret-pw");
  assert.ok(session.ok);
  const committed = await own.database.insert("todos", '{"title":"own","done":false}', {
    rollback: true,
  });
  assert.match(committed.errorOrNull()!.message, /did not apply tx=rollback/);
});

Deno.test("cross-origin: auth, database and storage calls pass their preflights and read only exposed headers", async () => {
  const { browser, client } = await setup();
  const done = column<boolean>("done");
  // Database: Content-Range is exposed by PostgREST, so counts work.
  const rows = JSON.stringify([{ title: "a", done: false }, { title: "b", done: true }]);
  assert.equal((await client.database.insert("todos", rows)).ok, true);
  const counted = await client.database.selectCount("todos", {
    block: (q) => q.where((w) => w.eq(done, false)),
  });
  assert.equal(counted.getOrThrow().count, 1);
  // Storage: nothing exposed but the TUS headers.
  const st = client.storage;
  assert.equal((await st.createBucket("b", "b")).ok, true);
  const bytes = new Uint8Array(100).map((_, i) => i);
  assert.equal((await st.upload("b", "x.bin", bytes)).ok, true);
  const ranged = (await st.downloadStream("b", "x.bin", { range: { start: 10, end: 19 } }))
    .getOrThrow();
  const got = new Uint8Array(await new Response(ranged.stream).arrayBuffer());
  assert.deepEqual(got, bytes.subarray(10, 20));
  // 206 tells the range; Content-Range and ETag are hidden (documented nulls), Content-Type is
  // safelisted (Content-Length too, which the backend's handler leaves to the HTTP server).
  assert.deepEqual(
    { ...ranged, stream: null, contentLength: null },
    {
      stream: null,
      status: 206,
      contentType: "application/octet-stream",
      contentLength: null,
      contentRange: null,
      etag: null,
    },
  );
  assert.deepEqual(
    (await st.downloadBytes("b", "x.bin", { range: { start: 95 } })).getOrThrow(),
    bytes.subarray(95),
  );
  // Resumable uploads read Location and Upload-Offset, which @tus/server exposes.
  const tus = await st.createResumableUpload("b", "t.bin", bytes, { chunkSize: 32 }).await();
  assert.ok(tus.ok, tus.ok ? "" : tus.error.message);
  assert.deepEqual((await st.downloadBytes("b", "t.bin")).getOrThrow(), bytes);
  // Auth: nothing read from its headers; a refresh and a sign-out pass their preflights.
  const user = await client.auth.getUser(client.accessToken!);
  assert.equal(user.ok, true);
  assert.deepEqual(browser.log.refused, []);
  const asked = new Set(browser.log.preflights.flatMap((p) => p.headers));
  for (const name of ["apikey", "authorization", "prefer", "range", "tus-resumable"]) {
    assert.ok(asked.has(name), `${name} preflighted: ${[...asked]}`);
  }
});
