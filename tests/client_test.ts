import assert from "node:assert/strict";
import { AuthClient, createClient, DatabaseClient, StorageClient } from "../mod.ts";
import { recordingFetch } from "./support/recording_fetch.ts";

Deno.test("client.storage and client.database are lazy, stable and share the client's transport and token", async () => {
  const rec = recordingFetch(() => new Response("[]"));
  const client = createClient("https://p.example/", "anon-key-123456", { fetch: rec.fetch });
  assert.equal(rec.requests.length, 0);
  assert.ok(client.auth instanceof AuthClient);
  assert.equal(client.auth, client.auth);
  assert.ok(client.storage instanceof StorageClient);
  assert.ok(client.database instanceof DatabaseClient);
  assert.equal(client.storage, client.storage);
  assert.equal(client.database, client.database);
  client.setAccessToken("user-token-abcdef");
  await client.database.select("todos");
  await client.storage.listBuckets();
  assert.deepEqual(rec.requests.map((r) => r.headers.get("authorization")), [
    "Bearer user-token-abcdef",
    "Bearer user-token-abcdef",
  ]);
  assert.deepEqual(rec.requests.map((r) => r.url.pathname), [
    "/rest/v1/todos",
    "/storage/v1/bucket",
  ]);
});
