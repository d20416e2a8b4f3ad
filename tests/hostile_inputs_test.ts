// Values JavaScript callers can pass whatever the types say, found by fuzzing
// the public API: each gets a Failure or the documented TypeError, never a
// crash from inside the library, a hang or an unhandled rejection.
import assert from "node:assert/strict";
import { createBaseClient } from "../core/client.ts";
import { timingSafeEqual } from "../core/crypto.ts";
import { createPaginator } from "../core/paginator.ts";
import { type ServiceResult, success } from "../core/result.ts";
import { parseSessionTokensFromUrl } from "../auth/mod.ts";
import { column, insertTyped, type WhereBuilder } from "../database/mod.ts";
import {
  createSignedDownloadUrls,
  createSignedRenderUrls,
  createStorageClient,
  getPublicUrls,
  withCacheNonce,
} from "../storage/mod.ts";
import { assertInvalid, makeDb } from "./database/_helpers.ts";
import { jsonResponse, recordingFetch } from "./support/recording_fetch.ts";

const storage = () =>
  createStorageClient(
    createBaseClient("https://p.example", "anon-key", { fetch: recordingFetch().fetch }),
  );

Deno.test("storage paths that are neither a key nor a list: Failure for the signing helpers, TypeError for local builders", async () => {
  const s = storage();
  for (const bad of [null, 5, {}, undefined]) {
    const render = await createSignedRenderUrls(s, "b", bad as never, 60, { width: 1 });
    assert.equal(render.errorOrNull()?.category, "INVALID_ARGUMENT");
    const download = await createSignedDownloadUrls(s, "b", bad as never, 60);
    assert.equal(download.errorOrNull()?.category, "INVALID_ARGUMENT");
    assert.throws(() => getPublicUrls(s, "b", bad as never), {
      name: "TypeError",
      message: /must be an object key or a list of keys/,
    });
  }
});

Deno.test("createSignedUrls given paths that are no list resolves a Failure naming them, not 'paths is not iterable'", async () => {
  const rec = recordingFetch();
  const client = createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch });
  const s = createStorageClient(client);
  const { createSignedUrls } = await import("../storage/objects.ts");
  for (const bad of [5, {}, undefined, null]) {
    for (
      const r of [
        createSignedUrls(client, "b", bad as never, 60),
        s.createSignedUrls("b", bad as never, 60),
      ]
    ) {
      await assertInvalid(
        r,
        /^Cannot use the paths as they must be a list of object keys: current value is /,
      );
    }
  }
  assert.equal(rec.requests.length, 0);
});

Deno.test("an upsert's onConflict that is no string is refused, not sent as on_conflict=[object Object]", async () => {
  const { db, rec } = makeDb();
  for (const bad of [{ column: "id" }, ["id"], 1]) {
    await assertInvalid(
      db.insert("t", '{"id":1}', { upsert: true, onConflict: bad as never }),
      /^Cannot insert as 'onConflict' must be a string of column names: current value is /,
    );
  }
  assert.equal(rec.requests.length, 0);
  // A string (and null) still goes as before.
  await db.insert("t", '{"id":1}', { upsert: true, onConflict: "id" });
  await db.insert("t", '{"id":1}', { upsert: true, onConflict: null });
  assert.equal(rec.requests[0].url.searchParams.get("on_conflict"), "id");
  assert.equal(rec.requests[1].url.searchParams.get("on_conflict"), null);
});

Deno.test("the catalog's typed calls given no request object resolve a Failure", async () => {
  const rec = recordingFetch(() => jsonResponse({ overrides: {}, defaults: {} }));
  const catalog = createStorageClient(
    createBaseClient("https://p.example", "k", { fetch: rec.fetch }),
  )
    .analyticsCatalog("lake");
  for (
    const r of [
      await catalog.createNamespaceTyped(null as never),
      await catalog.createTableTyped(["a"], undefined as never),
      await catalog.updateTableTyped(["a"], "t", null as never),
      await catalog.registerTableTyped(["a"], 5 as never),
    ]
  ) {
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
  }
});

Deno.test("a URL or fragment that is not a string is a Failure", () => {
  for (const bad of [null, 5, {}]) {
    assert.equal(parseSessionTokensFromUrl(bad as never).ok, false);
  }
});

Deno.test("holes of a sparse array operand are refused, not sent as empty items", () => {
  const sparse = [1, 2];
  delete sparse[0];
  const { db } = makeDb();
  assert.throws(
    () =>
      db.buildSelect("t", {
        block: (q) => q.where((w: WhereBuilder) => w.inList(column("a"), sparse)),
      }),
    { name: "TypeError", message: /undefined/ },
  );
});

Deno.test("a cyclic value written as JSON is a clear INVALID_ARGUMENT Failure", async () => {
  const { db, rec } = makeDb();
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  await assertInvalid(insertTyped(db, "t", cyclic), /^Cannot send the value as JSON: /);
  assert.equal(rec.requests.length, 0);
});

