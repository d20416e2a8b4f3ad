/**
 * Maps HTTP error answers of the three services to {@linkcode ServiceError}
 * values. Pure functions over the status, headers and a bounded body excerpt.
 *
 * @module
 */

import { describeThrown } from "./_thrown.ts";
import { redactJwts } from "./_jwt_shape.ts";
import { type ErrorCategory, ServiceError } from "./result.ts";
import { parseRetryAfter } from "./retry.ts";

/**
 * The category of an HTTP status: 400 BAD_REQUEST, 401 UNAUTHORIZED,
 * 403 FORBIDDEN, 404/406/410 NOT_FOUND, 408 TIMEOUT, 409/412/423 CONFLICT,
 * 413 PAYLOAD_TOO_LARGE, 429 RATE_LIMITED, other 4xx BAD_REQUEST, 5xx SERVER,
 * 300 BAD_REQUEST (PostgREST's answer to an ambiguous embed or function),
 * anything else UNKNOWN.
 *
 * @example Mapping a status
 * ```ts
 * import { categoryForStatus } from "@fetchbase/fetchbase/core";
 *
 * console.log(categoryForStatus(406)); // NOT_FOUND
 * ```
 *
 * @param status The HTTP status.
 * @returns The category.
 */
export function categoryForStatus(status: number): ErrorCategory {
  return BY_STATUS[status] ??
    (status >= 400 && status < 600 ? (status < 500 ? "BAD_REQUEST" : "SERVER") : "UNKNOWN");
}

/** The statuses with a category of their own; other 4xx are BAD_REQUEST, 5xx SERVER. */
const BY_STATUS: Readonly<Record<number, ErrorCategory>> = {
  300: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  406: "NOT_FOUND",
  410: "NOT_FOUND",
  408: "TIMEOUT",
  409: "CONFLICT",
  412: "CONFLICT",
  423: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  429: "RATE_LIMITED",
};

/**
 * Replaces every occurrence of each secret (API key, tokens) in `text` by
 * `***`. Secrets shorter than 6 characters (GoTrue's shortest password) are
 * left alone: they cannot be told apart from ordinary words. A short secret
 * may blank part of a longer word that holds it (a password `123456` in
 * GoTrue's list of required digits): a secret shown weighs more.
 *
 * @example Redacting
 * ```ts
 * import { redactSecrets } from "@fetchbase/fetchbase/core";
 *
 * console.log(redactSecrets("bad key sb_secret_123", ["sb_secret_123"])); // bad key ***
 * ```
 *
 * @param text The text.
 * @param secrets The values to hide.
 * @returns The redacted text.
 */
export function redactSecrets(
  text: string,
  secrets: ReadonlyArray<string | null | undefined>,
): string {
  let out = text;
  for (const raw of secrets) {
    // Headers drop surrounding whitespace, so the value on the wire (and echoed back) is trimmed.
    const secret = raw?.trim();
    if (secret && secret.length >= 6) out = out.split(secret).join("***");
  }
  // Anything shaped like a JWT is a token whatever its origin.
  return redactJwts(out);
}

/**
 * An error fit to keep as a `cause`: the error itself when no secret shows
 * in its message, its stack or its causes and it has no other own
 * properties, else a copy (same `name`) with them redacted by
 * {@linkcode redactSecrets} and the other properties (a request init and its
 * headers) left out. Runtimes put the request URL, query included, in
 * network errors, and a printed error shows its causes. A thrown object that
 * is not an `Error` becomes its redacted text; causes more than 4 deep are
 * dropped.
 *
 * @example Redacting a cause
 * ```ts
 * import { redactCause } from "@fetchbase/fetchbase/core";
 *
 * const e = redactCause(new TypeError("fetch https://x/?key=sb_secret_123 failed"), ["sb_secret_123"]);
 * console.log((e as Error).message); // fetch https://x/?key=*** failed
 * ```
 *
 * @param error The error.
 * @param secrets The values to hide.
 * @param depth How many causes deep this error is (causes past 4 are dropped).
 * @returns The error, or a redacted copy.
 */
