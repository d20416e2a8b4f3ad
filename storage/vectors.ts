/**
 * Vector buckets, indexes and vectors under `/storage/v1/vector` (the hosted
 * service's RPC-style routes such as `POST /vector/PutVectors`). Functions
 * over the base client; the storage client forwards to them.
 *
 * @module
 */

import type { BaseClient } from "../core/client.ts";
import { requestAfterRestore } from "../core/_token_wait.ts";
import {
  asArray,
  asObject,
  decodeResult,
  enumValue,
  type JsonObject,
  type JsonObjectInput,
  optArray,
  optNumber,
  optObject,
  optString,
  reqNumber,
  reqString,
} from "../core/decode.ts";
import { type Failure, failure, type ServiceResult, success } from "../core/result.ts";
import { showValue } from "../core/_show.ts";
import { isPlainObject } from "./_plain.ts";
import { dropNulls } from "./_ops.ts";
import { jsonLossAt } from "../core/_json_loss.ts";

/**
 * Vector component types; `UNKNOWN` for anything else.
 *
 * @example Float32
 * ```ts
 * import { VectorDataType } from "@fetchbase/fetchbase/storage";
 *
 * console.log(VectorDataType.FLOAT32); // float32
 * ```
 */
export const VectorDataType = { FLOAT32: "float32", UNKNOWN: "unknown" } as const;
/** One of the {@linkcode VectorDataType} values. */
export type VectorDataType = typeof VectorDataType[keyof typeof VectorDataType];

/**
 * Similarity metrics; `UNKNOWN` for anything else.
 *
 * @example A metric's wire value
 * ```ts
 * import { VectorDistanceMetric } from "@fetchbase/fetchbase/storage";
 *
 * console.log(VectorDistanceMetric.DOT_PRODUCT); // dotproduct
 * ```
 */
export const VectorDistanceMetric = {
  COSINE: "cosine",
  EUCLIDEAN: "euclidean",
  DOT_PRODUCT: "dotproduct",
  UNKNOWN: "unknown",
} as const;
/** One of the {@linkcode VectorDistanceMetric} values. */
export type VectorDistanceMetric = typeof VectorDistanceMetric[keyof typeof VectorDistanceMetric];

/** A vector bucket. */
export interface VectorBucket {
  /** Name. */
  vectorBucketName: string;
  /** Creation time (epoch seconds). */
  creationTime: number | null;
  /** Encryption settings. */
  encryptionConfiguration: JsonObject | null;
}
/** Envelope of get-bucket. */
export interface VectorBucketResponse {
  /** The bucket. */
  vectorBucket: VectorBucket;
}
/** A bucket in a listing. */
export interface VectorBucketListItem {
  /** Name. */
  vectorBucketName: string;
}
/** A page of buckets. */
export interface VectorBucketListResponse {
  /** The buckets. */
  vectorBuckets: VectorBucketListItem[];
  /** Token for the next page. */
  nextToken: string | null;
}
/** Metadata filtering settings of an index. */
export interface VectorMetadataConfiguration {
  /** Keys that queries cannot filter on. */
  nonFilterableMetadataKeys: string[] | null;
}
/** A vector index. */
export interface VectorIndex {
  /** Index name. */
  indexName: string;
  /** Bucket name. */
  vectorBucketName: string;
  /** Component type. */
  dataType: VectorDataType;
  /** Vector length. */
  dimension: number;
  /** Similarity metric. */
  distanceMetric: VectorDistanceMetric;
  /** Metadata settings. */
  metadataConfiguration: VectorMetadataConfiguration | null;
  /** Creation time. */
  creationTime: number | null;
}
/** Envelope of get-index. */
export interface VectorIndexResponse {
  /** The index. */
  index: VectorIndex;
}
/** An index in a listing. */
export interface VectorIndexListItem {
  /** Index name. */
  indexName: string;
}
/** A page of indexes. */
export interface VectorIndexListResponse {
  /** The indexes. */
  indexes: VectorIndexListItem[];
  /** Token for the next page. */
  nextToken: string | null;
}
/** Vector components; the length must equal the index dimension. */
export interface VectorData {
  /** 32-bit float components. */
  float32: number[];
}
/**
 * Vector components as given to store or query: a list of numbers, or a `Float32Array` or
 * `Float64Array` as embedding models give them, sent as a list. The length must equal the index
 * dimension.
 */
