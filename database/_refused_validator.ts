/**
 * Internal: the check of a typed call's validator made before anything is sent.
 *
 * @module
 */

import { type Failure, failure } from "../core/result.ts";

/** Why a validator is refused. */
export const NOT_A_VALIDATOR =
  "Cannot validate as 'validator' must be a function or a Standard Schema";

/**
 * `Failure(INVALID_ARGUMENT)` (resolved) for a validator that is neither a function nor a Standard Schema (an
 * object whose `~standard` has a `validate` function), else null: the typed calls check it before
 * sending, since a write refused only when its answer is decoded has already been committed. A
 * `~standard` getter is not called here: `validateAll` reads it once (a getter answering something
 * else each time cannot swap the schema), and refuses what it gives then.
 */
export function refusedValidator(validator: unknown): Promise<Failure> | null {
  if (!validator || typeof validator === "function") return null;
  try {
    if (typeof validator === "object") {
      for (let o: object | null = validator; o !== null; o = Object.getPrototypeOf(o)) {
        const d = Object.getOwnPropertyDescriptor(o, "~standard");
        if (d) {
          return !("value" in d) || typeof d.value?.validate === "function" ? null : refused();
        }
      }
    }
  } catch {
    return null; // a proxy that throws: left to the validation
  }
  return refused();
}

const refused = (): Promise<Failure> =>
  Promise.resolve(failure({ message: NOT_A_VALIDATOR, category: "INVALID_ARGUMENT" }));