Deno.test("a page fetcher resolving no list fails the page, with no unhandled rejection, and the next page can load", async () => {
  let calls = 0;
  const p = createPaginator<number>(1, (offset) => {
    calls++;
    return Promise.resolve(calls === 1 ? success({} as never) : success([offset]));
  });
  const first = await p.loadNext();
  assert.equal(first.errorOrNull()?.category, "DECODE");
  assert.equal(p.error.value?.category, "DECODE");
  const second = await p.loadNext();
  assert.deepEqual(second.getOrThrow(), [0]);
  assert.deepEqual(p.items.value, [0]);
});

Deno.test("a page fetcher resolving undefined or null fails the page, with or without a caller's signal", async () => {
  for (const nothing of [undefined, null]) {
    const p = createPaginator<number>(10, () => Promise.resolve(nothing as never));
    const withSignal = await p.loadNext({ signal: new AbortController().signal });
    assert.equal(withSignal.errorOrNull()?.message, "Page fetch resolved no result");
    const without = await p.loadNext();
    assert.equal(without.errorOrNull()?.category, "DECODE");
    assert.equal(p.isLoading.value, false);
  }
});

Deno.test("timingSafeEqual refuses values that are neither strings nor bytes (no endless loop)", () => {
  assert.throws(() => timingSafeEqual("a", { length: 1e308 } as never), TypeError);
  assert.equal(timingSafeEqual("abc", "abc"), true);
});

Deno.test("a DSL block that is not a function (a supabase-js match object) is a Failure naming 'block', with no request", async () => {
  const { db, rec } = makeDb();
  const block = { id: 1 } as never;
  const calls: Array<[string, () => Promise<ServiceResult<unknown>>]> = [
    ["delete", () => db.delete("todos", block)],
    ["update", () => db.update("todos", JSON.stringify({ done: true }), block)],
    ["select", () => db.select("todos", { block })],
    ["selectCount", () => db.selectCount("todos", { block })],
  ];
  for (const [name, call] of calls) {
    await assertInvalid(call(), /'block' must be a function .*current value is object/, name);
  }
  assert.equal(rec.requests.length, 0);
});

Deno.test("filters refuse an undefined column, a function or a symbol operand; isExactly names a symbol", async () => {
  const { db, rec } = makeDb();
  const where = (block: (w: WhereBuilder) => void) => db.delete("t", block);
  await assertInvalid(
    where((w) => w.eq(undefined as never, 1)),
    /column name must be a non-blank string/,
  );
  await assertInvalid(
    where((w) => w.eq("id", (() => 1) as never)),
    /^Cannot filter with eq as the value is a function$/,
  );
  await assertInvalid(
    where((w) => w.eq("id", Symbol("s") as never)),
    /^Cannot filter with eq as the value is a symbol$/,
  );
  await assertInvalid(
    where((w) => w.isExactly("done", Symbol("s") as never)),
    /must be a boolean: current value is a symbol$/,
  );
  // raw's operator and textSearch's config of another type are named (a symbol made the
  // pattern test throw "Cannot convert a Symbol value to a string").
  for (const bad of [Symbol("s"), 5, { op: "eq" }]) {
    await assertInvalid(
      where((w) => w.raw("id", bad as never, "1")),
      /^Cannot filter as 'operator' is not a PostgREST operator: current value is /,
    );
    await assertInvalid(
      where((w) => w.textSearch("body", "x", { config: bad as never })),
      /^Cannot search as 'config' is not a configuration name: current value is /,
    );
  }
  // The builders themselves throw (they are not operations).
  assert.throws(
    () => db.buildSelect("t", { block: (q) => q.where((w) => w.eq("id", Symbol() as never)) }),
    TypeError,
  );
  assert.equal(rec.requests.length, 0);
  assert.ok((await db.delete("t", (w) => w.eq("id", 1))).ok);
});

Deno.test("withCacheNonce refuses a url or nonce that is not a string, naming it", () => {
  assert.throws(() => withCacheNonce(5 as never, "v"), {
    name: "TypeError",
    message: /'url' must be a string: current value is number/,
  });
  assert.throws(() => withCacheNonce("https://a.example/x", 5 as never), {
    name: "TypeError",
    message: /'nonce' must be a string or null: current value is number/,
  });
  assert.equal(withCacheNonce("https://a.example/x", undefined), "https://a.example/x");
  assert.equal(withCacheNonce("https://a.example/x", "v"), "https://a.example/x?cacheNonce=v");
});

Deno.test("putVectors given something else than an array resolves INVALID_ARGUMENT, with no request", async () => {
  const rec = recordingFetch();
  const s = createStorageClient(
    createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch }),
  );
  for (const bad of ["abc", null, { length: 1, 0: { key: "k" } }]) {
    const r = await s.putVectors("vb", "ix", bad as never);
    assert.equal(r.errorOrNull()?.message, "Cannot put vectors as 'vectors' must be an array");
  }
  assert.equal(rec.requests.length, 0);
});

