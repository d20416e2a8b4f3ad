/**
 * Masked copies of sessions and users. A spread (`{ ...session }`) drops the
 * masking that {@linkcode withMaskedFields} installs (it is not enumerable),
 * so every changed copy of a session goes through here.
 *
 * @module
 */

import type { Session, User } from "../auth/models.ts";
import { withMaskedFields } from "../core/mask.ts";

/** The session fields masked in every rendering. */
export const SESSION_SECRETS = [
  "accessToken",
  "refreshToken",
  "providerToken",
  "providerRefreshToken",
] as const;

/** The user fields masked in every rendering. */
export const USER_SECRETS = ["email", "phone"] as const;

/** A masked copy of `user` with `changes` applied. */
export function copyUser(user: User, changes: Partial<User>): User {
  return withMaskedFields({ ...user, ...changes }, USER_SECRETS);
}

/** A masked copy of `session` with `changes` applied. */
export function copySession(session: Session, changes: Partial<Session>): Session {
  return withMaskedFields({ ...session, ...changes }, SESSION_SECRETS);
}
