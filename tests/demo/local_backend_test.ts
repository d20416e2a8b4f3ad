import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createStorageClient } from "../../storage/mod.ts";
import { encodeBase64 } from "../../core/encoding.ts";
import { createLocalBackend } from "../../demo/local_backend/mod.ts";
import { serve } from "../support/serve.ts";
import { createClient } from "../../client.ts";
import { withClock } from "../session/_helpers.ts";

async function setup(options: { refreshReuseIntervalMs?: number } = {}) {
  const backend = await createLocalBackend(options);
  const server = await serve(backend.app.fetch);
  const client = createBaseClient(server.url, backend.apiKey);
  return { backend, server, client };
}

/** A refresh-token grant, answered as it is. */
function refreshGrant(client: ReturnType<typeof createBaseClient>, token: string) {
  return client.request({
    method: "POST",
    area: "auth",
    path: "/token",
    query: { grant_type: "refresh_token" },
    json: { refresh_token: token },
  });
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
    // Spent again within GoTrue's 10 s reuse interval (two tabs refreshing at once): the
    // session's active token comes back, with the same session_id.
    const grant = (token: string) => refreshGrant(client, token);
    const first = refreshed.getOrThrow().body as { refresh_token: string; access_token: string };
    const again = (await grant(s.refresh_token)).getOrThrow().body as typeof first;
    assert.equal(again.refresh_token, first.refresh_token);
    const sid = (t: string) => JSON.parse(atob(t.split(".")[1])).session_id;
    assert.equal(sid(again.access_token), sid(s.access_token));
    const user = await client.request({ area: "auth", path: "/user", accessToken: s.access_token });
    assert.equal((user.getOrThrow().body as { email: string }).email, "a@example.test");
    const forged = await client.request({
      area: "auth",
      path: "/user",
      accessToken: s.access_token.slice(0, -4) + "AAAA",
    });
    // GoTrue answers a token it cannot verify 403 bad_jwt (PostgREST 401).
    assert.equal(forged.errorOrNull()?.status, 403);
    assert.equal(forged.errorOrNull()?.code, "bad_jwt");
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
    // PostgREST answers PostgreSQL's 42501 with 401 for the anon role, 403 for a signed-in one.
    assert.equal(anon.errorOrNull()?.status, 401);
    assert.equal(anon.errorOrNull()?.code, "42501");

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

// Access checks (found by a review: the stand-in was far weaker than the real services).

/** Direct requests to a backend's app, as a caller with the given headers. */
async function direct() {
  const backend = await createLocalBackend();
  const call = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    let body = init.body ?? null;
    if (init.json !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(init.json);
    }
    return backend.app.fetch(new Request(`http://local.test${path}`, { ...init, headers, body }));
  };
  const signUp = async (email: string) => {
    const r = await call("/auth/v1/signup", {
      method: "POST",
      headers: { apikey: backend.apiKey },
      json: { email, password: "secret-pw" },
    });
    return (await r.json()) as { access_token: string; user: { id: string } };
  };
  const as = (token: string) => ({ apikey: backend.apiKey, authorization: `Bearer ${token}` });
  const anon = { apikey: backend.apiKey };
  const service = { apikey: backend.serviceKey, authorization: `Bearer ${backend.serviceKey}` };
  return { backend, call, signUp, as, anon, service };
}

/** Alice's private bucket `priv` holding `secret.txt`, and Bob. */
async function privateBucket() {
  const d = await direct();
  const alice = await d.signUp("alice@example.test");
  const bob = await d.signUp("bob@example.test");
  const made = await d.call("/storage/v1/bucket", {
    method: "POST",
    headers: d.as(alice.access_token),
    json: { id: "priv", name: "priv" },
  });
  assert.equal(made.status, 200, await made.clone().text());
  const up = await d.call("/storage/v1/object/priv/dir/secret.txt", {
    method: "POST",
    headers: { ...d.as(alice.access_token), "content-type": "text/plain" },
    body: "top secret",
  });
  assert.equal(up.status, 200, await up.clone().text());
  return { ...d, alice, bob };
}