Deno.test("a message's 'current value' never throws, never runs the caller's code and never echoes a token", async () => {
  const { showValue } = await import("../core/_show.ts");
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  let ran = false;
  const hostile = {
    toString() {
      ran = true;
      throw new Error("boom");
    },
  };
  const cases: Array<[unknown, string]> = [
    [Symbol("s"), "a symbol"],
    [Object.create(null), "an object"],
    [hostile, "an object"],
    [cyclic, "an object"],
    [[1, 2], "an array"],
    [10n, "10n"],
    [() => 1, "a function"],
    [null, "null"],
    [undefined, "undefined"],
    [NaN, "NaN"],
    [-1, "-1"],
    ["1", '"1"'],
    ["x".repeat(100), `"${"x".repeat(64)}…"`],
    ["eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJl", "a token-shaped string"],
    ["Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJl", "a token-shaped string"],
    ["photo.backup.jpg", '"photo.backup.jpg"'],
  ];
  for (const [value, shown] of cases) assert.equal(showValue(value), shown);
  assert.equal(ran, false);
});

Deno.test("values no message can print (a BigInt, a cycle, a symbol, no prototype) still get the clear refusal", async () => {
  const rec = recordingFetch();
  const client = createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch });
  const s = createStorageClient(client);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  for (const bad of [10n, cyclic, Symbol("s"), Object.create(null)]) {
    // Vector names were echoed with JSON.stringify, which threw from a promise-returning call.
    const vector = await s.getVectorBucket(bad as never);
    assert.match(vector.errorOrNull()!.message, /'vectorBucketName' must be a non-blank string/);
    const listed = await s.listVectors(bad as never, "ix");
    assert.match(listed.errorOrNull()!.message, /'vectorBucketName' must be a non-blank string/);
    // Template literals threw "Cannot convert a Symbol value to a string" instead.
    const bucket = await s.deleteBucket(bad as never);
    assert.equal(bucket.errorOrNull()?.category, "INVALID_ARGUMENT");
    assert.match(bucket.errorOrNull()!.message, /bucket id as it must be a non-blank string/);
    const analytics = await s.deleteAnalyticsBucket(bad as never);
    assert.match(analytics.errorOrNull()!.message, /bucket name as it must be a non-empty string/);
    assert.throws(() => s.analyticsCatalog(bad as never), {
      name: "TypeError",
      message: /'bucketName' must be non-blank/,
    });
    assert.throws(() => s.getPublicUrl("b", bad as never), TypeError);
  }
  const timed = await client.request({
    area: "storage",
    path: "/bucket",
    timeout: Symbol("t") as never,
  });
  assert.equal(timed.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(
    timed.errorOrNull()!.message,
    /'timeout' must be a non-negative number: current value is Symbol\(t\)/,
  );
  assert.equal(rec.requests.length, 0);
});

Deno.test("a token passed where another value belongs is not echoed in the refusal", async () => {
  const token = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJlLXNlY3JldA";
  const rec = recordingFetch();
  const client = createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch });
  const { createAuthClient } = await import("../auth/mod.ts");
  const r = await createAuthClient(client).signInWithWeb3(token as never, "m", "s");
  assert.match(
    r.errorOrNull()!.message,
    /'chain' is not a Web3Chain: current value is a token-shaped string/,
  );
  assert.ok(!r.errorOrNull()!.message.includes("c2lnbmF0dXJl"));
  const v = await createStorageClient(client).getVectorBucket({ name: token } as never);
  assert.ok(!v.errorOrNull()!.message.includes("c2lnbmF0dXJl"));
  assert.equal(rec.requests.length, 0);
});

Deno.test("required objects a JavaScript caller leaves out get a refusal naming them, not a property-read TypeError", async () => {
  const rec = recordingFetch();
  const client = createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch });
  const { createAuthClient } = await import("../auth/mod.ts");
  const { validateAll } = await import("../database/mod.ts");
  const auth = createAuthClient(client);
  for (const bad of [undefined, null, "email"]) {
    const updated = await auth.updateUser("token", bad as never);
    assert.equal(updated.errorOrNull()?.category, "INVALID_ARGUMENT");
    assert.match(updated.errorOrNull()!.message, /'updates' must be an object/);
  }
  const sso = await auth.getSsoUrl(undefined as never);
  assert.match(sso.errorOrNull()!.message, /exactly one of 'domain' and 'providerId'/);
  // supabase-js takes scopes as one space-separated string; a list is asked for here.
  assert.throws(() => auth.getOAuthSignInUrl("github", { scopes: "repo gist" as never }), {
    name: "TypeError",
    message: /'scopes' must be a list of strings: current value is "repo gist"/,
  });
  assert.match(
    auth.getOAuthSignInUrl("github", { scopes: ["repo", "gist"] }),
    /scopes=repo%20gist/,
  );
  const catalog = createStorageClient(client).analyticsCatalog("lake");
  const renamed = await catalog.renameTableTyped(undefined as never, {
    namespace: ["a"],
    name: "t",
  });
  assert.match(renamed.errorOrNull()!.message, /'request' must be an object/);
  for (const bad of [{}, 5, "v"]) {
    const validated = await validateAll([1], bad as never);
    assert.equal(validated.errorOrNull()?.category, "INVALID_ARGUMENT");
    assert.match(validated.errorOrNull()!.message, /function or a Standard Schema/);
  }
  const { db } = makeDb();
  await assertInvalid(
    db.select("t", { schema: 5 as never }),
    /'schema' must be a non-blank string: current value is 5/,
  );
  assert.equal(rec.requests.length, 0);
});

