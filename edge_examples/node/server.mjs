// @ts-nocheck -- runs under Node against the npm build, not type-checked by Deno
// The edge example on Node, through the npm build (`npm install fetchbase hono @hono/node-server`).
// FETCHBASE_URL=... FETCHBASE_KEY=... PORT=8787 node server.mjs
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { fetchbaseAuth } from "fetchbase/hono";
import { column } from "fetchbase/database";

const url = process.env.FETCHBASE_URL;
const apiKey = process.env.FETCHBASE_KEY;
if (!url || !apiKey) {
  console.error("Set FETCHBASE_URL and FETCHBASE_KEY");
  process.exit(1);
}
const title = column("title");
const app = new Hono();
app.get("/health", (c) => c.json({ ok: true }));
app.use("/api/*", fetchbaseAuth({ url, apiKey }));
app.get("/api/me", (c) => c.json({ id: c.get("claims").claims.subject }));
app.get("/api/todos", async (c) => {
  const q = c.req.query("q") ?? "";
  const r = await c.get("fetchbase").database.selectRange("todos", {
    columns: "id,title",
    block: (b) => b.where((w) => w.ilike(title, `%${q}%`)).limit(50),
  });
  return r.ok
    ? c.json({ count: r.value.count, todos: JSON.parse(r.value.body) })
    : c.json({ error: r.error.message }, 502);
});
app.post("/api/todos", async (c) => {
  const body = await c.req.json().catch(() => null);
  if (!body || typeof body.title !== "string" || body.title.trim() === "") {
    return c.json({ error: "title is required" }, 400);
  }
  const r = await c.get("fetchbase").database.insert(
    "todos",
    JSON.stringify({ title: body.title, done: false }),
  );
  return r.ok ? c.json(JSON.parse(r.value)[0], 201) : c.json({ error: r.error.message }, 502);
});
app.put("/api/files/:name", async (c) => {
  const storage = c.get("fetchbase").storage;
  const path = `${c.get("claims").claims.subject}/${c.req.param("name")}`;
  const up = await storage.upload("uploads", path, c.req.raw.body, { upsert: true });
  if (!up.ok) return c.json({ error: up.error.message }, 502);
  const signed = await storage.createSignedUrl("uploads", path, 600);
  return signed.ok
    ? c.json({ key: up.value, signedUrl: signed.value }, 201)
    : c.json({ error: signed.error.message }, 502);
});
const server = serve({
  fetch: app.fetch,
  hostname: "127.0.0.1",
  port: Number(process.env.PORT ?? 8787),
}, (info) => {
  console.log(`listening on ${info.port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
