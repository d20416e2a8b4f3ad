/**
 * Byte and text encodings on web APIs only: UTF-8, base64, base64url and hex.
 *
 * @module
 */

import { isUint8Array, localBytes } from "./_realm.ts";
import { showValue } from "./_show.ts";

// Made at first use: a module that builds one at import fails to load where there is none (Jest's
// jsdom environment), even for a caller that never encodes.
let encoder: TextEncoder | undefined;

/**
 * Encodes a string as UTF-8 bytes.
 *
 * @example Encoding text
 * ```ts
 * import { utf8Encode } from "@fetchbase/fetchbase/core";
 *
 * console.log(utf8Encode("é").length); // 2
 * ```
 *
 * @param text The text.
 * @returns Its UTF-8 bytes.
 * @throws {TypeError} When `text` is not a string.
 */
export function utf8Encode(text: string): Uint8Array<ArrayBuffer> {
  // TextEncoder would write any value's String() form (5 as "5", an object as "[object Object]").
  if (typeof text !== "string") {
    throw new TypeError(
      `Cannot encode as UTF-8 as 'text' must be a string: current value is ${showValue(text)}`,
    );
  }
  return (encoder ??= new TextEncoder()).encode(text);
}

/**
 * Decodes UTF-8 bytes; malformed sequences become U+FFFD unless `fatal`.
 *
 * @example Decoding bytes
 * ```ts
 * import { utf8Decode } from "@fetchbase/fetchbase/core";
 *
 * console.log(utf8Decode(new Uint8Array([104, 105]))); // hi
 * ```
 *
 * @param bytes The bytes.
 * @param fatal Throw a `TypeError` on malformed input instead of replacing.
 * @returns The text.
 */
export function utf8Decode(bytes: Uint8Array, fatal = false): string {
  return new TextDecoder("utf-8", { fatal }).decode(bytes);
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B64_LOOKUP: Int16Array = /* @__PURE__ */ (() => {
  const table = new Int16Array(128).fill(-1);
  for (let i = 0; i < B64.length; i++) table[B64.charCodeAt(i)] = i;
  table["-".charCodeAt(0)] = 62;
  table["_".charCodeAt(0)] = 63;
  return table;
})();

/**
 * Encodes bytes (or the UTF-8 bytes of a string) as padded base64.
 *
 * @example Encoding to base64
 * ```ts
 * import { encodeBase64 } from "@fetchbase/fetchbase/core";
 *
 * console.log(encodeBase64("foobar")); // Zm9vYmFy
 * ```
 *
 * @param data Bytes (any typed array or `DataView` is read as its bytes) or text.
 * @returns The base64 text.
 * @throws {TypeError} When `data` is neither bytes nor a string.
 */
export function encodeBase64(data: ArrayBufferView | ArrayBuffer | string): string {
  // Bytes of another realm too: the digest of a WebCrypto from outside a jsdom test environment.
  const bytes = typeof data === "string" ? utf8Encode(data) : localBytes(data);
  // `new Uint8Array(3)` would encode three zero bytes, `new Uint8Array({})` none.
  if (bytes === null) {
    throw new TypeError(
      `Cannot encode base64 as 'data' must be bytes or a string: current value is ${
        showValue(data)
      }`,
    );
  }
  // The runtime's own where it has one (Deno 2, recent browsers): about 30 times faster.
  const native = (bytes as Uint8Array & { toBase64?: (() => string) | undefined }).toBase64;
  if (typeof native === "function") return native.call(bytes);
  // btoa takes a binary string; pieces of 32 KiB keep the argument list short.
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * Encodes bytes (or the UTF-8 bytes of a string) as unpadded base64url
 * (RFC 4648 §5).
 *
 * @example Encoding to base64url
 * ```ts
 * import { encodeBase64Url } from "@fetchbase/fetchbase/core";
 *
 * console.log(encodeBase64Url(new Uint8Array([251, 255]))); // -_8
 * ```
 *
 * @param data Bytes (any typed array or `DataView` is read as its bytes) or text.
 * @returns The base64url text.
 * @throws {TypeError} When `data` is neither bytes nor a string.
 */
export function encodeBase64Url(data: ArrayBufferView | ArrayBuffer | string): string {
  return encodeBase64(data).replace(/=+$/, "").replace(/\+/g, "-").replace(
    /\//g,
    "_",
  );
}

/**
 * Decodes base64 or base64url text (padding optional, either alphabet but
 * not both). Throws a `TypeError` for characters outside the alphabets, an
 * impossible length, wrong padding, or bits set past the data in the last
 * character (so every byte string has one spelling).
 *
 * @example Decoding
 * ```ts
 * import { decodeBase64, utf8Decode } from "@fetchbase/fetchbase/core";
 *
 * console.log(utf8Decode(decodeBase64("Zm9vYmFy"))); // foobar
 * ```
 *
 * @param text The encoded text.
 * @returns The bytes.
 * @throws {TypeError} When `text` is not a string or not valid base64.
 */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  if (typeof text !== "string") {
    throw new TypeError(
      `Cannot decode base64 as it must be a string: current value is ${showValue(text)}`,
    );
  }
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 61) end--; // "="
  const pad = text.length - end;
  if (end % 4 === 1 || (pad > 0 && pad !== (4 - (end % 4)) % 4)) {
    throw new TypeError(
      `Cannot decode base64 as its length or padding is invalid: current length is ${text.length}`,
    );
  }
  let standard = false;
  let urlSafe = false;
  const out = new Uint8Array(Math.floor((end * 3) / 4));
  let buffer = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? B64_LOOKUP[c] : -1;
    if (v < 0) {
      throw new TypeError(
        `Cannot decode base64 as it contains an invalid character at index ${i}`,
      );
    }
    if (c === 43 || c === 47) standard = true; // + /
    else if (c === 45 || c === 95) urlSafe = true; // - _
    buffer = (buffer << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (buffer >> bits) & 0xff;
    }
  }
  if (standard && urlSafe) {
    throw new TypeError("Cannot decode base64 as it mixes the standard and URL-safe alphabets");
  }
  if ((buffer & ((1 << bits) - 1)) !== 0) {
    throw new TypeError("Cannot decode base64 as its last character has bits set past the data");
  }
  return out;
}

