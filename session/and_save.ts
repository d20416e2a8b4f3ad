/**
 * `...AndSaveSession` extensions: run the wrapped call and, on success, save
 * the session through the manager.
 *
 * @module
 */

import { sameArrival } from "../auth/_received.ts";
import type {
  AuthCallOptions,
  AuthClient,
  CaptchaOptions,
  SignInWithIdTokenOptions,
  SignUpWithEmailOptions,
  SignUpWithPhoneOptions,
  VerifyOtpOptions,
} from "../auth/client.ts";
import type { OAuthProvider, OtpType } from "../auth/enums.ts";
import type { OtpVerifyResult, Session } from "../auth/models.ts";
import type { JsonObjectInput } from "../core/decode.ts";
import { type ServiceResult, success } from "../core/result.ts";
import { AuthStateChangeEvent, type SessionManager } from "./manager.ts";
import { copySession } from "./_copy.ts";
import {
  call,
  heldSession,
  lapseRefresh,
  noSession,
  onLiveSession,
  sameSession,
  saved,
  superseded,
} from "./_held.ts";
import { untilCancelled } from "../core/_abort.ts";

/**
 * Email password sign-in, then saves the session.
 *
 * @example signInWithEmailAndSaveSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, signInWithEmailAndSaveSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await signInWithEmailAndSaveSession(auth, manager, "ada@example.com", "pw");
 * ```
 *
 * @param auth The auth client.
 * @param manager The session manager.
 * @param email The email.
 * @param password The password.
 * @param options Captcha.
 * @returns The session.
 */
export async function signInWithEmailAndSaveSession(
  auth: AuthClient,
  manager: SessionManager,
  email: string,
  password: string,
  options?: CaptchaOptions,
): Promise<ServiceResult<Session>> {
  const r = await auth.signInWithEmail(email, password, options);
  return r.ok ? await saved(manager, r.value, r, options?.signal) : r;
}

/**
 * Phone password sign-in, then saves the session.
 *
 * @example signInWithPhoneAndSaveSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, signInWithPhoneAndSaveSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await signInWithPhoneAndSaveSession(auth, manager, "+15550100", "pw");
 * ```
 *
 * @param auth The auth client.
 * @param manager The session manager.
 * @param phone The phone.
 * @param password The password.
 * @param options Captcha.
 * @returns The session.
 */
export async function signInWithPhoneAndSaveSession(
  auth: AuthClient,
  manager: SessionManager,
  phone: string,
  password: string,
  options?: CaptchaOptions,
): Promise<ServiceResult<Session>> {
  const r = await auth.signInWithPhone(phone, password, options);
  return r.ok ? await saved(manager, r.value, r, options?.signal) : r;
}

/**
 * Email sign-up; saves the session when it carries tokens (confirmation off).
 *
 * @example signUpWithEmailAndSaveSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, signUpWithEmailAndSaveSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await signUpWithEmailAndSaveSession(auth, manager, "ada@example.com", "pw");
 * ```
 *
 * @param auth The auth client.
 * @param manager The session manager.
 * @param email The email.
 * @param password The password.
 * @param options Metadata, redirect, captcha, PKCE.
 * @returns The session.
 */
export async function signUpWithEmailAndSaveSession(
  auth: AuthClient,
  manager: SessionManager,
  email: string,
  password: string,
  options?: SignUpWithEmailOptions,
): Promise<ServiceResult<Session>> {
  const r = await auth.signUpWithEmail(email, password, options);
  return r.ok && r.value.accessToken !== "" ? await saved(manager, r.value, r, options?.signal) : r;
}

/**
 * Phone sign-up; saves the session when it carries tokens.
 *
 * @example signUpWithPhoneAndSaveSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, signUpWithPhoneAndSaveSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await signUpWithPhoneAndSaveSession(auth, manager, "+15550100", "pw");
 * ```
 *
 * @param auth The auth client.
 * @param manager The session manager.
 * @param phone The phone.
 * @param password The password.
 * @param options Metadata, channel, captcha.
 * @returns The session.
 */