Deno.test("local backend: creating a signed URL needs the API key and a caller who may read the object; only the token routes are open", async () => {
  const { call, as, anon, alice, bob } = await privateBucket();
  const sign = (headers: HeadersInit, json: unknown = { expiresIn: 60 }) =>
    call("/storage/v1/object/sign/priv/dir/secret.txt", { method: "POST", headers, json });
  // No credentials at all: the gateway refuses before storage sees the request.
  const none = await sign({});
  assert.equal(none.status, 401);
  assert.equal((await none.json()).message, "No API key found in request");
  // The anon key alone, or another user: the private object is not theirs to read.
  for (const headers of [anon, as(bob.access_token)]) {
    const r = await sign(headers);
    assert.ok(r.status === 400 || r.status === 404, `${r.status}`);
    assert.equal((await r.json()).signedURL, undefined);
  }
  const batch = await call("/storage/v1/object/sign/priv", {
    method: "POST",
    headers: as(bob.access_token),
    json: { expiresIn: 60, paths: ["dir/secret.txt"] },
  });
  const [entry] = await batch.json();
  assert.equal(entry.signedURL, null);
  assert.ok(entry.error);
  // The owner gets one, and using it needs no credentials; a wrong token is refused.
  const ok = await sign(as(alice.access_token));
  assert.equal(ok.status, 200);
  const { signedURL } = await ok.json();
  const dl = await call(`/storage/v1${signedURL}`);
  assert.equal(dl.status, 200);
  assert.equal(await dl.text(), "top secret");
  assert.equal((await call(`/storage/v1${signedURL}`, { method: "HEAD" })).status, 200);
  const forged = await call(`/storage/v1${signedURL.replace(/token=.*/, "token=guess")}`);
  assert.equal(forged.status, 400);
  await forged.body?.cancel();
  // A signed upload URL: made by a user (recorded as the object's owner), used without
  // credentials.
  assert.equal(
    (await call("/storage/v1/object/upload/sign/priv/up.txt", { method: "POST", headers: anon }))
      .status,
    403,
  );
  const made = await call("/storage/v1/object/upload/sign/priv/up.txt", {
    method: "POST",
    headers: as(alice.access_token),
  });
  const { url } = await made.json();
  const put = await call(`/storage/v1${url}`, { method: "PUT", body: "via token" });
  assert.equal(put.status, 200, await put.clone().text());
  const back = await call("/storage/v1/object/authenticated/priv/up.txt", {
    headers: as(alice.access_token),
  });
  assert.equal(await back.text(), "via token");
  const notBobs = await call("/storage/v1/object/authenticated/priv/up.txt", {
    headers: as(bob.access_token),
  });
  assert.notEqual(notBobs.status, 200);
  await notBobs.body?.cancel();
});

Deno.test("local backend: the API key is checked on every route that needs it, whatever the bearer", async () => {
  const { backend, call, signUp } = await direct();
  const alice = await signUp("alice@example.test");
  const bearer = `Bearer ${alice.access_token}`;
  const routes = ["/rest/v1/todos", "/storage/v1/bucket", "/auth/v1/user"];
  for (const path of routes) {
    const wrong = await call(path, { headers: { apikey: "WRONG", authorization: bearer } });
    assert.equal(wrong.status, 401, `${path} with a wrong apikey`);
    assert.equal((await wrong.json()).message, "Invalid API key");
    const missing = await call(path, { headers: { authorization: bearer } });
    assert.equal(missing.status, 401, `${path} without an apikey`);
    assert.equal((await missing.json()).message, "No API key found in request");
    // The anon key as a bearer is no API key either.
    const keyAsBearer = await call(path, {
      headers: { authorization: `Bearer ${backend.apiKey}` },
    });
    assert.equal(keyAsBearer.status, 401, `${path} with the key only as bearer`);
    await keyAsBearer.body?.cancel();
    const right = await call(path, { headers: { apikey: backend.apiKey, authorization: bearer } });
    assert.equal(right.status, 200, `${path} with the right apikey`);
    await right.body?.cancel();
    const query = await call(`${path}?apikey=${backend.apiKey}`, {
      headers: { authorization: bearer },
    });
    assert.equal(query.status, 200, `${path} with ?apikey=`);
    await query.body?.cancel();
  }
  // The JWKS stays open, as GoTrue's is.
  assert.equal((await call("/auth/v1/.well-known/jwks.json")).status, 200);
});

