/**
 * Internal: the shape of the user fields the session helpers walk, checked alike where a session
 * is read back from storage and where one is saved.
 *
 * @module
 */

/** The fields that hold lists of objects; the other fields checked hold objects. */
const LISTS: ReadonlySet<string> = new Set(["identities", "factors"]);

/**
 * The first of a user's `appMetadata`, `userMetadata` (objects), `identities` and `factors`
 * (lists of objects) that is given with another shape, or null: a helper walking it
 * (`identities.filter`) would throw.
 *
 * @param user The user.
 * @returns The field's name, or null.
 */
export function misshapenUserField(user: Record<string, unknown>): string | null {
  for (const name of ["appMetadata", "userMetadata", "identities", "factors"]) {
    const v = user[name];
    if (v != null && !(LISTS.has(name) ? Array.isArray(v) && v.every(isObject) : isObject(v))) {
      return name;
    }
  }
  return null;
}

/** Whether a field's shape is a list (else an object), for a message naming it. */
export const isListField = (name: string): boolean => LISTS.has(name);

const isObject = (x: unknown): boolean => x !== null && typeof x === "object" && !Array.isArray(x);
