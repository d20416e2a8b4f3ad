// The document's defaults, each pinned on the wire or in the result, so a
// changed default fails a test.
import assert from "node:assert/strict";
import { createAuthClient, decodeSession } from "../auth/mod.ts";
import { createBaseClient } from "../core/client.ts";
import { decodeBase64 } from "../core/encoding.ts";
import { createDatabaseClient, paginator } from "../database/mod.ts";
import {
  createSessionManager,
  getUserForCurrentSession,
  importAuthToken,
  InMemorySessionStorage,
  signOutCurrentSession,
} from "../session/mod.ts";
import { createStorageClient, listPaginator } from "../storage/mod.ts";
import { createResumableUpload } from "../storage/tus.ts";
import { jsonResponse, recordingFetch } from "./support/recording_fetch.ts";

const BASE = "https://project.example";
const KEY = "anon-key-0123456789";

Deno.test("database: paginator pages 20 rows; selectRange asks for an exact count", async () => {
  const rec = recordingFetch(() =>
    new Response("[]", {
      headers: { "content-range": "0-0/0", "content-type": "application/json" },
    })
  );
  const db = createDatabaseClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  await paginator(db, "todos").loadNext();
  assert.equal(rec.last.url.searchParams.get("limit"), "20");
  assert.equal(rec.last.url.searchParams.get("offset"), "0");
  await db.selectRange("todos");
  assert.match(rec.last.headers.get("prefer") ?? "", /count=exact/);
});

Deno.test("storage: listPaginator pages 100 objects; a resumable upload's content type is application/octet-stream", async () => {
  const rec = recordingFetch((req) =>
    req.method === "POST" && req.url.pathname.endsWith("/upload/resumable")
      ? new Response(null, {
        status: 201,
        headers: { location: `${BASE}/storage/v1/upload/resumable/u1`, "upload-offset": "3" },
      })
      : jsonResponse([])
  );
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch });
  await listPaginator(createStorageClient(client), "docs").loadNext();
  assert.equal((rec.last.json() as { limit: number }).limit, 100);
  const r = await createResumableUpload(client, "docs", "a.bin", new Uint8Array([1, 2, 3])).await();
  assert.ok(r.ok, String(r.errorOrNull()));
  const metadata = rec.requests[1].headers.get("upload-metadata") ?? "";
  const pairs = Object.fromEntries(
    metadata.split(",").map((p) => {
      const [k, v] = p.split(" ");
      return [k, new TextDecoder().decode(decodeBase64(v))];
    }),
  );
  assert.equal(pairs.contentType, "application/octet-stream");
  assert.equal(rec.requests[1].headers.get("x-upsert"), "false");
});

Deno.test("sessions: signOutCurrentSession scope local; getUserForCurrentSession stores nothing; importAuthToken defaults", async () => {
  const rec = recordingFetch((req) =>
    req.url.pathname.endsWith("/logout")
      ? new Response(null, { status: 204 })
      : jsonResponse({ id: "u1", email: "new@x.io" })
  );
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch });
  const auth = createAuthClient(client);
  const storage = new InMemorySessionStorage();
  const manager = createSessionManager(auth, client, { storage, autoRefresh: false });
  await manager.saveSession(decodeSession({
    access_token: "header.payload.sig",
    refresh_token: "r1",
    expires_in: 3600,
    user: { id: "u1", email: "old@x.io" },
  }));
  assert.equal((await getUserForCurrentSession(auth, manager)).getOrThrow().email, "new@x.io");
  assert.equal(storage.load()?.user.email, "old@x.io", "the stored user is not replaced");
  assert.ok((await signOutCurrentSession(auth, manager)).ok);
  assert.equal(rec.last.url.pathname, "/auth/v1/logout");
  assert.equal(rec.last.url.searchParams.get("scope"), "local");

  const imported = (await importAuthToken(auth, manager, "header.payload.sig", {
    retrieveUser: false,
  })).getOrThrow();
  assert.equal(imported.refreshToken, "");
  assert.equal(imported.expiresIn, 0);
  assert.equal(imported.tokenType, "bearer");
  manager.dispose();
});
