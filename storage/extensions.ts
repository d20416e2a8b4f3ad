/**
 * Storage extensions: standalone functions whose first parameter is the
 * {@linkcode StorageClient}: listing helpers, signed download and render URL
 * families, bulk URL builders and `withCacheNonce`.
 *
 * @module
 */

import { createPaginator, type Paginator } from "../core/paginator.ts";
import { failure, ServiceException, type ServiceResult, success } from "../core/result.ts";
import type {
  ListOptions,
  SignedUrlOptions,
  StorageCallOptions,
  StorageClient,
  UrlOptions,
} from "./client.ts";
import type { FileObject, ImageTransformOptions, SortOrder } from "./models.ts";
import { encodeBucket, pathList } from "./_path.ts";
import { checkExpires, hasTransform } from "./_ops.ts";
import { transformQuery } from "./_urls.ts";
import { showValue } from "../core/_show.ts";
import { deadline } from "../core/_deadline.ts";

/**
 * Lists a folder, throwing {@linkcode ServiceException} on failure.
 *
 * @example Listing
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createStorageClient, listOrThrow } from "@fetchbase/fetchbase/storage";
 *
 * const storage = createStorageClient(createBaseClient("https://p.example", "anon-key"));
 * const files = await listOrThrow(storage, "docs", { prefix: "2026" });
 * ```
 *
 * @param storage The storage client.
 * @param bucket The bucket id.
 * @param options Same as `list`.
 * @returns The entries.
 */
export async function listOrThrow(
  storage: StorageClient,
  bucket: string,
  options?: ListOptions,
): Promise<FileObject[]> {
  const r = await storage.list(bucket, options);
  if (!r.ok) throw new ServiceException(r.error);
  return r.value;
}

/** Options of {@linkcode listPaginator}. */
export interface ListPaginatorOptions {
  /** Folder prefix. Default root. */
  prefix?: string | undefined;
  /** Entries per page (> 0). Default 100. */
  pageSize?: number | undefined;
  /** Sort column. */
  sortBy?: string | null | undefined;
  /** Sort direction. Default ASC. */
  sortOrder?: SortOrder | undefined;
  /** Case-insensitive name filter. */
  search?: string | null | undefined;
  /** Timeout in milliseconds of each page's request. Default the client's (30 s). */
  timeout?: number | undefined;
}

/**
 * Pages through a folder with offset pages; nothing is fetched before the
 * first `loadNext()`. `RangeError` for `pageSize <= 0`. It ends on the first
 * page shorter than `pageSize`, or, for a `pageSize` above the Storage API's
 * silent cap of 1500 rows a page, on the first empty one.
 *
 * @example Paging a folder
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createStorageClient, listPaginator } from "@fetchbase/fetchbase/storage";
 *
 * const storage = createStorageClient(createBaseClient("https://p.example", "anon-key"));
 * const pages = listPaginator(storage, "docs", { pageSize: 50 });
 * await pages.loadNext();
 * console.log(pages.items.value.length, pages.isEnd.value);
 * ```
 *
 * @param storage The storage client.
 * @param bucket The bucket id.
 * @param options Prefix, page size, sort, search, timeout.
 * @returns The paginator.
 */
export function listPaginator(
  storage: StorageClient,
  bucket: string,
  options?: ListPaginatorOptions,
): Paginator<FileObject> {
  options ??= {};
  // storage-js's list takes the prefix as a string here: refused, not read as the root.
  if (typeof options !== "object") {
    throw new TypeError(
      `Cannot list as 'options' must be an object such as { prefix }: current value is ${
        showValue(options)
      }`,
    );
  }
  const pageSize = options.pageSize ?? 100;
  return createPaginator<FileObject>(
    pageSize,
    (offset, limit, signal) =>
      storage.list(bucket, {
        prefix: options.prefix ?? "",
        limit,
        offset,
        sortBy: options.sortBy,
        sortOrder: options.sortOrder,
        search: options.search,
        signal,
        timeout: options.timeout,
      }),
    // A larger page comes back cut to the cap, which is not its end.
    { endOnShortPage: pageSize <= STORAGE_LIST_MAX },
  );
}