export interface VectorDataInput {
  /** 32-bit float components. */
  float32: readonly number[] | Float32Array | Float64Array;
}
/** A vector to store. */
export interface VectorObject {
  /** Unique key in the index. */
  key: string;
  /** The vector. */
  data: VectorDataInput;
  /** Metadata: a plain object (a `Map`, a `Date` or a list is refused before sending). */
  metadata?: JsonObjectInput | null | undefined;
}
/** A vector returned by get, list or query. */
export interface VectorMatch {
  /** Key. */
  key: string;
  /** The vector (when asked for). */
  data: VectorData | null;
  /** Metadata (when asked for). */
  metadata: JsonObject | null;
  /** Distance (query results). */
  distance: number | null;
}
/** A page of vectors. */
export interface VectorListResponse {
  /** The vectors. */
  vectors: VectorMatch[];
  /** Token for the next page. */
  nextToken: string | null;
}
/** Query results, ranked by similarity. */
export interface VectorQueryResponse {
  /** The matches. */
  vectors: VectorMatch[];
  /** The index's metric. */
  distanceMetric: VectorDistanceMetric | null;
}

/** Cancellation. */
export interface VectorCallOptions {
  /** Cancels the call. */
  signal?: AbortSignal | undefined;
}

function call<T>(
  client: BaseClient,
  op: string,
  body: Record<string, unknown>,
  decode: (v: unknown) => T,
  o?: VectorCallOptions,
) {
  // Every operation names its bucket, and most an index: a missing or blank name is the caller's.
  o ??= {};
  for (const key of ["vectorBucketName", "indexName"]) {
    const name = body[key];
    if (key in body && !(typeof name === "string" && name.trim() !== "")) {
      return Promise.resolve(failure({
        message: `Cannot call ${op} as '${key}' must be a non-blank string: current value is ${
          showValue(name)
        }`,
        category: "INVALID_ARGUMENT",
      }));
    }
  }
  return requestAfterRestore(client, {
    method: "POST",
    area: "storage",
    path: `/vector/${op}`,
    json: dropNulls(body),
    // An operation without a result ignores the body, whatever it holds ("OK", HTML...).
    responseType: decode === (unit as unknown) ? "none" : "json",
    signal: o.signal,
  })
    .then((r) => decodeResult(r, (v) => decode(v.body)));
}

const unit = (): void => undefined;
/** A vector's data; null for one of a type this client does not know (no `float32`). */
function decodeData(v: unknown): VectorData | null {
  const { float32 } = asObject(v, "data");
  return float32 === undefined ? null : { float32: asArray(float32, "float32").map(Number) };
}
/** Typed-array components as the list JSON sends (JSON writes a Float32Array as an object). */
const listed = <T extends VectorDataInput | null | undefined>(v: T): T =>
  v && ArrayBuffer.isView(v.float32) ? { ...v, float32: Array.from(v.float32) } : v;
function decodeMatch(v: unknown): VectorMatch {
  const o = asObject(v, "vector");
  return {
    key: reqString(o, "key"),
    data: o.data ? decodeData(o.data) : null,
    metadata: optObject(o, "metadata"),
    distance: optNumber(o, "distance"),
  };
}
function decodeIndex(v: unknown): VectorIndex {
  const o = asObject(v, "index");
  const meta = optObject(o, "metadataConfiguration");
  return {
    indexName: reqString(o, "indexName"),
    vectorBucketName: reqString(o, "vectorBucketName"),
    dataType: enumValue(VectorDataType, o.dataType, VectorDataType.UNKNOWN),
    dimension: reqNumber(o, "dimension"),
    distanceMetric: enumValue(VectorDistanceMetric, o.distanceMetric, VectorDistanceMetric.UNKNOWN),
    metadataConfiguration: meta
      ? { nonFilterableMetadataKeys: optArray(meta, "nonFilterableMetadataKeys", String) }
      : null,
    creationTime: optNumber(o, "creationTime"),
  };
}

