/**
 * Storage operations as functions over the base client. The `StorageClient`
 * class forwards to these.
 */

import type { BaseClient } from "../core/client.ts";
import { requestAfterRestore } from "../core/_token_wait.ts";
import {
  asArray,
  asObject,
  decodeResult,
  type JsonObjectInput,
  optObject,
  reqString,
} from "../core/decode.ts";
import { encodeBase64 } from "../core/encoding.ts";
import { failure, type ServiceResult, success } from "../core/result.ts";
import type { RequestBody, TransportRequest } from "../core/transport.ts";
import { requestWatched } from "./_stream_guard.ts";
import { guardedStream, isAsyncIterable, iterableStream } from "./_web_stream.ts";
import { readIdle } from "./_idle_read.ts";
import { freshReads } from "./_fresh_reads.ts";
import { encodeBucket, encodeObjectPath, objectPathOrFailure, pathList } from "./_path.ts";
import {
  type Bucket,
  decodeBucket,
  decodeFileObject,
  decodeObjectListV2,
  type FileObject,
  type ImageTransformOptions,
  type ObjectListV2Response,
  SortOrder,
  type UploadSignedUrl,
} from "./models.ts";
import { transformQuery } from "./_urls.ts";
import { encodeComponent } from "../core/_uri.ts";
import { redactSecrets } from "../core/http_error.ts";
import { encodeQueryComponent } from "../core/query.ts";
import { showValue } from "../core/_show.ts";
import { deadline } from "../core/_deadline.ts";
import { checkUploadOptions } from "./_upload_options.ts";
import { checkReadable, dataFailed } from "./_chunk_source.ts";
import { sendsStreamBodies } from "./_chunk_body.ts";
import { cancelled, untilCancelled } from "../core/_abort.ts";
import { sleep } from "../core/_sleep.ts";
import { backoffDelay } from "../core/retry.ts";
import {
  isArrayBuffer,
  isBlobToRead,
  isReadableStream,
  localBytes,
  unshared,
} from "../core/_realm.ts";
import { blobType, isAnyBlob } from "./_blob.ts";

/** Cancellation and timeout, accepted by every storage call. */
export interface StorageCallOptions {
  /** Cancels the call. */
  signal?: AbortSignal | undefined;
  /**
   * Timeout in milliseconds, for the whole call. Without it, a call gets the client's, except
   * plain uploads, which get the client's plus one second per 16 KiB of a body of known length
   * (bytes, a Blob, a string) and none for a stream (give a `timeout` or a `signal`), and
   * downloads, whose answer must start within the client's timeout and whose body, read whole,
   * may pause no longer than it (however long it takes in all); a `downloadStream`'s body, read
   * by the caller, has no limit.
   */
  timeout?: number | undefined;
}

/**
 * What an upload accepts, from any realm (an iframe's, or Node's under a jsdom test environment).
 * An async iterable of bytes (a Node stream: a file's, an HTTP request's body; an async
 * generator) is sent as a stream. Streams and Blobs are streamed, never buffered, but for a Blob
 * fetch may not take as it is (of another realm or implementation, or without `stream()`, as
 * jsdom's), which is read first.
 */
export type UploadData =
  | Uint8Array
  | ArrayBufferView
  | ArrayBuffer
  | Blob
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array>
  | string;

/** Options of uploads. */
export interface UploadOptions extends StorageCallOptions {
  /** Content type. Default `application/octet-stream` (a Blob's own type when it has one). */
  contentType?: string | undefined;
  /**
   * Overwrite an existing object. Default false. `update` replaces the object either way; for
   * `uploadToSignedUrl` the Storage API takes it from the token (`createSignedUploadUrl`'s
   * `upsert`), not from this option.
   */
  upsert?: boolean | undefined;
  /** `Cache-Control: max-age=<seconds>`. */
  cacheControl?: number | null | undefined;
  /** User metadata, a plain object (no Date, Map or class instance), sent Base64-encoded in `x-metadata`. */
  metadata?: JsonObjectInput | null | undefined;
}

/** Options of the bucket listings. */
export interface ListBucketsOptions extends StorageCallOptions {
  /** Page size. */
  limit?: number | null | undefined;
  /** Rows to skip. */
  offset?: number | null | undefined;
  /** Server-defined sort column, e.g. `name` or `created_at`. */
  sortColumn?: string | null | undefined;
  /** Sort direction. */
  sortOrder?: SortOrder | null | undefined;
  /**
   * Case-insensitive filter on bucket names: the Storage API keeps the buckets whose name holds
   * it anywhere (`%` and `_` match themselves).
   */
  search?: string | null | undefined;
}

/** Paging values are integers: `limit` from `min`, `offset` from 0 (RangeError otherwise). */
function checkPaging(op: string, limit: unknown, offset: unknown, min = 1): void {
  for (const [name, v, least] of [["limit", limit, min], ["offset", offset, 0]] as const) {
    if (v != null && (!Number.isSafeInteger(v) || (v as number) < least)) {
      throw new RangeError(
        `Cannot ${op} as '${name}' must be an integer of at least ${least}: current value is ${
          showValue(v)
        }`,
      );
    }
  }
}

/**
 * A sort column is a name and its direction `asc` or `desc` (`TypeError` otherwise):
 * supabase-js's `sortBy: { column, order }` would reach the server as an object.
 */
function checkSort(op: string, column: unknown, order: unknown): void {
  if (column != null && typeof column !== "string") {
    throw new TypeError(
      `Cannot ${op} as the sort column must be a column name, its direction in 'sortOrder': current value is ${
        showValue(column)
      }`,
    );
  }
  if (order != null && order !== SortOrder.ASC && order !== SortOrder.DESC) {
    throw new TypeError(
      `Cannot ${op} as 'sortOrder' must be asc or desc: current value is ${showValue(order)}`,
    );
  }
}

/** A listing's prefix is text (`TypeError` otherwise). */
function checkPrefix(prefix: unknown): void {
  if (prefix != null && typeof prefix !== "string") {
    throw new TypeError(
      `Cannot list as 'prefix' must be a string: current value is ${showValue(prefix)}`,
    );
  }
}

export function bucketQuery(
  o: ListBucketsOptions,
  op = "list buckets",
): Array<[string, string | null | undefined]> {
  checkPaging(op, o.limit, o.offset);
  checkSort(op, o.sortColumn, o.sortOrder);
  // The object listings' name, which would be ignored here: the buckets in the server's order.
  if (typeof o === "object" && "sortBy" in o) {
    throw new TypeError(`Cannot ${op} as 'sortBy' is no option here: pass { sortColumn: "name" }`);
  }
  return [
    ["limit", o.limit?.toString()],
    ["offset", o.offset?.toString()],
    ["search", o.search || null],
    ["sortColumn", o.sortColumn || null],
    ["sortOrder", o.sortOrder],
  ];
}