/** The most rows the Storage API's `list` answers, whatever `limit` asks (`LEAST(limit, 1500)`). */
const STORAGE_LIST_MAX = 1500;

/**
 * Signs a download URL with `download` forced on.
 *
 * @example A download link
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createSignedDownloadUrl, createStorageClient } from "@fetchbase/fetchbase/storage";
 *
 * const storage = createStorageClient(createBaseClient("https://p.example", "anon-key"));
 * const url = await createSignedDownloadUrl(storage, "docs", "report.pdf", 300, { fileName: "Q3.pdf" });
 * ```
 *
 * @param storage The storage client.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param expiresIn Lifetime in seconds.
 * @param options `fileName`, `transform`.
 * @returns The URL.
 */
export function createSignedDownloadUrl(
  storage: StorageClient,
  bucket: string,
  path: string,
  expiresIn: number,
  options?: Omit<SignedUrlOptions, "download">,
): Promise<ServiceResult<string>> {
  options ??= {};
  return storage.createSignedUrl(bucket, path, expiresIn, { ...options, download: true });
}

/**
 * Signs many download URLs (download forced on), in input order, one request.
 *
 * @example Many download links
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createSignedDownloadUrls, createStorageClient } from "@fetchbase/fetchbase/storage";
 *
 * const storage = createStorageClient(createBaseClient("https://p.example", "anon-key"));
 * const urls = await createSignedDownloadUrls(storage, "docs", ["a.pdf", "b.pdf"], 300);
 * ```
 *
 * @param storage The storage client.
 * @param bucket The bucket id.
 * @param paths The object keys, or one key.
 * @param expiresIn Lifetime in seconds.
 * @param options `fileName`.
 * @returns The URLs.
 */
export function createSignedDownloadUrls(
  storage: StorageClient,
  bucket: string,
  paths: string | readonly string[],
  expiresIn: number,
  options?: Omit<SignedUrlOptions, "download" | "transform">,
): Promise<ServiceResult<string[]>> {
  options ??= {};
  let list: readonly string[];
  try {
    list = pathList(paths);
  } catch (e) {
    return Promise.resolve(invalidPaths(e));
  }
  return storage.createSignedUrls(bucket, list, expiresIn, {
    ...options,
    download: true,
  });
}

/**
 * The URL of each path. With no path one URL is still built, and dropped, so that a bucket or
 * options no URL can take are refused as they are with a path.
 */
function urlsOf(paths: string | readonly string[], url: (path: string) => string): string[] {
  const list = pathList(paths);
  if (list.length === 0) url("x");
  return list.map(url);
}

/** Path → value as own properties (a key such as `__proto__` stays a key). */
/** A paths argument that is neither a key nor a list, as the Failure of an async helper. */
function invalidPaths(e: unknown): ServiceResult<never> {
  return failure({ message: (e as Error).message, category: "INVALID_ARGUMENT", cause: e });
}

function byPath<T>(paths: string | readonly string[], values: readonly T[]): Record<string, T> {
  return Object.fromEntries(pathList(paths).map((p, i) => [p, values[i]]));
}

/**
 * Signs many download URLs and returns them keyed by path.
 *
 * @example Keyed links
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createSignedDownloadUrlsByPath, createStorageClient } from "@fetchbase/fetchbase/storage";
 *
 * const storage = createStorageClient(createBaseClient("https://p.example", "anon-key"));
 * const r = await createSignedDownloadUrlsByPath(storage, "docs", ["a.pdf"], 60);
 * if (r.ok) console.log(r.value["a.pdf"]);
 * ```
 *
 * @param storage The storage client.
 * @param bucket The bucket id.
 * @param paths The object keys, or one key.
 * @param expiresIn Lifetime in seconds.
 * @param options `fileName`.
 * @returns Path → URL.
 */
export async function createSignedDownloadUrlsByPath(
  storage: StorageClient,
  bucket: string,
  paths: string | readonly string[],
  expiresIn: number,
  options?: Omit<SignedUrlOptions, "download" | "transform">,
): Promise<ServiceResult<Record<string, string>>> {
  options ??= {};
  const r = await createSignedDownloadUrls(storage, bucket, paths, expiresIn, options);
  return r.ok ? success(byPath(paths, r.value)) : r;
}