Deno.test("local backend: storage objects and buckets belong to their owner (a simple RLS policy set)", async () => {
  const { call, as, anon, service, alice, bob } = await privateBucket();
  const exists = async () =>
    (await call("/storage/v1/object/authenticated/priv/dir/secret.txt", {
      headers: as(alice.access_token),
    })).status === 200;
  // Move, copy, delete, list, info and download by the anon key or another user: refused.
  for (const headers of [anon, as(bob.access_token)]) {
    const moved = await call("/storage/v1/object/move", {
      method: "POST",
      headers,
      json: { bucketId: "priv", sourceKey: "dir/secret.txt", destinationKey: "stolen.txt" },
    });
    assert.notEqual(moved.status, 200, await moved.text());
    const copied = await call("/storage/v1/object/copy", {
      method: "POST",
      headers,
      json: { bucketId: "priv", sourceKey: "dir/secret.txt", destinationKey: "copied.txt" },
    });
    assert.notEqual(copied.status, 200, await copied.text());
    const removed = await call("/storage/v1/object/priv", {
      method: "DELETE",
      headers,
      json: { prefixes: ["dir/secret.txt"] },
    });
    // As the real Storage API: an object RLS refuses to delete is left, and not listed.
    assert.deepEqual(await removed.json(), []);
    const listed = await call("/storage/v1/object/list/priv", {
      method: "POST",
      headers,
      json: { prefix: "dir" },
    });
    assert.deepEqual(await listed.json(), []);
    for (const path of ["info/priv/dir/secret.txt", "authenticated/priv/dir/secret.txt"]) {
      const r = await call(`/storage/v1/object/${path}`, { headers });
      assert.ok(r.status === 400 || r.status === 404, `${path}: ${r.status}`);
      await r.body?.cancel();
    }
    // Overwriting someone else's object is refused too.
    const upsert = await call("/storage/v1/object/priv/dir/secret.txt", {
      method: "PUT",
      headers: { ...headers, "content-type": "text/plain" },
      body: "overwritten",
    });
    assert.equal(upsert.status, 403, await upsert.text());
    for (
      const [method, path] of [
        ["POST", "/bucket/priv/empty"],
        ["PUT", "/bucket/priv"],
        ["DELETE", "/bucket/priv"],
      ]
    ) {
      const r = await call(`/storage/v1${path}`, { method, headers, json: { public: true } });
      assert.equal(r.status, 403, `${method} ${path}: ${await r.text()}`);
    }
    assert.ok(await exists());
  }
  const read = await call("/storage/v1/object/authenticated/priv/dir/secret.txt", {
    headers: as(alice.access_token),
  });
  assert.equal(await read.text(), "top secret");
  assert.equal(
    (await call("/storage/v1/object/public/priv/dir/secret.txt")).status,
    400,
    "a private bucket has no public URL",
  );
  // The anon key cannot make a bucket; a user's bucket is recorded as theirs.
  assert.equal(
    (await call("/storage/v1/bucket", { method: "POST", headers: anon, json: { id: "x" } }))
      .status,
    403,
  );
  assert.equal(
    (await (await call("/storage/v1/bucket/priv", { headers: anon })).json()).owner,
    alice.user.id,
  );
  // The owner moves, copies and lists; in a private bucket each user lists only their objects.
  const bobsUpload = await call("/storage/v1/object/priv/dir/bob.txt", {
    method: "POST",
    headers: { ...as(bob.access_token), "content-type": "text/plain" },
    body: "bob's",
  });
  assert.equal(bobsUpload.status, 200);
  await bobsUpload.body?.cancel();
  const listOf = async (headers: HeadersInit) =>
    (await (await call("/storage/v1/object/list/priv", {
      method: "POST",
      headers,
      json: { prefix: "dir" },
    })).json()).map((e: { name: string }) => e.name);
  assert.deepEqual(await listOf(as(alice.access_token)), ["secret.txt"]);
  assert.deepEqual(await listOf(as(bob.access_token)), ["bob.txt"]);
  assert.deepEqual(await listOf(service), ["bob.txt", "secret.txt"]);
  const moved = await call("/storage/v1/object/move", {
    method: "POST",
    headers: as(alice.access_token),
    json: { bucketId: "priv", sourceKey: "dir/secret.txt", destinationKey: "dir/moved.txt" },
  });
  assert.equal(moved.status, 200);
  await moved.body?.cancel();
  // Copying onto another user's object would replace it: refused.
  const onto = await call("/storage/v1/object/copy", {
    method: "POST",
    headers: as(alice.access_token),
    json: { bucketId: "priv", sourceKey: "dir/moved.txt", destinationKey: "dir/bob.txt" },
  });
  assert.equal(onto.status, 403);
  await onto.body?.cancel();
  // A public bucket: anyone reads (the anon key, and without credentials through the public
  // URL); only the owner writes.
  const pub = await call("/storage/v1/bucket", {
    method: "POST",
    headers: as(alice.access_token),
    json: { id: "pub", name: "pub", public: true },
  });
  assert.equal(pub.status, 200);
  await pub.body?.cancel();
  (await call("/storage/v1/object/pub/a.txt", {
    method: "POST",
    headers: { ...as(alice.access_token), "content-type": "text/plain" },
    body: "hello",
  })).body?.cancel();
  assert.equal(await (await call("/storage/v1/object/public/pub/a.txt")).text(), "hello");
  assert.equal(
    await (await call("/storage/v1/object/authenticated/pub/a.txt", { headers: anon })).text(),
    "hello",
  );
  const anonUpload = await call("/storage/v1/object/pub/b.txt", {
    method: "POST",
    headers: { ...anon, "content-type": "text/plain" },
    body: "x",
  });
  assert.equal(anonUpload.status, 403);
  await anonUpload.body?.cancel();
  const bobRemoves = await call("/storage/v1/object/pub", {
    method: "DELETE",
    headers: as(bob.access_token),
    json: { prefixes: ["a.txt"] },
  });
  assert.deepEqual(await bobRemoves.json(), []);
  // The service role may do anything; the owner empties and deletes their bucket.
  const serviceDelete = await call("/storage/v1/object/priv", {
    method: "DELETE",
    headers: service,
    json: { prefixes: ["dir/bob.txt"] },
  });
  assert.equal((await serviceDelete.json()).length, 1);
  for (const [method, path] of [["POST", "/bucket/priv/empty"], ["DELETE", "/bucket/priv"]]) {
    const r = await call(`/storage/v1${path}`, { method, headers: as(alice.access_token) });
    assert.equal(r.status, 200, `${method} ${path}: ${await r.text()}`);
  }
});

