/**
 * The auth client: a stateless facade over GoTrue (`/auth/v1`). It never
 * stores or refreshes a session; operations that act on a user take the
 * access token explicitly. Each operation lives in its own module.
 *
 * @module
 */

import type { BaseClient } from "../core/client.ts";
import type { JsonObjectInput } from "../core/decode.ts";
import type { ServiceResult } from "../core/result.ts";
import type { AuthCallOptions } from "./_request.ts";
import type {
  AuthenticatorAssuranceLevel,
  MessagingChannel,
  MfaFactorType,
  OAuthProvider,
  OtpType,
  SignOutScope,
  Web3Chain,
} from "./enums.ts";
import { createJwksResolver, type JwksOptions, type JwksResolver } from "./jwks.ts";
import { sharedJwksCache } from "./_shared_jwks.ts";
import type { Jwk } from "./jwt.ts";
import * as mfa from "./mfa.ts";
import type {
  AuthenticatorAssuranceLevels,
  AuthHealthStatus,
  AuthSettings,
  LinkIdentityResponse,
  MfaChallengeResponse,
  MfaEnrollResponse,
  MfaListFactorsResponse,
  MfaUnenrollResponse,
  MfaVerifyResponse,
  MfaWebauthnVerification,
  OAuthAuthorizationDetails,
  OAuthGrant,
  OAuthRedirect,
  OAuthResponse,
  OtpVerifyResult,
  Passkey,
  PasskeyAuthenticationOptionsResponse,
  PasskeyMetadata,
  PasskeyRegistrationOptionsResponse,
  Session,
  SsoResponse,
  User,
  UserIdentity,
  UserUpdateRequest,
} from "./models.ts";
import { getOAuthSignInUrl, type OAuthUrlOptions, signInWithOAuth } from "./oauth_url.ts";
import * as pk from "./passkeys.ts";
import { generateOAuthState, verifyOAuthState } from "./oauth_state.ts";
import { type GeneratePkceOptions, generatePkceParams, type PkceParams } from "./pkce.ts";
import * as si from "./sign_in.ts";
import * as us from "./user.ts";

export type { AuthCallOptions } from "./_request.ts";
export type {
  CaptchaOptions,
  SignInWithIdTokenOptions,
  SignInWithOtpOptions,
  SignUpWithEmailOptions,
  SignUpWithPhoneOptions,
  VerifyOtpOptions,
} from "./sign_in.ts";
export type { LinkIdentityOptions, SsoOptions, UpdateUserOptions } from "./user.ts";
export type { MfaEnrollOptions } from "./mfa.ts";

/** Options of {@linkcode createAuthClient}. */
export interface AuthClientOptions {
  /** JWKS cache settings for local verification. */
  jwks?: JwksOptions | undefined;
}

/**
 * The auth client over `/auth/v1`.
 *
 * @example Sign in and read the user
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * const session = await auth.signInWithEmail("ada@example.com", "correct horse");
 * if (session.ok) {
 *   const user = await auth.getUser(session.value.accessToken);
 * }
 * ```
 */
export class AuthClient {
  /** The base client whose transport every call uses. */
  readonly client: BaseClient;
  /**
   * The JWKS cache of this client (one issuer). Made without `jwks` options, the key sets it
   * fetches are kept in memory for every such auth client over the same `fetch` (the runtime's
   * own, or one function passed to each), as auth-js keeps one key set per project: a client made
   * per request finds the set already fetched (its own resolver still makes its own fetches).
   */
  readonly jwks: JwksResolver;

  /**
   * Wraps a base client; prefer {@linkcode createAuthClient}.
   *
   * @param client The base client.
   * @param options JWKS settings.
   */
  constructor(client: BaseClient, options?: AuthClientOptions) {
    this.client = client;
    // Without JWKS settings of its own, the process's key sets in memory: a client made per
    // request would otherwise fetch the key set before every local verification.
    this.jwks = createJwksResolver(client, options?.jwks ?? { cache: sharedJwksCache(client) });
  }