export async function signUpWithPhoneAndSaveSession(
  auth: AuthClient,
  manager: SessionManager,
  phone: string,
  password: string,
  options?: SignUpWithPhoneOptions,
): Promise<ServiceResult<Session>> {
  const r = await auth.signUpWithPhone(phone, password, options);
  return r.ok && r.value.accessToken !== "" ? await saved(manager, r.value, r, options?.signal) : r;
}

/**
 * Anonymous sign-in, then saves the session.
 *
 * @example signInAnonymouslyAndSaveSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, signInAnonymouslyAndSaveSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await signInAnonymouslyAndSaveSession(auth, manager);
 * ```
 *
 * @param auth The auth client.
 * @param manager The session manager.
 * @param options Metadata, captcha.
 * @returns The session.
 */
export async function signInAnonymouslyAndSaveSession(
  auth: AuthClient,
  manager: SessionManager,
  options?: CaptchaOptions & { data?: JsonObjectInput | null | undefined },
): Promise<ServiceResult<Session>> {
  const r = await auth.signInAnonymously(options);
  return r.ok ? await saved(manager, r.value, r, options?.signal) : r;
}

/**
 * id_token sign-in, then saves the session.
 *
 * @example signInWithIdTokenAndSaveSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, signInWithIdTokenAndSaveSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await signInWithIdTokenAndSaveSession(auth, manager, "apple", "id-token");
 * ```
 *
 * @param auth The auth client.
 * @param manager The session manager.
 * @param provider The provider.
 * @param idToken The id token.
 * @param options Access token, nonce, captcha.
 * @returns The session.
 */
export async function signInWithIdTokenAndSaveSession(
  auth: AuthClient,
  manager: SessionManager,
  provider: OAuthProvider | string,
  idToken: string,
  options?: SignInWithIdTokenOptions,
): Promise<ServiceResult<Session>> {
  const r = await auth.signInWithIdToken(provider, idToken, options);
  return r.ok ? await saved(manager, r.value, r, options?.signal) : r;
}

/**
 * Redeems a refresh token, then saves the session. A restore under way is
 * not waited for; given the held session's refresh token, it joins the
 * manager's one refresh (a restore's or the timer's included) at once. Given
 * another, an answer that arrives after the held session was signed out or
 * replaced by another sign-in is dropped (`Failure(CANCELLED)`), nothing saved.
 *
 * @example refreshTokenAndSaveSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, refreshTokenAndSaveSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await refreshTokenAndSaveSession(auth, manager, "refresh-token");
 * ```
 *
 * @param auth The auth client.
 * @param manager The session manager.
 * @param refreshToken The refresh token.
 * @param options Cancellation and timeout.
 * @returns The session.
 */
export async function refreshTokenAndSaveSession(
  auth: AuthClient,
  manager: SessionManager,
  refreshToken: string,
  options?: AuthCallOptions,
): Promise<ServiceResult<Session>> {
  // The manager's own token goes through its single-flight refresh: two
  // grants with one refresh token would make the server see a reuse. A restore
  // under way is not waited for: the grant needs only the token given, and the
  // restore stands down before the session it saves (waiting, the token could
  // be one the restore's refresh has just spent). A restore's refresh of this
  // token is joined at once, its answer this call's (waiting, a failed one was
  // followed by a second grant).
  options ??= {};
  const held = heldSession(manager);
  if (held !== null && held.refreshToken === refreshToken) {
    const shared = lapseRefresh.get(manager);
    return await untilCancelled(
      () => shared ? shared.refresh(true) : manager.refreshSession(),
      options.signal,
      options.timeout,
    );
  }
  const r = await auth.refreshToken(refreshToken, call(options));
  if (!r.ok) return r;
  // A sign-out or another sign-in while the grant ran is the later word, as for the manager's own
  // refresh (auth-js's commit guard): saved, the answer signed the user back in, or switched the
  // account back, as TOKEN_REFRESHED. With nothing held at the start, the answer is saved (a
  // restore under way stands down for it).
  if (held !== null && !sameSession(held, heldSession(manager))) return superseded();
  return await saved(manager, r.value, r, options?.signal, AuthStateChangeEvent.TOKEN_REFRESHED);
}

