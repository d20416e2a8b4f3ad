/**
 * Auth models with tolerant decoders (unknown keys ignored, nullable fields
 * null, defaults applied, unknown enum values `UNKNOWN`) and masked textual
 * rendering of tokens, secrets, passwords, names and emails.
 *
 * @module
 */

import {
  asObject,
  enumValue,
  type JsonObject,
  type JsonObjectInput,
  optArray,
  optBoolean,
  optNumber,
  optObject,
  optString,
  reqString,
} from "../core/decode.ts";
import { withMaskedFields } from "../core/mask.ts";
import {
  type AuthenticatorAssuranceLevel,
  MfaFactorStatus,
  MfaFactorType,
  type OAuthProvider,
} from "./enums.ts";

/** A linked identity of a user. */
export interface UserIdentity {
  /** The identity's `id` as the server sends it. */
  id: string;
  /** The identity's `identity_id` (the row's primary key in GoTrue). */
  identityId: string | null;
  /** Provider slug. */
  provider: string | null;
  /** Owning user id. */
  userId: string | null;
  /** Provider data. */
  identityData: JsonObject | null;
}

/** An MFA factor. */
export interface MfaFactor {
  /** Factor id. */
  id: string;
  /** Display name. */
  friendlyName: string | null;
  /** Type; UNKNOWN when unrecognised. */
  factorType: MfaFactorType;
  /** Status; UNKNOWN when unrecognised. */
  status: MfaFactorStatus;
  /** Creation time. */
  createdAt: string | null;
  /** Update time. */
  updatedAt: string | null;
}

/** A user. */
export interface User {
  /** User id. */
  id: string;
  /** Email; null when the user has none (GoTrue sends `""` then). */
  email: string | null;
  /** Phone; null when the user has none (GoTrue sends `""` then). */
  phone: string | null;
  /** Creation time. */
  createdAt: string | null;
  /** Update time. */
  updatedAt: string | null;
  /** App metadata. */
  appMetadata: JsonObject | null;
  /** User metadata. */
  userMetadata: JsonObject | null;
  /** Linked identities. */
  identities: UserIdentity[] | null;
  /** MFA factors. */
  factors: MfaFactor[] | null;
  /** True for anonymous users with no confirmed email or phone. */
  isAnonymous: boolean | null;
  /** Role. */
  role: string | null;
  /** Email confirmation time. */
  emailConfirmedAt: string | null;
  /** Phone confirmation time. */
  phoneConfirmedAt: string | null;
  /** Confirmation time. */
  confirmedAt: string | null;
  /** Last sign-in time. */
  lastSignInAt: string | null;
}

/** A session; `toString()` and inspection mask the tokens. */
export interface Session {
  /** The access token (JWT). */
  accessToken: string;
  /** The refresh token. */
  refreshToken: string;
  /** Lifetime of the access token in seconds. */
  expiresIn: number;
  /** Absolute expiry in Unix seconds; preferred over now + expiresIn. */
  expiresAt: number | null;
  /** Token type. Default `bearer`. */
  tokenType: string;
  /** The user. */
  user: User;
  /** The OAuth provider's token, for flows that return it. */
  providerToken: string | null;
  /** The OAuth provider's refresh token, for flows that return it. */
  providerRefreshToken: string | null;
}

/**
 * Fields to change on a user; only non-null fields are applied. Build one
 * with {@linkcode userUpdateRequest} to have its passwords and nonce masked when it is
 * printed (a plain object literal prints what it holds).
 */
export interface UserUpdateRequest {
  /** New email. */
  email?: string | null | undefined;
  /** New phone. */
  phone?: string | null | undefined;
  /** New password (masked in renderings of a {@linkcode userUpdateRequest}). */
  password?: string | null | undefined;
  /** Current password (masked in renderings of a {@linkcode userUpdateRequest}). */
  currentPassword?: string | null | undefined;
  /** User metadata. */
  data?: JsonObjectInput | null | undefined;
  /** Reauthentication nonce (masked in renderings of a {@linkcode userUpdateRequest}). */
  nonce?: string | null | undefined;
  /** Messaging channel for phone changes. */
  channel?: string | null | undefined;
}

