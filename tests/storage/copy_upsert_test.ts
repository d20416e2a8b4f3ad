/**
 * Copy's `upsert`: the Storage API's copy reads `x-upsert` and otherwise
 * answers a copy onto an existing key with 409; its move cannot replace.
 */

import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { copy } from "../../storage/objects.ts";
import { jsonResponse } from "../support/recording_fetch.ts";
import { localUser } from "../support/local_user.ts";
import { makeStorage } from "./_helpers.ts";

Deno.test("copy sends x-upsert: true only when upsert is true, and move never does", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({ Key: "b/c.txt" }));
  assert.ok((await storage.copy("b", "a.txt", "c.txt", { upsert: true })).ok);
  assert.ok((await storage.copy("b", "a.txt", "c.txt", { upsert: false })).ok);
  assert.ok((await storage.copy("b", "a.txt", "c.txt")).ok);
  const shared = { upsert: true, destinationBucket: "o" };
  assert.ok((await storage.move("b", "a.txt", "c.txt", shared)).ok);
  const sent = rec.requests.map((r) => r.headers.get("x-upsert"));
  assert.deepEqual(sent, ["true", null, null, null]);
  // The flag travels as a header, never in the JSON body.
  for (const r of rec.requests) assert.equal("upsert" in (r.json() as object), false);
});

Deno.test("copy refuses an upsert that is no boolean, before anything is sent", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({}));
  for (const upsert of ["true", 1, {}]) {
    const r = await storage.copy("b", "a.txt", "c.txt", { upsert: upsert as unknown as boolean });
    const e = r.errorOrNull();
    assert.equal(e?.category, "INVALID_ARGUMENT");
    assert.match(e?.message ?? "", /^Cannot copy as 'upsert' must be a boolean: current value is/);
  }
  const fn = await copy(createBaseClient("https://p.example", "k"), "b", "a", "c", {
    upsert: "yes" as unknown as boolean,
  });
  assert.equal(fn.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 0);
});

Deno.test("local backend: copy onto an existing key is CONFLICT unless upsert, and move is always", async () => {
  const { server, storage } = await localUser("copier@example.test");
  try {
    assert.ok((await storage.createBucket("docs", "docs")).ok);
    await storage.upload("docs", "a.txt", "first");
    await storage.upload("docs", "b.txt", "second");

    const refused = await storage.copy("docs", "a.txt", "b.txt");
    assert.equal(refused.errorOrNull()?.category, "CONFLICT");
    assert.equal((await storage.download("docs", "b.txt")).getOrThrow(), "second");

    assert.ok((await storage.copy("docs", "a.txt", "b.txt", { upsert: true })).ok);
    assert.equal((await storage.download("docs", "b.txt")).getOrThrow(), "first");

    await storage.upload("docs", "c.txt", "third");
    const moved = await storage.move("docs", "c.txt", "b.txt");
    assert.equal(moved.errorOrNull()?.category, "CONFLICT");
    assert.equal((await storage.download("docs", "c.txt")).getOrThrow(), "third");
  } finally {
    await server.close();
  }
});

Deno.test("updateBucket: the clear flags send null, a null field stays unsent, and a flag with a value is refused", async () => {
  const bucket = { id: "b", name: "b", public: false, file_size_limit: null };
  const { storage, rec } = makeStorage((req) =>
    jsonResponse(req.method === "PUT" ? { message: "Successfully updated" } : bucket)
  );
  assert.ok((await storage.updateBucket("b", { clearFileSizeLimit: true })).ok);
  assert.ok((await storage.updateBucket("b", { clearAllowedMimeTypes: true, public: true })).ok);
  assert.ok(
    (await storage.updateBucket("b", {
      fileSizeLimit: null,
      allowedMimeTypes: ["image/png"],
      clearFileSizeLimit: false,
    })).ok,
  );
  const puts = rec.requests.filter((r) => r.method === "PUT").map((r) => r.json());
  assert.deepEqual(puts, [
    { id: "b", file_size_limit: null },
    { id: "b", public: true, allowed_mime_types: null },
    { id: "b", allowed_mime_types: ["image/png"] },
  ]);

  const before = rec.requests.length;
  const both = await storage.updateBucket("b", { fileSizeLimit: 5, clearFileSizeLimit: true });
  assert.equal(both.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(both.errorOrNull()?.message ?? "", /'fileSizeLimit' and 'clearFileSizeLimit'/);
  const types = await storage.updateBucket("b", {
    allowedMimeTypes: [],
    clearAllowedMimeTypes: true,
  });
  assert.equal(types.errorOrNull()?.category, "INVALID_ARGUMENT");
  const wrong = await storage.updateBucket("b", {
    clearFileSizeLimit: "yes" as unknown as boolean,
  });
  assert.match(wrong.errorOrNull()?.message ?? "", /'clearFileSizeLimit' must be a boolean/);
  const unset = await storage.updateBucket("b", {
    fileSizeLimit: null,
    clearFileSizeLimit: false,
  });
  assert.match(unset.errorOrNull()?.message ?? "", /no field to change/);
  assert.equal(rec.requests.length, before);
});

Deno.test("local backend: a cleared size limit lets a larger upload through", async () => {
  const { server, storage } = await localUser("limits@example.test");
  try {
    const created = await storage.createBucket("small", "small", {
      fileSizeLimit: 4,
      allowedMimeTypes: ["text/plain"],
    });
    assert.ok(created.ok);
    const big = { contentType: "application/json" };
    assert.equal(
      (await storage.upload("small", "a.json", "[1,2,3]", big)).errorOrNull()?.category,
      "PAYLOAD_TOO_LARGE",
    );
    const updated = (await storage.updateBucket("small", {
      clearFileSizeLimit: true,
      clearAllowedMimeTypes: true,
    })).getOrThrow();
    assert.equal(updated.fileSizeLimit, null);
    assert.equal(updated.allowedMimeTypes, null);
    assert.ok((await storage.upload("small", "a.json", "[1,2,3]", big)).ok);
  } finally {
    await server.close();
  }
});
