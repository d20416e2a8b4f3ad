/**
 * Tolerant decoding helpers for the services' JSON: unknown keys ignored,
 * absent or mistyped optional fields null, required fields checked. A
 * decoder throws {@linkcode DecodeError}; {@linkcode decodeResult} turns that
 * into `Failure(DECODE)`.
 *
 * @module
 */

import { describeThrown } from "./_thrown.ts";
import { failure, type ServiceResult, success } from "./result.ts";

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };
/**
 * A JSON object given as input: a record, or a value of an interface type (which TypeScript does
 * not let stand for an index signature, so `{ data: profile }` with `profile: Profile` would need
 * a cast). Lists, `Map`s and `Set`s (anything iterable) and functions (told by their `bind`) do
 * not type-check; an interface may have any other field, `size` and `length` included. It is sent
 * as JSON; a list, a scalar or a built-in object (a `Map`, a `Date`) is refused at run time.
 */
export type JsonObjectInput =
  | Readonly<Record<string, unknown>>
  | (object & { readonly [Symbol.iterator]?: never; readonly bind?: never });
/** Any JSON value. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

/**
 * Thrown by decoders for a body of the wrong shape.
 *
 * @example Throwing from a decoder
 * ```ts
 * import { DecodeError } from "@fetchbase/fetchbase/core";
 *
 * const e = new DecodeError("Expected an object: got null");
 * console.log(e.name); // DecodeError
 * ```
 */
export class DecodeError extends Error {
  /**
   * Builds the error.
   *
   * @param message What did not fit.
   */
  constructor(message: string) {
    super(message);
    this.name = "DecodeError";
  }
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v;
}

/**
 * Returns `value` as an object, or throws {@linkcode DecodeError}.
 *
 * @example Checking an object
 * ```ts
 * import { asObject } from "@fetchbase/fetchbase/core";
 *
 * console.log(asObject({ a: 1 }, "user").a); // 1
 * ```
 *
 * @param value The value.
 * @param what The name used in the error message.
 * @returns The object.
 */
export function asObject(value: unknown, what = "value"): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new DecodeError(`Expected ${what} to be an object: got ${describe(value)}`);
  }
  return value as Record<string, unknown>;
}

/**
 * Returns `value` as an array, or throws {@linkcode DecodeError}.
 *
 * @example Checking an array
 * ```ts
 * import { asArray } from "@fetchbase/fetchbase/core";
 *
 * console.log(asArray([1, 2], "rows").length); // 2
 * ```
 *
 * @param value The value.
 * @param what The name used in the error message.
 * @returns The array.
 */
export function asArray(value: unknown, what = "value"): unknown[] {
  if (!Array.isArray(value)) {
    throw new DecodeError(`Expected ${what} to be an array: got ${describe(value)}`);
  }
  return value;
}

/**
 * A required string field (numbers are accepted and stringified).
 *
 * @example Reading a required field
 * ```ts
 * import { reqString } from "@fetchbase/fetchbase/core";
 *
 * console.log(reqString({ id: "u1" }, "id")); // u1
 * ```
 *
 * @param obj The object.
 * @param key The field name on the wire.
 * @returns The string.
 */
export function reqString(obj: Record<string, unknown>, key: string): string {
  const v = obj[key];
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  throw new DecodeError(`Expected field '${key}' to be a string: got ${describe(v)}`);
}

/**
 * An optional string field: null when absent or not a string.
 *
 * @example Reading an optional field
 * ```ts
 * import { optString } from "@fetchbase/fetchbase/core";
 *
 * console.log(optString({}, "email")); // null
 * ```
 *
 * @param obj The object.
 * @param key The field name on the wire.
 * @returns The string or null.
 */
export function optString(obj: Record<string, unknown>, key: string): string | null {
  const v = obj[key];
  return typeof v === "string" ? v : null;
}

/**
 * A required finite number field (numeric strings are accepted).
 *
 * @example Reading a number
 * ```ts
 * import { reqNumber } from "@fetchbase/fetchbase/core";
 *
 * console.log(reqNumber({ expires_in: "3600" }, "expires_in")); // 3600
 * ```
 *
 * @param obj The object.
 * @param key The field name on the wire.
 * @returns The number.
 */
export function reqNumber(obj: Record<string, unknown>, key: string): number {
  const v = optNumber(obj, key);
  if (v === null) {
    throw new DecodeError(`Expected field '${key}' to be a number: got ${describe(obj[key])}`);
  }
  return v;
}

