/**
 * An edge function, shaped like one of the hosted backend's: it verifies the
 * caller's JWT locally against the JWKS, reads and writes the caller's todos
 * (the caller's token is forwarded, so row-level security applies), uploads
 * a request body to storage as a stream and returns a signed URL.
 *
 * Copy this file; `main.ts` serves it with `Deno.serve`.
 */

import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import {
  fetchbaseAuth,
  type FetchbaseAuthOptions,
  type FetchbaseVariables,
  type MiddlewareContext,
} from "../../hono/mod.ts";
import { column } from "../../database/mod.ts";
import type { ClientOptions, ServiceError } from "../../core/mod.ts";

/** Configuration of the app. */
export interface AppConfig {
  /** Project URL. */
  url: string;
  /** Project anon key. */
  apiKey: string;
  /** Bucket for uploads. Default `uploads`. */
  bucket?: string;
  /** The largest file `PUT /api/files/:name` takes, in bytes. Default {@linkcode MAX_FILE_BYTES}. */
  maxFileBytes?: number;
  /** Client options (tests inject `fetch`). */
  clientOptions?: ClientOptions;
}

const done = column<boolean>("done");
const title = column<string>("title");
const id = column<number>("id");

/**
 * Statuses for the caller's own mistakes, and 503 for a backend that asks this server to slow
 * down (its rate limits count this server's key and address, not the caller); any other failure
 * is the upstream's fault (502).
 */
const CALLER_STATUS = {
  INVALID_ARGUMENT: 400,
  BAD_REQUEST: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 503,
} as const;

type UpstreamStatus = 400 | 401 | 403 | 404 | 409 | 413 | 502 | 503;

/**
 * How long `PUT /api/files/:name` waits for the Storage API, at most (a stream upload has no
 * default timeout: a large file may take long). The caller leaving ends the upload sooner.
 */
export const UPLOAD_TIMEOUT_MS = 300_000;

/**
 * The answer for a failed upstream call: its category and a status, never
 * its message (a network error names internal URLs). A refused token keeps
 * its 401 with the RFC 6750 challenge, a denied row its 403; a request the
 * backend refused as malformed, missing, conflicting or too large its 4xx;
 * anything else is the upstream's fault, a refused API key included (this
 * server's configuration: the caller's token is not to blame).
 */
function upstream(
  c: { json(body: unknown, status: UpstreamStatus): Response; header(n: string, v: string): void },
  error: ServiceError,
): Response {
  // The gateway's own words ("Invalid API key", "No API key found in request"), on a 401 or
  // 403 only: another message may echo the caller's input.
  const keyRefused = (error.status === 401 || error.status === 403) &&
    /^(invalid|no) api ?key/i.test(error.message);
  const status: UpstreamStatus = keyRefused
    ? 502
    : error.status === 401 || error.status === 403
    ? error.status
    : CALLER_STATUS[error.category as keyof typeof CALLER_STATUS] ?? 502;
  if (status === 401) c.header("www-authenticate", 'Bearer error="invalid_token"');
  // The backend's own wait, passed on (RFC 9110 §10.2.3: with a 503).
  if (status === 503 && error.retryAfter !== null) c.header("retry-after", `${error.retryAfter}`);
  return c.json(
    { error: "The backend could not complete the request", category: error.category },
    status,
  );
}

/**
 * A search text as a LIKE pattern that matches it literally: `%` and `_` escaped, and `*`
 * (which PostgREST reads as `%`) matching any one character. Capped at 100 characters
 * (code points: a cut never splits a surrogate pair).
 */
export function containsPattern(text: string): string {
  return `%${
    Array.from(text).slice(0, 100).join("").replace(/[\\%_]/g, "\\$&").replaceAll("*", "_")
  }%`;
}

/** The middleware's options from an app configuration. */
function authOptions(config: AppConfig): FetchbaseAuthOptions {
  return { url: config.url, apiKey: config.apiKey, clientOptions: config.clientOptions };
}

/**
 * Builds the Hono app. `config` may be a function of the request's context, read for each
 * request (a Worker's bindings, `c.env`); the middleware keeps one JWKS cache for what it returns.
 */