Deno.test("upload data fetch would not send as bytes is refused, not stored as '[object Object]' or as nothing", async () => {
  const rec = recordingFetch(() => jsonResponse({ Key: "b/p" }));
  const s = createStorageClient(
    createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch }),
  );
  for (const bad of [{ a: 1 }, null, undefined, 5, [1, 2]]) {
    for (
      const r of [
        await s.upload("b", "p", bad as never),
        await s.update("b", "p", bad as never),
        await s.uploadToSignedUrl("b", "p", "token", bad as never),
      ]
    ) {
      assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
      assert.match(
        r.errorOrNull()!.message,
        /'data' must be bytes, a Blob, a ReadableStream, an async iterable of bytes or a string/,
      );
    }
  }
  assert.equal(rec.requests.length, 0);
  // Every body fetch sends as bytes still goes, views other than Uint8Array included.
  const buffer = new Uint8Array([1, 2, 3, 4]).buffer;
  for (
    const good of [buffer, new DataView(buffer), new Int16Array(buffer), "text", new Blob(["b"])]
  ) {
    assert.ok((await s.upload("b", "p", good as never)).ok);
  }
  assert.deepEqual([...rec.requests[1].bytes!], [1, 2, 3, 4]);
  assert.deepEqual([...rec.requests[2].bytes!], [1, 2, 3, 4]);
});

Deno.test("bucket settings outside their types are refused before sending: sizes such as '1mb' (supabase-js takes them), a 'public' string, a MIME string, a name that is not text", async () => {
  const rec = recordingFetch(() => jsonResponse({ name: "b" }));
  const s = createStorageClient(
    createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch }),
  );
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [
      { fileSizeLimit: "1mb" },
      /'fileSizeLimit' must be a whole number of bytes: current value is "1mb"/,
    ],
    [{ fileSizeLimit: -1 }, /'fileSizeLimit' must be a whole number of bytes: current value is -1/],
    [{ fileSizeLimit: 1.5 }, /'fileSizeLimit'/],
    [{ public: "true" }, /'public' must be a boolean: current value is "true"/],
    [{ allowedMimeTypes: "image/png" }, /'allowedMimeTypes' must be a list of strings/],
    [{ allowedMimeTypes: ["image/png", 5] }, /'allowedMimeTypes' must be a list of strings/],
  ];
  for (const [options, message] of cases) {
    for (
      const r of [
        await s.createBucket("b", "b", options as never),
        await s.updateBucket("b", options as never),
      ]
    ) {
      assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
      assert.match(r.errorOrNull()!.message, message);
    }
  }
  // A bucket's name: a create's options given in its place went out as `name: {...}` (the
  // server answered 400 "body/name must be string"), and an update's non-text name too.
  for (const name of [{ public: false }, 5, undefined, null]) {
    const r = await s.createBucket("b", name as never);
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
    assert.match(r.errorOrNull()!.message, /Cannot create the bucket as 'name' must be a string/);
  }
  const renamed = await s.updateBucket("b", { name: 5 as never });
  assert.match(
    renamed.errorOrNull()!.message,
    /Cannot update the bucket as 'name' must be a string: current value is 5/,
  );
  assert.equal(rec.requests.length, 0);
  const created = await s.createBucket("b", "b", {
    public: true,
    fileSizeLimit: 1_048_576,
    allowedMimeTypes: ["image/png"],
  });
  assert.equal(created.getOrNull()?.fileSizeLimit, 1_048_576);
  assert.deepEqual(rec.only.json(), {
    id: "b",
    name: "b",
    public: true,
    file_size_limit: 1_048_576,
    allowed_mime_types: ["image/png"],
  });
});

