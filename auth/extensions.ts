/**
 * Auth convenience extensions: standalone functions whose first parameter is
 * the {@linkcode AuthClient}; each returns what the wrapped operation returns.
 *
 * @module
 */

import type { JsonObject } from "../core/decode.ts";
import type { ServiceResult } from "../core/result.ts";
import type { AuthClient } from "./client.ts";
import { type MessagingChannel, OtpType, SignOutScope } from "./enums.ts";
import type { MfaVerifyResponse, OtpVerifyResult, Session } from "./models.ts";

/**
 * Email sign-up ({@linkcode AuthClient.signUpWithEmail}).
 *
 * @example Signing up
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, signUp } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * await signUp(auth, "ada@example.com", "correct horse", { plan: "free" });
 * ```
 *
 * @param auth The auth client.
 * @param email The email.
 * @param password The password.
 * @param data User metadata.
 * @returns The session.
 */
export function signUp(
  auth: AuthClient,
  email: string,
  password: string,
  data?: JsonObject | null,
): Promise<ServiceResult<Session>> {
  return auth.signUpWithEmail(email, password, { data });
}

/**
 * Email password sign-in ({@linkcode AuthClient.signInWithEmail}).
 *
 * @example Signing in
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, signIn } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * const s = await signIn(auth, "ada@example.com", "correct horse");
 * ```
 *
 * @param auth The auth client.
 * @param email The email.
 * @param password The password.
 * @returns The session.
 */
export function signIn(
  auth: AuthClient,
  email: string,
  password: string,
): Promise<ServiceResult<Session>> {
  return auth.signInWithEmail(email, password);
}

/**
 * Phone sign-up.
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
 * @param data User metadata.
 * @returns The session.
 */
export function signUpPhone(
  auth: AuthClient,
  phone: string,
  password: string,
  data?: JsonObject | null,
): Promise<ServiceResult<Session>> {
  return auth.signUpWithPhone(phone, password, { data });
}

/**
 * Phone password sign-in.
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
 * @returns The session.
 */
