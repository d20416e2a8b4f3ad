/**
 * The storage client: buckets, objects, listings, signed and local URLs.
 * A thin facade: object operations are the standalone functions of
 * `objects.ts`, the rest functions of `_ops.ts`, `analytics.ts` and
 * `vectors.ts`, all over the base client.
 *
 * @module
 */

import type { BaseClient } from "../core/client.ts";

import type { ServiceResult } from "../core/result.ts";
import { guard } from "./_guard.ts";
import * as ops from "./_ops.ts";
import * as objects from "./objects.ts";
import * as an from "./analytics.ts";
import * as vec from "./vectors.ts";
import {
  createResumableUpload,
  type ResumableData,
  type ResumableUpload,
  type ResumableUploadOptions,
} from "./tus.ts";
import type {
  Bucket,
  FileObject,
  ImageTransformOptions,
  ObjectListV2Response,
  UploadSignedUrl,
} from "./models.ts";

export type {
  CreateBucketOptions,
  DownloadOptions,
  DownloadStream,
  ListBucketsOptions,
  ListOptions,
  ListV2Options,
  SignedUrlOptions,
  StorageCallOptions,
  UpdateBucketOptions,
  UploadData,
  UploadOptions,
} from "./_ops.ts";
import type { CacheNonceOptions, UrlOptions } from "./objects.ts";
export type { CacheNonceOptions, UrlOptions };

/**
 * Storage under `/storage/v1`. Object paths are bucket-relative keys
 * (`folder/file.png`), URL-encoded per segment; a leading `/` is dropped and
 * empty, `.` or `..` segments are refused.
 *
 * @example Upload and sign
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createStorageClient } from "@fetchbase/fetchbase/storage";
 *
 * const storage = createStorageClient(createBaseClient("https://p.example", "anon-key"));
 * const up = await storage.upload("avatars", "u1/me.png", new Uint8Array([1, 2]), { contentType: "image/png" });
 * const url = await storage.createSignedUrl("avatars", "u1/me.png", 60);
 * ```
 */
export class StorageClient {
  /** The base client whose transport every call uses. */
  readonly client: BaseClient;

  /**
   * Wraps a base client; prefer {@linkcode createStorageClient}.
   *
   * @param client The base client.
   */
  constructor(client: BaseClient) {
    this.client = client;
  }

  /**
   * Lists buckets (`GET /bucket`).
   *
   * @param options Paging, sorting and search.
   * @returns The buckets.
   */
  listBuckets(options?: ops.ListBucketsOptions): Promise<ServiceResult<Bucket[]>> {
    return guard(ops.listBuckets(this.client, options));
  }

  /**
   * Reads one bucket; 404 when missing.
   *
   * @param id The bucket id.
   * @param options Cancellation.
   * @returns The bucket.
   */
  getBucket(id: string, options?: ops.StorageCallOptions): Promise<ServiceResult<Bucket>> {
    return guard(ops.getBucket(this.client, id, options));
  }

  /**
   * Creates a bucket; 409 when the id is taken.
   *
   * @param id The bucket id.
   * @param name The display name.
   * @param options Public flag, size limit, MIME types.
   * @returns The bucket as requested (the Storage API answers only its name,
   *   so the times are null); {@linkcode StorageClient.getBucket} reads what
   *   the server stored.
   */
  createBucket(
    id: string,
    name: string,
    options?: ops.CreateBucketOptions,
  ): Promise<ServiceResult<Bucket>> {
    return guard(ops.createBucket(this.client, id, name, options));
  }

  /**
   * Updates a bucket; only given fields are sent. The call's `timeout` bounds all its requests
   * (the name check, the update, the read back) together. A null field is left unchanged:
   * `clearFileSizeLimit` and `clearAllowedMimeTypes` remove a limit.
   *
   * @param id The bucket id.
   * @param options The fields to change.
   * @returns The bucket as stored.
   */
  updateBucket(id: string, options?: ops.UpdateBucketOptions): Promise<ServiceResult<Bucket>> {
    return guard(ops.updateBucket(this.client, id, options));
  }

