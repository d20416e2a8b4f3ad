/**
 * A session too large for the cookies allowed: a `RangeError` whose message
 * (ours, holding no secret) the session helpers pass on, since it says what
 * to do. A storage's other errors are reported by name only.
 */
export class SessionTooLarge extends RangeError {
  override name = "RangeError";
}