export function createApp(
  config: AppConfig | ((c: MiddlewareContext) => AppConfig),
): Hono<{ Variables: FetchbaseVariables }> {
  const bucketOf = (c: MiddlewareContext) =>
    (typeof config === "function" ? config(c) : config).bucket ?? "uploads";
  const maxFileOf = (c: MiddlewareContext) =>
    (typeof config === "function" ? config(c) : config).maxFileBytes ?? MAX_FILE_BYTES;
  const app = new Hono<{ Variables: FetchbaseVariables }>();
  app.get("/health", (c) => c.json({ ok: true }));
  app.use(
    "/api/*",
    fetchbaseAuth(
      typeof config === "function" ? (c) => authOptions(config(c)) : authOptions(config),
    ),
  );

  app.get("/api/me", (c) => {
    const { claims } = c.get("claims");
    return c.json({
      id: claims.subject,
      email: claims.email,
      aal: claims.authenticatorAssuranceLevel,
    });
  });

  app.get("/api/todos", async (c) => {
    const search = c.req.query("q");
    const db = c.get("fetchbase").database;
    const page = await db.selectRange("todos", {
      columns: "id,title,done",
      block: (q) =>
        q.where((w) => {
          if (search) w.ilike(title, containsPattern(search));
          if (c.req.query("open") === "true") w.eq(done, false);
        }).orderBy(id).limit(50),
    });
    if (!page.ok) {
      return upstream(c, page.error);
    }
    return c.json({ count: page.value.count, todos: JSON.parse(page.value.body) });
  });

  // A JSON body is read whole: bounded before it is.
  app.post("/api/todos", bodyLimit({ maxSize: 16 * 1024 }), async (c) => {
    const body = await c.req.json().catch(() => null) as { title?: unknown } | null;
    if (!body || typeof body.title !== "string" || body.title.trim() === "") {
      return c.json({ error: "title is required" }, 400);
    }
    if (body.title.length > 500) return c.json({ error: "title is too long" }, 400);
    const db = c.get("fetchbase").database;
    const r = await db.insert("todos", JSON.stringify({ title: body.title, done: false }));
    if (!r.ok) return upstream(c, r.error);
    return c.json(JSON.parse(r.value)[0], 201);
  });

  app.put("/api/files/:name", async (c) => {
    const name = c.req.param("name");
    const user = c.get("claims").claims.subject!;
    const storage = c.get("fetchbase").storage;
    const path = `${user}/${name}`;
    const bucket = bucketOf(c);
    // Streamed to storage as it arrives, never held whole: bounded by its declared length, and
    // counted as it passes when it declares none (chunked). A body left out is an empty file.
    const max = maxFileOf(c);
    if (Number(c.req.header("content-length")) > max) return tooLarge(c, max);
    const counted = c.req.raw.body ? countedUpTo(c.req.raw.body, max) : null;
    const up = await storage.upload(bucket, path, counted?.stream ?? new Uint8Array(0), {
      contentType: storedType(c.req.header("content-type")),
      upsert: true,
      // A Storage API that stalls holds this request no longer than the caller waits, nor than
      // the timeout.
      signal: c.req.raw.signal,
      timeout: UPLOAD_TIMEOUT_MS,
    });
    if (counted?.over()) return tooLarge(c, max);
    if (!up.ok) return upstream(c, up.error);
    const url = await storage.createSignedUrl(bucket, path, 600);
    if (!url.ok) return upstream(c, url.error);
    return c.json({ key: up.value, signedUrl: url.value }, 201);
  });

  return app;
}

/**
 * The largest file `PUT /api/files/:name` takes (a bucket's own `fileSizeLimit` bounds what the
 * Storage API stores too).
 */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;

/** The 413 answer of a file past `max` bytes. */
function tooLarge(c: { json(body: unknown, status: 413): Response }, max: number): Response {
  return c.json({ error: `the file is larger than ${max} bytes` }, 413);
}

/**
 * `body` passed on as it arrives, failed once more than `max` bytes have come (the upload then
 * fails, and `over()` says why).
 */
function countedUpTo(
  body: ReadableStream<Uint8Array>,
  max: number,
): { stream: ReadableStream<Uint8Array>; over: () => boolean } {
  let seen = 0;
  let over = false;
  const stream = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > max) {
          over = true;
          controller.error(new RangeError(`The body is larger than ${max} bytes`));
        } else controller.enqueue(chunk);
      },
    }),
  );
  return { stream, over: () => over };
}

/**
 * Types stored as the caller sends them; anything else (text/html, image/svg+xml: a page that
 * would run script on the storage origin when its signed URL is opened) is stored as bytes.
 */
const STORED_AS_SENT = new Set([
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "application/pdf",
  "text/plain",
  "application/octet-stream",
]);

function storedType(header: string | undefined): string {
  const type = (header ?? "").split(";")[0].trim().toLowerCase();
  return STORED_AS_SENT.has(type) ? type : "application/octet-stream";
}
