/**
 * Auth convenience extensions: standalone functions whose first parameter is
 * the {@linkcode AuthClient}; each returns what the wrapped operation returns.
 * Optional parameters go in a trailing options object under the document's
 * names, with `signal` (a cancelled call resolves `Failure(CANCELLED)`).
 *
 * @module
 */

import type { JsonObjectInput } from "../core/decode.ts";
import type { ServiceResult } from "../core/result.ts";
import { deadline } from "../core/_deadline.ts";
import type { AuthCallOptions } from "./_request.ts";
import type { AuthClient } from "./client.ts";
import { type MessagingChannel, OtpType, SignOutScope } from "./enums.ts";
import type { MfaVerifyResponse, OtpVerifyResult, Session } from "./models.ts";

/** Options of the extensions that take a captcha token. */
export interface ExtensionCaptchaOptions extends AuthCallOptions {
  /** Captcha token. */
  captchaToken?: string | null | undefined;
}

/** Options of {@linkcode signUp} and {@linkcode signUpPhone}. */
export interface ExtensionSignUpOptions extends AuthCallOptions {
  /** User metadata. */
  data?: JsonObjectInput | null | undefined;
}

/** Options of {@linkcode resendSignUpEmailOtp} and {@linkcode forgotPassword}. */
export interface ExtensionRedirectOptions extends ExtensionCaptchaOptions {
  /** Where the email's link leads. */
  redirectTo?: string | null | undefined;
}

/**
 * Email sign-up ({@linkcode AuthClient.signUpWithEmail}).
 *
 * @example Signing up
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, signUp } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * await signUp(auth, "ada@example.com", "correct horse", { data: { plan: "free" } });
 * ```
 *
 * @param auth The auth client.
 * @param email The email.
 * @param password The password.
 * @param options User metadata (`data`) and cancellation.
 * @returns The session.
 */
export function signUp(
  auth: AuthClient,
  email: string,
  password: string,
  options?: ExtensionSignUpOptions,
): Promise<ServiceResult<Session>> {
  options ??= {};
  return auth.signUpWithEmail(email, password, options);
}

/**
 * Email and password sign-in ({@linkcode AuthClient.signInWithEmail}).
 *
 * @example Signing in
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, signIn } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * const session = await signIn(auth, "ada@example.com", "correct horse");
 * ```
 *
 * @param auth The auth client.
 * @param email The email.
 * @param password The password.
 * @param options Cancellation.
 * @returns The session.
 */
export function signIn(
  auth: AuthClient,
  email: string,
  password: string,
  options?: AuthCallOptions,
): Promise<ServiceResult<Session>> {
  options ??= {};
  return auth.signInWithEmail(email, password, options);
}

/**
 * Phone sign-up ({@linkcode AuthClient.signUpWithPhone}).
 *
 * @example Phone sign-up
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, signUpPhone } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * await signUpPhone(auth, "+15550100", "correct horse");
 * ```
 *
 * @param auth The auth client.
 * @param phone The phone.
 * @param password The password.
 * @param options User metadata (`data`) and cancellation.
 * @returns The session.
 */
export function signUpPhone(
  auth: AuthClient,
  phone: string,
  password: string,
  options?: ExtensionSignUpOptions,
): Promise<ServiceResult<Session>> {
  options ??= {};
  return auth.signUpWithPhone(phone, password, options);
}

/**
 * Phone and password sign-in ({@linkcode AuthClient.signInWithPhone}).
 *
 * @example Phone sign-in
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, signInPhone } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * await signInPhone(auth, "+15550100", "correct horse");
 * ```
 *
 * @param auth The auth client.
 * @param phone The phone.
 * @param password The password.
 * @param options Cancellation.
 * @returns The session.
 */
export function signInPhone(
  auth: AuthClient,
  phone: string,
  password: string,
  options?: AuthCallOptions,
): Promise<ServiceResult<Session>> {
  options ??= {};
  return auth.signInWithPhone(phone, password, options);
}

/**
 * Sends an email OTP or magic link.
 *
 * @example Magic link
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, sendOtp } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * await sendOtp(auth, "ada@example.com");
 * ```
 *
 * @param auth The auth client.
 * @param email The email.
 * @param options Cancellation.
 * @returns Nothing on dispatch.
 */
export function sendOtp(
  auth: AuthClient,
  email: string,
  options?: AuthCallOptions,
): Promise<ServiceResult<void>> {
  options ??= {};
  return auth.signInWithOtp({ ...options, email });
}

/**
 * Sends a phone OTP.
 *
 * @example SMS code
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, sendPhoneOtp } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * await sendPhoneOtp(auth, "+15550100", { channel: "whatsapp" });
 * ```
 *
 * @param auth The auth client.
 * @param phone The phone.
 * @param options The delivery `channel` and cancellation.
 * @returns Nothing on dispatch.
 */