  /**
   * Signs up with email and password (`POST /signup`); with confirmation
   * enabled the session carries no tokens until the user confirms.
   *
   * @param email The email (blank → Failure).
   * @param password The password.
   * @param options Metadata, redirect, captcha, PKCE.
   * @returns The session.
   */
  signUpWithEmail(
    email: string,
    password: string,
    options?: si.SignUpWithEmailOptions,
  ): Promise<ServiceResult<Session>> {
    return si.signUpWithEmailCall(this.client, email, password, options);
  }

  /**
   * Signs up with phone and password.
   *
   * @param phone The phone (blank → Failure).
   * @param password The password.
   * @param options Metadata, redirect, captcha, channel (`pkceParams` is not sent: GoTrue
   * refuses PKCE for a phone sign-up).
   * @returns The session.
   */
  signUpWithPhone(
    phone: string,
    password: string,
    options?: si.SignUpWithPhoneOptions,
  ): Promise<ServiceResult<Session>> {
    return si.signUpWithPhone(this.client, phone, password, options);
  }

  /**
   * Password grant with email; bad credentials are a Failure.
   *
   * @param email The email.
   * @param password The password.
   * @param options Captcha.
   * @returns The session.
   */
  signInWithEmail(
    email: string,
    password: string,
    options?: si.CaptchaOptions,
  ): Promise<ServiceResult<Session>> {
    return si.signInWithPassword(this.client, { email }, password, options);
  }

  /**
   * Password grant with phone.
   *
   * @param phone The phone.
   * @param password The password.
   * @param options Captcha.
   * @returns The session.
   */
  signInWithPhone(
    phone: string,
    password: string,
    options?: si.CaptchaOptions,
  ): Promise<ServiceResult<Session>> {
    return si.signInWithPassword(this.client, { phone }, password, options);
  }

  /**
   * Creates an anonymous user (`POST /signup` without credentials).
   *
   * @param options Metadata, captcha.
   * @returns The session.
   */
  signInAnonymously(
    options?: si.CaptchaOptions & { data?: JsonObjectInput | null | undefined },
  ): Promise<ServiceResult<Session>> {
    return si.signInAnonymouslyCall(this.client, options);
  }

  /**
   * Redeems a provider's identity token (`id_token` grant).
   *
   * @param provider The provider.
   * @param idToken The identity token.
   * @param options Access token, nonce, captcha, client id, issuer.
   * @returns The session.
   */
  signInWithIdToken(
    provider: OAuthProvider | string,
    idToken: string,
    options?: si.SignInWithIdTokenOptions,
  ): Promise<ServiceResult<Session>> {
    return si.signInWithIdTokenCall(this.client, provider, idToken, options);
  }

  /**
   * The OAuth authorize URL with its provider (no I/O).
   *
   * @param provider The provider.
   * @param options Redirect, scopes, query params, PKCE, invite token.
   * @returns The URL to open.
   */
  signInWithOAuth(provider: OAuthProvider | string, options?: OAuthUrlOptions): OAuthResponse {
    return signInWithOAuth(this, provider, options);
  }

  /**
   * The absolute OAuth authorize URL (no I/O).
   *
   * @param provider The provider.
   * @param options Redirect, scopes, query params, PKCE, invite token.
   * @returns The URL.
   */
  getOAuthSignInUrl(provider: OAuthProvider | string, options?: OAuthUrlOptions): string {
    return getOAuthSignInUrl(this, provider, options);
  }

  /**
   * Web3 wallet sign-in (`web3` grant); the signature is verified server-side.
   *
   * @param chain The chain.
   * @param message The signed message.
   * @param signature The signature: its bytes as the wallet gives them, or text as GoTrue reads
   *   it (Ethereum: the 65 bytes as hex, sent with the `0x` prefix GoTrue needs whether or not
   *   it is given; Solana: the 64 bytes as base64 or base64url, not base58).
   * @param options Captcha.
   * @returns The session.
   */
  signInWithWeb3(
    chain: Web3Chain,
    message: string,
    signature: string | Uint8Array,
    options?: si.CaptchaOptions,
  ): Promise<ServiceResult<Session>> {
    return si.signInWithWeb3(this.client, chain, message, signature, options);
  }