Deno.test("a sort given as supabase-js's { column, order } or an unknown direction is refused, not sent as an object", async () => {
  const rec = recordingFetch(() => jsonResponse([]));
  const s = createStorageClient(
    createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch }),
  );
  const sortObject = { column: "name", order: "desc" };
  for (
    const r of [
      await s.list("b", { sortBy: sortObject as never }),
      await s.listV2("b", { sortBy: sortObject as never }),
      await s.listBuckets({ sortColumn: sortObject as never }),
      await s.listAnalyticsBuckets({ sortColumn: sortObject as never }),
    ]
  ) {
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
    assert.match(
      r.errorOrNull()!.message,
      /sort column must be a column name, its direction in 'sortOrder': current value is an object/,
    );
  }
  for (
    const r of [
      await s.list("b", { sortBy: "name", sortOrder: "descending" as never }),
      await s.listBuckets({ sortOrder: "DESC" as never }),
    ]
  ) {
    assert.match(
      r.errorOrNull()!.message,
      /'sortOrder' must be asc or desc: current value is "(descending|DESC)"/,
    );
  }
  assert.equal(rec.requests.length, 0);
  assert.ok((await s.list("b", { sortBy: "name", sortOrder: "desc" })).ok);
  assert.deepEqual((rec.only.json() as { sortBy: unknown }).sortBy, {
    column: "name",
    order: "desc",
  });
});

Deno.test("an option of the wrong type bound for the query string is refused by its key, never sent as '[object Object]'", async () => {
  const rec = recordingFetch(() => jsonResponse({}));
  const client = createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch });
  const { createAuthClient } = await import("../auth/mod.ts");
  const { encodeQuery } = await import("../core/query.ts");
  const auth = createAuthClient(client);
  const storage = createStorageClient(client);
  const cases: Array<[Promise<ServiceResult<unknown>>, string]> = [
    [
      auth.resetPasswordForEmail("a@example.com", { redirectTo: { url: "x" } as never }),
      "redirect_to",
    ],
    [auth.signUpWithEmail("a@example.com", "pw", { emailRedirectTo: [] as never }), "redirect_to"],
    [storage.download("b", "p", { fileName: { name: "x" } as never }), "download"],
    [storage.listBuckets({ search: new Date() as never }), "search"],
    [storage.analyticsCatalog("lake").listNamespaces({ pageToken: {} as never }), "pageToken"],
  ];
  for (const [call, key] of cases) {
    const r = await call;
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", key);
    assert.equal(r.errorOrNull()?.message, `Cannot send the request as '${key}' must be a string`);
  }
  // Only the catalog's configuration was read (before its call was refused).
  assert.deepEqual(rec.requests.map((q) => q.url.pathname), ["/storage/v1/iceberg/v1/config"]);
  assert.throws(() => encodeQuery([["a", (() => 1) as never]]), {
    name: "TypeError",
    message: "Cannot send the request as 'a' must be a string",
  });
  // Numbers and booleans still go as text; null and undefined are left out.
  assert.equal(encodeQuery([["n", 5], ["b", false], ["x", null], ["u", undefined]]), "n=5&b=false");
});

Deno.test("the OAuth and link-identity URLs refuse a value that is no string, never sending '[object Object]'; a state key in any case is refused", async () => {
  const rec = recordingFetch(() => jsonResponse({ url: "https://github.com/login" }));
  const client = createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch });
  const { createAuthClient } = await import("../auth/mod.ts");
  const auth = createAuthClient(client);
  const bad: Array<[Record<string, unknown>, RegExp]> = [
    [{ redirectTo: { url: "x" } }, /'redirectTo' must be a string: current value is/],
    [{ redirectTo: 5 }, /'redirectTo' must be a string: current value is 5/],
    [{ scopes: ["repo", 1] }, /each of 'scopes' must be a string/],
    [{ inviteToken: true }, /'inviteToken' must be a string/],
    [{ scopes: ["repo", { s: 1 }] }, /each of 'scopes' must be a string/],
    [{ queryParams: { prompt: {} } }, /'queryParams.prompt' must be a string/],
    [{ queryParams: { prompt: Symbol("x") } }, /'queryParams.prompt' must be a string/],
    [{ inviteToken: ["t"] }, /'inviteToken' must be a string/],
    [{ queryParams: { State: "s" } }, /holds 'state'/],
    [{ queryParams: { STATE: "s" } }, /holds 'state'/],
  ];
  for (const [options, message] of bad) {
    assert.throws(() => auth.getOAuthSignInUrl("github", options as never), {
      name: "TypeError",
      message,
    });
    const linked = await auth.linkIdentity("user-token", "github", options as never);
    assert.equal(linked.errorOrNull()?.category, "INVALID_ARGUMENT", String(message));
    assert.match(linked.errorOrNull()!.message, message);
  }
  assert.equal(rec.requests.length, 0);
  // Numbers and booleans go as text, as every query value does.
  assert.match(
    auth.getOAuthSignInUrl("github", { queryParams: { max_age: 0, x: true } as never }),
    /&max_age=0&x=true$/,
  );
  // Strings go as before.
  const url = auth.getOAuthSignInUrl("github", {
    redirectTo: "https://app.example/cb",
    scopes: ["repo"],
    queryParams: { prompt: "consent" },
    inviteToken: "inv",
  });
  assert.equal(
    new URL(url).search,
    "?provider=github&redirect_to=https%3A%2F%2Fapp.example%2Fcb&scopes=repo&prompt=consent&invite_token=inv",
  );
});

