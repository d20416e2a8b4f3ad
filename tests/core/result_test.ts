import assert from "node:assert/strict";
import {
  Failure,
  failure,
  ServiceError,
  ServiceException,
  Success,
  success,
} from "../../core/result.ts";

Deno.test("Success exposes value through every helper", () => {
  const r = success(21);
  assert.equal(r.ok, true);
  assert.equal(r.getOrNull(), 21);
  assert.equal(r.getOrThrow(), 21);
  assert.equal(r.errorOrNull(), null);
  const mapped = r.map((v) => v * 2);
  assert.ok(mapped instanceof Success);
  assert.equal(mapped.value, 42);
});

Deno.test("Failure throws ServiceException carrying the error", () => {
  const r = failure({ message: "gone", category: "NOT_FOUND", status: 404, code: "x" });
  assert.ok(r instanceof Failure);
  assert.equal(r.ok, false);
  assert.equal(r.getOrNull(), null);
  assert.equal(r.errorOrNull()?.status, 404);
  assert.equal(r.map(() => 1), r);
  assert.throws(() => r.getOrThrow(), (e: unknown) => {
    assert.ok(e instanceof ServiceException);
    assert.ok(e instanceof Error);
    assert.equal(e.error.category, "NOT_FOUND");
    assert.equal(e.message, "gone");
    return true;
  });
});

Deno.test("ServiceError defaults and rendering", () => {
  const e = new ServiceError({ message: "m", category: "SERVER", status: 503 });
  assert.equal(e.code, null);
  assert.equal(e.details, null);
  assert.equal(e.retryAfter, null);
  assert.equal(String(e), "SERVER (503): m");
  assert.equal(String(new ServiceError({ message: "m", category: "NETWORK" })), "NETWORK: m");
  const same = failure(e);
  assert.equal(same.error, e);
});
