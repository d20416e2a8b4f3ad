/** checkDimension (storage/vectors.ts): a test from the third mutation review. */

import assert from "node:assert/strict";
import { jsonResponse } from "../support/recording_fetch.ts";
import { makeStorage } from "../storage/_helpers.ts";

// V03: a null dimension is none (as undefined): nothing is thrown and the vectors go.
Deno.test("putVectors and queryVectors with dimension: null check no dimension", async () => {
  const { storage, rec } = makeStorage(() => jsonResponse({ vectors: [] }));
  const put = await storage.putVectors("vb", "ix", [{ key: "a", data: { float32: [1, 2] } }], {
    dimension: null,
  });
  assert.ok(put.ok, put.ok ? "" : put.error.message);
  const query = await storage.queryVectors("vb", "ix", { float32: [1, 2] }, { dimension: null });
  assert.ok(query.ok, query.ok ? "" : query.error.message);
  assert.equal(rec.requests.length, 2);
});
