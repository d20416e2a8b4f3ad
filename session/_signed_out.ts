/**
 * Internal: whether a sign-out GoTrue refused finds the session ended all the same.
 *
 * @module
 */

import type { ServiceResult } from "../core/result.ts";
import { SignOutScope } from "../auth/enums.ts";

/** GoTrue codes of a session or user the server has ended. */
const ENDED: ReadonlySet<string> = new Set(["session_not_found", "user_not_found"]);

/**
 * Whether GoTrue's refusal of a sign-out with `scope` means the session is already gone: a token
 * it no longer knows (401, 403, 404) is as signed out as it gets for this device (LOCAL, as
 * auth-js reads it); for GLOBAL and OTHERS only a session GoTrue says it has ended counts
 * (`session_not_found`, `user_not_found`), since a refused token revoked nothing and a 404
 * without that code is a proxy's or a wrong route's, not GoTrue's. Kept, such a token failed
 * every sign-out again for ever.
 *
 * @param r The sign-out's answer.
 * @param scope The scope it asked for.
 * @returns Whether to take it as signed out.
 */
export function alreadySignedOut(r: ServiceResult<void>, scope: SignOutScope): boolean {
  if (r.ok) return false;
  const status = r.error.status ?? 0;
  return scope === SignOutScope.LOCAL
    ? [401, 403, 404].includes(status)
    : ENDED.has(r.error.code ?? "");
}
