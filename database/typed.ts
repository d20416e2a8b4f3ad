/**
 * Typed extensions of the database client: decode rows (optionally through a
 * validator) and map PostgREST's single-row answers. Each is a standalone
 * function whose first parameter is the {@linkcode DatabaseClient}.
 * Integers beyond 2^53 (`int8` ids past `Number.MAX_SAFE_INTEGER`) are read
 * as exact `bigint`s, which the writers and filters send back as they are;
 * smaller ones of the same column stay `number`s, so declare such a column
 * `number | bigint` in the row type (not `bigint` alone: `id + 1n` throws for
 * a `number`).
 *
 * @module
 */

import { guarded } from "./_guard.ts";
import { showValue } from "../core/_show.ts";
import { ServiceException, type ServiceResult, success } from "../core/result.ts";
import { decodeOne, decodeRows, discard, maybeOne, twoRowsAtMost } from "./_decode.ts";
import { deadline } from "../core/_deadline.ts";
import type {
  CallOptions,
  DatabaseClient,
  InsertOptions,
  MutateOptions,
  SelectCountOptions,
} from "./client.ts";
import { send } from "./_request.ts";
import {
  CountOption,
  parseContentRange,
  type PostgrestPage,
  ResponseFormat,
  ReturnOption,
} from "./models.ts";
import type { QueryBuilder } from "./query_builder.ts";
import type { Validator } from "./validator.ts";
import { refusedValidator } from "./_refused_validator.ts";
import { parseJsonInt64, stringifyJson } from "../core/_json_int64.ts";
import type { BlockResult, WhereBuilder } from "./where_builder.ts";
import { plainJson, plainOf } from "./_encode.ts";

/** Options of the typed reads. */
export interface TypedSelectOptions<T> extends CallOptions {
  /** Schema (`Accept-Profile`). */
  schema?: string | null | undefined;
  /**
   * The `select=` projection. Default `*`. `T` is the shape of what it returns, which nothing
   * checks without a `validator`: name a narrower type for fewer columns (`Pick<Todo, "id">` for
   * `"id"`), or a field never selected is typed but `undefined`.
   */
  columns?: string | undefined;
  /** Filters, order and pagination. */
  block?: ((q: QueryBuilder) => BlockResult) | undefined;
  /** Checks each row. */
  validator?: Validator<T> | null | undefined;
}

/**
 * Reads rows as `T[]`.
 *
 * @example Typed rows
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, selectTyped } from "@fetchbase/fetchbase/database";
 *
 * interface Todo { id: number; title: string }
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const todos = await selectTyped<Todo>(db, "todos", { block: (q) => q.limit(5) });
 * ```
 *
 * @param db The database client.
 * @param table The table or view.
 * @param options Projection, block, validator.
 * @returns The rows.
 */
export function selectTyped<T>(
  db: DatabaseClient,
  table: string,
  options?: TypedSelectOptions<T>,
): Promise<ServiceResult<T[]>> {
  options ??= {};
  const bad = refusedValidator(options.validator);
  if (bad) return bad;
  return db.select(table, options).then((r) => decodeRows(r, options));
}

/**
 * Reads rows as `T[]`, throwing {@linkcode ServiceException} on failure.
 *
 * @example Throwing on failure
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, selectTypedOrThrow } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * try {
 *   const rows = await selectTypedOrThrow<{ id: number }>(db, "todos");
 * } catch (e) {
 *   console.error(e);
 * }
 * ```
 *
 * @param db The database client.
 * @param table The table or view.
 * @param options Projection, block, validator.
 * @returns The rows.
 */
export async function selectTypedOrThrow<T>(
  db: DatabaseClient,
  table: string,
  options?: TypedSelectOptions<T>,
): Promise<T[]> {
  const r = await selectTyped(db, table, options);
  if (!r.ok) throw new ServiceException(r.error);
  return r.value;
}