Deno.test("the catalog's pageSize must be a positive integer: a list or a fraction is refused, not joined into the query", async () => {
  const rec = recordingFetch(() => jsonResponse({ overrides: {}, defaults: {} }));
  const catalog = createStorageClient(
    createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch }),
  ).analyticsCatalog("lake");
  for (const bad of [[10, 20], 0, 2.5, "10"]) {
    for (
      const r of [
        await catalog.listNamespaces({ pageSize: bad as never }),
        await catalog.listTables(["a"], { pageSize: bad as never }),
      ]
    ) {
      assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
      assert.match(
        r.errorOrNull()!.message,
        /'pageSize' must be a positive integer: current value is /,
      );
    }
  }
  assert.equal(rec.requests.length, 0);
  await catalog.listTables(["a"], { pageSize: 20 });
  assert.equal(rec.last.url.searchParams.get("pageSize"), "20");
});

Deno.test("a count or returning PostgREST does not know is refused: it would ignore it and bring no count", async () => {
  const { db, rec } = makeDb();
  await assertInvalid(
    db.select("t", { count: "exactt" as never }),
    /'count' must be exact, planned or estimated: current value is "exactt"/,
  );
  await assertInvalid(
    db.insert("t", '[{"a":1}]', { count: Object.create(null) }),
    /'count' must be exact, planned or estimated: current value is an object/,
  );
  await assertInvalid(
    db.update("t", '{"a":1}', (w) => w.eq("id", 1), { returning: "rows" as never }),
    /'returning' must be minimal, representation or headers-only: current value is "rows"/,
  );
  // An enum key for its value: PostgREST would ignore it and insert instead of upserting.
  await assertInvalid(
    db.insert("t", '[{"a":1}]', { upsert: true, upsertResolution: "MERGE_DUPLICATES" as never }),
    /'upsertResolution' must be merge-duplicates or ignore-duplicates: current value is "MERGE_DUPLICATES"/,
  );
  assert.equal(rec.requests.length, 0);
  assert.ok((await db.select("t", { count: "planned" })).ok);
  assert.match(rec.only.headers.get("prefer") ?? "", /count=planned/);
});

Deno.test("rows given to the database primitives as values (as supabase-js takes them) are refused, not sent as '[object Object]'", async () => {
  const { db, rec } = makeDb();
  for (const body of [{ a: 1 }, [{ a: 1 }], 5, null]) {
    await assertInvalid(
      db.insert("t", body as never),
      /body must be text \(JSON as a string; the typed helpers such as insertTyped take values\)/,
    );
    await assertInvalid(
      db.update("t", body as never, (w) => w.eq("id", 1)),
      /body must be text/,
    );
  }
  await assertInvalid(
    db.insert("t", "[]", { contentType: 5 as never }),
    /'contentType' must be a string: current value is 5/,
  );
  await assertInvalid(
    db.rpc("f", { params: "1", contentType: {} as never }),
    /'contentType' must be a string: current value is an object/,
  );
  assert.equal(rec.requests.length, 0);
  assert.ok((await db.insert("t", '[{"a":1}]')).ok);
  assert.equal(rec.only.text, '[{"a":1}]');
});

Deno.test("client and upload settings that would fail every call are refused at construction: fetch, url, urlStore; headers take any HeadersInit", async () => {
  for (const bad of ["x", {}, 5]) {
    assert.throws(() => createBaseClient("https://p.example", "k", { fetch: bad as never }), {
      name: "TypeError",
      message: "Cannot create the client as 'fetch' must be a function",
    });
  }
  for (const url of ["not a url", "ftp://p.example", "", "wss://p.example"]) {
    assert.throws(() => createBaseClient(url, "k"), {
      name: "TypeError",
      message: "Cannot create the client as 'url' must be an http or https URL",
    });
  }
  // A Headers object or a list of pairs, as fetch takes them, was spread into nothing.
  for (const headers of [new Headers({ "X-App": "one" }), [["X-App", "one"]], { "X-App": "one" }]) {
    const rec = recordingFetch(() => jsonResponse([]));
    const client = createBaseClient("https://p.example", "k", {
      fetch: rec.fetch,
      headers: headers as never,
    });
    assert.ok((await createStorageClient(client).listBuckets()).ok);
    assert.equal(rec.only.headers.get("x-app"), "one");
  }
  const storage = createStorageClient(createBaseClient("https://p.example", "k"));
  for (const store of [{}, "s", { get: () => null, set: () => {} }]) {
    assert.throws(
      () =>
        storage.createResumableUpload("b", "p", new Uint8Array(1), { urlStore: store as never }),
      { name: "TypeError", message: "Cannot upload as 'urlStore' must have get, set and remove" },
    );
  }
});