/**
 * An optional finite number field (numeric strings accepted); null otherwise.
 *
 * @example Reading an optional number
 * ```ts
 * import { optNumber } from "@fetchbase/fetchbase/core";
 *
 * console.log(optNumber({ size: 12 }, "size")); // 12
 * ```
 *
 * @param obj The object.
 * @param key The field name on the wire.
 * @returns The number or null.
 */
export function optNumber(obj: Record<string, unknown>, key: string): number | null {
  const v = obj[key];
  const n = typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : v;
  return Number.isFinite(n) ? n as number : null;
}

/**
 * An optional boolean field: null when absent or not a boolean.
 *
 * @example Reading a flag
 * ```ts
 * import { optBoolean } from "@fetchbase/fetchbase/core";
 *
 * console.log(optBoolean({ public: true }, "public")); // true
 * ```
 *
 * @param obj The object.
 * @param key The field name on the wire.
 * @returns The boolean or null.
 */
export function optBoolean(obj: Record<string, unknown>, key: string): boolean | null {
  const v = obj[key];
  return typeof v === "boolean" ? v : null;
}

/**
 * An optional JSON object field: null when absent or not an object.
 *
 * @example Reading metadata
 * ```ts
 * import { optObject } from "@fetchbase/fetchbase/core";
 *
 * console.log(optObject({ metadata: { a: 1 } }, "metadata")); // { a: 1 }
 * ```
 *
 * @param obj The object.
 * @param key The field name on the wire.
 * @returns The object or null.
 */
export function optObject(obj: Record<string, unknown>, key: string): JsonObject | null {
  const v = obj[key];
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v as JsonObject : null;
}

/**
 * An optional array field decoded element by element; null when absent.
 *
 * @example Reading a list
 * ```ts
 * import { optArray } from "@fetchbase/fetchbase/core";
 *
 * console.log(optArray({ tags: ["a", 1] }, "tags", (v) => String(v))); // [ "a", "1" ]
 * ```
 *
 * @param obj The object.
 * @param key The field name on the wire.
 * @param item Decodes one element.
 * @returns The decoded list or null.
 */
export function optArray<T>(
  obj: Record<string, unknown>,
  key: string,
  item: (value: unknown) => T,
): T[] | null {
  const v = obj[key];
  return Array.isArray(v) ? v.map(item) : null;
}

/**
 * Maps a wire value onto an `as const` enum, returning `fallback` for
 * anything unrecognised.
 *
 * @example Unknown values
 * ```ts
 * import { enumValue } from "@fetchbase/fetchbase/core";
 *
 * const Kind = { A: "a", UNKNOWN: "unknown" } as const;
 * console.log(enumValue(Kind, "zzz", Kind.UNKNOWN)); // unknown
 * ```
 *
 * @param values The enum object.
 * @param wire The value from the wire.
 * @param fallback The value for anything else.
 * @returns The enum value.
 */
export function enumValue<E extends Record<string, string>, F extends E[keyof E]>(
  values: E,
  wire: unknown,
  fallback: F,
): E[keyof E] {
  if (typeof wire === "string") {
    for (const v of Object.values(values)) if (v === wire) return v as E[keyof E];
    const lower = wire.toLowerCase();
    for (const v of Object.values(values)) if (v.toLowerCase() === lower) return v as E[keyof E];
  }
  return fallback;
}

/**
 * Runs a decoder over a successful value; a thrown error becomes
 * `Failure(DECODE)`, a failure passes through.
 *
 * @example Decoding a result
 * ```ts
 * import { asObject, decodeResult, reqString, success } from "@fetchbase/fetchbase/core";
 *
 * const r = decodeResult(success<unknown>({ id: 1 }), (v) => reqString(asObject(v), "id"));
 * console.log(r.ok && r.value); // 1
 * ```
 *
 * @param result The result to decode.
 * @param decode The decoder.
 * @returns The decoded result.
 */
export function decodeResult<T, U>(
  result: ServiceResult<T>,
  decode: (value: T) => U,
): ServiceResult<U> {
  if (!result.ok) return result;
  try {
    return success(decode(result.value));
  } catch (error) {
    const detail = describeThrown(error);
    return failure({
      message: `Cannot decode the response: ${detail}`,
      category: "DECODE",
      cause: error,
    });
  }
}
