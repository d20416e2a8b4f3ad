/**
 * Building and sending a realistic PostgREST query (embedded select, eq,
 * ilike, in, or, order, range) to a fetch that answers at once:
 * hand-built URLSearchParams (the limit), fetchbase, and postgrest-js.
 * Run: deno bench --allow-all bench/database_bench.ts
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

Deno.bench(
  "hand-built URLSearchParams + fetch (limit)",
  { group: "query", baseline: true },
  async () => {
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
  },
);

Deno.bench("fetchbase", { group: "query" }, async () => {
  const r = await db.select("todos", {
    columns: "id,title,owner:users(name,email)",
    block: (q) =>
      q.where((w) =>
        w.eq(todo.done, false).ilike(todo.title, "%milk%").inList(todo.status, ["open", "blocked"])
          .or((o) => o.greater(todo.priority, 2).greaterEq(todo.created_at, "2026-01-01"))
      ).orderBy(todo.created_at, { order: "desc", nulls: "nullslast" }).range(0, 19),
  });
  if (!r.ok) throw new Error(r.error.message);
});

Deno.bench("@supabase/postgrest-js", { group: "query" }, async () => {
  const r = await pg.from("todos").select("id,title,owner:users(name,email)")
    .eq("done", false).ilike("title", "%milk%").in("status", ["open", "blocked"])
    .or("priority.gt.2,created_at.gte.2026-01-01")
    .order("created_at", { ascending: false, nullsFirst: false }).range(0, 19);
  if (r.error) throw new Error(r.error.message);
});
