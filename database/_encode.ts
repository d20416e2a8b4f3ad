/**
 * Pure wire encoding for PostgREST filters: value quoting by PostgREST's
 * rules and column-name checks.
 */

import { showValue } from "../core/_show.ts";
import { stringifyJson } from "../core/_json_int64.ts";

/**
 * Query keys PostgREST reserves: a filter's key goes quoted when it is one of
 * these (`"select"`) or ends in `order`, `limit`, `offset`, `and` or `or` as
 * its last `.` segment (PostgREST reads `author.limit=eq.5` as the embed's
 * limit, and `author."limit"=eq.5` as a filter).
 */
export const RESERVED_KEYS: ReadonlySet<string> = new Set([
  "select",
  "order",
  "limit",
  "offset",
  "or",
  "and",
  "columns",
  "on_conflict",
]);

// PostgREST's unquoted field name (`pFieldName`: `sepByDash pIdentifier`, letters, digits, `_`,
// `$` and spaces, each name between dashes trimmed: inner spaces are read as they are, and as
// postgrest-js sends them, from v8 on; a space beside a dash would be dropped), and a JSON key as
// such a name or an index: PostgREST 12.2 reads more unquoted (`pJsonKeyName`: `sepByDash (many1
// (noneOf "(-:.,>)"))`), but before it a key was a `pFieldName`, read up to its first other
// character (`data->>a@b` filtered the key `a`). Letters are ASCII letters only: PostgREST's are
// GHC's `isAlpha`, whose Unicode tables are older than JavaScript's (a letter added since, such
// as Unicode 16's Garay, ended its `pTreePath` unchecked: the filter went to a shorter column).
// Any other name or key goes double-quoted (`pQuotedValue`, `"` and `\\` escaped), which every
// version reads whole.
const PLAIN = /^[A-Za-z0-9_$]+(?:(?: +|-)[A-Za-z0-9_$]+)*$/;

/**
 * A JSON key that goes as it is besides a {@linkcode PLAIN} one: an array index, or a key in
 * PostgREST's quotes (`pQuotedValue`: `"` and `\` escaped with `\`).
 */
const INDEX_OR_QUOTED_KEY = /^(?:-?[0-9]+|"(?:[^"\\]|\\.)*")$/s;
/**
 * One step of a JSON path, captured as its arrow and its key: a key in PostgREST's quotes that
 * ends the name or meets the next arrow, else everything up to the next arrow.
 */
const JSON_STEP = /(->>?)("(?:[^"\\]|\\.)*"(?=->|$)|(?:(?!->)[^])*)/s;

/** Last-segment names PostgREST takes for an embed's modifiers. */
const RESERVED_LAST = /^(?:order|limit|offset|and|or)$/;

/** A filter operand. */
export type FilterValue = string | number | boolean | null | Date | bigint;

// Names checked and their wire form, as query keys or not (bounded); most queries reuse a few
// columns, and a hit is the whole check.
const CHECKED_KEYS = new Map<string, string>();
const CHECKED_OTHER = new Map<string, string>();

export const quoteName = (s: string): string => `"${s.replace(/["\\]/g, "\\$&")}"`;

/**
 * The wire form of a column name `a.b->k->>0`: the table path (names joined by `.`), then a JSON
 * path. A name or key PostgREST would not read whole unquoted (`a"b`, `x-`, `a - b`, `price€`, a
 * JSON key `a.b`; inner spaces, `first name`, it reads) goes double-quoted, and so does a key's
 * last name when it is a reserved query key (`"order"`, `author."limit"`), which PostgREST then
 * reads as a filter. A JSON key given in PostgREST's quotes goes as given (`->>"2024"` names the
 * key "2024", where `->>2024` is an array index). `asKey` false is for names that are not query keys (order terms, embeds),
 * where `limit` goes as it is. An empty name or key, or one that begins or ends with whitespace,
 * is refused.
 */
