/**
 * Each session manager's measured clock gap, for the helpers that judge a
 * held session's token by time (`getClaimsForCurrentSession`): by refresh
 * token, the server's clock minus this device's, in ms, as the manager reads
 * it now (0 when none is measured past its tolerance, or when it no longer
 * holds).
 *
 * @module
 */

const GAPS = new WeakMap<object, (refreshToken: string) => number>();

/**
 * Registers how a manager reads its gaps.
 *
 * @param manager The manager.
 * @param gap Its gap for a refresh token's session.
 */
export function registerClockGaps(manager: object, gap: (refreshToken: string) => number): void {
  GAPS.set(manager, gap);
}

/**
 * The server's clock minus this device's (ms) for a manager's tokens, or 0.
 *
 * @param manager The manager.
 * @param refreshToken The session's refresh token.
 * @returns The gap.
 */
export function clockGap(manager: object, refreshToken: string): number {
  return GAPS.get(manager)?.(refreshToken) ?? 0;
}
