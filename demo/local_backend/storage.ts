/**
 * A Storage API stand-in: buckets, objects kept in memory, signed download
 * and upload URLs, listing, and the TUS resumable endpoint.
 *
 * Access rules (a simple row-level security policy set; the service role,
 * see `context.ts`, passes every check):
 * - Every route needs the API key but the ones that carry their own proof:
 *   GET/HEAD of `/object/public/...` (public buckets only) and of
 *   `/object/sign/<bucket>/<path>?token=`, and the signed upload
 *   `PUT /object/upload/sign/<bucket>/<path>?token=`; each checks its token.
 * - Buckets: any caller with the API key reads their metadata. A signed-in
 *   user may create one and is recorded as its `owner`; only the owner (or
 *   the service role) may update, empty or delete it. The anon key may not
 *   create one.
 * - Objects: each records as `owner` the user who uploaded it (for a signed
 *   upload URL, the user who made the URL). An object in a public bucket may
 *   be read by anyone; in a private bucket only by its owner. Reading covers
 *   download, info, listing (a listing shows only what the caller may read)
 *   and creating a signed URL (an object the caller may not read is answered
 *   as missing). Only a signed-in user may upload (and create a signed upload
 *   URL); only the object's owner may overwrite (upsert), move or delete it,
 *   or be replaced by a copy or move onto its key; copying needs read access
 *   to the source, and the copy belongs to the caller. As in the real
 *   Storage API, a delete of objects the caller may not delete leaves them
 *   and does not list them as removed.
 * - A TUS upload is continued (HEAD, PATCH, DELETE) only by its creator.
 */

import { Hono } from "hono";
import type { Context } from "hono";
import { ANON, type BackendContext, type Caller } from "./context.ts";
import { isPreflight, preflightAnswer, TUS_EXPOSED } from "./cors.ts";
import { decodeBase64, utf8Decode } from "../../core/encoding.ts";

interface StoredObject {
  id: string;
  bytes: Uint8Array;
  contentType: string;
  cacheControl: string;
  metadata: Record<string, unknown> | null;
  createdAt: string;
  updatedAt: string;
  owner: string | null;
}

interface Bucket {
  id: string;
  name: string;
  public: boolean;
  created_at: string;
  updated_at: string;
  file_size_limit: number | null;
  allowed_mime_types: string[] | null;
  /** The user who created the bucket; empty when the service role did. */
  owner: string;
}

interface TusUpload {
  bucket: string;
  name: string;
  length: number | null;
  offset: number;
  chunks: Uint8Array[];
  contentType: string;
  cacheControl: string;
  metadata: Record<string, unknown> | null;
  upsert: boolean;
  /** Who created the upload: only they continue it, and the object is theirs. */
  caller: Caller;
  /** For an upload made with a signed upload token, that token: only it continues the upload. */
  token: string | null;
}

/** Whether a bucket's MIME list (exact types or `type/*`) lets `contentType` in; null lets all. */
function mimeAllowed(allowed: string[] | null, contentType: string): boolean {
  if (allowed === null || allowed.length === 0) return true;
  const type = contentType.split(";")[0].trim().toLowerCase();
  return allowed.some((a) => {
    const rule = a.toLowerCase();
    return rule.endsWith("/*") ? type.startsWith(rule.slice(0, -1)) : type === rule;
  });
}

const storageError = (status: number, error: string, message: string) =>
  Response.json({ statusCode: String(status), error, message }, { status });

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

const TUS_HEADERS = { "Tus-Resumable": "1.0.0" };

const isService = (caller: Caller) => caller.role === "service_role";
const isUser = (caller: Caller) => caller.role === "authenticated" && caller.sub !== null;
/** Whether `caller` may read `obj` in `bucket`: public buckets, else the owner. */
const canRead = (caller: Caller, bucket: Bucket, obj: StoredObject) =>
  isService(caller) || bucket.public || (isUser(caller) && obj.owner === caller.sub);
/** Whether `caller` may overwrite, move or delete `obj`: its owner. */
const canWrite = (caller: Caller, obj: StoredObject) =>
  isService(caller) || (isUser(caller) && obj.owner === caller.sub);