const noBody = { responseType: "none" } as const;

function ok<T>(r: ServiceResult<unknown>, v: T): ServiceResult<T> {
  return r.ok ? success(v) : r;
}

// Buckets

export async function listBuckets(
  client: BaseClient,
  o?: ListBucketsOptions,
): Promise<ServiceResult<Bucket[]>> {
  o ??= {};
  const r = await requestAfterRestore(client, {
    area: "storage",
    path: "/bucket",
    query: bucketQuery(o),
    signal: o.signal,
    timeout: o.timeout,
  });
  return decodeResult(r, (v) => asArray(v.body, "buckets").map(decodeBucket));
}

export async function getBucket(
  client: BaseClient,
  id: string,
  o?: StorageCallOptions,
): Promise<ServiceResult<Bucket>> {
  o ??= {};
  const r = await requestAfterRestore(client, {
    area: "storage",
    path: `/bucket/${encodeBucket(id)}`,
    signal: o.signal,
    timeout: o.timeout,
  });
  return decodeResult(r, (v) => decodeBucket(v.body));
}

/** Options of bucket creation. */
export interface CreateBucketOptions extends StorageCallOptions {
  /** Public bucket. Default false. */
  public?: boolean | undefined;
  /** Per-object size cap in bytes. */
  fileSizeLimit?: number | null | undefined;
  /** MIME whitelist. */
  allowedMimeTypes?: readonly string[] | null | undefined;
}

/** Options of bucket updates: only given fields are sent. */
export interface UpdateBucketOptions extends StorageCallOptions {
  /** The bucket's current name, checked: a rename is refused (`INVALID_ARGUMENT`), as the Storage API keeps names. */
  name?: string | null | undefined;
  /** Public flag. */
  public?: boolean | null | undefined;
  /** Per-object size cap in bytes. */
  fileSizeLimit?: number | null | undefined;
  /** MIME whitelist. */
  allowedMimeTypes?: readonly string[] | null | undefined;
  /**
   * Removes the size cap (sends `file_size_limit: null`). A null `fileSizeLimit` leaves the cap
   * unchanged, as the document sends only non-null arguments.
   */
  clearFileSizeLimit?: boolean | null | undefined;
  /** Removes the MIME whitelist (sends `allowed_mime_types: null`), so any type is accepted. */
  clearAllowedMimeTypes?: boolean | null | undefined;
}

/**
 * The bucket settings as the document types them (`RangeError`/`TypeError`, a Failure through
 * the guard): supabase-js also takes sizes such as "1mb", which the returned `Bucket`, typed in
 * bytes, could not hold.
 */
function checkBucketSettings(
  op: string,
  o: CreateBucketOptions | UpdateBucketOptions,
  name: unknown,
): void {
  const { public: isPublic, fileSizeLimit: limit, allowedMimeTypes: types } = o;
  // A bucket's name is text: a create needs one, an update may leave it out.
  if (op === "create" ? typeof name !== "string" : name != null && typeof name !== "string") {
    throw new TypeError(
      `Cannot ${op} the bucket as 'name' must be a string: current value is ${showValue(name)}${
        // storage-js's createBucket(id, { public }): the name comes before the options here.
        op === "create" && typeof name === "object" && name !== null
          ? " (createBucket takes (id, name, options))"
          : ""}`,
    );
  }
  if (isPublic != null && typeof isPublic !== "boolean") {
    throw new TypeError(
      `Cannot ${op} the bucket as 'public' must be a boolean: current value is ${
        showValue(isPublic)
      }`,
    );
  }
  if (limit != null && !(Number.isSafeInteger(limit) && limit >= 0)) {
    throw new RangeError(
      `Cannot ${op} the bucket as 'fileSizeLimit' must be a whole number of bytes: current value is ${
        showValue(limit)
      }`,
    );
  }
  if (types != null && !(Array.isArray(types) && types.every((t) => typeof t === "string"))) {
    throw new TypeError(
      `Cannot ${op} the bucket as 'allowedMimeTypes' must be a list of strings: current value is ${
        showValue(types)
      }`,
    );
  }
}

/**
 * What an update sends for a setting: its value, null when its clear flag is set (the Storage
 * API then removes it), or undefined (left out of the JSON) when neither is given.
 */
function clearing<K extends "fileSizeLimit" | "allowedMimeTypes">(
  o: UpdateBucketOptions,
  key: K,
  flag: "clearFileSizeLimit" | "clearAllowedMimeTypes",
): NonNullable<UpdateBucketOptions[K]> | null | undefined {
  const clear = o[flag];
  if (clear != null && typeof clear !== "boolean") {
    throw new TypeError(
      `Cannot update the bucket as '${flag}' must be a boolean: current value is ${
        showValue(clear)
      }`,
    );
  }
  const value = o[key];
  if (!clear) return value ?? undefined;
  if (value != null) {
    throw new TypeError(
      `Cannot update the bucket as '${key}' and '${flag}' are both given: give one of them`,
    );
  }
  return null;
}

export function dropNulls(obj: object) {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== null && v !== undefined));
}

export async function createBucket(
  client: BaseClient,
  id: string,
  name: string,
  o?: CreateBucketOptions,
): Promise<ServiceResult<Bucket>> {
  o ??= {};
  encodeBucket(id);
  checkBucketSettings("create", o, name);
  const isPublic = o.public ?? false;
  const r = await requestAfterRestore(client, {
    method: "POST",
    area: "storage",
    path: "/bucket",
    json: dropNulls({
      id,
      name,
      public: isPublic,
      file_size_limit: o.fileSizeLimit,
      allowed_mime_types: o.allowedMimeTypes,
    }),
    signal: o.signal,
    timeout: o.timeout,
  });
  return ok(r, {
    id,
    name,
    public: isPublic,
    createdAt: null,
    updatedAt: null,
    fileSizeLimit: o.fileSizeLimit ?? null,
    // As the Storage API stores it: it drops empty types (`[""]` stores `[]`, any type).
    allowedMimeTypes: o.allowedMimeTypes?.filter((t) => t) ?? null,
  });
}

