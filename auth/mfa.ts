/**
 * MFA operations: enroll, challenge, verify, unenroll, list, assurance
 * levels. Functions over the base client that `AuthClient` forwards to.
 *
 * @module
 */

import type { BaseClient } from "../core/client.ts";
import { failure, type ServiceResult, success } from "../core/result.ts";
import { showValue } from "../core/_show.ts";
import { type AuthCallOptions, blank, gotrue, idSegment, invalid, notObject } from "./_request.ts";
import {
  AuthenticatorAssuranceLevel,
  type MessagingChannel,
  MfaFactorStatus,
  type MfaFactorType,
} from "./enums.ts";
import { parseJwtClaims } from "./jwt.ts";
import type {
  AuthenticatorAssuranceLevels,
  MfaChallengeResponse,
  MfaEnrollResponse,
  MfaListFactorsResponse,
  MfaUnenrollResponse,
  MfaVerifyResponse,
  MfaWebauthnVerification,
} from "./models.ts";
import { decodeChallenge, decodeEnroll, decodeMfaVerify, listFactors } from "./_decoders.ts";
import { getUser } from "./user.ts";

/** Options of {@linkcode mfaEnroll}. */
export interface MfaEnrollOptions extends AuthCallOptions {
  /** Display name. */
  friendlyName?: string | null | undefined;
  /** Issuer shown in authenticator apps (TOTP). */
  issuer?: string | null | undefined;
  /** Phone number (phone factors). */
  phone?: string | null | undefined;
}

export function mfaEnroll(
  client: BaseClient,
  accessToken: string,
  factorType: Exclude<MfaFactorType, "unknown">,
  o?: MfaEnrollOptions,
): Promise<ServiceResult<MfaEnrollResponse>> {
  o ??= {};
  if (blank(accessToken)) return invalid("Cannot enroll as 'accessToken' is blank");
  if (factorType === "phone" && blank(o.phone)) {
    return invalid("Cannot enroll a phone factor as 'phone' is blank");
  }
  const body: Record<string, unknown> = { factor_type: factorType };
  for (
    const [from, to] of [
      ["friendlyName", "friendly_name"],
      ["issuer", "issuer"],
      ["phone", "phone"],
    ] as const
  ) {
    if (o[from]) body[to] = o[from];
  }
  return gotrue(client, {
    method: "POST",
    path: "/factors",
    body,
    accessToken,
    decode: decodeEnroll,
    options: o,
  });
}

export function mfaChallenge(
  client: BaseClient,
  accessToken: string,
  factorId: string,
  o?: AuthCallOptions & { channel?: MessagingChannel | null | undefined },
): Promise<ServiceResult<MfaChallengeResponse>> {
  o ??= {};
  if (blank(accessToken) || blank(factorId)) {
    return invalid("Cannot challenge as 'accessToken' and 'factorId' must be non-blank");
  }
  return gotrue(client, {
    method: "POST",
    path: () => `/factors/${idSegment(factorId)}/challenge`,
    body: o.channel ? { channel: o.channel } : {},
    accessToken,
    decode: decodeChallenge,
    options: o,
  });
}

export function mfaVerify(
  client: BaseClient,
  accessToken: string,
  factorId: string,
  challengeId: string,
  code: string,
  o?: AuthCallOptions & { webauthn?: MfaWebauthnVerification | null | undefined },
): Promise<ServiceResult<MfaVerifyResponse>> {
  o ??= {};
  if (blank(accessToken) || blank(factorId) || blank(challengeId)) {
    return invalid(
      "Cannot verify as 'accessToken', 'factorId' and 'challengeId' must be non-blank",
    );
  }
  const webauthn = o.webauthn;
  if (blank(code) && !webauthn) {
    return invalid("Cannot verify as 'code' is blank and no WebAuthn response was given");
  }
  const bad = notObject(webauthn?.credentialResponse, "credentialResponse");
  if (bad) return invalid(`Cannot verify as ${bad}`);
  const body: Record<string, unknown> = { challenge_id: challengeId };
  if (webauthn) {
    // GoTrue refuses a WebAuthn verification without both (400 validation_failed).
    const { type, credentialResponse } = webauthn;
    if (type !== "create" && type !== "request") {
      return invalid(
        `Cannot verify as WebAuthn 'type' must be "create" or "request": current value is ${
          showValue(type)
        }`,
      );
    }
    if (credentialResponse == null) {
      return invalid("Cannot verify as WebAuthn 'credentialResponse' is missing");
    }
    body.webauthn = { type, credential_response: credentialResponse };
  } else body.code = code;
  return gotrue(client, {
    method: "POST",
    path: () => `/factors/${idSegment(factorId)}/verify`,
    body,
    accessToken,
    decode: decodeMfaVerify,
    options: o,
  });
}

export function mfaUnenroll(
  client: BaseClient,
  accessToken: string,
  factorId: string,
  o?: AuthCallOptions,
): Promise<ServiceResult<MfaUnenrollResponse>> {
  o ??= {};
  if (blank(accessToken) || blank(factorId)) {
    return invalid("Cannot unenroll as 'accessToken' and 'factorId' must be non-blank");
  }
  return gotrue(client, {
    method: "DELETE",
    path: () => `/factors/${idSegment(factorId)}`,
    accessToken,
    decode: (v) => ({ id: (v as { id?: string | undefined } | null)?.id ?? factorId }),
    options: o,
  });
}

export async function mfaListFactors(
  client: BaseClient,
  accessToken: string,
  o?: AuthCallOptions,
): Promise<ServiceResult<MfaListFactorsResponse>> {
  o ??= {};
  const user = await getUser(client, accessToken, o);
  return user.map((u) => listFactors(u.factors ?? []));
}

/**
 * Reads the current assurance level from the token's `aal` claim (no I/O).
 *
 * @param accessToken The access token.
 * @returns The level.
 */
export function assuranceLevelOf(accessToken: string): ServiceResult<AuthenticatorAssuranceLevel> {
  const claims = parseJwtClaims(accessToken);
  if (!claims.ok) return claims;
  const aal = claims.value.aal;
  if (aal === AuthenticatorAssuranceLevel.AAL1 || aal === AuthenticatorAssuranceLevel.AAL2) {
    return success(aal);
  }
  return failure({
    message: "Cannot read the assurance level as the token has no valid 'aal' claim",
    category: "DECODE",
  });
}

export async function mfaGetAuthenticatorAssuranceLevels(
  client: BaseClient,
  accessToken: string,
  o?: AuthCallOptions,
): Promise<ServiceResult<AuthenticatorAssuranceLevels>> {
  o ??= {};
  const current = assuranceLevelOf(accessToken);
  if (!current.ok) return current;
  const user = await getUser(client, accessToken, o);
  if (!user.ok) return user;
  const verified = (user.value.factors ?? []).some((f) => f.status === MfaFactorStatus.VERIFIED);
  return success({
    current: current.value,
    next: verified ? AuthenticatorAssuranceLevel.AAL2 : AuthenticatorAssuranceLevel.AAL1,
  });
}
