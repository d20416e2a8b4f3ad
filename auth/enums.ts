/**
 * Auth enumerations as `as const` objects whose values are the wire strings.
 *
 * @module
 */

/**
 * OAuth providers (17); constants are the upper-case wire value, except
 * `LINKEDIN` = `linkedin_oidc`.
 *
 * @example A provider
 * ```ts
 * import { OAuthProvider } from "@fetchbase/fetchbase/auth";
 *
 * console.log(OAuthProvider.LINKEDIN); // linkedin_oidc
 * ```
 */
export const OAuthProvider = {
  GOOGLE: "google",
  APPLE: "apple",
  GITHUB: "github",
  GITLAB: "gitlab",
  BITBUCKET: "bitbucket",
  DISCORD: "discord",
  FACEBOOK: "facebook",
  TWITTER: "twitter",
  SLACK: "slack",
  SPOTIFY: "spotify",
  TWITCH: "twitch",
  AZURE: "azure",
  KEYCLOAK: "keycloak",
  LINKEDIN: "linkedin_oidc",
  NOTION: "notion",
  ZOOM: "zoom",
  FIGMA: "figma",
} as const;
/** One of the {@linkcode OAuthProvider} values. */
export type OAuthProvider = typeof OAuthProvider[keyof typeof OAuthProvider];

/**
 * One-time-password kinds.
 *
 * @example Email OTP
 * ```ts
 * import { OtpType } from "@fetchbase/fetchbase/auth";
 *
 * console.log(OtpType.EMAIL); // email
 * ```
 */
export const OtpType = {
  SMS: "sms",
  EMAIL: "email",
  RECOVERY: "recovery",
  INVITE: "invite",
  EMAIL_CHANGE: "email_change",
  PHONE_CHANGE: "phone_change",
  SIGNUP: "signup",
  MAGIC_LINK: "magiclink",
} as const;
/** One of the {@linkcode OtpType} values. */
export type OtpType = typeof OtpType[keyof typeof OtpType];

/**
 * How a phone code is delivered (SMS is the server default).
 *
 * @example WhatsApp
 * ```ts
 * import { MessagingChannel } from "@fetchbase/fetchbase/auth";
 *
 * console.log(MessagingChannel.WHATSAPP); // whatsapp
 * ```
 */
export const MessagingChannel = { SMS: "sms", WHATSAPP: "whatsapp" } as const;
/** One of the {@linkcode MessagingChannel} values. */
export type MessagingChannel = typeof MessagingChannel[keyof typeof MessagingChannel];

/**
 * Which sessions a sign-out revokes.
 *
 * @example Everywhere
 * ```ts
 * import { SignOutScope } from "@fetchbase/fetchbase/auth";
 *
 * console.log(SignOutScope.GLOBAL); // global
 * ```
 */
export const SignOutScope = { GLOBAL: "global", LOCAL: "local", OTHERS: "others" } as const;
/** One of the {@linkcode SignOutScope} values. */
export type SignOutScope = typeof SignOutScope[keyof typeof SignOutScope];

/**
 * MFA factor types; `UNKNOWN` for anything else the server sends.
 *
 * @example TOTP
 * ```ts
 * import { MfaFactorType } from "@fetchbase/fetchbase/auth";
 *
 * console.log(MfaFactorType.TOTP); // totp
 * ```
 */
export const MfaFactorType = {
  TOTP: "totp",
  PHONE: "phone",
  WEBAUTHN: "webauthn",
  UNKNOWN: "unknown",
} as const;
/** One of the {@linkcode MfaFactorType} values. */
export type MfaFactorType = typeof MfaFactorType[keyof typeof MfaFactorType];

/**
 * MFA factor states; `UNKNOWN` for anything else.
 *
 * @example Verified
 * ```ts
 * import { MfaFactorStatus } from "@fetchbase/fetchbase/auth";
 *
 * console.log(MfaFactorStatus.VERIFIED); // verified
 * ```
 */
export const MfaFactorStatus = {
  VERIFIED: "verified",
  UNVERIFIED: "unverified",
  UNKNOWN: "unknown",
} as const;
/** One of the {@linkcode MfaFactorStatus} values. */
export type MfaFactorStatus = typeof MfaFactorStatus[keyof typeof MfaFactorStatus];

/**
 * Authenticator assurance levels (the `aal` claim).
 *
 * @example AAL2
 * ```ts
 * import { AuthenticatorAssuranceLevel } from "@fetchbase/fetchbase/auth";
 *
 * console.log(AuthenticatorAssuranceLevel.AAL2); // aal2
 * ```
 */
export const AuthenticatorAssuranceLevel = { AAL1: "aal1", AAL2: "aal2" } as const;
/** One of the {@linkcode AuthenticatorAssuranceLevel} values. */
export type AuthenticatorAssuranceLevel =
  typeof AuthenticatorAssuranceLevel[keyof typeof AuthenticatorAssuranceLevel];

/**
 * Web3 chains for wallet sign-in.
 *
 * @example Solana
 * ```ts
 * import { Web3Chain } from "@fetchbase/fetchbase/auth";
 *
 * console.log(Web3Chain.SOLANA); // solana
 * ```
 */
export const Web3Chain = { ETHEREUM: "ethereum", SOLANA: "solana" } as const;
/** One of the {@linkcode Web3Chain} values. */
export type Web3Chain = typeof Web3Chain[keyof typeof Web3Chain];