export async function updateBucket(
  client: BaseClient,
  id: string,
  o?: UpdateBucketOptions,
): Promise<ServiceResult<Bucket>> {
  o ??= {};
  const path = `/bucket/${encodeBucket(id)}`;
  checkBucketSettings("update", o, o.name);
  // The Storage API keeps a bucket's name: a rename is refused, never silently ignored. Only
  // the fields given are sent (reading `public` first and writing it back would undo a change
  // made meanwhile).
  const isPublic = o.public;
  const limit = clearing(o, "fileSizeLimit", "clearFileSizeLimit");
  const types = clearing(o, "allowedMimeTypes", "clearAllowedMimeTypes");
  const nothing = isPublic == null && limit === undefined && types === undefined;
  // Up to three requests (the name check, the update, the read back) under one deadline: each
  // gets what is left of the call's timeout.
  const within = deadline(o.timeout, client.timeout);
  const read = () => within((timeout) => getBucket(client, id, { signal: o.signal, timeout }));
  if (o.name != null) {
    const current = await read();
    if (!current.ok) return current;
    if (o.name !== current.value.name) {
      return failure({
        message: `Cannot rename bucket ${showValue(id)}: the Storage API keeps a bucket's name (${
          showValue(current.value.name)
        })`,
        category: "INVALID_ARGUMENT",
      });
    }
    if (nothing) return current; // the name it already has: nothing to change
  } else if (nothing) {
    return failure({
      message: "Cannot update the bucket as no field to change is given",
      category: "INVALID_ARGUMENT",
    });
  }
  const r = await within((timeout) =>
    requestAfterRestore(client, {
      method: "PUT",
      area: "storage",
      path,
      json: {
        ...dropNulls({ id, name: o.name, public: isPublic }),
        file_size_limit: limit,
        allowed_mime_types: types,
      },
      signal: o.signal,
      timeout,
    })
  );
  if (!r.ok) return r;
  return read();
}

export async function deleteBucket(
  client: BaseClient,
  id: string,
  o?: StorageCallOptions,
): Promise<ServiceResult<void>> {
  o ??= {};
  const r = await requestAfterRestore(client, {
    method: "DELETE",
    area: "storage",
    path: `/bucket/${encodeBucket(id)}`,
    json: {},
    ...noBody,
    signal: o.signal,
    timeout: o.timeout,
  });
  return ok(r, undefined);
}

export async function clearBucket(
  client: BaseClient,
  id: string,
  o?: StorageCallOptions,
): Promise<ServiceResult<void>> {
  o ??= {};
  const r = await requestAfterRestore(client, {
    method: "POST",
    area: "storage",
    path: `/bucket/${encodeBucket(id)}/empty`,
    json: {},
    ...noBody,
    signal: o.signal,
    timeout: o.timeout,
  });
  return ok(r, undefined);
}

// Uploads

export function uploadHeaders(o: UploadOptions, upsertHeader: boolean): Record<string, string> {
  const metadata = checkUploadOptions(o);
  const headers: Record<string, string> = {};
  if (upsertHeader) headers["x-upsert"] = String(o.upsert ?? false);
  if (o.cacheControl != null) headers["cache-control"] = `max-age=${o.cacheControl}`;
  if (metadata !== null) headers["x-metadata"] = encodeBase64(metadata);
  return headers;
}

function contentTypeOf(data: UploadData, o: UploadOptions): string {
  return o.contentType || blobType(data) || "application/octet-stream";
}

/**
 * The body an upload sends: the data as fetch takes it, or a Failure for what fetch would not send
 * as bytes. Fetch sends a plain object as the text "[object Object]" and no data as an empty
 * object, both stored without a word; Firefox sends a ReadableStream as the text
 * "[object ReadableStream]" (`sendsStreamBodies`). Values of another realm are taken: bytes as they
 * are (fetch takes them), a stream through a pipe of this realm (the transport knows only its own
 * realm's streams for what they are), and a Blob that fetch may not take (`isBlobToRead`) read
 * first, bounded by the call's `timeout` and `signal` (the request then has its own `timeout`).
 */
async function uploadBody(
  data: unknown,
  o: UploadOptions,
  failed: (error: unknown) => void,
  abort: () => void,
): Promise<ServiceResult<RequestBody>> {
  if (isBlobToRead(data)) return await readBlob(data, o);
  // A Node stream (a file's, an HTTP request's body) or an async generator of bytes: a stream.
  if (isAsyncIterable(data)) data = iterableStream(data);
  if (isReadableStream(data)) {
    if (!sendsStreamBodies()) {
      // Firefox would send, and the server store, the text "[object ReadableStream]".
      return failure({
        message:
          "Cannot upload as 'data' must be bytes, a Blob or a string in this runtime, which sends a ReadableStream request body as the text \"[object ReadableStream]\" (Firefox; a resumable upload reads a stream in chunks): current value is a ReadableStream",
        category: "INVALID_ARGUMENT",
      });
    }
    let body: ReadableStream;
    try {
      // The Response refuses a locked or used stream, as fetch would (and gives a stream of this
      // realm's for another realm's).
      body = new Response(data).body!;
    } catch (error) {
      return failure({
        message: "Cannot upload as the ReadableStream 'data' is locked or was read",
        category: "INVALID_ARGUMENT",
        cause: error,
      });
    }
    try {
      return success(guardedStream(body, failed, abort));
    } catch {
      return success(body); // workerd before 2022-11-30 makes no stream of JavaScript: as it is
    }
  }
  if (ArrayBuffer.isView(data)) return success(unshared(data) as RequestBody);
  if (typeof data === "string" || isArrayBuffer(data) || isAnyBlob(data)) {
    return success(data as RequestBody);
  }
  return failure({
    message:
      `Cannot upload as 'data' must be bytes, a Blob, a ReadableStream, an async iterable of bytes or a string: current value is ${
        showValue(data)
      }`,
    category: "INVALID_ARGUMENT",
  });
}

/** A Blob's bytes, read within the call's `timeout` (none when absent or 0) and `signal`. */
function readBlob(blob: Blob, o: UploadOptions): Promise<ServiceResult<RequestBody>> {
  return untilCancelled(
    async () => {
      let bytes: Uint8Array | null = null;
      let cause: unknown;
      try {
        bytes = localBytes(await blob.arrayBuffer());
      } catch (error) {
        cause = error;
      }
      if (bytes !== null && (typeof blob.size !== "number" || bytes.length === blob.size)) {
        return success(bytes);
      }
      return failure({
        message: bytes === null
          ? "Cannot upload as reading the Blob 'data' failed"
          : `Cannot upload as the Blob 'data' gave ${bytes.length} bytes where its size is ${blob.size}`,
        category: "INVALID_ARGUMENT",
        cause,
      });
    },
    o.signal,
    o.timeout,
  );
}

