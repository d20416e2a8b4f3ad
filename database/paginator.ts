/**
 * The database paginator: one offset page per `loadNext()` through a range
 * window, on the shared {@linkcode Paginator} type.
 *
 * @module
 */

import { runBlock } from "./_block.ts";
import { createPaginator, type Paginator } from "../core/paginator.ts";
import { success } from "../core/result.ts";
import type { DatabaseClient } from "./client.ts";
import { QueryBuilder } from "./query_builder.ts";
import type { BlockResult } from "./where_builder.ts";
import { selectTyped } from "./typed.ts";
import type { Validator } from "./validator.ts";
import { NOT_A_VALIDATOR, refusedValidator } from "./_refused_validator.ts";
import { showValue } from "../core/_show.ts";

/** Options of {@linkcode paginator}. */
export interface PaginatorOptions<T> {
  /** Rows per page, > 0. Default 20. */
  pageSize?: number | undefined;
  /** Schema (`Accept-Profile`). */
  schema?: string | null | undefined;
  /** The `select=` projection. Default `*`. */
  columns?: string | undefined;
  /** Filters and a stable order; must not set range, limit or offset. */
  block?: ((q: QueryBuilder) => BlockResult) | undefined;
  /** Checks each row. */
  validator?: Validator<T> | null | undefined;
}

/**
 * Pages through a table. Nothing is fetched until `loadNext()`. Throws
 * `RangeError` for `pageSize <= 0` and `TypeError` when the block sets a
 * range, limit or offset (the paginator owns the window). It ends on the
 * first empty page, or on PostgREST's 416 for an offset past a counted total.
 * Its `items` keep every row loaded, as a list on screen needs: to walk a
 * large table on a server without keeping it, call `selectTyped` in a loop
 * (a `range` per page, or better a filter past the last key seen).
 *
 * @example Paging todos
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { column, createDatabaseClient, paginator } from "@fetchbase/fetchbase/database";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const pages = paginator<{ id: number }>(db, "todos", {
 *   pageSize: 50,
 *   block: (q) => q.orderBy(column("id")),
 * });
 * await pages.loadNext();
 * console.log(pages.items.value.length);
 * ```
 *
 * @param db The database client.
 * @param table The table or view.
 * @param options Page size, projection, block, validator.
 * @returns The paginator.
 */
export function paginator<T>(
  db: DatabaseClient,
  table: string,
  options?: PaginatorOptions<T>,
): Paginator<T> {
  options ??= {};
  // postgrest-js takes the columns as a string where select's options go: refused.
  if (typeof options !== "object") {
    throw new TypeError(
      `Cannot paginate as 'options' must be an object such as { columns }: current value is ${
        showValue(options)
      }`,
    );
  }
  const pageSize = options.pageSize ?? 20;
  if (!Number.isSafeInteger(pageSize) || pageSize <= 0) {
    throw new RangeError(
      `Cannot paginate as 'pageSize' must be > 0: current value is ${showValue(pageSize)}`,
    );
  }
  if (refusedValidator(options.validator)) throw new TypeError(NOT_A_VALIDATOR);
  if (options.block) {
    const probe = new QueryBuilder();
    runBlock(options.block, probe); // an async block is a TypeError here, as everywhere
    if (probe.hasWindow) {
      throw new TypeError(
        "Cannot paginate as the block sets range, limit or offset; the paginator sets the window",
      );
    }
  }
  // PostgREST caps every answer at db-max-rows (1000 on the hosted service) without saying so:
  // a short page is not the end, an empty one is.
  return createPaginator<T>(pageSize, (offset, limit, signal) =>
    selectTyped<T>(db, table, {
      schema: options.schema,
      columns: options.columns,
      validator: options.validator,
      signal,
      block: (q) => {
        if (options.block) runBlock(options.block, q);
        q.range(offset, offset + limit - 1);
      },
      // PostgREST answers 416 (PGRST103) for an offset past a counted total (a client-wide
      // `Prefer: count=`, rows deleted meanwhile): no row lies there, so it is the end.
    }).then((r) => !r.ok && r.error.status === 416 ? success([]) : r), { endOnShortPage: false });
}