export function checkColumn(name: string, asKey = true): string {
  const checked = asKey ? CHECKED_KEYS : CHECKED_OTHER;
  const hit = checked.get(name);
  if (hit !== undefined) return hit;
  if (typeof name !== "string" || name.trim() === "") {
    throw new TypeError("Cannot filter as the column name must be a non-blank string");
  }
  // The table path is what precedes a JSON path (`->`, `->>`); a key in PostgREST's quotes is
  // one key, arrows inside it included.
  const [path, ...json] = name.split(JSON_STEP).filter((_, i) => i % 3 !== 0 || i === 0);
  const names = path.split(".");
  let out = "";
  for (let i = 0; i < names.length; i++) {
    const n = names[i];
    out += (i ? "." : "") + (
      !PLAIN.test(n) || asKey && i === names.length - 1 &&
          (RESERVED_LAST.test(n) || names.length === 1 && RESERVED_KEYS.has(n))
        ? quoteName(n)
        : n
    );
  }
  for (let i = 1; i < json.length; i += 2) {
    // A key already quoted as PostgREST reads one goes as it is: digits alone are an array
    // index (`->>2024` is element 2024), so `->>"2024"` is the only way to name such a key.
    const key = json[i];
    out += json[i - 1] + (PLAIN.test(key) || INDEX_OR_QUOTED_KEY.test(key) ? key : quoteName(key));
  }
  if (names.concat(json).some((n) => n === "" || n.trim() !== n)) {
    throw new TypeError(
      `Cannot filter on column ${
        showValue(name)
      } as each name and JSON key in it must be non-empty, with no whitespace at its ends`,
    );
  }
  if (checked.size >= 512) checked.clear();
  checked.set(name, out);
  return out;
}

/** Whether a column's wire form has a table path (`author.name`, `"a b".c`). */
export const hasTablePath = (wire: string): boolean =>
  wire.includes(".") && /^(?:"(?:[^"\\]|\\.)*"|[^".>]*)\./.test(wire);

/**
 * Renders a scalar operand. `undefined` and `null` are a TypeError: PostgREST
 * would compare with the text `null` (null-aware operators handle null first).
 */
export function scalar(value: unknown, what: string): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) {
    throw new TypeError(
      `Cannot filter with ${what} as the value is ${value}${
        value === null ? ": use isNull, or eq with null" : ""
      }`,
    );
  }
  // Another realm's Date (an iframe's) is no `instanceof Date`: it went out as its JSON text, in
  // quotes, which PostgREST cannot read as a time.
  if (
    value instanceof Date ||
    typeof value === "object" && tagOf(value) === "[object Date]"
  ) {
    const date = value as Date;
    if (Number.isNaN(date.getTime())) {
      throw new TypeError(`Cannot filter with ${what} as the date is invalid`);
    }
    return date.toISOString();
  }
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw new TypeError(`Cannot filter with ${what} as the number is not finite: ${value}`);
  }
  if (isRoundedId(value)) throw roundedId(`filter with ${what}`, value);
  if (typeof value === "object") {
    // A value JSON writes as a string (a Temporal value, a Luxon, dayjs or moment date, a decimal
    // library's number) is that string, as a Date is its ISO time: as JSON text it went in
    // quotes, which PostgREST takes as part of the value (a time could not be read).
    const text = jsonString(value);
    return text ?? jsonOperand(value, what);
  }
  // A function or a symbol has no text PostgREST could compare with.
  if (typeof value === "function" || typeof value === "symbol") {
    throw new TypeError(`Cannot filter with ${what} as the value is a ${typeof value}`);
  }
  return String(value);
}

/**
 * Whether `value` is an integer beyond 2^53 written without an exponent (below 10^21): an id
 * already rounded (12345678901234567890 is 12345678901234567000 here), which as a filter
 * operand or a query argument reached another row. A float such as `1e300` is no id and goes
 * as JavaScript writes it.
 */
export function isRoundedId(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value) &&
    Math.abs(value) < 1e21;
}

/** The `TypeError` for a rounded id ({@linkcode isRoundedId}). */
export function roundedId(action: string, value: number): TypeError {
  return new TypeError(
    `Cannot ${action} as ${value} is beyond JavaScript's safe integers; pass it as a bigint or a string`,
  );
}

