/**
 * Pure wire encoding for PostgREST filters: value quoting by PostgREST's
 * rules and column-name checks.
 */

/** Query keys PostgREST reserves; a column of that name cannot be filtered. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set([
  "select",
  "order",
  "limit",
  "offset",
  "or",
  "and",
  "not",
  "columns",
  "on_conflict",
]);

/** A filter operand. */
export type FilterValue = string | number | boolean | null | Date | bigint;

// Names that passed the check (bounded); most queries reuse a few columns.
const CHECKED = new Set<string>();

/**
 * Refuses column names that would change the query's shape. `asKey` false is
 * for names that are not query keys (order terms), where `limit` or `order`
 * are ordinary column names.
 */
export function checkColumn(name: string, asKey = true): string {
  if (CHECKED.has(name)) return name;
  if (typeof name !== "string" || name.trim() === "") {
    throw new TypeError("Cannot filter as the column name must be a non-blank string");
  }
  if (asKey && RESERVED_KEYS.has(name)) {
    throw new TypeError(
      `Cannot filter on column '${name}' as it collides with a reserved PostgREST query key`,
    );
  }
  if (/[,()&=#\s"\\]/.test(name)) {
    throw new TypeError(
      `Cannot filter on column '${name}' as it contains a reserved character (, ( ) & = # " \\ or whitespace)`,
    );
  }
  if (!asKey) return name; // the cache holds only names valid as keys
  if (CHECKED.size >= 512) CHECKED.clear();
  CHECKED.add(name);
  return name;
}

/** Renders a scalar operand; `undefined` is a TypeError. */
export function scalar(value: unknown, what: string): string {
  if (typeof value === "string") return value;
  if (value === undefined) {
    throw new TypeError(`Cannot filter with ${what} as the value is undefined`);
  }
  if (value === null) return "null";
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) {
      throw new TypeError(`Cannot filter with ${what} as the date is invalid`);
    }
    return value.toISOString();
  }
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw new TypeError(`Cannot filter with ${what} as the number is not finite: ${value}`);
  }
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

const NEEDS_QUOTES = /[,.:()"\\\s{}]/;

/**
 * Quotes a value for a PostgREST list (`in.(...)`, `or=(...)`, array
 * literals): values holding a reserved character or whitespace, empty values
 * and the literal `null` are double-quoted with `"` and `\` escaped.
 */
export function quoteItem(value: string): string {
  if (
    value === "" || (value.length === 4 && value.toLowerCase() === "null") ||
    NEEDS_QUOTES.test(value)
  ) {
    return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  }
  return value;
}

/** A list operand `(a,b,"c d")`. */
export function listOperand(
  values: readonly unknown[],
  what: string,
  open = "(",
  close = ")",
): string {
  if (!Array.isArray(values)) {
    throw new TypeError(`Cannot filter with ${what} as the value must be an array`);
  }
  return open + values.map((v) => v === null ? "null" : quoteItem(scalar(v, what))).join(",") +
    close;
}