export async function uploadObject(
  client: BaseClient,
  method: "POST" | "PUT",
  bucket: string,
  path: string,
  data: UploadData,
  o?: UploadOptions,
): Promise<ServiceResult<string>> {
  o ??= {};
  const encoded = objectPathOrFailure(bucket, path);
  if (typeof encoded !== "string") return encoded;
  // The Storage API's router takes its own routes first (seen on the server): a POST of
  // `sign/...`, `list/<one segment>`, `list-v2/<one segment>` or `upload/sign/<bucket>/<key>`
  // signs, lists or makes a signed upload URL, and a PUT of `upload/sign/<bucket>/<key>` is a
  // signed upload, so such an upload never reached the upload route (and failed as something
  // else). Other keys of those buckets, and updates into `sign` or `list`, reach it.
  if (
    /^upload\/sign\/[^/]+\//.test(encoded) ||
    method === "POST" && /^sign\/|^list(-v2)?\/[^/]*$/.test(encoded)
  ) {
    return failure({
      message: `Cannot upload into bucket ${
        showValue(bucket)
      } with this key as the Storage API routes its path to another operation: use createSignedUploadUrl and uploadToSignedUrl, or a resumable upload`,
      category: "INVALID_ARGUMENT",
    });
  }
  // A stream is cut by the transport if the call fails (an early 413 or 401), cancelling it.
  return await sendUpload(client, data, o, {
    method,
    area: "storage",
    path: `/object/${encoded}`,
    // The options are checked before the data is touched: a refused call leaves a stream unread.
    headers: uploadHeaders(o, method === "POST" || o.upsert === true),
  });
}

export async function uploadToSignedUrlOp(
  client: BaseClient,
  bucket: string,
  path: string,
  token: string,
  data: UploadData,
  o?: UploadOptions,
): Promise<ServiceResult<string>> {
  o ??= {};
  const encoded = objectPathOrFailure(bucket, path);
  if (typeof encoded !== "string") return encoded;
  if (typeof token !== "string" || token.trim() === "") {
    return failure({ message: "Cannot upload as 'token' is blank", category: "INVALID_ARGUMENT" });
  }
  return await sendUpload(client, data, o, {
    method: "PUT",
    area: "storage",
    path: `/object/upload/sign/${encoded}`,
    query: [["token", token]],
    // A token that is no JWT is not redacted by its shape: a network error's cause shows the URL,
    // where the token is percent-encoded.
    secrets: [token, encodeQueryComponent(token)],
    headers: uploadHeaders(o, true), // before the data is touched
  });
}

/**
 * A plain upload's timeout when the call gives none: the client's plus one second per 16 KiB of
 * a body of known length (room for links down to about 128 kbit/s; a string counts three bytes a
 * character, the most UTF-8 takes), so a server that takes the body and never answers does not
 * hold the call forever. A stream's length has no bound: none, as with the client's 0.
 */
function uploadTimeout(base: number, body: RequestBody): number {
  const size = typeof body === "string"
    ? body.length * 3
    : ArrayBuffer.isView(body) || isArrayBuffer(body)
    ? body.byteLength
    : isAnyBlob(body)
    ? body.size
    : NaN;
  return base > 0 && size >= 0 ? base + Math.ceil(size / 16.384) : 0;
}

/**
 * Sends an upload's data and reads the object's key from the answer. A stream body through a
 * `fetch` given to the client is watched (`requestWatched`): one it would send, or sent, as its
 * text is a Failure naming that, not a Success. Data that fails while it is sent (a Node stream of
 * a missing file, a file Blob whose file changed) is `INVALID_ARGUMENT` with its reason: fetch
 * reports it as a network error ("fetch failed", the reason only in its `cause`). A stream goes
 * through `guardedStream`, which tells its source's failure; a Blob is read one byte to tell.
 */
async function sendUpload(
  client: BaseClient,
  data: UploadData,
  o: UploadOptions,
  req: TransportRequest,
): Promise<ServiceResult<string>> {
  let failed = undefined as RangeError | undefined;
  // The request's own signal, which the caller's aborts too, for a stream whose source failed.
  const stop = new AbortController();
  const signal = o.signal;
  const forward = () => stop.abort(signal!.reason);
  if (signal?.aborted) forward();
  else signal?.addEventListener("abort", forward, { once: true });
  try {
    const body = await uploadBody(data, o, (e) => failed = dataFailed(e), () => stop.abort());
    if (!body.ok) return body;
    const r = await requestWatched(client, {
      ...req,
      body: body.value,
      contentType: contentTypeOf(data, o),
      signal: stop.signal,
      timeout: o.timeout ?? uploadTimeout(client.timeout, body.value),
    });
    if (!failed && !r.ok && r.error.category === "NETWORK") {
      await checkReadable(data).catch((e: RangeError) => failed = e);
    }
    if (failed) {
      return failure({
        message: failed.message,
        category: "INVALID_ARGUMENT",
        cause: failed.cause ?? failed,
      });
    }
    return decodeResult(r, (v) => reqString(asObject(v.body, "upload answer"), "Key"));
  } finally {
    signal?.removeEventListener("abort", forward);
  }
}

// Downloads

/** Options of downloads. */
export interface DownloadOptions extends StorageCallOptions {
  /** Ask for an attachment (`download` query). Default false. */
  download?: boolean | undefined;
  /** Attachment file name (implies `download`). */
  fileName?: string | null | undefined;
  /** Serve through the image render endpoint with these transforms. */
  transform?: ImageTransformOptions | null | undefined;
  /**
   * Byte range (inclusive `end`); the server answers 206. Beyond the document. With a `transform`
   * only `{ start: 0 }` is taken (the renderer answers the whole image): any other range is
   * `INVALID_ARGUMENT`.
   */
  range?: { start: number; end?: number | null | undefined } | null | undefined;
}

/** A streamed download (beyond the document). */
export interface DownloadStream {
  /** The body; pipe it, do not buffer it. */
  stream: ReadableStream<Uint8Array>;
  /** 200, or 206 for a range. */
  status: number;
  /** Content type, when sent. */
  contentType: string | null;
  /**
   * The stream's length in bytes, from `Content-Length`; null when not sent,
   * or when the answer has a `Content-Encoding` (the runtime decodes it, and
   * the header counts the encoded bytes). A browser page on another origin
   * sees `Content-Length` always but `Content-Encoding` only when the server
   * exposes it, which the Storage API does not (it sends no encoding either).
   */
  contentLength: number | null;
  /**
   * `Content-Range`, for ranges; null when not sent, or hidden: a browser
   * page on another origin sees it only when the server lists it in
   * `Access-Control-Expose-Headers`, which the Storage API (behind
   * Supabase's gateway) does not. `status` 206 still tells a range.
   */
  contentRange: string | null;
  /** Entity tag, when sent; null when hidden from a page on another origin, as `contentRange`. */
  etag: string | null;
}

/** Whether a transform sets anything: `{}` (or only nulls) is no transform. */
export function hasTransform(t: ImageTransformOptions | null | undefined): boolean {
  return !!t && Object.values(t).some((v) => v !== null && v !== undefined);
}