export function signInPhone(
  auth: AuthClient,
  phone: string,
  password: string,
): Promise<ServiceResult<Session>> {
  return auth.signInWithPhone(phone, password);
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
 * @returns Nothing on dispatch.
 */
export function sendOtp(auth: AuthClient, email: string): Promise<ServiceResult<void>> {
  return auth.signInWithOtp({ email });
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
 * await sendPhoneOtp(auth, "+15550100", "whatsapp");
 * ```
 *
 * @param auth The auth client.
 * @param phone The phone.
 * @param channel The delivery channel.
 * @returns Nothing on dispatch.
 */
export function sendPhoneOtp(
  auth: AuthClient,
  phone: string,
  channel?: MessagingChannel | null,
): Promise<ServiceResult<void>> {
  return auth.signInWithOtp({ phone, channel });
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
 * await resendSignUpEmailOtp(auth, "ada@example.com");
 * ```
 *
 * @param auth The auth client.
 * @param email The email.
 * @param captchaToken Captcha token.
 * @param redirectTo Redirect.
 * @returns Nothing.
 */
export function resendSignUpEmailOtp(
  auth: AuthClient,
  email: string,
  captchaToken?: string | null,
  redirectTo?: string | null,
): Promise<ServiceResult<void>> {
  return auth.resendEmailOtp(OtpType.SIGNUP, email, { captchaToken, redirectTo });
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
 * @param captchaToken Captcha token.
 * @returns Nothing.
 */
export function resendPhoneSignInOtp(
  auth: AuthClient,
  phone: string,
  captchaToken?: string | null,
): Promise<ServiceResult<void>> {
  return auth.resendPhoneOtp(OtpType.SMS, phone, { captchaToken });
}

/**
 * Verifies an email OTP.
 *
 * @example Verify
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, verifyEmailOtp } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * await verifyEmailOtp(auth, "ada@example.com", "123456", "email");
 * ```
 *
 * @param auth The auth client.
 * @param email The email.
 * @param token The code.
 * @param type The OTP type.
 * @param captchaToken Captcha token.
 * @returns The verification result.
 */
export function verifyEmailOtp(
  auth: AuthClient,
  email: string,
  token: string,
  type: OtpType,
  captchaToken?: string | null,
): Promise<ServiceResult<OtpVerifyResult>> {
  return auth.verifyOtp(token, type, { email, captchaToken });
}

/**
 * Verifies a phone OTP.
 *
 * @example Verify phone
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, verifyPhoneOtp } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * await verifyPhoneOtp(auth, "+15550100", "123456", "sms");
 * ```
 *
 * @param auth The auth client.
 * @param phone The phone.
 * @param token The code.
 * @param type The OTP type.
 * @param captchaToken Captcha token.
 * @returns The verification result.
 */
export function verifyPhoneOtp(
  auth: AuthClient,
  phone: string,
  token: string,
  type: OtpType,
  captchaToken?: string | null,
): Promise<ServiceResult<OtpVerifyResult>> {
  return auth.verifyOtp(token, type, { phone, captchaToken });
}

/**
 * Verifies an email sign-up OTP (type EMAIL).
 *
 * @example Verify sign-up
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, verifyEmailSignUpOtp } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * await verifyEmailSignUpOtp(auth, "ada@example.com", "123456");
 * ```
 *
 * @param auth The auth client.
 * @param email The email.
 * @param token The code.
 * @param captchaToken Captcha token.
 * @returns The verification result.
 */
export function verifyEmailSignUpOtp(
  auth: AuthClient,
  email: string,
  token: string,
  captchaToken?: string | null,
): Promise<ServiceResult<OtpVerifyResult>> {
  return verifyEmailOtp(auth, email, token, OtpType.EMAIL, captchaToken);
}

/**
 * Verifies a phone sign-in OTP (type SMS).
 *
 * @example Verify SMS
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, verifyPhoneSignInOtp } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * await verifyPhoneSignInOtp(auth, "+15550100", "123456");
 * ```
 *
 * @param auth The auth client.
 * @param phone The phone.
 * @param token The code.
 * @param captchaToken Captcha token.
 * @returns The verification result.
 */
export function verifyPhoneSignInOtp(
  auth: AuthClient,
  phone: string,
  token: string,
  captchaToken?: string | null,
): Promise<ServiceResult<OtpVerifyResult>> {
  return verifyPhoneOtp(auth, phone, token, OtpType.SMS, captchaToken);
}

/**
 * Verifies an email token hash.
 *
 * @example Token hash
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, verifyEmailOtpWithTokenHash } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * await verifyEmailOtpWithTokenHash(auth, "pkce_abc", "magiclink");
 * ```
 *
 * @param auth The auth client.
 * @param tokenHash The token hash.
 * @param type The OTP type.
 * @param captchaToken Captcha token.
 * @returns The verification result.
 */
export function verifyEmailOtpWithTokenHash(
  auth: AuthClient,
  tokenHash: string,
  type: OtpType,
  captchaToken?: string | null,
): Promise<ServiceResult<OtpVerifyResult>> {
  return auth.verifyOtpWithTokenHash(tokenHash, type, { captchaToken });
}

/**
 * Sends a password-recovery email.
 *
 * @example Recovery
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient, forgotPassword } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * await forgotPassword(auth, "ada@example.com", "https://app.example/reset");
 * ```
 *
 * @param auth The auth client.
 * @param email The email.
 * @param redirectTo Redirect.
 * @param captchaToken Captcha token.
 * @returns Nothing on dispatch.
 */
export function forgotPassword(
  auth: AuthClient,
  email: string,
  redirectTo?: string | null,
  captchaToken?: string | null,
): Promise<ServiceResult<void>> {
  return auth.resetPasswordForEmail(email, { redirectTo, captchaToken });
}

/**
 * Signs out everywhere (scope GLOBAL).
 *
 * @example Global sign-out
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
 * @returns Nothing.
 */
export function signOutGlobal(auth: AuthClient, accessToken: string): Promise<ServiceResult<void>> {
  return auth.signOut(accessToken, { scope: SignOutScope.GLOBAL });
}

/**
 * Signs out this session (scope LOCAL).
 *
 * @example Local sign-out
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
 * @returns Nothing.
 */
export function signOutLocal(auth: AuthClient, accessToken: string): Promise<ServiceResult<void>> {
  return auth.signOut(accessToken, { scope: SignOutScope.LOCAL });
}

/**
 * Signs out every other session (scope OTHERS).
 *
 * @example Other sessions
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
 * @returns Nothing.
 */
export function signOutOthers(auth: AuthClient, accessToken: string): Promise<ServiceResult<void>> {
  return auth.signOut(accessToken, { scope: SignOutScope.OTHERS });
}

/**
 * Challenges a factor and verifies the code in one call.
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
 * @returns The AAL2 session.
 */
export async function mfaChallengeAndVerify(
  auth: AuthClient,
  factorId: string,
  code: string,
  accessToken: string,
): Promise<ServiceResult<MfaVerifyResponse>> {
  const challenge = await auth.mfaChallenge(accessToken, factorId);
  if (!challenge.ok) return challenge;
  return auth.mfaVerify(accessToken, factorId, challenge.value.id, code);
}
