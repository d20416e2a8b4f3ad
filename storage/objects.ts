/**
 * Object operations as standalone functions over a base client: uploads,
 * downloads, info, listing, move, copy, delete, signed and local URLs.
 * `StorageClient` forwards to these; importing them directly lets a
 * bundler keep only what an edge function calls (no bucket, analytics or
 * vector code).
 *
 * @example Upload and sign without the storage client
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createSignedUrl, upload } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * await upload(client, "docs", "a.txt", "hello", { contentType: "text/plain" });
 * const url = await createSignedUrl(client, "docs", "a.txt", 60);
 * ```
 *
 * @module
 */

import type { BaseClient } from "../core/client.ts";
import { failure, type ServiceResult, success } from "../core/result.ts";
import { guard } from "./_guard.ts";
import * as ops from "./_ops.ts";
import type {
  DownloadOptions,
  DownloadStream,
  ListOptions,
  ListV2Options,
  SignedUrlOptions,
  StorageCallOptions,
  UploadData,
  UploadOptions,
} from "./_ops.ts";
import { encodeObjectPath } from "./_path.ts";
import { withQuery } from "./_urls.ts";
import type {
  FileObject,
  ImageTransformOptions,
  ObjectListV2Response,
  UploadSignedUrl,
} from "./models.ts";
import { showValue } from "../core/_show.ts";

export type {
  DownloadOptions,
  DownloadStream,
  ListOptions,
  ListV2Options,
  SignedUrlOptions,
  StorageCallOptions,
  UploadData,
  UploadOptions,
} from "./_ops.ts";

/** `Success(true)` for an object's info, `Success(false)` for the object's 404, else the failure. */
async function presence(
  p: Promise<ServiceResult<FileObject>>,
): Promise<ServiceResult<boolean>> {
  const r = await p;
  return r.ok ? success(true) : ops.isMissing(r) ? success(false) : r;
}

async function bodyOf<T>(p: Promise<ServiceResult<{ body: T }>>): Promise<ServiceResult<T>> {
  const r = await guard(p);
  return r.ok ? success(r.value.body) : r;
}

/** Options of the local public/authenticated URL builders. */
export interface UrlOptions {
  /** Image transforms: the URL targets the render endpoint. */
  transform?: ImageTransformOptions | null | undefined;
  /** Ask for an attachment. Default false. */
  download?: boolean | undefined;
  /** Attachment file name (implies `download`). */
  fileName?: string | null | undefined;
}

/** A local object or render URL; `render` picks the render endpoint even without transforms. */
function localUrl(
  client: BaseClient,
  visibility: "public" | "authenticated",
  bucket: string,
  path: string,
  o: UrlOptions,
  render: boolean = ops.hasTransform(o.transform),
): string {
  const family = render ? `render/image/${visibility}` : `object/${visibility}`;
  return withQuery(
    `${client.url}/storage/v1/${family}/${encodeObjectPath(bucket, path)}`,
    ops.downloadQuery(o),
  );
}

/**
 * Uploads an object (`POST /object/{bucket}/{path}`), streaming `Blob` and
 * `ReadableStream` bodies; 409 when it exists and `upsert` is false.
 *
 * @example Uploading bytes
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { upload } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const r = await upload(client, "docs", "a.txt", "hello", { contentType: "text/plain" });
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param data Bytes, ArrayBuffer, Blob, stream or text.
 * @param options Content type, upsert, cache control, metadata.
 * @returns The key the server reports (`bucket/path`).
 */
export function upload(
  client: BaseClient,
  bucket: string,
  path: string,
  data: UploadData,
  options?: UploadOptions,
): Promise<ServiceResult<string>> {
  return guard(ops.uploadObject(client, "POST", bucket, path, data, options));
}