export function downloadQuery(o: DownloadOptions): Array<[string, string]> {
  const q: Array<[string, string]> = [];
  if (o.transform) q.push(...transformQuery(o.transform));
  if (o.fileName) q.push(["download", o.fileName]);
  else if (o.download) q.push(["download", ""]);
  return q;
}

export function rangeHeader(range: DownloadOptions["range"]): Record<string, string> {
  if (!range) return {};
  const { start, end } = range;
  if (
    !Number.isSafeInteger(start) || start < 0 ||
    (end !== undefined && end !== null && (!Number.isSafeInteger(end) || end < start))
  ) {
    throw new RangeError(
      `Cannot download the range as it must satisfy 0 <= start <= end: current values are start=${start}, end=${end}`,
    );
  }
  return { range: `bytes=${start}-${end ?? ""}` };
}

/**
 * The length of a streamed answer's body, from its `Content-Length`, or null when unknown: that
 * header is missing or not a number, or counts the bytes of a `Content-Encoding` (other than
 * `identity`) before the runtime decodes them, so that the stream is longer.
 */
export function streamLength(headers: Headers): number | null {
  const coding = headers.get("content-encoding")?.trim().toLowerCase();
  const length = coding && coding !== "identity" ? null : headers.get("content-length");
  return length !== null && /^\d+$/.test(length) ? Number(length) : null;
}

/**
 * Whether a whole-object answer is the range asked for (RFC 9110 lets a server ignore `Range`):
 * one from byte 0 whose length is within its end.
 */
function wholeRange(
  range: { start: number; end?: number | null | undefined },
  answer: { headers: Headers; body: unknown },
): boolean {
  if (range.start !== 0) return false;
  if (range.end == null) return true;
  const length = answer.body instanceof Uint8Array
    ? answer.body.length
    : streamLength(answer.headers);
  return length !== null && length <= range.end + 1;
}

/** Clients whose fetch answered a download with no `body`: read whole from then on. */
const bodiless = new WeakSet<BaseClient>();

let hasBody: boolean | undefined;
/**
 * Whether this runtime's answers have a body stream, asked once: on its Response's prototype, or
 * on a Response itself (workerd before its 2022-01-31 compatibility date keeps `body` there).
 * React Native's `whatwg-fetch` has neither.
 */
function responsesHaveBody(): boolean {
  return hasBody ??= typeof ReadableStream === "function" && typeof Response === "function" &&
    ("body" in Response.prototype || "body" in new Response(null));
}

export async function downloadRaw<R extends "text" | "bytes" | "stream">(
  client: BaseClient,
  visibility: "authenticated" | "public",
  bucket: string,
  path: string,
  o: DownloadOptions,
  responseType: R,
) {
  const encoded = objectPathOrFailure(bucket, path);
  if (typeof encoded !== "string") return encoded;
  const render = hasTransform(o.transform);
  const range = o.range;
  // The Storage API's image renderer ignores Range: a range other than the whole image (`0-`)
  // would fetch all of it only to fail.
  if (render && range && (range.start !== 0 || range.end != null)) {
    return failure({
      message:
        "Cannot download a range of a transformed image as the Storage API's renderer answers the whole image",
      category: "INVALID_ARGUMENT",
    });
  }
  const family = render ? `/render/image/${visibility}` : `/object/${visibility}`;
  // Without a timeout of its own, a download read whole is held to the client's as a limit on
  // waits, not on its length: its answer must start within it (the transport's timeout, which
  // ends when a streamed answer's headers come) and no pause in its body may last longer. A
  // `downloadStream` gets the first only: its body is read at the caller's pace.
  // Where answers have no body stream (React Native's `whatwg-fetch`, whose Response has no
  // `body`), the body is read whole as before, and a download without its own timeout has none.
  const idle = o.timeout === undefined && responseType !== "stream" && responsesHaveBody() &&
      !bodiless.has(client)
    ? client.timeout
    : 0;
  // `again`: a body that failed is asked for again here, each time once (the transport's own
  // retries would multiply the attempts).
  const request = (again = false) =>
    requestAfterRestore(client, {
      area: "storage",
      path: `${family}/${encoded}`,
      query: downloadQuery(o),
      headers: rangeHeader(range),
      credentials: visibility === "public" ? "none" : "token",
      // The renderer's rate limit renews its 4 s block at every request made while blocked, and
      // answers no Retry-After: a retry within it only prolongs the 429.
      retry: !render && !again,
      // Text is read as bytes and decoded at the end, as `Response.text()` would (UTF-8, a BOM
      // dropped): workerd logs a console warning for every `text()` of a body whose type is not
      // text, as an object's is when stored with the default type (a string uploaded without one).
      responseType: (idle > 0 ? "stream" : responseType === "text" ? "bytes" : responseType) as R,
      signal: o.signal,
      // A stream's headers, or a whole body read in the transport: the call's timeout, else the
      // client's for a stream and none for a whole body (its length has no bound).
      timeout: o.timeout ?? (idle > 0 || responseType === "stream" ? undefined : 0),
    }, freshReads(client)).then((r) => {
      // A fetch that answers with a Node stream (node-fetch, cross-fetch): a web stream of it.
      if (r.ok && isAsyncIterable(r.value.body)) {
        (r.value as { body: unknown }).body = iterableStream(r.value.body);
      }
      return r;
    });
  let r = await request();
  // A body read here fails after the transport's call has settled: a network failure in it is
  // retried here, as the transport retries one of a body it reads (not a render's: see above).
  for (let attempt = 1; r.ok && idle > 0; attempt++) {
    const stream = r.value.body as ReadableStream<Uint8Array> | null | undefined;
    // A fetch whose answers have no `body` though the runtime's Response has one (the
    // `whatwg-fetch` polyfill given as the client's fetch): asked again, read whole as before,
    // and so from now on for this client.
    if (stream === undefined) {
      bodiless.add(client);
      return downloadRaw(client, visibility, bucket, path, o, responseType);
    }
    // A range the server ignored, or answered with other bytes, is refused below, its body
    // cancelled, not read first (a whole object where ten bytes were asked), when its headers
    // say so: a whole answer to a range not from 0, or longer than the range by its length.
    if (
      range &&
      (r.value.status === 206 ? !rangeAnswered(range, r.value.headers) : range.start !== 0 ||
        (range.end != null && (streamLength(r.value.headers) ?? 0) > range.end + 1))
    ) {
      break;
    }
    const bytes = stream
      ? await readIdle(stream, idle, o.signal, streamLength(r.value.headers))
      : success(new Uint8Array(0));
    if (bytes.ok) {
      r = success({ ...r.value, body: bytes.value as never });
      break;
    }
    if (
      bytes.error.category !== "NETWORK" || render || attempt >= client.retry.maxAttempts ||
      !(await sleep(backoffDelay(attempt, client.retry), o.signal))
    ) {
      return o.signal?.aborted ? cancelled(o.signal.reason) : bytes;
    }
    r = await request(true);
  }
  // An empty object has no byte to serve, and the Storage API answers any Range of it 416 (its
  // `range.ts`): a range from 0 asked for the object from its start, which is all of it, so the
  // empty bytes a download without a range gives.
  const empty = !r.ok && range?.start === 0 && r.error.status === 416;
  if (empty) {
    r = success({
      status: 200,
      headers: new Headers(),
      body: (responseType === "stream"
        ? new ReadableStream({
          start: (c) => c.close(),
        })
        : new Uint8Array(0)) as never,
    });
  }
  if (r.ok && range && !empty) {
    const { status, headers, body } = r.value;
    // A range answered with the whole object (a server or proxy that ignores Range: the Storage
    // API's image renderer does) is not the bytes asked for, unless they are the same (`0-`).
    // A 206 of other bytes than asked (a proxy or cache answering another range) is not them.
    // Without the header (a browser hides it from another origin) it is taken as it comes.
    const whole = status !== 206;
    if (whole ? !wholeRange(range, r.value) : !rangeAnswered(range, headers)) {
      if (isReadableStream(body)) body.cancel().catch(() => {});
      return failure({
        message: `Cannot download the range as the server answered ${
          whole
            ? `the whole object (status ${status}): it ignores Range here`
            : `another one (${headers.get("content-range")})`
        }`,
        category: "DECODE",
        status,
      });
    }
  }
  if (r.ok && responseType === "text") {
    // Bytes that are no UTF-8 text (an image, say) would come back with U+FFFD in place of each
    // bad sequence: data lost without a word. A range may cut a character at either end: the
    // pieces of one it starts inside are dropped, and one it ends inside is held back (`stream`).
    let bytes = r.value.body as Uint8Array;
    const part = range != null && r.value.status === 206;
    if (part && range.start > 0) {
      let i = 0;
      while (i < 3 && (bytes[i] & 0xc0) === 0x80) i++;
      bytes = bytes.subarray(i);
    }
    try {
      (r.value as { body: unknown }).body = new TextDecoder("utf-8", { fatal: true }).decode(
        bytes,
        { stream: part },
      );
    } catch {
      return failure({
        message: `Cannot read the object as text as it is not UTF-8: use ${
          visibility === "public" ? "downloadPublicBytes" : "downloadBytes"
        } (or downloadStream) for binary data`,
        category: "DECODE",
        status: r.value.status,
      });
    }
  }
  return r;
}

