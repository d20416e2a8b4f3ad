/**
 * Turns an eager argument error (a TypeError or RangeError thrown before any
 * request) into `Failure(INVALID_ARGUMENT)`; the transport itself never rejects.
 */

import { failure, type ServiceResult } from "../core/result.ts";

export function guard<T>(p: Promise<ServiceResult<T>>): Promise<ServiceResult<T>> {
  return p.catch((e: unknown) => {
    if (e instanceof TypeError || e instanceof RangeError) {
      return failure({ message: e.message, category: "INVALID_ARGUMENT", cause: e });
    }
    throw e;
  });
}