/**
 * A {@linkcode UserUpdateRequest} whose `password`, `currentPassword` and
 * `nonce` (the reauthentication code) are masked when it is printed (`String`, `console.log`, `Deno.inspect`,
 * `util.inspect`); JSON and the request body still carry them.
 *
 * @example Changing a password
 * ```ts
 * import { userUpdateRequest } from "@fetchbase/fetchbase/auth";
 *
 * const update = userUpdateRequest({ password: "new-secret", currentPassword: "old-secret" });
 * console.log(String(update)); // {"password":"***","currentPassword":"***"}
 * ```
 *
 * @param fields The fields to change.
 * @returns A masked copy of `fields`.
 */
export function userUpdateRequest(fields: UserUpdateRequest): UserUpdateRequest {
  // The nonce is the reauthentication code, a one-time secret while it is live.
  return withMaskedFields({ ...fields }, ["password", "currentPassword", "nonce"]);
}

/** The result of an OTP verification. */
export type OtpVerifyResult =
  | { kind: "Authenticated"; session: Session }
  | { kind: "VerifiedNoSession" };

/** An OAuth authorize URL to open. */
export interface OAuthResponse {
  /** The URL. */
  url: string;
  /** The provider. */
  provider: string;
}

/** A link-identity URL to open. */
export interface LinkIdentityResponse {
  /** The URL. */
  url: string;
  /** The provider. */
  provider: string | null;
}

/** An SSO URL to open. */
export interface SsoResponse {
  /** The URL. */
  url: string;
}

/** Tokens parsed from a redirect fragment. */
export interface ParsedSessionTokens {
  /** Access token. */
  accessToken: string;
  /** Refresh token. */
  refreshToken: string;
  /** Lifetime in seconds. */
  expiresIn: number;
  /** Token type. */
  tokenType: string;
  /** The OAuth provider's access token, when the fragment carries one (masked in renderings). */
  providerToken?: string | null | undefined;
  /** The OAuth provider's refresh token, when the fragment carries one (masked in renderings). */
  providerRefreshToken?: string | null | undefined;
  /** What the link was for (`recovery`, `signup`, `magiclink`, `invite`...), when it says. */
  type?: string | null | undefined;
}

/** TOTP enrolment details; QR code, secret and uri are masked in renderings. */
export interface MfaTotpDetails {
  /** QR code as an SVG data URI (GoTrue's SVG markup, prefixed as auth-js does). */
  qrCode: string;
  /** The shared secret. */
  secret: string;
  /** The otpauth:// URI. */
  uri: string;
}

/** The answer of `mfaEnroll`. */
export interface MfaEnrollResponse {
  /** Factor id. */
  id: string;
  /** Factor type. */
  type: MfaFactorType;
  /** TOTP details. */
  totp: MfaTotpDetails | null;
  /** Display name. */
  friendlyName: string | null;
  /** Phone for phone factors. */
  phone: string | null;
}

/** The answer of `mfaChallenge`. */
export interface MfaChallengeResponse {
  /** Challenge id. */
  id: string;
  /** Factor type. */
  type: string | null;
  /** Expiry in Unix seconds. */
  expiresAt: number | null;
  /**
   * For a WebAuthn factor: what the browser needs to answer the challenge
   * (`type` "create" or "request", and the `PublicKeyCredential` options as
   * GoTrue sent them); null for other factors.
   */
  webauthn: { type: string | null; credentialOptions: unknown } | null;
}

