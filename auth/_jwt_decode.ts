/**
 * Internal: splits a compact JWS and decodes its header, payload and
 * signature without verifying anything. Never throws: every malformed shape
 * becomes a `Failure(INVALID_ARGUMENT)`.
 *
 * @module
 */

import type { JsonObject } from "../core/decode.ts";
import { Failure, failure, type ServiceResult, success } from "../core/result.ts";

/**
 * Longest token accepted, in characters (32 KiB).
 *
 * @example Checking a token's length
 * ```ts
 * import { MAX_JWT_LENGTH } from "@fetchbase/fetchbase/auth";
 *
 * console.log("a.b.c".length <= MAX_JWT_LENGTH); // true
 * ```
 */
export const MAX_JWT_LENGTH = 32_768; // a literal, not 32 * 1024: bundles drop it when unused

/** A compact JWS split and decoded. */
export interface DecodedJwt {
  /** The protected header as a JSON object. */
  header: JsonObject;
  /** The payload as a JSON object. */
  payload: JsonObject;
  /** The third part, base64url text as it came. */
  signatureText: string;
  /** Index of the second dot: `jwt.slice(0, signingEnd)` is the signing input. */
  signingEnd: number;
}

let decoder: TextDecoder | undefined;

const BASE64URL = /^[\w-]*$/; // \w is [A-Za-z0-9_] without the u flag

function invalid(reason: string): Failure {
  return failure({
    message: `Cannot parse the JWT as ${reason}`,
    category: "INVALID_ARGUMENT",
    code: "bad_jwt",
  });
}

/** Last characters whose unused low bits are zero, by `length % 4` (2: four bits, 3: two). */
const CANONICAL_LAST: Readonly<Record<number, string>> = { 2: "AQgw", 3: "AEIMQUYcgkosw048" };

/**
 * Whether `part` is canonical unpadded base64url (empty only if allowed):
 * a possible length, and no set bit past the data in the last character, so
 * no token has a second base64url spelling (a signature with flipped
 * trailing bits would otherwise verify too). ECDSA's own malleability (`s`
 * and `n - s` both verify) is accepted, as WebCrypto and GoTrue accept it:
 * Go signs with either, so requiring low `s` would refuse valid tokens.
 */
function isBase64Url(part: string, allowEmpty: boolean): boolean {
  if (part.length === 0) return allowEmpty;
  const rest = part.length % 4;
  if (rest === 1 || !BASE64URL.test(part)) return false;
  return rest === 0 || CANONICAL_LAST[rest].includes(part[part.length - 1]);
}

/**
 * Decodes validated base64url to text. `atob` (native everywhere) does the
 * work, and ASCII (nearly every token) is its own text; UTF-8 beyond ASCII
 * goes through a fatal `TextDecoder` (the part decoded again, as bytes).
 */
function base64UrlToText(part: string): string {
  const binary = atob(part.replace(/-/g, "+").replace(/_/g, "/"));
  if (!/[^\0-\x7f]/.test(binary)) return binary;
  // ignoreBOM keeps a leading BOM, which JSON.parse then refuses (RFC 8259 §8.1), as GoTrue does.
  decoder ??= new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  return decoder.decode(base64UrlToBytes(part));
}

/**
 * Decodes a part {@linkcode decodeJwt} already validated as base64url.
 *
 * @param part The base64url text.
 * @returns The bytes.
 */
export function base64UrlToBytes(part: string): Uint8Array<ArrayBuffer> {
  // Every character atob gives is one byte (U+0000 to U+00FF).
  return Uint8Array.from(atob(part.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
}

function decodeJsonPart(text: string, what: string): JsonObject | Failure {
  let value: unknown;
  try {
    value = JSON.parse(base64UrlToText(text));
  } catch {
    return invalid(`its ${what} is not base64url-encoded UTF-8 JSON`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return invalid(`its ${what} must be a JSON object`);
  }
  return value as JsonObject;
}

/**
 * Splits and decodes a compact JWS (`header.payload.signature`).
 *
 * @param jwt The token.
 * @returns The decoded parts or a `Failure(INVALID_ARGUMENT)`.
 */
export function decodeJwt(jwt: unknown): ServiceResult<DecodedJwt> {
  if (typeof jwt !== "string") return invalid("it must be a string");
  if (jwt.length > MAX_JWT_LENGTH) {
    return invalid(`it exceeds ${MAX_JWT_LENGTH} characters: current length is ${jwt.length}`);
  }
  const parts = jwt.split(".");
  if (parts.length !== 3) return invalid("it must have three dot-separated parts");
  const [headerText, payloadText, signatureText] = parts;
  if (
    !isBase64Url(headerText, false) || !isBase64Url(payloadText, false) ||
    !isBase64Url(signatureText, true)
  ) {
    return invalid("a part is not base64url");
  }
  const header = decodeJsonPart(headerText, "header");
  if (header instanceof Failure) return header;
  const payload = decodeJsonPart(payloadText, "payload");
  if (payload instanceof Failure) return payload;
  return success({
    header,
    payload,
    signatureText,
    signingEnd: headerText.length + 1 + payloadText.length,
  });
}