/**
 * Signs an inline (non-download) render URL with transforms.
 *
 * @example A thumbnail link
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createSignedRenderUrl, createStorageClient } from "@fetchbase/fetchbase/storage";
 *
 * const storage = createStorageClient(createBaseClient("https://p.example", "anon-key"));
 * const url = await createSignedRenderUrl(storage, "img", "cat.png", 60, { width: 200, resize: "cover" });
 * ```
 *
 * @param storage The storage client.
 * @param bucket The bucket id.
 * @param path The object key.
 * @param expiresIn Lifetime in seconds.
 * @param transform The transforms (required: at least one field set).
 * @param options Cancellation.
 * @returns The URL.
 */
export function createSignedRenderUrl(
  storage: StorageClient,
  bucket: string,
  path: string,
  expiresIn: number,
  transform: ImageTransformOptions,
  options?: StorageCallOptions,
): Promise<ServiceResult<string>> {
  options ??= {};
  const refused = refuseTransform(transform);
  if (refused) return Promise.resolve(refused);
  return storage.createSignedUrl(bucket, path, expiresIn, {
    ...options,
    transform,
    download: false,
  });
}

/**
 * A render URL's transform must set a field: `createSignedUrl` takes `{}` (or only nulls) for no
 * transform and would sign a plain object URL. Like every other argument error of an async
 * storage operation: a Failure.
 */
function refuseTransform(transform: ImageTransformOptions): ServiceResult<never> | null {
  if (typeof transform === "object" && hasTransform(transform)) {
    try {
      // The checks of every route that takes a transform (its options' wrapper in its place, a
      // value out of range), made here too for a list with no path to sign.
      transformQuery(transform);
      return null;
    } catch (e) {
      return failure({ message: (e as Error).message, category: "INVALID_ARGUMENT" });
    }
  }
  return failure({
    message:
      `Cannot sign a render URL as 'transform' must set at least one field: current value is ${
        showValue(transform)
      }`,
    category: "INVALID_ARGUMENT",
  });
}

/**
 * Signs render URLs one by one, in order; stops at the first failure. The call's `timeout` (the
 * client's by default) bounds the whole list, not each request: past it the call resolves
 * `Failure(TIMEOUT)` and asks for no more paths.
 *
 * @example Thumbnails
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createSignedRenderUrls, createStorageClient } from "@fetchbase/fetchbase/storage";
 *
 * const storage = createStorageClient(createBaseClient("https://p.example", "anon-key"));
 * const urls = await createSignedRenderUrls(storage, "img", ["a.png", "b.png"], 60, { width: 64 });
 * ```
 *
 * @param storage The storage client.
 * @param bucket The bucket id.
 * @param paths The object keys, or one key.
 * @param expiresIn Lifetime in seconds.
 * @param transform The transforms.
 * @param options Cancellation and the timeout of the whole list.
 * @returns The URLs.
 */
export async function createSignedRenderUrls(
  storage: StorageClient,
  bucket: string,
  paths: string | readonly string[],
  expiresIn: number,
  transform: ImageTransformOptions,
  options?: StorageCallOptions,
): Promise<ServiceResult<string[]>> {
  options ??= {};
  let list: readonly string[];
  try {
    list = pathList(paths);
  } catch (e) {
    return invalidPaths(e);
  }
  // Refused even when there is no path to sign.
  const refused = refuseTransform(transform);
  if (refused) return refused;
  try {
    encodeBucket(bucket);
    checkExpires(expiresIn);
  } catch (e) {
    return invalidPaths(e);
  }
  const out: string[] = [];
  // One request per path, in turn, under one deadline: the call's timeout (the client's by
  // default) bounds them all, as it bounds any other call.
  const within = deadline(options.timeout, storage.client.timeout);
  for (const p of list) {
    const r = await within((timeout) =>
      createSignedRenderUrl(storage, bucket, p, expiresIn, transform, { ...options, timeout })
    );
    if (!r.ok) return r;
    out.push(r.value);
  }
  return success(out);
}

