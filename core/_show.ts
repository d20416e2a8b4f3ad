/**
 * Internal: a value as an error message shows it.
 *
 * @module
 */

import { redactJwts } from "./_jwt_shape.ts";

/**
 * A caller's value as an error message's "current value is …" shows it. It
 * never throws, whatever the value (a symbol, an object without a prototype
 * or with a throwing `toString`, a BigInt, a cycle), never runs the caller's
 * code, quotes strings (so `"1"` and `1` differ), cuts them at 64 characters
 * and never echoes one shaped like a token.
 *
 * @param value What the caller passed.
 * @returns Its rendering.
 */
export function showValue(value: unknown): string {
  switch (typeof value) {
    case "string":
      // A string holding a JWT (as the transport redacts them) is never echoed; a file name such
      // as `photo.backup.jpg` is not one.
      return redactJwts(value) !== value
        ? "a token-shaped string"
        : JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
    case "bigint":
      return `${value}n`;
    case "symbol":
      return "a symbol";
    case "function":
      return "a function";
    case "object":
      return value === null ? "null" : Array.isArray(value) ? "an array" : "an object";
    default:
      return String(value);
  }
}