Deno.test("local backend: a PATCH, insert or upsert whose row would belong to someone else is refused (RLS WITH CHECK)", async () => {
  const { call, as, service, signUp } = await direct();
  const alice = await signUp("alice@example.test");
  const bob = await signUp("bob@example.test");
  const rest = (token: string | null, method: string, query: string, json?: unknown) =>
    call(`/rest/v1/todos${query}`, {
      method,
      headers: { ...(token ? as(token) : service), prefer: "return=representation" },
      json,
    });
  const created = await rest(alice.access_token, "POST", "", { title: "mine" });
  assert.equal(created.status, 201);
  const [row] = await created.json();
  const refused = async (r: Response, using = false) => {
    assert.equal(r.status, 403);
    const body = await r.json();
    assert.equal(body.code, "42501");
    // PostgreSQL names the USING check when the row to update is one the policy hides.
    assert.equal(
      body.message,
      `new row violates row-level security policy${
        using ? " (USING expression)" : ""
      } for table "todos"`,
    );
  };
  await refused(
    await rest(alice.access_token, "PATCH", `?id=eq.${row.id}`, { user_id: bob.user.id }),
  );
  await refused(await rest(alice.access_token, "PATCH", `?id=eq.${row.id}`, { user_id: null }));
  // Bob's upsert onto Alice's row: the existing row is not his to update.
  await refused(
    await call("/rest/v1/todos", {
      method: "POST",
      headers: { ...as(bob.access_token), prefer: "resolution=merge-duplicates" },
      json: { id: row.id, title: "taken" },
    }),
    true,
  );
  // Ignored as a duplicate, it is left alone without an error (ON CONFLICT DO NOTHING).
  const ignored = await call("/rest/v1/todos", {
    method: "POST",
    headers: { ...as(bob.access_token), prefer: "resolution=ignore-duplicates" },
    json: { id: row.id, title: "taken" },
  });
  assert.equal(ignored.status, 201);
  // Alice's own upsert may not hand the row to Bob either.
  await refused(
    await call("/rest/v1/todos", {
      method: "POST",
      headers: { ...as(alice.access_token), prefer: "resolution=merge-duplicates" },
      json: { id: row.id, title: "gift", user_id: bob.user.id },
    }),
  );
  const [still] = await (await rest(alice.access_token, "GET", `?id=eq.${row.id}`)).json();
  assert.deepEqual(still, row, "nothing changed");
  // Allowed: her own changes, her own upsert, and anything by the service role.
  const renamed = await rest(alice.access_token, "PATCH", `?id=eq.${row.id}`, { title: "renamed" });
  assert.equal((await renamed.json())[0].title, "renamed");
  const upserted = await call("/rest/v1/todos", {
    method: "POST",
    headers: {
      ...as(alice.access_token),
      prefer: "resolution=merge-duplicates,return=representation",
    },
    json: { id: row.id, done: true },
  });
  // PostgREST 12+: an upsert that inserted nothing answers 200.
  assert.equal(upserted.status, 200);
  assert.deepEqual((await upserted.json()).map((r: { title: string }) => r.title), ["renamed"]);
  const rows = await (await rest(alice.access_token, "GET", "")).json();
  assert.equal(rows.length, 1, "an upsert on a conflict updates, it does not add a row");
  const handed = await rest(null, "PATCH", `?id=eq.${row.id}`, { user_id: bob.user.id });
  assert.equal(handed.status, 200);
  await handed.body?.cancel();
  assert.equal((await (await rest(bob.access_token, "GET", "")).json())[0].title, "renamed");
  const forBob = await rest(null, "POST", "", { title: "by service", user_id: bob.user.id });
  assert.equal(forBob.status, 201);
  await forBob.body?.cancel();
});

