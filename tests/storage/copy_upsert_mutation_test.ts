/**
 * moveOrCopy's `upsert` (storage/_ops.ts): tests from the third mutation review.
 */

import assert from "node:assert/strict";
import { jsonResponse } from "../support/recording_fetch.ts";
import { makeStorage } from "./_helpers.ts";

// O25: only copy reads `upsert`; a move given an options object shared with a copy, whatever
// its `upsert`, is not refused (and is never told "Cannot copy").
Deno.test("move ignores upsert, even one that is no boolean", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({ message: "Successfully moved" }));
  const r = await storage.move(
    "b",
    "a.txt",
    "c.txt",
    {
      upsert: "yes" as unknown as boolean,
    } as Parameters<typeof storage.move>[3],
  );
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.equal(rec.requests.length, 1);
  assert.equal(rec.only.headers.get("x-upsert"), null);
});
