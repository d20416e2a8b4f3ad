/**
 * Internal: where `JSON.stringify` would silently change a caller's JSON.
 *
 * @module
 */

/** The tags of objects JSON writes as they are meant: plain objects and boxed scalars. */
const FAITHFUL = /^(Object|String|Number|Boolean)$/;

/**
 * The first value inside `value` that JSON writes as an object of its own fields although the
 * value keeps its content elsewhere: a `Map` or a `Set` goes as `{}`, a `Uint8Array` as
 * `{"0":…}`. Answers the path to it from `name` (`metadata.tags`, `data[2]`) and its type, or
 * null. Objects with a `toJSON` (a `Date`) write what it answers and are left alone, as are
 * arrays, plain objects and class instances (written with their own fields); a cycle, a depth
 * JSON cannot write or a proxy that throws is left for `JSON.stringify` to report. Callers check
 * the value itself first: this looks inside it.
 *
 * @param value The caller's JSON value.
 * @param name The option's name, where the path starts.
 * @returns `[path, type]`, or null.
 */
export function jsonLossAt(value: unknown, name: string): [string, string] | null {
  const open = new Set<object>();
  const walk = (v: unknown, path: string, inside: boolean): [string, string] | null => {
    if (v === null || typeof v !== "object" || open.has(v)) return null;
    if (inside && typeof (v as { toJSON?: unknown }).toJSON === "function") return null;
    const tag = Object.prototype.toString.call(v).slice(8, -1);
    if (inside && !Array.isArray(v) && !FAITHFUL.test(tag)) return [path, tag];
    open.add(v);
    for (const k of Object.keys(v)) {
      const at = walk(
        (v as Record<string, unknown>)[k],
        Array.isArray(v)
          ? `${path}[${k}]`
          : /^[A-Za-z_$][\w$]*$/.test(k)
          ? `${path}.${k}`
          : `${path}[${JSON.stringify(k.length > 64 ? `${k.slice(0, 64)}…` : k)}]`,
        true,
      );
      if (at) return at;
    }
    open.delete(v);
    return null;
  };
  try {
    return walk(value, name, false);
  } catch {
    // A proxy's trap or a depth beyond the stack: JSON.stringify meets it too, and says so.
    return null;
  }
}