Deno.test("local backend: a bucket's MIME list is enforced, objects are served nosniff, a download name is encoded, a malformed path is 400", async () => {
  const { call, as, alice } = await privateBucket();
  const made = await call("/storage/v1/bucket", {
    method: "POST",
    headers: as(alice.access_token),
    json: { id: "pics", name: "pics", public: true, allowed_mime_types: ["image/*", "text/plain"] },
  });
  assert.equal(made.status, 200, await made.text());
  const put = (name: string, type: string) =>
    call(`/storage/v1/object/pics/${name}`, {
      method: "POST",
      headers: { ...as(alice.access_token), "content-type": type },
      body: "<script>alert(1)</script>",
    });
  const html = await put("a.html", "text/html");
  assert.equal(html.status, 415);
  assert.equal((await html.json()).message, "mime type text/html is not supported");
  for (const [name, type] of [["a.png", "image/png"], ["a.txt", "text/plain; charset=utf-8"]]) {
    const ok = await put(name, type);
    assert.equal(ok.status, 200, `${type}: ${await ok.text()}`);
  }
  const served = await call(
    `/storage/v1/object/public/pics/a.txt?download=${encodeURIComponent('x"; evil=1.html')}`,
  );
  assert.equal(served.headers.get("x-content-type-options"), "nosniff");
  const disposition = served.headers.get("content-disposition") ?? "";
  assert.ok(!disposition.includes('"'), disposition);
  assert.ok(!/;\s*evil=/.test(disposition), disposition);
  await served.body?.cancel();
  const unicode = await call(
    `/storage/v1/object/public/pics/a.txt?download=${encodeURIComponent("✓.txt")}`,
  );
  assert.equal(unicode.status, 200);
  await unicode.body?.cancel();
  const malformed = await call("/storage/v1/object/public/pics/%E0%A4%A.txt");
  assert.equal(malformed.status, 400);
  await malformed.body?.cancel();
});

Deno.test("local backend: LIKE as PostgREST and Postgres read it ('*' is '%', backslash escapes, a trailing one is 400), without backtracking", async () => {
  const { compileLike, matchLike } = await import("../../demo/local_backend/rest.ts");
  const like = (pattern: string, text: string, caseless = false) => {
    const p = compileLike(pattern, caseless);
    return p === null ? "ERROR" : matchLike(p, text, caseless);
  };
  const table: Array<[string, string, boolean | "ERROR"]> = [
    ["a%", "abc", true],
    ["a_c", "abc", true],
    ["a_c", "ac", false],
    ["%", "", true],
    ["_", "", false],
    ["_", "😀", true],
    ["a\\%b", "a%b", true],
    ["a\\%b", "axb", false],
    ["a\\_b", "a_b", true],
    ["a\\\\b", "a\\b", true],
    ["\\a", "a", true],
    ["%%a%%", "xxaxx", true],
    ["%a%b%", "xbxax", false],
    ["a*", "abc", true],
    ["a\\*", "a*", false],
    ["a\\*", "a%", true],
    ["a\\", "a\\", "ERROR"],
    ["\\", "\\", "ERROR"],
  ];
  for (const [pattern, text, want] of table) {
    assert.equal(like(pattern, text), want, `${pattern} ~ ${text}`);
  }
  assert.equal(like("%ABC%", "xabcx", true), true);
  assert.equal(like("%ABC%", "xabcx"), false);
  const started = performance.now();
  assert.equal(like("%a".repeat(50) + "%b", "a".repeat(20_000)), false);
  assert.ok(performance.now() - started < 2000);

  const { client, server } = await setup();
  try {
    const get = (pattern: string) =>
      client.request({ area: "rest", path: "/todos", query: [["title", `like.${pattern}`]] });
    assert.equal((await get("a\\%")).ok, true);
    const r = await get("a\\");
    assert.equal(r.errorOrNull()?.status, 400);
  } finally {
    await server.close();
  }
});