Deno.test("per-call database headers may be a Headers object or a list of pairs, as fetch takes them (they were dropped)", async () => {
  for (
    const headers of [new Headers({ "X-Trace": "t1" }), [["X-Trace", "t1"]], { "X-Trace": "t1" }]
  ) {
    const { db, rec } = makeDb();
    assert.ok((await db.select("t", { headers: headers as never })).ok);
    assert.equal(rec.only.headers.get("x-trace"), "t1");
  }
  // A Prefer given as a Headers object still merges with the computed directives.
  const { db, rec } = makeDb();
  await db.insert("t", "[]", {
    headers: new Headers({ Prefer: "missing=default" }),
    count: "exact",
  });
  assert.match(rec.only.headers.get("prefer") ?? "", /count=exact/);
  assert.match(rec.only.headers.get("prefer") ?? "", /missing=default/);
});

Deno.test("rpcGet's queryParams hold pairs of names and text, and params no function or symbol: anything else is refused, not sent through String()", async () => {
  const { db, rec } = makeDb();
  for (const queryParams of [[60], [["a", {}]], { a: Object.create(null) }, [["a"]], 5]) {
    await assertInvalid(
      db.rpcGet("f", { queryParams: queryParams as never }),
      /'queryParams' must hold pairs of names and text: current value is /,
    );
    assert.throws(() => db.buildRpcGet("f", { queryParams: queryParams as never }), TypeError);
  }
  for (const value of [() => 1, Symbol("s")]) {
    await assertInvalid(
      db.rpcGet("f", { params: { a: value } }),
      /Cannot pass "a" as a query argument as it is a (function|symbol)/,
    );
  }
  assert.equal(rec.requests.length, 0);
  // Numbers and booleans are written as text, as before.
  assert.ok(
    (await db.rpcGet("f", { queryParams: { n: 5 as never, b: true as never, s: "x" } })).ok,
  );
  assert.equal(rec.only.url.search, "?n=5&b=true&s=x");
});

Deno.test("columns, format and a listing's prefix of the wrong type are refused by name (a property key or a string method crashed on them)", async () => {
  const { db, rec } = makeDb();
  const odd = Object.create(null);
  await assertInvalid(
    db.select("t", { columns: ["id", "name"] as never }),
    /'columns' must be text such as "id,name": current value is an array/,
  );
  await assertInvalid(db.select("t", { columns: odd }), /'columns' must be text/);
  await assertInvalid(
    db.select("t", { format: odd }),
    /'format' is not a ResponseFormat: current value is an object/,
  );
  await assertInvalid(db.rpc("f", { format: odd }), /'format' is not a ResponseFormat/);
  await assertInvalid(
    db.insert("t", "[]", { columns: "id" as never }),
    /'columns' must be a list of column names: current value is "id"/,
  );
  await assertInvalid(
    db.insert("t", "[]", { columns: ["id", 5] as never }),
    /'columns' must be a list of column names/,
  );
  assert.equal(rec.requests.length, 0);
  const srec = recordingFetch(() => jsonResponse([]));
  const s = createStorageClient(
    createBaseClient("https://p.example", "anon-key", { fetch: srec.fetch }),
  );
  for (
    const r of [
      await s.list("b", { prefix: 5 as never }),
      await s.listV2("b", { prefix: {} as never }),
    ]
  ) {
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
    assert.match(r.errorOrNull()!.message, /'prefix' must be a string/);
  }
  assert.equal(srec.requests.length, 0);
});

Deno.test("upload options of the wrong type are refused before sending: an upsert that is no boolean went out as 'x-upsert: [object Object]'", async () => {
  const rec = recordingFetch(() => jsonResponse({ Key: "b/p" }));
  const s = createStorageClient(
    createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch }),
  );
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ upsert: {} }, /'upsert' must be a boolean: current value is an object/],
    [{ upsert: "yes" }, /'upsert' must be a boolean: current value is "yes"/],
    [{ contentType: 5 }, /'contentType' must be a string: current value is 5/],
    [
      { cacheControl: "3600" },
      /'cacheControl' must be a non-negative integer: current value is "3600"/,
    ],
    [{ metadata: cyclic }, /'metadata' cannot be written as JSON: /],
    [{ metadata: { n: 10n } }, /'metadata' cannot be written as JSON: /],
    [{ metadata: "tags" }, /'metadata' must be a JSON object: current value is "tags"/],
    [{ metadata: ["a", "b"] }, /'metadata' must be a JSON object: current value is an array/],
  ];
  for (const [options, message] of cases) {
    for (
      const r of [
        await s.upload("b", "p", "x", options as never),
        await s.uploadToSignedUrl("b", "p", "token", "x", options as never),
      ]
    ) {
      assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
      assert.match(r.errorOrNull()!.message, message);
    }
    assert.throws(
      () => s.createResumableUpload("b", "p", new Uint8Array(1), options as never),
      { message },
    );
  }
  const resumable: Array<[Record<string, unknown>, RegExp]> = [
    [
      { maxAttempts: Symbol("n") },
      /'maxAttempts' must be a positive integer: current value is a symbol/,
    ],
    [{ maxAttempts: 0 }, /'maxAttempts' must be a positive integer/],
    [{ retryBaseDelayMs: "5" }, /'retryBaseDelayMs' must be a finite non-negative number/],
    [
      { retryMaxDelayMs: 10n },
      /'retryMaxDelayMs' must be a finite non-negative number: current value is 10n/,
    ],
    [{ creationWithUpload: "no" }, /'creationWithUpload' must be a boolean/],
    [{ streamChunks: 1 }, /'streamChunks' must be a boolean/],
    [{ uploadUrl: "é" }, /'uploadUrl' must be an http or https URL: current value is "é"/],
    [{ uploadUrl: 5 }, /'uploadUrl' must be an http or https URL/],
  ];
  for (const [options, message] of resumable) {
    assert.throws(() => s.createResumableUpload("b", "p", new Uint8Array(1), options as never), {
      message,
    });
  }
  assert.equal(rec.requests.length, 0);
  // Booleans still go as they are.
  assert.ok((await s.upload("b", "p", "x", { upsert: true, metadata: { a: 1 } })).ok);
  assert.equal(rec.only.headers.get("x-upsert"), "true");
});

