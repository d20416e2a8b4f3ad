/**
 * Validators for typed decoding: any Standard Schema object (zod, valibot,
 * arktype, ...) or a plain function.
 *
 * @module
 */

import { failure, type ServiceResult, success } from "../core/result.ts";
import { NOT_A_VALIDATOR } from "./_refused_validator.ts";
import { ABORTED, cancelled, refusedSignal, untilAborted } from "../core/_abort.ts";
import { describeThrown, isThenable } from "../core/_thrown.ts";

/** The result of a Standard Schema validation. */
export type StandardResult<T> =
  | { readonly value: T; readonly issues?: undefined }
  | {
    readonly issues: ReadonlyArray<{
      readonly message: string;
      readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
    }>;
  };

/** The Standard Schema v1 interface, as zod, valibot and arktype implement it. */
export interface StandardSchemaV1<T> {
  /** The standard properties. */
  readonly "~standard": {
    /** Interface version. */
    readonly version: 1;
    /** The implementing library. */
    readonly vendor: string;
    /** Validates one value. */
    readonly validate: (value: unknown) => StandardResult<T> | Promise<StandardResult<T>>;
  };
}

/**
 * Checks and converts one decoded JSON value: a Standard Schema object or a
 * function that returns the value (or a promise of it) or throws (or rejects).
 *
 * The function's result is written `T & ({} | null | undefined)`, which is
 * `T` itself, so that `T` is taken from a function only when nothing else
 * gives it: a Standard Schema that can also be called (arktype's types, whose
 * call returns the value or its errors) gives its output type, as its
 * `~standard` is what runs, rather than that output or `ArkErrors`. A type
 * guard is no validator (it answers a boolean): wrap it in
 * {@linkcode guardValidator}.
 */
export type Validator<T> =
  | StandardSchemaV1<T>
  // deno-lint-ignore ban-types
  | ((value: unknown) => (T & ({} | null | undefined)) | Promise<T & ({} | null | undefined)>);

/**
 * A validator made of a type guard. A type guard (`(v): v is Todo => ...`) is
 * no validator by itself: it answers a boolean, which a validator's caller
 * takes as the value (each row would become `true` or `false`, and a row
 * that fails the guard would pass). This one answers the value when the guard
 * holds and throws otherwise, so a row that fails is `Failure(DECODE)`.
 *
 * @example Rows checked by a type guard
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createDatabaseClient, guardValidator, selectTyped } from "@fetchbase/fetchbase/database";
 *
 * interface Todo {
 *   id: number;
 *   title: string;
 * }
 * const isTodo = (v: unknown): v is Todo =>
 *   typeof v === "object" && v !== null && typeof (v as Todo).title === "string";
 *
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const todos = await selectTyped(db, "todos", { validator: guardValidator(isTodo) });
 * ```
 *
 * @typeParam T The type the guard asserts.
 * @param guard The type guard.
 * @param message What a value that fails it is called (default "the value does not pass the
 * type guard").
 * @returns The validator.
 */
export function guardValidator<T>(
  guard: (value: unknown) => value is T,
  message?: string,
): (value: unknown) => T {
  if (typeof guard !== "function") {
    throw new TypeError("Cannot make a validator as 'guard' must be a function");
  }
  return (value) => {
    if (guard(value)) return value;
    throw new TypeError(message ?? "the value does not pass the type guard");
  };
}

/**
 * Runs a validator over each value; the first failure is `Failure(DECODE)`.
 * Without a validator values pass as they are.
 *
 * @example A function validator
 * ```ts
 * import { validateAll } from "@fetchbase/fetchbase/database";
 *
 * const r = await validateAll([1, "x"], (v) => {
 *   if (typeof v !== "number") throw new Error("not a number");
 *   return v;
 * });
 * console.log(r.ok); // false
 * ```
 *
 * @param values The decoded values.
 * @param validator The validator, if any: a function (awaited when it returns a promise) or a
 * Standard Schema.
 * @param options A signal that cancels a validation still pending (`Failure(CANCELLED)`).
 * @returns The validated values.
 */
export async function validateAll<T>(
  values: readonly unknown[],
  validator?: Validator<T> | null,
  options?: { signal?: AbortSignal | undefined },
): Promise<ServiceResult<T[]>> {
  if (!validator) return success(values as T[]);
  const refused = refusedSignal(options?.signal);
  if (refused) return refused;
  // A Standard Schema first: some (arktype) are also callable, and their call
  // returns an error object instead of throwing.
  let standard: { validate?: unknown } | undefined;
  try {
    standard = (validator as { "~standard"?: typeof standard | undefined })["~standard"];
  } catch (cause) {
    // A throwing getter is a broken validator, as a throwing validate is: never a rejection.
    return failure({
      message: `Cannot decode as the validator's '~standard' threw: ${describeThrown(cause)}`,
      category: "DECODE",
      cause,
    });
  }
  const isSchema = typeof standard?.validate === "function";
  if (!isSchema && typeof validator !== "function") {
    return failure({ message: NOT_A_VALIDATOR, category: "INVALID_ARGUMENT" });
  }
  const out: T[] = [];
  for (let i = 0; i < values.length; i++) {
    try {
      const pending: unknown = isSchema
        ? (standard as StandardSchemaV1<T>["~standard"]).validate(values[i])
        : (validator as (v: unknown) => unknown)(values[i]);
      // An async validator is awaited (its rows are values, not promises), cancellably.
      const settled = isThenable(pending)
        ? await untilAborted(Promise.resolve(pending), options?.signal)
        : pending;
      if (settled === ABORTED) return cancelled();
      if (!isSchema) out.push(settled as T);
      else {
        const r = settled as StandardResult<T>;
        // A result that is neither `{ value }` nor `{ issues }` is a broken validator, not a row.
        if (typeof r !== "object" || r === null || !(r.issues || "value" in r)) {
          return failure({
            message: `Cannot decode row ${i}: the validator returned neither value nor issues`,
            category: "DECODE",
          });
        }
        if (r.issues) {
          // Each issue with the field it is about (`title: Expected string`); the issues
          // themselves are the cause, for a caller that maps them onto a form.
          return failure({
            message: `Cannot decode row ${i}: ${r.issues.map(issueText).join("; ")}`,
            category: "DECODE",
            cause: r.issues,
          });
        }
        out.push(r.value);
      }
    } catch (cause) {
      return failure({
        message: `Cannot decode row ${i}: ${describeThrown(cause)}`,
        category: "DECODE",
        cause,
      });
    }
  }
  return success(out);
}

/** A Standard Schema issue as text: its path (`items.0.name`), if any, before its message. */
function issueText(
  issue: { readonly message: string; readonly path?: ReadonlyArray<unknown> | undefined },
): string {
  const path = Array.isArray(issue.path)
    ? issue.path.map((p) => String(typeof p === "object" && p !== null ? p.key : p)).join(".")
    : "";
  return path ? `${path}: ${issue.message}` : issue.message;
}
