/**
 * Internal decoders for auth answers (public models are in models.ts).
 */

import {
  asObject,
  enumValue,
  optArray,
  optBoolean,
  optNumber,
  optObject,
  optString,
  reqString,
} from "../core/decode.ts";
import { withMaskedFields } from "../core/mask.ts";
import { MfaFactorStatus, MfaFactorType } from "./enums.ts";
import {
  type AuthHealthStatus,
  type AuthSettings,
  decodeSession,
  type MfaChallengeResponse,
  type MfaEnrollResponse,
  type MfaFactor,
  type MfaListFactorsResponse,
  type MfaVerifyResponse,
  type OAuthAuthorizationClient,
  type OAuthAuthorizationDetails,
  type OAuthGrant,
  type OAuthRedirect,
  type Passkey,
  type PasskeyRegistrationOptionsResponse,
} from "./models.ts";

export function decodeEnroll(json: unknown): MfaEnrollResponse {
  const o = asObject(json, "enrolment");
  const totp = optObject(o, "totp");
  // Masked as a User is: a phone factor's number is personal data.
  return withMaskedFields({
    id: reqString(o, "id"),
    type: enumValue(MfaFactorType, o.type, MfaFactorType.UNKNOWN),
    totp: totp
      ? withMaskedFields(
        {
          qrCode: svgDataUri(optString(totp, "qr_code") ?? ""),
          secret: optString(totp, "secret") ?? "",
          uri: optString(totp, "uri") ?? "",
        },
        // The QR code is an image of the URI, secret included.
        ["qrCode", "secret", "uri"],
      )
      : null,
    friendlyName: optString(o, "friendly_name") || null,
    phone: optString(o, "phone"),
  }, []);
}

/** GoTrue sends the TOTP QR code as SVG markup; the model holds a data URI (`<img src>`). */
function svgDataUri(qr: string): string {
  return qr.trimStart().startsWith("<") ? `data:image/svg+xml;utf-8,${qr}` : qr;
}

export function decodeChallenge(json: unknown): MfaChallengeResponse {
  const o = asObject(json, "challenge");
  const webauthn = optObject(o, "webauthn");
  return {
    id: reqString(o, "id"),
    type: optString(o, "type"),
    expiresAt: optNumber(o, "expires_at"),
    webauthn: webauthn
      ? {
        type: optString(webauthn, "type"),
        credentialOptions: webauthn.credential_options ?? null,
      }
      : null,
  };
}

export function decodeMfaVerify(json: unknown): MfaVerifyResponse {
  const s = decodeSession(json);
  return withMaskedFields({
    accessToken: s.accessToken,
    refreshToken: s.refreshToken,
    tokenType: s.tokenType,
    expiresIn: s.expiresIn,
    expiresAt: s.expiresAt,
    user: s.user,
  }, ["accessToken", "refreshToken"]);
}

export function listFactors(factors: readonly MfaFactor[]): MfaListFactorsResponse {
  const verified = (type: MfaFactorType) =>
    factors.filter((f) => f.factorType === type && f.status === MfaFactorStatus.VERIFIED);
  return {
    all: [...factors],
    totp: verified(MfaFactorType.TOTP),
    phone: verified(MfaFactorType.PHONE),
    webauthn: verified(MfaFactorType.WEBAUTHN),
  };
}

export function decodePasskeyOptions(json: unknown): PasskeyRegistrationOptionsResponse {
  const o = asObject(json, "passkey options");
  return {
    challengeId: reqString(o, "challenge_id"),
    options: optObject(o, "options") ?? {},
    expiresAt: optNumber(o, "expires_at") ?? 0,
  };
}

export function decodePasskey(json: unknown): Passkey {
  const o = asObject(json, "passkey");
  return {
    id: reqString(o, "id"),
    friendlyName: optString(o, "friendly_name") || null,
    createdAt: optString(o, "created_at") ?? "",
    lastUsedAt: optString(o, "last_used_at"),
  };
}

function decodeOAuthClient(json: unknown): OAuthAuthorizationClient {
  const o = asObject(json, "client");
  return {
    id: optString(o, "id") ?? optString(o, "client_id") ?? "",
    name: optString(o, "name") ?? optString(o, "client_name") ?? "",
    uri: optString(o, "uri") ?? optString(o, "client_uri") ?? "",
    logoUri: optString(o, "logo_uri") ?? "",
  };
}

export function decodeAuthorizationDetails(json: unknown): OAuthAuthorizationDetails {
  const o = asObject(json, "authorization");
  const user = optObject(o, "user");
  return {
    authorizationId: optString(o, "authorization_id"),
    redirectUrl: optString(o, "redirect_url"),
    redirectUri: optString(o, "redirect_uri"),
    client: o.client && typeof o.client === "object" ? decodeOAuthClient(o.client) : null,
    // Masked as a User is: the email is personal data.
    user: user
      ? withMaskedFields(
        { id: optString(user, "id") ?? "", email: optString(user, "email") ?? "" },
        [],
      )
      : null,
    scope: optString(o, "scope"),
  };
}

export function decodeRedirect(json: unknown): OAuthRedirect {
  return { redirectUrl: reqString(asObject(json, "redirect"), "redirect_url") };
}

export function decodeGrant(json: unknown): OAuthGrant {
  const o = asObject(json, "grant");
  return {
    client: decodeOAuthClient(o.client ?? {}),
    scopes: optArray(o, "scopes", String) ?? [],
    grantedAt: optString(o, "granted_at") ?? "",
  };
}

export function decodeSettings(json: unknown): AuthSettings {
  const o = asObject(json, "settings");
  const external = optObject(o, "external");
  return {
    external: external
      ? Object.fromEntries(
        Object.entries(external).filter(([, v]) => typeof v === "boolean"),
      ) as Record<string, boolean>
      : null,
    disableSignup: optBoolean(o, "disable_signup"),
    mailerAutoconfirm: optBoolean(o, "mailer_autoconfirm"),
    phoneAutoconfirm: optBoolean(o, "phone_autoconfirm"),
    smsProvider: optString(o, "sms_provider"),
    mfaEnabled: optBoolean(o, "mfa_enabled"),
    samlEnabled: optBoolean(o, "saml_enabled"),
    passkeysEnabled: optBoolean(o, "passkeys_enabled"),
  };
}

export function decodeHealth(json: unknown): AuthHealthStatus {
  const o = asObject(json, "health");
  return {
    name: optString(o, "name"),
    version: optString(o, "version"),
    description: optString(o, "description"),
  };
}
