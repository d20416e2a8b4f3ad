// The database DSL, driven with seeded chains of builder calls (every method
// of WhereBuilder and QueryBuilder, groups included) whose arguments are
// columns, names or values of any type, inside select, update and delete
// blocks: each operation throws only a LimitError (the document's Limits) or
// resolves a ServiceResult, under the rules of tests/support/fuzz.ts (no
// failure that reads like a crash or shows a secret, nothing sent as
// "[object Object]", no unhandled rejection).
import assert from "node:assert/strict";
import { column } from "../database/column.ts";
import type { QueryBuilder } from "../database/query_builder.ts";
import type { WhereBuilder } from "../database/where_builder.ts";
import { fuzzRun, methodsOf, TOKEN } from "./support/fuzz.ts";

type Call = readonly [number, readonly unknown[]];
type Builder = Record<string, (...a: unknown[]) => unknown>;

/** Applies one drawn call to a where builder; groups get a filter of their own. */
function onWhere(w: WhereBuilder, [pick, args]: Call): void {
  const names = methodsOf(w);
  const name = names[Math.floor(pick * names.length)];
  if (name === "or" || name === "and" || name === "not") {
    (w as unknown as Builder)[name](
      (g: WhereBuilder) => g.eq(args[0] as never ?? column("id"), args[1] as never),
      args[2],
    );
  } else (w as unknown as Builder)[name](...args);
}

function run(seed: number, perSeed: number) {
  return fuzzRun(seed, async ({ rnd, pick, value, client, call }) => {
    const db = client.database;
    const arg = () => {
      const k = rnd();
      if (k < 0.35) {
        return column(pick(["id", "name", "data->>a", "tags", "author.name", "t.x"]));
      }
      if (k < 0.45) return pick(["id", "name", TOKEN, "a,b", "(x)"]);
      return value();
    };
    for (let i = 0; i < perSeed; i++) {
      const calls: Call[] = Array.from(
        { length: 1 + Math.floor(rnd() * 4) },
        () => [rnd(), Array.from({ length: Math.floor(rnd() * 4) }, arg)],
      );
      const query = (q: QueryBuilder) => {
        for (const [p, args] of calls) {
          if (p < 0.6) q.where((w) => onWhere(w, [p / 0.6, args]));
          else {
            const names = methodsOf(q).filter((n) => n !== "where");
            (q as unknown as Builder)[names[Math.floor((p - 0.6) / 0.4 * names.length)]](...args);
          }
        }
      };
      const filter = (w: WhereBuilder) => {
        for (const c of calls) onWhere(w, c);
      };
      const kind = pick(["select", "update", "delete"]);
      await call(
        `${kind} (call ${i})`,
        () =>
          kind === "select"
            ? db.select("t", { block: query })
            : kind === "update"
            ? db.update("t", '{"a":1}', filter)
            : db.delete("t", filter),
        () => false,
      );
    }
  });
}

for (const seed of [1, 2, 83, 98]) {
  Deno.test(`the DSL survives hostile builder calls (seed ${seed})`, async () => {
    const { problems, calls, requests } = await run(seed, 150);
    // A LimitError is the one thing an operation may throw; the check counts others only.
    assert.deepEqual(problems.filter((p) => !/threw LimitError/.test(p)), []);
    assert.equal(calls, 150);
    // Some chains are valid and reach the wire.
    assert.ok(requests > 2, `${requests} requests`);
  });
}
