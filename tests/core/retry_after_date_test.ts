/**
 * A `Retry-After` given as an HTTP date is a time by the server's clock: it is measured from the
 * answer's own `Date`, not from this device's clock. A device hours ahead of the server read every
 * such date as past (retrying at once, `retryAfter` 0); one hours behind read it as hours away,
 * past `maxRetryAfterMs`, and failed instead of waiting the few seconds the server asked.
 */
import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { createBaseClient } from "../../core/client.ts";
import { request } from "../../core/transport.ts";
import { errorFromResponse } from "../../core/http_error.ts";
import { jsonResponse, recordingFetch } from "../support/recording_fetch.ts";

const DEVICE_NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const HOUR = 3_600_000;
const http = (ms: number) => new Date(ms).toUTCString();

/**
 * A GET answered 503 with `Date` at `serverNow` and `Retry-After` 3 s later, then 200; resolves
 * the result and the device time (fake) that passed between the two requests.
 */
async function retriedAfter(serverNow: number) {
  const clock = FakeTimers.install({
    toFake: ["setTimeout", "clearTimeout", "Date"],
    now: DEVICE_NOW,
  });
  try {
    const sentAt: number[] = [];
    const rec = recordingFetch((_req, i) => {
      sentAt.push(Date.now());
      return i === 0
        ? jsonResponse({ message: "busy" }, {
          status: 503,
          headers: { date: http(serverNow), "retry-after": http(serverNow + 3_000) },
        })
        : jsonResponse({ ok: true });
    });
    const client = createBaseClient("https://p.example", "anon-key", {
      fetch: rec.fetch,
      timeout: 0,
      // Backoff alone would wait at most 100 ms.
      retry: { baseDelayMs: 100, maxDelayMs: 100 },
    });
    const pending = request(client, { area: "rest", path: "/todos" });
    await clock.tickAsync(10_000);
    const result = await pending;
    return { result, waited: sentAt.length === 2 ? sentAt[1] - sentAt[0] : null };
  } finally {
    clock.uninstall();
  }
}

Deno.test("Retry-After as a date: a device clock 2 h ahead of the server's still waits the 3 s asked", async () => {
  const { result, waited } = await retriedAfter(DEVICE_NOW - 2 * HOUR);
  assert.equal(result.ok, true);
  assert.equal(waited, 3_000);
});

Deno.test("Retry-After as a date: a device clock 2 h behind waits the 3 s asked instead of failing past maxRetryAfterMs", async () => {
  const { result, waited } = await retriedAfter(DEVICE_NOW + 2 * HOUR);
  assert.equal(result.ok, true, String(result.errorOrNull()));
  assert.equal(waited, 3_000);
});

Deno.test("Retry-After as a date: a failure's retryAfter counts from the answer's Date; without one (or with garbage) from this device's clock", () => {
  const parts = (headers: Record<string, string>) => ({
    status: 429,
    statusText: "Too Many Requests",
    headers: new Headers(headers),
    body: "",
    truncated: false,
  });
  const server = Date.now() + 5 * HOUR;
  const withDate = errorFromResponse(
    parts({ date: http(server), "retry-after": http(server + 7_000) }),
    [],
  );
  assert.equal(withDate.retryAfter, 7);
  // No Date: the device's clock (7 s ahead of it here, within a second of rounding).
  const device = Math.floor(Date.now() / 1000) * 1000 + 8_000;
  const withoutDate = errorFromResponse(parts({ "retry-after": http(device) }), []);
  assert.ok(
    withoutDate.retryAfter === 7 || withoutDate.retryAfter === 8,
    `${withoutDate.retryAfter}`,
  );
  const garbage = errorFromResponse(
    parts({ date: "yesterday", "retry-after": http(device) }),
    [],
  );
  assert.equal(garbage.retryAfter, withoutDate.retryAfter);
  // Delta seconds are what they are, whatever the Date.
  const delta = errorFromResponse(parts({ date: http(server), "retry-after": "12" }), []);
  assert.equal(delta.retryAfter, 12);
});
