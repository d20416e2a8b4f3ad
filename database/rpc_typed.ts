/**
 * Typed extensions for stored procedures: POST (`rpc...`) and GET
 * (`rpcGet...`) families. Each is a standalone function whose first
 * parameter is the {@linkcode DatabaseClient}.
 *
 * @module
 */

import { plainJson } from "./_encode.ts";
import { deadline } from "../core/_deadline.ts";
import { guarded } from "./_guard.ts";
import { checkRpcOptions } from "./_rpc_options.ts";
import type { ServiceResult } from "../core/result.ts";
import { failure, success } from "../core/result.ts";
import type { CallOptions, DatabaseClient, RpcParamsObject, RpcQueryParams } from "./client.ts";
import {
  decodeOne,
  decodeRows,
  decodeValue,
  discard,
  maybeOne,
  parseJson,
  twoRowsAtMost,
} from "./_decode.ts";
import { type CountOption, ResponseFormat } from "./models.ts";
import type { QueryBuilder } from "./query_builder.ts";
import type { BlockResult } from "./where_builder.ts";
import type { Validator } from "./validator.ts";
import { refusedValidator } from "./_refused_validator.ts";

/** Options of the typed POST RPC calls. */
export interface TypedRpcOptions<T> extends CallOptions {
  /** Schema (`Content-Profile`). */
  schema?: string | null | undefined;
  /** Named arguments: a raw JSON string, or an object (or Map) encoded to JSON. */
  params?: string | RpcParamsObject | null | undefined;
  /** Filters, order and pagination on a set-returning function. */
  block?: ((q: QueryBuilder) => BlockResult) | undefined;
  /** Checks each decoded value. */
  validator?: Validator<T> | null | undefined;
}

/** Options of the typed GET RPC calls. */
export interface TypedRpcGetOptions<T> extends CallOptions {
  /** Schema (`Accept-Profile`). */
  schema?: string | null | undefined;
  /** Arguments as query parameters. */
  queryParams?: RpcQueryParams | undefined;
  /** Arguments as an object: top-level fields flattened, objects and arrays as JSON text (a Postgres array parameter takes its literal as a string, `"{1,2}"`), nulls omitted. */
  params?: RpcParamsObject | null | undefined;
  /** Filters, order and pagination. */
  block?: ((q: QueryBuilder) => BlockResult) | undefined;
  /** Checks each decoded value. */
  validator?: Validator<T> | null | undefined;
}

function paramsText(
  params: string | RpcParamsObject | null | undefined,
): string | null {
  if (params === undefined || params === null) return null;
  return typeof params === "string" ? params : plainJson(params, "call the function");
}

function call<T>(
  db: DatabaseClient,
  fn: string,
  o: TypedRpcOptions<T>,
  format: ResponseFormat,
  count?: CountOption | null,
) {
  const bad = refusedValidator(o.validator);
  if (bad) return bad;
  return guarded(() => {
    checkRpcOptions(o);
    return db.rpc(fn, {
      schema: o.schema,
      params: paramsText(o.params),
      block: o.block,
      format,
      count,
      signal: o.signal,
      timeout: o.timeout,
      headers: o.headers,
    });
  });
}

function callGet<T>(
  db: DatabaseClient,
  fn: string,
  o: TypedRpcGetOptions<T>,
  format: ResponseFormat,
  count?: CountOption | null,
) {
  const bad = refusedValidator(o.validator);
  if (bad) return bad;
  return guarded(() => {
    checkRpcOptions(o);
    return db.rpcGet(fn, {
      schema: o.schema,
      queryParams: o.queryParams,
      params: o.params,
      block: o.block,
      format,
      count,
      signal: o.signal,
      timeout: o.timeout,
      headers: o.headers,
    });
  });
}

/**
 * Calls a function (POST) and decodes its JSON result as `T`.
 *
 * @example Scalar result
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, rpcTyped } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const sum = await rpcTyped<number>(db, "add", { params: { a: 1, b: 2 } });
 * ```
 *
 * @param db The database client.
 * @param fn The function name.
 * @param options Params, block, validator.
 * @returns The decoded result.
 */
export function rpcTyped<T>(
  db: DatabaseClient,
  fn: string,
  options?: TypedRpcOptions<T>,
): Promise<ServiceResult<T>> {
  options ??= {};
  return call(db, fn, options, ResponseFormat.ROWS).then((r) => decodeOne(r, options));
}

/**
 * Calls a set-returning function (POST) and decodes `T[]`.
 *
 * @example Rows from a function
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, rpcListTyped } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const rows = await rpcListTyped<{ id: number }>(db, "recent_todos", { params: { n: 5 } });
 * ```
 *
 * @param db The database client.
 * @param fn The function name.
 * @param options Params, block, validator.
 * @returns The rows.
 */
export function rpcListTyped<T>(
  db: DatabaseClient,
  fn: string,
  options?: TypedRpcOptions<T>,
): Promise<ServiceResult<T[]>> {
  options ??= {};
  return call(db, fn, options, ResponseFormat.ROWS).then((r) => decodeRows(r, options));
}

