/**
 * Each session manager's measured clock gap, for the helpers that judge a
 * held session's token by time (`getClaimsForCurrentSession`): by refresh
 * token, the server's clock minus this device's, in ms, as the manager reads
 * it now (0 when none is measured past its tolerance, or when it no longer
 * holds).
 *
 * @module
 */

import type { SessionManager } from "./manager.ts";
import { lapseRefresh } from "./_held.ts";

/**
 * The server's clock minus this device's (ms) for a manager's tokens, or 0.
 *
 * @param manager The manager.
 * @param refreshToken The session's refresh token.
 * @returns The gap.
 */
export function clockGap(manager: SessionManager, refreshToken: string): number {
  // Read through the hooks each manager registers (LapseRefresh.gap).
  return lapseRefresh.get(manager)?.gap(refreshToken) ?? 0;
}