/** Whether `caller` may update, empty or delete `bucket`: its owner. */
const ownsBucket = (caller: Caller, bucket: Bucket) =>
  isService(caller) || (isUser(caller) && bucket.owner === caller.sub);
const sameCaller = (a: Caller, b: Caller) => isService(b) || (a.role === b.role && a.sub === b.sub);

const RLS_REFUSED = "new row violates row-level security policy";
const refused = (message = RLS_REFUSED) => storageError(403, "Unauthorized", message);
const notOwner = () => refused("Only the bucket's owner or the service role may do this");
const bucketNotFound = () => storageError(404, "Bucket not found", "Bucket not found");
const objectNotFound = () => storageError(404, "not_found", "Object not found");

/** Requests that carry their own proof (a public bucket, a signed token) need no API key. */
function openRoute(method: string, path: string): boolean {
  // Resumable uploads with a signed upload token (`x-signature`, every method), checked by the
  // routes.
  if (/^\/storage\/v1\/upload\/resumable\/sign(\/|$)/.test(path)) return true;
  if (method === "GET" || method === "HEAD") {
    return /^\/storage\/v1\/(object\/(public|sign|info\/public)|render\/image\/public)\//.test(
      path,
    );
  }
  return method === "PUT" && /^\/storage\/v1\/object\/upload\/sign\//.test(path);
}

/** The objects a backend holds, for tests and the demo summary. */
export interface StorageState {
  buckets: Map<string, Bucket>;
  objects: Map<string, Map<string, StoredObject>>;
}

