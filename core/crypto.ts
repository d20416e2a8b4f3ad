/**
 * Small cryptographic helpers over WebCrypto: secure random bytes and strings,
 * SHA-256 and constant-time comparison.
 *
 * @module
 */

import { isUint8Array } from "./_realm.ts";
import { utf8Encode } from "./encoding.ts";
import { showValue } from "./_show.ts";

/**
 * Returns `length` bytes from the platform's secure random generator.
 *
 * @example Drawing random bytes
 * ```ts
 * import { randomBytes } from "@fetchbase/fetchbase/core";
 *
 * console.log(randomBytes(16).length); // 16
 * ```
 *
 * @param length How many bytes, a non-negative integer.
 * @returns The bytes.
 */
export function randomBytes(length: number): Uint8Array<ArrayBuffer> {
  if (!Number.isInteger(length) || length < 0) {
    throw new RangeError(
      `Cannot draw random bytes as 'length' must be a non-negative integer: current value is ${
        showValue(length)
      }`,
    );
  }
  const out = new Uint8Array(length);
  // getRandomValues accepts at most 65536 bytes per call.
  for (let i = 0; i < length; i += 65536) {
    crypto.getRandomValues(out.subarray(i, Math.min(length, i + 65536)));
  }
  return out;
}

/**
 * Returns a uniformly random string of `length` characters drawn from
 * `alphabet` (rejection sampling, no modulo bias).
 *
 * @example A random code
 * ```ts
 * import { randomString } from "@fetchbase/fetchbase/core";
 *
 * console.log(randomString(8, "0123456789").length); // 8
 * ```
 *
 * @param length How many characters.
 * @param alphabet The characters to draw from (2 to 256 of them).
 * @returns The random string.
 * @throws {RangeError} When `length` is not a non-negative integer or the alphabet holds fewer
 * than 2 or more than 256 characters.
 * @throws {TypeError} When `alphabet` is not a string.
 */
export function randomString(length: number, alphabet: string): string {
  if (!Number.isSafeInteger(length) || length < 0) {
    throw new RangeError(
      `Cannot draw a random string as 'length' must be a non-negative integer: current value is ${
        showValue(length)
      }`,
    );
  }
  if (typeof alphabet !== "string") {
    throw new TypeError(
      `Cannot draw a random string as 'alphabet' must be a string: current value is ${
        showValue(alphabet)
      }`,
    );
  }
  // Characters, not UTF-16 units: an emoji alphabet draws whole emoji.
  const chars = Array.from(alphabet);
  if (chars.length < 2 || chars.length > 256) {
    throw new RangeError(
      `Cannot draw a random string as 'alphabet' must hold 2 to 256 characters: current length is ${chars.length}`,
    );
  }
  const limit = 256 - (256 % chars.length);
  let out = "";
  let count = 0;
  while (count < length) {
    const bytes = randomBytes(Math.max(16, (length - count) * 2));
    for (let i = 0; i < bytes.length && count < length; i++) {
      if (bytes[i] < limit) {
        out += chars[bytes[i] % chars.length];
        count++;
      }
    }
  }
  return out;
}

/**
 * SHA-256 through WebCrypto.
 *
 * @example Hashing text
 * ```ts
 * import { encodeHex, sha256 } from "@fetchbase/fetchbase/core";
 *
 * console.log(encodeHex(await sha256("abc")).slice(0, 8)); // ba7816bf
 * ```
 *
 * @param data Bytes, or text hashed as UTF-8.
 * @returns The 32-byte digest.
 */
export async function sha256(
  data: Uint8Array | string,
): Promise<Uint8Array<ArrayBuffer>> {
  const bytes = typeof data === "string" ? utf8Encode(data) : data;
  return new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Compares two strings or byte arrays in time that depends only on their
 * lengths, not on where they differ.
 *
 * @example Comparing secrets
 * ```ts
 * import { timingSafeEqual } from "@fetchbase/fetchbase/core";
 *
 * console.log(timingSafeEqual("state-1", "state-1")); // true
 * ```
 *
 * @param a The first value.
 * @param b The second value.
 * @returns Whether they are equal.
 */
export function timingSafeEqual(
  a: string | Uint8Array,
  b: string | Uint8Array,
): boolean {
  for (const v of [a, b]) {
    if (typeof v !== "string" && !isUint8Array(v)) {
      throw new TypeError("Cannot compare as the values must be strings or Uint8Arrays");
    }
  }
  // Two strings compare by UTF-16 code units: UTF-8 would turn every lone surrogate into U+FFFD.
  const both = typeof a === "string" && typeof b === "string";
  const unit = (v: string | Uint8Array, i: number): number =>
    typeof v === "string" ? v.charCodeAt(i) : v[i];
  const x = both || typeof a !== "string" ? a : utf8Encode(a);
  const y = both || typeof b !== "string" ? b : utf8Encode(b);
  const n = Math.max(x.length, y.length);
  // A string that is not well-formed equals no byte sequence.
  let diff = (x.length ^ y.length) |
    (!both && (a !== x && LONE_SURROGATE.test(a as string) ||
        b !== y && LONE_SURROGATE.test(b as string))
      ? 1
      : 0);
  for (let i = 0; i < n; i++) {
    diff |= (unit(x, i % (x.length || 1)) || 0) ^ (unit(y, i % (y.length || 1)) || 0);
  }
  return diff === 0;
}
