/**
 * `encodeURIComponent` with a clear error: it throws a bare `URIError` for a
 * lone UTF-16 surrogate, which would reach callers of URL builders as a crash.
 *
 * @module
 */

/**
 * Percent-encodes a URL component.
 *
 * @param value The raw text.
 * @returns The encoded text.
 * @throws {TypeError} When `value` holds a lone UTF-16 surrogate.
 */
export function encodeComponent(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch (cause) {
    throw new TypeError(
      "Cannot encode a URL component as it holds a lone UTF-16 surrogate",
      { cause },
    );
  }
}