/**
 * Decodes base64url text; an alias of {@linkcode decodeBase64}, which accepts
 * both alphabets.
 *
 * @example Decoding base64url
 * ```ts
 * import { decodeBase64Url } from "@fetchbase/fetchbase/core";
 *
 * console.log(decodeBase64Url("-_8")); // Uint8Array(2) [ 251, 255 ]
 * ```
 *
 * @param text The encoded text.
 * @returns The bytes.
 */
export function decodeBase64Url(text: string): Uint8Array<ArrayBuffer> {
  return decodeBase64(text);
}

/**
 * Encodes bytes as lowercase hex.
 *
 * @example Encoding to hex
 * ```ts
 * import { encodeHex } from "@fetchbase/fetchbase/core";
 *
 * console.log(encodeHex(new Uint8Array([1, 171]))); // 01ab
 * ```
 *
 * @param bytes The bytes.
 * @returns The hex text.
 * @throws {TypeError} When `bytes` is not a `Uint8Array`.
 */
export function encodeHex(bytes: Uint8Array): string {
  // A string or a list would be read index by index: "ab" came back as "ab".
  if (!isUint8Array(bytes)) {
    throw new TypeError(
      `Cannot encode hex as 'bytes' must be a Uint8Array: current value is ${showValue(bytes)}`,
    );
  }
  // The runtime's own where it has one (Deno 2, recent browsers), else a table of the 256 pairs,
  // joined in pieces: per-byte `toString(16)` took 300 ms a MiB.
  const view = localBytes(bytes)! as Uint8Array & { toHex?: (() => string) | undefined };
  if (typeof view.toHex === "function") return view.toHex();
  const pairs = hexPairs ??= Array.from({ length: 256 }, (_, n) => n.toString(16).padStart(2, "0"));
  let out = "";
  for (let i = 0; i < view.length; i += 0x8000) {
    const piece = new Array<string>(Math.min(0x8000, view.length - i));
    for (let j = 0; j < piece.length; j++) piece[j] = pairs[view[i + j]];
    out += piece.join("");
  }
  return out;
}

/** The hex spelling of each byte value, built at the first `encodeHex` without a native one. */
let hexPairs: string[] | undefined;