/**
 * Calls a function (POST) requesting exactly one row (SINGLE); otherwise 406 / NOT_FOUND.
 *
 * @example One row
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, rpcSingleTyped } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const me = await rpcSingleTyped<{ id: string }>(db, "current_profile");
 * ```
 *
 * @param db The database client.
 * @param fn The function name.
 * @param options Params, block, validator.
 * @returns The row.
 */
export function rpcSingleTyped<T>(
  db: DatabaseClient,
  fn: string,
  options?: TypedRpcOptions<T>,
): Promise<ServiceResult<T>> {
  options ??= {};
  return call(db, fn, options, ResponseFormat.SINGLE).then((r) => decodeOne(r, options));
}

/**
 * Calls a function (POST) for at most one row: no rows is `Success(null)`,
 * more than one a `PGRST116` failure. The rows are counted here, as
 * postgrest-js does: asking PostgREST for one object would roll back the
 * function's writes when it returns no row. An array answer is read as the
 * rows of a set-returning function, so a function returning one array value
 * (`int[]`, a JSON array) belongs with {@linkcode rpcTyped}. A function returning one
 * composite value (`returns profiles`, not `setof`) always answers an object: when it finds no
 * row, an object whose every field is null, not `null`.
 *
 * @example Maybe one row
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, rpcMaybeSingleTyped } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const r = await rpcMaybeSingleTyped<{ id: string }>(db, "find_profile", { params: { name: "ada" } });
 * ```
 *
 * @param db The database client.
 * @param fn The function name.
 * @param options Params, block, validator.
 * @returns The row or null.
 */
export function rpcMaybeSingleTyped<T>(
  db: DatabaseClient,
  fn: string,
  options?: TypedRpcOptions<T>,
): Promise<ServiceResult<T | null>> {
  // Rows, counted here: asking PostgREST for a single object would make it roll back the
  // call's writes when no row comes back, while this reports success.
  options ??= {};
  return call(db, fn, options, ResponseFormat.ROWS).then((r) => {
    if (!r.ok) return r;
    const parsed = parseJson(r.value);
    if (!parsed.ok) return parsed;
    const rows = parsed.value ?? [];
    // A function returning one value (not a set) answers that value, not an array.
    if (!Array.isArray(rows)) return decodeValue<T | null>(rows, options);
    if (rows.length === 0) return success<T | null>(null);
    if (rows.length > 1) {
      return failure({
        message: "JSON object requested, multiple (or no) rows returned",
        category: "NOT_FOUND",
        status: 406,
        code: "PGRST116",
        details:
          `The result contains ${rows.length} rows, application/vnd.pgrst.object+json requires 1 row`,
      });
    }
    return decodeValue<T | null>(rows[0], options);
  });
}

/**
 * Calls a function (POST) and discards the result.
 *
 * @example Fire a procedure
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, rpcUnit } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * await rpcUnit(db, "touch_profile");
 * ```
 *
 * @param db The database client.
 * @param fn The function name.
 * @param options Params.
 * @returns Nothing.
 */
export function rpcUnit(
  db: DatabaseClient,
  fn: string,
  options?: Omit<TypedRpcOptions<unknown>, "validator">,
): Promise<ServiceResult<void>> {
  options ??= {};
  return call(db, fn, options, ResponseFormat.ROWS).then(discard);
}

/**
 * Calls a function (POST) and returns CSV.
 *
 * @example CSV from a function
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, rpcCsv } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const csv = await rpcCsv(db, "report");
 * ```
 *
 * @param db The database client.
 * @param fn The function name.
 * @param options Params and block.
 * @returns The CSV text.
 */
export function rpcCsv(
  db: DatabaseClient,
  fn: string,
  options?: Omit<TypedRpcOptions<unknown>, "validator">,
): Promise<ServiceResult<string>> {
  options ??= {};
  return call(db, fn, options, ResponseFormat.CSV);
}

/**
 * Issues the procedure call as HEAD (arguments as query parameters).
 *
 * @example HEAD call with a count
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, rpcHead } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * await rpcHead(db, "search", { params: { q: "milk" }, count: "exact" });
 * ```
 *
 * @param db The database client.
 * @param fn The function name.
 * @param options Params and count.
 * @returns Nothing.
 */
export function rpcHead(
  db: DatabaseClient,
  fn: string,
  options?: Omit<TypedRpcOptions<unknown>, "validator"> & {
    count?: CountOption | null | undefined;
  },
): Promise<ServiceResult<void>> {
  options ??= {};
  return call(db, fn, options, ResponseFormat.HEAD, options.count).then(discard);
}

/**
 * Calls a function with GET and decodes `T`.
 *
 * @example GET call
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, rpcGetTyped } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const n = await rpcGetTyped<number>(db, "count_open", { params: { owner: "u1" } });
 * ```
 *
 * @param db The database client.
 * @param fn The function name.
 * @param options Query params or params object, block, validator.
 * @returns The decoded result.
 */