  /**
   * Deletes an empty bucket; fails when it still holds objects.
   *
   * @param id The bucket id.
   * @param options Cancellation.
   * @returns Nothing.
   */
  deleteBucket(id: string, options?: ops.StorageCallOptions): Promise<ServiceResult<void>> {
    return guard(ops.deleteBucket(this.client, id, options));
  }

  /**
   * Removes every object of a bucket and keeps the bucket. A Storage API
   * running with its job queue only queues the removal ("Completion may
   * take up to an hour"), so a `deleteBucket` right after may still fail
   * with 409 there.
   *
   * @param id The bucket id.
   * @param options Cancellation.
   * @returns Nothing.
   */
  clearBucket(id: string, options?: ops.StorageCallOptions): Promise<ServiceResult<void>> {
    return guard(ops.clearBucket(this.client, id, options));
  }

  /**
   * Uploads an object (POST); streams `Blob` and `ReadableStream` bodies.
   * 409 when it exists and `upsert` is false.
   *
   * @param bucket The bucket id.
   * @param path The object key.
   * @param data Bytes, ArrayBuffer, Blob, stream or text.
   * @param options Content type, upsert, cache control, metadata.
   * @returns The key the server reports (`bucket/path`).
   */
  upload(
    bucket: string,
    path: string,
    data: ops.UploadData,
    options?: ops.UploadOptions,
  ): Promise<ServiceResult<string>> {
    return objects.upload(this.client, bucket, path, data, options);
  }

  /**
   * Replaces an object (PUT); the Storage API creates a missing one.
   *
   * @param bucket The bucket id.
   * @param path The object key.
   * @param data Bytes, ArrayBuffer, Blob, stream or text.
   * @param options Same as {@linkcode StorageClient.upload}.
   * @returns The key.
   */
  update(
    bucket: string,
    path: string,
    data: ops.UploadData,
    options?: ops.UploadOptions,
  ): Promise<ServiceResult<string>> {
    return objects.update(this.client, bucket, path, data, options);
  }

  /**
   * Uploads with a signed upload token (no credentials needed). The Storage
   * API takes `upsert` from the token, not from this call: to replace an
   * existing object, sign with {@linkcode StorageClient.createSignedUploadUrl}'s
   * `upsert`. `x-upsert` is still sent, as storage-js does.
   *
   * @param bucket The bucket id.
   * @param path The object key bound to the token.
   * @param token The token from {@linkcode StorageClient.createSignedUploadUrl}.
   * @param data The body.
   * @param options Same as {@linkcode StorageClient.upload}.
   * @returns The key.
   */
  uploadToSignedUrl(
    bucket: string,
    path: string,
    token: string,
    data: ops.UploadData,
    options?: ops.UploadOptions,
  ): Promise<ServiceResult<string>> {
    return objects.uploadToSignedUrl(this.client, bucket, path, token, data, options);
  }

  /**
   * A resumable (TUS) upload handle; no I/O until `await()`.
   *
   * @param bucket The bucket id.
   * @param path The object key.
   * @param data Bytes, a Blob or a stream.
   * @param options Content type, upsert, cache control, chunk size, saved URL, metadata.
   * @returns The handle.
   */
  createResumableUpload(
    bucket: string,
    path: string,
    data: ResumableData,
    options?: ResumableUploadOptions,
  ): ResumableUpload {
    return createResumableUpload(this.client, bucket, path, data, options);
  }

  /**
   * Creates an analytics (Iceberg) bucket.
   *
   * @param name The bucket name.
   * @param options Cancellation.
   * @returns The bucket.
   */
  createAnalyticsBucket(
    name: string,
    options?: an.CatalogCallOptions,
  ): Promise<ServiceResult<an.AnalyticsBucket>> {
    return an.createAnalyticsBucket(this.client, name, options);
  }

  /**
   * Lists analytics buckets (same paging, sorting and search as `listBuckets`).
   *
   * @param options Paging, sorting, search.
   * @returns The buckets.
   */
  listAnalyticsBuckets(
    options?: an.ListAnalyticsBucketsOptions,
  ): Promise<ServiceResult<an.AnalyticsBucket[]>> {
    return guard(an.listAnalyticsBuckets(this.client, options));
  }

