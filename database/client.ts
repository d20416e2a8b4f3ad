/**
 * The database client: the raw PostgREST primitives, each returning the body
 * as a string. Typed decoding lives in standalone extension functions.
 *
 * @module
 */

import type { JsonObjectInput } from "../core/decode.ts";
import { showValue } from "../core/_show.ts";
import { runBlock } from "./_block.ts";
import { checkRpcOptions } from "./_rpc_options.ts";
import { buildFailure, guarded } from "./_guard.ts";
import type { BaseClient } from "../core/client.ts";
import type { ServiceResult } from "../core/result.ts";
import {
  acceptHeader,
  checkExplainedWrite,
  checkMaxAffected,
  cleanColumns,
  pathSegment,
  type PgRequest,
  preferHeader,
  send,
  sendBody,
  withRollbackEcho,
} from "./_request.ts";
import {
  CountOption,
  type ExplainOptions,
  parseContentRange,
  type PostgrestRange,
  type PostgrestRawPage,
  ResponseFormat,
  ReturnOption,
  UpsertResolution,
} from "./models.ts";
import {
  hasTablePath,
  isRoundedId,
  plainJson,
  plainOf,
  quoteName,
  RESERVED_KEYS,
  roundedId,
} from "./_encode.ts";
import { QueryBuilder } from "./query_builder.ts";
import { type BlockResult, renderTopLevel, WhereBuilder } from "./where_builder.ts";
import { freshMark, markNumbers, unquoteMarks } from "../core/_json_int64.ts";
import { unicodePattern } from "./_pattern.ts";

let onConflictPattern: RegExp | undefined;

/**
 * Whether PostgREST reads an `on_conflict` text whole: its `pColumns` reads names (`pFieldName`)
 * up to the first character outside its grammar and drops the rest, so `Total €` would resolve
 * on `Total`, and `a - b` on `a-b`.
 */
function onConflictReadsWhole(text: string): boolean {
  // A name: quoted, or words of letters, digits, `_`, `$` joined by spaces or by a `-` with none
  // beside it (`a - b` reads as `a-b`). The separators take every space around a comma, so no
  // text matches two ways. Built here: a template at the top level would stay in every bundle.
  const words = "[\\p{L}0-9_$]+(?: +[\\p{L}0-9_$]+)*";
  const name = `(?:"(?:[^"\\\\]|\\\\[^])*"|${words}(?:-${words})*)`;
  return (onConflictPattern ??= new RegExp(
    // Spaces may lead an unquoted first name only: ` "a"` reads as the name ``.
    `^(?! +") *${name}(?:[ \\t]*,[ \\t]*${name})*[ \\t]*$`,
    "u",
  )).test(text);
}

/** Options every database call accepts. */
export interface CallOptions {
  /** Cancels the call. */
  signal?: AbortSignal | undefined;
  /** Timeout in milliseconds; the client's default when absent. */
  timeout?: number | undefined;
  /** Extra request headers, merged over the computed ones: a record, a `Headers` object or a list of pairs. */
  headers?: Record<string, string> | Headers | Array<[string, string]> | undefined;
}

/** Options of {@linkcode DatabaseClient.select}. */
export interface SelectOptions extends CallOptions {
  /** Schema, sent as `Accept-Profile`. */
  schema?: string | null | undefined;
  /** The `select=` projection. Default `*`. */
  columns?: string | undefined;
  /** Response format. Default ROWS. */
  format?: ResponseFormat | undefined;
  /** Count option (`Prefer: count=`). */
  count?: CountOption | null | undefined;
  /** Drop null fields from rows. Default false. */
  stripNulls?: boolean | undefined;
  /** Return the query plan instead of rows. */
  explain?: ExplainOptions | null | undefined;
  /** Let the transport retry this read. Default true. */
  retry?: boolean | undefined;
  /** Filters, order and pagination. */
  block?: ((q: QueryBuilder) => BlockResult) | undefined;
}

/** Options of {@linkcode DatabaseClient.selectCount}. */
export interface SelectCountOptions extends CallOptions {
  /** Schema, sent as `Accept-Profile`. */
  schema?: string | null | undefined;
  /** The `select=` projection. Default `*`. */
  columns?: string | undefined;
  /** Count option. Default EXACT. */
  count?: CountOption | undefined;
  /** Filters. */
  block?: ((q: QueryBuilder) => BlockResult) | undefined;
}

/** Options of {@linkcode DatabaseClient.selectRange}. */
export interface SelectRangeOptions extends SelectCountOptions {
  /** Response format. Default ROWS. */
  format?: ResponseFormat | undefined;
  /** Drop null fields. Default false. */
  stripNulls?: boolean | undefined;
}

