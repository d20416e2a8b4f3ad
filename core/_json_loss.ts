/**
 * Internal: where `JSON.stringify` would silently change a caller's JSON.
 *
 * @module
 */

/**
 * The first value inside `value` that JSON writes as an object of its own fields although its
 * content lives elsewhere: a `Map` or a `Set` goes as `{}`, a `Uint8Array` as `{"0":…}`, a
 * `RegExp`, an `Error`, a `Blob` or `URLSearchParams` as `{}`. Answers the path to it from `name`
 * (`metadata.tags`, `data[2]`, cut after about 200 characters) and its type, or null. The walk is
 * `JSON.stringify`'s own, so it sees what JSON writes: what a `toJSON` answers (a `Date` its
 * text), arrays by index, boxed scalars as their value, plain objects and class instances by their
 * own fields. A cycle, a `bigint`, a depth JSON cannot write or a throwing proxy ends it with
 * null: the JSON that sends the value meets the same and says so.
 *
 * @param value The caller's JSON value.
 * @param name The option's name, where the path starts.
 * @returns `[path, type]`, or null.
 */
export function jsonLossAt(value: unknown, name: string): [string, string] | null {
  const paths = new Map<unknown, string>();
  let found: [string, string] | null = null;
  try {
    JSON.stringify(value, function (this: unknown, key: string, v: unknown) {
      // Scalars need no path: most of a large array's values cost nothing more than JSON's walk.
      if (found !== null || v === null || typeof v !== "object") return found ? undefined : v;
      const above = paths.get(this);
      const at = above === undefined
        ? name
        : above.length > 200
        ? above
        : Array.isArray(this)
        ? `${above}[${key}]`
        : /^[A-Za-z_$][\w$]*$/.test(key)
        ? `${above}.${key}`
        : `${above}[${JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key)}]`;
      const type = builtIn(v);
      if (type !== null) {
        found = [at.length > 200 ? `${at.slice(0, 200)}…` : at, type];
        return undefined;
      }
      paths.set(v, at);
      return v;
    });
  } catch {
    // A cycle, a bigint, a depth beyond the stack, a proxy's trap: JSON says so when it sends.
  }
  return found;
}

/**
 * The type tag of a built-in object whose content JSON does not write (another realm's too), or
 * null: bytes (written as an object of indexes), a `Map` or a `Set` (of any fields), or an object
 * of no field of its own whose type is not a plain object's (`RegExp`, `Error`, `Blob`,
 * `URLSearchParams`, `Promise`: JSON writes `{}`). Arrays, boxed scalars, plain objects and class
 * instances with fields are not.
 */
function builtIn(v: object): string | null {
  if (Array.isArray(v)) return null;
  const tag = Object.prototype.toString.call(v).slice(8, -1);
  if (ArrayBuffer.isView(v) || /^(Weak)?(Map|Set)$/.test(tag)) return tag;
  return Object.keys(v).length === 0 && !/^(Object|String|Number|Boolean)$/.test(tag) ? tag : null;
}
