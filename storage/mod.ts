/**
 * The storage area: buckets, objects (streamed uploads and downloads, byte
 * ranges), listings and paginators, signed and local URLs, resumable uploads
 * (TUS), analytics buckets with their Iceberg REST catalog, and vector
 * buckets, indexes and vectors.
 *
 * @example Upload a stream and share it
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createStorageClient } from "@fetchbase/fetchbase/storage";
 *
 * const storage = createStorageClient(createBaseClient("https://p.example", "anon-key"));
 * const body = new Blob(["hello"]).stream();
 * await storage.upload("docs", "hello.txt", body, { contentType: "text/plain" });
 * const url = await storage.createSignedUrl("docs", "hello.txt", 60);
 * ```
 *
 * @module
 */

export * from "../core/mod.ts";
export * from "./client.ts";
export * from "./extensions.ts";
export * from "./models.ts";
export * from "./tus.ts";
export { AnalyticsCatalogClient, encodeNamespace } from "./analytics.ts";
export type {
  AnalyticsBucket,
  CatalogCallOptions,
  CatalogJsonObject,
  CatalogJsonValue,
  IcebergCatalogConfig,
  IcebergCreateNamespaceRequest,
  IcebergNamespaceListResponse,
  IcebergNamespaceMetadata,
  IcebergTableCommitRequest,
  IcebergTableCreateRequest,
  IcebergTableIdentifier,
  IcebergTableListResponse,
  IcebergTableMetadataResponse,
  IcebergTableRegisterRequest,
  IcebergUpdateNamespacePropertiesRequest,
  IcebergUpdateNamespacePropertiesResponse,
  ListAnalyticsBucketsOptions,
} from "./analytics.ts";
export { QUERY_VECTORS_DEFAULT_TOP_K, VectorDataType, VectorDistanceMetric } from "./vectors.ts";
export type {
  ListVectorBucketsOptions,
  ListVectorsOptions,
  QueryVectorsOptions,
  VectorBucket,
  VectorBucketListItem,
  VectorBucketListResponse,
  VectorBucketResponse,
  VectorCallOptions,
  VectorData,
  VectorDataInput,
  VectorIndex,
  VectorIndexListItem,
  VectorIndexListResponse,
  VectorIndexResponse,
  VectorListResponse,
  VectorMatch,
  VectorMetadataConfiguration,
  VectorObject,
  VectorQueryResponse,
} from "./vectors.ts";