export function rpcGetTyped<T>(
  db: DatabaseClient,
  fn: string,
  options?: TypedRpcGetOptions<T>,
): Promise<ServiceResult<T>> {
  options ??= {};
  return callGet(db, fn, options, ResponseFormat.ROWS).then((r) => decodeOne(r, options));
}

/**
 * Calls a set-returning function with GET and decodes `T[]`.
 *
 * @example GET rows
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, rpcGetListTyped } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const rows = await rpcGetListTyped<{ id: number }>(db, "recent", { queryParams: { n: "5" } });
 * ```
 *
 * @param db The database client.
 * @param fn The function name.
 * @param options Query params or params object, block, validator.
 * @returns The rows.
 */
export function rpcGetListTyped<T>(
  db: DatabaseClient,
  fn: string,
  options?: TypedRpcGetOptions<T>,
): Promise<ServiceResult<T[]>> {
  options ??= {};
  return callGet(db, fn, options, ResponseFormat.ROWS).then((r) => decodeRows(r, options));
}

/**
 * Calls a function with GET requesting exactly one row; otherwise 406 / NOT_FOUND.
 *
 * @example GET one row
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, rpcGetSingleTyped } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const row = await rpcGetSingleTyped<{ id: number }>(db, "by_id", { queryParams: { id: "1" } });
 * ```
 *
 * @param db The database client.
 * @param fn The function name.
 * @param options Query params or params object, block, validator.
 * @returns The row.
 */
export function rpcGetSingleTyped<T>(
  db: DatabaseClient,
  fn: string,
  options?: TypedRpcGetOptions<T>,
): Promise<ServiceResult<T>> {
  options ??= {};
  return callGet(db, fn, options, ResponseFormat.SINGLE).then((r) => decodeOne(r, options));
}

/**
 * Calls a function with GET for at most one row: no rows is `Success(null)`. When PostgREST's
 * answer does not say how many rows matched (minimal error verbosity) the call is made again for
 * a list, within what is left of the call's `timeout`.
 *
 * @example GET maybe one row
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, rpcGetMaybeSingleTyped } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const row = await rpcGetMaybeSingleTyped<{ id: number }>(db, "by_id", { queryParams: { id: "1" } });
 * ```
 *
 * @param db The database client.
 * @param fn The function name.
 * @param options Query params or params object, block, validator.
 * @returns The row or null.
 */
export function rpcGetMaybeSingleTyped<T>(
  db: DatabaseClient,
  fn: string,
  options?: TypedRpcGetOptions<T>,
): Promise<ServiceResult<T | null>> {
  options ??= {};
  // The fallback read gets only what is left of the call's timeout.
  const within = deadline(options.timeout, db.client.timeout);
  return callGet(db, fn, options, ResponseFormat.SINGLE).then((r) =>
    maybeOne<T>(
      r,
      () =>
        within((timeout) =>
          callGet(
            db,
            fn,
            { ...options, block: twoRowsAtMost(options.block), timeout },
            ResponseFormat.ROWS,
          )
        ),
      options,
    )
  );
}

/**
 * Calls a function with GET and discards the result.
 *
 * @example GET and discard
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, rpcGetUnit } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * await rpcGetUnit(db, "ping");
 * ```
 *
 * @param db The database client.
 * @param fn The function name.
 * @param options Query params or params object.
 * @returns Nothing.
 */
export function rpcGetUnit(
  db: DatabaseClient,
  fn: string,
  options?: Omit<TypedRpcGetOptions<unknown>, "validator">,
): Promise<ServiceResult<void>> {
  options ??= {};
  return callGet(db, fn, options, ResponseFormat.ROWS).then(discard);
}

/**
 * Calls a function with GET and returns CSV.
 *
 * @example GET CSV
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, rpcGetCsv } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const csv = await rpcGetCsv(db, "report");
 * ```
 *
 * @param db The database client.
 * @param fn The function name.
 * @param options Query params or params object.
 * @returns The CSV text.
 */
export function rpcGetCsv(
  db: DatabaseClient,
  fn: string,
  options?: Omit<TypedRpcGetOptions<unknown>, "validator">,
): Promise<ServiceResult<string>> {
  options ??= {};
  return callGet(db, fn, options, ResponseFormat.CSV);
}

/**
 * Calls a function with HEAD (GET semantics), optionally counting.
 *
 * @example HEAD with count
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, rpcGetHead } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * await rpcGetHead(db, "search", { queryParams: { q: "milk" }, count: "exact" });
 * ```
 *
 * @param db The database client.
 * @param fn The function name.
 * @param options Query params or params object, count.
 * @returns Nothing.
 */
export function rpcGetHead(
  db: DatabaseClient,
  fn: string,
  options?: Omit<TypedRpcGetOptions<unknown>, "validator"> & {
    count?: CountOption | null | undefined;
  },
): Promise<ServiceResult<void>> {
  options ??= {};
  return callGet(db, fn, options, ResponseFormat.HEAD, options.count).then(discard);
}