Deno.test("local backend: a refresh token spent after the reuse interval revokes its session unless it is the active one's parent, and sign-out honours its scope", async () => {
  const { server, client } = await setup({ refreshReuseIntervalMs: 0 });
  try {
    const grant = (token: string) => refreshGrant(client, token);
    const token = (r: Awaited<ReturnType<typeof grant>>) =>
      (r.getOrThrow().body as { refresh_token: string }).refresh_token;
    const s = await signUp(client, "b@example.test");
    const next = token(await grant(s.refresh_token));
    // The parent of the active token (a client that could not store its answer) gets the
    // active token back, as GoTrue answers it, past the reuse interval too.
    assert.equal(token(await grant(s.refresh_token)), next);
    const last = token(await grant(next));
    // Two generations back it is reuse.
    assert.equal((await grant(s.refresh_token)).errorOrNull()?.code, "refresh_token_already_used");
    // Reuse revoked the whole session: its active token is dead too.
    assert.equal((await grant(last)).errorOrNull()?.code, "refresh_token_not_found");
    // Two sessions of one user: a local sign-out ends the caller's only.
    const signIn = async () =>
      (await client.request({
        method: "POST",
        area: "auth",
        path: "/token",
        query: { grant_type: "password" },
        json: { email: "b@example.test", password: "correct horse" },
      })).getOrThrow().body as { access_token: string; refresh_token: string };
    const [one, two] = [await signIn(), await signIn()];
    const out = await client.request({
      method: "POST",
      area: "auth",
      path: "/logout",
      query: { scope: "local" },
      accessToken: one.access_token,
      responseType: "none",
    });
    assert.ok(out.ok);
    assert.equal((await grant(one.refresh_token)).ok, false);
    assert.ok((await grant(two.refresh_token)).ok);
    // As GoTrue: the ended session's access token still verifies, but every route that loads
    // the session answers 403 session_not_found; an unknown scope is a 400.
    const user = await client.request({
      area: "auth",
      path: "/user",
      accessToken: one.access_token,
    });
    assert.equal(user.errorOrNull()?.status, 403);
    assert.equal(user.errorOrNull()?.code, "session_not_found");
    const again = await client.request({
      method: "POST",
      area: "auth",
      path: "/logout",
      accessToken: one.access_token,
      responseType: "none",
    });
    assert.equal(again.errorOrNull()?.code, "session_not_found");
    const odd = await client.request({
      method: "POST",
      area: "auth",
      path: "/logout",
      query: { scope: "mine" },
      accessToken: two.access_token,
      responseType: "none",
    });
    assert.equal(odd.errorOrNull()?.code, "validation_failed");
  } finally {
    await server.close();
  }
});

Deno.test("local backend: an empty resumable upload is stored on creation, as @tus/server finishes it", async () => {
  const { server, client } = await setup();
  try {
    const s = await signUp(client, "c@example.test");
    client.setAccessToken(s.access_token);
    const storage = createStorageClient(client);
    assert.ok((await storage.createBucket("empty", "empty")).ok);
    const r = await storage.createResumableUpload("empty", "none.txt", new Uint8Array(0)).await();
    assert.ok(r.ok, r.ok ? "" : r.error.message);
    assert.equal((await storage.exists("empty", "none.txt")).getOrThrow(), true);
    assert.equal((await storage.downloadBytes("empty", "none.txt")).getOrThrow().length, 0);
  } finally {
    await server.close();
  }
});

Deno.test("local backend: the TUS routes answer a browser on another origin as the deployed service (preflight without a key, TUS headers exposed)", async () => {
  const { server, client, backend } = await setup();
  try {
    const origin = "https://app.example.test";
    const preflight = await fetch(`${server.url}/storage/v1/upload/resumable/some-id`, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "PATCH",
        "access-control-request-headers": "apikey,authorization,tus-resumable,upload-offset",
      },
    });
    await preflight.body?.cancel();
    assert.equal(preflight.status, 200);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "*");
    assert.match(preflight.headers.get("access-control-allow-methods") ?? "", /\bPATCH\b/);
    assert.equal(
      preflight.headers.get("access-control-allow-headers"),
      "apikey,authorization,tus-resumable,upload-offset",
    );
    const s = await signUp(client, "cors@example.test");
    client.setAccessToken(s.access_token);
    assert.ok((await createStorageClient(client).createBucket("cors", "cors")).ok);
    const tus = { apikey: backend.apiKey, origin, "tus-resumable": "1.0.0" };
    const created = await fetch(`${server.url}/storage/v1/upload/resumable`, {
      method: "POST",
      headers: {
        ...tus,
        authorization: `Bearer ${s.access_token}`,
        "upload-length": "3",
        "upload-metadata": `bucketName ${btoa("cors")},objectName ${btoa("a.bin")}`,
      },
    });
    await created.body?.cancel();
    assert.equal(created.status, 201);
    assert.equal(created.headers.get("access-control-allow-origin"), "*");
    const exposed = (created.headers.get("access-control-expose-headers") ?? "").split(/,\s*/);
    for (const name of ["Location", "Upload-Offset", "Upload-Length", "Tus-Resumable"]) {
      assert.ok(exposed.includes(name), `${name} exposed: ${exposed}`);
    }
    // A refusal too, so that the page can read its status.
    const refused = await fetch(`${server.url}/storage/v1/upload/resumable`, {
      method: "POST",
      headers: { origin, "tus-resumable": "1.0.0", "upload-length": "3" },
    });
    await refused.body?.cancel();
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get("access-control-allow-origin"), "*");
    // The other routes keep sending none.
    const bucket = await fetch(`${server.url}/storage/v1/bucket`, { headers: { ...tus, origin } });
    await bucket.body?.cancel();
    assert.equal(bucket.headers.get("access-control-allow-origin"), null);
  } finally {
    await server.close();
  }
});

