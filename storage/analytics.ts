/**
 * Analytics buckets and the Apache Iceberg REST catalog under
 * `/storage/v1/iceberg`. Every catalog operation has a raw form returning the
 * JSON as sent (unknown fields kept) and a `Typed` form.
 *
 * @module
 */

import { ABORTED, cancelled, refusedSignal, untilAborted } from "../core/_abort.ts";
import { parseJsonInt64, stringifyJson } from "../core/_json_int64.ts";
import type { BaseClient } from "../core/client.ts";
import { requestAfterRestore } from "../core/_token_wait.ts";
import {
  asArray,
  asObject,
  decodeResult,
  type JsonValue,
  optObject,
  optString,
  reqString,
} from "../core/decode.ts";
import { failure, type ServiceResult, success } from "../core/result.ts";
import type { QueryInit } from "../core/query.ts";
import type { SortOrder } from "./models.ts";
import { bucketQuery } from "./_ops.ts";
import { encodeComponent } from "../core/_uri.ts";
import { showValue } from "../core/_show.ts";
import { isPlainObject } from "./_plain.ts";

/**
 * A JSON value of the Iceberg catalog: JSON, where integers beyond 2^53
 * (snapshot ids, sequence numbers) are `bigint`, read and written exactly.
 */
export type CatalogJsonValue =
  | JsonValue
  | bigint
  | CatalogJsonValue[]
  | { [key: string]: CatalogJsonValue };
/** A JSON object of the Iceberg catalog (see {@linkcode CatalogJsonValue}). */
export type CatalogJsonObject = { [key: string]: CatalogJsonValue };

/** An analytics (Iceberg) bucket. */
export interface AnalyticsBucket {
  /** Name. */
  name: string;
  /** Type (`ANALYTICS`). */
  type: string;
  /** Table format (e.g. `iceberg`). */
  format: string;
  /** Creation time. */
  createdAt: string | null;
  /** Update time. */
  updatedAt: string | null;
}

/** Cancellation. */
export interface CatalogCallOptions {
  /** Cancels the call. */
  signal?: AbortSignal | undefined;
}

function decodeAnalyticsBucket(v: unknown): AnalyticsBucket {
  const o = asObject(v, "analytics bucket");
  return {
    name: optString(o, "name") ?? reqString(o, "id"),
    type: optString(o, "type") ?? "ANALYTICS",
    format: optString(o, "format") ?? "iceberg",
    createdAt: optString(o, "created_at"),
    updatedAt: optString(o, "updated_at"),
  };
}

export function createAnalyticsBucket(
  client: BaseClient,
  name: string,
  o?: CatalogCallOptions,
): Promise<ServiceResult<AnalyticsBucket>> {
  o ??= {};
  return requestAfterRestore(client, {
    method: "POST",
    area: "storage",
    path: "/iceberg/bucket",
    json: { name },
    signal: o.signal,
  })
    .then((r) =>
      decodeResult(
        r,
        (v) => (v.body && typeof v.body === "object" && "name" in v.body
          ? decodeAnalyticsBucket(v.body)
          : decodeAnalyticsBucket({ name })),
      )
    );
}

/** Options of {@linkcode listAnalyticsBuckets}: the same as `listBuckets`. */
export interface ListAnalyticsBucketsOptions extends CatalogCallOptions {
  /** Page size. */
  limit?: number | null | undefined;
  /** Rows to skip. */
  offset?: number | null | undefined;
  /** Sort column. */
  sortColumn?: string | null | undefined;
  /** Sort direction. */
  sortOrder?: SortOrder | null | undefined;
  /** Case-sensitive name filter (SQL `LIKE`). */
  search?: string | null | undefined;
}

export async function listAnalyticsBuckets(
  client: BaseClient,
  o?: ListAnalyticsBucketsOptions,
): Promise<ServiceResult<AnalyticsBucket[]>> {
  o ??= {};
  const r = await requestAfterRestore(client, {
    area: "storage",
    path: "/iceberg/bucket",
    query: bucketQuery(o, "list analytics buckets"),
    signal: o.signal,
  });
  return decodeResult(r, (v) => asArray(v.body, "buckets").map(decodeAnalyticsBucket));
}