  /**
   * Sends an OTP or magic link (`POST /otp`); exactly one of email and phone.
   *
   * @param options Email or phone, create-user, redirect, channel, data, PKCE, captcha.
   * @returns Nothing on dispatch.
   */
  signInWithOtp(options: si.SignInWithOtpOptions): Promise<ServiceResult<void>> {
    return si.signInWithOtp(this.client, options);
  }

  /**
   * Verifies an OTP (`POST /verify`).
   *
   * @param token The code.
   * @param type The OTP type.
   * @param options Email or phone, captcha, redirect.
   * @returns Authenticated with a session, or VerifiedNoSession.
   */
  verifyOtp(
    token: string,
    type: OtpType,
    options?: si.VerifyOtpOptions,
  ): Promise<ServiceResult<OtpVerifyResult>> {
    return si.verifyOtp(this.client, token, type, options);
  }

  /**
   * Verifies a token hash from an email link.
   *
   * @param tokenHash The token hash.
   * @param type The OTP type.
   * @param options Captcha.
   * @returns Authenticated with a session, or VerifiedNoSession.
   */
  verifyOtpWithTokenHash(
    tokenHash: string,
    type: OtpType,
    options?: si.CaptchaOptions,
  ): Promise<ServiceResult<OtpVerifyResult>> {
    return si.verifyOtpWithTokenHash(this.client, tokenHash, type, options);
  }

  /**
   * Resends an email OTP or link (`POST /resend`).
   *
   * @param type E.g. SIGNUP or EMAIL_CHANGE.
   * @param email The email.
   * @param options Captcha, redirect, and PKCE for a sign-up or email-change link.
   * @returns Nothing.
   */
  resendEmailOtp(
    type: OtpType,
    email: string,
    options?: si.CaptchaOptions & {
      redirectTo?: string | null | undefined;
      pkceParams?: PkceParams | null | undefined;
    },
  ): Promise<ServiceResult<void>> {
    return si.resend(this.client, { email }, type, options);
  }

  /**
   * Resends a phone OTP.
   *
   * @param type E.g. SMS or PHONE_CHANGE.
   * @param phone The phone.
   * @param options Captcha.
   * @returns Nothing.
   */
  resendPhoneOtp(
    type: OtpType,
    phone: string,
    options?: si.CaptchaOptions,
  ): Promise<ServiceResult<void>> {
    return si.resend(this.client, { phone }, type, options);
  }

  /**
   * Sends a password-recovery email (`POST /recover`).
   *
   * @param email The email.
   * @param options Redirect, captcha, PKCE.
   * @returns Nothing on dispatch.
   */
  resetPasswordForEmail(
    email: string,
    options?: si.CaptchaOptions & {
      redirectTo?: string | null | undefined;
      pkceParams?: PkceParams | null | undefined;
    },
  ): Promise<ServiceResult<void>> {
    return si.resetPasswordForEmail(this.client, email, options);
  }

  /**
   * Sends a one-time code for sensitive changes (`GET /reauthenticate`).
   *
   * @param accessToken The session's access token.
   * @param options Cancellation.
   * @returns Nothing.
   */
  reauthenticate(accessToken: string, options?: AuthCallOptions): Promise<ServiceResult<void>> {
    return us.reauthenticate(this.client, accessToken, options);
  }

  /**
   * Exchanges a refresh token for a new session (`refresh_token` grant).
   *
   * @param refreshToken The refresh token.
   * @param options Cancellation.
   * @returns The new session.
   */
  refreshToken(refreshToken: string, options?: AuthCallOptions): Promise<ServiceResult<Session>> {
    return si.refreshToken(this.client, refreshToken, options);
  }

  /**
   * Fetches the user of a token (`GET /user`), validating it server-side.
   *
   * @param accessToken The access token.
   * @param options Cancellation.
   * @returns The user.
   */
  getUser(accessToken: string, options?: AuthCallOptions): Promise<ServiceResult<User>> {
    return us.getUser(this.client, accessToken, options);
  }