Deno.test("local backend: two refreshes of one token at once both get the active session (no revocation)", async () => {
  const { server, client } = await setup();
  try {
    const s = await signUp(client, "twice@example.test");
    // Two requests of one browser carrying the same expired cookie refresh together: the
    // second is a reuse within the interval, never a revocation of the session.
    const [a, b] = await Promise.all([
      refreshGrant(client, s.refresh_token),
      refreshGrant(client, s.refresh_token),
    ]);
    assert.ok(a.ok && b.ok, `${a.errorOrNull()?.code} ${b.errorOrNull()?.code}`);
    const token = (r: typeof a) => (r.getOrThrow().body as { refresh_token: string }).refresh_token;
    assert.equal(token(a), token(b));
    assert.ok((await refreshGrant(client, token(a))).ok, "the session is still alive");
  } finally {
    await server.close();
  }
});

Deno.test("local backend: a signed upload takes upsert from its token, not from x-upsert", async () => {
  const { server, client } = await setup();
  try {
    const s = await signUp(client, "signed@example.test");
    client.setAccessToken(s.access_token);
    const storage = createStorageClient(client);
    assert.ok((await storage.createBucket("up", "up")).ok);
    assert.ok((await storage.upload("up", "a.txt", "first")).ok);
    const token = (await storage.createSignedUploadUrl("up", "a.txt")).getOrThrow();
    // As the Storage API does: the token says no upsert, whatever the call sends.
    const r = await storage.uploadToSignedUrl("up", "a.txt", token, "second", { upsert: true });
    assert.equal(r.ok, false);
    assert.equal((await storage.download("up", "a.txt")).getOrThrow(), "first");
    const upsert = (await storage.createSignedUploadUrl("up", "a.txt", { upsert: true }))
      .getOrThrow();
    assert.ok((await storage.uploadToSignedUrl("up", "a.txt", upsert, "third")).ok);
    assert.equal((await storage.download("up", "a.txt")).getOrThrow(), "third");
  } finally {
    await server.close();
  }
});

Deno.test("local backend: the rest routes take a token up to 30 s past its expiry (PostgREST's clock skew), auth routes none", async () => {
  const backend = await createLocalBackend({ accessTokenTtl: 60 });
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) =>
    await backend.app.fetch(new Request(input, init));
  await withClock(async (clock) => {
    const client = createClient("http://backend.test", backend.apiKey, { fetch });
    assert.ok((await client.auth.signUpWithEmail("skew@example.test", "secret-pw")).ok);
    const session = (await client.auth.signInWithEmail("skew@example.test", "secret-pw"))
      .getOrThrow();
    client.setAccessToken(session.accessToken);
    clock.tick(80_000); // 20 s past the expiry
    assert.ok((await client.database.select("todos")).ok, "within PostgREST's skew");
    const user = await client.auth.getUser(session.accessToken);
    assert.equal(user.errorOrNull()?.status, 403, "GoTrue allows no skew (403 bad_jwt)");
    clock.tick(20_000); // 40 s past
    assert.equal((await client.database.select("todos")).errorOrNull()?.status, 401);
  });
});