/** The answer of `mfaVerify`: a new AAL2 session; tokens masked. */
export interface MfaVerifyResponse {
  /** Access token. */
  accessToken: string;
  /** Refresh token. */
  refreshToken: string;
  /** Token type. */
  tokenType: string;
  /** Lifetime in seconds. */
  expiresIn: number;
  /** Expiry in Unix seconds. */
  expiresAt: number | null;
  /** The user. */
  user: User;
}

/** The answer of `mfaUnenroll`. */
export interface MfaUnenrollResponse {
  /** The removed factor id. */
  id: string;
}

/** The user's factors, all and by type. */
export interface MfaListFactorsResponse {
  /** Every factor. */
  all: MfaFactor[];
  /** TOTP factors. */
  totp: MfaFactor[];
  /** Phone factors. */
  phone: MfaFactor[];
  /** WebAuthn factors. */
  webauthn: MfaFactor[];
}

/**
 * A WebAuthn assertion standing in for a code. Both fields are optional in the document's
 * model, but GoTrue refuses a verification without them, so `mfaVerify` does too
 * (`Failure(INVALID_ARGUMENT)`, nothing sent).
 */
export interface MfaWebauthnVerification {
  /** Verification type: `"create"` (a registration) or `"request"` (an assertion). */
  type?: string | null | undefined;
  /** The serialised credential response. */
  credentialResponse?: JsonObjectInput | null | undefined;
}

/** Current and next assurance levels. */
export interface AuthenticatorAssuranceLevels {
  /** From the `aal` claim. */
  current: AuthenticatorAssuranceLevel;
  /** AAL2 when a verified factor exists. */
  next: AuthenticatorAssuranceLevel;
}

/** WebAuthn registration options. */
export interface PasskeyRegistrationOptionsResponse {
  /** Challenge id. */
  challengeId: string;
  /** WebAuthn options for `navigator.credentials.create`. */
  options: JsonObject;
  /** Expiry in Unix seconds. */
  expiresAt: number;
}

/** WebAuthn authentication options. */
export interface PasskeyAuthenticationOptionsResponse {
  /** Challenge id. */
  challengeId: string;
  /** WebAuthn options for `navigator.credentials.get`. */
  options: JsonObject;
  /** Expiry in Unix seconds. */
  expiresAt: number;
}

/** A registered passkey's metadata. */
export interface PasskeyMetadata {
  /** Passkey id. */
  id: string;
  /** Display name. */
  friendlyName: string | null;
  /** Creation time. */
  createdAt: string;
}

/** A passkey. */
export interface Passkey extends PasskeyMetadata {
  /** Last use time. */
  lastUsedAt: string | null;
}

/** An OAuth client asking for consent. */
export interface OAuthAuthorizationClient {
  /** Client id. */
  id: string;
  /** Name. */
  name: string;
  /** Home page. */
  uri: string;
  /** Logo. */
  logoUri: string;
}

/** The user granting consent. */
export interface OAuthAuthorizationUser {
  /** User id. */
  id: string;
  /** Email. */
  email: string;
}

/** A pending authorization. */
export interface OAuthAuthorizationDetails {
  /** Authorization id. */
  authorizationId: string | null;
  /** Where to send the browser (already decided requests). */
  redirectUrl: string | null;
  /** The client's redirect URI. */
  redirectUri: string | null;
  /** The client. */
  client: OAuthAuthorizationClient | null;
  /** The user. */
  user: OAuthAuthorizationUser | null;
  /** Requested scope. */
  scope: string | null;
}

/** Where to send the browser after consent. */
export interface OAuthRedirect {
  /** The redirect URL. */
  redirectUrl: string;
}

/** A consent the user granted. */
export interface OAuthGrant {
  /** The client. */
  client: OAuthAuthorizationClient;
  /** Granted scopes. */
  scopes: string[];
  /** Grant time. */
  grantedAt: string;
}