export function deleteAnalyticsBucket(
  client: BaseClient,
  name: string,
  o?: CatalogCallOptions,
): Promise<ServiceResult<void>> {
  o ??= {};
  let path: string;
  try {
    path = `/iceberg/bucket/${nameSegment(name, "bucket name")}`;
  } catch (error) {
    return Promise.resolve(invalidArgument(error));
  }
  return requestAfterRestore(client, {
    method: "DELETE",
    area: "storage",
    path,
    json: {},
    responseType: "none",
    signal: o.signal,
  }).then((r) => r.map(() => undefined));
}

// Iceberg models

/** Catalog configuration; overrides win over defaults. */
export interface IcebergCatalogConfig {
  /** Defaults. */
  defaults: Record<string, string>;
  /** Overrides. */
  overrides: Record<string, string>;
}
/** A page of namespaces. */
export interface IcebergNamespaceListResponse {
  /** Namespaces, each a list of levels. */
  namespaces: string[][];
  /** `next-page-token`. */
  nextPageToken: string | null;
  /** `nextPageToken` (camel case). */
  nextPageTokenCamelCase: string | null;
  /** Either casing, null if absent. */
  readonly resolvedNextPageToken: string | null;
}
/** A namespace to create. */
export interface IcebergCreateNamespaceRequest {
  /** Levels. */
  namespace: readonly string[];
  /** Properties. Default empty. */
  properties?: Record<string, string> | undefined;
}
/** A namespace's metadata. */
export interface IcebergNamespaceMetadata {
  /** Levels. */
  namespace: string[];
  /** Properties. */
  properties: Record<string, string>;
}
/** Property changes. */
export interface IcebergUpdateNamespacePropertiesRequest {
  /** Keys to remove. */
  removals?: readonly string[] | null | undefined;
  /** Keys to set. */
  updates?: Record<string, string> | null | undefined;
}
/** The outcome of property changes. */
export interface IcebergUpdateNamespacePropertiesResponse {
  /** Removed keys. */
  removed: string[];
  /** Updated keys. */
  updated: string[];
  /** Keys that were not present. */
  missing: string[];
}
/** A table identifier. */
export interface IcebergTableIdentifier {
  /** Namespace levels. */
  namespace: string[];
  /** Table name. */
  name: string;
}
/** A page of tables. */
export interface IcebergTableListResponse {
  /** Identifiers. */
  identifiers: IcebergTableIdentifier[];
  /** `next-page-token`. */
  nextPageToken: string | null;
  /** `nextPageToken` (camel case). */
  nextPageTokenCamelCase: string | null;
  /** Either casing, null if absent. */
  readonly resolvedNextPageToken: string | null;
}
/** A table to create. */
export interface IcebergTableCreateRequest {
  /** Name. */
  name: string;
  /** Iceberg schema. */
  schema: CatalogJsonObject;
  /** Location. */
  location?: string | null | undefined;
  /** Partition spec. */
  partitionSpec?: CatalogJsonObject | null | undefined;
  /** Write order. */
  writeOrder?: CatalogJsonObject | null | undefined;
  /** Properties. Default empty. */
  properties?: Record<string, string> | undefined;
}
/** A commit: requirements and updates applied atomically. */
export interface IcebergTableCommitRequest {
  /** Requirements. */
  requirements?: CatalogJsonObject[] | undefined;
  /** Updates. */
  updates?: CatalogJsonObject[] | undefined;
}
/** A table to register from existing metadata. */
export interface IcebergTableRegisterRequest {
  /** Name. */
  name: string;
  /** `metadata-location`. */
  metadataLocation: string;
}
/** Table metadata as the catalog returns it. */
export interface IcebergTableMetadataResponse {
  /** Name, when sent. */
  name: string | null;
  /** The table metadata. */
  metadata: CatalogJsonObject | null;
  /** Table config. */
  config: Record<string, string>;
  /** `metadata-location`. */
  metadataLocation: string | null;
}

const strMap = (v: unknown): Record<string, string> =>
  v && typeof v === "object" && !Array.isArray(v)
    ? Object.fromEntries(
      Object.entries(v as Record<string, unknown>)
        .filter(([, x]) => x !== null && x !== undefined)
        .map(([k, x]) => [k, String(x)]),
    )
    : {};