  /**
   * The user's linked identities (from `getUser`).
   *
   * @param accessToken The access token.
   * @param options Cancellation.
   * @returns The identities.
   */
  async getUserIdentities(
    accessToken: string,
    options?: AuthCallOptions,
  ): Promise<ServiceResult<UserIdentity[]>> {
    const r = await this.getUser(accessToken, options);
    return r.map((u) => u.identities ?? []);
  }

  /**
   * Updates the user (`PUT /user`); only non-null fields are applied.
   *
   * @param accessToken The access token.
   * @param updates The changes.
   * @param options Email redirect, PKCE for an email change's link, cancellation.
   * @returns The user.
   */
  updateUser(
    accessToken: string,
    updates: UserUpdateRequest,
    options?: us.UpdateUserOptions,
  ): Promise<ServiceResult<User>> {
    return us.updateUser(this.client, accessToken, updates, options);
  }

  /**
   * Revokes refresh tokens for a scope (`POST /logout`); default LOCAL. A LOCAL sign-out of a
   * token that names no GoTrue session (no `session_id`, or the nil UUID, as a token minted
   * outside GoTrue) sends nothing and succeeds: GoTrue would end every session of the user.
   *
   * @param accessToken The access token.
   * @param options Scope, cancellation.
   * @returns Nothing.
   */
  signOut(
    accessToken: string,
    options?: AuthCallOptions & { scope?: SignOutScope | undefined },
  ): Promise<ServiceResult<void>> {
    return us.signOutCall(this.client, accessToken, options);
  }

  /**
   * New PKCE parameters (RFC 7636; S256 via WebCrypto by default; no I/O).
   *
   * @param options A custom SHA-256 or the plain method.
   * @returns The parameters.
   */
  generatePkceParams(options?: GeneratePkceOptions): Promise<PkceParams> {
    return generatePkceParams(options);
  }

  /**
   * A random CSRF state for OAuth (no I/O).
   *
   * @returns The state.
   */
  generateOAuthState(): string {
    return generateOAuthState();
  }

  /**
   * Compares the returned state in constant time; blank or absent fails.
   *
   * @param expected The state you generated.
   * @param returned The state the provider returned.
   * @returns Success when equal.
   */
  verifyOAuthState(expected: string, returned: string | null | undefined): ServiceResult<void> {
    return verifyOAuthState(expected, returned);
  }

  /**
   * Exchanges a PKCE auth code (`pkce` grant).
   *
   * @param authCode The code from the redirect.
   * @param codeVerifier The verifier you kept.
   * @param options Cancellation.
   * @returns The session.
   */
  exchangeCodeForSession(
    authCode: string,
    codeVerifier: string,
    options?: AuthCallOptions,
  ): Promise<ServiceResult<Session>> {
    return si.exchangeCodeForSession(this.client, authCode, codeVerifier, options);
  }

  /**
   * The browser URL that links a provider identity to the signed-in user.
   *
   * @param accessToken The access token.
   * @param provider The provider.
   * @param options Redirect, scopes, query params, PKCE.
   * @returns The URL to open.
   */
  linkIdentity(
    accessToken: string,
    provider: OAuthProvider | string,
    options?: us.LinkIdentityOptions,
  ): Promise<ServiceResult<LinkIdentityResponse>> {
    return us.linkIdentity(this.client, accessToken, provider, options);
  }

  /**
   * Links an identity by id token (`id_token` grant with `link_identity`). GoTrue answers with a
   * new session at `aal1` (its `amr` is the identity's), whatever the level of the session whose
   * token is given; that session stays valid.
   *
   * @param accessToken The access token.
   * @param provider The provider.
   * @param idToken The identity token.
   * @param options Provider access token, nonce.
   * @returns The updated session.
   */
  linkIdentityWithIdToken(
    accessToken: string,
    provider: OAuthProvider | string,
    idToken: string,
    options?: AuthCallOptions & {
      providerAccessToken?: string | null | undefined;
      nonce?: string | null | undefined;
    },
  ): Promise<ServiceResult<Session>> {
    options ??= {};
    return si.signInWithIdTokenCall(this.client, provider, idToken, {
      accessToken: options.providerAccessToken,
      nonce: options.nonce,
      signal: options.signal,
      timeout: options.timeout,
    }, { accessToken });
  }

