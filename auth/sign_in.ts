/**
 * Sign-up, sign-in, OTP, verification, resend, recovery, refresh and code
 * exchange: functions over the base client that `AuthClient` forwards to.
 *
 * @module
 */

import type { BaseClient } from "../core/client.ts";
import type { JsonObjectInput } from "../core/decode.ts";
import type { ServiceResult } from "../core/result.ts";
import {
  type AuthCallOptions,
  blank,
  gotrue,
  invalid,
  notObject,
  notText,
  pkceBody,
  redirect,
  security,
  unit,
} from "./_request.ts";
import type { MessagingChannel, OAuthProvider, OtpType, Web3Chain } from "./enums.ts";
import {
  decodeSession,
  decodeSignUp,
  decodeVerify,
  type OtpVerifyResult,
  type Session,
} from "./models.ts";
import type { PkceParams } from "./pkce.ts";
import { showValue } from "../core/_show.ts";
import { isUint8Array } from "../core/_realm.ts";
import { encodeBase64Url, encodeHex } from "../core/encoding.ts";

/** Options of email sign-up. */
export interface SignUpWithEmailOptions extends AuthCallOptions {
  /** User metadata. */
  data?: JsonObjectInput | null | undefined;
  /** Where the confirmation link leads (`redirect_to`). */
  emailRedirectTo?: string | null | undefined;
  /** Captcha token. */
  captchaToken?: string | null | undefined;
  /** PKCE parameters; null = implicit flow. */
  pkceParams?: PkceParams | null | undefined;
}

/** Options of phone sign-up. */
export interface SignUpWithPhoneOptions extends AuthCallOptions {
  /** User metadata. */
  data?: JsonObjectInput | null | undefined;
  /** `redirect_to`. */
  redirectTo?: string | null | undefined;
  /** Captcha token. */
  captchaToken?: string | null | undefined;
  /** PKCE parameters. */
  pkceParams?: PkceParams | null | undefined;
  /** How the code is delivered. */
  channel?: MessagingChannel | null | undefined;
}

/** Options carrying only a captcha token. */
export interface CaptchaOptions extends AuthCallOptions {
  /** Captcha token. */
  captchaToken?: string | null | undefined;
}

export function signUpWithEmailCall(
  client: BaseClient,
  email: string,
  password: string,
  o?: SignUpWithEmailOptions,
): Promise<ServiceResult<Session>> {
  o ??= {};
  // A password of another type went out as such (a number, an object) and came back as GoTrue's
  // refusal of the credentials.
  const bad = notText(email, "email") ?? notText(password, "password", false) ??
    notObject(o.data, "data");
  if (bad) return invalid(`Cannot sign up as ${bad}`);
  return gotrue(client, {
    method: "POST",
    path: "/signup",
    query: redirect(o.emailRedirectTo),
    body: {
      email,
      password,
      data: o.data ?? {},
      gotrue_meta_security: security(o.captchaToken),
      ...pkceBody(o.pkceParams),
    },
    decode: decodeSignUp,
    options: o,
  });
}

export function signUpWithPhone(
  client: BaseClient,
  phone: string,
  password: string,
  o?: SignUpWithPhoneOptions,
): Promise<ServiceResult<Session>> {
  o ??= {};
  const bad = notText(phone, "phone") ?? notText(password, "password", false) ??
    notObject(o.data, "data");
  if (bad) return invalid(`Cannot sign up as ${bad}`);
  return gotrue(client, {
    method: "POST",
    path: "/signup",
    query: redirect(o.redirectTo),
    body: {
      phone,
      password,
      data: o.data ?? {},
      channel: o.channel ?? "sms",
      gotrue_meta_security: security(o.captchaToken),
      // No PKCE: GoTrue refuses a phone sign-up with a challenge (400), and answers it with
      // the session itself; auth-js does not send one either.
    },
    decode: decodeSignUp,
    options: o,
  });
}

export function signInWithPassword(
  client: BaseClient,
  credential: { email: string } | { phone: string },
  password: string,
  o?: CaptchaOptions,
): Promise<ServiceResult<Session>> {
  o ??= {};
  const field = "email" in credential ? "email" : "phone";
  const bad = notText((credential as Record<string, unknown>)[field], field) ??
    notText(password, "password", false);
  if (bad) return invalid(`Cannot sign in as ${bad}`);
  return gotrue(client, {
    method: "POST",
    path: "/token",
    query: [["grant_type", "password"]],
    body: { ...credential, password, gotrue_meta_security: security(o.captchaToken) },
    decode: decodeSession,
    options: o,
  });
}

export function signInAnonymouslyCall(
  client: BaseClient,
  o?: CaptchaOptions & { data?: JsonObjectInput | null | undefined },
): Promise<ServiceResult<Session>> {
  o ??= {};
  const bad = notObject(o.data, "data");
  if (bad) return invalid(`Cannot sign in anonymously as ${bad}`);
  return gotrue(client, {
    method: "POST",
    path: "/signup",
    body: { data: o.data ?? {}, gotrue_meta_security: security(o.captchaToken) },
    decode: decodeSession,
    options: o,
  });
}

