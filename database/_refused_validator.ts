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
 * `Failure(INVALID_ARGUMENT)` for a validator that is neither a function nor an object with a
 * `~standard` member (a Standard Schema), else null: the typed calls check it before sending,
 * since a write refused only when its answer is decoded has already been committed. The member is
 * not read here (`in` calls no getter): `validateAll` reads it once, and a schema whose
 * member is broken is a broken validator there (`DECODE`).
 */
export function refusedValidator(validator: unknown): Failure | null {
  if (!validator || typeof validator === "function") return null;
  try {
    if (typeof validator === "object" && "~standard" in validator) return null;
  } catch {
    return null; // a proxy whose `has` throws: left to the validation
  }
  return failure({ message: NOT_A_VALIDATOR, category: "INVALID_ARGUMENT" });
}
