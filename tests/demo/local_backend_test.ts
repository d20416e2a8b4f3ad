import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { encodeBase64 } from "../../core/encoding.ts";
import { createLocalBackend } from "../../demo/local_backend/mod.ts";
import { serve } from "../support/serve.ts";

async function setup() {
  const backend = await createLocalBackend();
  const server = await serve(backend.app.fetch);
  const client = createBaseClient(server.url, backend.apiKey);
  return { backend, server, client };
}

async function signUp(client: ReturnType<typeof createBaseClient>, email: string) {
  const r = await client.request({
    method: "POST",
    area: "auth",
    path: "/signup",
    json: { email, password: "correct horse" },
  });
  return r.getOrThrow().body as {
    access_token: string;
    refresh_token: string;
    user: { id: string };
  };
}

Deno.test("local backend: sign-up, password grant, refresh rotation and the JWKS", async () => {
  const { server, client } = await setup();
  try {
    const s = await signUp(client, "a@example.test");
    assert.equal(s.access_token.split(".").length, 3);
    const bad = await client.request({
      method: "POST",
      area: "auth",
      path: "/token",
      query: { grant_type: "password" },
      json: { email: "a@example.test", password: "wrong" },
    });
    assert.equal(bad.errorOrNull()?.code, "invalid_credentials");
    const refreshed = await client.request({
      method: "POST",
      area: "auth",
      path: "/token",
      query: { grant_type: "refresh_token" },
      json: { refresh_token: s.refresh_token },
    });
    assert.ok(refreshed.ok);
    const reused = await client.request({
      method: "POST",
      area: "auth",
      path: "/token",
      query: { grant_type: "refresh_token" },
      json: { refresh_token: s.refresh_token },
    });
    assert.equal(reused.errorOrNull()?.code, "refresh_token_already_used");
    const user = await client.request({ area: "auth", path: "/user", accessToken: s.access_token });
    assert.equal((user.getOrThrow().body as { email: string }).email, "a@example.test");
    const forged = await client.request({
      area: "auth",
      path: "/user",
      accessToken: s.access_token.slice(0, -4) + "AAAA",
    });
    assert.equal(forged.errorOrNull()?.status, 401);
    const jwks = (await client.request({ area: "auth", path: "/.well-known/jwks.json" }))
      .getOrThrow();
    const [key] = (jwks.body as { keys: Array<{ kty: string; alg: string }> }).keys;
    assert.equal(key.kty, "EC");
    assert.equal(key.alg, "ES256");
  } finally {
    await server.close();
  }
});

Deno.test("local backend: storage upload, signed download, range and TUS round trip", async () => {
  const { server, client } = await setup();
  try {
    const s = await signUp(client, "b@example.test");
    client.setAccessToken(s.access_token);
    assert.ok(
      (await client.request({
        method: "POST",
        area: "storage",
        path: "/bucket",
        json: { id: "docs", name: "docs" },
      })).ok,
    );
    const up = await client.request({
      method: "POST",
      area: "storage",
      path: "/object/docs/a%20b/c.txt",
      body: "hello world",
      contentType: "text/plain",
      headers: { "x-metadata": encodeBase64(JSON.stringify({ k: 1 })) },
    });
    assert.deepEqual((up.getOrThrow().body as { Key: string }).Key, "docs/a b/c.txt");
    const dup = await client.request({
      method: "POST",
      area: "storage",
      path: "/object/docs/a%20b/c.txt",
      body: "x",
    });
    assert.equal(dup.errorOrNull()?.status, 409);
    const sign = await client.request({
      method: "POST",
      area: "storage",
      path: "/object/sign/docs/a%20b/c.txt",
      json: { expiresIn: 60 },
    });
    const signedURL = (sign.getOrThrow().body as { signedURL: string }).signedURL;
    const plain = createBaseClient(server.url, "nobody-key-123");
    const dl = await plain.request({
      url: `${server.url}/storage/v1${signedURL}`,
      credentials: "none",
      responseType: "text",
    });
    assert.equal(dl.getOrThrow().body, "hello world");
    const part = await client.request({
      area: "storage",
      path: "/object/authenticated/docs/a%20b/c.txt",
      headers: { range: "bytes=6-" },
      responseType: "text",
    });
    assert.equal(part.getOrThrow().status, 206);
    assert.equal(part.getOrThrow().body, "world");

    const meta = ["bucketName docs", `objectName ${btoa("t/big.bin")}`].map((p, i) =>
      i === 0 ? `bucketName ${btoa("docs")}` : p
    ).join(",");
    const created = await client.request({
      method: "POST",
      area: "storage",
      path: "/upload/resumable",
      headers: { "Tus-Resumable": "1.0.0", "Upload-Length": "5", "Upload-Metadata": meta },
      responseType: "none",
    });
    const location = created.getOrThrow().headers.get("location")!;
    const patch = await client.request({
      method: "PATCH",
      url: location,
      body: new Uint8Array([1, 2, 3]),
      contentType: "application/offset+octet-stream",
      headers: { "Tus-Resumable": "1.0.0", "Upload-Offset": "0" },
      responseType: "none",
    });
    assert.equal(patch.getOrThrow().headers.get("upload-offset"), "3");
    const conflict = await client.request({
      method: "PATCH",
      url: location,
      body: new Uint8Array([4]),
      contentType: "application/offset+octet-stream",
      headers: { "Tus-Resumable": "1.0.0", "Upload-Offset": "0" },
    });
    assert.equal(conflict.errorOrNull()?.status, 409);
    await client.request({
      method: "PATCH",
      url: location,
      body: new Uint8Array([4, 5]),
      contentType: "application/offset+octet-stream",
      headers: { "Tus-Resumable": "1.0.0", "Upload-Offset": "3" },
      responseType: "none",
    });
    const bytes = await client.request({
      area: "storage",
      path: "/object/authenticated/docs/t/big.bin",
      responseType: "bytes",
    });
    assert.deepEqual([...bytes.getOrThrow().body], [1, 2, 3, 4, 5]);
  } finally {
    await server.close();
  }
});