export function storageApp(ctx: BackendContext): { app: Hono; state: StorageState } {
  const app = new Hono();
  const state: StorageState = { buckets: new Map(), objects: new Map() };
  const signed = new Map<
    string,
    {
      bucket: string;
      name: string;
      exp: number;
      upload: boolean;
      upsert: boolean;
      /** For a signed upload, who made the URL (the new object's owner). */
      caller: Caller;
    }
  >();
  const uploads = new Map<string, TusUpload>();

  const callerOf = (c: Context) => c.get("caller" as never) as unknown as Caller;
  /** Only a signed-in user (or the service role) may add objects or buckets. */
  const requireUser = (c: Context): Response | null =>
    isUser(callerOf(c)) || isService(callerOf(c)) ? null : refused();
  const objectsOf = (bucket: string) => {
    let m = state.objects.get(bucket);
    if (!m) state.objects.set(bucket, m = new Map());
    return m;
  };
  const objectPath = (c: Context, prefix: string) => {
    const rest = decodeURIComponent(new URL(c.req.url).pathname.slice(prefix.length));
    const slash = rest.indexOf("/");
    return slash < 0
      ? { bucket: rest, name: "" }
      : { bucket: rest.slice(0, slash), name: rest.slice(slash + 1) };
  };
  /** Stores a request's body (a simple or a signed upload) and answers as the Storage API does. */
  const storeBody = async (
    c: Context,
    bucket: string,
    name: string,
    metadata: Record<string, unknown> | null,
    upsert: boolean,
    caller: Caller,
  ): Promise<Response> => {
    const result = store(
      bucket,
      name,
      new Uint8Array(await c.req.arrayBuffer()),
      {
        contentType: c.req.header("content-type") ?? "application/octet-stream",
        cacheControl: c.req.header("cache-control") ?? "max-age=3600",
        metadata,
      },
      upsert,
      caller,
    );
    return result instanceof Response
      ? result
      : c.json({ Key: `${bucket}/${name}`, Id: result.id });
  };
  const store = (
    bucket: string,
    name: string,
    bytes: Uint8Array,
    meta: {
      contentType: string;
      cacheControl: string;
      metadata: Record<string, unknown> | null;
    },
    upsert: boolean,
    caller: Caller,
  ): Response | StoredObject => {
    const b = state.buckets.get(bucket);
    if (!b) return bucketNotFound();
    if (!isUser(caller) && !isService(caller)) return refused();
    if (b.file_size_limit !== null && bytes.length > b.file_size_limit) {
      return storageError(413, "Payload too large", "The object exceeded the maximum allowed size");
    }
    if (!mimeAllowed(b.allowed_mime_types, meta.contentType)) {
      const type = meta.contentType.split(";")[0].trim();
      return storageError(415, "invalid_mime_type", `mime type ${type} is not supported`);
    }
    const objects = objectsOf(bucket);
    const existing = objects.get(name);
    if (existing && !upsert) return storageError(409, "Duplicate", "The resource already exists");
    if (existing && !canWrite(caller, existing)) return refused();
    const now = new Date().toISOString();
    const obj: StoredObject = {
      id: existing?.id ?? crypto.randomUUID(),
      bytes,
      contentType: meta.contentType,
      cacheControl: meta.cacheControl,
      metadata: meta.metadata,
      // The service role keeps an overwritten object's owner.
      owner: isService(caller) ? existing?.owner ?? null : caller.sub,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    objects.set(name, obj);
    return obj;
  };
  const serveObject = (obj: StoredObject, req: Request, download: string | null) => {
    const headers = new Headers({
      "content-type": obj.contentType,
      // A stored type is served as stored, never sniffed into something that runs.
      "x-content-type-options": "nosniff",
      "cache-control": obj.cacheControl,
      etag: `"${obj.id}"`,
      "accept-ranges": "bytes",
    });
    if (download !== null) {
      // Encoded, as the Storage API does: a name cannot add parameters or break the header.
      const name = encodeURIComponent(download);
      headers.set(
        "content-disposition",
        name ? `attachment; filename=${name}; filename*=UTF-8''${name}` : "attachment;",
      );
    }
    const range = req.headers.get("range")?.match(/^bytes=(\d+)-(\d*)$/);
    if (range) {
      const start = Number(range[1]);
      const end = Math.min(
        range[2] ? Number(range[2]) : obj.bytes.length - 1,
        obj.bytes.length - 1,
      );
      if (start > end) return new Response(null, { status: 416, headers });
      headers.set("content-range", `bytes ${start}-${end}/${obj.bytes.length}`);
      return new Response(obj.bytes.slice(start, end + 1), { status: 206, headers });
    }
    return new Response(obj.bytes.slice(), { status: 200, headers });
  };
  const infoJson = (bucket: string, name: string, obj: StoredObject) => ({
    id: obj.id,
    name,
    bucket_id: bucket,
    version: obj.id,
    size: obj.bytes.length,
    content_type: obj.contentType,
    cache_control: obj.cacheControl,
    etag: `"${obj.id}"`,
    metadata: obj.metadata,
    created_at: obj.createdAt,
    updated_at: obj.updatedAt,
    last_modified: obj.updatedAt,
  });

  // CORS of the TUS routes alone (the backend's `cors: "tus"`; `"all"` gives every route the
  // deployed services' CORS in `mod.ts`), as a browser on another origin meets the deployed
  // service: the gateway in front of it (Kong's `cors` plugin) answers every preflight itself,
  // allowing any origin and echoing the requested headers, and every answer (a refusal included,
  // so that the page can read its status) allows any origin and exposes the TUS headers.
  // Registered first so that it also covers the answers of the authentication below.
  if (ctx.cors === "tus") {
    app.use("/upload/resumable*", async (c, next) => {
      if (isPreflight(c.req.raw)) return preflightAnswer(c.req.raw);
      await next();
      c.res.headers.set("Access-Control-Allow-Origin", "*");
      c.res.headers.set("Access-Control-Expose-Headers", TUS_EXPOSED);
      return undefined;
    });
  }
  app.use("*", async (c, next) => {
    try {
      decodeURIComponent(new URL(c.req.url).pathname);
    } catch {
      return storageError(400, "InvalidKey", "The path holds a malformed percent-escape");
    }
    if (openRoute(c.req.method, new URL(c.req.url).pathname)) {
      // These routes check their own token (or the bucket being public), never a caller.
      c.set("caller" as never, ANON as never);
      return next();
    }
    const caller = await ctx.caller(c.req.raw);
    if (caller instanceof Response) return caller;
    c.set("caller" as never, caller as never);
    return next();
  });
  /** The bucket named in the path, or the answer refusing the caller. */
  const ownedBucket = (c: Context): Bucket | Response => {
    const b = state.buckets.get(c.req.param("id") ?? "");
    if (!b) return bucketNotFound();
    return ownsBucket(callerOf(c), b) ? b : notOwner();
  };

  // Buckets
  app.get("/bucket", (c) => c.json([...state.buckets.values()]));
  app.get("/bucket/:id", (c) => {
    const b = state.buckets.get(c.req.param("id"));
    return b ? c.json(b) : bucketNotFound();
  });
  app.post("/bucket", async (c) => {
    const denied = requireUser(c);
    if (denied) return denied;
    const body = await c.req.json().catch(() => ({}));
    const id = String(body.id ?? body.name ?? "");
    if (!id) return storageError(400, "Invalid Input", "Bucket name is required");
    if (state.buckets.has(id)) return storageError(409, "Duplicate", "The resource already exists");
    const now = new Date().toISOString();
    state.buckets.set(id, {
      id,
      name: String(body.name ?? id),
      public: body.public === true,
      created_at: now,
      updated_at: now,
      file_size_limit: typeof body.file_size_limit === "number" ? body.file_size_limit : null,
      allowed_mime_types: Array.isArray(body.allowed_mime_types) ? body.allowed_mime_types : null,
      owner: callerOf(c).sub ?? "",
    });
    return c.json({ name: id });
  });
  app.put("/bucket/:id", async (c) => {
    const b = ownedBucket(c);
    if (b instanceof Response) return b;
    const body = await c.req.json().catch(() => ({}));
    if (typeof body.public === "boolean") b.public = body.public;
    if (body.file_size_limit === null || typeof body.file_size_limit === "number") {
      b.file_size_limit = body.file_size_limit;
    }
    if (body.allowed_mime_types === null || Array.isArray(body.allowed_mime_types)) {
      b.allowed_mime_types = body.allowed_mime_types;
    }
    b.updated_at = new Date().toISOString();
    return c.json({ message: "Successfully updated" });
  });
  app.post("/bucket/:id/empty", (c) => {
    const b = ownedBucket(c);
    if (b instanceof Response) return b;
    objectsOf(b.id).clear();
    return c.json({ message: "Successfully emptied" });
  });
  app.delete("/bucket/:id", (c) => {
    const b = ownedBucket(c);
    if (b instanceof Response) return b;
    if ((state.objects.get(b.id)?.size ?? 0) > 0) {
      return storageError(409, "InvalidRequest", "The bucket you tried to delete is not empty");
    }
    state.buckets.delete(b.id);
    state.objects.delete(b.id);
    return c.json({ message: "Successfully deleted" });
  });

  // Signed URLs
  const signOne = (bucket: string, name: string, expiresIn: number, caller: Caller) => {
    const token = crypto.randomUUID();
    signed.set(token, {
      bucket,
      name,
      exp: Date.now() + expiresIn * 1000,
      upload: false,
      upsert: false,
      caller,
    });
    return `/object/sign/${encodeURIComponent(bucket)}/${
      name.split("/").map(encodeURIComponent).join("/")
    }?token=${token}`;
  };
  app.post("/object/sign/*", async (c) => {
    const { bucket, name } = objectPath(c, "/storage/v1/object/sign/");
    const caller = callerOf(c);
    const b = state.buckets.get(bucket);
    if (!b) return bucketNotFound();
    // An object the caller may not read is answered as missing, as RLS hides it.
    const readable = (key: unknown) => {
      const obj = typeof key === "string" ? objectsOf(bucket).get(key) : undefined;
      return obj !== undefined && canRead(caller, b, obj);
    };
    const body = await c.req.json().catch(() => ({}));
    const expiresIn = Number(body.expiresIn ?? 60);
    if (Array.isArray(body.paths)) {
      return c.json(
        body.paths.map((p: string) =>
          readable(p)
            ? { path: p, signedURL: signOne(bucket, p, expiresIn, caller), error: null }
            : {
              path: p,
              signedURL: null,
              error: "Either the object does not exist or you do not have access to it",
            }
        ),
      );
    }
    if (!readable(name)) return objectNotFound();
    return c.json({ signedURL: signOne(bucket, name, expiresIn, caller) });
  });
  app.get("/object/sign/*", (c) => {
    const { bucket, name } = objectPath(c, "/storage/v1/object/sign/");
    const entry = signed.get(c.req.query("token") ?? "");
    if (
      !entry || entry.upload || entry.bucket !== bucket || entry.name !== name ||
      entry.exp < Date.now()
    ) {
      return storageError(400, "InvalidJWT", "invalid signature");
    }
    const obj = objectsOf(bucket).get(name);
    if (!obj) return objectNotFound();
    return serveObject(obj, c.req.raw, c.req.query("download") ?? null);
  });
  app.post("/object/upload/sign/*", (c) => {
    const denied = requireUser(c);
    if (denied) return denied;
    const { bucket, name } = objectPath(c, "/storage/v1/object/upload/sign/");
    if (!state.buckets.has(bucket)) return bucketNotFound();
    const upsert = c.req.header("x-upsert") === "true";
    const existing = objectsOf(bucket).get(name);
    if (upsert && existing && !canWrite(callerOf(c), existing)) return refused();
    const token = crypto.randomUUID();
    signed.set(token, {
      bucket,
      name,
      exp: Date.now() + 7200_000,
      upload: true,
      upsert,
      caller: callerOf(c),
    });
    return c.json({ url: `/object/upload/sign/${bucket}/${name}?token=${token}`, token });
  });
  app.put("/object/upload/sign/*", async (c) => {
    const { bucket, name } = objectPath(c, "/storage/v1/object/upload/sign/");
    const entry = signed.get(c.req.query("token") ?? "");
    if (
      !entry || !entry.upload || entry.bucket !== bucket || entry.name !== name ||
      entry.exp < Date.now()
    ) {
      return storageError(400, "InvalidJWT", "invalid signature");
    }
    // The object is written as the user who made the URL, under their rights; upsert comes from
    // the token alone, as the Storage API takes it (an x-upsert header is ignored).
    return await storeBody(c, bucket, name, null, entry.upsert, entry.caller);
  });

  // Listing, info, move, copy, delete
  app.post("/object/list/:bucket", async (c) => {
    const body = await c.req.json().catch(() => ({}));
    const prefix = String(body.prefix ?? "").replace(/\/?$/, (m) => (body.prefix ? "/" : m));
    const limit = Number(body.limit ?? 100);
    const offset = Number(body.offset ?? 0);
    const search = String(body.search ?? "").toLowerCase();
    const entries = new Map<string, unknown>();
    const b = state.buckets.get(c.req.param("bucket"));
    if (!b) return c.json([]);
    for (const [name, obj] of objectsOf(b.id)) {
      // Row-level security: the listing holds only what the caller may read.
      if (!canRead(callerOf(c), b, obj)) continue;
      if (prefix && !name.startsWith(prefix)) continue;
      const rest = name.slice(prefix.length);
      const slash = rest.indexOf("/");
      const entry = slash < 0 ? rest : rest.slice(0, slash);
      if (search && !entry.toLowerCase().includes(search)) continue;
      if (slash >= 0) {
        entries.set(entry, {
          name: entry,
          id: null,
          updated_at: null,
          created_at: null,
          last_accessed_at: null,
          metadata: null,
        });
      } else {
        entries.set(entry, {
          name: entry,
          id: obj.id,
          updated_at: obj.updatedAt,
          created_at: obj.createdAt,
          last_accessed_at: obj.updatedAt,
          metadata: {
            size: obj.bytes.length,
            mimetype: obj.contentType,
            cacheControl: obj.cacheControl,
            eTag: `"${obj.id}"`,
          },
        });
      }
    }
    const sorted = [...entries.values()].sort((a, b) =>
      String((a as { name: string }).name).localeCompare(String((b as { name: string }).name))
    );
    return c.json(sorted.slice(offset, offset + limit));
  });
  app.on(["GET", "HEAD"], "/object/info/*", (c) => {
    const path = new URL(c.req.url).pathname;
    const prefix = path.startsWith("/storage/v1/object/info/public/")
      ? "/storage/v1/object/info/public/"
      : path.startsWith("/storage/v1/object/info/authenticated/")
      ? "/storage/v1/object/info/authenticated/"
      : "/storage/v1/object/info/";
    const { bucket, name } = objectPath(c, prefix);
    const b = state.buckets.get(bucket);
    const obj = objectsOf(bucket).get(name);
    if (!b || !obj || !canRead(callerOf(c), b, obj)) return objectNotFound();
    // As the Storage API's info renderer: the object's own `Cache-Control`, ETag and time.
    return c.json(infoJson(bucket, name, obj), 200, {
      "cache-control": obj.cacheControl,
      etag: `"${obj.id}"`,
      "last-modified": new Date(obj.updatedAt).toUTCString(),
    });
  });
  /**
   * Checks a move or copy: the source must be readable (and, to move it,
   * the caller's), the destination bucket must exist, and an object at the
   * destination key must be the caller's. Answers the source and target.
   */
  const transfer = async (c: Context, move: boolean) => {
    const caller = callerOf(c);
    const denied = requireUser(c);
    if (denied) return denied;
    const body = await c.req.json().catch(() => ({}));
    const { bucketId, sourceKey, destinationKey } = body;
    const destBucket = body.destinationBucket ?? bucketId;
    if (![bucketId, sourceKey, destinationKey, destBucket].every((v) => typeof v === "string")) {
      return storageError(
        400,
        "Invalid Input",
        "bucketId, sourceKey and destinationKey are required",
      );
    }
    const from = state.buckets.get(bucketId);
    const obj = from ? objectsOf(bucketId).get(sourceKey) : undefined;
    if (!from || !obj || !canRead(caller, from, obj)) return objectNotFound();
    if (move && !canWrite(caller, obj)) return refused();
    if (!state.buckets.has(destBucket)) return bucketNotFound();
    const there = objectsOf(destBucket).get(destinationKey);
    if (there && there !== obj && !canWrite(caller, there)) return refused();
    // As the real Storage API: only a copy sent with `x-upsert: true` replaces an object.
    if (there && there !== obj && (move || c.req.header("x-upsert") !== "true")) {
      return storageError(409, "Duplicate", "The resource already exists");
    }
    return { caller, obj, from: objectsOf(bucketId), sourceKey, destBucket, destinationKey };
  };
  app.post("/object/move", async (c) => {
    const t = await transfer(c, true);
    if (t instanceof Response) return t;
    t.from.delete(t.sourceKey);
    objectsOf(t.destBucket).set(t.destinationKey, t.obj);
    return c.json({ message: "Successfully moved" });
  });
  app.post("/object/copy", async (c) => {
    const t = await transfer(c, false);
    if (t instanceof Response) return t;
    // The copy is the caller's (the service role's copy keeps the source's owner).
    const owner = isService(t.caller) ? t.obj.owner : t.caller.sub;
    objectsOf(t.destBucket).set(t.destinationKey, { ...t.obj, id: crypto.randomUUID(), owner });
    return c.json({ Key: `${t.destBucket}/${t.destinationKey}` });
  });
  app.delete("/object/:bucket", async (c) => {
    const body = await c.req.json().catch(() => ({}));
    const objects = objectsOf(c.req.param("bucket"));
    const removed = [];
    for (const p of Array.isArray(body.prefixes) ? body.prefixes : []) {
      const obj = objects.get(p);
      // As the real Storage API: an object the caller may not delete is left, unreported.
      if (obj && canWrite(callerOf(c), obj)) {
        objects.delete(p);
        removed.push({ name: p, id: obj.id, bucket_id: c.req.param("bucket"), metadata: null });
      }
    }
    return c.json(removed);
  });

  // Downloads
  const download = (prefix: string, publicOnly: boolean) => (c: Context) => {
    const { bucket, name } = objectPath(c, prefix);
    const b = state.buckets.get(bucket);
    if (!b) return bucketNotFound();
    if (publicOnly && !b.public) return storageError(400, "not_found", "Object not found");
    const obj = objectsOf(bucket).get(name);
    // Without a public bucket only the owner reads (RLS answers a hidden object as missing).
    if (!obj || (!publicOnly && !canRead(callerOf(c), b, obj))) return objectNotFound();
    return serveObject(obj, c.req.raw, c.req.query("download") ?? null);
  };
  app.get("/object/public/*", download("/storage/v1/object/public/", true));
  app.get("/object/authenticated/*", download("/storage/v1/object/authenticated/", false));

  // Uploads and authenticated download without a family prefix
  const upload = (upsertDefault: boolean) => async (c: Context) => {
    const denied = requireUser(c);
    if (denied) return denied;
    const { bucket, name } = objectPath(c, "/storage/v1/object/");
    if (!name) return storageError(400, "Invalid Input", "The object name is required");
    const metaHeader = c.req.header("x-metadata");
    let metadata: Record<string, unknown> | null = null;
    if (metaHeader) {
      try {
        metadata = JSON.parse(utf8Decode(decodeBase64(metaHeader)));
      } catch {
        return storageError(400, "Invalid Input", "x-metadata must be base64 JSON");
      }
    }
    const upsert = upsertDefault || c.req.header("x-upsert") === "true";
    return await storeBody(c, bucket, name, metadata, upsert, callerOf(c));
  };
  app.post("/object/*", upload(false));
  app.put("/object/*", upload(true));
  app.get("/object/*", download("/storage/v1/object/", false));

  // TUS 1.0.0: creation, creation-with-upload, creation-defer-length
  const parseMetadata = (header: string | undefined) => {
    const out: Record<string, string> = {};
    for (const pair of (header ?? "").split(",")) {
      const [k, v] = pair.trim().split(" ");
      if (k) out[k] = v ? utf8Decode(decodeBase64(v)) : "";
    }
    return out;
  };
  const finish = (up: TusUpload): Response | null => {
    if (up.length === null || up.offset < up.length) return null;
    const result = store(up.bucket, up.name, concat(up.chunks), up, up.upsert, up.caller);
    up.chunks = [];
    return result instanceof Response ? result : null;
  };
  const accept = async (up: TusUpload, req: Request): Promise<Response | null> => {
    const reader = req.body?.getReader();
    if (!reader) return null;
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      up.chunks.push(value.slice());
      up.offset += value.length;
      if (up.length !== null && up.offset > up.length) {
        return storageError(400, "Invalid Input", "Upload-Offset exceeds Upload-Length");
      }
    }
    return null;
  };
  app.options("/upload/resumable*", () =>
    new Response(null, {
      status: 204,
      headers: {
        ...TUS_HEADERS,
        "Tus-Version": "1.0.0",
        "Tus-Extension": "creation,creation-with-upload,creation-defer-length,termination",
      },
    }));
  /**
   * Creates an upload: the caller's (`/upload/resumable`), or, as the Storage API's
   * `/upload/resumable/sign`, that of the user who signed the `x-signature` token for this very
   * bucket and key, with the token's `upsert` (an `x-upsert` header is ignored).
   */
  const createUpload = async (c: Context, signedRoute: boolean) => {
    const token = signedRoute ? c.req.header("x-signature") ?? "" : null;
    const entry = token === null ? null : signed.get(token);
    if (token === null) {
      const denied = requireUser(c);
      if (denied) return denied;
    } else if (!entry || !entry.upload || entry.exp < Date.now()) {
      return storageError(400, "InvalidSignature", "invalid signature");
    }
    const meta = parseMetadata(c.req.header("upload-metadata"));
    if (entry && (entry.bucket !== meta.bucketName || entry.name !== meta.objectName)) {
      return storageError(400, "InvalidSignature", "The signature is for another object");
    }
    const lengthHeader = c.req.header("upload-length");
    const deferred = c.req.header("upload-defer-length") === "1";
    if (!meta.bucketName || !meta.objectName) {
      return storageError(400, "Invalid Input", "bucketName and objectName are required");
    }
    if (!state.buckets.has(meta.bucketName)) {
      return storageError(404, "Bucket not found", "Bucket not found");
    }
    if (!deferred && !/^\d+$/.test(lengthHeader ?? "")) {
      return storageError(400, "Invalid Input", "Upload-Length is required");
    }
    const upsert = entry ? entry.upsert : c.req.header("x-upsert") === "true";
    const caller = entry ? entry.caller : callerOf(c);
    const existing = objectsOf(meta.bucketName).get(meta.objectName);
    if (existing && !upsert) return storageError(409, "Duplicate", "The resource already exists");
    if (existing && !canWrite(caller, existing)) return refused();
    const id = crypto.randomUUID();
    const up: TusUpload = {
      bucket: meta.bucketName,
      name: meta.objectName,
      length: deferred ? null : Number(lengthHeader),
      offset: 0,
      chunks: [],
      contentType: meta.contentType || "application/octet-stream",
      cacheControl: meta.cacheControl ? `max-age=${meta.cacheControl}` : "max-age=3600",
      metadata: meta.metadata ? JSON.parse(meta.metadata) : null,
      upsert,
      caller,
      token,
    };
    uploads.set(id, up);
    const location = `${new URL(c.req.url).origin}/storage/v1/upload/resumable/${
      signedRoute ? "sign/" : ""
    }${id}`;
    if (c.req.header("content-type") === "application/offset+octet-stream") {
      const bad = (await accept(up, c.req.raw)) ?? finish(up);
      if (bad) return bad;
    } else if (up.length === 0) {
      // An empty upload is complete on creation, as @tus/server finishes it.
      const bad = finish(up);
      if (bad) return bad;
    }
    return new Response(null, {
      status: 201,
      headers: { ...TUS_HEADERS, Location: location, "Upload-Offset": String(up.offset) },
    });
  };
  app.post("/upload/resumable", (c) => createUpload(c, false));
  app.post("/upload/resumable/sign", (c) => createUpload(c, true));
  /**
   * The upload named in the path, if the caller created it (another caller's is not found); under
   * `/sign/`, if it was made with the request's `x-signature`.
   */
  const uploadOf = (c: Context): TusUpload | null => {
    const up = uploads.get(c.req.param("id") ?? "");
    if (!up) return null;
    if (new URL(c.req.url).pathname.includes("/upload/resumable/sign/")) {
      // As the Storage API: any live upload token for this object goes on (it checks the
      // signature against the object's key, not the one the upload was created with).
      const entry = signed.get(c.req.header("x-signature") ?? "");
      const live = entry && entry.upload && entry.exp >= Date.now() &&
        entry.bucket === up.bucket && entry.name === up.name;
      return up.token !== null && live ? up : null;
    }
    return up.token === null && sameCaller(up.caller, callerOf(c)) ? up : null;
  };
  // Hono answers a HEAD with the GET route (and drops the body): a HEAD-only route never matches.
  const headUpload = (c: Context) => {
    if (c.req.method !== "HEAD") return new Response(null, { status: 405, headers: TUS_HEADERS });
    const up = uploadOf(c);
    if (!up) return new Response(null, { status: 404, headers: TUS_HEADERS });
    const headers: Record<string, string> = {
      ...TUS_HEADERS,
      "Upload-Offset": String(up.offset),
      "Cache-Control": "no-store",
    };
    if (up.length !== null) headers["Upload-Length"] = String(up.length);
    else headers["Upload-Defer-Length"] = "1";
    return new Response(null, { status: 200, headers });
  };
  const patchUpload = async (c: Context) => {
    const up = uploadOf(c);
    if (!up) return new Response(null, { status: 404, headers: TUS_HEADERS });
    if (c.req.header("content-type") !== "application/offset+octet-stream") {
      return new Response("Invalid Content-Type", { status: 415, headers: TUS_HEADERS });
    }
    if (c.req.header("upload-offset") !== String(up.offset)) {
      return new Response("Upload-Offset conflict", { status: 409, headers: TUS_HEADERS });
    }
    const length = c.req.header("upload-length");
    if (up.length === null && length !== undefined && /^\d+$/.test(length)) {
      up.length = Number(length);
    }
    const bad = (await accept(up, c.req.raw)) ?? finish(up);
    if (bad) return bad;
    return new Response(null, {
      status: 204,
      headers: { ...TUS_HEADERS, "Upload-Offset": String(up.offset) },
    });
  };
  const deleteUpload = (c: Context) => {
    if (uploadOf(c)) uploads.delete(c.req.param("id") ?? "");
    return new Response(null, { status: 204, headers: TUS_HEADERS });
  };
  for (const prefix of ["/upload/resumable/", "/upload/resumable/sign/"]) {
    app.get(`${prefix}:id`, headUpload);
    app.patch(`${prefix}:id`, patchUpload);
    app.delete(`${prefix}:id`, deleteUpload);
  }

  return { app, state };
}
