/**
 * Requirements of the interface document that no other test pins down:
 * `list`'s sort direction defaulting to ASC once a sort column is given, and
 * the `etag` and `lastAccessedAt` fields of `FileObject` as the Storage API
 * sends them in a listing and an info answer.
 */
import assert from "node:assert/strict";
import { SortOrder } from "../../storage/mod.ts";
import { jsonResponse } from "../support/recording_fetch.ts";
import { makeStorage } from "./_helpers.ts";

Deno.test("list: with sortBy and no sortOrder the body asks for ascending order", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse([]));
  for (const column of ["created_at", "updated_at", "last_accessed_at", "name"]) {
    assert.ok((await storage.list("docs", { prefix: "f", sortBy: column })).ok);
    assert.equal(rec.last.url.pathname, "/storage/v1/object/list/docs");
    const body = rec.last.json() as { sortBy: { column: string; order: string } };
    assert.deepEqual(body.sortBy, { column, order: "asc" }, column);
  }
  // The default is not a constant: a stated direction goes through.
  await storage.list("docs", { sortBy: "created_at", sortOrder: SortOrder.DESC });
  assert.deepEqual((rec.last.json() as { sortBy: unknown }).sortBy, {
    column: "created_at",
    order: "desc",
  });
  await storage.list("docs", { sortBy: "created_at", sortOrder: SortOrder.ASC });
  assert.deepEqual((rec.last.json() as { sortBy: unknown }).sortBy, {
    column: "created_at",
    order: "asc",
  });
});

Deno.test("listV2: with sortBy and no sortOrder the body asks for ascending order", async () => {
  const { storage, rec } = makeStorage(() =>
    jsonResponse({ hasNext: false, folders: [], objects: [] })
  );
  assert.ok((await storage.listV2("docs", { sortBy: "updated_at" })).ok);
  assert.equal(rec.last.url.pathname, "/storage/v1/object/list-v2/docs");
  assert.deepEqual((rec.last.json() as { sortBy: unknown }).sortBy, {
    column: "updated_at",
    order: "asc",
  });
  await storage.listV2("docs", { sortBy: "updated_at", sortOrder: SortOrder.DESC });
  assert.deepEqual((rec.last.json() as { sortBy: unknown }).sortBy, {
    column: "updated_at",
    order: "desc",
  });
});

/** A `POST /object/list` answer as the Storage API sends it (storage.search rows). */
const LISTING = [
  {
    name: "avatars",
    id: null,
    updated_at: null,
    created_at: null,
    last_accessed_at: null,
    metadata: null,
  },
  {
    name: "cat.png",
    id: "5f1d8b0e-6c57-4a55-9a43-3f2a8c7e0b11",
    updated_at: "2024-05-01T10:00:00.123Z",
    created_at: "2024-04-30T09:00:00.456Z",
    last_accessed_at: "2024-05-02T08:30:00.789Z",
    metadata: {
      eTag: '"c4ca4238a0b923820dcc509a6f75849b"',
      size: 1234,
      mimetype: "image/png",
      cacheControl: "max-age=3600",
      lastModified: "2024-05-01T10:00:00.000Z",
      contentLength: 1234,
      httpStatusCode: 200,
    },
  },
];

Deno.test("FileObject from a listing: etag from the object metadata, lastAccessedAt from last_accessed_at", async () => {
  const { storage } = makeStorage(() => jsonResponse(LISTING));
  const entries = (await storage.list("media", { prefix: "users/1" })).getOrThrow();
  assert.equal(entries.length, 2);
  const [folder, file] = entries;
  assert.equal(file.etag, '"c4ca4238a0b923820dcc509a6f75849b"');
  assert.equal(file.lastAccessedAt, "2024-05-02T08:30:00.789Z");
  assert.deepEqual(file, {
    name: "cat.png",
    id: "5f1d8b0e-6c57-4a55-9a43-3f2a8c7e0b11",
    bucketId: null,
    createdAt: "2024-04-30T09:00:00.456Z",
    updatedAt: "2024-05-01T10:00:00.123Z",
    metadata: LISTING[1].metadata,
    size: 1234,
    contentType: "image/png",
    etag: '"c4ca4238a0b923820dcc509a6f75849b"',
    lastAccessedAt: "2024-05-02T08:30:00.789Z",
    cacheControl: "max-age=3600",
  });
  // A folder has no object behind it: both are null.
  assert.equal(folder.name, "avatars");
  assert.equal(folder.etag, null);
  assert.equal(folder.lastAccessedAt, null);
});

Deno.test("FileObject from an info answer: etag from the top-level etag; lastAccessedAt null when not sent", async () => {
  // The body of GET /object/info/authenticated/{bucket}/{path} (the Storage API's info renderer).
  const body = {
    id: "5f1d8b0e-6c57-4a55-9a43-3f2a8c7e0b11",
    name: "users/1/cat.png",
    version: "0b6c2c57-0e4b-4b0f-9e0a-0c1b2a3d4e5f",
    bucket_id: "media",
    size: 1234,
    content_type: "image/png",
    cache_control: "max-age=3600",
    etag: '"c4ca4238a0b923820dcc509a6f75849b"',
    metadata: { owner: "me" },
    last_modified: "2024-05-01T10:00:00.123Z",
    created_at: "2024-04-30T09:00:00.456Z",
  };
  const { storage, rec } = makeStorage(() => jsonResponse(body));
  const f = (await storage.info("media", "users/1/cat.png")).getOrThrow();
  assert.equal(
    rec.only.url.pathname,
    "/storage/v1/object/info/authenticated/media/users/1/cat.png",
  );
  assert.equal(f.etag, '"c4ca4238a0b923820dcc509a6f75849b"');
  assert.equal(f.lastAccessedAt, null);
  assert.equal(f.bucketId, "media");
  assert.equal(f.contentType, "image/png");
  assert.equal(f.cacheControl, "max-age=3600");

  // An answer that carries last_accessed_at (as a list row does) decodes it.
  const withAccess = makeStorage(() =>
    jsonResponse({ ...body, last_accessed_at: "2024-05-02T08:30:00.789Z" })
  );
  const g = (await withAccess.storage.info("media", "users/1/cat.png")).getOrThrow();
  assert.equal(g.lastAccessedAt, "2024-05-02T08:30:00.789Z");
  assert.equal(g.etag, '"c4ca4238a0b923820dcc509a6f75849b"');
});
