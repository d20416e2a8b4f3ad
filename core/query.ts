/**
 * Query-string encoding for the transport: one pass, no `URL` mutation.
 *
 * @module
 */

import { encodeComponent } from "./_uri.ts";

/** A query value; `null` and `undefined` entries are left out. */
export type QueryValue = string | number | boolean | null | undefined;

/**
 * A query: a ready string (sent verbatim, without the `?`), ordered pairs, or
 * a record.
 */
export type QueryInit =
  | string
  | ReadonlyArray<readonly [string, QueryValue]>
  | Readonly<Record<string, QueryValue>>;

/**
 * Percent-encodes a query component (RFC 3986 unreserved characters kept).
 *
 * @example Encoding a component
 * ```ts
 * import { encodeQueryComponent } from "@fetchbase/fetchbase/core";
 *
 * console.log(encodeQueryComponent("a b&c")); // a%20b%26c
 * ```
 *
 * @param value The raw text.
 * @returns The encoded text.
 */
export function encodeQueryComponent(value: string): string {
  return encodeComponent(value).replace(
    /[!'()*]/g,
    (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase(),
  );
}

/**
 * Encodes a {@linkcode QueryInit} into a query string without the leading `?`.
 * Null and undefined values are left out; an object or a function (an option
 * of the wrong type, which would go out as `[object Object]`) is a
 * `TypeError` naming its key, which the transport resolves as
 * `Failure(INVALID_ARGUMENT)` before sending.
 *
 * @example Encoding pairs
 * ```ts
 * import { encodeQuery } from "@fetchbase/fetchbase/core";
 *
 * console.log(encodeQuery([["grant_type", "password"], ["x", null]])); // grant_type=password
 * ```
 *
 * @param query The query.
 * @returns The encoded string, possibly empty.
 */
export function encodeQuery(query: QueryInit | undefined): string {
  if (query === undefined) return "";
  if (typeof query === "string") return query.startsWith("?") ? query.slice(1) : query;
  const entries: ReadonlyArray<readonly [string, QueryValue]> = Array.isArray(query)
    ? query
    : Object.entries(query as Record<string, QueryValue>);
  let out = "";
  for (const [key, value] of entries) {
    if (value === null || value === undefined) continue;
    // String() would send "[object Object]" for an option of the wrong type (an object or a
    // function: what Object() returns unchanged).
    if (Object(value) === value) {
      throw new TypeError(`Cannot send the request as '${key}' must be a string`);
    }
    if (out !== "") out += "&";
    out += encodeQueryComponent(key) + "=" + encodeQueryComponent(String(value));
  }
  return out;
}
