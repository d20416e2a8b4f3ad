/**
 * signedUploadToken (storage/tus.ts): tests from the third mutation review, each named by the
 * mutant it kills.
 */

import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createStorageClient, uploadResumable } from "../../storage/mod.ts";
import { recordingFetch } from "../support/recording_fetch.ts";
import { BASE, KEY, tusScript } from "./_tus_script.ts";

// U04: an upload URL of the client's origin with a query still redacts the token.
Deno.test("a refusal quoting the token is redacted when the upload URL has a query", async () => {
  const token = "tok-secret-query-77";
  const rec = recordingFetch(tusScript({
    location: `${BASE}/storage/v1/upload/resumable/sign/id1?part=1`,
    onPatch: (q) => new Response(`bad signature ${q.headers.get("x-signature")}`, { status: 400 }),
  }));
  const storage = createStorageClient(
    createBaseClient(BASE, KEY, { fetch: rec.fetch, retry: { maxAttempts: 1 } }),
  );
  const r = await storage.createResumableUpload("b", "a.bin", new Uint8Array(10), {
    signedUploadToken: token,
    chunkSize: 4,
    maxAttempts: 1,
  }).await();
  assert.equal(r.ok, false);
  assert.equal(rec.last.headers.get("x-signature"), token); // the PATCH carried it
  assert.ok(!JSON.stringify(r.errorOrNull()).includes(token));
  assert.ok(!String(r.errorOrNull()?.message).includes(token));
});

// U10: a null token is none (the option's type allows it): the plain route, no x-signature.
Deno.test("a null signedUploadToken uploads as without one", async () => {
  const rec = recordingFetch(tusScript());
  const storage = createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  const r = await uploadResumable(storage, "b", "a.bin", new Uint8Array(4), {
    signedUploadToken: null,
  });
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.equal(rec.requests[0].url.pathname, "/storage/v1/upload/resumable");
  assert.ok(rec.requests.every((q) => !q.headers.has("x-signature")));
});
