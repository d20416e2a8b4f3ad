// Defaults and rules of the interface document that no other test pinned: each test here failed
// against a mutated library (the default or the rule changed) before it was added.
import assert from "node:assert/strict";
import { createAuthClient, getClaims, MfaFactorType } from "../auth/mod.ts";
import { encodeBase64Url } from "../core/encoding.ts";
import { createBaseClient } from "../core/client.ts";
import { createStorageClient } from "../storage/mod.ts";
import { jsonResponse, recordingFetch } from "./support/recording_fetch.ts";

const BASE = "https://project.example";
const KEY = "anon-key-0123456789";

Deno.test("MfaEnrollResponse: type = UNKNOWN when the server's type is unrecognised or absent", async () => {
  const rec = recordingFetch([
    jsonResponse({ id: "f1", type: "sms-otp-v2", friendly_name: "new kind" }),
    jsonResponse({ id: "f2" }),
    jsonResponse({ id: "f3", type: "phone", phone: "+15550100" }),
  ]);
  const auth = createAuthClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  const unknown = (await auth.mfaEnroll("token", "totp")).getOrThrow();
  assert.equal(unknown.type, MfaFactorType.UNKNOWN);
  assert.equal(unknown.friendlyName, "new kind");
  const absent = (await auth.mfaEnroll("token", "totp")).getOrThrow();
  assert.equal(absent.type, MfaFactorType.UNKNOWN);
  // A known value is kept: the default is not applied to every answer.
  const phone = (await auth.mfaEnroll("token", "phone", { phone: "+15550100" })).getOrThrow();
  assert.equal(phone.type, MfaFactorType.PHONE);
});

Deno.test("Iceberg catalog models: every `= empty` field is empty when the server omits it", async () => {
  const rec = recordingFetch((req) => {
    const path = req.url.pathname;
    // An empty config: no defaults, no overrides; the routes then use the bucket name.
    if (path.endsWith("/v1/config")) return jsonResponse({});
    if (req.method === "POST" && path.endsWith("/properties")) return jsonResponse({});
    if (path.endsWith("/tables/events")) return jsonResponse({ "metadata-location": "s3://m" });
    return jsonResponse({});
  });
  const storage = createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  const catalog = storage.analyticsCatalog("lake");

  assert.deepEqual((await catalog.getConfigTyped()).getOrThrow(), {
    defaults: {},
    overrides: {},
  });
  const namespaces = (await catalog.listNamespacesTyped()).getOrThrow();
  assert.deepEqual(namespaces.namespaces, []);
  assert.equal(namespaces.resolvedNextPageToken, null);
  assert.equal(rec.last.url.pathname, "/storage/v1/iceberg/v1/lake/namespaces");

  assert.deepEqual((await catalog.getNamespaceMetadataTyped(["sales"])).getOrThrow(), {
    namespace: [],
    properties: {},
  });
  assert.deepEqual(
    (await catalog.updateNamespacePropertiesTyped(["sales"], { removals: ["a"], updates: null }))
      .getOrThrow(),
    { removed: [], updated: [], missing: [] },
  );
  const tables = (await catalog.listTablesTyped(["sales"])).getOrThrow();
  assert.deepEqual(tables.identifiers, []);
  assert.equal(tables.resolvedNextPageToken, null);

  const table = (await catalog.getTableTyped(["sales"], "events")).getOrThrow();
  assert.deepEqual(table.config, {});
  assert.equal(table.metadataLocation, "s3://m");
  assert.equal(table.name, null);
  assert.equal(table.metadata, null);
});

Deno.test("IcebergTableCommitRequest: requirements and updates default to empty lists on the wire", async () => {
  const rec = recordingFetch((req) =>
    req.url.pathname.endsWith("/v1/config") ? jsonResponse({}) : jsonResponse({})
  );
  const storage = createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  const catalog = storage.analyticsCatalog("lake");
  const r = await catalog.updateTableTyped(["sales"], "events", {});
  assert.ok(r.ok, String(r.errorOrNull()?.message));
  assert.equal(rec.last.method, "POST");
  assert.equal(rec.last.url.pathname, "/storage/v1/iceberg/v1/lake/namespaces/sales/tables/events");
  assert.deepEqual(rec.last.json(), { requirements: [], updates: [] });
  await catalog.updateTableTyped(["sales"], "events", { updates: [{ action: "set-properties" }] });
  assert.deepEqual(rec.last.json(), { requirements: [], updates: [{ action: "set-properties" }] });
  await catalog.updateTableTyped(["sales"], "events", {
    requirements: [{ type: "assert-create" }],
  });
  assert.deepEqual(rec.last.json(), { requirements: [{ type: "assert-create" }], updates: [] });
});

Deno.test("getClaims: iss must equal expectedIssuer and a string aud must be expectedAudience, not merely start with or contain it", async () => {
  const rec = recordingFetch();
  const auth = createAuthClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  const iss = `${BASE}/auth/v1`;
  const part = (v: unknown) => encodeBase64Url(JSON.stringify(v));
  const token = `${part({ alg: "ES256", kid: "k1", typ: "JWT" })}.${
    part({ sub: "u1", iss, aud: "authenticated", exp: Math.floor(Date.now() / 1000) + 3600 })
  }.${encodeBase64Url(new Uint8Array(64))}`;
  const exact = await getClaims(auth, token, {
    verify: false,
    expectedIssuer: iss,
    expectedAudience: "authenticated",
  });
  assert.ok(exact.ok, String(exact.errorOrNull()?.message));
  for (const verify of [false, true]) {
    for (const expectedIssuer of [`${BASE}/auth`, BASE, `${iss}/`, `${iss}x`]) {
      const r = await getClaims(auth, token, { verify, expectedIssuer });
      assert.equal(r.errorOrNull()?.code, "invalid_issuer", expectedIssuer);
    }
    for (const expectedAudience of ["authenticate", "auth", "authenticated2", ""]) {
      const r = await getClaims(auth, token, { verify, expectedAudience });
      assert.equal(r.errorOrNull()?.code, "invalid_audience", expectedAudience);
    }
  }
  assert.equal(rec.requests.length, 0, "a mismatch is refused before any request");
});

Deno.test("createBucket: public = false, on the wire and in the returned Bucket, unless given", async () => {
  const rec = recordingFetch(() => jsonResponse({ name: "docs" }));
  const storage = createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  const bucket = (await storage.createBucket("docs", "docs")).getOrThrow();
  assert.equal((rec.last.json() as { public: boolean }).public, false);
  assert.equal(bucket.public, false);
  assert.equal(bucket.fileSizeLimit, null);
  assert.equal(bucket.allowedMimeTypes, null);
  const open = (await storage.createBucket("pub", "pub", { public: true })).getOrThrow();
  assert.equal((rec.last.json() as { public: boolean }).public, true);
  assert.equal(open.public, true);
});