function checkBatch(n: number, what: string) {
  if (!Number.isInteger(n) || n < 1 || n > 500) {
    throw new RangeError(
      `Cannot ${what} as the batch must hold 1 to 500 items: current size is ${n}`,
    );
  }
}

/**
 * Whether every component is a number finite as a float32 (beyond
 * ±3.4028234663852886e38 the server would store ±Infinity). Holes of a
 * sparse array count as missing: JSON would send them as null.
 */
function allFiniteFloat32(list: readonly number[]): boolean {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (typeof x !== "number" || !Number.isFinite(Math.fround(x))) return false;
  }
  return true;
}

function checkDimension(
  vectors: readonly (VectorDataInput | null | undefined)[],
  dimension: number | null | undefined,
): ServiceResult<void> {
  // Without the index's dimension, a batch must at least agree with itself: vectors of two
  // lengths cannot all match the one dimension the index has.
  let first: number | null = null;
  for (const [i, v] of vectors.entries()) {
    if (
      !v || !Array.isArray(v.float32) || !allFiniteFloat32(v.float32)
    ) {
      return failure({
        message: `Vector ${i} must hold finite float32 components`,
        category: "INVALID_ARGUMENT",
      });
    }
    const length = v.float32.length;
    if (length === 0) {
      // The Storage API's dimensions start at 1: no index takes an empty vector.
      return failure({
        message: `Vector ${i} has no components`,
        category: "INVALID_ARGUMENT",
      });
    }
    if (dimension !== undefined && dimension !== null && length !== dimension) {
      // One of the document's Limits ("Vector length"): thrown, as the batch limits are.
      throw new RangeError(
        `Vector ${i} has ${length} components but the index dimension is ${dimension}`,
      );
    }
    first ??= length;
    if (length !== first) {
      return failure({
        message: `Vector ${i} has ${length} components but vector 0 has ${first}`,
        category: "INVALID_ARGUMENT",
      });
    }
  }
  return success(undefined);
}

export function createVectorBucket(
  client: BaseClient,
  vectorBucketName: string,
  o?: VectorCallOptions,
): Promise<ServiceResult<void>> {
  return call(client, "CreateVectorBucket", { vectorBucketName }, unit, o);
}
export function getVectorBucket(
  client: BaseClient,
  vectorBucketName: string,
  o?: VectorCallOptions,
): Promise<ServiceResult<VectorBucket>> {
  return call(client, "GetVectorBucket", { vectorBucketName }, (v) => {
    const b = asObject(asObject(v, "answer").vectorBucket, "vectorBucket");
    return {
      vectorBucketName: reqString(b, "vectorBucketName"),
      creationTime: optNumber(b, "creationTime"),
      encryptionConfiguration: optObject(b, "encryptionConfiguration"),
    };
  }, o);
}
/** Decodes a `{ <list>: [{ <name> }], nextToken }` page of names. */
function namesPage(
  v: unknown,
  list: string,
  name: string,
): { items: Array<Record<string, string>>; nextToken: string | null } {
  const a = asObject(v, "answer");
  return {
    items: asArray(a[list] ?? [], list).map((x) => ({ [name]: reqString(asObject(x), name) })),
    nextToken: optString(a, "nextToken"),
  };
}

