/**
 * The result type every asynchronous fetchbase operation resolves to.
 *
 * Operations never reject: HTTP errors, transport faults and decode problems
 * arrive as a {@linkcode Failure} carrying a {@linkcode ServiceError}.
 *
 * @module
 */

/**
 * The kind of a {@linkcode ServiceError}. Values are the strings themselves.
 *
 * @example Branching on a category
 * ```ts
 * import { ErrorCategory, type ServiceError } from "@fetchbase/fetchbase/core";
 *
 * function isTransient(error: ServiceError): boolean {
 *   return error.category === ErrorCategory.NETWORK ||
 *     error.category === ErrorCategory.SERVER;
 * }
 * ```
 */
export const ErrorCategory = {
  /** The request never got an HTTP answer (DNS, connection reset, CORS). */
  NETWORK: "NETWORK",
  /** The call's timeout elapsed (or the server answered 408). */
  TIMEOUT: "TIMEOUT",
  /** The caller's `AbortSignal` fired. */
  CANCELLED: "CANCELLED",
  /** HTTP 400, 422 and other client errors without a closer category. */
  BAD_REQUEST: "BAD_REQUEST",
  /** HTTP 401. */
  UNAUTHORIZED: "UNAUTHORIZED",
  /** HTTP 403. */
  FORBIDDEN: "FORBIDDEN",
  /** HTTP 404, 406 and 410. */
  NOT_FOUND: "NOT_FOUND",
  /** HTTP 409, 412 and 423. */
  CONFLICT: "CONFLICT",
  /** HTTP 413. */
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  /** HTTP 429. */
  RATE_LIMITED: "RATE_LIMITED",
  /** HTTP 5xx. */
  SERVER: "SERVER",
  /** A response body that does not decode to the expected shape. */
  DECODE: "DECODE",
  /** An argument the library refused before sending anything. */
  INVALID_ARGUMENT: "INVALID_ARGUMENT",
  /** A session-aware helper was called without an active session. */
  NO_SESSION: "NO_SESSION",
  /** Anything else. */
  UNKNOWN: "UNKNOWN",
} as const;

/** One of the {@linkcode ErrorCategory} values. */
export type ErrorCategory = typeof ErrorCategory[keyof typeof ErrorCategory];

/** Fields accepted by the {@linkcode ServiceError} constructor. */
export interface ServiceErrorInit {
  /** Human-readable message; never contains a token or API key. */
  message: string;
  /** The error's kind. */
  category: ErrorCategory;
  /** HTTP status when the server answered. */
  status?: number | null | undefined;
  /** The server's error code (`error_code`, `code`, `error`) when it sent one. */
  code?: string | null | undefined;
  /** PostgREST `details`, when sent. */
  details?: string | null | undefined;
  /** PostgREST `hint`, when sent. */
  hint?: string | null | undefined;
  /** Seconds the server asked to wait (`Retry-After`), when sent. */
  retryAfter?: number | null | undefined;
  /** The underlying error, if any. */
  cause?: unknown;
}

/**
 * A failure described as a value.
 *
 * @example Reading an error
 * ```ts
 * import { ServiceError } from "@fetchbase/fetchbase/core";
 *
 * const error = new ServiceError({ message: "Bucket not found", category: "NOT_FOUND", status: 404 });
 * console.log(error.category, error.status); // NOT_FOUND 404
 * ```
 */
export class ServiceError {
  // Declared only: the constructor sets each, in this order (no field is emitted before it).
  /** Human-readable message; never contains a token or API key. */
  declare readonly message: string;
  /** The error's kind. */
  declare readonly category: ErrorCategory;
  /** HTTP status when the server answered, else null. */
  declare readonly status: number | null;
  /** The server's error code when it sent one, else null. */
  declare readonly code: string | null;
  /** PostgREST `details`, else null. */
  declare readonly details: string | null;
  /** PostgREST `hint`, else null. */
  declare readonly hint: string | null;
  /** Seconds the server asked to wait before retrying, else null. */
  declare readonly retryAfter: number | null;
  /** The underlying error, if any. */
  declare readonly cause: unknown;

  /**
   * Builds an error value.
   *
   * @param init The error's fields.
   */
  constructor(init: ServiceErrorInit) {
    this.message = init.message;
    this.category = init.category;
    this.status = init.status ?? null;
    this.code = init.code ?? null;
    this.details = init.details ?? null;
    this.hint = init.hint ?? null;
    this.retryAfter = init.retryAfter ?? null;
    this.cause = init.cause;
  }

  /**
   * Renders the error as `category (status code): message`.
   *
   * @returns The rendering.
   */
  toString(): string {
    const parts = [this.status, this.code].filter((p) => p !== null);
    const where = parts.length > 0 ? ` (${parts.join(" ")})` : "";
    return `${this.category}${where}: ${this.message}`;
  }
}

