/** Internal: a thrown value as text. */

/**
 * A thrown value as text, whatever it is: `String()` throws for objects
 * without a prototype or with a throwing `toString`. The numeric settings of
 * the transport, the client, retries and the JWKS resolver show a wrong value
 * through it too: `showValue` (`_show.ts`) says more, but those modules are in
 * every bundle, the verify-only one included.
 *
 * @param error The thrown value.
 * @returns Its message or rendering.
 */
export function describeThrown(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return typeof error;
  }
}

/**
 * A numeric setting's wrong value as its refusal shows it: a string quoted (so that
 * `timeout: "5000"` reads as the string it is), anything else as {@linkcode describeThrown} does.
 *
 * @param value The value.
 * @returns Its rendering.
 */
export function describeSetting(value: unknown): string {
  return typeof value == "string" ? `"${value}"` : describeThrown(value);
}

/**
 * Quietly settles what a listener returned: an async listener's rejection is
 * isolated like a synchronous throw, never an unhandled rejection.
 *
 * @param returned The listener's return value.
 */
export function settleQuietly(returned: unknown): void {
  if (isThenable(returned)) returned.then(undefined, () => {});
}

/**
 * Whether a callback returned a promise (or any thenable).
 *
 * @param value What it returned.
 * @returns True for a thenable.
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === "function";
}

/**
 * Throws the `RangeError` for a numeric setting that is not a non-negative number (a whole one,
 * as a byte count, with `integer`); `what` says what it is for ("create the client"). The client,
 * the transport and the JWKS resolver check their settings through it.
 *
 * @param what What the setting is for.
 * @param name The setting's name.
 * @param value Its value.
 * @param integer Whether it must be a safe integer.
 */
export function checkNonNegative(
  what: string,
  name: string,
  value: unknown,
  integer?: boolean,
): void {
  if (!(typeof value === "number" && value >= 0 && (!integer || Number.isSafeInteger(value)))) {
    throw new RangeError(
      `Cannot ${what} as '${name}' must be a non-negative ${
        integer ? "integer" : "number"
      }: current value is ${describeSetting(value)}`,
    );
  }
}