  /**
   * Deletes an analytics bucket.
   *
   * @param name The bucket name.
   * @param options Cancellation.
   * @returns Nothing.
   */
  deleteAnalyticsBucket(
    name: string,
    options?: an.CatalogCallOptions,
  ): Promise<ServiceResult<void>> {
    return an.deleteAnalyticsBucket(this.client, name, options);
  }

  /**
   * The Iceberg REST catalog client of an analytics bucket (no I/O); throws
   * `TypeError` for a blank name or characters outside letters, digits, `.`, `_`, `-`.
   *
   * @param bucketName The analytics bucket.
   * @returns The catalog client.
   */
  analyticsCatalog(bucketName: string): an.AnalyticsCatalogClient {
    return an.analyticsCatalog(this.client, bucketName);
  }

  /**
   * Creates a vector bucket.
   *
   * @param vectorBucketName The name.
   * @param options Cancellation.
   * @returns Nothing.
   */
  createVectorBucket(
    vectorBucketName: string,
    options?: vec.VectorCallOptions,
  ): Promise<ServiceResult<void>> {
    return vec.createVectorBucket(this.client, vectorBucketName, options);
  }

  /**
   * Reads a vector bucket; fails when missing.
   *
   * @param vectorBucketName The name.
   * @param options Cancellation.
   * @returns The bucket.
   */
  getVectorBucket(
    vectorBucketName: string,
    options?: vec.VectorCallOptions,
  ): Promise<ServiceResult<vec.VectorBucket>> {
    return vec.getVectorBucket(this.client, vectorBucketName, options);
  }

  /**
   * Lists vector buckets.
   *
   * @param options Prefix, page size, token.
   * @returns A page.
   */
  listVectorBuckets(
    options?: vec.ListVectorBucketsOptions,
  ): Promise<ServiceResult<vec.VectorBucketListResponse>> {
    return vec.listVectorBuckets(this.client, options);
  }

  /**
   * Deletes a vector bucket.
   *
   * @param vectorBucketName The name.
   * @param options Cancellation.
   * @returns Nothing.
   */
  deleteVectorBucket(
    vectorBucketName: string,
    options?: vec.VectorCallOptions,
  ): Promise<ServiceResult<void>> {
    return vec.deleteVectorBucket(this.client, vectorBucketName, options);
  }

  /**
   * Creates a vector index.
   *
   * @param vectorBucketName The bucket.
   * @param indexName The index.
   * @param dataType The component type (FLOAT32; UNKNOWN, a decoding fallback, does not type-check).
   * @param dimension The vector length.
   * @param distanceMetric The metric (UNKNOWN, a decoding fallback, does not type-check).
   * @param options Metadata configuration.
   * @returns Nothing.
   */
  createVectorIndex(
    vectorBucketName: string,
    indexName: string,
    dataType: Exclude<vec.VectorDataType, "unknown">,
    dimension: number,
    distanceMetric: Exclude<vec.VectorDistanceMetric, "unknown">,
    options?: vec.VectorCallOptions & {
      metadataConfiguration?: vec.VectorMetadataConfiguration | null | undefined;
    },
  ): Promise<ServiceResult<void>> {
    return vec.createVectorIndex(
      this.client,
      vectorBucketName,
      indexName,
      dataType,
      dimension,
      distanceMetric,
      options,
    );
  }

  /**
   * Reads a vector index.
   *
   * @param vectorBucketName The bucket.
   * @param indexName The index.
   * @param options Cancellation.
   * @returns The index.
   */
  getVectorIndex(
    vectorBucketName: string,
    indexName: string,
    options?: vec.VectorCallOptions,
  ): Promise<ServiceResult<vec.VectorIndex>> {
    return vec.getVectorIndex(this.client, vectorBucketName, indexName, options);
  }

  /**
   * Lists vector indexes.
   *
   * @param vectorBucketName The bucket.
   * @param options Prefix, page size, token.
   * @returns A page.
   */
  listVectorIndexes(
    vectorBucketName: string,
    options?: vec.ListVectorBucketsOptions,
  ): Promise<ServiceResult<vec.VectorIndexListResponse>> {
    return vec.listVectorIndexes(this.client, vectorBucketName, options);
  }