export function sendPhoneOtp(
  auth: AuthClient,
  phone: string,
  options?: AuthCallOptions & { channel?: MessagingChannel | null | undefined },
): Promise<ServiceResult<void>> {
  options ??= {};
  return auth.signInWithOtp({ ...options, phone });
}

/**
 * Resends the sign-up email. The document names type EMAIL; GoTrue's
 * `/resend` takes only `signup`, `email_change`, `sms` and `phone_change`
 * (400 otherwise), so the wire type is `signup`, as auth-js sends.
 *
 * @example Resend
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, resendSignUpEmailOtp } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * await resendSignUpEmailOtp(auth, "ada@example.com", { redirectTo: "https://app.example" });
 * ```
 *
 * @param auth The auth client.
 * @param email The email.
 * @param options `captchaToken`, `redirectTo` and cancellation.
 * @returns Nothing.
 */
export function resendSignUpEmailOtp(
  auth: AuthClient,
  email: string,
  options?: ExtensionRedirectOptions,
): Promise<ServiceResult<void>> {
  options ??= {};
  return auth.resendEmailOtp(OtpType.SIGNUP, email, options);
}

/**
 * Resends the phone sign-in code (type SMS).
 *
 * @example Resend SMS
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, resendPhoneSignInOtp } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * await resendPhoneSignInOtp(auth, "+15550100");
 * ```
 *
 * @param auth The auth client.
 * @param phone The phone.
 * @param options `captchaToken` and cancellation.
 * @returns Nothing.
 */
export function resendPhoneSignInOtp(
  auth: AuthClient,
  phone: string,
  options?: ExtensionCaptchaOptions,
): Promise<ServiceResult<void>> {
  options ??= {};
  return auth.resendPhoneOtp(OtpType.SMS, phone, options);
}

/**
 * Verifies an email OTP of any type.
 *
 * @example Verify
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, verifyEmailOtp } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * const r = await verifyEmailOtp(auth, "ada@example.com", "123456", "email");
 * ```
 *
 * @param auth The auth client.
 * @param email The email.
 * @param token The code.
 * @param type The OTP type.
 * @param options `captchaToken` and cancellation.
 * @returns The verification result.
 */
export function verifyEmailOtp(
  auth: AuthClient,
  email: string,
  token: string,
  type: OtpType,
  options?: ExtensionCaptchaOptions,
): Promise<ServiceResult<OtpVerifyResult>> {
  options ??= {};
  return auth.verifyOtp(token, type, { ...options, email });
}

/**
 * Verifies a phone OTP of any type.
 *
 * @example Verify SMS
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, verifyPhoneOtp } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * const r = await verifyPhoneOtp(auth, "+15550100", "123456", "sms");
 * ```
 *
 * @param auth The auth client.
 * @param phone The phone.
 * @param token The code.
 * @param type The OTP type.
 * @param options `captchaToken` and cancellation.
 * @returns The verification result.
 */
export function verifyPhoneOtp(
  auth: AuthClient,
  phone: string,
  token: string,
  type: OtpType,
  options?: ExtensionCaptchaOptions,
): Promise<ServiceResult<OtpVerifyResult>> {
  options ??= {};
  return auth.verifyOtp(token, type, { ...options, phone });
}

/**
 * Verifies the email sign-up code (type EMAIL).
 *
 * @example Confirm sign-up
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, verifyEmailSignUpOtp } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * const r = await verifyEmailSignUpOtp(auth, "ada@example.com", "123456");
 * ```
 *
 * @param auth The auth client.
 * @param email The email.
 * @param token The code.
 * @param options `captchaToken` and cancellation.
 * @returns The verification result.
 */
export function verifyEmailSignUpOtp(
  auth: AuthClient,
  email: string,
  token: string,
  options?: ExtensionCaptchaOptions,
): Promise<ServiceResult<OtpVerifyResult>> {
  options ??= {};
  return verifyEmailOtp(auth, email, token, OtpType.EMAIL, options);
}

/**
 * Verifies the phone sign-in code (type SMS).
 *
 * @example Confirm SMS
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, verifyPhoneSignInOtp } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * const r = await verifyPhoneSignInOtp(auth, "+15550100", "123456");
 * ```
 *
 * @param auth The auth client.
 * @param phone The phone.
 * @param token The code.
 * @param options `captchaToken` and cancellation.
 * @returns The verification result.
 */
export function verifyPhoneSignInOtp(
  auth: AuthClient,
  phone: string,
  token: string,
  options?: ExtensionCaptchaOptions,
): Promise<ServiceResult<OtpVerifyResult>> {
  options ??= {};
  return verifyPhoneOtp(auth, phone, token, OtpType.SMS, options);
}