/**
 * Replaces an object (`PUT /object/{bucket}/{path}`); the Storage API creates a missing one.
 *
 * @example Replacing an object
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { update } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * await update(client, "docs", "a.txt", "hello again");
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param data Bytes, ArrayBuffer, Blob, stream or text.
 * @param options Same as {@linkcode upload}.
 * @returns The key.
 */
export function update(
  client: BaseClient,
  bucket: string,
  path: string,
  data: UploadData,
  options?: UploadOptions,
): Promise<ServiceResult<string>> {
  return guard(ops.uploadObject(client, "PUT", bucket, path, data, options));
}

/**
 * Uploads to a signed upload URL with its token; no bearer token is needed.
 *
 * @example Uploading with a token
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { uploadToSignedUrl } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * await uploadToSignedUrl(client, "docs", "a.txt", "token-from-server", "hello");
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param token The token from {@linkcode createSignedUploadUrl}.
 * @param data Bytes, ArrayBuffer, Blob, stream or text.
 * @param options Content type, cache control, metadata.
 * @returns The key.
 */
export function uploadToSignedUrl(
  client: BaseClient,
  bucket: string,
  path: string,
  token: string,
  data: UploadData,
  options?: UploadOptions,
): Promise<ServiceResult<string>> {
  return guard(ops.uploadToSignedUrlOp(client, bucket, path, token, data, options));
}

/**
 * Downloads an object as text from the authenticated endpoint (the render
 * endpoint with `transform`). Bytes that are not UTF-8 are `Failure(DECODE)`:
 * read binary data with `downloadBytes`.
 *
 * @example Downloading text
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { download } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const r = await download(client, "docs", "a.txt");
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param options `transform`, `download`, `fileName`, `range`.
 * @returns The text.
 */
export async function download(
  client: BaseClient,
  bucket: string,
  path: string,
  options?: DownloadOptions,
): Promise<ServiceResult<string>> {
  options ??= {};
  return await bodyOf(ops.downloadRaw(client, "authenticated", bucket, path, options, "text"));
}

/**
 * Downloads an object as text from the public endpoint (no token). Bytes
 * that are not UTF-8 are `Failure(DECODE)`: read binary data with
 * `downloadPublicBytes`.
 *
 * @example Downloading public text
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { downloadPublic } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const r = await downloadPublic(client, "docs", "a.txt");
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param options `transform`, `download`, `fileName`, `range`.
 * @returns The text.
 */
export async function downloadPublic(
  client: BaseClient,
  bucket: string,
  path: string,
  options?: DownloadOptions,
): Promise<ServiceResult<string>> {
  options ??= {};
  return await bodyOf(ops.downloadRaw(client, "public", bucket, path, options, "text"));
}

/**
 * Downloads bytes from the authenticated endpoint (the render endpoint with
 * `transform`); an empty object gives empty bytes.
 *
 * @example Downloading bytes
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { downloadBytes } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const r = await downloadBytes(client, "docs", "a.txt");
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param options `transform`, `download`, `fileName`, `range`.
 * @returns The bytes.
 */
export async function downloadBytes(
  client: BaseClient,
  bucket: string,
  path: string,
  options?: DownloadOptions,
): Promise<ServiceResult<Uint8Array>> {
  options ??= {};
  return await bodyOf(ops.downloadRaw(client, "authenticated", bucket, path, options, "bytes"));
}

/**
 * Downloads bytes from the public endpoint (no token).
 *
 * @example Downloading public bytes
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { downloadPublicBytes } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const r = await downloadPublicBytes(client, "docs", "a.txt");
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param options `transform`, `download`, `fileName`, `range`.
 * @returns The bytes.
 */
export async function downloadPublicBytes(
  client: BaseClient,
  bucket: string,
  path: string,
  options?: DownloadOptions,
): Promise<ServiceResult<Uint8Array>> {
  options ??= {};
  return await bodyOf(ops.downloadRaw(client, "public", bucket, path, options, "bytes"));
}

