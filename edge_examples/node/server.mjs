// @ts-nocheck -- runs under Node against the npm build, not type-checked by Deno
// The edge example on Node, through the npm build (`npm install fetchbase hono @hono/node-server`).
// FETCHBASE_URL=... FETCHBASE_KEY=... PORT=8787 node server.mjs
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { fetchbaseAuth } from "fetchbase/hono";
import { column } from "fetchbase/database";

const url = process.env.FETCHBASE_URL;
const apiKey = process.env.FETCHBASE_KEY;
if (!url || !apiKey) {
  console.error("Set FETCHBASE_URL and FETCHBASE_KEY");
  process.exit(1);
}
const title = column("title");
// A failed upstream call: its category and a status, never its message (a network error
// names internal URLs). A refused token keeps its 401 with the RFC 6750 challenge, a denied
// row its 403, the caller's own mistakes their 4xx; anything else is the upstream's fault, a
// refused API key included (this server's configuration, not the caller's token).
const CALLER_STATUS = {
  INVALID_ARGUMENT: 400,
  BAD_REQUEST: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  // The backend asks this server to slow down (its limits count this server, not the caller).
  RATE_LIMITED: 503,
};
const upstream = (c, error) => {
  // The gateway's own words ("Invalid API key", "No API key found in request"), on a 401 or
  // 403 only: another message may echo the caller's input.
  const keyRefused = (error.status === 401 || error.status === 403) &&
    /^(invalid|no) api ?key/i.test(error.message);
  const status = keyRefused
    ? 502
    : error.status === 401 || error.status === 403
    ? error.status
    : CALLER_STATUS[error.category] ?? 502;
  if (status === 401) c.header("www-authenticate", 'Bearer error="invalid_token"');
  // The backend's own wait, passed on (RFC 9110 §10.2.3: with a 503).
  if (status === 503 && error.retryAfter !== null) c.header("retry-after", `${error.retryAfter}`);
  return c.json(
    { error: "The backend could not complete the request", category: error.category },
    status,
  );
};
// A search text as a LIKE pattern matching it literally: `%` and `_` escaped, `*` (PostgREST's
// `%`) matching any one character, at most 100 characters (code points, never half a pair).
const containsPattern = (text) =>
  `%${Array.from(text).slice(0, 100).join("").replace(/[\\%_]/g, "\\$&").replaceAll("*", "_")}%`;
const app = new Hono();
app.get("/health", (c) => c.json({ ok: true }));
app.use("/api/*", fetchbaseAuth({ url, apiKey }));
app.get("/api/me", (c) => c.json({ id: c.get("claims").claims.subject }));
app.get("/api/todos", async (c) => {
  const q = c.req.query("q") ?? "";
  const r = await c.get("fetchbase").database.selectRange("todos", {
    columns: "id,title",
    block: (b) => b.where((w) => w.ilike(title, containsPattern(q))).limit(50),
  });
  return r.ok
    ? c.json({ count: r.value.count, todos: JSON.parse(r.value.body) })
    : upstream(c, r.error);
});
// A JSON body is read whole: bounded before it is.
app.post("/api/todos", bodyLimit({ maxSize: 16 * 1024 }), async (c) => {
  const body = await c.req.json().catch(() => null);
  if (!body || typeof body.title !== "string" || body.title.trim() === "") {
    return c.json({ error: "title is required" }, 400);
  }
  if (body.title.length > 500) return c.json({ error: "title is too long" }, 400);
  const r = await c.get("fetchbase").database.insert(
    "todos",
    JSON.stringify({ title: body.title, done: false }),
  );
  return r.ok ? c.json(JSON.parse(r.value)[0], 201) : upstream(c, r.error);
});
// Types stored as the caller sends them; anything else (text/html, image/svg+xml: a page that
// would run script on the storage origin when its signed URL is opened) is stored as bytes.
const STORED_AS_SENT = new Set([
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "application/pdf",
  "text/plain",
  "application/octet-stream",
]);
const storedType = (header) => {
  const type = (header ?? "").split(";")[0].trim().toLowerCase();
  return STORED_AS_SENT.has(type) ? type : "application/octet-stream";
};

// The largest file taken (a bucket's own `fileSizeLimit` bounds what the Storage API stores too).
const MAX_FILE_BYTES = 50 * 1024 * 1024;
const tooLarge = (c) => c.json({ error: `the file is larger than ${MAX_FILE_BYTES} bytes` }, 413);

app.put("/api/files/:name", async (c) => {
  const storage = c.get("fetchbase").storage;
  const path = `${c.get("claims").claims.subject}/${c.req.param("name")}`;
  // Streamed to storage as it arrives, never held whole: bounded by its declared length, and
  // counted as it passes when it declares none (chunked). @hono/node-server gives every PUT a
  // body stream, an empty one included: a request without a body stores an empty file, as the
  // Deno example does.
  if (Number(c.req.header("content-length")) > MAX_FILE_BYTES) return tooLarge(c);
  let seen = 0;
  let over = false;
  const body = (c.req.raw.body ?? new Blob([]).stream()).pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > MAX_FILE_BYTES) {
          over = true;
          controller.error(new RangeError(`The body is larger than ${MAX_FILE_BYTES} bytes`));
        } else controller.enqueue(chunk);
      },
    }),
  );
  const up = await storage.upload("uploads", path, body, {
    contentType: storedType(c.req.header("content-type")),
    upsert: true,
    // A Storage API that stalls holds this request no longer than the caller waits, nor than
    // five minutes (a stream upload has no default timeout: a large file may take long).
    signal: c.req.raw.signal,
    timeout: 300_000,
  });
  if (over) return tooLarge(c);
  if (!up.ok) return upstream(c, up.error);
  const signed = await storage.createSignedUrl("uploads", path, 600);
  return signed.ok
    ? c.json({ key: up.value, signedUrl: signed.value }, 201)
    : upstream(c, signed.error);
});
const server = serve({
  fetch: app.fetch,
  hostname: "127.0.0.1",
  port: Number(process.env.PORT ?? 8787),
}, (info) => {
  console.log(`listening on ${info.port}`);
});
// On SIGTERM: accept nothing new, let the requests under way finish, then exit. `close()` alone
// waits for every open connection, and one that never sends a request (a browser's preconnect)
// would hold it for ever: idle ones are closed at once, any left after 5 s are closed too.
process.on("SIGTERM", () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections?.();
  setTimeout(() => server.closeAllConnections?.(), 5_000).unref();
});
