/**
 * `WhereBuilder`: filter predicates, AND-ed; `or`, `and` and `not` groups
 * nest. Values are escaped by PostgREST's rules so no value can change the
 * query's shape.
 *
 * @module
 */

import { type Column, columnName, type ColumnRef } from "./column.ts";
import {
  checkColumn,
  checkEmbedPath,
  type FilterValue,
  hasTablePath,
  listOperand,
  quoteItem,
  scalar,
} from "./_encode.ts";
import { TextSearchType } from "./models.ts";
import { runBlock } from "./_block.ts";
import { showValue } from "../core/_show.ts";

/** One predicate or group collected by a {@linkcode WhereBuilder}. */
export type Predicate =
  | {
    kind: "filter";
    column: string;
    operator: string;
    /** The operand: a raw scalar, or a ready list when `list` is true. */
    value: string;
    list: boolean;
    negated: boolean;
  }
  | {
    kind: "group";
    operator: "or" | "and";
    negated: boolean;
    referencedTable: string | null;
    items: Predicate[];
  };

/**
 * An operand for a column of type `T`: a value of its type, or a `Date` where the column's type
 * is `string` itself (a timestamp arrives in JSON as its ISO text, so row types declare it
 * `string`; a `Date` is sent as that text), or a branded or template string, but not a union of
 * string literals (an enum).
 */
export type Operand<T> =
  | NonNullable<T>
  | (NonNullable<T> extends string
    ? (Record<never, never> extends Record<NonNullable<T>, 1> ? Date : never) // not a literal union
    : never);

/** A `{ from, to }` closed range for {@linkcode WhereBuilder.within}. */
export interface ClosedRange<T> {
  /** Lower bound, inclusive. */
  from: T;
  /** Upper bound, inclusive. */
  to: T;
}

/** Options of {@linkcode WhereBuilder.textSearch}. */
export interface TextSearchOptions {
  /** The text-search configuration, e.g. `english`. */
  config?: string | null | undefined;
  /** How the query is parsed. Default PLAIN. */
  type?: TextSearchType | undefined;
}

/**
 * The predicates a group's block adds. A group must hold one: PostgREST rejects `or=()`, and
 * dropping an empty `or` (no row) or `and` (every row) would change what the query means.
 */
function groupItems(operator: string, block: (w: WhereBuilder) => BlockResult): Predicate[] {
  // Built outside the class: `new WhereBuilder()` inside it makes a bundler name the class
  // `_WhereBuilder` for its own binding.
  const inner = new WhereBuilder();
  runBlock(block, inner);
  if (inner.predicates.length === 0) {
    throw new TypeError(`Cannot filter with ${operator} as its block added no predicate`);
  }
  return inner.predicates;
}

/**
 * An `in.(...)` list. PostgREST sends its items as text, so a null would be
 * the word 'null' (a failed cast, or a false match), never SQL NULL.
 */
function inOperand(values: readonly unknown[], what: string): string {
  if (Array.isArray(values) && values.includes(null)) {
    throw new TypeError(
      `Cannot filter with ${what} as the list holds null; combine isNull() in an or() group instead`,
    );
  }
  // PostgREST reads `in.("")` as the empty list: the one empty string goes twice.
  if (Array.isArray(values) && values.length === 1 && values[0] === "") return '("","")';
  return listOperand(values, what);
}

function negate(p: Predicate): Predicate {
  return { ...p, negated: !p.negated };
}

/**
 * An operand's text: a JavaScript array is a Postgres array (`{a,"b c"}`, a ready list), as for
 * `contains`; anything else a scalar.
 */
function operandText(value: unknown, what: string): string {
  return Array.isArray(value) ? listOperand(value, what, "{", "}") : scalar(value, what);
}

/**
 * What a DSL block (`(w) => w.eq(...)`, `(q) => q.limit(10)`) may return:
 * anything but a promise. An `async` block would add its filters only after
 * the request was built and sent (an `update` or `delete` would then reach
 * every row): it is refused here at compile time, as it is at run time.
 */