  /**
   * Deletes a vector index.
   *
   * @param vectorBucketName The bucket.
   * @param indexName The index.
   * @param options Cancellation.
   * @returns Nothing.
   */
  deleteVectorIndex(
    vectorBucketName: string,
    indexName: string,
    options?: vec.VectorCallOptions,
  ): Promise<ServiceResult<void>> {
    return vec.deleteVectorIndex(this.client, vectorBucketName, indexName, options);
  }

  /**
   * Inserts or overwrites 1 to 500 vectors (`RangeError` otherwise, before any
   * request); with `dimension`, a vector of another length fails before sending.
   *
   * @param vectorBucketName The bucket.
   * @param indexName The index.
   * @param vectors The vectors.
   * @param options The index dimension, when known.
   * @returns Nothing.
   */
  putVectors(
    vectorBucketName: string,
    indexName: string,
    vectors: readonly vec.VectorObject[],
    options?: vec.VectorCallOptions & { dimension?: number | null | undefined },
  ): Promise<ServiceResult<void>> {
    return vec.putVectors(this.client, vectorBucketName, indexName, vectors, options);
  }

  /**
   * Reads vectors by key.
   *
   * @param vectorBucketName The bucket.
   * @param indexName The index.
   * @param keys The keys.
   * @param options Return data and metadata.
   * @returns The vectors.
   */
  getVectors(
    vectorBucketName: string,
    indexName: string,
    keys: readonly string[],
    options?: vec.VectorCallOptions & {
      returnData?: boolean | null | undefined;
      returnMetadata?: boolean | null | undefined;
    },
  ): Promise<ServiceResult<vec.VectorMatch[]>> {
    return vec.getVectors(this.client, vectorBucketName, indexName, keys, options);
  }

  /**
   * Lists vectors, optionally one segment of a parallel scan (segmentCount
   * 1..16, segmentIndex 0..segmentCount-1; `RangeError` otherwise).
   *
   * @param vectorBucketName The bucket.
   * @param indexName The index.
   * @param options Paging, segments, return flags.
   * @returns A page.
   */
  listVectors(
    vectorBucketName: string,
    indexName: string,
    options?: vec.ListVectorsOptions,
  ): Promise<ServiceResult<vec.VectorListResponse>> {
    return vec.listVectors(this.client, vectorBucketName, indexName, options);
  }

  /**
   * Similarity search.
   *
   * @param vectorBucketName The bucket.
   * @param indexName The index.
   * @param queryVector The query vector.
   * @param options topK, filter, return flags, dimension.
   * @returns Ranked matches.
   */
  queryVectors(
    vectorBucketName: string,
    indexName: string,
    queryVector: vec.VectorDataInput,
    options?: vec.QueryVectorsOptions,
  ): Promise<ServiceResult<vec.VectorQueryResponse>> {
    return vec.queryVectors(this.client, vectorBucketName, indexName, queryVector, options);
  }

  /**
   * Deletes 1 to 500 vectors by key (`RangeError` otherwise, before any request).
   *
   * @param vectorBucketName The bucket.
   * @param indexName The index.
   * @param keys The keys.
   * @param options Cancellation.
   * @returns Nothing.
   */
  deleteVectors(
    vectorBucketName: string,
    indexName: string,
    keys: readonly string[],
    options?: vec.VectorCallOptions,
  ): Promise<ServiceResult<void>> {
    return vec.deleteVectors(this.client, vectorBucketName, indexName, keys, options);
  }

  /**
   * Downloads an object as UTF-8 text from the authenticated endpoint; bytes
   * that are not UTF-8 are `Failure(DECODE)` (read them with `downloadBytes`).
   *
   * @param bucket The bucket id.
   * @param path The object key.
   * @param options `download`, `fileName`, `range`.
   * @returns The text.
   */
  download(
    bucket: string,
    path: string,
    options?: ops.DownloadOptions,
  ): Promise<ServiceResult<string>> {
    return objects.download(this.client, bucket, path, options);
  }