/**
 * The exception thrown by `...OrThrow` helpers and {@linkcode Failure.getOrThrow}; its
 * `error` field holds the {@linkcode ServiceError}.
 *
 * @example Catching a thrown result
 * ```ts
 * import { failure, ServiceException } from "@fetchbase/fetchbase/core";
 *
 * try {
 *   failure({ message: "nope", category: "FORBIDDEN" }).getOrThrow();
 * } catch (e) {
 *   if (e instanceof ServiceException) console.log(e.error.category); // FORBIDDEN
 * }
 * ```
 */
export class ServiceException extends Error {
  /** The error value. */
  declare readonly error: ServiceError;

  /**
   * Wraps an error value.
   *
   * @param error The error value.
   */
  constructor(error: ServiceError) {
    super(error.message, { cause: error.cause });
    this.name = "ServiceException";
    this.error = error;
  }
}

/**
 * The successful arm of {@linkcode ServiceResult}.
 *
 * @example Narrowing a result
 * ```ts
 * import { success, type ServiceResult } from "@fetchbase/fetchbase/core";
 *
 * const r: ServiceResult<number> = success(41);
 * if (r.ok) console.log(r.value + 1); // 42
 * ```
 */
export class Success<T> {
  /** Discriminant: always `true`. */
  readonly ok: true = true;
  /** The value. */
  declare readonly value: T;

  /**
   * Wraps a value.
   *
   * @param value The value.
   */
  constructor(value: T) {
    this.value = value;
  }

  /**
   * Returns the value.
   *
   * @returns The value.
   */
  getOrNull(): T {
    return this.value;
  }

  /**
   * Returns the value.
   *
   * @returns The value.
   */
  getOrThrow(): T {
    return this.value;
  }

  /**
   * Returns null: a success has no error.
   *
   * @returns Always null.
   */
  errorOrNull(): null {
    return null;
  }

  /**
   * Transforms the value.
   *
   * @param fn The transformation.
   * @returns A success holding `fn(value)`.
   */
  map<U>(fn: (value: T) => U): Success<U> {
    // Not `new Success` inside the class: a bundler then names the class `_Success` for its own
    // binding, and results print as `_Success { … }`.
    return success(fn(this.value));
  }
}

/**
 * The failing arm of {@linkcode ServiceResult}.
 *
 * @example Reading a failure
 * ```ts
 * import { failure } from "@fetchbase/fetchbase/core";
 *
 * const r = failure({ message: "gone", category: "NOT_FOUND", status: 404 });
 * console.log(r.ok, r.error.status); // false 404
 * ```
 */
export class Failure {
  /** Discriminant: always `false`. */
  readonly ok: false = false;
  /** The error value. */
  declare readonly error: ServiceError;

  /**
   * Wraps an error value.
   *
   * @param error The error value.
   */
  constructor(error: ServiceError) {
    this.error = error;
  }

  /**
   * Returns null: a failure has no value.
   *
   * @returns Always null.
   */
  getOrNull(): null {
    return null;
  }

  /**
   * Throws the error as a {@linkcode ServiceException}.
   *
   * @returns Never returns.
   */
  getOrThrow(): never {
    throw new ServiceException(this.error);
  }

  /**
   * Returns the error value.
   *
   * @returns The error value.
   */
  errorOrNull(): ServiceError {
    return this.error;
  }

  /**
   * Returns this failure unchanged.
   *
   * @param _fn Ignored.
   * @returns This failure.
   */
  map<U>(_fn: (value: never) => U): Failure {
    return this;
  }
}

/**
 * `Success<T>` or `Failure`; narrow with `if (result.ok)`.
 *
 * @example Handling both arms
 * ```ts
 * import type { ServiceResult } from "@fetchbase/fetchbase/core";
 *
 * function show(r: ServiceResult<string>): string {
 *   return r.ok ? r.value : `error: ${r.error.message}`;
 * }
 * ```
 */
export type ServiceResult<T> = Success<T> | Failure;

/**
 * Builds a {@linkcode Success}.
 *
 * @example Wrapping a value
 * ```ts
 * import { success } from "@fetchbase/fetchbase/core";
 *
 * console.log(success("x").value); // x
 * ```
 *
 * @param value The value.
 * @returns The success.
 */
export function success<T>(value: T): Success<T> {
  return new Success(value);
}

/**
 * Builds a {@linkcode Failure} from an error value or its fields.
 *
 * @example Building a failure
 * ```ts
 * import { failure } from "@fetchbase/fetchbase/core";
 *
 * const r = failure({ message: "No active session", category: "NO_SESSION" });
 * console.log(r.error.message);
 * ```
 *
 * @param error The error value or its fields.
 * @returns The failure.
 */
export function failure(error: ServiceError | ServiceErrorInit): Failure {
  return new Failure(
    error instanceof ServiceError ? error : new ServiceError(error),
  );
}
