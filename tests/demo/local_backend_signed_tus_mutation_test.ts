/**
 * The local backend's `/upload/resumable/sign` routes and copy/move conflicts
 * (demo/local_backend/storage.ts), on the wire: third mutation review.
 */

import assert from "node:assert/strict";
import { localUser } from "../support/local_user.ts";
import { serve } from "../support/serve.ts";
import { createBaseClient } from "../../core/client.ts";
import { createLocalBackend } from "../../demo/local_backend/mod.ts";
import { createStorageClient } from "../../storage/mod.ts";

const b64 = (s: string) => btoa(s);

/** Creates a TUS upload of `length` bytes for bucket/name, raw, returning the answer. */
function create(
  url: string,
  bucket: string,
  name: string,
  headers: Record<string, string>,
  route = "/storage/v1/upload/resumable/sign",
) {
  return fetch(`${url}${route}`, {
    method: "POST",
    headers: {
      "tus-resumable": "1.0.0",
      "upload-length": "3",
      "upload-metadata": `bucketName ${b64(bucket)},objectName ${b64(name)}`,
      ...headers,
    },
  });
}

Deno.test("local backend: signed resumable creation needs no API key, a live upload token, and refuses others", async () => {
  const { server, apiKey, storage } = await localUser("tus-signer@example.test");
  try {
    assert.ok((await storage.createBucket("drop", "drop")).ok);
    const token = (await storage.createSignedUploadUrl("drop", "a.bin")).getOrThrow();

    // K04: no API key on the sign route: the token is the proof.
    const bare = await create(server.url, "drop", "a.bin", { "x-signature": token });
    await bare.body?.cancel();
    assert.equal(bare.status, 201);

    // K06: a download token (createSignedUrl) is no upload token.
    await storage.upload("drop", "d.bin", "abc");
    const signedUrl = (await storage.createSignedUrl("drop", "d.bin", 60)).getOrThrow();
    const downloadToken = new URL(signedUrl).searchParams.get("token")!;
    const wrongKind = await create(server.url, "drop", "d.bin", {
      "x-signature": downloadToken,
      apikey: apiKey,
    });
    await wrongKind.body?.cancel();
    assert.equal(wrongKind.status, 400);

    // K05: an upload token past its expiry is refused.
    const late = (await storage.createSignedUploadUrl("drop", "late.bin")).getOrThrow();
    const now = Date.now;
    Date.now = () => now() + 3 * 24 * 3600 * 1000;
    let expired: Response;
    try {
      expired = await create(server.url, "drop", "late.bin", {
        "x-signature": late,
        apikey: apiKey,
      });
    } finally {
      Date.now = now;
    }
    await expired.body?.cancel();
    assert.equal(expired.status, 400);
  } finally {
    await server.close();
  }
});

