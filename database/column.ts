/**
 * Typed column references: `Column<T>` carries the column's value type so
 * that comparisons with a value of another type do not compile.
 *
 * @module
 */

/**
 * A column name with its value type `T` (a phantom type: only the name is
 * sent on the wire).
 *
 * @example A typed column
 * ```ts
 * import { column, type Column } from "@fetchbase/fetchbase/database";
 *
 * const done: Column<boolean> = column<boolean>("done");
 * console.log(done.name); // done
 * ```
 */
export interface Column<T> {
  /** The wire column name (dotted names filter embedded resources). */
  readonly name: string;
  /** Phantom field carrying `T` for type checking; never present at run time. */
  readonly __valueType?: T | undefined;
}

/**
 * Creates a {@linkcode Column}.
 *
 * @example Creating a column
 * ```ts
 * import { column } from "@fetchbase/fetchbase/database";
 *
 * const title = column<string>("title");
 * ```
 *
 * @param name The wire column name.
 * @returns The column.
 */
export function column<T = unknown>(name: string): Column<T> {
  if (typeof name !== "string" || name.trim() === "") {
    throw new TypeError("Cannot create a column as 'name' must be a non-blank string");
  }
  return Object.freeze({ name }) as Column<T>;
}

/**
 * Typed columns of a row type: one {@linkcode Column} per field. An optional
 * field (`due?: string`) is a column of its value: a row read back has no
 * `undefined`, and a filter refuses it as an operand.
 */
export type Columns<Row> = {
  readonly [K in keyof Row & string]-?: Column<Exclude<Row[K], undefined>>;
};

/**
 * Derives typed columns from a row type (beyond the interface document), so
 * that `w.eq(todo.done, "yes")` is a compile error when `done` is boolean.
 *
 * @example Columns of a row type
 * ```ts
 * import { columns } from "@fetchbase/fetchbase/database";
 *
 * interface Todo { id: number; title: string; done: boolean }
 * const todo = columns<Todo>();
 * console.log(todo.done.name); // done
 * ```
 *
 * @returns An object whose every property is the column of that name.
 */
export function columns<Row>(): Columns<Row> {
  const cache = new Map<string, Column<unknown>>();
  return new Proxy({}, {
    get(_target, key) {
      if (typeof key !== "string") return undefined;
      let c = cache.get(key);
      if (!c) cache.set(key, c = column(key));
      return c;
    },
  }) as Columns<Row>;
}

/** A column given as a {@linkcode Column} or a plain name. */
export type ColumnRef<T> = Column<T> | string;

/**
 * Returns the name of a column reference.
 *
 * @example Names
 * ```ts
 * import { column, columnName } from "@fetchbase/fetchbase/database";
 *
 * console.log(columnName(column("a")), columnName("b")); // a b
 * ```
 *
 * @param ref A column or a name.
 * @returns The name.
 */
export function columnName(ref: ColumnRef<unknown>): string {
  // Anything else (undefined from a JavaScript caller) fails the column name check.
  return typeof ref === "string" ? ref : ref?.name;
}
