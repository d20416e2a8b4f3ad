/**
 * Passkey (WebAuthn) and OAuth-server consent operations, on GoTrue's
 * `/passkeys` and `/oauth/authorizations` routes.
 *
 * @module
 */

import type { BaseClient } from "../core/client.ts";
import { asArray, type JsonObjectInput } from "../core/decode.ts";
import type { ServiceResult } from "../core/result.ts";
import {
  type AuthCallOptions,
  blank,
  gotrue,
  idSegment,
  invalid,
  notObject,
  security,
  unit,
} from "./_request.ts";
import {
  decodeSession,
  type OAuthAuthorizationDetails,
  type OAuthGrant,
  type OAuthRedirect,
  type Passkey,
  type PasskeyAuthenticationOptionsResponse,
  type PasskeyMetadata,
  type PasskeyRegistrationOptionsResponse,
  type Session,
} from "./models.ts";
import {
  decodeAuthorizationDetails,
  decodeGrant,
  decodePasskey,
  decodePasskeyOptions,
  decodeRedirect,
} from "./_decoders.ts";

const needToken = (t: string, what: string) =>
  blank(t) ? invalid(`Cannot ${what} as 'accessToken' is blank`) : null;

export function passkeyStartRegistration(
  client: BaseClient,
  accessToken: string,
  o?: AuthCallOptions & { captchaToken?: string | null | undefined },
): Promise<ServiceResult<PasskeyRegistrationOptionsResponse>> {
  o ??= {};
  return needToken(accessToken, "start a passkey registration") ??
    gotrue(client, {
      method: "POST",
      path: "/passkeys/registration/options",
      // The document: every passkey-start operation accepts a captcha token.
      body: { gotrue_meta_security: security(o.captchaToken) },
      accessToken,
      decode: decodePasskeyOptions,
      options: o,
    });
}

/**
 * The failure of a passkey verification that cannot be sent (a blank challenge id, a credential
 * that is no JSON object), or null. A missing credential is refused too: GoTrue takes a JSON
 * `null` for a credential, spends the single-use challenge, and only then fails to parse it.
 */
function badVerification(
  challengeId: string,
  credential: unknown,
): Promise<ServiceResult<never>> | null {
  const bad = blank(challengeId)
    ? "'challengeId' is blank"
    : credential == null
    ? "'credential' is missing"
    : notObject(credential, "credential");
  return bad ? invalid(`Cannot verify the passkey as ${bad}`) : null;
}

export function passkeyVerifyRegistration(
  client: BaseClient,
  accessToken: string,
  challengeId: string,
  credential: JsonObjectInput,
  o?: AuthCallOptions,
): Promise<ServiceResult<PasskeyMetadata>> {
  o ??= {};
  return badVerification(challengeId, credential) ??
    needToken(accessToken, "verify a passkey registration") ??
    gotrue(client, {
      method: "POST",
      path: "/passkeys/registration/verify",
      body: { challenge_id: challengeId, credential },
      accessToken,
      decode: (v) => {
        const p = decodePasskey(v);
        return { id: p.id, friendlyName: p.friendlyName, createdAt: p.createdAt };
      },
      options: o,
    });
}

export function passkeyStartAuthentication(
  client: BaseClient,
  o?: AuthCallOptions & { captchaToken?: string | null | undefined },
): Promise<ServiceResult<PasskeyAuthenticationOptionsResponse>> {
  o ??= {};
  return gotrue(client, {
    method: "POST",
    path: "/passkeys/authentication/options",
    body: { gotrue_meta_security: security(o.captchaToken) },
    decode: decodePasskeyOptions,
    options: o,
  });
}

export function passkeyVerifyAuthentication(
  client: BaseClient,
  challengeId: string,
  credential: JsonObjectInput,
  o?: AuthCallOptions,
): Promise<ServiceResult<Session>> {
  o ??= {};
  return badVerification(challengeId, credential) ?? gotrue(client, {
    method: "POST",
    path: "/passkeys/authentication/verify",
    body: { challenge_id: challengeId, credential },
    decode: decodeSession,
    options: o,
  });
}