  /**
   * Removes an identity (`DELETE /user/identities/{id}`); pass `UserIdentity.id`.
   *
   * @param accessToken The access token.
   * @param identityId The identity's id.
   * @param options Cancellation.
   * @returns Nothing.
   */
  unlinkIdentity(
    accessToken: string,
    identityId: string,
    options?: AuthCallOptions,
  ): Promise<ServiceResult<void>> {
    return us.unlinkIdentity(this.client, accessToken, identityId, options);
  }

  /**
   * The enterprise SSO URL (`POST /sso`); exactly one of domain and providerId.
   *
   * @param options Domain or provider id, token, redirect, PKCE, captcha.
   * @returns The URL to open.
   */
  getSsoUrl(options: us.SsoOptions): Promise<ServiceResult<SsoResponse>> {
    return us.getSsoUrl(this.client, options);
  }

  /**
   * Public auth settings (`GET /settings`).
   *
   * @param options Cancellation.
   * @returns The settings.
   */
  getSettings(options?: AuthCallOptions): Promise<ServiceResult<AuthSettings>> {
    return us.getSettings(this.client, options);
  }

  /**
   * Service health (`GET /health`).
   *
   * @param options Cancellation.
   * @returns The health.
   */
  getHealth(options?: AuthCallOptions): Promise<ServiceResult<AuthHealthStatus>> {
    return us.getHealth(this.client, options);
  }

  /**
   * The raw JWKS JSON (`GET /.well-known/jwks.json`).
   *
   * @param options Cancellation.
   * @returns The JSON text.
   */
  getJwks(options?: AuthCallOptions): Promise<ServiceResult<string>> {
    return us.getJwks(this.client, options);
  }

