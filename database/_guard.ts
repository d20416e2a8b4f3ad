/**
 * Eager argument errors of the database operations. The document throws only
 * for its Limits (`maxAffected` > 0, a range window with `to >= from`); every
 * other malformed request (a blank table, a DSL misuse, a value JSON cannot
 * hold) is returned as `Failure(INVALID_ARGUMENT)`, never thrown.
 */

import { type Failure, failure, type ServiceResult } from "../core/result.ts";

/** A `RangeError` for one of the document's Limits: thrown, never turned into a Failure. */
export class LimitError extends RangeError {
  override name = "RangeError";
}

/**
 * Runs `send`, which builds a request and sends it; a `TypeError` or
 * `RangeError` thrown while building becomes `Failure(INVALID_ARGUMENT)`,
 * except a {@linkcode LimitError}.
 */
export function guarded<T>(send: () => Promise<ServiceResult<T>>): Promise<ServiceResult<T>> {
  try {
    return send();
  } catch (error) {
    return buildFailure(error);
  }
}

/**
 * What an error thrown while building a request becomes: `Failure(INVALID_ARGUMENT)`
 * for a `TypeError` or `RangeError`; a {@linkcode LimitError} or anything else is
 * thrown again. Hot paths call it from a `try` in place, which costs less than a closure.
 */
export function buildFailure(error: unknown): Promise<Failure> {
  if (error instanceof LimitError || !(error instanceof TypeError || error instanceof RangeError)) {
    throw error;
  }
  return Promise.resolve(
    failure({ message: error.message, category: "INVALID_ARGUMENT", cause: error }),
  );
}