  /**
   * Downloads an object as text from the public endpoint (no token); bytes
   * that are not UTF-8 are `Failure(DECODE)`.
   *
   * @param bucket The bucket id.
   * @param path The object key.
   * @param options `download`, `fileName`, `range`.
   * @returns The text.
   */
  downloadPublic(
    bucket: string,
    path: string,
    options?: ops.DownloadOptions,
  ): Promise<ServiceResult<string>> {
    return objects.downloadPublic(this.client, bucket, path, options);
  }

  /**
   * Downloads bytes from the authenticated endpoint (the render endpoint with
   * `transform`); an empty object gives empty bytes.
   *
   * @param bucket The bucket id.
   * @param path The object key.
   * @param options `transform`, `download`, `fileName`, `range`.
   * @returns The bytes.
   */
  downloadBytes(
    bucket: string,
    path: string,
    options?: ops.DownloadOptions,
  ): Promise<ServiceResult<Uint8Array>> {
    return objects.downloadBytes(this.client, bucket, path, options);
  }

  /**
   * Downloads bytes from the public endpoint (no token).
   *
   * @param bucket The bucket id.
   * @param path The object key.
   * @param options `transform`, `download`, `fileName`, `range`.
   * @returns The bytes.
   */
  downloadPublicBytes(
    bucket: string,
    path: string,
    options?: ops.DownloadOptions,
  ): Promise<ServiceResult<Uint8Array>> {
    return objects.downloadPublicBytes(this.client, bucket, path, options);
  }

  /**
   * Streams an object without buffering (beyond the document), e.g. to pipe
   * it into an edge function's response; `range` reads part of it (206).
   *
   * @param bucket The bucket id.
   * @param path The object key.
   * @param options `public`, `transform`, `download`, `fileName`, `range`.
   * @returns The stream with its headers.
   */
  downloadStream(
    bucket: string,
    path: string,
    options?: ops.DownloadOptions & { public?: boolean | undefined },
  ): Promise<ServiceResult<ops.DownloadStream>> {
    return objects.downloadStream(this.client, bucket, path, options);
  }

  /**
   * Reads an object's metadata without its body; 404 when absent.
   *
   * @param bucket The bucket id.
   * @param path The object key.
   * @param options Cancellation.
   * @returns The file object.
   */
  info(
    bucket: string,
    path: string,
    options?: ops.StorageCallOptions,
  ): Promise<ServiceResult<FileObject>> {
    return objects.info(this.client, bucket, path, options);
  }

  /**
   * Reads metadata through the public info endpoint.
   *
   * @param bucket The bucket id.
   * @param path The object key.
   * @param options Cancellation.
   * @returns The file object.
   */
  infoPublic(
    bucket: string,
    path: string,
    options?: ops.StorageCallOptions,
  ): Promise<ServiceResult<FileObject>> {
    return objects.infoPublic(this.client, bucket, path, options);
  }

  /**
   * Whether an object exists: a 404 is `Success(false)`; other failures stay.
   *
   * @param bucket The bucket id.
   * @param path The object key.
   * @param options Cancellation.
   * @returns Whether it exists.
   */
  exists(
    bucket: string,
    path: string,
    options?: ops.StorageCallOptions,
  ): Promise<ServiceResult<boolean>> {
    return objects.exists(this.client, bucket, path, options);
  }

  /**
   * Like {@linkcode StorageClient.exists} through the public info endpoint.
   *
   * @param bucket The bucket id.
   * @param path The object key.
   * @param options Cancellation.
   * @returns Whether it exists.
   */
  existsPublic(
    bucket: string,
    path: string,
    options?: ops.StorageCallOptions,
  ): Promise<ServiceResult<boolean>> {
    return objects.existsPublic(this.client, bucket, path, options);
  }

  /**
   * Lists one folder level (`POST /object/list`).
   *
   * @param bucket The bucket id.
   * @param options Prefix, limit (100), offset (0), sort, search.
   * @returns The entries.
   */
  list(bucket: string, options?: ops.ListOptions): Promise<ServiceResult<FileObject[]>> {
    return objects.list(this.client, bucket, options);
  }