/**
 * Reads exactly one row (SINGLE); zero or several rows fail with 406,
 * category NOT_FOUND.
 *
 * @example One row
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { column, createDatabaseClient, selectSingleTyped } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const r = await selectSingleTyped<{ id: number }>(db, "todos", {
 *   block: (q) => q.where((w) => w.eq(column<number>("id"), 1)),
 * });
 * ```
 *
 * @param db The database client.
 * @param table The table or view.
 * @param options Projection, block, validator.
 * @returns The row.
 */
export function selectSingleTyped<T>(
  db: DatabaseClient,
  table: string,
  options?: TypedSelectOptions<T>,
): Promise<ServiceResult<T>> {
  options ??= {};
  const bad = refusedValidator(options.validator);
  if (bad) return bad;
  return db.select(table, { ...options, format: ResponseFormat.SINGLE }).then((r) =>
    decodeOne(r, options, true)
  );
}

/**
 * Reads at most one row: no rows is `Success(null)`; several rows still fail. When PostgREST's
 * answer does not say how many rows matched (minimal error verbosity) the rows are read again as a
 * list, within what is left of the call's `timeout`.
 *
 * @example Maybe one row
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, selectMaybeSingleTyped } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const r = await selectMaybeSingleTyped<{ id: number }>(db, "profiles");
 * if (r.ok && r.value === null) console.log("no profile yet");
 * ```
 *
 * @param db The database client.
 * @param table The table or view.
 * @param options Projection, block, validator.
 * @returns The row or null.
 */
export function selectMaybeSingleTyped<T>(
  db: DatabaseClient,
  table: string,
  options?: TypedSelectOptions<T>,
): Promise<ServiceResult<T | null>> {
  options ??= {};
  const bad = refusedValidator(options.validator);
  if (bad) return bad;
  // The fallback read gets only what is left of the call's timeout.
  const within = deadline(options.timeout, db.client.timeout);
  return db.select(table, { ...options, format: ResponseFormat.SINGLE }).then((r) =>
    maybeOne<T>(
      r,
      () =>
        within((timeout) =>
          db.select(table, {
            ...options,
            format: ResponseFormat.ROWS,
            block: twoRowsAtMost(options.block),
            timeout,
          })
        ),
      options,
    )
  );
}

/**
 * Reads rows with the total count (default EXACT) and the range. An offset past the counted total
 * is PostgREST's 416 (`PGRST103`), a `Failure` (`BAD_REQUEST`); one at the total is an empty page.
 *
 * @example Rows and count
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, selectWithCountTyped } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const r = await selectWithCountTyped<{ id: number }>(db, "todos", { block: (q) => q.range(0, 9) });
 * if (r.ok) console.log(r.value.rows.length, r.value.count);
 * ```
 *
 * @param db The database client.
 * @param table The table or view.
 * @param options Projection, count, block, validator.
 * @returns The page.
 */
export function selectWithCountTyped<T>(
  db: DatabaseClient,
  table: string,
  options?: TypedSelectOptions<T> & { count?: CountOption | undefined },
): Promise<ServiceResult<PostgrestPage<T>>> {
  options ??= {};
  const bad = refusedValidator(options.validator);
  if (bad) return bad;
  return guarded(() =>
    send(
      db.client,
      db.buildSelect(table, { ...options, count: options.count ?? CountOption.EXACT }),
    ).then(async (r) => {
      if (!r.ok) return r;
      const rows = await decodeRows<T>(success(r.value.body), options);
      return rows.map((value) => ({
        rows: value,
        ...parseContentRange(r.value.headers.get("content-range")),
      }));
    })
  );
}

/**
 * Reads a GeoJSON feature collection (`application/geo+json`).
 *
 * @example GeoJSON
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, selectGeoJson } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const geo = await selectGeoJson(db, "places");
 * ```
 *
 * @param db The database client.
 * @param table The table or view.
 * @param options Projection, headers, block.
 * @returns The GeoJSON text.
 */
export function selectGeoJson(
  db: DatabaseClient,
  table: string,
  options?: Omit<TypedSelectOptions<unknown>, "validator">,
): Promise<ServiceResult<string>> {
  return db.select(table, { ...options, format: ResponseFormat.GEOJSON });
}

