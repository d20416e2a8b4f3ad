/**
 * Each session manager's measured clock gaps, for the helpers that judge a
 * held session's token by time (`getClaimsForCurrentSession`): by refresh
 * token, the server's clock minus this device's, in ms (only gaps past the
 * manager's tolerance are kept).
 *
 * @module
 */

const GAPS = new WeakMap<object, ReadonlyMap<string, number>>();

/**
 * Registers a manager's map of gaps.
 *
 * @param manager The manager.
 * @param gaps Its gaps by refresh token (kept live: the manager updates it).
 */
export function registerClockGaps(manager: object, gaps: ReadonlyMap<string, number>): void {
  GAPS.set(manager, gaps);
}

/**
 * The server's clock minus this device's (ms) for a manager's tokens, or 0.
 *
 * @param manager The manager.
 * @param refreshToken The session's refresh token.
 * @returns The gap.
 */
export function clockGap(manager: object, refreshToken: string): number {
  return GAPS.get(manager)?.get(refreshToken) ?? 0;
}