/**
 * Verifies an OTP; saves the session only for an Authenticated result (recovery codes emit PASSWORD_RECOVERY).
 *
 * @example verifyOtpAndSaveSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, verifyOtpAndSaveSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await verifyOtpAndSaveSession(auth, manager, "123456", "email", { email: "ada@example.com" });
 * ```
 *
 * @param auth The auth client.
 * @param manager The session manager.
 * @param token The code.
 * @param type The OTP type.
 * @param options Email or phone, captcha, redirect.
 * @returns The verification result.
 */
export async function verifyOtpAndSaveSession(
  auth: AuthClient,
  manager: SessionManager,
  token: string,
  type: OtpType,
  options?: VerifyOtpOptions,
): Promise<ServiceResult<OtpVerifyResult>> {
  const r = await auth.verifyOtp(token, type, options);
  if (r.ok && r.value.kind === "Authenticated") {
    return await saved(
      manager,
      r.value.session,
      r,
      options?.signal,
      type === "recovery" ? AuthStateChangeEvent.PASSWORD_RECOVERY : AuthStateChangeEvent.SIGNED_IN,
    );
  }
  return r;
}

/**
 * Verifies a token hash; saves the session only for an Authenticated result.
 *
 * @example verifyOtpWithTokenHashAndSaveSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, verifyOtpWithTokenHashAndSaveSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await verifyOtpWithTokenHashAndSaveSession(auth, manager, "hash", "magiclink");
 * ```
 *
 * @param auth The auth client.
 * @param manager The session manager.
 * @param tokenHash The token hash.
 * @param type The OTP type.
 * @param options Captcha.
 * @returns The verification result.
 */
export async function verifyOtpWithTokenHashAndSaveSession(
  auth: AuthClient,
  manager: SessionManager,
  tokenHash: string,
  type: OtpType,
  options?: CaptchaOptions,
): Promise<ServiceResult<OtpVerifyResult>> {
  const r = await auth.verifyOtpWithTokenHash(tokenHash, type, options);
  if (r.ok && r.value.kind === "Authenticated") {
    return await saved(
      manager,
      r.value.session,
      r,
      options?.signal,
      type === "recovery" ? AuthStateChangeEvent.PASSWORD_RECOVERY : AuthStateChangeEvent.SIGNED_IN,
    );
  }
  return r;
}

/**
 * Verifies an MFA challenge and saves the AAL2 session (MFA_CHALLENGE_VERIFIED).
 * It waits for a restore under way (`Loading`) and, with auto-refresh on,
 * refreshes a lapsed session before its request (a failed refresh is the
 * answer, and nothing is sent).
 *
 * @example mfaVerifyAndSaveSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, mfaVerifyAndSaveSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await mfaVerifyAndSaveSession(auth, manager, "factor", "challenge", "123456");
 * ```
 *
 * @param auth The auth client.
 * @param manager The session manager.
 * @param factorId The factor.
 * @param challengeId The challenge.
 * @param code The code.
 * @param options Cancellation and timeout.
 * @returns The AAL2 session.
 */
export function mfaVerifyAndSaveSession(
  auth: AuthClient,
  manager: SessionManager,
  factorId: string,
  challengeId: string,
  code: string,
  options?: AuthCallOptions,
): Promise<ServiceResult<Session>> {
  return onLiveSession(manager, auth.client.timeout, options ?? {}, async (options) => {
    const session = manager.currentSession;
    if (!session) return noSession(manager);
    const r = await auth.mfaVerify(session.accessToken, factorId, challengeId, code, call(options));
    if (!r.ok) return r;
    // A sign-out or another sign-in while the code was checked has the last word.
    if (!sameSession(session, heldSession(manager))) return superseded();
    // The copy keeps the answer's arrival, by which the manager measures the clocks' gap.
    const next: Session = sameArrival(
      r.value,
      copySession(r.value as Session, { providerToken: null, providerRefreshToken: null }),
    );
    return await saved(
      manager,
      next,
      success(next),
      options.signal,
      AuthStateChangeEvent.MFA_CHALLENGE_VERIFIED,
    );
  });
}