/**
 * Reads rows as CSV with a header row (`text/csv`).
 *
 * @example CSV
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, selectCsv } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const csv = await selectCsv(db, "todos", { columns: "id,title" });
 * ```
 *
 * @param db The database client.
 * @param table The table or view.
 * @param options Projection and block.
 * @returns The CSV text.
 */
export function selectCsv(
  db: DatabaseClient,
  table: string,
  options?: Omit<TypedSelectOptions<unknown>, "validator">,
): Promise<ServiceResult<string>> {
  return db.select(table, { ...options, format: ResponseFormat.CSV });
}

/**
 * Runs the query as HEAD; success means it ran, not that a row matched.
 *
 * @example HEAD
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, selectHead } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const reachable = (await selectHead(db, "todos")).ok;
 * ```
 *
 * @param db The database client.
 * @param table The table or view.
 * @param options Projection, count, block.
 * @returns Nothing.
 */
export function selectHead(
  db: DatabaseClient,
  table: string,
  options?: Omit<SelectCountOptions, "count"> & { count?: CountOption | null | undefined },
): Promise<ServiceResult<void>> {
  return db.select(table, { ...options, format: ResponseFormat.HEAD }).then(discard);
}

/**
 * The fields a typed update sets: any of the row type's, each of which may be left out or given
 * as `undefined` (left out, as `null` is), so a value whose fields may be `undefined` (a form's)
 * type-checks under `exactOptionalPropertyTypes`.
 */
export type RowInput<T> = { [K in keyof T]?: T[K] | undefined };

/**
 * One row to insert with `insertTyped` or `upsertTyped`: an object that is not a list (a list goes
 * to `insertTypedMany` or `upsertTypedMany`); a `Map` is a row, written as its entries. A list or a
 * primitive is a compile error, and from JavaScript `Failure(INVALID_ARGUMENT)`. Written without a
 * conditional type, so a generic wrapper's `T extends object` passes through it.
 */
export type OneRow<T> =
  & T
  & ({ readonly [Symbol.iterator]?: never } | ReadonlyMap<unknown, unknown>);

function checkOneRow(value: unknown): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(
      `Cannot insert as 'value' must be one row, an object${
        Array.isArray(value) ? " (insert a list with insertTypedMany or upsertTypedMany)" : ""
      }: current value is ${showValue(value)}`,
    );
  }
}

/** Options of the typed inserts and upserts. */
export type TypedInsertOptions<T> =
  & Pick<
    InsertOptions,
    | "schema"
    | "columns"
    | "upsertResolution"
    | "defaultToNull"
    | "onConflict"
    | "signal"
    | "timeout"
    | "headers"
  >
  & { upsert?: boolean | undefined; validator?: Validator<T> | null | undefined };

function encodeJson(value: unknown, what: string): string {
  if (value === undefined) throw new TypeError(`Cannot ${what} as the value is undefined`);
  // A Map row goes as its entries (JSON sees none: `{}` inserts a row of defaults), at any depth.
  return plainJson(value, what);
}

/**
 * Inserts one value and returns the inserted rows (REPRESENTATION). The rows are typed as the
 * value (`T`) unless `R` is named: a row the database completes (an `id`, a `created_at`) is
 * `insertTyped<NewTodo, Todo>(…)`, or `R` is taken from a `validator` of `Todo`.
 *
 * @example Inserting
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, insertTyped } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const r = await insertTyped(db, "todos", { title: "Buy milk", done: false });
 * ```
 *
 * @typeParam T The value's type.
 * @typeParam R The rows' type (default `T`).
 * @param db The database client.
 * @param table The table.
 * @param value The row.
 * @param options Columns, upsert and more.
 * @returns The inserted rows.
 */
export function insertTyped<T extends object, R = T>(
  db: DatabaseClient,
  table: string,
  value: OneRow<T>,
  options?: TypedInsertOptions<R>,
): Promise<ServiceResult<R[]>> {
  options ??= {};
  const bad = refusedValidator(options.validator);
  if (bad) return bad;
  return guarded(() => {
    checkOneRow(value);
    return db.insert(table, encodeJson(value, "insert"), {
      ...options,
      returning: ReturnOption.REPRESENTATION,
    }).then((r) => decodeRows(r, options));
  });
}

