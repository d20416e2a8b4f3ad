// A lone UTF-16 surrogate cannot be percent-encoded: every URL the library
// builds must refuse it clearly (TypeError from builders, INVALID_ARGUMENT
// Failure from operations), never leak a bare URIError.
import assert from "node:assert/strict";
import { createAuthClient } from "../../auth/client.ts";
import { createBaseClient } from "../../core/client.ts";
import { encodeQueryComponent } from "../../core/query.ts";
import { request } from "../../core/transport.ts";
import { createStorageClient } from "../../storage/client.ts";

const LONE = "a\uD800b";
let sent = 0;
const client = createBaseClient("https://p.example", "anon-key-0123456789", {
  fetch: () => {
    sent++;
    return Promise.resolve(new Response("{}"));
  },
});
const notUnicode = { name: "TypeError", message: /lone UTF-16 surrogate/ };

Deno.test("URL builders throw a TypeError for a lone surrogate", () => {
  const storage = createStorageClient(client);
  assert.throws(() => encodeQueryComponent(LONE), notUnicode);
  assert.throws(() => storage.getPublicUrl("b", LONE), notUnicode);
  assert.throws(() => storage.getAuthenticatedUrl(LONE, "x"), notUnicode);
  assert.throws(
    () => createAuthClient(client).getOAuthSignInUrl("github", { redirectTo: `https://x/${LONE}` }),
    notUnicode,
  );
  assert.equal(
    storage.getPublicUrl("b", "ü ok"),
    "https://p.example/storage/v1/object/public/b/%C3%BC%20ok",
  );
});

Deno.test("operations answer Failure(INVALID_ARGUMENT) for a lone surrogate, sending nothing", async () => {
  const storage = createStorageClient(client);
  const before = sent;
  const results = [
    await request(client, { area: "auth", path: "/x", query: [["q", LONE]] }),
    await storage.upload("b", LONE, new Uint8Array(1)),
    await storage.createSignedUrl("b", LONE, 60),
  ];
  for (const r of results) {
    assert.equal(r.ok, false);
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
    assert.match(r.errorOrNull()!.message, /lone UTF-16 surrogate/);
  }
  assert.equal(sent, before);
});

Deno.test("auth operations answer Failure(INVALID_ARGUMENT) for a lone surrogate in a path id", async () => {
  const auth = createAuthClient(client);
  const before = sent;
  for (
    const r of [
      await auth.mfaChallenge("token", LONE),
      await auth.mfaUnenroll("token", LONE),
      await auth.unlinkIdentity("token", LONE),
    ]
  ) {
    assert.equal(r.ok, false);
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
    assert.match(r.errorOrNull()!.message, /lone UTF-16 surrogate/);
  }
  assert.equal(sent, before);
});

Deno.test("analytics: a bad namespace (lone surrogate, empty, separator) is Failure(INVALID_ARGUMENT); a bad server prefix is DECODE", async () => {
  const catalog = createStorageClient(client).analyticsCatalog("bucket1");
  const bad = await catalog.listTables([LONE]);
  assert.equal(bad.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(bad.errorOrNull()!.message, /lone UTF-16 surrogate/);
  for (
    const r of [
      await catalog.getNamespaceMetadata([]),
      await catalog.createNamespace([""]),
      await catalog.deleteNamespace(["a\u001fb"]),
    ]
  ) assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  const served = createBaseClient("https://p.example", "anon-key-0123456789", {
    fetch: () =>
      Promise.resolve(
        new Response('{"defaults":{},"overrides":{"prefix":"p\\ud800"}}', {
          headers: { "content-type": "application/json" },
        }),
      ),
  });
  const r = await createStorageClient(served).analyticsCatalog("bucket1").listTables(["ns"]);
  assert.equal(r.ok, false);
  assert.equal(r.errorOrNull()?.category, "DECODE");
});