/**
 * Streams an object without buffering it, e.g. into an edge function's
 * response; `range` reads part of it (206).
 *
 * @example Piping an object into a response
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { downloadStream } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const r = await downloadStream(client, "videos", "intro.mp4", { range: { start: 0, end: 1023 } });
 * if (r.ok) console.log(r.value.status, r.value.contentRange);
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param options `public`, `transform`, `download`, `fileName`, `range`.
 * @returns The stream with its headers.
 */
export async function downloadStream(
  client: BaseClient,
  bucket: string,
  path: string,
  options?: DownloadOptions & { public?: boolean | undefined },
): Promise<ServiceResult<DownloadStream>> {
  options ??= {};
  const r = await guard(ops.downloadRaw(
    client,
    options.public ? "public" : "authenticated",
    bucket,
    path,
    options,
    "stream",
  ));
  if (!r.ok) return r;
  const h = r.value.headers;
  return success({
    stream: r.value.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() }),
    status: r.value.status,
    contentType: h.get("content-type"),
    contentLength: ops.streamLength(h),
    contentRange: h.get("content-range"),
    etag: h.get("etag"),
  });
}

/**
 * Reads an object's metadata without its body; 404 when absent.
 *
 * @example Reading metadata
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { info } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const r = await info(client, "docs", "a.txt");
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param options Cancellation and timeout.
 * @returns The file object.
 */
export function info(
  client: BaseClient,
  bucket: string,
  path: string,
  options?: StorageCallOptions,
): Promise<ServiceResult<FileObject>> {
  return guard(ops.infoOp(client, "authenticated", bucket, path, options));
}

/**
 * Reads an object's metadata through the public info endpoint.
 *
 * @example Reading public metadata
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { infoPublic } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const r = await infoPublic(client, "docs", "a.txt");
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param options Cancellation and timeout.
 * @returns The file object.
 */
export function infoPublic(
  client: BaseClient,
  bucket: string,
  path: string,
  options?: StorageCallOptions,
): Promise<ServiceResult<FileObject>> {
  return guard(ops.infoOp(client, "public", bucket, path, options));
}

/**
 * Whether an object exists: a 404 for the object (`NoSuchKey`, or one without a code) is
 * `Success(false)`; other failures stay, a missing bucket's 404 (`NoSuchBucket`) included.
 *
 * @example Checking for an object
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { exists } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const r = await exists(client, "docs", "a.txt");
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param options Cancellation and timeout.
 * @returns Whether it exists.
 */
export async function exists(
  client: BaseClient,
  bucket: string,
  path: string,
  options?: StorageCallOptions,
): Promise<ServiceResult<boolean>> {
  return await presence(info(client, bucket, path, options));
}

/**
 * Like {@linkcode exists}, through the public info endpoint.
 *
 * @example Checking a public object
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { existsPublic } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const r = await existsPublic(client, "docs", "a.txt");
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param options Cancellation and timeout.
 * @returns Whether it exists.
 */
export async function existsPublic(
  client: BaseClient,
  bucket: string,
  path: string,
  options?: StorageCallOptions,
): Promise<ServiceResult<boolean>> {
  return await presence(infoPublic(client, bucket, path, options));
}

/**
 * Lists one folder level (`POST /object/list`).
 *
 * @example Listing a folder
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { list } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const r = await list(client, "docs", { prefix: "2026" });
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param options Prefix, limit (100), offset (0), sort, search.
 * @returns The entries.
 */
export function list(
  client: BaseClient,
  bucket: string,
  options?: ListOptions,
): Promise<ServiceResult<FileObject[]>> {
  return guard(ops.listOp(client, bucket, options));
}

/**
 * Lists with a cursor (`POST /object/list-v2`).
 *
 * @example Listing with a cursor
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { listV2 } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const r = await listV2(client, "docs", { prefix: "2026/" });
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param options Prefix, cursor, limit, delimiter, sort.
 * @returns One page.
 */