export type BlockResult =
  | (object & { readonly then?: never })
  | string
  | number
  | boolean
  | bigint
  | symbol
  | null
  | undefined
  | void;

/**
 * Collects filter predicates. Each statement adds one predicate; statements
 * are AND-ed. String operands are escaped; numbers and booleans are emitted
 * verbatim; an `undefined` operand throws `TypeError`, and so does a null
 * one except for `eq`, `neq` and `isDistinctFrom` (`is.null`): the operand
 * types take a typed column's values without null and undefined.
 *
 * A column name may hold a table path and a JSON path (`author.name`, `data->tags->>0`); names
 * and keys PostgREST would not read whole go quoted. Digits alone are an array index
 * (`data->>0`): name an object key of digits in PostgREST's quotes, `data->>"2024"`, which goes as
 * given (a quoted key is one key, `->` inside it included: `data->"a->b"`).
 *
 * @example Filters
 * ```ts
 * import { columns, createDatabaseClient } from "@fetchbase/fetchbase/database";
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 *
 * interface Todo { id: number; title: string; done: boolean }
 * const todo = columns<Todo>();
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * await db.select("todos", {
 *   block: (q) => q.where((w) => w.eq(todo.done, false).ilike(todo.title, "%milk%")),
 * });
 * ```
 */
export class WhereBuilder {
  /** The predicates collected so far. */
  readonly predicates: Predicate[] = [];