/** Options of the id_token grant. */
export interface SignInWithIdTokenOptions extends CaptchaOptions {
  /** The provider's access token. */
  accessToken?: string | null | undefined;
  /** The raw nonce bound into the token. */
  nonce?: string | null | undefined;
  /** OAuth client id (custom providers). */
  clientId?: string | null | undefined;
  /** Issuer (required for custom OIDC providers). */
  issuer?: string | null | undefined;
}

export function signInWithIdTokenCall(
  client: BaseClient,
  provider: OAuthProvider | string,
  idToken: string,
  o?: SignInWithIdTokenOptions,
  link: { accessToken: string } | null = null,
): Promise<ServiceResult<Session>> {
  o ??= {};
  // Linking without the user's token would post the provider's id token under the API key.
  if (link && blank(link.accessToken)) {
    return invalid("Cannot link an identity as 'accessToken' is blank");
  }
  if (blank(provider)) return invalid("Cannot sign in as 'provider' is blank");
  if (blank(idToken)) return invalid("Cannot sign in as 'idToken' is blank");
  const body: Record<string, unknown> = {
    provider,
    id_token: idToken,
    gotrue_meta_security: security(o.captchaToken),
  };
  for (
    const [from, to] of [
      ["accessToken", "access_token"],
      ["nonce", "nonce"],
      ["clientId", "client_id"],
      ["issuer", "issuer"],
    ] as const
  ) {
    if (o[from]) body[to] = o[from];
  }
  if (link) body.link_identity = true;
  return gotrue(client, {
    method: "POST",
    path: "/token",
    query: [["grant_type", "id_token"]],
    body,
    accessToken: link?.accessToken,
    decode: decodeSession,
    options: o,
  });
}

export function signInWithWeb3(
  client: BaseClient,
  chain: Web3Chain,
  message: string,
  signature: string | Uint8Array,
  o?: CaptchaOptions,
): Promise<ServiceResult<Session>> {
  o ??= {};
  if (chain !== "ethereum" && chain !== "solana") {
    return invalid(
      `Cannot sign in as 'chain' is not a Web3Chain: current value is ${showValue(chain)}`,
    );
  }
  // A wallet gives the signature's bytes: GoTrue reads Ethereum's as 0x-prefixed hex and
  // Solana's as base64 or base64url. Ethereum's hex as text gets that exact prefix: GoTrue
  // measures it without "0x" only, and its decoder refuses hex without a prefix, which it reported
  // as a signature that does not match the address.
  const signed = isUint8Array(signature)
    ? chain === "ethereum" ? `0x${encodeHex(signature)}` : encodeBase64Url(signature)
    : chain === "ethereum" && typeof signature === "string"
    ? signature.replace(/^(?:0[xX])?(?=[\dA-Fa-f]{130}$)/, "0x")
    : signature;
  if (typeof signed !== "string") {
    return invalid(
      `Cannot sign in as 'signature' must be a string or a Uint8Array: current value is ${
        showValue(signature)
      }`,
    );
  }
  if (blank(message) || blank(signed)) {
    return invalid("Cannot sign in as 'message' and 'signature' must be non-blank");
  }
  return gotrue(client, {
    method: "POST",
    path: "/token",
    query: [["grant_type", "web3"]],
    body: { chain, message, signature: signed, gotrue_meta_security: security(o.captchaToken) },
    decode: decodeSession,
    options: o,
  });
}

/** Options of {@linkcode signInWithOtp}: exactly one of `email` and `phone`. */
export interface SignInWithOtpOptions extends CaptchaOptions {
  /** Email to send the code or link to. */
  email?: string | null | undefined;
  /** Phone to send the code to. */
  phone?: string | null | undefined;
  /** Create the user when missing; the server default when null. */
  createUser?: boolean | null | undefined;
  /** Where the magic link leads. */
  emailRedirectTo?: string | null | undefined;
  /** Delivery channel (ignored for email). */
  channel?: MessagingChannel | null | undefined;
  /** Metadata stored when the user is created. */
  data?: JsonObjectInput | null | undefined;
  /** PKCE parameters. */
  pkceParams?: PkceParams | null | undefined;
}

export function signInWithOtp(
  client: BaseClient,
  o: SignInWithOtpOptions,
): Promise<ServiceResult<void>> {
  // `?.`: a JavaScript caller passing no options gets this Failure, not a thrown TypeError.
  const hasEmail = !blank(o?.email);
  const hasPhone = !blank(o?.phone);
  if (hasEmail === hasPhone) {
    return invalid("Cannot send an OTP as exactly one of 'email' and 'phone' must be given");
  }
  const bad = notObject(o.data, "data");
  if (bad) return invalid(`Cannot send an OTP as ${bad}`);
  const body: Record<string, unknown> = hasEmail
    ? { email: o.email, data: o.data ?? {}, ...pkceBody(o.pkceParams) }
    : { phone: o.phone, data: o.data ?? {}, channel: o.channel ?? "sms" };
  if (o.createUser != null) body.create_user = o.createUser;
  body.gotrue_meta_security = security(o.captchaToken);
  return gotrue(client, {
    method: "POST",
    path: "/otp",
    query: hasEmail ? redirect(o.emailRedirectTo) : [],
    body,
    decode: unit,
    options: o,
  });
}