/**
 * Inserts many values in one request; `columns=` is the union of all
 * elements' keys so fields present on only some rows are kept.
 *
 * @example Bulk insert
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, insertTypedMany } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * await insertTypedMany(db, "todos", [{ title: "a" }, { title: "b", done: true }]);
 * ```
 *
 * @typeParam T The value's type.
 * @typeParam R The rows' type (default `T`).
 * @param db The database client.
 * @param table The table.
 * @param values The rows.
 * @param options Columns, upsert and more.
 * @returns The inserted rows.
 */
export function insertTypedMany<T, R = T>(
  db: DatabaseClient,
  table: string,
  values: readonly T[],
  options?: TypedInsertOptions<R>,
): Promise<ServiceResult<R[]>> {
  options ??= {};
  const bad = refusedValidator(options.validator);
  if (bad) return bad;
  return guarded(() => {
    if (!Array.isArray(values)) throw new TypeError("Cannot insert as 'values' must be an array");
    return db.insert(table, encodeJson(values, "insert"), {
      ...options,
      columns: options.columns ?? keysOfRows(values),
      returning: ReturnOption.REPRESENTATION,
    }).then((r) => decodeRows(r, options));
  });
}

/**
 * The union of the rows' keys as their JSON holds them, which `insert` would read back from the
 * text (when no `columns` are given; reading it again cost more than writing it, on large bulk
 * writes), or null when a row is no plain object whose members JSON writes as they are (a Map, a
 * class instance, a `toJSON` other than a Date's): the text then decides.
 */
function keysOfRows(values: readonly unknown[]): string[] | null {
  const keys = new Set<string>();
  for (const row of values) {
    if (row === null || typeof row !== "object" || Array.isArray(row)) return null;
    const proto = Object.getPrototypeOf(row);
    if (proto !== Object.prototype && proto !== null) return null;
    if (typeof (row as { toJSON?: unknown }).toJSON === "function") return null;
    for (const k of Object.keys(row)) {
      // A getter may answer JSON otherwise than it answers here: the text decides.
      const d = Object.getOwnPropertyDescriptor(row, k);
      if (d === undefined || !("value" in d)) return null;
      const v: unknown = d.value;
      // Members JSON leaves out.
      if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
      // A `toJSON` may answer undefined (JSON leaves the member out), but a Date's own.
      const toJSON = v === null ? undefined : (v as { toJSON?: unknown }).toJSON;
      if (toJSON !== undefined && !(v instanceof Date && toJSON === Date.prototype.toJSON)) {
        return null;
      }
      keys.add(k);
    }
  }
  return [...keys];
}

/**
 * Inserts a raw JSON body and returns nothing (MINIMAL).
 *
 * @example Insert without echo
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, insertUnit } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * await insertUnit(db, "events", '{"kind":"click"}');
 * ```
 *
 * @param db The database client.
 * @param table The table.
 * @param body The JSON body.
 * @param options Columns, upsert, count and more.
 * @returns Nothing.
 */
export function insertUnit(
  db: DatabaseClient,
  table: string,
  body: string,
  options?: Omit<InsertOptions, "returning" | "stripNulls" | "rollback" | "contentType">,
): Promise<ServiceResult<void>> {
  return db.insert(table, body, { ...options, returning: ReturnOption.MINIMAL }).then(discard);
}

/**
 * Inserts one value and returns nothing (MINIMAL).
 *
 * @example Typed insert without echo
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, insertUnitTyped } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * await insertUnitTyped(db, "events", { kind: "click" });
 * ```
 *
 * @param db The database client.
 * @param table The table.
 * @param value The row.
 * @param options Columns, upsert, count and more.
 * @returns Nothing.
 */