Deno.test("local backend: cors \"all\" answers every route as the services behind Supabase's gateway (preflight by the gateway, each service's exposed headers)", async () => {
  const backend = await createLocalBackend({ cors: "all" });
  const server = await serve(backend.app.fetch);
  const client = createBaseClient(server.url, backend.apiKey);
  try {
    const origin = "https://app.example.test";
    const call = async (path: string, init: RequestInit = {}) => {
      const r = await fetch(`${server.url}${path}`, {
        ...init,
        headers: { origin, ...init.headers as Record<string, string> },
      });
      await r.body?.cancel();
      return r;
    };
    // Preflights: answered before any key check, for any route.
    for (const path of ["/auth/v1/token", "/rest/v1/todos", "/storage/v1/object/b/x"]) {
      const pre = await call(path, {
        method: "OPTIONS",
        headers: {
          "access-control-request-method": "PATCH",
          "access-control-request-headers": "apikey,authorization,prefer,range,x-upsert",
        },
      });
      assert.equal(pre.status, 200, path);
      assert.equal(pre.headers.get("access-control-allow-origin"), "*");
      assert.equal(
        pre.headers.get("access-control-allow-methods"),
        "GET,HEAD,PUT,PATCH,POST,DELETE,OPTIONS,TRACE,CONNECT",
      );
      assert.equal(
        pre.headers.get("access-control-allow-headers"),
        "apikey,authorization,prefer,range,x-upsert",
      );
    }
    const key = { apikey: backend.apiKey };
    const exposed = (r: Response) => r.headers.get("access-control-expose-headers");
    const health = await call("/auth/v1/health", { headers: key });
    assert.equal(health.headers.get("access-control-allow-origin"), "*");
    assert.equal(exposed(health), "X-Total-Count, Link, X-Supabase-Api-Version");
    assert.equal(health.headers.get("access-control-allow-credentials"), "true");
    const rows = await call("/rest/v1/todos", { headers: key });
    assert.equal(rows.status, 200);
    assert.match(exposed(rows)!, /^Content-Encoding, Content-Location, Content-Range, /);
    assert.ok(!exposed(rows)!.includes("Preference-Applied"));
    // The gateway's key refusal never reached the service: the origin allowed, nothing exposed.
    const noKey = await call("/rest/v1/todos");
    assert.equal(noKey.status, 401);
    assert.equal(noKey.headers.get("access-control-allow-origin"), "*");
    assert.equal(exposed(noKey), null);
    // The Storage API exposes nothing, but on the TUS answers of @tus/server.
    const buckets = await call("/storage/v1/bucket", { headers: key });
    assert.equal(buckets.status, 200);
    assert.equal(buckets.headers.get("access-control-allow-origin"), "*");
    assert.equal(exposed(buckets), null);
    const s = await signUp(client, "all@example.test");
    client.setAccessToken(s.access_token);
    assert.ok((await createStorageClient(client).createBucket("cors", "cors")).ok);
    const created = await call("/storage/v1/upload/resumable", {
      method: "POST",
      headers: {
        ...key,
        authorization: `Bearer ${s.access_token}`,
        "tus-resumable": "1.0.0",
        "upload-length": "3",
        "upload-metadata": `bucketName ${btoa("cors")},objectName ${btoa("a.bin")}`,
      },
    });
    assert.equal(created.status, 201);
    assert.match(exposed(created)!, /\bLocation\b.*\bUpload-Offset\b/);
  } finally {
    await server.close();
  }
});

Deno.test("a device's session ended by another's global sign-out is signed out at its next user read (session_not_found, end to end)", async () => {
  const {
    createSessionManager,
    getUserForCurrentSession,
    signOutCurrentSession,
    signInWithEmailAndSaveSession,
  } = await import("../../session/mod.ts");
  const { createAuthClient } = await import("../../auth/client.ts");
  const { SignOutScope } = await import("../../auth/enums.ts");
  const { server, client: first, backend } = await setup();
  try {
    await signUp(first, "d@example.test");
    const device = () => {
      const client = createBaseClient(server.url, backend.apiKey);
      const auth = createAuthClient(client);
      return { auth, manager: createSessionManager(auth, client, { autoRefresh: false }) };
    };
    const [a, b] = [device(), device()];
    for (const d of [a, b]) {
      assert.ok(
        (await signInWithEmailAndSaveSession(d.auth, d.manager, "d@example.test", "correct horse"))
          .ok,
      );
    }
    assert.ok((await signOutCurrentSession(a.auth, a.manager, { scope: SignOutScope.GLOBAL })).ok);
    const events: string[] = [];
    b.manager.onAuthStateChange((e) => events.push(e), { emitInitialSession: false });
    const r = await getUserForCurrentSession(b.auth, b.manager);
    assert.equal(r.errorOrNull()?.code, "session_not_found");
    assert.equal(b.manager.sessionState.value.kind, "NotAuthenticated");
    assert.deepEqual(events, ["SIGNED_OUT"]);
    a.manager.dispose();
    b.manager.dispose();
  } finally {
    await server.close();
  }
});