  #add(
    column: ColumnRef<unknown>,
    operator: string,
    value: string,
    list = false,
    negated = false,
  ): this {
    this.predicates.push({
      kind: "filter",
      column: checkColumn(columnName(column)),
      operator,
      value,
      list,
      negated,
    });
    return this;
  }

  #nullable(column: ColumnRef<unknown>, operator: string, value: unknown, what: string): this {
    if (value === null) return this.#add(column, "is", "null", true, operator === "neq");
    return this.#operand(column, operator, value, what);
  }

  #operand(column: ColumnRef<unknown>, operator: string, value: unknown, what: string): this {
    return this.#add(column, operator, operandText(value, what), Array.isArray(value));
  }

  /**
   * `column = value` (`eq`); a null value means `is.null`, an array is a
   * Postgres array (`eq.{a,b}`; compare a `jsonb` column with its JSON text).
   *
   * @param column The column.
   * @param value The operand.
   * @returns This builder.
   */
  eq<T>(column: ColumnRef<T>, value: NoInfer<Operand<T>> | null): this {
    return this.#nullable(column, "eq", value, "eq");
  }

  /**
   * `column <> value` (`neq`); a null value means `not.is.null`, an array is
   * a Postgres array.
   *
   * @param column The column.
   * @param value The operand.
   * @returns This builder.
   */
  neq<T>(column: ColumnRef<T>, value: NoInfer<Operand<T>> | null): this {
    return this.#nullable(column, "neq", value, "neq");
  }

  /**
   * `column > value` (`gt`); an array is a Postgres array, as for `eq`.
   *
   * @param column The column.
   * @param value The operand.
   * @returns This builder.
   */
  greater<T>(column: ColumnRef<T>, value: NoInfer<Operand<T>>): this {
    return this.#operand(column, "gt", value, "greater");
  }

  /**
   * `column >= value` (`gte`); an array is a Postgres array, as for `eq`.
   *
   * @param column The column.
   * @param value The operand.
   * @returns This builder.
   */
  greaterEq<T>(column: ColumnRef<T>, value: NoInfer<Operand<T>>): this {
    return this.#operand(column, "gte", value, "greaterEq");
  }

  /**
   * `column < value` (`lt`); an array is a Postgres array, as for `eq`.
   *
   * @param column The column.
   * @param value The operand.
   * @returns This builder.
   */
  less<T>(column: ColumnRef<T>, value: NoInfer<Operand<T>>): this {
    return this.#operand(column, "lt", value, "less");
  }

  /**
   * `column <= value` (`lte`); an array is a Postgres array, as for `eq`.
   *
   * @param column The column.
   * @param value The operand.
   * @returns This builder.
   */
  lessEq<T>(column: ColumnRef<T>, value: NoInfer<Operand<T>>): this {
    return this.#operand(column, "lte", value, "lessEq");
  }

  /**
   * `from <= column <= to`: one predicate, sent as `and=(col.gte.from,col.lte.to)`.
   *
   * @param column The column.
   * @param range The inclusive bounds.
   * @returns This builder.
   */
  within<T>(column: ColumnRef<T>, range: ClosedRange<NoInfer<Operand<T>>>): this {
    const full = columnName(column);
    checkColumn(full);
    // Inside a group PostgREST reads no table path: `author.age` becomes `author.and=(age...)`.
    const dot = full.split("->")[0].lastIndexOf(".");
    const name = checkColumn(full.slice(dot + 1));
    const f = (operator: string, v: unknown): Predicate => ({
      kind: "filter",
      column: name,
      operator,
      value: operandText(v, "within"),
      list: Array.isArray(v),
      negated: false,
    });
    this.predicates.push({
      kind: "group",
      operator: "and",
      negated: false,
      referencedTable: dot === -1 ? null : checkEmbedPath(full.slice(0, dot)),
      items: [f("gte", range?.from), f("lte", range?.to)],
    });
    return this;
  }

  /**
   * `column IS DISTINCT FROM value` (`isdistinct`), null-aware.
   *
   * @param column The column.
   * @param value The operand.
   * @returns This builder.
   */
  isDistinctFrom<T>(column: ColumnRef<T>, value: NoInfer<Operand<T>> | null): this {
    // IS DISTINCT FROM NULL is IS NOT NULL; `isdistinct.null` would compare with the text 'null'.
    if (value === null) return this.isNotNull(column);
    return this.#operand(column, "isdistinct", value, "isDistinctFrom");
  }

  /**
   * `column IS NULL`.
   *
   * @param column The column.
   * @returns This builder.
   */
  isNull(column: ColumnRef<unknown>): this {
    return this.#add(column, "is", "null", true);
  }

  /**
   * `column IS NOT NULL`.
   *
   * @param column The column.
   * @returns This builder.
   */
  isNotNull(column: ColumnRef<unknown>): this {
    return this.#add(column, "is", "null", true, true);
  }

  /**
   * `column IS TRUE` / `IS FALSE`.
   *
   * @param column The column.
   * @param value The truth value.
   * @returns This builder.
   */
  isExactly(column: ColumnRef<boolean | null>, value: boolean): this {
    if (typeof value !== "boolean") {
      throw new TypeError(
        `Cannot filter with isExactly as the value must be a boolean: current value is ${
          showValue(value)
        }`,
      );
    }
    return this.#add(column, "is", String(value), true);
  }

  /**
   * `column LIKE pattern` (`%` wildcards). PostgREST also reads every `*`
   * as `%`, so a literal `*` cannot be matched.
   *
   * @param column The column.
   * @param pattern The pattern.
   * @returns This builder.
   */
  like(column: ColumnRef<string | null>, pattern: string): this {
    return this.#add(column, "like", scalar(pattern, "like"));
  }

  /**
   * `column ILIKE pattern` (wildcards as {@linkcode WhereBuilder.like}).
   *
   * @param column The column.
   * @param pattern The pattern.
   * @returns This builder.
   */
  ilike(column: ColumnRef<string | null>, pattern: string): this {
    return this.#add(column, "ilike", scalar(pattern, "ilike"));
  }

  /**
   * POSIX regular expression match (`match`, `~`).
   *
   * @param column The column.
   * @param pattern The regular expression.
   * @returns This builder.
   */
  matches(column: ColumnRef<string | null>, pattern: string): this {
    return this.#add(column, "match", scalar(pattern, "matches"));
  }

  /**
   * Case-insensitive POSIX match (`imatch`, `~*`).
   *
   * @param column The column.
   * @param pattern The regular expression.
   * @returns This builder.
   */
  imatches(column: ColumnRef<string | null>, pattern: string): this {
    return this.#add(column, "imatch", scalar(pattern, "imatches"));
  }

  /**
   * Matches every pattern (`like(all).{...}`).
   *
   * @param column The column.
   * @param patterns The patterns.
   * @returns This builder.
   */
  likeAllOf(column: ColumnRef<string | null>, patterns: readonly string[]): this {
    return this.#add(column, "like(all)", listOperand(patterns, "likeAllOf", "{", "}"), true);
  }

  /**
   * Matches any pattern (`like(any).{...}`).
   *
   * @param column The column.
   * @param patterns The patterns.
   * @returns This builder.
   */
  likeAnyOf(column: ColumnRef<string | null>, patterns: readonly string[]): this {
    return this.#add(column, "like(any)", listOperand(patterns, "likeAnyOf", "{", "}"), true);
  }

  /**
   * Case-insensitive {@linkcode WhereBuilder.likeAllOf}.
   *
   * @param column The column.
   * @param patterns The patterns.
   * @returns This builder.
   */
  ilikeAllOf(column: ColumnRef<string | null>, patterns: readonly string[]): this {
    return this.#add(column, "ilike(all)", listOperand(patterns, "ilikeAllOf", "{", "}"), true);
  }

  /**
   * Case-insensitive {@linkcode WhereBuilder.likeAnyOf}.
   *
   * @param column The column.
   * @param patterns The patterns.
   * @returns This builder.
   */
  ilikeAnyOf(column: ColumnRef<string | null>, patterns: readonly string[]): this {
    return this.#add(column, "ilike(any)", listOperand(patterns, "ilikeAnyOf", "{", "}"), true);
  }

  /**
   * `column IN (values)`.
   *
   * @param column The column.
   * @param values The allowed values.
   * @returns This builder.
   */
  inList<T>(column: ColumnRef<T>, values: readonly NoInfer<Operand<T>>[]): this {
    return this.#add(column, "in", inOperand(values, "inList"), true);
  }

  /**
   * `column NOT IN (values)`.
   *
   * @param column The column.
   * @param values The excluded values.
   * @returns This builder.
   */
  notInList<T>(column: ColumnRef<T>, values: readonly NoInfer<Operand<T>>[]): this {
    return this.#add(column, "in", inOperand(values, "notInList"), true, true);
  }

  /**
   * Array/range/JSON column contains the operand (`cs`, `@>`).
   *
   * @param column An array, range or JSON column.
   * @param value Elements (array), a range literal or a JSON object.
   * @returns This builder.
   */
  contains<T>(
    column: ColumnRef<T>,
    value: NoInfer<NonNullable<T>> | string | Record<string, unknown>,
  ): this {
    return this.#operand(column, "cs", value, "contains");
  }

  /**
   * Column is contained by the operand (`cd`, `<@`).
   *
   * @param column An array, range or JSON column.
   * @param value Elements, a range literal or a JSON object.
   * @returns This builder.
   */
  containedBy<T>(
    column: ColumnRef<T>,
    value: NoInfer<NonNullable<T>> | string | Record<string, unknown>,
  ): this {
    return this.#operand(column, "cd", value, "containedBy");
  }

  /**
   * Column overlaps the operand (`ov`, `&&`).
   *
   * @param column An array or range column.
   * @param value Elements or a range literal.
   * @returns This builder.
   */
  overlaps<T>(column: ColumnRef<T>, value: NoInfer<NonNullable<T>> | string): this {
    return this.#operand(column, "ov", value, "overlaps");
  }

  /**
   * Range column strictly right of the operand (`sr`).
   *
   * @param column A range column.
   * @param range A range literal such as `[1,5)`.
   * @returns This builder.
   */
  rangeGt(column: ColumnRef<unknown>, range: string): this {
    return this.#add(column, "sr", scalar(range, "rangeGt"));
  }

  /**
   * Range column not extending left of the operand (`nxl`).
   *
   * @param column A range column.
   * @param range A range literal.
   * @returns This builder.
   */
  rangeGte(column: ColumnRef<unknown>, range: string): this {
    return this.#add(column, "nxl", scalar(range, "rangeGte"));
  }

  /**
   * Range column strictly left of the operand (`sl`).
   *
   * @param column A range column.
   * @param range A range literal.
   * @returns This builder.
   */
  rangeLt(column: ColumnRef<unknown>, range: string): this {
    return this.#add(column, "sl", scalar(range, "rangeLt"));
  }

  /**
   * Range column not extending right of the operand (`nxr`).
   *
   * @param column A range column.
   * @param range A range literal.
   * @returns This builder.
   */
  rangeLte(column: ColumnRef<unknown>, range: string): this {
    return this.#add(column, "nxr", scalar(range, "rangeLte"));
  }

  /**
   * Range column adjacent to the operand (`adj`).
   *
   * @param column A range column.
   * @param range A range literal.
   * @returns This builder.
   */
  rangeAdjacent(column: ColumnRef<unknown>, range: string): this {
    return this.#add(column, "adj", scalar(range, "rangeAdjacent"));
  }

  /**
   * Full-text search on a tsvector (or text) column.
   *
   * @param column The column.
   * @param query The search query.
   * @param options Configuration and parse type (default PLAIN).
   * @returns This builder.
   */
  textSearch(column: ColumnRef<unknown>, query: string, options?: TextSearchOptions): this {
    options ??= {};
    const type = options.type ?? TextSearchType.PLAIN;
    if (!Object.values(TextSearchType).includes(type)) {
      throw new TypeError(
        `Cannot search as 'type' is not a TextSearchType: current value is ${showValue(type)}`,
      );
    }
    const config = options.config;
    if (
      config !== undefined && config !== null &&
      (typeof config !== "string" || !/^[A-Za-z0-9_$]+$/.test(config))
    ) {
      throw new TypeError(
        `Cannot search as 'config' is not a configuration name: current value is ${
          showValue(config)
        }`,
      );
    }
    return this.#add(column, config ? `${type}(${config})` : type, scalar(query, "textSearch"));
  }

  /**
   * Escape hatch: emits `column=<operator>.<value>` verbatim. Inside an `or`/`and`/`not` group
   * the value goes verbatim too, unquoted: quote it as PostgREST's logic trees read values
   * (`"Smith,role"`) when it holds `,`, `(`, `)` or `"`, which would otherwise end it or add
   * filters.
   *
   * @param column The column.
   * @param operator A PostgREST operator, e.g. `eq` or `not.in`.
   * @param value The operand, sent as given.
   * @returns This builder.
   */
  raw(column: ColumnRef<unknown>, operator: string, value: string): this {
    if (
      typeof operator !== "string" ||
      !/^[a-z]+(\([a-z0-9_]+\))?(\.[a-z]+(\([a-z0-9_]+\))?)*$/i.test(operator)
    ) {
      throw new TypeError(
        `Cannot filter as 'operator' is not a PostgREST operator: current value is ${
          showValue(operator)
        }`,
      );
    }
    return this.#add(column, operator, scalar(value, "raw"), true);
  }

  #group(
    operator: "or" | "and",
    referencedTable: string | null,
    block: (w: WhereBuilder) => BlockResult,
  ) {
    const items = groupItems(operator, block);
    this.predicates.push({
      kind: "group",
      operator,
      negated: false,
      // The key is `<table>.or`: the table path may itself end in a reserved word (an embed named `order`).
      referencedTable: referencedTable === null ? null : checkEmbedPath(referencedTable),
      items,
    });
    return this;
  }

  /**
   * A disjunction: at least one predicate of the block holds.
   *
   * @param block Adds the alternatives.
   * @param options `referencedTable` filters an embedded resource, named by its alias when the
   *   select gives one (see `OrderByOptions.referencedTable`).
   * @returns This builder.
   */
  or(
    block: (w: WhereBuilder) => BlockResult,
    options?: { referencedTable?: string | null | undefined },
  ): this {
    options ??= {};
    return this.#group("or", options.referencedTable ?? null, block);
  }

  /**
   * A conjunction group (useful inside `or`).
   *
   * @param block Adds the predicates.
   * @param options `referencedTable` filters an embedded resource, named by its alias when the
   *   select gives one (see `OrderByOptions.referencedTable`).
   * @returns This builder.
   */
  and(
    block: (w: WhereBuilder) => BlockResult,
    options?: { referencedTable?: string | null | undefined },
  ): this {
    options ??= {};
    return this.#group("and", options.referencedTable ?? null, block);
  }

  /**
   * Negates the conjunction of the block's predicates.
   *
   * @param block Adds the predicates to negate.
   * @returns This builder.
   */
  not(block: (w: WhereBuilder) => BlockResult): this {
    const items = groupItems("not", block);
    this.predicates.push(
      items.length === 1 ? negate(items[0]) : {
        kind: "group",
        operator: "and",
        negated: true,
        referencedTable: null,
        items,
      },
    );
    return this;
  }
}

