// @ts-nocheck -- runs under Node, not type-checked by Deno.
// Node runner for bench/database_bench.ts: bundles the fetchbase database
// client with esbuild (into the OS temp directory), then measures the same
// three candidates in interleaved rounds and prints median throughput ratios
// against the hand-built URLSearchParams limit.
//
// Run from the repository root: node bench/node/database_bench.mjs

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createRequire } from "node:module";
import * as esbuild from "esbuild";

const root = fileURLToPath(new URL("../../", import.meta.url));
const require = createRequire(join(root, "package.json"));
const { PostgrestClient } = require("@supabase/postgrest-js");

const dir = mkdtempSync(join(tmpdir(), "fetchbase-bench-"));
const outfile = join(dir, "fetchbase.mjs");
await esbuild.build({
  stdin: {
    contents: [
      'export { createBaseClient } from "./core/client.ts";',
      'export { columns, createDatabaseClient } from "./database/mod.ts";',
    ].join("\n"),
    resolveDir: root,
    loader: "ts",
  },
  bundle: true,
  format: "esm",
  platform: "neutral",
  outfile,
  logLevel: "error",
});
const fb = await import(pathToFileURL(outfile).href);
rmSync(dir, { recursive: true, force: true });

const BASE = "https://project.example.com";
const KEY = "anon-key";
const answer = () =>
  Promise.resolve(new Response("[]", { headers: { "content-type": "application/json" } }));
const fetchNow = (_input, _init) => answer();

const todo = fb.columns();
const db = fb.createDatabaseClient(
  fb.createBaseClient(BASE, KEY, { fetch: fetchNow, retry: { maxAttempts: 1 } }),
);
const pg = new PostgrestClient(`${BASE}/rest/v1`, {
  headers: { apikey: KEY, Authorization: `Bearer ${KEY}` },
  fetch: fetchNow,
});

async function handBuilt() {
  const p = new URLSearchParams();
  p.set("select", "id,title,owner:users(name,email)");
  p.append("done", "eq.false");
  p.append("title", "ilike.%milk%");
  p.append("status", "in.(open,blocked)");
  p.append("or", "(priority.gt.2,created_at.gte.2026-01-01)");
  p.append("order", "created_at.desc.nullslast");
  p.append("offset", "0");
  p.append("limit", "20");
  const res = await fetchNow(`${BASE}/rest/v1/todos?${p}`, {
    headers: { apikey: KEY, Authorization: `Bearer ${KEY}`, "X-Client-Info": "bench" },
  });
  await res.text();
}

async function fetchbase() {
  const r = await db.select("todos", {
    columns: "id,title,owner:users(name,email)",
    block: (q) =>
      q.where((w) =>
        w.eq(todo.done, false).ilike(todo.title, "%milk%").inList(todo.status, ["open", "blocked"])
          .or((o) => o.greater(todo.priority, 2).greaterEq(todo.created_at, "2026-01-01"))
      ).orderBy(todo.created_at, { order: "desc", nulls: "nullslast" }).range(0, 19),
  });
  if (!r.ok) throw new Error(r.error.message);
}

async function postgrestJs() {
  const r = await pg.from("todos").select("id,title,owner:users(name,email)")
    .eq("done", false).ilike("title", "%milk%").in("status", ["open", "blocked"])
    .or("priority.gt.2,created_at.gte.2026-01-01")
    .order("created_at", { ascending: false, nullsFirst: false }).range(0, 19);
  if (r.error) throw new Error(r.error.message);
}

/** Ops per second of `fn` over about `ms` milliseconds. */
async function rate(fn, ms) {
  let n = 0;
  const start = performance.now();
  let t = start;
  while (t - start < ms) {
    for (let i = 0; i < 50; i++) await fn();
    n += 50;
    t = performance.now();
  }
  return (n * 1000) / (t - start);
}

const candidates = [
  ["hand-built URLSearchParams + fetch (limit)", handBuilt],
  ["fetchbase", fetchbase],
  ["@supabase/postgrest-js", postgrestJs],
];
const rounds = Number(process.argv[2] ?? 9);
const rates = candidates.map(() => []);
for (const [, fn] of candidates) await rate(fn, 300); // warm-up
for (let r = 0; r < rounds; r++) {
  for (let i = 0; i < candidates.length; i++) rates[i].push(await rate(candidates[i][1], 250));
}
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(rates[0]);
console.log(`Node ${process.version}, median of ${rounds} interleaved rounds`);
for (let i = 0; i < candidates.length; i++) {
  const m = median(rates[i]);
  console.log(
    `  ${candidates[i][0].padEnd(44)} ${m.toFixed(0).padStart(9)} ops/s  ${(m / base).toFixed(2)}x`,
  );
}