/**
 * Signs render URLs in order and returns them keyed by path.
 *
 * @example Keyed thumbnails
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createSignedRenderUrlsByPath, createStorageClient } from "@fetchbase/fetchbase/storage";
 *
 * const storage = createStorageClient(createBaseClient("https://p.example", "anon-key"));
 * const r = await createSignedRenderUrlsByPath(storage, "img", ["a.png"], 60, { height: 32 });
 * ```
 *
 * @param storage The storage client.
 * @param bucket The bucket id.
 * @param paths The object keys, or one key.
 * @param expiresIn Lifetime in seconds.
 * @param transform The transforms.
 * @param options Cancellation.
 * @returns Path → URL.
 */
export async function createSignedRenderUrlsByPath(
  storage: StorageClient,
  bucket: string,
  paths: string | readonly string[],
  expiresIn: number,
  transform: ImageTransformOptions,
  options?: StorageCallOptions,
): Promise<ServiceResult<Record<string, string>>> {
  options ??= {};
  const r = await createSignedRenderUrls(storage, bucket, paths, expiresIn, transform, options);
  return r.ok ? success(byPath(paths, r.value)) : r;
}

/**
 * Public URLs of many objects, in input order (no I/O).
 *
 * @example Public URLs
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createStorageClient, getPublicUrls } from "@fetchbase/fetchbase/storage";
 *
 * const storage = createStorageClient(createBaseClient("https://p.example", "anon-key"));
 * console.log(getPublicUrls(storage, "img", ["a.png", "b.png"]));
 * ```
 *
 * @param storage The storage client.
 * @param bucket The bucket id.
 * @param paths The object keys, or one key.
 * @param options `download`, `fileName`, `transform`.
 * @returns The URLs.
 */
export function getPublicUrls(
  storage: StorageClient,
  bucket: string,
  paths: string | readonly string[],
  options?: UrlOptions,
): string[] {
  options ??= {};
  return urlsOf(paths, (p) => storage.getPublicUrl(bucket, p, options));
}

/**
 * Public URLs keyed by path (no I/O).
 *
 * @example Keyed public URLs
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createStorageClient, getPublicUrlsByPath } from "@fetchbase/fetchbase/storage";
 *
 * const storage = createStorageClient(createBaseClient("https://p.example", "anon-key"));
 * console.log(getPublicUrlsByPath(storage, "img", ["a.png"])["a.png"]);
 * ```
 *
 * @param storage The storage client.
 * @param bucket The bucket id.
 * @param paths The object keys, or one key.
 * @param options `download`, `fileName`, `transform`.
 * @returns Path → URL.
 */
export function getPublicUrlsByPath(
  storage: StorageClient,
  bucket: string,
  paths: string | readonly string[],
  options?: UrlOptions,
): Record<string, string> {
  options ??= {};
  return byPath(paths, getPublicUrls(storage, bucket, paths, options));
}

/**
 * Authenticated URLs of many objects, in input order (no I/O).
 *
 * @example Authenticated URLs
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createStorageClient, getAuthenticatedUrls } from "@fetchbase/fetchbase/storage";
 *
 * const storage = createStorageClient(createBaseClient("https://p.example", "anon-key"));
 * console.log(getAuthenticatedUrls(storage, "docs", ["a.pdf"]));
 * ```
 *
 * @param storage The storage client.
 * @param bucket The bucket id.
 * @param paths The object keys, or one key.
 * @param options `download`, `fileName`, `transform`.
 * @returns The URLs.
 */
export function getAuthenticatedUrls(
  storage: StorageClient,
  bucket: string,
  paths: string | readonly string[],
  options?: UrlOptions,
): string[] {
  options ??= {};
  return urlsOf(paths, (p) => storage.getAuthenticatedUrl(bucket, p, options));
}

/**
 * Authenticated URLs keyed by path (no I/O).
 *
 * @example Keyed authenticated URLs
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createStorageClient, getAuthenticatedUrlsByPath } from "@fetchbase/fetchbase/storage";
 *
 * const storage = createStorageClient(createBaseClient("https://p.example", "anon-key"));
 * console.log(getAuthenticatedUrlsByPath(storage, "docs", ["a.pdf"]));
 * ```
 *
 * @param storage The storage client.
 * @param bucket The bucket id.
 * @param paths The object keys, or one key.
 * @param options `download`, `fileName`, `transform`.
 * @returns Path → URL.
 */