const strList = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);
/** A thrown argument error as the Failure every async operation answers with. */
function invalidArgument(error: unknown) {
  return failure({
    message: error instanceof Error ? error.message : String(error),
    category: "INVALID_ARGUMENT",
    cause: error,
  });
}

/** `pageSize` as sent: a positive integer (`RangeError` otherwise, which the call resolves as a Failure). */
function pageSizeOf(size: unknown): string | undefined {
  if (size == null) return undefined;
  if (!(Number.isSafeInteger(size) && (size as number) > 0)) {
    throw new RangeError(
      `Cannot list as 'pageSize' must be a positive integer: current value is ${showValue(size)}`,
    );
  }
  return String(size);
}

function pageTokens<T extends object>(o: Record<string, unknown>, rest: T) {
  const snake = optString(o, "next-page-token");
  const camel = optString(o, "nextPageToken");
  return {
    ...rest,
    nextPageToken: snake,
    nextPageTokenCamelCase: camel,
    resolvedNextPageToken: snake ?? camel,
  };
}
const decodeTableMeta = (v: unknown): IcebergTableMetadataResponse => {
  const o = asObject(v, "table");
  return {
    name: optString(o, "name"),
    metadata: optObject(o, "metadata"),
    config: strMap(o.config),
    metadataLocation: optString(o, "metadata-location"),
  };
};

/**
 * Encodes a name as one path segment. Empty, `.` and `..` are refused: URL
 * parsers resolve dot segments, and an empty one reaches another route.
 */
function nameSegment(name: string, what: string): string {
  if (typeof name !== "string" || name === "" || name === "." || name === "..") {
    throw new TypeError(
      `Cannot use the ${what} as it must be a non-empty string other than . and ..: current value is ${
        showValue(name)
      }`,
    );
  }
  return encodeComponent(name);
}

/**
 * Encodes a multi-level namespace as the protocol requires (levels joined by
 * U+001F), as one path segment. Throws `TypeError` for an empty list, an
 * empty level or a level holding U+001F.
 *
 * @example Encoding
 * ```ts
 * import { encodeNamespace } from "@fetchbase/fetchbase/storage";
 *
 * console.log(encodeNamespace(["sales", "eu"])); // sales%1Feu
 * ```
 *
 * @param namespace The levels, outermost first.
 * @returns The encoded path segment.
 */
export function encodeNamespace(namespace: readonly string[]): string {
  // An indexed loop: `some` skips a sparse list's holes, which `join` writes as empty levels.
  let ok = Array.isArray(namespace) && namespace.length > 0;
  for (let i = 0; ok && i < namespace.length; i++) {
    const level = namespace[i];
    ok = typeof level === "string" && level !== "" && !level.includes("\u001f");
  }
  if (!ok) {
    throw new TypeError(
      "Cannot use the namespace as it must be a non-empty list of non-empty levels without U+001F",
    );
  }
  return nameSegment(namespace.join("\u001f"), "namespace");
}

/**
 * Throws `TypeError` unless a property map left out or given is a plain object: JSON writes a
 * `Map` as `{}`, which would send no properties at all.
 */
function checkProperties(value: unknown, name: string): void {
  if (value != null && !isPlainObject(value)) {
    throw new TypeError(
      `Cannot send the properties as '${name}' must be a plain object: current value is ${
        showValue(value)
      }`,
    );
  }
}

/** Whether a typed request is an object (JavaScript callers may pass anything). */
function isRequest(request: unknown): boolean {
  return request !== null && typeof request === "object";
}

function noRequest(): ServiceResult<never> {
  return failure({
    message: "Cannot call the catalog as 'request' must be an object",
    category: "INVALID_ARGUMENT",
  });
}

/**
 * An Iceberg REST catalog client for one analytics bucket (warehouse). The
 * route prefix comes from `GET /v1/config` (overrides, then defaults), read
 * once and cached; without one, the bucket name is the prefix.
 *
 * @example Namespaces and tables
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createStorageClient } from "@fetchbase/fetchbase/storage";
 *
 * const storage = createStorageClient(createBaseClient("https://p.example", "service-key"));
 * const catalog = storage.analyticsCatalog("lake");
 * await catalog.createNamespaceTyped({ namespace: ["sales", "eu"] });
 * const tables = await catalog.listTablesTyped(["sales", "eu"]);
 * ```
 */
