// A filter operand that JSON writes as a string (a Temporal value, a Luxon, dayjs or moment date,
// a decimal library's number) goes as that string, as a Date goes as its ISO time. It went as its
// JSON text, in quotes, which PostgREST takes as part of the value: `at=gte."2026-…Z"` cannot be
// read as a time, and the filter failed 400.
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createDatabaseClient } from "../../database/client.ts";
import { column } from "../../database/column.ts";
import { jsonResponse, recordingFetch } from "../support/recording_fetch.ts";

/** A decimal library's number, as decimal.js and big.js write theirs to JSON. */
class Decimal {
  constructor(readonly digits: string) {}
  toJSON(): string {
    return this.digits;
  }
}

function db() {
  const rec = recordingFetch(() => jsonResponse([]));
  return {
    rec,
    db: createDatabaseClient(
      createBaseClient("https://p.example", "anon-key-123", { fetch: rec.fetch }),
    ),
  };
}

Deno.test("Temporal values and other values JSON writes as strings filter as those strings, in lists too", async () => {
  const { rec, db: d } = db();
  const r = await d.select("t", {
    block: (q) =>
      q.where((w) =>
        w.greaterEq(column<Temporal.Instant>("at"), Temporal.Instant.from("2026-11-28T12:30:00Z"))
          .eq(column<Temporal.PlainDate>("day"), Temporal.PlainDate.from("2026-11-28"))
          .inList(column<Temporal.PlainDate>("days"), [
            Temporal.PlainDate.from("2026-11-28"),
            Temporal.PlainDate.from("2026-11-29"),
          ])
          .less(column<Decimal>("price"), new Decimal("19.99"))
      ),
  });
  assert.equal(r.ok ? "ok" : r.error.message, "ok");
  const q = rec.only.url.searchParams;
  assert.equal(q.get("at"), "gte.2026-11-28T12:30:00Z");
  assert.equal(q.get("day"), "eq.2026-11-28");
  assert.equal(q.get("days"), "in.(2026-11-28,2026-11-29)");
  assert.equal(q.get("price"), "lt.19.99");
});

Deno.test("an object whose JSON is not a string still goes as JSON text, and a toJSON that throws is refused", async () => {
  const { rec, db: d } = db();
  const r = await d.select("t", {
    block: (q) =>
      q.where((w) =>
        w.contains(column<unknown>("doc"), { a: 1 } as never)
          .eq(column<unknown>("obj"), { toJSON: () => ({ b: 2 }) } as never)
      ),
  });
  assert.equal(r.ok ? "ok" : r.error.message, "ok");
  assert.equal(rec.only.url.searchParams.get("doc"), 'cs.{"a":1}');
  assert.equal(rec.only.url.searchParams.get("obj"), 'eq.{"b":2}');
  const bad = await d.select("t", {
    block: (q) =>
      q.where((w) =>
        w.eq(column<unknown>("x"), {
          toJSON() {
            throw new Error("no JSON here");
          },
        } as never)
      ),
  });
  assert.equal(bad.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(bad.errorOrNull()!.message, /no JSON here/);
  assert.equal(rec.requests.length, 1);
});