Deno.test("local backend: tables with filters, order, counts, single and row-level security", async () => {
  const { server, client } = await setup();
  try {
    const alice = await signUp(client, "alice@example.test");
    const bob = await signUp(client, "bob@example.test");
    const insert = (token: string, rows: unknown) =>
      client.request({
        method: "POST",
        area: "rest",
        path: "/todos",
        json: rows,
        accessToken: token,
        headers: { prefer: "return=representation" },
      });
    assert.ok(
      (await insert(alice.access_token, [
        { title: "Buy milk", done: false, priority: 2 },
        { title: "Write docs", done: true, priority: 1 },
        { title: "buy bread", done: false, priority: 3 },
      ])).ok,
    );
    assert.ok((await insert(bob.access_token, { title: "Bob's", done: false, priority: 1 })).ok);
    const forged = await insert(bob.access_token, { title: "x", user_id: alice.user.id });
    assert.equal(forged.errorOrNull()?.code, "42501");
    const anon = await insert("", { title: "anon" });
    assert.equal(anon.errorOrNull()?.status, 403);

    const r = await client.request({
      area: "rest",
      path: "/todos",
      query: "select=title,priority&title=ilike.*buy*&done=is.false&order=priority.desc&limit=10",
      accessToken: alice.access_token,
      headers: { prefer: "count=exact" },
    });
    const ok = r.getOrThrow();
    assert.deepEqual(ok.body, [{ title: "buy bread", priority: 3 }, {
      title: "Buy milk",
      priority: 2,
    }]);
    assert.equal(ok.headers.get("content-range"), "0-1/2");
    const or = await client.request({
      area: "rest",
      path: "/todos",
      query: "select=title&or=(priority.eq.1,title.eq.%22buy%20bread%22)&order=title.asc",
      accessToken: alice.access_token,
    });
    assert.deepEqual(or.getOrThrow().body, [{ title: "Write docs" }, { title: "buy bread" }]);
    const single = await client.request({
      area: "rest",
      path: "/todos",
      query: "select=title&priority=in.(5,6)",
      accessToken: alice.access_token,
      headers: { accept: "application/vnd.pgrst.object+json" },
    });
    assert.equal(single.errorOrNull()?.code, "PGRST116");
    const del = await client.request({
      method: "DELETE",
      area: "rest",
      path: "/todos",
      query: "done=eq.true",
      accessToken: alice.access_token,
    });
    assert.equal(del.getOrThrow().status, 204);
    assert.equal(server.url.startsWith("http://127.0.0.1"), true);
  } finally {
    await server.close();
  }
});