export class AnalyticsCatalogClient {
  readonly #client: BaseClient;
  /** The bucket (warehouse) name. */
  readonly bucketName: string;
  #prefix: Promise<ServiceResult<string>> | null = null;

  /**
   * Builds the client; prefer `analyticsCatalog`.
   *
   * @param client The base client.
   * @param bucketName The analytics bucket.
   * @throws {TypeError} For a name `analyticsCatalog` refuses.
   */
  constructor(client: BaseClient, bucketName: string) {
    checkCatalogName(bucketName);
    this.#client = client;
    this.bucketName = bucketName;
  }

  #request(
    method: string,
    path: string,
    o?: CatalogCallOptions & { query?: QueryInit | undefined; json?: unknown },
  ): Promise<ServiceResult<CatalogJsonObject>> {
    // 64-bit snapshot ids and sequence numbers: read as bigint, written as JSON integers.
    o ??= {};
    let body: string | undefined;
    try {
      body = o.json === undefined ? undefined : stringifyJson(o.json);
    } catch (cause) {
      // A cycle or a throwing toJSON: stringifyJson's TypeError says which.
      return Promise.resolve(invalidArgument(cause));
    }
    return requestAfterRestore(this.#client, {
      method,
      area: "storage",
      path: `/iceberg${path}`,
      query: o.query,
      body,
      contentType: "application/json", // sent with a body only
      responseType: "text",
      signal: o.signal,
    })
      .then((r) =>
        decodeResult(r, (v) => {
          const text = v.body.trim();
          return text === ""
            ? {}
            : asObject(parseJsonInt64(text), "catalog answer") as CatalogJsonObject;
        })
      );
  }

  async #route(path: string, o: CatalogCallOptions): Promise<ServiceResult<string>> {
    const refused = refusedSignal(o.signal);
    if (refused) return refused;
    // A call cancelled before it starts starts nothing, the shared config request included.
    if (o.signal?.aborted) {
      return cancelled();
    }
    // One config request serves every call, so it carries no caller's signal: each caller
    // stops waiting on its own signal only.
    this.#prefix ??= this.getConfigTyped().then((r) => {
      if (!r.ok) {
        this.#prefix = null;
        return r;
      }
      const given = r.value.overrides.prefix ?? r.value.defaults.prefix;
      return success(given ?? this.bucketName);
    });
    const p = await untilAborted(this.#prefix, o.signal);
    if (p === ABORTED) return cancelled();
    if (!p.ok) return p;
    try {
      // An empty prefix means none (Iceberg REST): `/v1/namespaces`.
      // The prefix is a path (Iceberg clients insert it as it is): each segment encoded.
      const segments = p.value.split("/");
      if (segments.some((seg) => seg === "." || seg === "..")) {
        throw new TypeError("a dot segment");
      }
      return success(
        p.value === "" ? `/v1${path}` : `/v1/${segments.map(encodeComponent).join("/")}${path}`,
      );
    } catch (error) {
      return failure({
        message:
          "Cannot use the catalog's route prefix as it is not well-formed Unicode or holds a dot segment",
        category: "DECODE",
        cause: error,
      });
    }
  }

  async #at(
    method: string,
    path: string | (() => string),
    o?: CatalogCallOptions & { query?: QueryInit | undefined; json?: unknown },
  ): Promise<ServiceResult<CatalogJsonObject>> {
    o ??= {};
    let built: string;
    try {
      built = typeof path === "function" ? path() : path;
    } catch (error) {
      return invalidArgument(error); // a bad namespace or table name is the caller's input
    }
    const route = await this.#route(built, o);
    if (!route.ok) return route;
    return this.#request(method, route.value, o);
  }

  /**
   * `GET /v1/config?warehouse=<bucket>`.
   *
   * @param options Cancellation.
   * @returns The raw JSON.
   */
  getConfig(options?: CatalogCallOptions): Promise<ServiceResult<CatalogJsonObject>> {
    options ??= {};
    return this.#request("GET", "/v1/config", {
      ...options,
      query: [["warehouse", this.bucketName]],
    });
  }

  /**
   * The typed config.
   *
   * @param options Cancellation.
   * @returns Defaults and overrides.
   */
  async getConfigTyped(
    options?: CatalogCallOptions,
  ): Promise<ServiceResult<IcebergCatalogConfig>> {
    options ??= {};
    return decodeResult(
      await this.getConfig(options),
      (o) => ({ defaults: strMap(o.defaults), overrides: strMap(o.overrides) }),
    );
  }

  /**
   * Lists namespaces (direct children of `parent`, or the root).
   *
   * @param options Parent, page token and size.
   * @returns The raw JSON.
   */
  listNamespaces(
    options?: CatalogCallOptions & {
      parent?: readonly string[] | null | undefined;
      pageToken?: string | null | undefined;
      pageSize?: number | null | undefined;
    },
  ): Promise<ServiceResult<CatalogJsonObject>> {
    options ??= {};
    let query: Array<[string, string | null | undefined]>;
    try {
      // No levels is the root, as null is.
      const parent = options.parent?.length
        ? decodeURIComponent(encodeNamespace(options.parent))
        : null;
      query = [
        ["parent", parent],
        ["pageToken", options.pageToken],
        ["pageSize", pageSizeOf(options.pageSize)],
      ];
    } catch (error) {
      return Promise.resolve(invalidArgument(error));
    }
    return this.#at("GET", "/namespaces", { ...options, query });
  }

  /**
   * The typed namespace list: only the direct children of `parent` (a server that ignores
   * `parent`, as the Storage API does, answers every namespace; the others are dropped).
   *
   * @param options Parent, page token and size.
   * @returns The page.
   */
  async listNamespacesTyped(
    options?: CatalogCallOptions & {
      parent?: readonly string[] | null | undefined;
      pageToken?: string | null | undefined;
      pageSize?: number | null | undefined;
    },
  ): Promise<ServiceResult<IcebergNamespaceListResponse>> {
    options ??= {};
    const parent = options.parent?.length ? options.parent : null;
    return decodeResult(
      await this.listNamespaces(options),
      (o) =>
        pageTokens(o, {
          namespaces: asArray(o.namespaces ?? [], "namespaces").map(strList)
            // Direct children only: the Storage API's catalog ignores `parent` and answers every
            // namespace, the parent itself included (the protocol lists full namespaces).
            .filter((ns) =>
              parent === null
                ? ns.length === 1
                : ns.length === parent.length + 1 && parent.every((level, i) => ns[i] === level)
            ),
        }),
    );
  }

  /**
   * Creates a namespace; empty properties are omitted from the body.
   *
   * @param namespace The levels.
   * @param options Properties.
   * @returns The raw JSON.
   */
  createNamespace(
    namespace: readonly string[],
    options?: CatalogCallOptions & { properties?: Record<string, string> | undefined },
  ): Promise<ServiceResult<CatalogJsonObject>> {
    options ??= {};
    try {
      encodeNamespace(namespace);
      checkProperties(options.properties, "properties");
    } catch (error) {
      return Promise.resolve(invalidArgument(error));
    }
    const props = options.properties ?? {};
    return this.#at("POST", "/namespaces", {
      ...options,
      json: Object.keys(props).length > 0 ? { namespace, properties: props } : { namespace },
    });
  }

  /**
   * Creates a namespace from a typed request.
   *
   * @param request The namespace and properties.
   * @param options Cancellation.
   * @returns The namespace metadata.
   */
  async createNamespaceTyped(
    request: IcebergCreateNamespaceRequest,
    options?: CatalogCallOptions,
  ): Promise<ServiceResult<IcebergNamespaceMetadata>> {
    options ??= {};
    if (!isRequest(request)) return noRequest();
    return decodeResult(
      await this.createNamespace(request.namespace, { ...options, properties: request.properties }),
      (o) => ({
        namespace: strList(o.namespace),
        properties: strMap(o.properties),
      }),
    );
  }

  /**
   * Deletes a namespace; fails when missing or still holding tables.
   *
   * @param namespace The levels.
   * @param options Cancellation.
   * @returns Nothing.
   */
  async deleteNamespace(
    namespace: readonly string[],
    options?: CatalogCallOptions,
  ): Promise<ServiceResult<void>> {
    options ??= {};
    const r = await this.#at("DELETE", () => `/namespaces/${encodeNamespace(namespace)}`, options);
    return r.map(() => undefined);
  }

  /**
   * Reads a namespace's metadata.
   *
   * @param namespace The levels.
   * @param options Cancellation.
   * @returns The raw JSON.
   */
  getNamespaceMetadata(
    namespace: readonly string[],
    options?: CatalogCallOptions,
  ): Promise<ServiceResult<CatalogJsonObject>> {
    options ??= {};
    return this.#at("GET", () => `/namespaces/${encodeNamespace(namespace)}`, options);
  }

  /**
   * The typed namespace metadata.
   *
   * @param namespace The levels.
   * @param options Cancellation.
   * @returns The metadata.
   */
  async getNamespaceMetadataTyped(
    namespace: readonly string[],
    options?: CatalogCallOptions,
  ): Promise<ServiceResult<IcebergNamespaceMetadata>> {
    options ??= {};
    return decodeResult(await this.getNamespaceMetadata(namespace, options), (o) => ({
      namespace: strList(o.namespace),
      properties: strMap(o.properties),
    }));
  }

  /**
   * Changes namespace properties.
   *
   * @param namespace The levels.
   * @param options Removals and updates.
   * @returns The raw JSON.
   */
  updateNamespaceProperties(
    namespace: readonly string[],
    options?: CatalogCallOptions & {
      removals?: readonly string[] | null | undefined;
      updates?: Record<string, string> | null | undefined;
    },
  ): Promise<ServiceResult<CatalogJsonObject>> {
    options ??= {};
    try {
      checkProperties(options.updates, "updates");
    } catch (error) {
      return Promise.resolve(invalidArgument(error));
    }
    const json: Record<string, unknown> = {};
    if (options.removals) json.removals = options.removals;
    if (options.updates) json.updates = options.updates;
    return this.#at("POST", () => `/namespaces/${encodeNamespace(namespace)}/properties`, {
      ...options,
      json,
    });
  }

  /**
   * Typed property changes.
   *
   * @param namespace The levels.
   * @param request Removals and updates.
   * @param options Cancellation.
   * @returns Removed, updated and missing keys.
   */
  async updateNamespacePropertiesTyped(
    namespace: readonly string[],
    request: IcebergUpdateNamespacePropertiesRequest,
    options?: CatalogCallOptions,
  ): Promise<ServiceResult<IcebergUpdateNamespacePropertiesResponse>> {
    options ??= {};
    return decodeResult(
      await this.updateNamespaceProperties(namespace, { ...options, ...request }),
      (o) => ({
        removed: strList(o.removed),
        updated: strList(o.updated),
        missing: strList(o.missing),
      }),
    );
  }

  /**
   * Lists the tables of a namespace.
   *
   * @param namespace The levels.
   * @param options Page token and size.
   * @returns The raw JSON.
   */
  listTables(
    namespace: readonly string[],
    options?: CatalogCallOptions & {
      pageToken?: string | null | undefined;
      pageSize?: number | null | undefined;
    },
  ): Promise<ServiceResult<CatalogJsonObject>> {
    options ??= {};
    let size: string | undefined;
    try {
      size = pageSizeOf(options.pageSize);
    } catch (error) {
      return Promise.resolve(invalidArgument(error));
    }
    return this.#at("GET", () => `/namespaces/${encodeNamespace(namespace)}/tables`, {
      ...options,
      query: [["pageToken", options.pageToken], ["pageSize", size]],
    });
  }

  /**
   * The typed table list.
   *
   * @param namespace The levels.
   * @param options Page token and size.
   * @returns The page.
   */
  async listTablesTyped(
    namespace: readonly string[],
    options?: CatalogCallOptions & {
      pageToken?: string | null | undefined;
      pageSize?: number | null | undefined;
    },
  ): Promise<ServiceResult<IcebergTableListResponse>> {
    options ??= {};
    return decodeResult(await this.listTables(namespace, options), (o) =>
      pageTokens(o, {
        identifiers: asArray(o.identifiers ?? [], "identifiers").map((i) => {
          const x = asObject(i, "identifier");
          return { namespace: strList(x.namespace), name: reqString(x, "name") };
        }),
      }));
  }

  /**
   * Creates a table from a raw request.
   *
   * @param namespace The levels.
   * @param request The Iceberg create-table body.
   * @param options Cancellation.
   * @returns The raw JSON.
   */
  createTable(
    namespace: readonly string[],
    request: CatalogJsonObject,
    options?: CatalogCallOptions,
  ): Promise<ServiceResult<CatalogJsonObject>> {
    options ??= {};
    return this.#at("POST", () => `/namespaces/${encodeNamespace(namespace)}/tables`, {
      ...options,
      json: request,
    });
  }

  /**
   * Creates a table from a typed request.
   *
   * @param namespace The levels.
   * @param request Name, schema, location, partition spec, write order, properties.
   * @param options Cancellation.
   * @returns The table metadata.
   */
  async createTableTyped(
    namespace: readonly string[],
    request: IcebergTableCreateRequest,
    options?: CatalogCallOptions,
  ): Promise<ServiceResult<IcebergTableMetadataResponse>> {
    options ??= {};
    if (!isRequest(request)) return noRequest();
    try {
      checkProperties(request.properties, "properties");
    } catch (error) {
      return invalidArgument(error);
    }
    const json: CatalogJsonObject = { name: request.name, schema: request.schema };
    if (request.location) json.location = request.location;
    if (request.partitionSpec) json["partition-spec"] = request.partitionSpec;
    if (request.writeOrder) json["write-order"] = request.writeOrder;
    if (request.properties && Object.keys(request.properties).length > 0) {
      json.properties = request.properties;
    }
    return decodeResult(await this.createTable(namespace, json, options), decodeTableMeta);
  }

  /**
   * Commits changes to a table.
   *
   * @param namespace The levels.
   * @param name The table.
   * @param request The raw commit body.
   * @param options Cancellation.
   * @returns The raw JSON.
   */
  updateTable(
    namespace: readonly string[],
    name: string,
    request: CatalogJsonObject,
    options?: CatalogCallOptions,
  ): Promise<ServiceResult<CatalogJsonObject>> {
    options ??= {};
    return this.#at(
      "POST",
      () => `/namespaces/${encodeNamespace(namespace)}/tables/${nameSegment(name, "table name")}`,
      { ...options, json: request },
    );
  }

  /**
   * Typed commit.
   *
   * @param namespace The levels.
   * @param name The table.
   * @param request Requirements and updates.
   * @param options Cancellation.
   * @returns The table metadata.
   */
  async updateTableTyped(
    namespace: readonly string[],
    name: string,
    request: IcebergTableCommitRequest,
    options?: CatalogCallOptions,
  ): Promise<ServiceResult<IcebergTableMetadataResponse>> {
    options ??= {};
    if (!isRequest(request)) return noRequest();
    return decodeResult(
      await this.updateTable(namespace, name, {
        requirements: request.requirements ?? [],
        updates: request.updates ?? [],
      }, options),
      decodeTableMeta,
    );
  }

  /**
   * Drops a table; `purge` also deletes its data files.
   *
   * @param namespace The levels.
   * @param name The table.
   * @param options Purge (default false).
   * @returns Nothing.
   */
  async deleteTable(
    namespace: readonly string[],
    name: string,
    options?: CatalogCallOptions & { purge?: boolean | undefined },
  ): Promise<ServiceResult<void>> {
    options ??= {};
    const r = await this.#at(
      "DELETE",
      () => `/namespaces/${encodeNamespace(namespace)}/tables/${nameSegment(name, "table name")}`,
      {
        ...options,
        query: [["purgeRequested", String(options.purge ?? false)]],
      },
    );
    return r.map(() => undefined);
  }

  /**
   * Loads a table.
   *
   * @param namespace The levels.
   * @param name The table.
   * @param options Snapshot-loading mode.
   * @returns The raw JSON.
   */
  getTable(
    namespace: readonly string[],
    name: string,
    options?: CatalogCallOptions & { snapshots?: string | null | undefined },
  ): Promise<ServiceResult<CatalogJsonObject>> {
    options ??= {};
    return this.#at(
      "GET",
      () => `/namespaces/${encodeNamespace(namespace)}/tables/${nameSegment(name, "table name")}`,
      {
        ...options,
        query: [["snapshots", options.snapshots]],
      },
    );
  }

  /**
   * The typed table.
   *
   * @param namespace The levels.
   * @param name The table.
   * @param options Snapshot-loading mode.
   * @returns The table metadata.
   */
  async getTableTyped(
    namespace: readonly string[],
    name: string,
    options?: CatalogCallOptions & { snapshots?: string | null | undefined },
  ): Promise<ServiceResult<IcebergTableMetadataResponse>> {
    options ??= {};
    return decodeResult(await this.getTable(namespace, name, options), decodeTableMeta);
  }

  /**
   * Registers a table from a metadata file.
   *
   * @param namespace The levels.
   * @param request The raw register body.
   * @param options Cancellation.
   * @returns The raw JSON.
   */
  registerTable(
    namespace: readonly string[],
    request: CatalogJsonObject,
    options?: CatalogCallOptions,
  ): Promise<ServiceResult<CatalogJsonObject>> {
    options ??= {};
    return this.#at("POST", () => `/namespaces/${encodeNamespace(namespace)}/register`, {
      ...options,
      json: request,
    });
  }

  /**
   * Typed register.
   *
   * @param namespace The levels.
   * @param request Name and metadata location.
   * @param options Cancellation.
   * @returns The table metadata.
   */
  async registerTableTyped(
    namespace: readonly string[],
    request: IcebergTableRegisterRequest,
    options?: CatalogCallOptions,
  ): Promise<ServiceResult<IcebergTableMetadataResponse>> {
    options ??= {};
    if (!isRequest(request)) return noRequest();
    return decodeResult(
      await this.registerTable(namespace, {
        name: request.name,
        "metadata-location": request.metadataLocation,
      }, options),
      decodeTableMeta,
    );
  }

  /**
   * Renames (or moves) a table from a raw `{ source, destination }` body.
   *
   * @param request The raw body.
   * @param options Cancellation.
   * @returns Nothing.
   */
  async renameTable(
    request: CatalogJsonObject,
    options?: CatalogCallOptions,
  ): Promise<ServiceResult<void>> {
    options ??= {};
    const r = await this.#at("POST", "/tables/rename", { ...options, json: request });
    return r.map(() => undefined);
  }

  /**
   * Renames a table; the destination may be in another namespace.
   *
   * @param source The current identifier.
   * @param destination The new identifier.
   * @param options Cancellation.
   * @returns Nothing.
   */
  renameTableTyped(
    source: IcebergTableIdentifier,
    destination: IcebergTableIdentifier,
    options?: CatalogCallOptions,
  ): Promise<ServiceResult<void>> {
    options ??= {};
    if (!isRequest(source) || !isRequest(destination)) return Promise.resolve(noRequest());
    try {
      encodeNamespace(source.namespace);
      encodeNamespace(destination.namespace);
    } catch (error) {
      return Promise.resolve(invalidArgument(error));
    }
    return this.renameTable({
      source: { namespace: source.namespace, name: source.name },
      destination: { namespace: destination.namespace, name: destination.name },
    }, options);
  }
}