/** What `value.toJSON()` gives when it is a string; null when it is not, has none or throws. */
function jsonString(value: object): string | null {
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON !== "function") return null;
  try {
    const text: unknown = toJSON.call(value);
    return typeof text === "string" ? text : null;
  } catch {
    return null; // JSON.stringify calls it again and says why it failed
  }
}

// Empty, the literal `null` in any case, or a reserved character or whitespace.
const NEEDS_QUOTES = /^(?:null)?$|[,.:()"\\\s{}]/i;

/**
 * Quotes a value for a PostgREST list (`in.(...)`, `or=(...)`, array
 * literals): values holding a reserved character or whitespace, empty values
 * and the literal `null` are double-quoted with `"` and `\` escaped.
 */
export function quoteItem(value: string): string {
  if (NEEDS_QUOTES.test(value)) {
    return quoteName(value);
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
  // By index: a hole reads as undefined (refused below), where map would skip it.
  let out = open;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ",";
    out += v === null
      ? "null"
      // A nested array is a dimension of a Postgres array literal: `{{1,2},{3,4}}`.
      : Array.isArray(v)
      ? (open === "{" ? listOperand(v, what, "{", "}") : quoteItem(listOperand(v, what, "{", "}")))
      : quoteItem(scalar(v, what));
  }
  return out + close;
}

/**
 * Refuses a table path that is no embed path (`author`, `author.books`): PostgREST reads
 * `items->x.limit` as the top level's limit, and drops a `not` segment from a group's key and
 * negates the group (`not.or=(...)`). Embeds named `and`, `or` or `order` are ordinary segments.
 */
export function checkEmbedPath(path: string): string {
  if (/->|(?:^|\.)not(?:\.|$)/.test(path)) {
    throw new TypeError(
      `Cannot use the embed as 'referencedTable' must be names joined by '.' (no JSON path, no 'not' segment): current value is ${
        showValue(path)
      }`,
    );
  }
  return checkColumn(path, false);
}

/**
 * An object operand as JSON text. A Map goes as its entries, at any depth (JSON sees none: `{}`
 * would make `contains` match every object); a Set, whose JSON is `{}` too, is refused.
 */
export function jsonOperand(value: object, what: string): string {
  return stringifyJson(plainDeep(value, `filter with ${what}`, [], true))!;
}

/**
 * A value to write (a row, rows, a function's arguments) as JSON text, its Maps as their entries
 * at any depth and a Set refused, as {@linkcode jsonOperand} does: as `{}`, a Map or a Set (tags
 * for an array column) would be stored empty. A value holding neither goes as it is, with no
 * copy.
 */
export function plainJson(value: unknown, action: string): string {
  return stringifyJson(holdsMapOrSet(value, [], action) ? plainDeep(value, action, []) : value)!;
}

/**
 * Whether JSON would change `v` without a word: a function or a symbol (left out of an object, null
 * in an array) or a number that is not finite (null): a row written with it would store a default
 * or NULL where the caller gave a value.
 */
const isLossy = (v: unknown): boolean =>
  typeof v === "function" || typeof v === "symbol" || (typeof v === "number" && v - v !== 0);

/**
 * The `TypeError` for a {@linkcode isLossy} value, named by its path from the value written
 * (`meta.x`, `tags[1]`, `[2].score`): `above` holds the objects and arrays above it, outermost
 * first, and `key` is its key in the last of them. Built only for the error.
 */
function lossy(action: string, above: readonly object[], key: string | number, v: unknown) {
  let at = "";
  // A Map's key may be of any type (a symbol, a bigint, an object): named as String names it.
  const step = (k: unknown) =>
    at += typeof k === "number"
      ? `[${k}]`
      : typeof k === "string" && /^[A-Za-z_$][\w$]*$/.test(k)
      ? `${at === "" ? "" : "."}${k}`
      : `[${k === undefined ? "?" : typeof k === "string" ? JSON.stringify(k) : String(k)}]`;
  for (let i = 1; i < above.length; i++) {
    const parent = above[i - 1]!;
    const child = above[i];
    step(
      Array.isArray(parent)
        ? parent.indexOf(child)
        : tagOf(parent) === "[object Map]"
        ? [...(parent as Map<string, unknown>)].find(([, x]) => x === child)?.[0]
        : Object.keys(parent).find((k) => (parent as Record<string, unknown>)[k] === child),
    );
  }
  step(key);
  const what = typeof v === "number" ? String(v) : `a ${typeof v}`;
  return new TypeError(
    `Cannot ${action} as '${at}' is ${what}, which JSON cannot carry (it would be ${
      typeof v === "number" ? "written as null" : "left out"
    })`,
  );
}

const tagOf = (v: object): string => Object.prototype.toString.call(v);

/**
 * Whether one of the plain objects (from any realm, or with no prototype) and arrays that `value`
 * is made of, to 64 levels, is or holds a Map or a Set. `path` holds the objects above: one met
 * again inside itself is not walked twice (JSON refuses the cycle).
 */
function holdsMapOrSet(value: unknown, path: object[], action: string): boolean {
  if (value === null || typeof value !== "object" || path.length > 64 || path.includes(value)) {
    return false;
  }
  if (!Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype) {
    const tag = tagOf(value);
    if (tag === "[object Map]" || tag === "[object Set]") return true;
    if (tag !== "[object Object]") return false;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  path.push(value);
  // Only objects are walked into: a call per primitive, and a copy of an array's values, cost
  // three times JSON.stringify's time on large bulk writes.
  // A value JSON would change without a word (isLossy) is refused: the checks are inline, as a
  // call per value costs.
  const array = Array.isArray(value);
  const values: unknown[] = array ? value : Object.values(value);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v === "object") {
      if (v !== null && holdsMapOrSet(v, path, action)) return true;
    } else if (isLossy(v)) throw lossy(action, path, array ? i : Object.keys(value)[i]!, v);
  }
  path.pop();
  return false;
}