  /**
   * A signing key by kid from the cached JWKS; a miss forces one refetch.
   *
   * @param kid The key id.
   * @param options Cancellation.
   * @returns The key or null; Failure when the JWKS fetch failed or `kid` is blank.
   */
  resolveSigningKey(
    kid: string,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<ServiceResult<Jwk | null>> {
    return this.jwks.resolveSigningKey(kid, options);
  }

  /**
   * Enrolls an MFA factor (`POST /factors`).
   *
   * @param accessToken The access token.
   * @param factorType TOTP, PHONE or WEBAUTHN (UNKNOWN, a decoding fallback, is no type to enroll).
   * @param options Friendly name, issuer, phone.
   * @returns The enrolment.
   */
  mfaEnroll(
    accessToken: string,
    factorType: Exclude<MfaFactorType, "unknown">,
    options?: mfa.MfaEnrollOptions,
  ): Promise<ServiceResult<MfaEnrollResponse>> {
    return mfa.mfaEnroll(this.client, accessToken, factorType, options);
  }

  /**
   * Creates a challenge for a factor.
   *
   * @param accessToken The access token.
   * @param factorId The factor.
   * @param options Channel (phone).
   * @returns The challenge.
   */
  mfaChallenge(
    accessToken: string,
    factorId: string,
    options?: AuthCallOptions & { channel?: MessagingChannel | null | undefined },
  ): Promise<ServiceResult<MfaChallengeResponse>> {
    return mfa.mfaChallenge(this.client, accessToken, factorId, options);
  }

  /**
   * Verifies a challenge; success is a new AAL2 session.
   *
   * @param accessToken The access token.
   * @param factorId The factor.
   * @param challengeId The challenge.
   * @param code The code.
   * @param options A WebAuthn response standing in for the code.
   * @returns The AAL2 session.
   */
  mfaVerify(
    accessToken: string,
    factorId: string,
    challengeId: string,
    code: string,
    options?: AuthCallOptions & { webauthn?: MfaWebauthnVerification | null | undefined },
  ): Promise<ServiceResult<MfaVerifyResponse>> {
    return mfa.mfaVerify(this.client, accessToken, factorId, challengeId, code, options);
  }

  /**
   * Removes a factor.
   *
   * @param accessToken The access token.
   * @param factorId The factor.
   * @param options Cancellation.
   * @returns The removed factor id.
   */
  mfaUnenroll(
    accessToken: string,
    factorId: string,
    options?: AuthCallOptions,
  ): Promise<ServiceResult<MfaUnenrollResponse>> {
    return mfa.mfaUnenroll(this.client, accessToken, factorId, options);
  }

  /**
   * The user's factors, all (verified and unverified) and verified by type.
   *
   * @param accessToken The access token.
   * @param options Cancellation.
   * @returns The factors.
   */
  mfaListFactors(
    accessToken: string,
    options?: AuthCallOptions,
  ): Promise<ServiceResult<MfaListFactorsResponse>> {
    return mfa.mfaListFactors(this.client, accessToken, options);
  }

  /**
   * The current level from the token's `aal` claim (no I/O).
   *
   * @param accessToken The access token.
   * @returns The level.
   */
  mfaGetAuthenticatorAssuranceLevel(
    accessToken: string,
  ): ServiceResult<AuthenticatorAssuranceLevel> {
    return mfa.assuranceLevelOf(accessToken);
  }

  /**
   * Current level (claim) and next level (AAL2 when a verified factor exists).
   *
   * @param accessToken The access token.
   * @param options Cancellation.
   * @returns The levels.
   */
  mfaGetAuthenticatorAssuranceLevels(
    accessToken: string,
    options?: AuthCallOptions,
  ): Promise<ServiceResult<AuthenticatorAssuranceLevels>> {
    return mfa.mfaGetAuthenticatorAssuranceLevels(this.client, accessToken, options);
  }

  /**
   * Starts a passkey registration.
   *
   * @param accessToken The access token.
   * @param options Cancellation; a captcha token, sent for servers that check one (GoTrue checks
   *   none on this route, only on the authentication start).
   * @returns WebAuthn creation options.
   */
  passkeyStartRegistration(
    accessToken: string,
    options?: AuthCallOptions & { captchaToken?: string | null | undefined },
  ): Promise<ServiceResult<PasskeyRegistrationOptionsResponse>> {
    return pk.passkeyStartRegistration(this.client, accessToken, options);
  }

  /**
   * Completes a passkey registration.
   *
   * @param accessToken The access token.
   * @param challengeId The challenge.
   * @param credential The serialised `navigator.credentials.create` result.
   * @param options Cancellation.
   * @returns The passkey's metadata.
   */
  passkeyVerifyRegistration(
    accessToken: string,
    challengeId: string,
    credential: JsonObjectInput,
    options?: AuthCallOptions,
  ): Promise<ServiceResult<PasskeyMetadata>> {
    return pk.passkeyVerifyRegistration(this.client, accessToken, challengeId, credential, options);
  }

  /**
   * Starts a passkey sign-in (no token needed).
   *
   * @param options Captcha.
   * @returns WebAuthn request options.
   */
  passkeyStartAuthentication(
    options?: AuthCallOptions & { captchaToken?: string | null | undefined },
  ): Promise<ServiceResult<PasskeyAuthenticationOptionsResponse>> {
    return pk.passkeyStartAuthentication(this.client, options);
  }

  /**
   * Completes a passkey sign-in.
   *
   * @param challengeId The challenge.
   * @param credential The serialised `navigator.credentials.get` result.
   * @param options Cancellation.
   * @returns The session.
   */
  passkeyVerifyAuthentication(
    challengeId: string,
    credential: JsonObjectInput,
    options?: AuthCallOptions,
  ): Promise<ServiceResult<Session>> {
    return pk.passkeyVerifyAuthentication(this.client, challengeId, credential, options);
  }

  /**
   * Lists the user's passkeys.
   *
   * @param accessToken The access token.
   * @param options Cancellation.
   * @returns The passkeys.
   */
  passkeyList(accessToken: string, options?: AuthCallOptions): Promise<ServiceResult<Passkey[]>> {
    return pk.passkeyList(this.client, accessToken, options);
  }

  /**
   * Renames a passkey.
   *
   * @param accessToken The access token.
   * @param passkeyId The passkey.
   * @param friendlyName The new name.
   * @param options Cancellation.
   * @returns The passkey.
   */
  passkeyUpdate(
    accessToken: string,
    passkeyId: string,
    friendlyName: string,
    options?: AuthCallOptions,
  ): Promise<ServiceResult<Passkey>> {
    return pk.passkeyUpdate(this.client, accessToken, passkeyId, friendlyName, options);
  }

  /**
   * Deletes a passkey.
   *
   * @param accessToken The access token.
   * @param passkeyId The passkey.
   * @param options Cancellation.
   * @returns Nothing.
   */
  passkeyDelete(
    accessToken: string,
    passkeyId: string,
    options?: AuthCallOptions,
  ): Promise<ServiceResult<void>> {
    return pk.passkeyDelete(this.client, accessToken, passkeyId, options);
  }

  /**
   * Details of a pending OAuth authorization (this project as OAuth server).
   *
   * @param accessToken The access token.
   * @param authorizationId The authorization.
   * @param options Cancellation.
   * @returns The details.
   */
  oauthGetAuthorizationDetails(
    accessToken: string,
    authorizationId: string,
    options?: AuthCallOptions,
  ): Promise<ServiceResult<OAuthAuthorizationDetails>> {
    return pk.oauthGetAuthorizationDetails(this.client, accessToken, authorizationId, options);
  }

  /**
   * Approves a pending authorization.
   *
   * @param accessToken The access token.
   * @param authorizationId The authorization.
   * @param options Cancellation.
   * @returns Where to send the browser.
   */
  oauthApproveAuthorization(
    accessToken: string,
    authorizationId: string,
    options?: AuthCallOptions,
  ): Promise<ServiceResult<OAuthRedirect>> {
    return pk.oauthConsent(this.client, accessToken, authorizationId, "approve", options);
  }

  /**
   * Denies a pending authorization.
   *
   * @param accessToken The access token.
   * @param authorizationId The authorization.
   * @param options Cancellation.
   * @returns Where to send the browser.
   */
  oauthDenyAuthorization(
    accessToken: string,
    authorizationId: string,
    options?: AuthCallOptions,
  ): Promise<ServiceResult<OAuthRedirect>> {
    return pk.oauthConsent(this.client, accessToken, authorizationId, "deny", options);
  }

  /**
   * Lists the grants the user gave to OAuth clients.
   *
   * @param accessToken The access token.
   * @param options Cancellation.
   * @returns The grants.
   */
  oauthListGrants(
    accessToken: string,
    options?: AuthCallOptions,
  ): Promise<ServiceResult<OAuthGrant[]>> {
    return pk.oauthListGrants(this.client, accessToken, options);
  }

  /**
   * Revokes a client's grant.
   *
   * @param accessToken The access token.
   * @param clientId The OAuth client.
   * @param options Cancellation.
   * @returns Nothing.
   */
  oauthRevokeGrant(
    accessToken: string,
    clientId: string,
    options?: AuthCallOptions,
  ): Promise<ServiceResult<void>> {
    return pk.oauthRevokeGrant(this.client, accessToken, clientId, options);
  }
}

/**
 * Creates an {@linkcode AuthClient}; no I/O.
 *
 * @example Creating the client
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 *
 * const auth = createAuthClient(createBaseClient("https://p.example", "anon-key"));
 * ```
 *
 * @param client The base client.
 * @param options JWKS settings.
 * @returns The auth client.
 */
export function createAuthClient(client: BaseClient, options?: AuthClientOptions): AuthClient {
  return new AuthClient(client, options);
}