export function listV2(
  client: BaseClient,
  bucket: string,
  options?: ListV2Options,
): Promise<ServiceResult<ObjectListV2Response>> {
  return guard(ops.listV2Op(client, bucket, options));
}

/**
 * Moves an object; the source no longer exists. A move onto an existing key
 * fails with `CONFLICT`: the Storage API's move cannot replace an object.
 *
 * @example Moving an object
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { move } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * await move(client, "docs", "a.txt", "old/a.txt");
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param fromPath The source key.
 * @param toPath The destination key.
 * @param options `destinationBucket`.
 * @returns Nothing.
 */
export function move(
  client: BaseClient,
  bucket: string,
  fromPath: string,
  toPath: string,
  options?: StorageCallOptions & { destinationBucket?: string | null | undefined },
): Promise<ServiceResult<void>> {
  options ??= {};
  return guard(ops.moveOrCopy(client, "move", bucket, fromPath, toPath, options));
}

/**
 * Copies an object; the source stays. A copy onto an existing key fails with
 * `CONFLICT` unless `upsert` is true, which replaces that object (the Storage
 * API's `x-upsert`; storage-js's copy has no such option).
 *
 * @example Copying an object
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { copy } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * await copy(client, "docs", "a.txt", "backup/a.txt");
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param fromPath The source key.
 * @param toPath The destination key.
 * @param options `destinationBucket`, `copyMetadata`, `upsert` (default false).
 * @returns Nothing.
 */
export function copy(
  client: BaseClient,
  bucket: string,
  fromPath: string,
  toPath: string,
  options?: StorageCallOptions & {
    destinationBucket?: string | null | undefined;
    copyMetadata?: boolean | null | undefined;
    upsert?: boolean | null | undefined;
  },
): Promise<ServiceResult<void>> {
  options ??= {};
  return guard(ops.moveOrCopy(client, "copy", bucket, fromPath, toPath, options));
}

/**
 * Deletes one object. The Storage API's delete answers with the objects it
 * removed and never with an error, so an answer that removed nothing (no such
 * object, or one the caller's row-level security does not let it delete) is
 * `Failure(NOT_FOUND)`.
 *
 * @example Deleting an object
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { deleteObject } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * await deleteObject(client, "docs", "a.txt");
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param options Cancellation and timeout.
 * @returns Nothing.
 */
export async function deleteObject(
  client: BaseClient,
  bucket: string,
  path: string,
  options?: StorageCallOptions,
): Promise<ServiceResult<void>> {
  const r = await guard(ops.deleteObjectsOp(client, bucket, [path], options));
  if (!r.ok) return r;
  return r.value.length > 0 ? success(undefined) : failure({
    message: `Cannot delete ${showValue(path)} from ${
      showValue(bucket)
    } as the server removed nothing: no such object, or access to it was denied`,
    category: "NOT_FOUND",
  });
}

/**
 * Deletes many objects in one request.
 *
 * @example Deleting many objects
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { deleteObjects } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const r = await deleteObjects(client, "docs", ["a.txt", "b.txt"]);
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param paths The object keys, or one key.
 * @param options Cancellation and timeout.
 * @returns The removed entries.
 */
export function deleteObjects(
  client: BaseClient,
  bucket: string,
  paths: string | readonly string[],
  options?: StorageCallOptions,
): Promise<ServiceResult<FileObject[]>> {
  return guard(ops.deleteObjectsOp(client, bucket, paths, options));
}

/**
 * Signs a download URL usable without credentials until expiry.
 *
 * @example Sharing an object for a minute
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createSignedUrl } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const r = await createSignedUrl(client, "docs", "a.txt", 60);
 * if (r.ok) console.log(r.value);
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param expiresIn Lifetime in seconds (> 0).
 * @param options `download`, `fileName`, `transform`.
 * @returns The absolute URL.
 */