/** Options of {@linkcode DatabaseClient.insert}. */
export interface InsertOptions extends CallOptions {
  /** Schema, sent as `Content-Profile`. */
  schema?: string | null | undefined;
  /**
   * The columns written, sent as `columns=` (PostgREST's insert list, not the `select=` projection
   * of the rows returned): PostgREST takes only these keys of each row, ignoring the others, and a
   * listed key a row lacks becomes NULL, or the column's default with `defaultToNull: false`. For
   * an array body, the union of all rows' keys when absent. The rows returned are whole
   * (`select=*`).
   */
  columns?: readonly string[] | null | undefined;
  /** Upsert instead of insert. Default false. */
  upsert?: boolean | undefined;
  /** What an upsert does with an existing row. Default MERGE_DUPLICATES. */
  upsertResolution?: UpsertResolution | undefined;
  /** Missing columns become NULL (true) or their default (false). Default true. */
  defaultToNull?: boolean | undefined;
  /**
   * The unique columns an upsert resolves on (`on_conflict=`). Give them for a view or a table
   * without a primary key: PostgREST then runs the upsert as a plain insert (duplicates are
   * inserted, or a unique index fails it with `CONFLICT`), and says so only by leaving
   * `resolution` out of `Preference-Applied`.
   */
  onConflict?: string | null | undefined;
  /** What the write returns. Default REPRESENTATION. */
  returning?: ReturnOption | undefined;
  /** Count option. */
  count?: CountOption | null | undefined;
  /** Drop null fields from returned rows. Default false. */
  stripNulls?: boolean | undefined;
  /** Roll the transaction back (`tx=rollback`; see {@linkcode MutateOptions.rollback}). Default false. */
  rollback?: boolean | undefined;
  /** Body media type; the body is sent verbatim. Default application/json. */
  contentType?: string | undefined;
}

/** Options of {@linkcode DatabaseClient.update} and {@linkcode DatabaseClient.delete}. */
export interface MutateOptions extends CallOptions {
  /** Schema, sent as `Content-Profile`. */
  schema?: string | null | undefined;
  /** What the write returns. Default REPRESENTATION. */
  returning?: ReturnOption | undefined;
  /** Count option. */
  count?: CountOption | null | undefined;
  /** Drop null fields from returned rows. Default false. */
  stripNulls?: boolean | undefined;
  /**
   * Roll the transaction back (`tx=rollback`). Default false. PostgREST
   * honours it only when its `db-tx-end` allows overrides
   * (`commit-allow-override`, `rollback-allow-override`); otherwise the write
   * commits (unless `db-tx-end = rollback` rolls every transaction back, which
   * the answer cannot show), and the call resolves `Failure(CONFLICT)` when
   * the answer's `Preference-Applied` leaves `tx=rollback` out. A function
   * call (`rpc`) whose final `Prefer` holds `tx=rollback` (this option or a
   * client-wide header) also sends `handling=lenient` (PostgREST's default)
   * unless a handling is already named, so that its answer lists what was
   * applied.
   */
  rollback?: boolean | undefined;
  /** Fail instead of touching more rows than this (> 0). */
  maxAffected?: number | null | undefined;
  /**
   * Return the plan instead of mutating. With `analyze`, PostgreSQL runs the
   * statement, so it needs `rollback` (`Failure(INVALID_ARGUMENT)` otherwise),
   * and the server must honour it: PostgREST's default `db-tx-end` (`commit`)
   * ignores `tx=rollback` and commits the analyzed write, and a plan's answer
   * carries no `Preference-Applied` to tell (use a server whose `db-tx-end`
   * allows overrides).
   */
  explain?: ExplainOptions | null | undefined;
  /** Projection of the returned rows (`select=`). */
  columns?: string | undefined;
}

/** Options of {@linkcode DatabaseClient.replace}. */
export interface ReplaceOptions extends CallOptions {
  /** Schema, sent as `Content-Profile`. */
  schema?: string | null | undefined;
  /** What the write returns. Default REPRESENTATION. */
  returning?: ReturnOption | undefined;
  /** Projection of the returned representation. Default `*`. */
  columns?: string | undefined;
}

/** Options of {@linkcode DatabaseClient.rpc}. */
export interface RpcOptions extends CallOptions {
  /** Schema, sent as `Content-Profile`. */
  schema?: string | null | undefined;
  /**
   * A JSON object of named arguments, or with `contentType` the body of a function's one unnamed
   * argument: text (a `text` or `xml` argument) or bytes, sent as they are (a `bytea` argument
   * with `application/octet-stream`; text would go as UTF-8).
   */
  params?: string | Uint8Array | ArrayBuffer | null | undefined;
  /** Response format. Default ROWS; HEAD sends a HEAD request. */
  format?: ResponseFormat | undefined;
  /** Count option. */
  count?: CountOption | null | undefined;
  /** Drop null fields. Default false. */
  stripNulls?: boolean | undefined;
  /** Roll the transaction back (`tx=rollback`; see {@linkcode MutateOptions.rollback}). Default false. */
  rollback?: boolean | undefined;
  /**
   * Fail instead of answering more rows than this (> 0). For a function,
   * PostgREST counts the rows it returns, not those it writes: PostgREST 13.0.3
   * and later refuse a function that returns no set (PGRST128, before running
   * it), 12.2 up to 13.0.2 check none, and a `void` function that deletes a
   * million rows was not stopped.
   */
  maxAffected?: number | null | undefined;
  /**
   * Return the plan. With `analyze` on a POST, PostgreSQL runs the function,
   * so it needs `rollback` (`Failure(INVALID_ARGUMENT)` otherwise), and the
   * server must honour it (see {@linkcode MutateOptions.explain}).
   */
  explain?: ExplainOptions | null | undefined;
  /** Body media type, sent verbatim. Default application/json. */
  contentType?: string | undefined;
  /** Filters, order and pagination on a set-returning function. */
  block?: ((q: QueryBuilder) => BlockResult) | undefined;
}