/**
 * Renders a predicate inside a logic group: `col.op.value` or `or(...)`.
 * Throws `TypeError` for a column with a table path or a group with a
 * `referencedTable`, which PostgREST cannot read there.
 *
 * @example Rendering
 * ```ts
 * import { renderInGroup, WhereBuilder } from "@fetchbase/fetchbase/database";
 *
 * const w = new WhereBuilder().eq("done", false).or((o) => o.eq("id", 1).greater("rank", 5));
 * console.log(w.predicates.map(renderInGroup)); // [ "done.eq.false", "or(id.eq.1,rank.gt.5)" ]
 * ```
 *
 * @param p The predicate.
 * @returns Its text inside a group.
 */
export function renderInGroup(p: Predicate): string {
  if (p.kind === "group") {
    if (p.referencedTable !== null) {
      throw new TypeError("Cannot nest a group with 'referencedTable' inside another group");
    }
    return `${p.negated ? "not." : ""}${p.operator}(${renderItems(p.items)})`;
  }
  if (hasTablePath(p.column)) {
    throw new TypeError(
      `Cannot filter on ${
        showValue(p.column)
      } inside a group as PostgREST reads no table path there; pass 'referencedTable' to or() or and()`,
    );
  }
  return `${p.column}.${p.negated ? "not." : ""}${p.operator}.${groupValue(p)}`;
}

