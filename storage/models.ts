/**
 * Storage models and enums with tolerant decoders.
 *
 * @module
 */

import {
  asArray,
  asObject,
  type JsonObject,
  optArray,
  optBoolean,
  optNumber,
  optObject,
  optString,
  reqString,
} from "../core/decode.ts";

/**
 * How an image is resized by the render endpoint.
 *
 * @example Cover
 * ```ts
 * import { ResizeMode } from "@fetchbase/fetchbase/storage";
 *
 * console.log(ResizeMode.COVER); // cover
 * ```
 */
export const ResizeMode = {
  /** Fill the box, crop overflow, keep aspect. */
  COVER: "cover",
  /** Fit inside, keep aspect. */
  CONTAIN: "contain",
  /** Stretch, ignore aspect. */
  FILL: "fill",
} as const;
/** One of the {@linkcode ResizeMode} values. */
export type ResizeMode = typeof ResizeMode[keyof typeof ResizeMode];

/**
 * Sort direction of listings.
 *
 * @example Descending
 * ```ts
 * import { SortOrder } from "@fetchbase/fetchbase/storage";
 *
 * console.log(SortOrder.DESC); // desc
 * ```
 */
export const SortOrder = { ASC: "asc", DESC: "desc" } as const;
/** One of the {@linkcode SortOrder} values. */
export type SortOrder = typeof SortOrder[keyof typeof SortOrder];

/** Image transformation; each non-null field becomes a render query parameter. */
export interface ImageTransformOptions {
  /** Width in pixels. */
  width?: number | null | undefined;
  /** Height in pixels. */
  height?: number | null | undefined;
  /** Resize mode. */
  resize?: ResizeMode | null | undefined;
  /** Output format, e.g. `origin` or `webp`. */
  format?: string | null | undefined;
  /** Quality, typically 1..100. */
  quality?: number | null | undefined;
}

/** A bucket. */
export interface Bucket {
  /** Stable identifier and URL segment. */
  id: string;
  /** Display name. */
  name: string;
  /** Objects readable through the public endpoint without a token. */
  public: boolean;
  /** Creation time. */
  createdAt: string | null;
  /** Update time. */
  updatedAt: string | null;
  /** Per-object size cap in bytes; null when unset. */
  fileSizeLimit: number | null;
  /** MIME whitelist; null allows any. */
  allowedMimeTypes: string[] | null;
}

/** A file or folder entry. */
export interface FileObject {
  /** Name (relative to the listed prefix) or full key for info. */
  name: string;
  /** Object id; null for folders. */
  id: string | null;
  /** Bucket id. */
  bucketId: string | null;
  /** Creation time. */
  createdAt: string | null;
  /** Update time. */
  updatedAt: string | null;
  /** Server metadata (size, mimetype, eTag, ...). */
  metadata: JsonObject | null;
  /** Size in bytes. */
  size: number | null;
  /** Content type. */
  contentType: string | null;
  /** Entity tag. */
  etag: string | null;
  /** Last access time. */
  lastAccessedAt: string | null;
  /** Cache-Control of the object. */
  cacheControl: string | null;
}

/** An object of a v2 listing. */
export interface ObjectListV2Object {
  /** The object's full path in the bucket. */
  name: string;
  /**
   * Listed with `withDelimiter`, the path's segment at the listing's level (`x.txt` for
   * `a/b/x.txt` under the prefix `a/b/`); null otherwise (the server sends none). `name` is the
   * full path.
   */
  key: string | null;
  /** Object id. */
  id: string;
  /** Update time. */
  updatedAt: string | null;
  /** Creation time. */
  createdAt: string | null;
  /** Last access time. */
  lastAccessedAt: string | null;
  /** Server metadata. */
  metadata: JsonObject | null;
}

/** A folder of a v2 listing. */
export interface ObjectListV2Folder {
  /** The folder's full prefix, ending in `/` (`a/b/`). */
  name: string;
  /**
   * The folder's own segment, without the `/` (`b` for `a/b/` under the prefix `a/`), as the
   * Storage API sends it; `name` is the full prefix.
   */
  key: string | null;
}