export function getAuthenticatedUrlsByPath(
  storage: StorageClient,
  bucket: string,
  paths: string | readonly string[],
  options?: UrlOptions,
): Record<string, string> {
  options ??= {};
  return byPath(paths, getAuthenticatedUrls(storage, bucket, paths, options));
}

/**
 * Public render URLs, in input order (no I/O).
 *
 * @example Public render URLs
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createStorageClient, getPublicRenderUrls } from "@fetchbase/fetchbase/storage";
 *
 * const storage = createStorageClient(createBaseClient("https://p.example", "anon-key"));
 * console.log(getPublicRenderUrls(storage, "img", ["a.png"], { width: 100 }));
 * ```
 *
 * @param storage The storage client.
 * @param bucket The bucket id.
 * @param paths The object keys, or one key.
 * @param transform The transforms.
 * @returns The URLs.
 */
export function getPublicRenderUrls(
  storage: StorageClient,
  bucket: string,
  paths: string | readonly string[],
  transform?: ImageTransformOptions | null,
): string[] {
  return urlsOf(paths, (p) => storage.getPublicRenderUrl(bucket, p, transform));
}

/**
 * Public render URLs keyed by path (no I/O).
 *
 * @example Keyed public render URLs
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createStorageClient, getPublicRenderUrlsByPath } from "@fetchbase/fetchbase/storage";
 *
 * const storage = createStorageClient(createBaseClient("https://p.example", "anon-key"));
 * console.log(getPublicRenderUrlsByPath(storage, "img", ["a.png"], { width: 100 }));
 * ```
 *
 * @param storage The storage client.
 * @param bucket The bucket id.
 * @param paths The object keys, or one key.
 * @param transform The transforms.
 * @returns Path → URL.
 */
export function getPublicRenderUrlsByPath(
  storage: StorageClient,
  bucket: string,
  paths: string | readonly string[],
  transform?: ImageTransformOptions | null,
): Record<string, string> {
  return byPath(paths, getPublicRenderUrls(storage, bucket, paths, transform));
}

/**
 * Authenticated render URLs, in input order (no I/O).
 *
 * @example Authenticated render URLs
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createStorageClient, getAuthenticatedRenderUrls } from "@fetchbase/fetchbase/storage";
 *
 * const storage = createStorageClient(createBaseClient("https://p.example", "anon-key"));
 * console.log(getAuthenticatedRenderUrls(storage, "img", ["a.png"], { quality: 60 }));
 * ```
 *
 * @param storage The storage client.
 * @param bucket The bucket id.
 * @param paths The object keys, or one key.
 * @param transform The transforms.
 * @returns The URLs.
 */
export function getAuthenticatedRenderUrls(
  storage: StorageClient,
  bucket: string,
  paths: string | readonly string[],
  transform?: ImageTransformOptions | null,
): string[] {
  return urlsOf(paths, (p) => storage.getAuthenticatedRenderUrl(bucket, p, transform));
}

/**
 * Authenticated render URLs keyed by path (no I/O).
 *
 * @example Keyed authenticated render URLs
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createStorageClient, getAuthenticatedRenderUrlsByPath } from "@fetchbase/fetchbase/storage";
 *
 * const storage = createStorageClient(createBaseClient("https://p.example", "anon-key"));
 * console.log(getAuthenticatedRenderUrlsByPath(storage, "img", ["a.png"]));
 * ```
 *
 * @param storage The storage client.
 * @param bucket The bucket id.
 * @param paths The object keys, or one key.
 * @param transform The transforms.
 * @returns Path → URL.
 */
export function getAuthenticatedRenderUrlsByPath(
  storage: StorageClient,
  bucket: string,
  paths: string | readonly string[],
  transform?: ImageTransformOptions | null,
): Record<string, string> {
  return byPath(paths, getAuthenticatedRenderUrls(storage, bucket, paths, transform));
}

// The storage client has it as a member too (the document's operation table).
export { withCacheNonce } from "./objects.ts";