/** A group's predicates rendered inside it, joined by `,` (a loop: no callback, no array). */
function renderItems(items: Predicate[]): string {
  let out = "";
  for (let i = 0; i < items.length; i++) out += (i === 0 ? "" : ",") + renderInGroup(items[i]);
  return out;
}

/**
 * A value inside a group. PostgREST reads an unquoted `{...}` array there up
 * to its first brace, so an array whose elements hold braces goes quoted as a
 * whole (PostgREST tries a quoted value first).
 */
function groupValue(p: Predicate & { kind: "filter" }): string {
  if (!p.list) return quoteItem(p.value);
  if (p.value.startsWith("{") && /[{}]/.test(p.value.slice(1, -1))) return quoteItem(p.value);
  return p.value;
}

/**
 * Renders a top-level predicate as a query pair.
 *
 * @example Rendering
 * ```ts
 * import { renderTopLevel, WhereBuilder } from "@fetchbase/fetchbase/database";
 *
 * const w = new WhereBuilder().eq("done", false).or((o) => o.eq("id", 1).greater("rank", 5));
 * console.log(w.predicates.map(renderTopLevel));
 * // [ [ "done", "eq.false" ], [ "or", "(id.eq.1,rank.gt.5)" ] ]
 * ```
 *
 * @param p The predicate.
 * @returns The query parameter's name and value.
 */
export function renderTopLevel(p: Predicate): [string, string] {
  if (p.kind === "group") {
    const key = `${p.referencedTable ? p.referencedTable + "." : ""}${
      p.negated ? "not." : ""
    }${p.operator}`;
    return [key, `(${renderItems(p.items)})`];
  }
  return [p.column, `${p.negated ? "not." : ""}${p.operator}.${p.value}`];
}

/** Type of the filter operand accepted by scalar operators. */
export type { FilterValue };
/** Re-exported for typed columns. */
export type { Column };
