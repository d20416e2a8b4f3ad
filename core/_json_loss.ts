/**
 * Internal: where `JSON.stringify` would silently change a caller's JSON.
 *
 * @module
 */

/** The built-in types JSON writes as they are meant: boxed scalars, written as their value. */
const BOXED = /^(String|Number|Boolean)$/;

/** How a built-in function's source reads (`function Map() { [native code] }`). */
const NATIVE = /\{\s*\[native code\]\s*\}\s*$/;

/** The longest path a message names; a deeper one ends in "…". */
const MAX_PATH = 200;

/**
 * The first value inside `value` that JSON writes as an object of its own fields although its
 * content lives elsewhere: a `Map` or a `Set` goes as `{}`, a `Uint8Array` as `{"0":…}`, a
 * `RegExp`, an `Error`, a `Blob` or `URLSearchParams` as `{}`. Answers the path to it from `name`
 * (`metadata.tags`, `data[2]`) and its type, or null. A value is what its `toJSON` answers (a
 * `Date` its text), as JSON writes it; arrays are walked by index (JSON drops their other
 * properties), boxed scalars are their value, and plain objects and class instances (written with
 * their own fields, whatever their `Symbol.toStringTag`) are walked. A type is built in when a
 * prototype on its chain has a native constructor, another realm's too, so a subclass of `Map`
 * is one, or when it has a type tag of its own and no field (`builtIn`). The walk keeps no call stack (any depth), visits an object once (a cycle is left for
 * `JSON.stringify` to report), and a proxy or a `toJSON` that throws ends it with null: JSON
 * meets the same and says so.
 *
 * @param value The caller's JSON value.
 * @param name The option's name, where the path starts.
 * @returns `[path, type]`, or null.
 */
export function jsonLossAt(value: unknown, name: string): [string, string] | null {
  const seen = new Set<object>();
  // Each entry: a value, its path, and the key its holder has it under (what toJSON is given).
  const stack: Array<[unknown, string, string]> = [[value, name, ""]];
  try {
    while (stack.length > 0) {
      let [v, path, key] = stack.pop()!;
      if (v !== null && typeof v === "object") {
        const toJSON = (v as { toJSON?: unknown }).toJSON;
        if (typeof toJSON === "function") v = toJSON.call(v, key);
      }
      if (v === null || typeof v !== "object" || seen.has(v)) continue;
      seen.add(v);
      const type = builtIn(v);
      if (type !== null) {
        if (BOXED.test(type)) continue;
        return [path, type];
      }
      const at = (k: string) =>
        path.endsWith("…")
          ? path
          : path.length + k.length + 4 > MAX_PATH
          ? `${path}…`
          : Array.isArray(v)
          ? `${path}[${k}]`
          : /^[A-Za-z_$][\w$]*$/.test(k)
          ? `${path}.${k}`
          : `${path}[${JSON.stringify(k)}]`;
      if (Array.isArray(v)) {
        for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], at(String(i)), String(i)]);
      } else {
        const keys = Object.keys(v);
        for (let i = keys.length - 1; i >= 0; i--) {
          const k = keys[i]!;
          stack.push([(v as Record<string, unknown>)[k], at(k), k]);
        }
      }
    }
  } catch {
    // A proxy's trap or a throwing toJSON: JSON.stringify meets it too, and says so.
  }
  return null;
}

/**
 * The name of the built-in type `v` is or derives from (`Map` for a subclass of Map), or null for
 * an array, a plain object or a class instance. Where a runtime writes its web types in
 * JavaScript (Deno's and Node's `Blob`, `Headers`, `URLSearchParams`), they have no native
 * constructor: an object whose type tag is not `Object` and that has no own field of its own,
 * which JSON writes as `{}`, is one too.
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
      return typeof ctor.name === "string" && ctor.name !== "" ? ctor.name : "built-in object";
    }
  }
  const tag = Object.prototype.toString.call(v).slice(8, -1);
  return tag !== "Object" && Object.keys(v).length === 0 ? tag : null;
}
