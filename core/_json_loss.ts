/**
 * Internal: where `JSON.stringify` would silently change a caller's JSON.
 *
 * @module
 */

/** How a built-in function's source reads (`function Map() { [native code] }`). */
const NATIVE = /\{\s*\[native code\]\s*\}\s*$/;

/**
 * The first value inside `value` that JSON writes as an object of its own fields although its
 * content lives elsewhere: a `Map` or a `Set` goes as `{}`, a `Uint8Array` as `{"0":…}`, a
 * `RegExp`, an `Error`, a `Blob` or `URLSearchParams` as `{}`. Answers the path to it from `name`
 * (`metadata.tags`, `data[2]`, cut after about 200 characters) and its type, or null. The walk is
 * `JSON.stringify`'s own, so it sees what JSON writes: what a `toJSON` answers (a `Date` its
 * text), arrays by index, boxed scalars as their value, plain objects and class instances by their
 * own fields, whatever their `Symbol.toStringTag`. A cycle, a `bigint`, a depth JSON cannot write
 * or a throwing proxy ends it with null: the JSON that sends the value meets the same and says so.
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
      if (found !== null) return undefined;
      const above = paths.get(this);
      const at = above === undefined
        ? name
        : above.length > 200
        ? above
        : Array.isArray(this)
        ? `${above}[${key}]`
        : /^[A-Za-z_$][\w$]*$/.test(key)
        ? `${above}.${key}`
        : `${above}[${JSON.stringify(key.slice(0, 64))}]`;
      if (v !== null && typeof v === "object") {
        const type = builtIn(v);
        if (type !== null) {
          found = [at.length > 200 ? `${at.slice(0, 200)}…` : at, type];
          return undefined;
        }
        paths.set(v, at);
      }
      return v;
    });
  } catch {
    // A cycle, a bigint, a depth beyond the stack, a proxy's trap: JSON says so when it sends.
  }
  return found;
}

/**
 * The name of the built-in type `v` is or derives from (`Map` for a subclass of Map), or null for
 * an array, a boxed scalar (JSON writes its value), a plain object or a class instance. A type is
 * built in when a prototype on its chain has a native constructor, another realm's too. Where a
 * runtime writes its web types in JavaScript (Deno's and Node's `Blob`, `Headers`,
 * `URLSearchParams`) they have none: an object with a type tag of its own and no field, which JSON
 * writes as `{}`, is one too.
 */
function builtIn(v: object): string | null {
  if (Array.isArray(v)) return null;
  for (
    let proto = Object.getPrototypeOf(v);
    proto !== null && Object.getPrototypeOf(proto) !== null;
    proto = Object.getPrototypeOf(proto)
  ) {
    const ctor = Object.getOwnPropertyDescriptor(proto, "constructor")?.value;
    if (typeof ctor === "function" && NATIVE.test(Function.prototype.toString.call(ctor))) {
      const type = String(ctor.name || "built-in object");
      return /^(String|Number|Boolean)$/.test(type) ? null : type;
    }
  }
  const tag = Object.prototype.toString.call(v).slice(8, -1);
  return tag !== "Object" && Object.keys(v).length === 0 ? tag : null;
}