/**
 * `value` with its Maps as objects and no Set, at any depth: plain objects and arrays are walked
 * (to 64 levels, and never into an object that holds itself: JSON refuses the cycle; a walk
 * repeated at each of its levels took exponential time), anything else (a Date, an object with
 * its own `toJSON`) goes as it is.
 */
function plainDeep(value: unknown, action: string, path: object[], ids = false): unknown {
  // In a filter a rounded id matches another row; a written value is JSON's, as postgrest-js
  // writes it.
  if (ids && isRoundedId(value)) throw roundedId(action, value);
  if (value === null || typeof value !== "object" || path.length > 64 || path.includes(value)) {
    return value;
  }
  const tag = tagOf(value);
  if (tag === "[object Set]") {
    throw new TypeError(`Cannot ${action} as the value holds a Set: pass an array`);
  }
  path.push(value);
  try {
    // A value JSON would change (isLossy) is refused here too: beside a Map, which plainJson met
    // first, or in a filter's operand.
    const deep = (v: unknown, key: string | number) => {
      if (isLossy(v)) throw lossy(action, path, key, v);
      return plainDeep(v, action, path, ids);
    };
    if (Array.isArray(value)) return value.map(deep);
    const entries = tag === "[object Map]"
      ? [...(value as ReadonlyMap<string, unknown>)]
      : tag === "[object Object]" &&
          typeof (value as { toJSON?: unknown }).toJSON !== "function"
      ? Object.entries(value)
      : null;
    if (entries === null) return value;
    // Own keys, each defined: assigned, a key `__proto__` (JSON from a request body may hold one)
    // set the copy's prototype where `Object.prototype.__proto__` exists (Node, Bun, browsers,
    // Workers), and `contains` then matched every object.
    return Object.fromEntries(entries.map(([k, v]) => [k, deep(v, k)]));
  } finally {
    path.pop();
  }
}

/** Whether `v` is a Map, from this realm or another (an iframe's, a `node:vm` context's). */
function isMap(v: unknown): v is ReadonlyMap<unknown, unknown> {
  return Object.prototype.toString.call(v) === "[object Map]";
}

/** A Map's entries as an object (JSON and Object.entries see none); anything else as it is. */
export function plainOf<T>(v: T | ReadonlyMap<string, unknown>): T | Record<string, unknown> {
  return isMap(v) ? Object.fromEntries(v as ReadonlyMap<string, unknown>) : v as T;
}