export function redactCause(
  error: unknown,
  secrets: ReadonlyArray<string | null | undefined>,
  depth = 0,
): unknown {
  if (typeof error === "string") return redactSecrets(error, secrets);
  if (error === null || (typeof error !== "object" && typeof error !== "function")) return error;
  if (depth > 4) return undefined;
  if (!(error instanceof Error)) {
    // An object may hold anything (a request init with its headers): keep only a redacted text.
    return redactSecrets(describeThrown(error), secrets);
  }
  const { message, stack, cause } = error;
  const copy = new Error(
    redactSecrets(message, secrets),
    cause === undefined ? undefined : { cause: redactCause(cause, secrets, depth + 1) },
  );
  // `Error.stack` is optional: an error without one gets none (undefined) here too.
  (copy as { stack?: string | undefined }).stack = stack && redactSecrets(stack, secrets);
  // Own properties beyond these (`options`, `request`, `config`, an AggregateError's hidden
  // `errors`, a SuppressedError's `error` and `suppressed`) can hold headers: drop them.
  const plain = Object.getOwnPropertyNames(error).every((k) =>
    /^(stack|message|cause|name|code)$/.test(k)
  );
  if (plain && copy.message === message && copy.stack === stack && copy.cause === cause) {
    return error;
  }
  copy.name = error.name;
  return copy;
}

/** GoTrue's `weak_password.reasons` (`length`, `characters`, `pwned`) as details text. */
function weakPasswordReasons(value: unknown): string | null {
  const reasons = value && typeof value === "object"
    ? (value as { reasons?: unknown }).reasons
    : null;
  return Array.isArray(reasons) && reasons.length > 0 && reasons.every((r) => typeof r === "string")
    ? reasons.join(", ")
    : null;
}

/**
 * How many characters of a non-JSON error body appear in a message.
 *
 * @example Reading the limit
 * ```ts
 * import { ERROR_EXCERPT_LENGTH } from "@fetchbase/fetchbase/core";
 *
 * console.log(ERROR_EXCERPT_LENGTH); // 200
 * ```
 */
export const ERROR_EXCERPT_LENGTH = 200;

function pickString(obj: Record<string, unknown>, ...keys: string[]) {
  for (const key of keys) {
    const v = obj[key];
    if (typeof v === "string" && v.trim() !== "") return v;
    if (Number.isFinite(v)) return String(v);
    // PostgREST sends some details as JSON (PGRST201 lists the ambiguous relationships).
    if (v && typeof v === "object") return JSON.stringify(v);
  }
  return null;
}

/** The parts of an error answer that {@linkcode errorFromResponse} reads. */
export interface ErrorResponseParts {
  /** HTTP status. */
  status: number;
  /** HTTP status text, possibly empty. */
  statusText: string;
  /** Response headers (for `Retry-After`). */
  headers: Headers;
  /** The body, already cut to a bounded length; empty when there was none. */
  body: string;
  /** Whether `body` was cut short. */
  truncated?: boolean | undefined;
}

/**
 * Builds the {@linkcode ServiceError} for an HTTP error answer. Reads GoTrue
 * (`msg`, `message`, `error_description`, `error_code`, `error`), Storage
 * (`message`, `error`, `statusCode`) and PostgREST (`message`, `code`,
 * `details`, `hint`) bodies; any other body gives the status text and a short
 * excerpt. Secrets are redacted from the message.
 *
 * @example Mapping a PostgREST error
 * ```ts
 * import { errorFromResponse } from "@fetchbase/fetchbase/core";
 *
 * const e = errorFromResponse({
 *   status: 406, statusText: "Not Acceptable", headers: new Headers(),
 *   body: '{"code":"PGRST116","message":"JSON object requested, multiple (or no) rows returned"}',
 * }, []);
 * console.log(e.category, e.code); // NOT_FOUND PGRST116
 * ```
 *
 * @param parts The answer.
 * @param secrets Values that must not appear in the message.
 * @returns The error value.
 */