/**
 * A function's named arguments as one object: a JSON object (a record, or a
 * value of an interface type) or a Map. An array or a function is not one.
 */
export type RpcParamsObject = JsonObjectInput | ReadonlyMap<string, unknown>;

/** Named arguments of a GET RPC: ordered pairs or a record. */
export type RpcQueryParams =
  | ReadonlyArray<readonly [string, string]>
  | Readonly<Record<string, string>>
  | ReadonlyMap<string, string>;

/** Options of {@linkcode DatabaseClient.rpcGet}. */
export interface RpcGetOptions extends CallOptions {
  /** Schema, sent as `Accept-Profile`. */
  schema?: string | null | undefined;
  /** Arguments as query parameters. Default none. */
  queryParams?: RpcQueryParams | undefined;
  /**
   * Arguments as one object (or its JSON text), flattened after the
   * query parameters: nulls omitted, objects and arrays as JSON text (pass a
   * Postgres array parameter its literal as a string, `"{1,2}"`, and a
   * VARIADIC one its values as repeated `queryParams`: PostgREST would take
   * the JSON text as one element). An argument PostgREST
   * would not pass to the function (see {@linkcode flattenParams}) makes
   * `rpcGet` resolve `Failure(INVALID_ARGUMENT)`; `queryParams` go as they
   * are (filters on the result included).
   */
  params?: string | RpcParamsObject | null | undefined;
  /** Response format. Default ROWS. */
  format?: ResponseFormat | undefined;
  /** Count option. */
  count?: CountOption | null | undefined;
  /** Drop null fields. Default false. */
  stripNulls?: boolean | undefined;
  /** Return the plan. */
  explain?: ExplainOptions | null | undefined;
  /** Let the transport retry. Default true. */
  retry?: boolean | undefined;
  /** Filters, order and pagination. */
  block?: ((q: QueryBuilder) => BlockResult) | undefined;
}

export type { PgRequest, PgResponse } from "./_request.ts";

/** `Prefer` directives of `base`, each replaced by the one of `extra` with its name, then the rest of `extra`. */
function mergePrefer(base: string, extra: string): string {
  const name = (d: string) => d.split("=")[0].trim().toLowerCase();
  const given = extra.split(",").map((d) => d.trim()).filter((d) => d !== "");
  const names = new Set(given.map(name));
  const kept = base.split(",").map((d) => d.trim()).filter((d) => d !== "" && !names.has(name(d)));
  return [...kept, ...given].join(",");
}

/** The UTF-8 bytes of a text, as a string holding one character per byte (a header value). */
function utf8Bytes(text: string): string {
  let out = "";
  for (const b of new TextEncoder().encode(text)) out += String.fromCharCode(b);
  return out;
}

function headersOf(
  client: BaseClient,
  schema: string | null | undefined,
  profileHeader: "Accept-Profile" | "Content-Profile",
  base: Record<string, string | null | undefined>,
  given: CallOptions["headers"],
): Record<string, string> {
  const out: Record<string, string> = {};
  // A Headers object (of any realm) or a list of pairs, what fetch takes, has no own keys to walk.
  const extra: Record<string, string> | undefined = typeof given === "object" &&
      typeof (given as Iterable<unknown>)?.[Symbol.iterator] === "function"
    ? Object.fromEntries(new Headers(given))
    : given as Record<string, string> | undefined;
  if (schema !== undefined && schema !== null) {
    if (typeof schema !== "string" || schema.trim() === "") {
      throw new TypeError(
        `Cannot select a schema as 'schema' must be a non-blank string: current value is ${
          showValue(schema)
        }`,
      );
    }
    // PostgREST reads the profile header as UTF-8 (`getSchema` in ApiRequest.hs: `T.decodeUtf8`),
    // where fetch sends each character of a header value as one byte (and refuses one above
    // U+00FF): the name goes as its UTF-8 bytes, a character each (an ASCII name as it is).
    out[profileHeader] = utf8Bytes(schema);
  }
  for (const k in base) {
    const v = base[k];
    if (v !== null && v !== undefined) out[k] = v;
  }
  // A client-wide Prefer (`tx=rollback`, `timezone=`) is the base the call's own directives
  // replace by name: sent as one header, a computed Prefer would otherwise drop it.
  const clientPrefer = client.headers?.prefer;
  if (clientPrefer) out.Prefer = out.Prefer ? mergePrefer(clientPrefer, out.Prefer) : clientPrefer;
  if (extra) {
    for (const k in extra) {
      // A caller's Prefer overrides the directives it names and keeps the others (max-affected!).
      if (k.toLowerCase() === "prefer" && out.Prefer) {
        out.Prefer = mergePrefer(out.Prefer, extra[k]);
      } else out[k] = extra[k];
    }
  }
  return out;
}

function readPairs(
  block: ((q: QueryBuilder) => BlockResult) | undefined,
  first?: [string, string],
): Array<[string, string]> {
  if (!block) return first ? [first] : [];
  const q = new QueryBuilder();
  runBlock(block, q);
  return q.toQueryPairs(first);
}