/** Options of {@linkcode verifyOtp}: exactly one of `email` and `phone`. */
export interface VerifyOtpOptions extends CaptchaOptions {
  /** The email the code was sent to. */
  email?: string | null | undefined;
  /** The phone the code was sent to. */
  phone?: string | null | undefined;
  /** `redirect_to`. */
  redirectTo?: string | null | undefined;
}

export function verifyOtp(
  client: BaseClient,
  token: string,
  type: OtpType,
  o?: VerifyOtpOptions,
): Promise<ServiceResult<OtpVerifyResult>> {
  o ??= {};
  const hasEmail = !blank(o.email);
  if (hasEmail === !blank(o.phone)) {
    return invalid("Cannot verify as exactly one of 'email' and 'phone' must be given");
  }
  if (blank(token)) return invalid("Cannot verify as 'token' is blank");
  return gotrue(client, {
    method: "POST",
    path: "/verify",
    query: redirect(o.redirectTo),
    body: {
      ...(hasEmail ? { email: o.email } : { phone: o.phone }),
      token,
      type,
      gotrue_meta_security: security(o.captchaToken),
    },
    decode: decodeVerify,
    options: o,
  });
}

export function verifyOtpWithTokenHash(
  client: BaseClient,
  tokenHash: string,
  type: OtpType,
  o?: CaptchaOptions,
): Promise<ServiceResult<OtpVerifyResult>> {
  o ??= {};
  if (blank(tokenHash)) return invalid("Cannot verify as 'tokenHash' is blank");
  return gotrue(client, {
    method: "POST",
    path: "/verify",
    body: { token_hash: tokenHash, type, gotrue_meta_security: security(o.captchaToken) },
    decode: decodeVerify,
    options: o,
  });
}

export function resend(
  client: BaseClient,
  target: { email: string } | { phone: string },
  type: OtpType,
  o?: CaptchaOptions & {
    redirectTo?: string | null | undefined;
    pkceParams?: PkceParams | null | undefined;
  },
): Promise<ServiceResult<void>> {
  o ??= {};
  const isEmail = "email" in target;
  if (blank(isEmail ? target.email : target.phone)) {
    return invalid(`Cannot resend as '${isEmail ? "email" : "phone"}' is blank`);
  }
  return gotrue(client, {
    method: "POST",
    path: "/resend",
    query: isEmail ? redirect(o.redirectTo) : [],
    body: {
      ...target,
      type,
      gotrue_meta_security: security(o.captchaToken),
      // A resent sign-up or email-change link follows the PKCE flow only with a challenge.
      ...(isEmail ? pkceBody(o.pkceParams) : {}),
    },
    decode: unit,
    options: o,
  });
}

export function resetPasswordForEmail(
  client: BaseClient,
  email: string,
  o?: CaptchaOptions & {
    redirectTo?: string | null | undefined;
    pkceParams?: PkceParams | null | undefined;
  },
): Promise<ServiceResult<void>> {
  o ??= {};
  if (blank(email)) return invalid("Cannot send a recovery email as 'email' is blank");
  return gotrue(client, {
    method: "POST",
    path: "/recover",
    query: redirect(o.redirectTo),
    body: { email, ...pkceBody(o.pkceParams), gotrue_meta_security: security(o.captchaToken) },
    decode: unit,
    options: o,
  });
}

export function refreshToken(
  client: BaseClient,
  refreshToken: string,
  o?: AuthCallOptions,
): Promise<ServiceResult<Session>> {
  o ??= {};
  if (blank(refreshToken)) return invalid("Cannot refresh as 'refreshToken' is blank");
  return gotrue(client, {
    method: "POST",
    path: "/token",
    query: [["grant_type", "refresh_token"]],
    body: { refresh_token: refreshToken },
    decode: decodeSession,
    options: o,
  });
}

export function exchangeCodeForSession(
  client: BaseClient,
  authCode: string,
  codeVerifier: string,
  o?: AuthCallOptions,
): Promise<ServiceResult<Session>> {
  o ??= {};
  if (blank(authCode) || blank(codeVerifier)) {
    return invalid("Cannot exchange the code as 'authCode' and 'codeVerifier' must be non-blank");
  }
  return gotrue(client, {
    method: "POST",
    path: "/token",
    query: [["grant_type", "pkce"]],
    body: { auth_code: authCode, code_verifier: codeVerifier },
    decode: decodeSession,
    options: o,
  });
}
