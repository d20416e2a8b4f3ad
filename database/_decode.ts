/**
 * Internal decoding helpers shared by the typed extensions.
 */

import { failure, type ServiceResult, success } from "../core/result.ts";
import { validateAll, type Validator } from "./validator.ts";
import { parseJsonInt64 } from "../core/_json_int64.ts";
import { runBlock } from "./_block.ts";
import type { QueryBuilder } from "./query_builder.ts";
import type { BlockResult } from "./where_builder.ts";

/** The validator of a typed call, and its signal (a validation that never settles is cancelled). */
interface DecodeOptions<T> {
  validator?: Validator<T> | null | undefined;
  signal?: AbortSignal | undefined;
}

/** Parses a body; integers beyond 2^53 (`int8` ids) are read as exact `bigint`s. */
export function parseJson(body: string): ServiceResult<unknown> {
  try {
    return success(body.trim() === "" ? null : parseJsonInt64(body));
  } catch (cause) {
    return failure({ message: "Cannot decode the response: not JSON", category: "DECODE", cause });
  }
}

export async function decodeRows<T>(
  r: ServiceResult<string>,
  o?: DecodeOptions<T>,
): Promise<ServiceResult<T[]>> {
  if (!r.ok) return r;
  const parsed = parseJson(r.value);
  return parsed.ok ? await rowsOf(parsed.value, o) : parsed;
}

/** A parsed body as rows, checked by the validator. */
async function rowsOf<T>(value: unknown, o?: DecodeOptions<T>): Promise<ServiceResult<T[]>> {
  if (!Array.isArray(value)) {
    return failure({
      message: "Cannot decode the response: expected a JSON array of rows",
      category: "DECODE",
    });
  }
  return await validateAll(value, o?.validator, o);
}

/** One value; with `row`, an empty or `null` body is `Failure(DECODE)` (a row is never null). */
export async function decodeOne<T>(
  r: ServiceResult<string>,
  o?: DecodeOptions<T>,
  row = false,
): Promise<ServiceResult<T>> {
  if (!r.ok) return r;
  const parsed = parseJson(r.value);
  if (!parsed.ok) return parsed;
  if (row && parsed.value === null) {
    return failure({
      message: "Cannot decode the response: expected a row, got an empty or null body",
      category: "DECODE",
    });
  }
  return await decodeValue(parsed.value, o);
}

/** One parsed value, checked by the validator. */
export async function decodeValue<T>(
  value: unknown,
  o?: DecodeOptions<T>,
): Promise<ServiceResult<T>> {
  const v = await validateAll([value], o?.validator, o);
  return v.map((rows) => rows[0]);
}

/**
 * Whether a failure is PostgREST's 406 for zero rows (`PGRST116`, "The result contains 0 rows";
 * before PostgREST 10, no code and "Results contain 0 rows"); another 406 (a proxy's page,
 * another error) stays a failure.
 */
export function isNoRows(r: ServiceResult<unknown>): boolean {
  if (r.ok) return false;
  const e = r.error;
  return e.status === 406 && (e.code === "PGRST116" || e.code === null) &&
    /\b0 rows\b/.test(e.details ?? "");
}

/**
 * At most one row, from a single-object read: `Success(null)` for PostgREST's zero-row 406.
 * PostgREST 16's `client-error-verbosity = "minimal"` sends that 406 without the `details` that
 * say how many rows matched: the same read is then made as a list of at most two rows (`again`,
 * with {@linkcode twoRowsAtMost}), and zero rows are null, one is the row, and several keep the
 * first answer's failure. `again` is given what is left of the call's timeout (its caller's
 * deadline), so the two reads together take no longer than one.
 */
export async function maybeOne<T>(
  r: ServiceResult<string>,
  again: () => Promise<ServiceResult<string>>,
  o?: DecodeOptions<T>,
): Promise<ServiceResult<T | null>> {
  if (isNoRows(r)) return success(null);
  if (r.ok || r.error.status !== 406 || r.error.code !== "PGRST116" || r.error.details !== null) {
    return decodeOne<T | null>(r, o);
  }
  const list = await again();
  if (!list.ok) return list;
  const parsed = parseJson(list.value);
  if (!parsed.ok) return parsed;
  // Several rows keep the first answer's failure, unvalidated (a validator's verdict on one of
  // them is not the answer).
  if (Array.isArray(parsed.value) && parsed.value.length > 1) return r;
  const rows = await rowsOf<T>(parsed.value, o);
  return rows.ok ? success(rows.value[0] ?? null) : rows;
}

/**
 * The caller's block, then at most two rows unless it set its own window: two tell one row from
 * several, where the whole list could be large.
 */
export function twoRowsAtMost(
  block?: ((q: QueryBuilder) => BlockResult) | null,
): (q: QueryBuilder) => void {
  return (q) => {
    if (block != null) runBlock(block, q);
    if (!q.hasWindow) q.limit(2);
  };
}

export function discard(r: ServiceResult<unknown>): ServiceResult<void> {
  return r.ok ? success(undefined) : r;
}