/**
 * Whether a 206's `Content-Range` (`bytes first-last/size`) is the range asked for: the same
 * first byte, and the last asked for, or the object's last when it ends before (any, for an
 * open range of unknown size); true without the header.
 */
function rangeAnswered(
  range: { start: number; end?: number | null | undefined },
  headers: Headers,
): boolean {
  const value = headers.get("content-range");
  if (value === null) return true;
  const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(value.trim());
  if (!m) return false;
  const size = m[3] === "*" ? Infinity : +m[3];
  const asked = Math.min(range.end ?? Infinity, size - 1); // Infinity: open, of unknown size
  return +m[1] === range.start && (asked === Infinity || +m[2] === asked);
}

// Info and listing

export async function infoOp(
  client: BaseClient,
  visibility: "authenticated" | "public",
  bucket: string,
  path: string,
  o?: StorageCallOptions,
): Promise<ServiceResult<FileObject>> {
  o ??= {};
  const encoded = objectPathOrFailure(bucket, path);
  if (typeof encoded !== "string") return encoded;
  // Revalidated, as downloads are: the server sends the info answer with the object's own
  // `Cache-Control`, so a browser would keep it (the old size after an update, a deleted object
  // still there) for as long as the object's `max-age` runs.
  const r = await requestAfterRestore(client, {
    area: "storage",
    // The authenticated route answers a bad token with 403; the plain one would treat it as
    // anonymous and report an existing private object as missing.
    path: `/object/info/${visibility}/${encoded}`,
    credentials: visibility === "public" ? "none" : "token",
    signal: o.signal,
    timeout: o.timeout,
  }, freshReads(client));
  // An info answer's `metadata` is the user's own: no field is taken from it, and the update
  // time is `last_modified`.
  return decodeResult(r, (v) => {
    const body = asObject(v.body, "file object");
    return {
      ...decodeFileObject({ ...body, metadata: null }),
      metadata: optObject(body, "metadata"),
    };
  });
}

export function isMissing(r: ServiceResult<unknown>): boolean {
  // The document: a 404 (the Storage API's 400 with statusCode "404" has status 404 by then) that
  // says the object is missing, or says nothing; a missing bucket (NoSuchBucket) or route
  // (InvalidRequest: a wrong URL) is no answer about the object, as storage-js now reads them,
  // and a 410 or another NOT_FOUND status stays a failure.
  if (r.ok) return false;
  const { status, code } = r.error;
  return code === "NoSuchKey" || code === "not_found" || status === 404 && code === null;
}

/** Options of {@linkcode list}. */
export interface ListOptions extends StorageCallOptions {
  /** Folder prefix. Default the bucket root. */
  prefix?: string | undefined;
  /** Page size. Default 100. */
  limit?: number | undefined;
  /** Entries to skip. Default 0. */
  offset?: number | undefined;
  /** Sort column. */
  sortBy?: string | null | undefined;
  /** Sort direction when sortBy is set. Default ASC. */
  sortOrder?: SortOrder | undefined;
  /**
   * Case-insensitive filter on the start of the names in the folder (the Storage API matches
   * `prefix` then `search` from the start of each name).
   */
  search?: string | null | undefined;
}

export async function listOp(
  client: BaseClient,
  bucket: string,
  o?: ListOptions,
): Promise<ServiceResult<FileObject[]>> {
  o ??= {};
  // storage-js takes the prefix as a string here: refused, not read as no options (the root).
  if (typeof o !== "object") {
    throw new TypeError(
      `Cannot list as 'options' must be an object such as { prefix }: current value is ${
        showValue(o)
      }`,
    );
  }
  const limit = o.limit ?? 100;
  const offset = o.offset ?? 0;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(
      `Cannot list as 'limit' must be a positive integer: current value is ${showValue(limit)}`,
    );
  }
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new RangeError(
      `Cannot list as 'offset' must be a non-negative integer: current value is ${
        showValue(offset)
      }`,
    );
  }
  checkSort("list", o.sortBy, o.sortOrder);
  checkPrefix(o.prefix);
  const r = await requestAfterRestore(client, {
    method: "POST",
    area: "storage",
    path: `/object/list/${encodeBucket(bucket)}`,
    json: dropNulls({
      prefix: (o.prefix ?? "").replace(/^\/+/, ""),
      limit,
      offset,
      // The order applies to a given sort column; without one the server default (name, asc).
      sortBy: o.sortBy
        ? { column: o.sortBy, order: o.sortOrder ?? SortOrder.ASC }
        : { column: "name", order: SortOrder.ASC },
      search: o.search,
    }),
    retry: true,
    signal: o.signal,
    timeout: o.timeout,
  });
  return decodeResult(r, (v) => asArray(v.body, "listing").map(decodeFileObject));
}

