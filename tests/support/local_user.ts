/**
 * A local backend served on loopback with one signed-up user: its storage client carries the
 * user's token, for storage flow tests.
 */

import { type BaseClient, createBaseClient } from "../../core/client.ts";
import { createLocalBackend } from "../../demo/local_backend/mod.ts";
import { createStorageClient, type StorageClient } from "../../storage/mod.ts";
import { serve, type TestServer } from "./serve.ts";

/** The served backend, its API key, and a signed-up user's base and storage clients. */
export interface LocalUser {
  server: TestServer;
  apiKey: string;
  client: BaseClient;
  storage: StorageClient;
}

/** Serves a fresh local backend and signs `email` up; close `server` when done. */
export async function localUser(email: string): Promise<LocalUser> {
  const backend = await createLocalBackend();
  const server = await serve(backend.app.fetch);
  const client = createBaseClient(server.url, backend.apiKey);
  const session = (await client.request({
    method: "POST",
    area: "auth",
    path: "/signup",
    json: { email, password: "secret-pw" },
  })).getOrThrow().body as { access_token: string };
  client.setAccessToken(session.access_token);
  return { server, apiKey: backend.apiKey, client, storage: createStorageClient(client) };
}