export function insertUnitTyped<T>(
  db: DatabaseClient,
  table: string,
  value: T,
  options?: Omit<InsertOptions, "returning" | "stripNulls" | "rollback" | "contentType">,
): Promise<ServiceResult<void>> {
  return guarded(() => insertUnit(db, table, encodeJson(value, "insert"), options));
}

/**
 * Upserts one value (insertTyped with upsert true).
 *
 * @example Upserting
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, upsertTyped } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * await upsertTyped(db, "profiles", { id: "u1", name: "Ada" }, { onConflict: "id" });
 * ```
 *
 * @typeParam T The value's type.
 * @typeParam R The rows' type (default `T`).
 * @param db The database client.
 * @param table The table.
 * @param value The row.
 * @param options Resolution, conflict target and more.
 * @returns The upserted rows.
 */
export function upsertTyped<T extends object, R = T>(
  db: DatabaseClient,
  table: string,
  value: OneRow<T>,
  options?: Omit<TypedInsertOptions<R>, "upsert">,
): Promise<ServiceResult<R[]>> {
  return insertTyped<T, R>(db, table, value, { ...options, upsert: true });
}

/**
 * Upserts many values in one request.
 *
 * @example Bulk upsert
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, upsertTypedMany } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * await upsertTypedMany(db, "profiles", [{ id: "u1" }, { id: "u2" }]);
 * ```
 *
 * @typeParam T The value's type.
 * @typeParam R The rows' type (default `T`).
 * @param db The database client.
 * @param table The table.
 * @param values The rows.
 * @param options Resolution, conflict target and more.
 * @returns The upserted rows.
 */
export function upsertTypedMany<T, R = T>(
  db: DatabaseClient,
  table: string,
  values: readonly T[],
  options?: Omit<TypedInsertOptions<R>, "upsert">,
): Promise<ServiceResult<R[]>> {
  return insertTypedMany(db, table, values, { ...options, upsert: true });
}

/**
 * An update's body: the value's JSON form (its `toJSON`, as an insert sends it; an invalid `Date`
 * is null there) without its null fields, which leave their columns untouched (`NaN`, which JSON
 * would write as null, is refused). Read back
 * with 64-bit integers kept exact.
 */
function withoutNulls(value: unknown): string {
  value = plainOf(value);
  const json = value !== null && typeof value === "object" && !Array.isArray(value)
    ? parseJsonInt64(plainJson(value, "update"))
    : null;
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw new TypeError("Cannot update as 'value' must be an object");
  }
  const fields = Object.entries(json).filter(([, v]) => v !== null);
  // PostgREST runs an update of no column as `WHERE false`: no row, and no error.
  if (fields.length === 0) {
    throw new TypeError(
      "Cannot update as 'value' has no field that is not null: nothing would be written",
    );
  }
  return stringifyJson(Object.fromEntries(fields))!;
}

/** Options of the typed updates and deletes. */
export type TypedMutateOptions<T> =
  & Pick<MutateOptions, "schema" | "count" | "signal" | "timeout" | "headers" | "maxAffected">
  & {
    validator?: Validator<T> | null | undefined;
  };

/**
 * Updates matched rows with the non-null fields of `value` and returns them;
 * null fields leave their columns untouched (use `update` with a raw body to
 * set NULL). A value with no other field is `Failure(INVALID_ARGUMENT)`, nothing
 * sent: PostgREST would update no row and answer no error.
 *
 * @example Updating
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { column, createDatabaseClient, updateTyped } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * await updateTyped(db, "todos", { done: true }, (w) => w.eq(column<number>("id"), 7));
 * ```
 *
 * @param db The database client.
 * @param table The table.
 * @param value The partial row.
 * @param block Filters choosing the rows; `null` (not left out) for every row of the table.
 * @param options Schema, count, validator.
 * @returns The updated rows.
 */
export function updateTyped<T>(
  db: DatabaseClient,
  table: string,
  value: RowInput<T>,
  block: ((w: WhereBuilder) => BlockResult) | null,
  options?: TypedMutateOptions<T>,
): Promise<ServiceResult<T[]>> {
  options ??= {};
  const bad = refusedValidator(options.validator);
  if (bad) return bad;
  return guarded(() =>
    db.update(table, withoutNulls(value), block, {
      ...options,
      returning: ReturnOption.REPRESENTATION,
    }).then((r) => decodeRows(r, options))
  );
}