/** Options of {@linkcode listVectorBuckets}. */
export interface ListVectorBucketsOptions extends VectorCallOptions {
  /** Name prefix. */
  prefix?: string | null | undefined;
  /** Page size. */
  maxResults?: number | null | undefined;
  /** Token from the previous page. */
  nextToken?: string | null | undefined;
}
export function listVectorBuckets(
  client: BaseClient,
  o?: ListVectorBucketsOptions,
): Promise<ServiceResult<VectorBucketListResponse>> {
  o ??= {};
  return call(client, "ListVectorBuckets", {
    prefix: o.prefix,
    maxResults: o.maxResults,
    nextToken: o.nextToken,
  }, (v) => {
    const { items, nextToken } = namesPage(v, "vectorBuckets", "vectorBucketName");
    return { vectorBuckets: items as Array<{ vectorBucketName: string }>, nextToken };
  }, o);
}
export function deleteVectorBucket(
  client: BaseClient,
  vectorBucketName: string,
  o?: VectorCallOptions,
): Promise<ServiceResult<void>> {
  return call(client, "DeleteVectorBucket", { vectorBucketName }, unit, o);
}
export function createVectorIndex(
  client: BaseClient,
  vectorBucketName: string,
  indexName: string,
  dataType: Exclude<VectorDataType, "unknown">,
  dimension: number,
  distanceMetric: Exclude<VectorDistanceMetric, "unknown">,
  o?: VectorCallOptions & {
    metadataConfiguration?: VectorMetadataConfiguration | null | undefined;
  },
): Promise<ServiceResult<void>> {
  // Not one of the document's Limits: a Failure, as every other malformed request.
  o ??= {};
  if (!Number.isSafeInteger(dimension) || dimension <= 0) {
    return Promise.resolve(failure({
      message:
        `Cannot create the index as 'dimension' must be a positive integer: current value is ${
          showValue(dimension)
        }`,
      category: "INVALID_ARGUMENT",
    }));
  }
  return call(
    client,
    "CreateIndex",
    {
      vectorBucketName,
      indexName,
      dataType,
      dimension,
      distanceMetric,
      // The Storage API refuses a configuration without keys: none is sent then.
      metadataConfiguration: o.metadataConfiguration?.nonFilterableMetadataKeys?.length
        ? { nonFilterableMetadataKeys: o.metadataConfiguration.nonFilterableMetadataKeys }
        : undefined,
    },
    unit,
    o,
  );
}
export function getVectorIndex(
  client: BaseClient,
  vectorBucketName: string,
  indexName: string,
  o?: VectorCallOptions,
): Promise<ServiceResult<VectorIndex>> {
  return call(
    client,
    "GetIndex",
    { vectorBucketName, indexName },
    (v) => decodeIndex(asObject(v, "answer").index),
    o,
  );
}
export function listVectorIndexes(
  client: BaseClient,
  vectorBucketName: string,
  o?: ListVectorBucketsOptions,
): Promise<ServiceResult<VectorIndexListResponse>> {
  o ??= {};
  return call(client, "ListIndexes", {
    vectorBucketName,
    prefix: o.prefix,
    maxResults: o.maxResults,
    nextToken: o.nextToken,
  }, (v) => {
    const { items, nextToken } = namesPage(v, "indexes", "indexName");
    return { indexes: items as Array<{ indexName: string }>, nextToken };
  }, o);
}
export function deleteVectorIndex(
  client: BaseClient,
  vectorBucketName: string,
  indexName: string,
  o?: VectorCallOptions,
): Promise<ServiceResult<void>> {
  return call(client, "DeleteIndex", { vectorBucketName, indexName }, unit, o);
}
export function putVectors(
  client: BaseClient,
  vectorBucketName: string,
  indexName: string,
  vectors: readonly VectorObject[],
  o?: VectorCallOptions & { dimension?: number | null | undefined },
): Promise<ServiceResult<void>> {
  o ??= {};
  if (!Array.isArray(vectors)) {
    return Promise.resolve(failure({
      message: "Cannot put vectors as 'vectors' must be an array",
      category: "INVALID_ARGUMENT",
    }));
  }
  checkBatch(vectors.length, "put vectors");
  const bad = vectors.findIndex((v) =>
    v === null || typeof v !== "object" || typeof v.key !== "string"
  );
  if (bad >= 0) {
    return Promise.resolve(failure({
      message: `Vector ${bad} must be an object with a string key`,
      category: "INVALID_ARGUMENT",
    }));
  }
  // JSON writes a Map as {}, which replaces the stored metadata of the key with nothing.
  const badMeta = vectors.findIndex((v) => v.metadata != null && !isPlainObject(v.metadata));
  if (badMeta >= 0) {
    return Promise.resolve(failure({
      message: `Cannot put vectors as the metadata of vector ${badMeta} must be a JSON object: ` +
        `current value is ${showValue(vectors[badMeta]!.metadata)}`,
      category: "INVALID_ARGUMENT",
    }));
  }
  for (let i = 0; i < vectors.length; i++) {
    const loss = jsonLossAt(vectors[i]!.metadata, `vectors[${i}].metadata`);
    if (loss) return Promise.resolve(jsonLoss("put vectors", loss));
  }
  const data = vectors.map((v) => listed(v.data));
  const dims = checkDimension(data, o.dimension);
  if (!dims.ok) return Promise.resolve(dims);
  return call(
    client,
    "PutVectors",
    {
      vectorBucketName,
      indexName,
      vectors: vectors.map((
        v,
        i,
      ) => (v.metadata
        ? { key: v.key, data: data[i], metadata: v.metadata }
        : { key: v.key, data: data[i] })
      ),
    },
    unit,
    o,
  );
}
/** The Failure of a value JSON would write as something else (`jsonLossAt`). */
function jsonLoss(what: string, [path, type]: [string, string]): Failure {
  return failure({
    message: `Cannot ${what} as '${path}' must be JSON, not a ${type}`,
    category: "INVALID_ARGUMENT",
  });
}

