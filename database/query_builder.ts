/**
 * `QueryBuilder`: the read block: filters (`where`), ordering, limit,
 * offset and range, kept apart and rendered once into query pairs.
 *
 * @module
 */

import { LimitError } from "./_guard.ts";
import { runBlock } from "./_block.ts";
import { columnName, type ColumnRef } from "./column.ts";
import { checkColumn, checkEmbedPath, hasTablePath } from "./_encode.ts";
import { Nulls, Order } from "./models.ts";
import { type BlockResult, renderTopLevel, WhereBuilder } from "./where_builder.ts";
import { showValue } from "../core/_show.ts";

/** Options of {@linkcode QueryBuilder.orderBy}. */
export interface OrderByOptions {
  /** Direction. Default ASC. */
  order?: Order | undefined;
  /** Where nulls sort; the server default when absent. */
  nulls?: Nulls | null | undefined;
  /**
   * Orders an embedded resource instead of the top level. Name it as the select does: by its
   * alias when it has one (`a:author(*)` → `a`); PostgREST 16 warns on the relation's name there
   * and refuses it (PGRST108) once `url-use-legacy-target-names` is off.
   */
  referencedTable?: string | null | undefined;
}

// postgrest-js's options, which would be ignored here (an ascending order, nulls where the server
// puts them, a limit on the top level instead of the embed), with what to pass instead.
const legacy: Array<[string, string]> = [
  ["ascending", "{ order: Order.DESC } (or Order.ASC)"],
  ["nullsFirst", "{ nulls: Nulls.FIRST } (or Nulls.LAST)"],
  ["foreignTable", "{ referencedTable: ... } naming the embed"],
];

function checkOptions(options: unknown, what: string, example: string): void {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      `Cannot ${what} as 'options' must be an object such as ${example}: current value is ${
        showValue(options)
      }`,
    );
  }
  for (const [name, hint] of legacy) {
    if (name in options) {
      throw new TypeError(`Cannot ${what} as '${name}' is no option here: pass ${hint}`);
    }
  }
}

function checkCount(
  value: number,
  what: string,
  Err: new (message: string) => RangeError = RangeError,
): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new Err(
      `Cannot set ${what} as it must be a non-negative integer: current value is ${
        showValue(value)
      }`,
    );
  }
  return value;
}

/** Sets `key` to `value` in a list of pairs: in place when it is there, else at the end. */
function put(list: Array<[string, string]>, key: string, value: number): void {
  const pair = list.find((p) => p[0] === key);
  if (pair) pair[1] = String(value);
  else list.push([key, String(value)]);
}

/**
 * Collects a read's filters and modifiers. `limit`/`offset`: the last call
 * wins; `range(from, to)` is `offset = from` and `limit = to - from + 1`.
 *
 * @example A read block
 * ```ts
 * import { column, QueryBuilder } from "@fetchbase/fetchbase/database";
 *
 * const q = new QueryBuilder()
 *   .where((w) => w.eq(column<boolean>("done"), false))
 *   .orderBy(column("created_at"), { order: "desc", nulls: "nullslast" })
 *   .range(0, 9);
 * console.log(q.toQueryPairs());
 * ```
 */
export class QueryBuilder {
  /** The filters. */
  readonly filter: WhereBuilder = new WhereBuilder();
  // Lists of pairs, each key once at the place it was first set: cheaper to build and walk than
  // Maps, for the one or two keys a query has.
  #order: Array<[string, string]> = [];
  #limit: Array<[string, string]> = [];
  #offset: Array<[string, string]> = [];

  /**
   * Adds filter predicates (AND-ed with earlier ones).
   *
   * @param block Adds predicates.
   * @returns This builder.
   */
  where(block: (w: WhereBuilder) => BlockResult): this {
    runBlock(block, this.filter);
    return this;
  }