  /**
   * Lists with a cursor (`POST /object/list-v2`).
   *
   * @param bucket The bucket id.
   * @param options Prefix, cursor, limit, delimiter, sort.
   * @returns One page.
   */
  listV2(
    bucket: string,
    options?: ops.ListV2Options,
  ): Promise<ServiceResult<ObjectListV2Response>> {
    return objects.listV2(this.client, bucket, options);
  }

  /**
   * Moves an object; the source no longer exists. A move onto an existing key
   * fails with `CONFLICT`: the Storage API's move cannot replace an object.
   *
   * @param bucket The bucket id.
   * @param fromPath The source key.
   * @param toPath The destination key.
   * @param options `destinationBucket`.
   * @returns Nothing.
   */
  move(
    bucket: string,
    fromPath: string,
    toPath: string,
    options?: ops.StorageCallOptions & { destinationBucket?: string | null | undefined },
  ): Promise<ServiceResult<void>> {
    return objects.move(this.client, bucket, fromPath, toPath, options);
  }

  /**
   * Copies an object; the source stays. A copy onto an existing key fails
   * with `CONFLICT` unless `upsert` is true, which replaces that object.
   *
   * @param bucket The bucket id.
   * @param fromPath The source key.
   * @param toPath The destination key.
   * @param options `destinationBucket`, `copyMetadata`, `upsert` (default false).
   * @returns Nothing.
   */
  copy(
    bucket: string,
    fromPath: string,
    toPath: string,
    options?: ops.StorageCallOptions & {
      destinationBucket?: string | null | undefined;
      copyMetadata?: boolean | null | undefined;
      upsert?: boolean | null | undefined;
    },
  ): Promise<ServiceResult<void>> {
    return objects.copy(this.client, bucket, fromPath, toPath, options);
  }

  /**
   * Deletes one object. An answer that removed nothing (no such object, or
   * row-level security refused) is `Failure(NOT_FOUND)`: the Storage API's
   * delete reports no error of its own.
   *
   * @param bucket The bucket id.
   * @param path The object key.
   * @param options Cancellation.
   * @returns Nothing.
   */
  deleteObject(
    bucket: string,
    path: string,
    options?: ops.StorageCallOptions,
  ): Promise<ServiceResult<void>> {
    return objects.deleteObject(this.client, bucket, path, options);
  }

  /**
   * Deletes many objects in one request.
   *
   * @param bucket The bucket id.
   * @param paths The object keys, or one key.
   * @param options Cancellation.
   * @returns The removed entries.
   */
  deleteObjects(
    bucket: string,
    paths: string | readonly string[],
    options?: ops.StorageCallOptions,
  ): Promise<ServiceResult<FileObject[]>> {
    return objects.deleteObjects(this.client, bucket, paths, options);
  }

  /**
   * Signs a download URL usable without credentials until expiry.
   *
   * @param bucket The bucket id.
   * @param path The object key.
   * @param expiresIn Lifetime in seconds (> 0).
   * @param options `download`, `fileName`, `transform`.
   * @returns The absolute URL.
   */
  createSignedUrl(
    bucket: string,
    path: string,
    expiresIn: number,
    options?: ops.SignedUrlOptions,
  ): Promise<ServiceResult<string>> {
    return objects.createSignedUrl(this.client, bucket, path, expiresIn, options);
  }

  /**
   * Signs many download URLs in one request, in input order (none for an
   * empty list, which answers `[]`). A path the server could not sign (a
   * missing object) fails the whole call with `NOT_FOUND` naming it, where
   * storage-js returns an `error` inside the list.
   *
   * @param bucket The bucket id.
   * @param paths The object keys.
   * @param expiresIn Lifetime in seconds (> 0).
   * @param options `download`, `fileName`.
   * @returns The absolute URLs.
   */
  createSignedUrls(
    bucket: string,
    paths: readonly string[],
    expiresIn: number,
    options?: Omit<ops.SignedUrlOptions, "transform">,
  ): Promise<ServiceResult<string[]>> {
    return objects.createSignedUrls(this.client, bucket, paths, expiresIn, options);
  }