export function createSignedUrl(
  client: BaseClient,
  bucket: string,
  path: string,
  expiresIn: number,
  options?: SignedUrlOptions,
): Promise<ServiceResult<string>> {
  return guard(ops.createSignedUrlOp(client, bucket, path, expiresIn, options));
}

/**
 * Signs many download URLs in one request, in input order (none for an
 * empty list, which answers `[]`). A path the server could not sign (a
 * missing object) fails the whole call with `NOT_FOUND` naming it, where
 * storage-js returns an `error` inside the list.
 *
 * @example Signing many URLs
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createSignedUrls } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const r = await createSignedUrls(client, "docs", ["a.txt", "b.txt"], 60);
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param paths The object keys.
 * @param expiresIn Lifetime in seconds (> 0).
 * @param options `download`, `fileName`.
 * @returns The absolute URLs.
 */
export function createSignedUrls(
  client: BaseClient,
  bucket: string,
  paths: readonly string[],
  expiresIn: number,
  options?: Omit<SignedUrlOptions, "transform">,
): Promise<ServiceResult<string[]>> {
  return guard(ops.createSignedUrlsOp(client, bucket, paths, expiresIn, options));
}

/**
 * Creates a signed upload token for a path.
 *
 * @example Handing out an upload token
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createSignedUploadUrl } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const r = await createSignedUploadUrl(client, "docs", "a.txt", { upsert: true });
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param options `upsert`.
 * @returns The token.
 */
export async function createSignedUploadUrl(
  client: BaseClient,
  bucket: string,
  path: string,
  options?: StorageCallOptions & { upsert?: boolean | undefined },
): Promise<ServiceResult<string>> {
  const r = await guard(ops.createSignedUploadUrlOp(client, bucket, path, options));
  return r.ok ? success(r.value.token) : r;
}

/**
 * Creates a signed upload URL with its token and bound path.
 *
 * @example Handing out an upload URL
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createSignedUploadUrlWithPath } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const r = await createSignedUploadUrlWithPath(client, "docs", "a.txt");
 * if (r.ok) console.log(r.value.url);
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param options `upsert`.
 * @returns The URL, token and path.
 */
export function createSignedUploadUrlWithPath(
  client: BaseClient,
  bucket: string,
  path: string,
  options?: StorageCallOptions & { upsert?: boolean | undefined },
): Promise<ServiceResult<UploadSignedUrl>> {
  return guard(ops.createSignedUploadUrlOp(client, bucket, path, options));
}

/**
 * Builds a signed download URL from a token you already hold (no I/O).
 * A blank token throws `TypeError`.
 *
 * @example Building a URL from a held token
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { getSignedDownloadUrl } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * console.log(getSignedDownloadUrl(client, "docs", "a.txt", "token-from-server"));
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param token The signing token.
 * @param options `download`, `fileName`.
 * @returns The URL.
 */
export function getSignedDownloadUrl(
  client: BaseClient,
  bucket: string,
  path: string,
  token: string,
  options?: { download?: boolean | undefined; fileName?: string | null | undefined },
): string {
  options ??= {};
  if (typeof token !== "string" || token.trim() === "") {
    throw new TypeError("Cannot build the URL as 'token' is blank");
  }
  const base = `${client.url}/storage/v1/object/sign/${encodeObjectPath(bucket, path)}`;
  return withQuery(base, [["token", token], ...ops.downloadQuery(options)]);
}

/**
 * The public URL of an object (no I/O); resolves only for public buckets.
 * With `transform` it targets the render endpoint.
 *
 * @example A public link
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { getPublicUrl } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * console.log(getPublicUrl(client, "avatars", "a b.png"));
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param options `transform`, `download`, `fileName`.
 * @returns The URL.
 */
export function getPublicUrl(
  client: BaseClient,
  bucket: string,
  path: string,
  options?: UrlOptions,
): string {
  options ??= {};
  return localUrl(client, "public", bucket, path, options);
}