  /**
   * Adds a sort key; successive calls add secondary keys to the same
   * `order=` parameter (one per referenced table). A column written `author(name)` orders the
   * rows by a column of the to-one embed `author` (PostgREST's related order term).
   *
   * @param column The column.
   * @param options Direction, nulls and referenced table.
   * @returns This builder.
   */
  orderBy(column: ColumnRef<unknown>, options?: OrderByOptions): this {
    options ??= {};
    checkOptions(options, "order", "{ order: Order.DESC }");
    const order = options.order ?? Order.ASC;
    if (order !== Order.ASC && order !== Order.DESC) {
      throw new TypeError(
        `Cannot order as 'order' must be asc or desc: current value is ${showValue(order)}`,
      );
    }
    const nulls = options.nulls ?? null;
    if (nulls !== null && nulls !== Nulls.FIRST && nulls !== Nulls.LAST) {
      throw new TypeError(
        `Cannot order as 'nulls' must be nullsfirst or nullslast: current value is ${
          showValue(nulls)
        }`,
      );
    }
    const key = options.referencedTable
      ? `${checkEmbedPath(options.referencedTable)}.order`
      : "order";
    const raw = columnName(column);
    // `author(name)`: the rows by a column of a to-one embed (PostgREST's related order term).
    // An embed is named plainly: in `data->>a(b)` the parenthesis is part of the JSON key.
    const related = typeof raw === "string" ? /^((?:[^()-]|-(?!>))+)\(([^()]+)\)$/.exec(raw) : null;
    const inner = related && checkColumn(related[2], false);
    // PostgREST ends an index only at `->`, `::`, `.`, `,` or the end: before `)` it reads the
    // digits as a key (NULL on an array, an order by nothing), and `-1` not at all.
    if (inner && /->>?-?\d+$/.test(inner)) {
      throw new TypeError(
        `Cannot order by ${
          showValue(raw)
        } as PostgREST reads an array index at the end of a related order term as a key`,
      );
    }
    const name = related ? `${checkColumn(related[1], false)}(${inner})` : checkColumn(raw, false);
    // PostgREST reads no table path in an order term (`order=author.name` is a 400).
    if (hasTablePath(name)) {
      throw new TypeError(
        `Cannot order by ${
          showValue(name)
        } as an order term takes no table path: order by an embed's column as 'author(name)', or an embed's rows with 'referencedTable'`,
      );
    }
    const term = `${name}.${order}${nulls ? "." + nulls : ""}`;
    const pair = this.#order.find((p) => p[0] === key);
    if (pair) pair[1] += "," + term;
    else this.#order.push([key, term]);
    return this;
  }

  /**
   * Caps the number of rows; the last call wins.
   *
   * @param count The cap.
   * @param options `referencedTable` caps an embedded resource.
   * @returns This builder.
   */
  limit(count: number, options?: { referencedTable?: string | null | undefined }): this {
    options ??= {};
    checkOptions(options, "set the limit", '{ referencedTable: "tags" }');
    put(
      this.#limit,
      options.referencedTable ? `${checkEmbedPath(options.referencedTable)}.limit` : "limit",
      checkCount(count, "limit"),
    );
    return this;
  }

  /**
   * Skips rows; the last call wins.
   *
   * @param count Rows to skip.
   * @param options `referencedTable` offsets an embedded resource.
   * @returns This builder.
   */
  offset(count: number, options?: { referencedTable?: string | null | undefined }): this {
    options ??= {};
    checkOptions(options, "set the offset", '{ referencedTable: "tags" }');
    put(
      this.#offset,
      options.referencedTable ? `${checkEmbedPath(options.referencedTable)}.offset` : "offset",
      checkCount(count, "offset"),
    );
    return this;
  }

  /**
   * The inclusive, zero-based window [from, to]. A `from` or `to` that is not
   * a non-negative integer, or `to < from`, throws `RangeError`: one of the
   * document's Limits, thrown even from inside an operation's block (validate
   * a page number from a query string before it gets here).
   *
   * @param from First row, inclusive.
   * @param to Last row, inclusive.
   * @param options `referencedTable` windows an embedded resource.
   * @returns This builder.
   */
  range(from: number, to: number, options?: { referencedTable?: string | null | undefined }): this {
    // The document's Limits: thrown by the operations, never a Failure.
    options ??= {};
    checkOptions(options, "set the range", '{ referencedTable: "tags" }');
    checkCount(from, "range 'from'", LimitError);
    checkCount(to, "range 'to'", LimitError);
    if (to < from) {
      throw new LimitError(
        `Cannot set the range as 'to' must be >= 'from': current values are from=${from}, to=${to}`,
      );
    }
    this.offset(from, options);
    return this.limit(to - from + 1, options);
  }

  /** Whether a limit, offset or range was set at the top level. */
  get hasWindow(): boolean {
    return this.#limit.some((p) => p[0] === "limit") || this.#offset.some((p) => p[0] === "offset");
  }

  /**
   * Renders filters, then order, limit and offset, as query pairs.
   *
   * @param first A pair to put before the rest (the projection).
   * @returns The pairs, in a stable order.
   */
  toQueryPairs(first?: [string, string]): Array<[string, string]> {
    const pairs: Array<[string, string]> = first ? [first] : [];
    for (const p of this.filter.predicates) pairs.push(renderTopLevel(p));
    // Copies: the pairs are the caller's to change.
    for (const [k, v] of this.#order) pairs.push([k, v]);
    for (const [k, v] of this.#limit) pairs.push([k, v]);
    for (const [k, v] of this.#offset) pairs.push([k, v]);
    return pairs;
  }
}
