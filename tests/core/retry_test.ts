import assert from "node:assert/strict";
import {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  resolveRetryPolicy,
} from "../../core/retry.ts";

Deno.test("parseRetryAfter handles seconds, dates, garbage and huge values", () => {
  const now = Date.UTC(2026, 0, 1);
  assert.equal(parseRetryAfter("0", now), 0);
  assert.equal(parseRetryAfter(" 12 ", now), 12000);
  assert.equal(parseRetryAfter(new Date(now + 7000).toUTCString(), now), 7000);
  assert.equal(parseRetryAfter(new Date(now - 7000).toUTCString(), now), 0);
  assert.equal(parseRetryAfter("-5", now), null);
  assert.equal(parseRetryAfter("1.5", now), null);
  assert.equal(parseRetryAfter("soon", now), null);
  assert.equal(parseRetryAfter("", now), null);
  assert.equal(parseRetryAfter(null, now), null);
  assert.equal(parseRetryAfter("9".repeat(30), now), Number.MAX_SAFE_INTEGER);
  assert.equal(parseRetryAfter("x".repeat(5000), now), null);
});

Deno.test("backoffDelay grows exponentially, is capped and jittered within [exp/2, exp]", () => {
  const p = DEFAULT_RETRY_POLICY;
  assert.equal(backoffDelay(1, p, () => 0), 100);
  assert.equal(backoffDelay(1, p, () => 0.999999), 200);
  assert.equal(backoffDelay(2, p, () => 0), 200);
  assert.equal(backoffDelay(3, p, () => 0), 400);
  assert.equal(backoffDelay(30, p, () => 1), 5000);
});

Deno.test("resolveRetryPolicy validates with a clear message", () => {
  assert.throws(
    () => resolveRetryPolicy({ maxAttempts: 0 }),
    {
      name: "RangeError",
      message: "Cannot retry as 'maxAttempts' must be a positive integer: current value is 0",
    },
  );
  assert.throws(() => resolveRetryPolicy({ baseDelayMs: -1 }), RangeError);
  assert.throws(() => resolveRetryPolicy({ maxDelayMs: Infinity }), RangeError);
  assert.equal(resolveRetryPolicy({ maxAttempts: 5 }).baseDelayMs, 200);
});
