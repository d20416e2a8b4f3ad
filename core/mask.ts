/**
 * Masked textual rendering: secret fields print as `***` in `toString()`,
 * `console.log` in Deno and Node, while JSON serialisation keeps them.
 *
 * @module
 */

const DENO_INSPECT = Symbol.for("Deno.customInspect");
const NODE_INSPECT = Symbol.for("nodejs.util.inspect.custom");

/** The text that replaces a secret in renderings. */
export const MASK = "***";

/**
 * Attaches masked renderings to `obj` (non-enumerable, so JSON, spreading and
 * equality checks are unaffected) and returns it.
 *
 * @example Masking a token
 * ```ts
 * import { withMaskedFields } from "@fetchbase/fetchbase/core";
 *
 * const s = withMaskedFields({ accessToken: "secret-token", user: "u1" }, ["accessToken"]);
 * console.log(String(s)); // {"accessToken":"***","user":"u1"}
 * console.log(JSON.stringify(s)); // {"accessToken":"secret-token","user":"u1"}
 * ```
 *
 * @param obj The object to decorate.
 * @param secretKeys Fields to mask when they hold a non-null value.
 * @returns The same object.
 */
export function withMaskedFields<T extends object>(
  obj: T,
  secretKeys: ReadonlyArray<keyof T & string>,
): T {
  const maskedCopy = (): Record<string, unknown> => {
    const copy: Record<string, unknown> = { ...obj } as Record<string, unknown>;
    for (const key of secretKeys) {
      if (copy[key] !== null && copy[key] !== undefined) copy[key] = MASK;
    }
    return copy;
  };
  Object.defineProperties(obj, {
    toString: {
      value: () =>
        JSON.stringify(
          maskedCopy(),
          (_k, v) =>
            v && typeof v === "object" && !Array.isArray(v) && Object.hasOwn(v, "toString") &&
              v !== obj
              ? JSON.parse(String(v))
              : v,
        ),
      enumerable: false,
      configurable: true,
      writable: true,
    },
    [DENO_INSPECT]: {
      value: (inspect: (v: unknown, o: unknown) => string, options: unknown) =>
        inspect(maskedCopy(), options),
      enumerable: false,
      configurable: true,
    },
    [NODE_INSPECT]: {
      value: () => maskedCopy(),
      enumerable: false,
      configurable: true,
    },
  });
  return obj;
}