export function passkeyList(
  client: BaseClient,
  accessToken: string,
  o?: AuthCallOptions,
): Promise<ServiceResult<Passkey[]>> {
  o ??= {};
  return needToken(accessToken, "list passkeys") ??
    gotrue(client, {
      path: "/passkeys",
      accessToken,
      decode: (v) => asArray(v, "passkeys").map(decodePasskey),
      options: o,
    });
}

export function passkeyUpdate(
  client: BaseClient,
  accessToken: string,
  passkeyId: string,
  friendlyName: string,
  o?: AuthCallOptions,
): Promise<ServiceResult<Passkey>> {
  o ??= {};
  if (blank(passkeyId)) return invalid("Cannot rename the passkey as 'passkeyId' is blank");
  return needToken(accessToken, "rename a passkey") ??
    gotrue(client, {
      method: "PATCH",
      path: () => `/passkeys/${idSegment(passkeyId)}`,
      body: { friendly_name: friendlyName },
      accessToken,
      decode: decodePasskey,
      options: o,
    });
}

export function passkeyDelete(
  client: BaseClient,
  accessToken: string,
  passkeyId: string,
  o?: AuthCallOptions,
): Promise<ServiceResult<void>> {
  o ??= {};
  if (blank(passkeyId)) return invalid("Cannot delete the passkey as 'passkeyId' is blank");
  return needToken(accessToken, "delete a passkey") ??
    gotrue(client, {
      method: "DELETE",
      path: () => `/passkeys/${idSegment(passkeyId)}`,
      accessToken,
      decode: unit,
      options: o,
    });
}

export function oauthGetAuthorizationDetails(
  client: BaseClient,
  accessToken: string,
  authorizationId: string,
  o?: AuthCallOptions,
): Promise<ServiceResult<OAuthAuthorizationDetails>> {
  o ??= {};
  if (blank(authorizationId)) {
    return invalid("Cannot read the authorization as 'authorizationId' is blank");
  }
  return needToken(accessToken, "read an authorization") ??
    gotrue(client, {
      path: () => `/oauth/authorizations/${idSegment(authorizationId)}`,
      accessToken,
      decode: decodeAuthorizationDetails,
      options: o,
      // Not a plain read: GoTrue binds the user and may auto-approve, and a repeat is a 400.
      retry: false,
    });
}

export function oauthConsent(
  client: BaseClient,
  accessToken: string,
  authorizationId: string,
  action: "approve" | "deny",
  o?: AuthCallOptions,
): Promise<ServiceResult<OAuthRedirect>> {
  o ??= {};
  if (blank(authorizationId)) return invalid(`Cannot ${action} as 'authorizationId' is blank`);
  return needToken(accessToken, `${action} an authorization`) ??
    gotrue(client, {
      method: "POST",
      path: () => `/oauth/authorizations/${idSegment(authorizationId)}/consent`,
      body: { action },
      accessToken,
      decode: decodeRedirect,
      options: o,
    });
}

export function oauthListGrants(
  client: BaseClient,
  accessToken: string,
  o?: AuthCallOptions,
): Promise<ServiceResult<OAuthGrant[]>> {
  o ??= {};
  return needToken(accessToken, "list grants") ??
    gotrue(client, {
      path: "/user/oauth/grants",
      accessToken,
      decode: (v) => asArray(v, "grants").map(decodeGrant),
      options: o,
    });
}

export function oauthRevokeGrant(
  client: BaseClient,
  accessToken: string,
  clientId: string,
  o?: AuthCallOptions,
): Promise<ServiceResult<void>> {
  o ??= {};
  if (blank(clientId)) return invalid("Cannot revoke as 'clientId' is blank");
  return needToken(accessToken, "revoke a grant") ??
    gotrue(client, {
      method: "DELETE",
      path: "/user/oauth/grants",
      query: [["client_id", clientId]],
      accessToken,
      decode: unit,
      options: o,
    });
}