/** Options of {@linkcode listV2}. */
export interface ListV2Options extends StorageCallOptions {
  /** Key prefix; null lists the root. */
  prefix?: string | null | undefined;
  /** Cursor from the previous page's `nextCursor`. */
  cursor?: string | null | undefined;
  /** Page size. */
  limit?: number | null | undefined;
  /** Collapse nested keys into folders. */
  withDelimiter?: boolean | null | undefined;
  /** Sort column. */
  sortBy?: string | null | undefined;
  /** Sort direction when sortBy is set. Default ASC. */
  sortOrder?: SortOrder | undefined;
}

export async function listV2Op(
  client: BaseClient,
  bucket: string,
  o?: ListV2Options,
): Promise<ServiceResult<ObjectListV2Response>> {
  o ??= {};
  checkPaging("list", o.limit, null);
  checkSort("list", o.sortBy, o.sortOrder);
  checkPrefix(o.prefix);
  const r = await requestAfterRestore(client, {
    method: "POST",
    area: "storage",
    path: `/object/list-v2/${encodeBucket(bucket)}`,
    json: dropNulls({
      // As `list`: the server matches the prefix literally, and no key starts with `/`.
      prefix: o.prefix?.replace(/^\/+/, ""),
      cursor: o.cursor,
      limit: o.limit,
      with_delimiter: o.withDelimiter,
      sortBy: o.sortBy ? { column: o.sortBy, order: o.sortOrder ?? SortOrder.ASC } : null,
    }),
    retry: true,
    signal: o.signal,
    timeout: o.timeout,
  });
  return decodeResult(r, (v) => decodeObjectListV2(v.body));
}

// Move, copy, delete

function checkKey(bucket: string, path: string): string | ServiceResult<never> {
  const e = objectPathOrFailure(bucket, path);
  return typeof e === "string" ? path.replace(/^\/+/, "") : e;
}

/**
 * A key that travels in a JSON body (delete, move, copy), not in a URL: any
 * non-empty key the server may hold, `trail/` or `a//b` included (the URL
 * rules would refuse them, and such objects could not be removed).
 */
function bodyKey(bucket: string, path: string): string | ServiceResult<never> {
  encodeBucket(bucket);
  const key = typeof path === "string" ? path.replace(/^\/+/, "") : "";
  if (key === "") {
    return failure({
      message: "Cannot use the object path as it must be a non-empty string",
      category: "INVALID_ARGUMENT",
    });
  }
  return key;
}

function checkKeys(
  bucket: string,
  paths: readonly string[],
  check: (bucket: string, path: string) => string | ServiceResult<never> = checkKey,
): string[] | ServiceResult<never> {
  if (!Array.isArray(paths)) {
    return failure({
      message: `Cannot use the paths as they must be a list of object keys: current value is ${
        showValue(paths)
      }`,
      category: "INVALID_ARGUMENT",
    });
  }
  const keys: string[] = [];
  for (const p of paths) {
    const k = check(bucket, p);
    if (typeof k !== "string") return k;
    keys.push(k);
  }
  return keys;
}

export async function moveOrCopy(
  client: BaseClient,
  op: "move" | "copy",
  bucket: string,
  fromPath: string,
  toPath: string,
  o: StorageCallOptions & {
    destinationBucket?: string | null | undefined;
    copyMetadata?: boolean | null | undefined;
    upsert?: boolean | null | undefined;
  },
): Promise<ServiceResult<void>> {
  encodeBucket(bucket);
  if (o.destinationBucket) encodeBucket(o.destinationBucket);
  if (op === "copy" && o.upsert != null && typeof o.upsert !== "boolean") {
    throw new TypeError(
      `Cannot copy as 'upsert' must be a boolean: current value is ${showValue(o.upsert)}`,
    );
  }
  const from = bodyKey(bucket, fromPath);
  if (typeof from !== "string") return from;
  const to = bodyKey(o.destinationBucket ?? bucket, toPath);
  if (typeof to !== "string") return to;
  const r = await requestAfterRestore(client, {
    method: "POST",
    area: "storage",
    path: `/object/${op}`,
    json: dropNulls({
      bucketId: bucket,
      sourceKey: from,
      destinationKey: to,
      destinationBucket: o.destinationBucket,
      copyMetadata: op === "copy" ? o.copyMetadata : null,
    }),
    // The Storage API's copy reads `x-upsert` (its move does not).
    headers: op === "copy" && o.upsert === true ? { "x-upsert": "true" } : {},
    ...noBody,
    signal: o.signal,
    timeout: o.timeout,
  });
  return ok(r, undefined);
}

export async function deleteObjectsOp(
  client: BaseClient,
  bucket: string,
  one: string | readonly string[],
  o?: StorageCallOptions,
): Promise<ServiceResult<FileObject[]>> {
  o ??= {};
  const paths = pathList(one);
  if (paths.length === 0) {
    return failure({
      message: "Cannot delete objects as 'paths' is empty",
      category: "INVALID_ARGUMENT",
    });
  }
  const keys = checkKeys(bucket, paths, bodyKey);
  if (!Array.isArray(keys)) return keys;
  const r = await requestAfterRestore(client, {
    method: "DELETE",
    area: "storage",
    path: `/object/${encodeBucket(bucket)}`,
    json: { prefixes: keys },
    signal: o.signal,
    timeout: o.timeout,
  });
  return decodeResult(r, (v) => asArray(v.body ?? [], "deleted").map(decodeFileObject));
}

// Signing

/** Options of signed download URLs. */
export interface SignedUrlOptions extends StorageCallOptions {
  /** Ask for an attachment. Default false. */
  download?: boolean | undefined;
  /** Attachment file name (implies `download`). */
  fileName?: string | null | undefined;
  /** Image transforms (single-path signing only). */
  transform?: ImageTransformOptions | null | undefined;
}

/** Refuses an expiry that is not a positive whole number of seconds (RangeError). */
export function checkExpires(expiresIn: number): void {
  if (!Number.isSafeInteger(expiresIn) || expiresIn <= 0) {
    throw new RangeError(
      `Cannot sign as 'expiresIn' must be a positive integer of seconds: current value is ${
        showValue(expiresIn)
      }`,
    );
  }
}