function wherePairs(
  block: ((w: WhereBuilder) => BlockResult) | undefined | null,
  write = false,
): Array<[string, string]> {
  if (!block) return [];
  const w = new WhereBuilder();
  runBlock(block, w);
  if (write) {
    for (const p of w.predicates) {
      // PostgREST puts every and/or group of a write into its WHERE, whatever table it names
      // (`mutatePlan` resolves each against the written table): `author.or=(age.gt.5)` would
      // narrow the rows written, or fail where the table has no such column.
      if (p.kind === "group" && p.referencedTable !== null) {
        throw new TypeError(
          `Cannot filter an update or delete with a group on ${
            showValue(p.referencedTable)
          } as PostgREST applies an and() or or() group to the rows written whatever table it names: filter the embedded rows with single filters`,
        );
      }
    }
  }
  return w.predicates.map(renderTopLevel);
}

/**
 * Keys of every row of a JSON array body, in first-seen order (null when not an array).
 *
 * @example Collecting columns
 * ```ts
 * import { unionOfKeys } from "@fetchbase/fetchbase/database";
 *
 * console.log(unionOfKeys('[{"id":1},{"id":2,"title":"milk"}]')); // [ "id", "title" ]
 * console.log(unionOfKeys('{"id":1}')); // null
 * ```
 *
 * @param body The response body (JSON text).
 * @returns The keys, or null when the body is not a JSON array.
 */
export function unionOfKeys(body: string): string[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  const keys = new Set<string>();
  for (const row of parsed) {
    if (row && typeof row === "object" && !Array.isArray(row)) {
      for (const k of Object.keys(row)) keys.add(k);
    }
  }
  return [...keys];
}

/**
 * The raw PostgREST primitives under `/rest/v1`. Each returns the response
 * body as a string. A malformed request (a blank table, DSL misuse, a value
 * JSON cannot hold) resolves `Failure(INVALID_ARGUMENT)` with no request;
 * only the document's Limits throw a `RangeError` (`maxAffected` <= 0, a
 * `range` with `to < from`). The `build*` methods throw instead.
 *
 * @example Selecting rows
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { column, createDatabaseClient } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const r = await db.select("todos", {
 *   columns: "id,title",
 *   block: (q) => q.where((w) => w.eq(column<boolean>("done"), false)).limit(10),
 * });
 * if (r.ok) console.log(JSON.parse(r.value));
 * ```
 */
export class DatabaseClient {
  /** The base client whose transport every call uses. */
  readonly client: BaseClient;

  /**
   * Wraps a base client; prefer {@linkcode createDatabaseClient}.
   *
   * @param client The base client.
   */
  constructor(client: BaseClient) {
    this.client = client;
  }

  /**
   * Builds (without sending) a select request; used by the primitives and
   * by typed extensions.
   *
   * @param table The table or view.
   * @param options The select options.
   * @returns The request.
   */
  buildSelect(table: string, options?: SelectOptions): PgRequest {
    options ??= {};
    // postgrest-js takes the columns as a string here: refused, not read as no options (`*`).
    // The helpers that spread their options into these (`{ ...options, format }`) turn a
    // string into its characters by index, which no options object has.
    if (typeof options !== "object" || Object.hasOwn(options, "0")) {
      throw new TypeError(
        `Cannot select as 'options' must be an object such as { columns }: current value is ${
          showValue(options)
        }`,
      );
    }
    const format = options.format ?? ResponseFormat.ROWS;
    const head = format === ResponseFormat.HEAD;
    return {
      method: head ? "HEAD" : "GET",
      path: `/${pathSegment(table, "table")}`,
      pairs: readPairs(options.block, ["select", cleanColumns(options.columns ?? "*")]),
      headers: headersOf(this.client, options.schema, "Accept-Profile", {
        Accept: acceptHeader(format, options.stripNulls, options.explain),
        Prefer: preferHeader({ count: options.count }),
      }, options.headers),
      retry: options.retry ?? true,
      signal: options.signal,
      timeout: options.timeout,
    };
  }

  /**
   * Reads rows (GET, or HEAD for the HEAD format).
   *
   * @param table The table or view.
   * @param options Projection, format, count, block and more.
   * @returns The raw body.
   */
  select(table: string, options?: SelectOptions): Promise<ServiceResult<string>> {
    try {
      return sendBody(this.client, this.buildSelect(table, options));
    } catch (error) {
      return buildFailure(error);
    }
  }

  /**
   * Counts rows with a HEAD request; the count comes from `Content-Range`.
   *
   * @param table The table or view.
   * @param options Projection, count option (default EXACT), block.
   * @returns The count and range.
   */
  selectCount(
    table: string,
    options?: SelectCountOptions,
  ): Promise<ServiceResult<PostgrestRange>> {
    options ??= {};
    return guarded(() =>
      send(
        this.client,
        this.buildSelect(table, {
          ...options,
          format: ResponseFormat.HEAD,
          count: options.count ?? CountOption.EXACT,
        }),
      ).then((r) => r.map((v) => parseContentRange(v.headers.get("content-range"))))
    );
  }