/**
 * Verifies an email link's token hash ({@linkcode AuthClient.verifyOtpWithTokenHash}).
 *
 * @example Token hash from a link
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, verifyEmailOtpWithTokenHash } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * const r = await verifyEmailOtpWithTokenHash(auth, "hash-from-link", "magiclink");
 * ```
 *
 * @param auth The auth client.
 * @param tokenHash The token hash.
 * @param type The OTP type.
 * @param options `captchaToken` and cancellation.
 * @returns The verification result.
 */
export function verifyEmailOtpWithTokenHash(
  auth: AuthClient,
  tokenHash: string,
  type: OtpType,
  options?: ExtensionCaptchaOptions,
): Promise<ServiceResult<OtpVerifyResult>> {
  options ??= {};
  return auth.verifyOtpWithTokenHash(tokenHash, type, options);
}

/**
 * Sends a password recovery email ({@linkcode AuthClient.resetPasswordForEmail}).
 *
 * @example Recovery
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, forgotPassword } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * await forgotPassword(auth, "ada@example.com", { redirectTo: "https://app.example/reset" });
 * ```
 *
 * @param auth The auth client.
 * @param email The email.
 * @param options `redirectTo`, `captchaToken` and cancellation.
 * @returns Nothing.
 */
export function forgotPassword(
  auth: AuthClient,
  email: string,
  options?: ExtensionRedirectOptions,
): Promise<ServiceResult<void>> {
  options ??= {};
  return auth.resetPasswordForEmail(email, options);
}

/**
 * Signs out every session of the user.
 *
 * @example Signing out everywhere
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, signOutGlobal } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * await signOutGlobal(auth, "access-token");
 * ```
 *
 * @param auth The auth client.
 * @param accessToken The access token.
 * @param options Cancellation.
 * @returns Nothing.
 */
export function signOutGlobal(
  auth: AuthClient,
  accessToken: string,
  options?: AuthCallOptions,
): Promise<ServiceResult<void>> {
  options ??= {};
  return auth.signOut(accessToken, { ...options, scope: SignOutScope.GLOBAL });
}

/**
 * Signs out this session only. A token that names no GoTrue session (no `session_id`) has none to
 * end: nothing is sent, where GoTrue would end every session of the user.
 *
 * @example Signing out this session
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, signOutLocal } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * await signOutLocal(auth, "access-token");
 * ```
 *
 * @param auth The auth client.
 * @param accessToken The access token.
 * @param options Cancellation.
 * @returns Nothing.
 */
export function signOutLocal(
  auth: AuthClient,
  accessToken: string,
  options?: AuthCallOptions,
): Promise<ServiceResult<void>> {
  options ??= {};
  return auth.signOut(accessToken, { ...options, scope: SignOutScope.LOCAL });
}

/**
 * Signs out every other session of the user.
 *
 * @example Signing out the other sessions
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, signOutOthers } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * await signOutOthers(auth, "access-token");
 * ```
 *
 * @param auth The auth client.
 * @param accessToken The access token.
 * @param options Cancellation.
 * @returns Nothing.
 */
export function signOutOthers(
  auth: AuthClient,
  accessToken: string,
  options?: AuthCallOptions,
): Promise<ServiceResult<void>> {
  options ??= {};
  return auth.signOut(accessToken, { ...options, scope: SignOutScope.OTHERS });
}

/**
 * Challenges a factor and verifies the code in one call. The call's `timeout` (the client's by
 * default) bounds both requests: the verify gets what the challenge left.
 *
 * @example TOTP step-up
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, mfaChallengeAndVerify } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * const aal2 = await mfaChallengeAndVerify(auth, "factor-id", "123456", "access-token");
 * ```
 *
 * @param auth The auth client.
 * @param factorId The factor.
 * @param code The code.
 * @param accessToken The access token.
 * @param options Cancellation and the timeout of the whole call.
 * @returns The AAL2 session.
 */
export async function mfaChallengeAndVerify(
  auth: AuthClient,
  factorId: string,
  code: string,
  accessToken: string,
  options?: AuthCallOptions,
): Promise<ServiceResult<MfaVerifyResponse>> {
  options ??= {};
  // One deadline: the verify gets what the challenge left of the call's timeout.
  const within = deadline(options.timeout, auth.client.timeout);
  const challenge = await auth.mfaChallenge(accessToken, factorId, options);
  if (!challenge.ok) return challenge;
  const id = challenge.value.id;
  return within((timeout) =>
    auth.mfaVerify(accessToken, factorId, id, code, { ...options, timeout })
  );
}