/**
 * The absolute signed URL. The server answers its route with the key as it
 * was signed but not URL-encoded (`/object/sign/b/a b?.txt?token=...`), so
 * the key part is rebuilt from `encoded` (`bucket/key` as sent) and only the
 * route and the query from `?token=` are taken from the answer.
 */
export function absoluteSigned(
  client: BaseClient,
  signedURL: string,
  o: { download?: boolean | undefined; fileName?: string | null | undefined },
  encoded?: string,
): string {
  let rel = signedURL.startsWith("/") ? signedURL : `/${signedURL}`;
  const sign = rel.indexOf("/sign/");
  const query = rel.lastIndexOf("?token=");
  if (encoded !== undefined && sign >= 0 && query > sign) {
    rel = `${rel.slice(0, sign + 6)}${encoded}${rel.slice(query)}`;
  }
  let url = `${client.url}/storage/v1${rel}`;
  if (o.fileName) {
    url += `${url.includes("?") ? "&" : "?"}download=${encodeComponent(o.fileName)}`;
  } else if (o.download) url += `${url.includes("?") ? "&" : "?"}download=`;
  return url;
}

export async function createSignedUrlOp(
  client: BaseClient,
  bucket: string,
  path: string,
  expiresIn: number,
  o?: SignedUrlOptions,
): Promise<ServiceResult<string>> {
  o ??= {};
  checkExpires(expiresIn);
  const encoded = objectPathOrFailure(bucket, path);
  if (typeof encoded !== "string") return encoded;
  // The single-path route signs its path as decodeURI leaves it, so `%3F` and `%23` (in the
  // key, or `?` in a bucket id) stay escaped in the token and the download check fails; the
  // batch route takes keys in JSON.
  const transformed = hasTransform(o.transform);
  if (/[?#]/.test(bucket + path)) {
    // The batch route takes no transform, so no route signs such a key with one.
    if (transformed) {
      return failure({
        message:
          "Cannot sign a transformed URL as the storage service cannot verify one for a key or bucket holding '?' or '#'",
        category: "INVALID_ARGUMENT",
      });
    }
    const r = await createSignedUrlsOp(client, bucket, [path], expiresIn, o);
    return r.ok ? success(r.value[0]) : r;
  }
  if (o.transform) transformQuery(o.transform); // the same checks as render URLs
  // A file name that cannot be encoded fails before anything is signed.
  if (o.fileName) encodeComponent(o.fileName);
  const r = await requestAfterRestore(client, {
    method: "POST",
    area: "storage",
    path: `/object/sign/${encoded}`,
    json: transformed
      ? {
        expiresIn,
        transform: dropNulls(o.transform!),
      }
      : { expiresIn },
    signal: o.signal,
    timeout: o.timeout,
  });
  return decodeResult(
    r,
    (v) =>
      absoluteSigned(client, reqString(asObject(v.body, "signature"), "signedURL"), o, encoded),
  );
}

export async function createSignedUrlsOp(
  client: BaseClient,
  bucket: string,
  paths: readonly string[],
  expiresIn: number,
  o?: Omit<SignedUrlOptions, "transform">,
): Promise<ServiceResult<string[]>> {
  o ??= {};
  // Typed out, but from JavaScript a transform went unsigned without a word.
  if (hasTransform((o as SignedUrlOptions).transform)) {
    throw new TypeError(
      "Cannot sign the URLs with a transform as the batch route takes none: use createSignedRenderUrls",
    );
  }
  checkExpires(expiresIn);
  const keys = checkKeys(bucket, paths);
  if (!Array.isArray(keys)) return keys;
  if (o.fileName) encodeComponent(o.fileName); // fails before anything is signed
  const bucketPath = encodeBucket(bucket); // checked even when there is nothing to sign
  // Nothing to sign is no request (the server refuses an empty list), as for render URLs.
  if (keys.length === 0) return success([]);
  const r = await requestAfterRestore(client, {
    method: "POST",
    area: "storage",
    path: `/object/sign/${bucketPath}`,
    json: { expiresIn, paths: keys },
    signal: o.signal,
    timeout: o.timeout,
  });
  if (!r.ok) return r;
  const decoded = decodeResult(r, (v) =>
    asArray(v.body, "signatures").map((item) => {
      const x = asObject(item, "signature");
      const text = (v: unknown) => typeof v === "string" ? v : null;
      return { path: text(x.path), url: text(x.signedURL), error: text(x.error) };
    }));
  if (!decoded.ok) return decoded;
  const byPath = new Map(decoded.value.map((d) => [d.path, d]));
  const out: string[] = [];
  for (let i = 0; i < keys.length; i++) {
    const d = byPath.get(keys[i]) ?? decoded.value[i];
    if (!d || !d.url) {
      return failure({
        // The server's words, with the client's key and token redacted (and anything shaped like
        // a JWT), as in an error answer's message.
        message: `Cannot sign ${showValue(keys[i])}: ${
          d?.error ? redactSecrets(d.error, [client.apiKey, client.accessToken]) : "no URL returned"
        }`,
        category: "NOT_FOUND",
      });
    }
    out.push(absoluteSigned(client, d.url, o, encodeObjectPath(bucket, keys[i])));
  }
  return success(out);
}

export async function createSignedUploadUrlOp(
  client: BaseClient,
  bucket: string,
  path: string,
  o?: StorageCallOptions & { upsert?: boolean | undefined },
): Promise<ServiceResult<UploadSignedUrl>> {
  o ??= {};
  const encoded = objectPathOrFailure(bucket, path);
  if (typeof encoded !== "string") return encoded;
  const r = await requestAfterRestore(client, {
    method: "POST",
    area: "storage",
    path: `/object/upload/sign/${encoded}`,
    json: {},
    headers: o.upsert ? { "x-upsert": "true" } : {},
    signal: o.signal,
    timeout: o.timeout,
  });
  return decodeResult(r, (v) => {
    const body = asObject(v.body, "upload signature");
    const rel = reqString(body, "url");
    // The answer's url holds the key unencoded (a '?' in it would end the path): take the
    // token from the body, else from the last `?token=`, and build the URL from the key as sent.
    const at = rel.lastIndexOf("?token=");
    const token = typeof body.token === "string" && body.token !== ""
      ? body.token
      : at >= 0
      ? decodeURIComponent(rel.slice(at + 7).split("&")[0])
      : "";
    if (!token) throw new Error("the answer carries no token");
    return {
      url: `${client.url}/storage/v1/object/upload/sign/${encoded}?token=${encodeComponent(token)}`,
      token,
      path: path.replace(/^\/+/, ""),
    };
  });
}