/**
 * A Failure when `keys` is no array of strings (a string has a length too: "abc" went as
 * `"keys": "abc"`, which the server reads as nothing), else null.
 */
function notKeys(keys: unknown, what: string): Failure | null {
  // An indexed loop: `every` skips a sparse array's holes, which would go out as null.
  let ok = Array.isArray(keys);
  for (let i = 0; ok && i < (keys as unknown[]).length; i++) {
    ok = typeof (keys as unknown[])[i] === "string";
  }
  return ok ? null : failure({
    message: `Cannot ${what} as 'keys' must be an array of strings: current value is ${
      showValue(keys)
    }`,
    category: "INVALID_ARGUMENT",
  });
}

export function getVectors(
  client: BaseClient,
  vectorBucketName: string,
  indexName: string,
  keys: readonly string[],
  o?: VectorCallOptions & {
    returnData?: boolean | null | undefined;
    returnMetadata?: boolean | null | undefined;
  },
): Promise<ServiceResult<VectorMatch[]>> {
  o ??= {};
  const bad = notKeys(keys, "get vectors");
  if (bad) return Promise.resolve(bad);
  return call(
    client,
    "GetVectors",
    {
      vectorBucketName,
      indexName,
      keys,
      returnData: o.returnData,
      returnMetadata: o.returnMetadata,
    },
    (v) => asArray(asObject(v, "answer").vectors ?? [], "vectors").map(decodeMatch),
    o,
  );
}
/** Options of {@linkcode listVectors}. */
export interface ListVectorsOptions extends VectorCallOptions {
  /** Page size. */
  maxResults?: number | null | undefined;
  /** Token from the previous page. */
  nextToken?: string | null | undefined;
  /** Include vector data. */
  returnData?: boolean | null | undefined;
  /** Include metadata. */
  returnMetadata?: boolean | null | undefined;
  /** Parallel scan: number of segments, 1..16. */
  segmentCount?: number | null | undefined;
  /** Parallel scan: this segment, 0..segmentCount-1. */
  segmentIndex?: number | null | undefined;
}
export function listVectors(
  client: BaseClient,
  vectorBucketName: string,
  indexName: string,
  o?: ListVectorsOptions,
): Promise<ServiceResult<VectorListResponse>> {
  o ??= {};
  const { segmentCount: count, segmentIndex: index } = o;
  if (count != null && (!Number.isInteger(count) || count < 1 || count > 16)) {
    throw new RangeError(
      `Cannot list vectors as 'segmentCount' must be 1..16: current value is ${showValue(count)}`,
    );
  }
  // Not one of the document's Limits (those are the ranges): a Failure.
  if ((count == null) !== (index == null)) {
    return Promise.resolve(failure({
      message: "Cannot list vectors as 'segmentCount' and 'segmentIndex' must be given together",
      category: "INVALID_ARGUMENT",
    }));
  }
  // Both given, or neither.
  if (index != null && (!Number.isInteger(index) || index < 0 || index >= count!)) {
    throw new RangeError(
      `Cannot list vectors as 'segmentIndex' must be 0..${count! - 1}: current value is ${
        showValue(index)
      }`,
    );
  }
  return call(client, "ListVectors", {
    vectorBucketName,
    indexName,
    maxResults: o.maxResults,
    nextToken: o.nextToken,
    returnData: o.returnData,
    returnMetadata: o.returnMetadata,
    segmentCount: count,
    segmentIndex: index,
  }, (v) => {
    const a = asObject(v, "answer");
    return {
      vectors: asArray(a.vectors ?? [], "vectors").map(decodeMatch),
      nextToken: optString(a, "nextToken"),
    };
  }, o);
}
/**
 * Matches a query asks for when `topK` is not given (the Storage API requires a value).
 *
 * @example The default
 * ```ts
 * import { QUERY_VECTORS_DEFAULT_TOP_K } from "@fetchbase/fetchbase/storage";
 *
 * console.log(QUERY_VECTORS_DEFAULT_TOP_K); // 10
 * ```
 */
