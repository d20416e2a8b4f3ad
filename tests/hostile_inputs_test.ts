// Values JavaScript callers can pass whatever the types say, found by fuzzing
// the public API: each gets a Failure or the documented TypeError, never a
// crash from inside the library, a hang or an unhandled rejection.
import assert from "node:assert/strict";
import { createBaseClient } from "../core/client.ts";
import { timingSafeEqual } from "../core/crypto.ts";
import { createPaginator } from "../core/paginator.ts";
import { success } from "../core/result.ts";
import { parseSessionTokensFromUrl } from "../auth/mod.ts";
import { column, insertTyped, type WhereBuilder } from "../database/mod.ts";
import {
  createSignedDownloadUrls,
  createSignedRenderUrls,
  createStorageClient,
  getPublicUrls,
} from "../storage/mod.ts";
import { makeDb } from "./database/_helpers.ts";
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

Deno.test("a cyclic value written as JSON is a clear TypeError", () => {
  const { db } = makeDb();
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  assert.throws(() => insertTyped(db, "t", cyclic), {
    name: "TypeError",
    message: /^Cannot send the value as JSON: /,
  });
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

Deno.test("timingSafeEqual refuses values that are neither strings nor bytes (no endless loop)", () => {
  assert.throws(() => timingSafeEqual("a", { length: 1e308 } as never), TypeError);
  assert.equal(timingSafeEqual("abc", "abc"), true);
});