  /**
   * Creates a signed upload token for a path.
   *
   * @param bucket The bucket id.
   * @param path The object key.
   * @param options `upsert`.
   * @returns The token.
   */
  createSignedUploadUrl(
    bucket: string,
    path: string,
    options?: ops.StorageCallOptions & { upsert?: boolean | undefined },
  ): Promise<ServiceResult<string>> {
    return objects.createSignedUploadUrl(this.client, bucket, path, options);
  }

  /**
   * Creates a signed upload URL with its token and bound path.
   *
   * @param bucket The bucket id.
   * @param path The object key.
   * @param options `upsert`.
   * @returns The URL, token and path.
   */
  createSignedUploadUrlWithPath(
    bucket: string,
    path: string,
    options?: ops.StorageCallOptions & { upsert?: boolean | undefined },
  ): Promise<ServiceResult<UploadSignedUrl>> {
    return objects.createSignedUploadUrlWithPath(this.client, bucket, path, options);
  }

  /**
   * Builds a signed download URL from a token you already hold (no I/O).
   *
   * @param bucket The bucket id.
   * @param path The object key.
   * @param token The signing token.
   * @param options `download`, `fileName`.
   * @returns The URL.
   */
  getSignedDownloadUrl(
    bucket: string,
    path: string,
    token: string,
    options?: { download?: boolean | undefined; fileName?: string | null | undefined },
  ): string {
    return objects.getSignedDownloadUrl(this.client, bucket, path, token, options);
  }

  /**
   * The public URL of an object (no I/O); resolves only for public buckets.
   * With `transform` it targets the render endpoint.
   *
   * @param bucket The bucket id.
   * @param path The object key.
   * @param options `transform`, `download`, `fileName`.
   * @returns The URL.
   */
  getPublicUrl(bucket: string, path: string, options?: UrlOptions): string {
    return objects.getPublicUrl(this.client, bucket, path, options);
  }

  /**
   * The authenticated URL of an object (no I/O); fetching it needs credentials.
   *
   * @param bucket The bucket id.
   * @param path The object key.
   * @param options `transform`, `download`, `fileName`.
   * @returns The URL.
   */
  getAuthenticatedUrl(bucket: string, path: string, options?: UrlOptions): string {
    return objects.getAuthenticatedUrl(this.client, bucket, path, options);
  }

  /**
   * The public render URL (`/render/image/public`) with transforms as query.
   *
   * @param bucket The bucket id.
   * @param path The object key.
   * @param transform The transforms.
   * @returns The URL.
   */
  getPublicRenderUrl(
    bucket: string,
    path: string,
    transform?: ImageTransformOptions | null,
  ): string {
    return objects.getPublicRenderUrl(this.client, bucket, path, transform);
  }

  /**
   * The authenticated render URL (`/render/image/authenticated`).
   *
   * @param bucket The bucket id.
   * @param path The object key.
   * @param transform The transforms.
   * @returns The URL.
   */
  getAuthenticatedRenderUrl(
    bucket: string,
    path: string,
    transform?: ImageTransformOptions | null,
  ): string {
    return objects.getAuthenticatedRenderUrl(this.client, bucket, path, transform);
  }

  /**
   * Appends a cache-busting parameter verbatim; unchanged when the nonce is
   * null or blank. No I/O.
   *
   * @param url The URL.
   * @param nonce The nonce.
   * @param options The parameter's `name` (default `cacheNonce`).
   * @returns The URL.
   */
  withCacheNonce(
    url: string,
    nonce: string | null | undefined,
    options?: CacheNonceOptions,
  ): string {
    return objects.withCacheNonce(url, nonce, options);
  }
}

/**
 * Creates a {@linkcode StorageClient}; no I/O.
 *
 * @example Creating the client
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createStorageClient } from "@fetchbase/fetchbase/storage";
 *
 * const storage = createStorageClient(createBaseClient("https://p.example", "anon-key"));
 * console.log(storage.getPublicUrl("avatars", "a b.png"));
 * ```
 *
 * @param client The base client.
 * @returns The storage client.
 */
export function createStorageClient(client: BaseClient): StorageClient {
  return new StorageClient(client);
}
