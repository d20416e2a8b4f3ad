// Findings of a review against the Storage API's source (supabase/storage at 4fa61fba): each
// test failed before its fix.
import assert from "node:assert/strict";
import { jsonResponse, type RecordedRequest } from "../support/recording_fetch.ts";
import { makeStorage } from "./_helpers.ts";

/**
 * The Storage API's signing, as `src/storage/object.ts` does it: the single-path route
 * (`POST /object/sign/{bucket}/{key}`) signs `decodeURI` of its request path after the route,
 * the batch route `{bucket}/{path}` as given; a download (`GET /object/sign/:bucketName/*`)
 * checks the token's url against the router's decoded params (`decodeURIComponent`).
 */
function signingServer(req: RecordedRequest): Response {
  const path = req.url.pathname.replace(/^\/storage\/v1/, "");
  const route = path.startsWith("/render/image/sign/") ? "render/image" : "object";
  const rest = path.split("/").slice(route === "object" ? 3 : 4);
  if (rest.length === 1) { // the batch route
    const bucket = decodeURIComponent(rest[0]);
    const { paths } = req.json() as { paths: string[] };
    return jsonResponse(paths.map((p) => ({
      error: null,
      path: p,
      signedURL: `/object/sign/${bucket}/${p}?token=${encodeURIComponent(`${bucket}/${p}`)}`,
    })));
  }
  const url = decodeURI(rest.join("/"));
  return jsonResponse({ signedURL: `/${route}/sign/${url}?token=${encodeURIComponent(url)}` });
}

/** Whether the signed URL's download passes the server's check of its token. */
function verifies(signed: string): boolean {
  const u = new URL(signed);
  const [bucket, ...key] = u.pathname.replace(/^\/storage\/v1\/(object|render\/image)\/sign\//, "")
    .split("/");
  const token = u.searchParams.get("token");
  return token === `${decodeURIComponent(bucket)}/${decodeURIComponent(key.join("/"))}`;
}

Deno.test("createSignedUrl works for bucket ids the Storage API allows with '+', ':', '@', '&', '=', '$', ',', ';' or '?'", async () => {
  const { storage } = makeStorage(signingServer);
  for (const bucket of ["a+b", "x:y", "m@n", "p&q", "k=v", "d$", "c,d", "s;t", "a?b", "a b"]) {
    for (const key of ["f.txt", "d/a+b c.txt"]) {
      const r = await storage.createSignedUrl(bucket, key, 60);
      assert.ok(r.ok, `${bucket} ${key}`);
      assert.ok(verifies(r.value), `${bucket} ${key}: ${r.value}`);
      const many = await storage.createSignedUrls(bucket, [key], 60);
      assert.ok(many.ok && verifies(many.value[0]), `${bucket} ${key} (batch)`);
    }
    if (bucket.includes("?")) continue; // no route signs a transform for such a bucket
    const t = await storage.createSignedUrl(bucket, "i.png", 60, { transform: { width: 5 } });
    assert.ok(t.ok && verifies(t.value), `${bucket} (transform)`);
  }
});

Deno.test("a transformed createSignedUrl for a bucket id holding '?' is refused before any request: no route signs it", async () => {
  const { storage, rec } = makeStorage(signingServer);
  const r = await storage.createSignedUrl("a?b", "i.png", 60, { transform: { width: 5 } });
  assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(r.errorOrNull()!.message, /a key or bucket holding '\?' or '#'/);
  assert.equal(rec.requests.length, 0);
});