export const QUERY_VECTORS_DEFAULT_TOP_K = 10;

/** Options of {@linkcode queryVectors}. */
export interface QueryVectorsOptions extends VectorCallOptions {
  /** How many matches. Default {@linkcode QUERY_VECTORS_DEFAULT_TOP_K} (10). */
  topK?: number | null | undefined;
  /** Metadata filter: a plain object (a `Map`, a `Date` or a list is refused before sending). */
  filter?: JsonObjectInput | null | undefined;
  /** Include distances. */
  returnDistance?: boolean | null | undefined;
  /** Include metadata. */
  returnMetadata?: boolean | null | undefined;
  /** The index dimension, when known: a query of another length fails before sending. */
  dimension?: number | null | undefined;
}
export function queryVectors(
  client: BaseClient,
  vectorBucketName: string,
  indexName: string,
  queryVector: VectorDataInput,
  o?: QueryVectorsOptions,
): Promise<ServiceResult<VectorQueryResponse>> {
  o ??= {};
  queryVector = listed(queryVector);
  const dims = checkDimension([queryVector], o.dimension);
  if (!dims.ok) return Promise.resolve(dims);
  if (o.filter != null && !isPlainObject(o.filter)) {
    return Promise.resolve(failure({
      message: `Cannot query vectors as 'filter' must be a JSON object: current value is ${
        showValue(o.filter)
      }`,
      category: "INVALID_ARGUMENT",
    }));
  }
  const loss = jsonLossAt(o.filter, "filter");
  if (loss) return Promise.resolve(jsonLoss("query vectors", loss));
  return call(client, "QueryVectors", {
    vectorBucketName,
    indexName,
    queryVector,
    // The Storage API requires topK (1 to 100); the document makes it optional.
    topK: o.topK ?? QUERY_VECTORS_DEFAULT_TOP_K,
    filter: o.filter,
    returnDistance: o.returnDistance,
    returnMetadata: o.returnMetadata,
  }, (v) => {
    const a = asObject(v, "answer");
    return {
      vectors: asArray(a.vectors ?? [], "vectors").map(decodeMatch),
      distanceMetric: enumValue(
        VectorDistanceMetric,
        a.distanceMetric,
        VectorDistanceMetric.UNKNOWN,
      ),
    };
  }, o);
}
export function deleteVectors(
  client: BaseClient,
  vectorBucketName: string,
  indexName: string,
  keys: readonly string[],
  o?: VectorCallOptions,
): Promise<ServiceResult<void>> {
  const bad = notKeys(keys, "delete vectors");
  if (bad) return Promise.resolve(bad);
  checkBatch(keys.length, "delete vectors");
  return call(client, "DeleteVectors", { vectorBucketName, indexName, keys }, unit, o);
}
