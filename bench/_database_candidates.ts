/**
 * The candidates of the database benchmark, shared by the Deno runner
 * (`database_bench.ts`) and the Node runner (`node/database_bench.mjs`, which
 * bundles this file): web APIs only.
 *
 * @module
 */
import { PostgrestClient } from "@supabase/postgrest-js";
import { createBaseClient } from "../core/client.ts";
import { columns, createDatabaseClient } from "../database/mod.ts";

const BASE = "https://project.example.com";
const KEY = "anon-key";
const answer = () =>
  Promise.resolve(new Response("[]", { headers: { "content-type": "application/json" } }));
const fetchNow = ((_input: RequestInfo | URL, _init?: RequestInit) => answer()) as typeof fetch;

interface Todo {
  id: number;
  title: string;
  status: string;
  done: boolean;
  priority: number;
  created_at: string;
}
const todo = columns<Todo>();
const db = createDatabaseClient(
  createBaseClient(BASE, KEY, { fetch: fetchNow, retry: { maxAttempts: 1 } }),
);
const pg = new PostgrestClient(`${BASE}/rest/v1`, {
  headers: { apikey: KEY, Authorization: `Bearer ${KEY}` },
  fetch: fetchNow,
});

async function handBuilt(): Promise<void> {
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

async function fetchbase(): Promise<void> {
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

async function postgrestJs(): Promise<void> {
  const r = await pg.from("todos").select("id,title,owner:users(name,email)")
    .eq("done", false).ilike("title", "%milk%").in("status", ["open", "blocked"])
    .or("priority.gt.2,created_at.gte.2026-01-01")
    .order("created_at", { ascending: false, nullsFirst: false }).range(0, 19);
  if (r.error) throw new Error(r.error.message);
}

export const candidates: Array<[string, () => Promise<void>]> = [
  ["hand-built URLSearchParams + fetch (limit)", handBuilt],
  ["fetchbase", fetchbase],
  ["@supabase/postgrest-js", postgrestJs],
];

/** Ops per second of `fn` over about `ms` milliseconds. */
async function rate(fn: () => Promise<void>, ms: number): Promise<number> {
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

/**
 * Measures the candidates in interleaved rounds and returns report lines:
 * median ops/s and the ratio to the first candidate (the limit).
 */
export async function interleaved(runtime: string, rounds = 9): Promise<string[]> {
  const rates: number[][] = candidates.map(() => []);
  for (const [, fn] of candidates) await rate(fn, 300); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < candidates.length; i++) rates[i].push(await rate(candidates[i][1], 200));
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const base = median(rates[0]);
  return [
    `${runtime}, median of ${rounds} interleaved rounds`,
    ...candidates.map(([name], i) => {
      const m = median(rates[i]);
      return `  ${name.padEnd(44)} ${m.toFixed(0).padStart(9)} ops/s  ${(m / base).toFixed(2)}x`;
    }),
  ];
}