/**
 * Returns the catalog client of an analytics bucket (no I/O). Throws
 * `TypeError` for a blank name or one with characters outside letters,
 * digits, `.`, `_` and `-`.
 *
 * @param client The base client.
 * @param bucketName The analytics bucket.
 * @returns The catalog client.
 */
export function analyticsCatalog(client: BaseClient, bucketName: string): AnalyticsCatalogClient {
  return new AnalyticsCatalogClient(client, bucketName);
}

/**
 * The document's analytics bucket name Limit, its letters read as ASCII (a catalog's name goes
 * into its URLs, and the Storage API's bucket names are ASCII), and no dot segment: `TypeError`
 * otherwise.
 */
function checkCatalogName(bucketName: unknown): void {
  // The pattern takes no blank: a name of its characters is never one.
  if (typeof bucketName !== "string" || !/^[A-Za-z0-9._-]+$/.test(bucketName)) {
    throw new TypeError(
      `Cannot open the catalog as 'bucketName' must be non-blank and hold only ASCII letters, digits, '.', '_' and '-': current value is ${
        showValue(bucketName)
      }`,
    );
  }
  // Every character is allowed, but as a path segment the name would resolve to another route.
  if (bucketName === "." || bucketName === "..") {
    throw new TypeError(
      `Cannot open the catalog as 'bucketName' must not be '.' or '..', which a URL resolves as a dot segment: current value is ${
        showValue(bucketName)
      }`,
    );
  }
}
