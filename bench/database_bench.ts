/**
 * Building and sending a realistic PostgREST query (embedded select, eq,
 * ilike, in, or, order, range) to a fetch that answers at once:
 * hand-built URLSearchParams (the limit), fetchbase, and postgrest-js.
 * Run: deno bench --allow-all bench/database_bench.ts
 * or, steadier on a loaded machine (median of interleaved rounds):
 *      deno run --allow-all bench/database_bench.ts --interleaved
 * The Node runner is bench/node/database_bench.mjs; both use the candidates
 * of bench/_database_candidates.ts.
 */
import { candidates, interleaved } from "./_database_candidates.ts";

if (Deno.args.includes("--interleaved")) {
  for (const line of await interleaved(`Deno ${Deno.version.deno}`)) console.log(line);
} else {
  candidates.forEach(([name, fn], i) =>
    Deno.bench(name, { group: "query", baseline: i === 0 }, fn)
  );
}