/**
 * The authenticated URL of an object (no I/O); fetching it needs credentials.
 * With `transform` it targets the render endpoint.
 *
 * @example An authenticated link
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { getAuthenticatedUrl } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * console.log(getAuthenticatedUrl(client, "avatars", "a b.png"));
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param options `transform`, `download`, `fileName`.
 * @returns The URL.
 */
export function getAuthenticatedUrl(
  client: BaseClient,
  bucket: string,
  path: string,
  options?: UrlOptions,
): string {
  options ??= {};
  return localUrl(client, "authenticated", bucket, path, options);
}

/**
 * The public render URL (`/render/image/public`) with transforms as query (no I/O).
 *
 * @example A public thumbnail
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { getPublicRenderUrl } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * console.log(getPublicRenderUrl(client, "avatars", "me.png", { width: 64, height: 64 }));
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param transform The transforms.
 * @returns The URL.
 */
export function getPublicRenderUrl(
  client: BaseClient,
  bucket: string,
  path: string,
  transform?: ImageTransformOptions | null,
): string {
  return localUrl(client, "public", bucket, path, { transform }, true);
}

/**
 * The authenticated render URL (`/render/image/authenticated`) (no I/O).
 *
 * @example An authenticated thumbnail
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { getAuthenticatedRenderUrl } from "@fetchbase/fetchbase/storage/objects";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * console.log(getAuthenticatedRenderUrl(client, "avatars", "me.png", { width: 64, height: 64 }));
 * ```
 *
 * @param client The base client whose transport sends the request.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param transform The transforms.
 * @returns The URL.
 */
export function getAuthenticatedRenderUrl(
  client: BaseClient,
  bucket: string,
  path: string,
  transform?: ImageTransformOptions | null,
): string {
  return localUrl(client, "authenticated", bucket, path, { transform }, true);
}

/** Options of {@linkcode withCacheNonce}. */
export interface CacheNonceOptions {
  /** The query parameter's name. Default `cacheNonce`. */
  name?: string | undefined;
}

/**
 * Appends a cache-busting parameter verbatim (before any fragment);
 * unchanged when the nonce is null or blank. No I/O.
 *
 * @example Busting a CDN cache
 * ```ts
 * import { withCacheNonce } from "@fetchbase/fetchbase/storage/objects";
 *
 * console.log(withCacheNonce("https://x.example/a.png", "v2")); // https://x.example/a.png?cacheNonce=v2
 * console.log(withCacheNonce("https://x.example/a.png", "v2", { name: "v" })); // https://x.example/a.png?v=v2
 * ```
 *
 * @param url The URL.
 * @param nonce The nonce.
 * @param options The parameter's `name` (default `cacheNonce`).
 * @returns The URL.
 */
export function withCacheNonce(
  url: string,
  nonce: string | null | undefined,
  options?: CacheNonceOptions,
): string {
  options ??= {};
  if (typeof options !== "object") {
    throw new TypeError(
      `Cannot add a cache nonce as 'options' must be an object such as { name }: current value is ${
        showValue(options)
      }`,
    );
  }
  if (typeof url !== "string") {
    throw new TypeError(
      `Cannot add a cache nonce as 'url' must be a string: current value is ${typeof url}`,
    );
  }
  if (nonce === null || nonce === undefined) return url;
  if (typeof nonce !== "string") {
    throw new TypeError(
      `Cannot add a cache nonce as 'nonce' must be a string or null: current value is ${typeof nonce}`,
    );
  }
  if (nonce.trim() === "") return url;
  const name = options.name ?? "cacheNonce";
  const hash = url.indexOf("#");
  const base = hash < 0 ? url : url.slice(0, hash);
  const fragment = hash < 0 ? "" : url.slice(hash);
  return `${base}${base.includes("?") ? "&" : "?"}${name}=${nonce}${fragment}`;
}
