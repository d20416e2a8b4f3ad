// Moving a browser app from supabase-js keeps its users signed in with the README's recipe: the
// session auth-js stored (its key `sb-<project ref>-auth-token`, GoTrue's JSON) is read with
// `decodeSession` and saved through the manager once, before `initialize()`. The stored value here
// is the one auth-js itself writes after a password sign-in.
import assert from "node:assert/strict";
import { AuthClient as AuthJs } from "@supabase/auth-js";
import { createAuthClient, decodeSession } from "../../auth/mod.ts";
import { createBaseClient } from "../../core/client.ts";
import {
  createSessionManager,
  KeyValueSessionStorage,
  type KeyValueStore,
} from "../../session/mod.ts";
import { jwt, KEY } from "./_helpers.ts";

const PROJECT = "https://abcdefghijklmnop.supabase.co";

Deno.test("a session auth-js stored is adopted by decodeSession and saveSession, and fetchbase restores it afterwards", async () => {
  const now = Math.floor(Date.now() / 1000);
  const access = jwt({
    sub: "u1",
    session_id: "s1",
    exp: now + 3600,
    iat: now,
    role: "authenticated",
  });
  const answer = {
    access_token: access,
    token_type: "bearer",
    expires_in: 3600,
    expires_at: now + 3600,
    refresh_token: "refresh-old",
    user: { id: "u1", aud: "authenticated", role: "authenticated", email: "a@x.io" },
  };
  // The browser's localStorage, shared by both libraries in turn.
  const local = new Map<string, string>();
  const webStorage = {
    getItem: (k: string) => local.get(k) ?? null,
    setItem: (k: string, v: string) => void local.set(k, v),
    removeItem: (k: string) => void local.delete(k),
  };
  const authJs = new AuthJs({
    url: `${PROJECT}/auth/v1`,
    headers: { apikey: KEY },
    storage: webStorage,
    storageKey: "sb-abcdefghijklmnop-auth-token",
    autoRefreshToken: false,
    detectSessionInUrl: false,
    fetch: () => Promise.resolve(Response.json(answer)),
  });
  const signedIn = await authJs.signInWithPassword({ email: "a@x.io", password: "pw-123456" });
  assert.equal(signedIn.error, null);
  const key = "sb-abcdefghijklmnop-auth-token";
  assert.ok(local.has(key), [...local.keys()].join(", "));

  // The recipe, with fetchbase's own store over the same localStorage.
  const store: KeyValueStore = {
    get: (k) => webStorage.getItem(k),
    set: (k, v) => webStorage.setItem(k, v),
    remove: (k) => webStorage.removeItem(k),
  };
  const requests: string[] = [];
  const client = createBaseClient(PROJECT, KEY, {
    fetch: (input) => {
      requests.push(String(input));
      return Promise.resolve(Response.json({}));
    },
  });
  const manager = createSessionManager(createAuthClient(client), client, {
    storage: new KeyValueSessionStorage(store),
    autoRefresh: false,
  });
  const old = webStorage.getItem(`sb-${new URL(PROJECT).hostname.split(".")[0]}-auth-token`);
  if (old !== null && manager.currentSession === null) {
    await manager.saveSession(decodeSession(JSON.parse(old)));
    webStorage.removeItem(key);
  }
  assert.equal(manager.currentSession?.accessToken, access);
  assert.equal(manager.currentSession?.refreshToken, "refresh-old");
  assert.equal(manager.currentSession?.expiresAt, now + 3600);
  assert.equal(manager.currentSession?.user.id, "u1");
  assert.equal(client.accessToken, access);
  assert.equal(local.has(key), false);
  manager.dispose();

  // The next page load: fetchbase restores it from its own entry, without a request.
  const next = createSessionManager(createAuthClient(client), client, {
    storage: new KeyValueSessionStorage(store),
    autoRefresh: false,
  });
  const restored = await next.initialize();
  assert.equal(restored.getOrThrow().refreshToken, "refresh-old");
  assert.deepEqual(requests, []);
  next.dispose();
});
