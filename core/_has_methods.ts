/**
 * Internal: a caller's object (a session storage, a key-value store, a URL
 * store) checked at construction to have the methods it will be called by.
 *
 * @module
 */

/**
 * Whether a caller's object has these methods (JavaScript callers may pass anything).
 *
 * @param value The object.
 * @param names The method names.
 * @returns True when each is a function.
 */
export function hasMethods(value: unknown, names: readonly string[]): boolean {
  return value !== null && typeof value === "object" &&
    names.every((name) => typeof (value as Record<string, unknown>)[name] === "function");
}
