/**
 * Masked textual rendering: secret fields print as `***` in `toString()`,
 * `console.log` in Deno and Node, while JSON serialisation keeps them.
 *
 * @module
 */

const DENO_INSPECT = Symbol.for("Deno.customInspect");
const NODE_INSPECT = Symbol.for("nodejs.util.inspect.custom");
/** A masked object's own masked copy, so that an outer rendering applies the inner secret keys too. */
const MASKED_COPY: unique symbol = Symbol("maskedCopy");

/**
 * The text that replaces a secret in renderings.
 *
 * @example Spotting a masked field
 * ```ts
 * import { MASK, withMaskedFields } from "@fetchbase/fetchbase/core";
 *
 * const s = withMaskedFields({ accessToken: "secret-token" }, ["accessToken"]);
 * console.log(String(s).includes(MASK)); // true
 * ```
 */
export const MASK = "***";

/** Field names masked at any depth of every masked object. */
const ALWAYS_MASKED: readonly string[] = [
  "accessToken",
  "refreshToken",
  "providerToken",
  "providerRefreshToken",
  "access_token",
  "refresh_token",
  "provider_token",
  "provider_refresh_token",
  "idToken",
  "password",
  "currentPassword",
  "email",
  "phone",
];

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
  const secrets = new Set<string>([...ALWAYS_MASKED, ...secretKeys]);
  // Deep: a secret nested anywhere (an identity's email, user_metadata.phone) is hidden too.
  // `path` holds the objects above `value`, masked objects nested in it included, and `top` how
  // many of them are above this masked object: past 8 levels below it, or back at one of the
  // objects above (an object that holds itself, two masked objects holding each other), nothing is
  // printed, so no secret deeper down can show and a cycle ends (its walk was exponential, or
  // endless between two masked objects). A nested masked object counts its own 8 levels.
  const mask = (value: unknown, path: object[], top: number): unknown => {
    if (value === null || typeof value !== "object") return value;
    if (path.length - top > 8 || path.includes(value)) return "[…]";
    const inner =
      (value as { [MASKED_COPY]?: ((path: object[]) => unknown) | undefined })[MASKED_COPY];
    if (value !== obj && typeof inner === "function") return inner(path);
    path.push(value);
    try {
      if (Array.isArray(value)) return value.map((v) => mask(v, path, top));
      // Own properties, so that a key such as `__proto__` (JSON may hold one) stays a key.
      return Object.fromEntries(
        Object.entries(value).map((
          [k, v],
        ) => [k, secrets.has(k) && v !== null && v !== undefined ? MASK : mask(v, path, top)]),
      );
    } finally {
      path.pop();
    }
  };
  const maskedCopy = (path: object[] = []): Record<string, unknown> =>
    mask(obj, path, path.length) as Record<string, unknown>;
  Object.defineProperties(obj, {
    toString: {
      value: () => JSON.stringify(maskedCopy()),
      enumerable: false,
      configurable: true,
      writable: true,
    },
    [MASKED_COPY]: { value: maskedCopy, enumerable: false, configurable: true },
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