  /**
   * Reads rows with their count and range. An offset at the counted total is an empty page; one
   * past it is PostgREST's 416 (`PGRST103`), a `Failure` (`BAD_REQUEST`, status 416), as in
   * postgrest-js; {@linkcode paginator} ends on either.
   *
   * @param table The table or view.
   * @param options Projection, format, count (default EXACT), block.
   * @returns The body with count and range.
   */
  selectRange(
    table: string,
    options?: SelectRangeOptions,
  ): Promise<ServiceResult<PostgrestRawPage>> {
    options ??= {};
    return guarded(() =>
      send(
        this.client,
        this.buildSelect(table, { ...options, count: options.count ?? CountOption.EXACT }),
      ).then((r) =>
        r.map((v) => ({ body: v.body, ...parseContentRange(v.headers.get("content-range")) }))
      )
    );
  }

  /**
   * Inserts (or upserts) one JSON object or an array of them (POST).
   *
   * @param table The table.
   * @param body The JSON body, sent verbatim.
   * @param options Upsert, returning, count and more.
   * @returns The raw body (empty for MINIMAL).
   */
  insert(
    table: string,
    body: string,
    options?: InsertOptions,
  ): Promise<ServiceResult<string>> {
    options ??= {};
    return guarded(() => {
      const contentType = options.contentType ?? "application/json";
      if (typeof contentType !== "string") {
        throw new TypeError(
          `Cannot insert as 'contentType' must be a string: current value is ${
            showValue(contentType)
          }`,
        );
      }
      const pairs: Array<[string, string]> = [];
      const returning = options.returning ?? ReturnOption.REPRESENTATION;
      const explicit = options.columns ?? null;
      if (
        explicit !== null &&
        !(Array.isArray(explicit) && explicit.every((c) => typeof c === "string"))
      ) {
        throw new TypeError(
          `Cannot insert as 'columns' must be a list of column names: current value is ${
            showValue(explicit)
          }`,
        );
      }
      const derived = explicit === null && contentType.startsWith("application/json")
        ? unionOfKeys(body)
        : null;
      const cols = explicit ?? derived;
      if (cols && cols.length > 0) {
        pairs.push([
          "columns",
          cols.map(quoteName).join(","),
        ]);
      }
      const onConflict = options.onConflict;
      if (onConflict != null && typeof onConflict !== "string") {
        throw new TypeError(
          `Cannot insert as 'onConflict' must be a string of column names: current value is ${
            showValue(onConflict)
          }`,
        );
      }
      if (onConflict && !onConflictReadsWhole(onConflict)) {
        throw new TypeError(
          `Cannot insert as PostgREST would read only part of 'onConflict' (quote a name such as "Total €"): current value is ${
            showValue(onConflict)
          }`,
        );
      }
      if (options.upsert && onConflict) {
        // As given, as postgrest-js sends it: PostgREST trims around the commas, and a
        // space inside a name ("first name") is part of the name. An unquoted name with a
        // letter beyond ASCII goes quoted: PostgREST's Unicode tables are older than ours, and
        // it would resolve on the part it reads (`id` of `id𐵊`).
        pairs.push([
          "on_conflict",
          onConflict.replace(
            /"(?:[^"\\]|\\[^])*"|[^,"]+/g,
            (t) => t[0] === '"' || !/[^\0-\x7f]/.test(t) ? t : t.replace(/\S(?:.*\S)?/s, '"$&"'),
          ),
        ]);
      }
      if (returning === ReturnOption.REPRESENTATION) pairs.unshift(["select", "*"]);
      return sendBody(this.client, {
        method: "POST",
        path: `/${pathSegment(table, "table")}`,
        pairs,
        headers: headersOf(this.client, options.schema, "Content-Profile", {
          Accept: options.stripNulls ? acceptHeader(ResponseFormat.ROWS, true, null) : null,
          Prefer: preferHeader({
            returning,
            count: options.count,
            resolution: options.upsert
              ? options.upsertResolution ?? UpsertResolution.MERGE_DUPLICATES
              : null,
            missingDefault: options.defaultToNull === false,
            rollback: options.rollback,
          }),
        }, options.headers),
        body,
        contentType,
        retry: false,
        signal: options.signal,
        timeout: options.timeout,
      });
    });
  }

  #mutate(
    method: "PATCH" | "DELETE",
    table: string,
    body: string | undefined,
    block: ((w: WhereBuilder) => BlockResult) | null | undefined,
    options: MutateOptions,
  ): Promise<ServiceResult<string>> {
    // A JavaScript caller who leaves the block out, or gives `id && ((w) => ...)` with an id of 0,
    // would write every row: only `null` says so.
    if (block !== null && !block) {
      throw new TypeError(
        `Cannot ${method === "PATCH" ? "update" : "delete"} as 'block' is ${
          block === undefined ? "missing" : showValue(block)
        }: pass (w) => w.eq(...) to choose rows, or null for every row of the table`,
      );
    }
    checkMaxAffected(options.maxAffected);
    checkExplainedWrite(options.explain, options.rollback);
    const returning = options.returning ?? ReturnOption.REPRESENTATION;
    const pairs: Array<[string, string]> = wherePairs(block, true);
    for (const [key] of pairs) {
      // PostgREST before 11 takes into a write only the filters whose key holds no `.` (its
      // `isNotRoot` reads the raw key): `data->>"a.b"=eq.1` would be dropped, and every row
      // written. A single filter whose key has a table path filters an embed of the answer, as
      // in every version (groups with one are refused by `wherePairs`).
      if (key.includes(".") && !hasTablePath(key)) {
        throw new TypeError(
          `Cannot filter an update or delete on ${
            showValue(key)
          } as PostgREST before v11 drops a filter whose key holds a '.' from a write (every row would be written): put it in an and() group`,
        );
      }
    }
    if (returning === ReturnOption.REPRESENTATION || options.columns) {
      pairs.unshift(["select", cleanColumns(options.columns ?? "*")]);
    }
    return sendBody(this.client, {
      method,
      path: `/${pathSegment(table, "table")}`,
      pairs,
      headers: headersOf(this.client, options.schema, "Content-Profile", {
        Accept: options.stripNulls || options.explain
          ? acceptHeader(ResponseFormat.ROWS, options.stripNulls, options.explain)
          : null,
        Prefer: preferHeader({
          returning,
          count: options.count,
          rollback: options.rollback,
          maxAffected: options.maxAffected,
        }),
      }, options.headers),
      body,
      // Read only with a body: a DELETE has none.
      contentType: "application/json",
      retry: false,
      signal: options.signal,
      timeout: options.timeout,
    });
  }

  /**
   * Applies a partial JSON object to every matched row (PATCH). An empty
   * block matches the whole table.
   *
   * @param table The table.
   * @param body The partial row as JSON.
   * @param block Filters (no order or limit); `null` (not left out) for every row of the table.
   * @param options Returning, count, maxAffected and more.
   * @returns The raw body.
   */
  update(
    table: string,
    body: string,
    block: ((w: WhereBuilder) => BlockResult) | null,
    options?: MutateOptions,
  ): Promise<ServiceResult<string>> {
    options ??= {};
    return guarded(() => this.#mutate("PATCH", table, body, block, options));
  }

  /**
   * Replaces a whole row, inserting it when none matches (PUT). The block
   * must select exactly the primary key, with `eq` filters whose names go
   * unquoted (`first name` does; a key named `order` or `Total €` would go
   * quoted and is refused, as PostgREST compares the raw keys with the key's
   * names: use `insert` with `upsert`).
   *
   * @param table The table.
   * @param body Every column, primary key included, as JSON.
   * @param block Filters selecting the primary key.
   * @param options Returning and projection.
   * @returns The raw body.
   */
  replace(
    table: string,
    body: string,
    block: ((w: WhereBuilder) => BlockResult) | null,
    options?: ReplaceOptions,
  ): Promise<ServiceResult<string>> {
    options ??= {};
    return guarded(() => {
      const returning = options.returning ?? ReturnOption.REPRESENTATION;
      const pairs = wherePairs(block);
      // PostgREST matches a PUT's raw filter keys with the primary key's names: `"order"` (a
      // reserved key) or `"Total €"` never matches, and the PUT is answered 405 (PGRST105).
      const quoted = pairs.find(([key]) => key.includes('"'));
      if (quoted) {
        throw new TypeError(
          `Cannot replace a row by ${
            showValue(quoted[0])
          } as PostgREST's PUT matches no quoted name with its primary key: use insert with upsert`,
        );
      }
      if (returning === ReturnOption.REPRESENTATION) {
        pairs.unshift(["select", cleanColumns(options.columns ?? "*")]);
      }
      return sendBody(this.client, {
        method: "PUT",
        path: `/${pathSegment(table, "table")}`,
        pairs,
        headers: headersOf(this.client, options.schema, "Content-Profile", {
          Prefer: preferHeader({ returning }),
        }, options.headers),
        body,
        contentType: "application/json",
        retry: false,
        signal: options.signal,
        timeout: options.timeout,
      });
    });
  }

  /**
   * Deletes matched rows (DELETE). An empty block matches the whole table.
   *
   * @param table The table.
   * @param block Filters; `null` (not left out) for every row of the table.
   * @param options Returning, count, maxAffected and more.
   * @returns The raw body.
   */
  delete(
    table: string,
    block: ((w: WhereBuilder) => BlockResult) | null,
    options?: MutateOptions,
  ): Promise<ServiceResult<string>> {
    options ??= {};
    return guarded(() => this.#mutate("DELETE", table, undefined, block, options));
  }

  /**
   * Builds (without sending) a POST RPC request.
   *
   * @param fn The function name.
   * @param options The RPC options.
   * @returns The request.
   */
  buildRpc(fn: string, options?: RpcOptions): PgRequest {
    options ??= {};
    checkRpcOptions(options);
    checkMaxAffected(options.maxAffected);
    const format = options.format ?? ResponseFormat.ROWS;
    const head = format === ResponseFormat.HEAD;
    // A HEAD call runs the function read-only; a POST may write.
    if (!head) checkExplainedWrite(options.explain, options.rollback);
    const pairs = readPairs(options.block);
    const headers = headersOf(
      this.client,
      options.schema,
      head ? "Accept-Profile" : "Content-Profile",
      {
        Accept: acceptHeader(format, options.stripNulls, options.explain),
        Prefer: preferHeader({
          count: options.count,
          rollback: options.rollback,
          maxAffected: options.maxAffected,
        }),
      },
      options.headers,
    );
    const path = `/rpc/${pathSegment(fn, "function")}`;
    const params = options.params;
    const contentType = options.contentType ?? "application/json";
    const json = /json/i.test(contentType);
    // Bytes (any realm's views; this realm's ArrayBuffer) go as they are, to a function's one
    // bytea argument; other objects only as JSON, and never as a HEAD call's arguments.
    const bytes = ArrayBuffer.isView(params)
      ? new Uint8Array(params.buffer, params.byteOffset, params.byteLength)
      : params instanceof ArrayBuffer
      ? new Uint8Array(params)
      : null;
    if (typeof params === "object" && params !== null && (head ? bytes : !json && !bytes)) {
      throw new TypeError(
        `Cannot call the function as 'params' must be ${
          head ? "named arguments for a HEAD call" : `text or bytes for a ${contentType} body`
        }: current value is ${showValue(params)}`,
      );
    }
    if (head) {
      const args = params ? flattenParams(params as string | RpcParamsObject) : [];
      return {
        method: "HEAD",
        path,
        pairs: [...args, ...pairs],
        headers,
        // A HEAD call runs the function read-only, as rpcGet does: retried like every read.
        retry: true,
        signal: options.signal,
        timeout: options.timeout,
      };
    }
    return {
      method: "POST",
      path,
      pairs,
      headers: withRollbackEcho(headers),
      // Bytes go as they are. A plain object from JavaScript callers goes as its JSON, not as
      // "[object Object]". No arguments are `{}` in JSON; a body of another type (a function's
      // one `text` or `bytea` argument) is empty rather than the text `{}`.
      body: bytes ??
        (typeof params === "object" && params !== null
          ? plainJson(params, "call the function")
          : params ?? (json ? "{}" : "")),
      contentType,
      retry: false,
      signal: options.signal,
      timeout: options.timeout,
    };
  }

  /**
   * Calls a function with POST (`/rpc/{function}`).
   *
   * @param fn The function name.
   * @param options Params, format, count, block and more.
   * @returns The raw body.
   */
  rpc(fn: string, options?: RpcOptions): Promise<ServiceResult<string>> {
    return guarded(() => sendBody(this.client, this.buildRpc(fn, options)));
  }

  /**
   * Builds (without sending) a GET RPC request.
   *
   * @param fn The function name.
   * @param options The RPC options.
   * @returns The request.
   */
  buildRpcGet(fn: string, options?: RpcGetOptions): PgRequest {
    options ??= {};
    checkRpcOptions(options);
    const format = options.format ?? ResponseFormat.ROWS;
    const q = options.queryParams ?? [];
    // A Map (the document's `Map<String,String>`) goes as its entries: Object.entries sees none.
    const entries = Array.isArray(q)
      ? q
      : typeof q === "object" && q !== null
      ? Object.entries(plainOf(q))
      : [q];
    const args: Array<[string, string]> = entries.map((pair) => {
      // Pairs of text (numbers and booleans written as such): an object went out through
      // String(), or crashed on it.
      const v: unknown = Array.isArray(pair) ? pair[1] : pair;
      if (
        !(Array.isArray(pair) && typeof pair[0] === "string" &&
          (typeof v === "string" || typeof v === "number" || typeof v === "boolean"))
      ) {
        throw new TypeError(
          `Cannot call the function with GET as 'queryParams' must hold pairs of names and text: current value is ${
            showValue(v)
          }`,
        );
      }
      return [pair[0], String(v)];
    });
    if (options.params != null) {
      args.push(...flattenParams(options.params));
    }
    return {
      method: format === ResponseFormat.HEAD ? "HEAD" : "GET",
      path: `/rpc/${pathSegment(fn, "function")}`,
      pairs: [...args, ...readPairs(options.block)],
      headers: headersOf(this.client, options.schema, "Accept-Profile", {
        Accept: acceptHeader(format, options.stripNulls, options.explain),
        Prefer: preferHeader({ count: options.count }),
      }, options.headers),
      retry: options.retry ?? true,
      signal: options.signal,
      timeout: options.timeout,
    };
  }

  /**
   * Calls a STABLE or IMMUTABLE function with GET; arguments are query
   * parameters, so the call is cacheable.
   *
   * @param fn The function name.
   * @param options Query params, format, count, block and more.
   * @returns The raw body.
   */
  rpcGet(fn: string, options?: RpcGetOptions): Promise<ServiceResult<string>> {
    return guarded(() => sendBody(this.client, this.buildRpcGet(fn, options)));
  }
}

/**
 * Flattens a JSON object of arguments into query pairs: nulls omitted,
 * objects and arrays as JSON text (a Postgres array parameter takes its
 * literal as a string, `"{1,2}"`), scalars as text. An argument that
 * PostgREST would not pass to the function throws `TypeError` (which
 * `rpcGet` resolves as `Failure(INVALID_ARGUMENT)`): a name it
 * reserves (`select`, `columns`, `on_conflict`, or ending in `order`,
 * `limit`, `offset`, `and`, `or`) or a value shaped like a filter
 * (`cs.stanford.edu`, `not.sure`), a name PostgREST would read only in part (`a.b`, `p->x`, `a:b`), a
 * `number` beyond 2^53 (pass a `bigint` or a string) or one JSON cannot hold (`NaN`, `Infinity`);
 * such calls need POST or another value. A number in JSON text goes as written, nested too (a
 * double would round an id beyond 2^53 or a numeric(38,18) amount), and a `bigint` goes as its
 * digits.
 *
 * @example Flattening
 * ```ts
 * import { flattenParams } from "@fetchbase/fetchbase/database";
 *
 * console.log(flattenParams({ a: 1, b: null, c: [1, 2], d: "{1,2}" }));
 * // [ [ "a", "1" ], [ "c", "[1,2]" ], [ "d", "{1,2}" ] ]
 * ```
 *
 * @param params A JSON object (string or value).
 * @returns The pairs.
 */
export function flattenParams(
  params: string | RpcParamsObject,
): Array<[string, string]> {
  let obj: unknown = plainOf(params);
  // JSON text: each number is read as this mark and its literal, and goes as written, as PostgREST
  // passes a GET argument's text to the function and a POST body's number as written: through a
  // double, an id beyond 2^53 or a numeric(38,18) amount would lose digits.
  let mark: string | null = null;
  if (typeof params === "string") {
    try {
      obj = JSON.parse(params); // validates first: the rewrite below assumes valid JSON
      mark = freshMark();
      const marked = markNumbers(params, mark, () => true);
      if (marked !== null) obj = JSON.parse(marked);
    } catch (cause) {
      throw new TypeError(
        "Cannot pass arguments as query parameters as 'params' is not JSON",
        { cause },
      );
    }
  }
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) {
    throw new TypeError(
      "Cannot pass arguments as query parameters as 'params' must be a JSON object",
    );
  }
  const out: Array<[string, string]> = [];
  for (const [k, raw] of Object.entries(obj as Record<string, unknown>)) {
    // As JSON would encode it: a Date (anything with toJSON) becomes its string.
    const v = raw !== null && typeof raw === "object" &&
        typeof (raw as { toJSON?: unknown }).toJSON === "function"
      ? (raw as { toJSON(): unknown }).toJSON()
      : raw;
    if (v === null || v === undefined) continue;
    // JSON has no such value: String() would send a function's source or "Symbol()".
    if (typeof v === "function" || typeof v === "symbol") {
      throw new TypeError(`Cannot pass ${showValue(k)} as a query argument as it is a ${typeof v}`);
    }
    // JSON has no NaN or Infinity (a POST sends null): as text, the function would get "NaN".
    if (typeof v === "number" && !Number.isFinite(v)) {
      throw new TypeError(
        `Cannot pass ${showValue(k)} as a query argument as ${v} is not a JSON number`,
      );
    }
    if (isRoundedId(v)) throw roundedId(`pass ${showValue(k)} as a query argument`, v);
    // Objects and arrays go as JSON text, as the document says (for json/jsonb parameters); a
    // Postgres array parameter (int[]) takes its literal as a string ("{1,2}").
    const text = typeof v === "object"
      ? unquoteMarks(plainJson(v, `pass ${showValue(k)}`), mark)
      : mark !== null && typeof v === "string" && v.startsWith(mark)
      ? v.slice(mark.length)
      : String(v);
    // PostgREST takes a query key it reserves as a modifier, and a value shaped like
    // `op.value` as a filter on the result: the function would never see the argument.
    // And it reads a name up to the first character outside an identifier (`a.b` passes `b`,
    // `p->x` passes `p`): the function would get another argument, or none.
    const named = ARG_NAME().test(k);
    // Unquoted only in ASCII: PostgREST's Unicode tables are older than JavaScript's.
    const plain = named && !/[^\0-\x7f]/.test(k);
    const what = FILTER_SHAPED().test(text) ? "a filter" : RESERVED_KEYS.has(k) // a dotted name ending in one (`a.limit`) fails ARG_NAME below
      ? "a modifier"
      : named
      ? null
      : "another name";
    if (what) {
      throw new TypeError(
        `Cannot pass ${
          showValue(k)
        } as a query argument as PostgREST would read it as ${what}; call the function with POST (rpc)`,
      );
    }
    out.push([plain ? k : `"${k}"`, text]);
  }
  return out;
}