// K11: an upload made with the user's session is not reachable on the sign route, even with a
// live upload token for its object.
Deno.test("local backend: a session's upload is not reachable under /sign/ with a token", async () => {
  const backend = await createLocalBackend();
  const server = await serve(backend.app.fetch);
  try {
    const apikey = backend.apiKey;
    const signup = await fetch(`${server.url}/auth/v1/signup`, {
      method: "POST",
      headers: { apikey, "content-type": "application/json" },
      body: JSON.stringify({ email: "tus-mixed@example.test", password: "secret-pw" }),
    });
    const { access_token } = await signup.json() as { access_token: string };
    const client = createBaseClient(server.url, apikey);
    client.setAccessToken(access_token);
    const storage = createStorageClient(client);
    assert.ok((await storage.createBucket("drop", "drop")).ok);
    const created = await create(server.url, "drop", "n.bin", {
      apikey,
      authorization: `Bearer ${access_token}`,
    }, "/storage/v1/upload/resumable");
    await created.body?.cancel();
    assert.equal(created.status, 201);
    const id = created.headers.get("location")!.split("/").pop()!;
    const token = (await storage.createSignedUploadUrl("drop", "n.bin")).getOrThrow();
    const head = await fetch(`${server.url}/storage/v1/upload/resumable/sign/${id}`, {
      method: "HEAD",
      headers: { "tus-resumable": "1.0.0", "x-signature": token, apikey },
    });
    assert.equal(head.status, 404);
    // Its creator still reaches it on the plain route.
    const own = await fetch(`${server.url}/storage/v1/upload/resumable/${id}`, {
      method: "HEAD",
      headers: { "tus-resumable": "1.0.0", apikey, authorization: `Bearer ${access_token}` },
    });
    assert.equal(own.status, 200);
    // K12: the other way round: an upload made with a token is not reachable on the plain
    // route, even by the user who signed the token.
    const sToken = (await storage.createSignedUploadUrl("drop", "s.bin")).getOrThrow();
    const signed = await create(server.url, "drop", "s.bin", { "x-signature": sToken });
    await signed.body?.cancel();
    assert.equal(signed.status, 201);
    const sid = signed.headers.get("location")!.split("/").pop()!;
    const plain = await fetch(`${server.url}/storage/v1/upload/resumable/${sid}`, {
      method: "HEAD",
      headers: { "tus-resumable": "1.0.0", apikey, authorization: `Bearer ${access_token}` },
    });
    assert.equal(plain.status, 404);
    const headSigned = (signature: string) =>
      fetch(`${server.url}/storage/v1/upload/resumable/sign/${sid}`, {
        method: "HEAD",
        headers: { "tus-resumable": "1.0.0", "x-signature": signature, apikey },
      });
    assert.equal((await headSigned(sToken)).status, 200);
    // K14: a download token for the object does not continue its upload.
    await storage.upload("drop", "s.bin", "xyz");
    const url = (await storage.createSignedUrl("drop", "s.bin", 60)).getOrThrow();
    assert.equal((await headSigned(new URL(url).searchParams.get("token")!)).status, 404);
    // K15: nor does an upload token past its expiry.
    const now = Date.now;
    Date.now = () => now() + 3 * 24 * 3600 * 1000;
    let late: Response;
    try {
      late = await headSigned(sToken);
    } finally {
      Date.now = now;
    }
    assert.equal(late.status, 404);
  } finally {
    await server.close();
  }
});

// K01: the Storage API's move never replaces an object, whatever headers it is sent.
Deno.test("local backend: a move onto an existing key is 409 even with x-upsert: true", async () => {
  const { server, apiKey, storage } = await localUser("mover@example.test");
  try {
    assert.ok((await storage.createBucket("docs", "docs")).ok);
    await storage.upload("docs", "a.txt", "first");
    await storage.upload("docs", "b.txt", "second");
    const session = await fetch(`${server.url}/auth/v1/token?grant_type=password`, {
      method: "POST",
      headers: { apikey: apiKey, "content-type": "application/json" },
      body: JSON.stringify({ email: "mover@example.test", password: "secret-pw" }),
    });
    const { access_token } = await session.json() as { access_token: string };
    const moved = await fetch(`${server.url}/storage/v1/object/move`, {
      method: "POST",
      headers: {
        apikey: apiKey,
        authorization: `Bearer ${access_token}`,
        "content-type": "application/json",
        "x-upsert": "true",
      },
      body: JSON.stringify({ bucketId: "docs", sourceKey: "a.txt", destinationKey: "b.txt" }),
    });
    await moved.body?.cancel();
    assert.equal(moved.status, 409);
    assert.equal((await storage.download("docs", "b.txt")).getOrThrow(), "second");
  } finally {
    await server.close();
  }
});

Deno.test("local backend: a signed upload is ended by a DELETE of its /sign/ URL with a live token for its key", async () => {
  const { server, storage } = await localUser("tus-ender@example.test");
  try {
    assert.ok((await storage.createBucket("drop", "drop")).ok);
    const token = (await storage.createSignedUploadUrl("drop", "e.bin")).getOrThrow();
    const made = await create(server.url, "drop", "e.bin", { "x-signature": token });
    await made.body?.cancel();
    const location = made.headers.get("location")!;
    assert.match(location, /\/upload\/resumable\/sign\//);
    const head = () =>
      fetch(location, {
        method: "HEAD",
        headers: { "tus-resumable": "1.0.0", "x-signature": token },
      });
    assert.equal((await head()).status, 200);
    const gone = await fetch(location, {
      method: "DELETE",
      headers: { "tus-resumable": "1.0.0", "x-signature": token },
    });
    await gone.body?.cancel();
    assert.equal(gone.status, 204);
    assert.equal((await head()).status, 404);
  } finally {
    await server.close();
  }
});