/** Public auth settings; every field nullable. */
export interface AuthSettings {
  /** Provider slug → enabled. */
  external: Record<string, boolean> | null;
  /** Sign-ups disabled. */
  disableSignup: boolean | null;
  /** Email confirmation skipped. */
  mailerAutoconfirm: boolean | null;
  /** Phone confirmation skipped. */
  phoneAutoconfirm: boolean | null;
  /** SMS provider. */
  smsProvider: string | null;
  /** MFA enabled; null from current GoTrue releases, which no longer send `mfa_enabled`. */
  mfaEnabled: boolean | null;
  /** SAML enabled. */
  samlEnabled: boolean | null;
  /** Passkey sign-in enabled (`passkeys_enabled`); null from GoTrue releases before passkeys. */
  passkeysEnabled: boolean | null;
}

/** Health of the auth service. */
export interface AuthHealthStatus {
  /** Service name. */
  name: string | null;
  /** Version. */
  version: string | null;
  /** Description. */
  description: string | null;
}

/** A credential from a native sign-in flow; token, nonce, name and email masked. */
export interface NativeAuthCredential {
  /** The provider. */
  provider: OAuthProvider;
  /** The identity token (a JWT). */
  idToken: string;
  /** The provider access token. */
  accessToken?: string | null | undefined;
  /** The raw (un-hashed) nonce. */
  nonce?: string | null | undefined;
  /** Full name (first authorization only, for some providers). */
  fullName?: string | null | undefined;
  /** Email (first authorization only, for some providers). */
  email?: string | null | undefined;
}

function decodeIdentity(json: unknown): UserIdentity {
  const o = asObject(json, "identity");
  return {
    // GoTrue's primary key is `identity_id` (its `id` is the provider's user id): the
    // document makes `id` the primary key, the value `unlinkIdentity` takes.
    id: optString(o, "identity_id") ?? reqString(o, "id"),
    identityId: optString(o, "identity_id"),
    provider: optString(o, "provider"),
    userId: optString(o, "user_id"),
    identityData: optObject(o, "identity_data"),
  };
}

/**
 * Decodes an MFA factor.
 *
 * @example Unknown values
 * ```ts
 * import { decodeMfaFactor } from "@fetchbase/fetchbase/auth";
 *
 * console.log(decodeMfaFactor({ id: "f", factor_type: "carrier-pigeon" }).factorType); // unknown
 * ```
 *
 * @param json The wire value.
 * @returns The factor.
 */
export function decodeMfaFactor(json: unknown): MfaFactor {
  const o = asObject(json, "factor");
  return {
    id: reqString(o, "id"),
    friendlyName: optString(o, "friendly_name") || null,
    factorType: enumValue(MfaFactorType, o.factor_type, MfaFactorType.UNKNOWN),
    status: enumValue(MfaFactorStatus, o.status, MfaFactorStatus.UNKNOWN),
    createdAt: optString(o, "created_at"),
    updatedAt: optString(o, "updated_at"),
  };
}

/**
 * Decodes a user; masks the email in renderings.
 *
 * @example Decoding
 * ```ts
 * import { decodeUser } from "@fetchbase/fetchbase/auth";
 *
 * const u = decodeUser({ id: "u1", email: "a@b.example", is_anonymous: false, extra: 1 });
 * console.log(u.id, u.phone); // u1 null
 * ```
 *
 * @param json The wire value.
 * @returns The user.
 */
export function decodeUser(json: unknown): User {
  const o = asObject(json, "user");
  return withMaskedFields({
    id: reqString(o, "id"),
    // GoTrue writes an absent email or phone as "" (a phone user's email, an anonymous user's both).
    email: optString(o, "email") || null,
    phone: optString(o, "phone") || null,
    createdAt: optString(o, "created_at"),
    updatedAt: optString(o, "updated_at"),
    appMetadata: optObject(o, "app_metadata"),
    userMetadata: optObject(o, "user_metadata"),
    identities: optArray(o, "identities", decodeIdentity),
    factors: optArray(o, "factors", decodeMfaFactor),
    isAnonymous: optBoolean(o, "is_anonymous"),
    role: optString(o, "role"),
    emailConfirmedAt: optString(o, "email_confirmed_at"),
    phoneConfirmedAt: optString(o, "phone_confirmed_at"),
    confirmedAt: optString(o, "confirmed_at"),
    lastSignInAt: optString(o, "last_sign_in_at"),
  }, ["email", "phone"]);
}