/**
 * Values PostgREST parses as an operator expression (`cs.x`, `not.x`,
 * `eq(any).{1}`, `fts(english).x`): quantifiers follow only the comparison
 * and pattern operators, a configuration only the full-text ones.
 */
const FILTER_SHAPED = /* @__PURE__ */ unicodePattern(
  "^(?:not\\.|(?:(?:eq|gte|gt|lte|lt|like|ilike|match|imatch)(?:\\((?:any|all)\\))?|neq|in|is|isdistinct|cs|cd|ov|sl|sr|nxr|nxl|adj|(?:fts|plfts|phfts|wfts)(?:\\([\\p{L}0-9_ $]+\\))?)\\.)",
);
/**
 * Argument names PostgREST reads whole: identifier characters, inner spaces and single dashes. One
 * with a letter beyond ASCII goes quoted, which PostgREST reads whole.
 */
const ARG_NAME = /* @__PURE__ */ unicodePattern(
  "^[\\p{L}0-9_$](?:[\\p{L}0-9_$ ]*[\\p{L}0-9_$])?(?:-[\\p{L}0-9_$](?:[\\p{L}0-9_$ ]*[\\p{L}0-9_$])?)*$",
);

/**
 * Creates a {@linkcode DatabaseClient}; no I/O.
 *
 * @example Creating the client
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * ```
 *
 * @param client The base client.
 * @returns The database client.
 */
export function createDatabaseClient(client: BaseClient): DatabaseClient {
  return new DatabaseClient(client);
}