/**
 * Updates matched rows with a raw JSON body; returns nothing (MINIMAL).
 *
 * @example Update without echo
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { column, createDatabaseClient, updateUnit } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * await updateUnit(db, "todos", '{"done":null}', (w) => w.eq(column<number>("id"), 7));
 * ```
 *
 * @param db The database client.
 * @param table The table.
 * @param body The JSON body.
 * @param block Filters choosing the rows; `null` (not left out) for every row of the table.
 * @param options Schema and count.
 * @returns Nothing.
 */
export function updateUnit(
  db: DatabaseClient,
  table: string,
  body: string,
  block: ((w: WhereBuilder) => BlockResult) | null,
  options?: Omit<TypedMutateOptions<unknown>, "validator">,
): Promise<ServiceResult<void>> {
  return db.update(table, body, block, { ...options, returning: ReturnOption.MINIMAL }).then(
    discard,
  );
}

/**
 * Updates matched rows with the non-null fields of `value`; returns nothing.
 *
 * @example Typed update without echo
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { column, createDatabaseClient, updateUnitTyped } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * await updateUnitTyped(db, "todos", { done: true }, (w) => w.eq(column<number>("id"), 7));
 * ```
 *
 * @param db The database client.
 * @param table The table.
 * @param value The partial row.
 * @param block Filters choosing the rows; `null` (not left out) for every row of the table.
 * @param options Schema and count.
 * @returns Nothing.
 */
export function updateUnitTyped<T>(
  db: DatabaseClient,
  table: string,
  value: RowInput<T>,
  block: ((w: WhereBuilder) => BlockResult) | null,
  options?: Omit<TypedMutateOptions<unknown>, "validator">,
): Promise<ServiceResult<void>> {
  return guarded(() => updateUnit(db, table, withoutNulls(value), block, options));
}

/**
 * Deletes matched rows and returns them.
 *
 * @example Deleting
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { column, createDatabaseClient, deleteTyped } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const gone = await deleteTyped<{ id: number }>(db, "todos", (w) => w.eq(column<boolean>("done"), true));
 * ```
 *
 * @param db The database client.
 * @param table The table.
 * @param block Filters choosing the rows; `null` (not left out) for every row of the table.
 * @param options Returning, schema, count, validator.
 * @returns The deleted rows.
 */
export function deleteTyped<T>(
  db: DatabaseClient,
  table: string,
  block: ((w: WhereBuilder) => BlockResult) | null,
  options?: TypedMutateOptions<T> & { returning?: ReturnOption | undefined },
): Promise<ServiceResult<T[]>> {
  options ??= {};
  const bad = refusedValidator(options.validator);
  if (bad) return bad;
  const returning = options.returning ?? ReturnOption.REPRESENTATION;
  return db.delete(table, block, { ...options, returning }).then((r) => {
    if (returning !== ReturnOption.REPRESENTATION) return r.ok ? success([]) : r;
    return decodeRows(r, options);
  });
}

/**
 * Deletes matched rows; returns nothing (MINIMAL).
 *
 * @example Delete without echo
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { column, createDatabaseClient, deleteUnit } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * await deleteUnit(db, "todos", (w) => w.eq(column<boolean>("done"), true));
 * ```
 *
 * @param db The database client.
 * @param table The table.
 * @param block Filters choosing the rows; `null` (not left out) for every row of the table.
 * @param options Schema and count.
 * @returns Nothing.
 */
export function deleteUnit(
  db: DatabaseClient,
  table: string,
  block: ((w: WhereBuilder) => BlockResult) | null,
  options?: Omit<TypedMutateOptions<unknown>, "validator">,
): Promise<ServiceResult<void>> {
  return db.delete(table, block, { ...options, returning: ReturnOption.MINIMAL }).then(discard);
}