/** A page of a v2 listing. */
export interface ObjectListV2Response {
  /** Whether more entries follow. */
  hasNext: boolean;
  /** Folders (with `withDelimiter`). */
  folders: ObjectListV2Folder[];
  /** Objects. */
  objects: ObjectListV2Object[];
  /** Cursor to pass back while `hasNext`. */
  nextCursor: string | null;
}

/** A signed upload URL. */
export interface UploadSignedUrl {
  /** Absolute upload URL. */
  url: string;
  /** The upload token. */
  token: string;
  /** The object path bound to the token. */
  path: string | null;
}

/**
 * Decodes a bucket.
 *
 * @example Decoding
 * ```ts
 * import { decodeBucket } from "@fetchbase/fetchbase/storage";
 *
 * console.log(decodeBucket({ id: "a", name: "a", public: true }).public); // true
 * ```
 *
 * @param json The wire value.
 * @returns The bucket.
 */
export function decodeBucket(json: unknown): Bucket {
  const o = asObject(json, "bucket");
  const id = optString(o, "id") ?? reqString(o, "name");
  return {
    id,
    name: optString(o, "name") ?? id,
    public: optBoolean(o, "public") ?? false,
    createdAt: optString(o, "created_at"),
    updatedAt: optString(o, "updated_at"),
    fileSizeLimit: optNumber(o, "file_size_limit"),
    allowedMimeTypes: optArray(o, "allowed_mime_types", String),
  };
}

/**
 * Decodes a file object (list entry or info answer, snake or camel case).
 *
 * @example Decoding
 * ```ts
 * import { decodeFileObject } from "@fetchbase/fetchbase/storage";
 *
 * console.log(decodeFileObject({ name: "a.txt", metadata: { size: 3 } }).size); // 3
 * ```
 *
 * @param json The wire value.
 * @returns The file object.
 */
export function decodeFileObject(json: unknown): FileObject {
  const o = asObject(json, "file object");
  const metadata = optObject(o, "metadata");
  const meta = metadata ?? {};
  const pick = (...keys: string[]) => {
    for (const k of keys) {
      const v = optString(o, k) ?? optString(meta, k);
      if (v !== null) return v;
    }
    return null;
  };
  return {
    name: reqString(o, "name"),
    id: optString(o, "id"),
    bucketId: pick("bucket_id", "bucketId"),
    createdAt: pick("created_at", "createdAt"),
    updatedAt: pick("updated_at", "updatedAt", "last_modified"),
    metadata,
    size: optNumber(o, "size") ?? optNumber(meta, "size") ?? optNumber(meta, "contentLength"),
    contentType: pick("content_type", "contentType", "mimetype"),
    etag: pick("etag", "eTag"),
    lastAccessedAt: pick("last_accessed_at", "lastAccessedAt"),
    cacheControl: pick("cache_control", "cacheControl"),
  };
}

/**
 * Decodes a v2 listing page.
 *
 * @example Decoding
 * ```ts
 * import { decodeObjectListV2 } from "@fetchbase/fetchbase/storage";
 *
 * console.log(decodeObjectListV2({ hasNext: false, folders: [], objects: [] }).hasNext); // false
 * ```
 *
 * @param json The wire value.
 * @returns The page.
 */
export function decodeObjectListV2(json: unknown): ObjectListV2Response {
  const o = asObject(json, "listing");
  return {
    hasNext: optBoolean(o, "hasNext") ?? false,
    folders: asArray(o.folders ?? [], "folders").map((f) => {
      const x = asObject(f, "folder");
      return { name: reqString(x, "name"), key: optString(x, "key") };
    }),
    objects: asArray(o.objects ?? [], "objects").map((v) => {
      const x = asObject(v, "object");
      return {
        name: reqString(x, "name"),
        key: optString(x, "key"),
        id: optString(x, "id") ?? "",
        updatedAt: optString(x, "updated_at"),
        createdAt: optString(x, "created_at"),
        lastAccessedAt: optString(x, "last_accessed_at"),
        metadata: optObject(x, "metadata"),
      };
    }),
    nextCursor: optString(o, "nextCursor"),
  };
}
