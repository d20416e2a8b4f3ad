/**
 * Whether a value is a plain object: its prototype null or an `Object.prototype`, another
 * realm's too. The Storage API keeps user metadata, vector filters and catalog properties as JSON
 * objects, and `JSON.stringify` writes a `Map` as `{}`, a `Date` as a string and an array as a
 * list, so anything else is refused before sending. A proxy whose prototype trap throws is not
 * plain.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  try {
    const proto = Object.getPrototypeOf(value);
    return proto === null || Object.getPrototypeOf(proto) === null;
  } catch {
    return false;
  }
}
