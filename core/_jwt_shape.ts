/**
 * Internal: finding text shaped like a JWT (three base64url parts, the first
 * a JSON object), which the transport redacts from failures and error
 * messages never echo.
 *
 * @module
 */

/**
 * A JWT-shaped run, or an `eyJ` run without the two dots, which matches too
 * and is kept: the scan then resumes after it. Linear, where restarting at
 * each `eyJ` of a long run (an echoed `eyJeyJ…`) took quadratic time.
 */
const JWT_SHAPED = /eyJ[\w-]{4,}(\.[\w-]{4,}\.[\w-]*)?/g;

/**
 * `text` with every JWT-shaped run replaced by `***`, whatever precedes it
 * (`%3DeyJ…`).
 *
 * @param text The text.
 * @returns The redacted text.
 */
export function redactJwts(text: string): string {
  return text.replace(JWT_SHAPED, (run, rest) => rest ? "***" : run);
}