export function errorFromResponse(
  parts: ErrorResponseParts,
  secrets: ReadonlyArray<string | null | undefined>,
): ServiceError {
  const { statusText, headers, body } = parts;
  let status = parts.status;
  let category = categoryForStatus(status);
  // An HTTP date is the server's clock: measured from the answer's own `Date`, a device clock far
  // from the server's does not lengthen or cut the wait.
  const sent = Date.parse(headers.get("date") ?? "");
  const retryAfterMs = parseRetryAfter(headers.get("retry-after"), sent >= 0 ? sent : undefined);
  const retryAfter = retryAfterMs === null ? null : Math.ceil(retryAfterMs / 1000);
  let message: string | null = null;
  let code: string | null = null;
  let details: string | null = null;
  let hint: string | null = null;
  let parsed: unknown = undefined;
  // A secret cut by the cap would show its prefix: a cut body loses as much of its end as the
  // longest secret is long (it is cut anyway, and only its start appears in the message).
  const cut = parts.truncated ? Math.max(0, ...secrets.map((s) => s?.length ?? 0)) : 0;
  const trimmed = body.slice(0, body.length - cut).trim();
  if (trimmed.startsWith("{") && !parts.truncated) {
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      // Not JSON: read as text.
    }
  }
  if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
    const obj = parsed as Record<string, unknown>;
    message = pickString(obj, "msg", "message", "error_description");
    const errorField = obj.error;
    if (!message && typeof errorField === "string") message = errorField;
    if (!message && errorField && typeof errorField === "object") {
      message = pickString(errorField as Record<string, unknown>, "message");
    }
    // A numeric `code` is older GoTrue's HTTP status, not an error code.
    code = pickString(obj, "error_code") ??
      (typeof obj.code === "string" && obj.code.trim() !== "" ? obj.code : null) ??
      (typeof errorField === "string" && errorField !== message ? errorField : null) ??
      // Iceberg REST: { error: { message, type: "NoSuchTableException", code: 404 } }.
      (errorField && typeof errorField === "object"
        ? pickString(errorField as Record<string, unknown>, "type")
        : null);
    details = pickString(obj, "details") ?? weakPasswordReasons(obj.weak_password);
    // The Storage API answers some errors with HTTP 400 and the real status in `statusCode`:
    // that status is the error's (a missing bucket is a 404, as the document says).
    const inner = Number(pickString(obj, "statusCode"));
    if (status === 400 && Number.isInteger(inner) && inner > 400 && inner <= 599) {
      category = categoryForStatus(status = inner);
    }
    hint = pickString(obj, "hint");
  }
  if (!message) {
    const label = `HTTP ${status}${statusText ? ` ${statusText}` : ""}`;
    if (trimmed === "") {
      message = `${label} (${parts.truncated ? "cut" : "empty"} body)`;
    } else {
      // Redact before cutting (a secret across the cut would otherwise leave its prefix) and
      // before collapsing whitespace (a secret holding a run of spaces would no longer match).
      const flat = redactSecrets(trimmed, secrets).replace(/\s+/g, " ");
      const cut = flat.length > ERROR_EXCERPT_LENGTH || parts.truncated;
      message = `${label}: ${flat.slice(0, ERROR_EXCERPT_LENGTH)}${cut ? "…" : ""}`;
    }
  }
  return new ServiceError({
    message: redactSecrets(message, secrets),
    category,
    status,
    code: code === null ? null : redactSecrets(code, secrets),
    details: details === null ? null : redactSecrets(details, secrets),
    hint: hint === null ? null : redactSecrets(hint, secrets),
    retryAfter,
  });
}