/**
 * Decodes a session; tokens are masked in renderings. Throws `DecodeError`
 * without an access token.
 *
 * @example Decoding
 * ```ts
 * import { decodeSession } from "@fetchbase/fetchbase/auth";
 *
 * const s = decodeSession({ access_token: "a.b.c", refresh_token: "r", expires_in: 3600, user: { id: "u" } });
 * console.log(String(s).includes("a.b.c")); // false
 * ```
 *
 * @param json The wire value.
 * @returns The session.
 */
export function decodeSession(json: unknown): Session {
  const o = asObject(json, "session");
  return withMaskedFields({
    accessToken: reqString(o, "access_token"),
    refreshToken: optString(o, "refresh_token") ?? "",
    expiresIn: optNumber(o, "expires_in") ?? 0,
    expiresAt: optNumber(o, "expires_at"),
    tokenType: optString(o, "token_type") ?? "bearer",
    user: decodeUser(o.user),
    providerToken: optString(o, "provider_token"),
    providerRefreshToken: optString(o, "provider_refresh_token"),
  }, ["accessToken", "refreshToken", "providerToken", "providerRefreshToken"]);
}

/**
 * Whether a body carries session tokens (vs. a bare user or nothing).
 *
 * @example Telling a session from a bare user
 * ```ts
 * import { hasSession } from "@fetchbase/fetchbase/auth";
 *
 * console.log(hasSession({ access_token: "a.b.c", user: { id: "u" } })); // true
 * console.log(hasSession({ id: "u" })); // false
 * ```
 *
 * @param json The wire value.
 * @returns Whether it holds a non-empty `access_token`.
 */
export function hasSession(json: unknown): boolean {
  return typeof json === "object" &&
    typeof (json as Record<string, unknown> | null)?.access_token === "string" &&
    (json as Record<string, string>).access_token !== "";
}

/**
 * Decodes a sign-up answer: a full session, or (with confirmation enabled) a
 * session whose tokens are empty and whose user is the bare user returned.
 *
 * @example Decoding an unconfirmed sign-up
 * ```ts
 * import { decodeSignUp } from "@fetchbase/fetchbase/auth";
 *
 * const s = decodeSignUp({ id: "u", email: "a@example.com" });
 * console.log(s.accessToken === "", s.user.email); // true a@example.com
 * ```
 *
 * @param json The wire value.
 * @returns The session.
 */
export function decodeSignUp(json: unknown): Session {
  if (hasSession(json)) return decodeSession(json);
  const o = asObject(json, "sign-up answer");
  const user = decodeUser(o.user && typeof o.user === "object" ? o.user : o);
  return withMaskedFields(
    {
      accessToken: "",
      refreshToken: "",
      expiresIn: 0,
      expiresAt: null,
      tokenType: "bearer",
      user,
      providerToken: null,
      providerRefreshToken: null,
    },
    ["accessToken", "refreshToken"],
  );
}

/**
 * Decodes a verification answer into {@linkcode OtpVerifyResult}.
 *
 * @example Decoding
 * ```ts
 * import { decodeVerify } from "@fetchbase/fetchbase/auth";
 *
 * console.log(decodeVerify({}).kind); // VerifiedNoSession
 * console.log(decodeVerify({ access_token: "a.b.c", user: { id: "u" } }).kind); // Authenticated
 * ```
 *
 * @param json The wire value.
 * @returns The result.
 */
export function decodeVerify(json: unknown): OtpVerifyResult {
  return hasSession(json)
    ? { kind: "Authenticated", session: decodeSession(json) }
    : { kind: "VerifiedNoSession" };
}