Deno.test("a URL store holding something that is no upload URL starts a new upload instead of failing on it", async () => {
  const rec = recordingFetch(() =>
    new Response(null, {
      status: 201,
      headers: {
        location: "https://p.example/storage/v1/upload/resumable/new",
        "upload-offset": "3",
      },
    })
  );
  const s = createStorageClient(
    createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch }),
  );
  for (const saved of ["é", "not a url", 5, {}]) {
    rec.requests.length = 0;
    const up = s.createResumableUpload("b", "p", new Uint8Array(3), {
      urlStore: { get: () => saved as never, set: () => {}, remove: () => {} },
    });
    assert.ok((await up.await()).ok);
    assert.deepEqual(rec.requests.map((r) => r.method), ["POST"]);
  }
});

Deno.test("supabase-js's positional strings (select's columns, list's prefix) are refused, not read as no options", async () => {
  const rec = recordingFetch(() => jsonResponse([]));
  const client = createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch });
  const { db } = makeDb(() => jsonResponse([]));
  const selected = await db.select("todos", "id,title" as never);
  assert.equal(selected.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(
    selected.errorOrNull()!.message,
    /^Cannot select as 'options' must be an object such as \{ columns \}: current value is "id,title"/,
  );
  assert.throws(() => db.buildSelect("todos", 42 as never), TypeError);
  const storage = createStorageClient(client);
  const listed = await storage.list("docs", "folder" as never);
  assert.equal(listed.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(listed.errorOrNull()!.message, /such as \{ prefix \}: current value is "folder"/);
  assert.equal(rec.requests.length, 0);
  const { listPaginator } = await import("../storage/mod.ts");
  assert.throws(() => listPaginator(storage, "docs", "folder" as never), {
    name: "TypeError",
    message: /such as \{ prefix \}: current value is "folder"/,
  });
  // null is still no options.
  assert.ok((await storage.list("docs", null as never)).ok);
  assert.ok((await db.select("todos", null as never)).ok);
});

Deno.test("a positional string is refused by every read that takes select's options, the typed ones included", async () => {
  const { db, rec } = makeDb(() => jsonResponse([]));
  const {
    selectCsv,
    selectGeoJson,
    selectHead,
    selectMaybeSingleTyped,
    selectSingleTyped,
    selectTyped,
    selectWithCountTyped,
  } = await import("../database/mod.ts");
  const columns = "id,title" as never;
  for (
    const [name, call] of [
      ["select", () => db.select("todos", columns)],
      ["selectCount", () => db.selectCount("todos", columns)],
      ["selectRange", () => db.selectRange("todos", columns)],
      ["selectTyped", () => selectTyped(db, "todos", columns)],
      ["selectSingleTyped", () => selectSingleTyped(db, "todos", columns)],
      ["selectMaybeSingleTyped", () => selectMaybeSingleTyped(db, "todos", columns)],
      ["selectWithCountTyped", () => selectWithCountTyped(db, "todos", columns)],
      ["selectGeoJson", () => selectGeoJson(db, "todos", columns)],
      ["selectCsv", () => selectCsv(db, "todos", columns)],
      ["selectHead", () => selectHead(db, "todos", columns)],
    ] as const
  ) {
    const r = await (call as () => Promise<ServiceResult<unknown>>)();
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", name);
    assert.match(r.errorOrNull()!.message, /such as \{ columns \}/, name);
  }
  const { paginator } = await import("../database/mod.ts");
  assert.throws(() => paginator(db, "todos", columns), {
    name: "TypeError",
    message: /such as \{ columns \}: current value is "id,title"/,
  });
  assert.equal(rec.requests.length, 0);
});
