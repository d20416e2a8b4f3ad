/**
 * User, identity, SSO, sign-out and service-info operations: functions over
 * the base client that `AuthClient` forwards to.
 *
 * @module
 */

import type { BaseClient } from "../core/client.ts";
import { asObject, decodeResult, reqString } from "../core/decode.ts";
import { type ServiceResult, success } from "../core/result.ts";
import { AUTH_BODY_LIMIT } from "./_body_limit.ts";
import { API_VERSION } from "./_api_version.ts";
import {
  type AuthCallOptions,
  blank,
  challengeMethod,
  gotrue,
  idSegment,
  invalid,
  notObject,
  notText,
  pkceBody,
  redirect,
  redirectSecrets,
  security,
  unit,
} from "./_request.ts";
import { SignOutScope } from "./enums.ts";
import {
  type AuthHealthStatus,
  type AuthSettings,
  decodeUser,
  type LinkIdentityResponse,
  type SsoResponse,
  type User,
  type UserUpdateRequest,
} from "./models.ts";
import { decodeHealth, decodeSettings } from "./_decoders.ts";
import type { PkceParams } from "./pkce.ts";
import { providerUrl } from "./_provider_url.ts";
import { parseJwtClaims } from "./jwt.ts";
import { JWKS_PATH } from "./jwks.ts";
import { showValue } from "../core/_show.ts";
import { cancelled, refusedSignal } from "../core/_abort.ts";

export function getUser(
  client: BaseClient,
  accessToken: string,
  o?: AuthCallOptions,
): Promise<ServiceResult<User>> {
  o ??= {};
  if (blank(accessToken)) return invalid("Cannot get the user as 'accessToken' is blank");
  return gotrue(client, {
    path: "/user",
    accessToken,
    decode: decodeUser,
    options: o,
    // A token check (getClaims' fallback, a server authenticating a caller): only the auth
    // server's own answer counts, never one from wherever a redirect leads.
    redirect: "manual",
  });
}

/** Options of {@linkcode updateUser}: where an email change's confirmation link leads, and how. */
export interface UpdateUserOptions extends AuthCallOptions {
  /** Where the email change's confirmation link leads (`redirect_to`). */
  emailRedirectTo?: string | null | undefined;
  /** PKCE parameters: the link then follows the PKCE flow. */
  pkceParams?: PkceParams | null | undefined;
}

export function updateUser(
  client: BaseClient,
  accessToken: string,
  updates: UserUpdateRequest,
  o?: UpdateUserOptions,
): Promise<ServiceResult<User>> {
  o ??= {};
  if (blank(accessToken)) return invalid("Cannot update the user as 'accessToken' is blank");
  if (updates === null || typeof updates !== "object") {
    return invalid("Cannot update the user as 'updates' must be an object");
  }
  for (const name of ["password", "currentPassword", "nonce"] as const) {
    const bad = updates[name] == null ? null : notText(updates[name], name, false);
    if (bad) return invalid(`Cannot update the user as ${bad}`);
  }
  const bad = notObject(updates.data, "data");
  if (bad) return invalid(`Cannot update the user as ${bad}`);
  const body: Record<string, unknown> = {};
  // An email change's confirmation link follows the PKCE flow only with a challenge.
  if (updates.email != null) Object.assign(body, { email: updates.email }, pkceBody(o.pkceParams));
  for (
    const [from, to] of [
      ["phone", "phone"],
      ["password", "password"],
      ["currentPassword", "current_password"],
      ["data", "data"],
      ["nonce", "nonce"],
      ["channel", "channel"],
    ] as const
  ) {
    if (updates[from] != null) body[to] = updates[from];
  }
  return gotrue(client, {
    method: "PUT",
    path: "/user",
    query: redirect(o.emailRedirectTo),
    body,
    accessToken,
    decode: decodeUser,
    options: o,
  });
}

export function reauthenticate(
  client: BaseClient,
  accessToken: string,
  o?: AuthCallOptions,
): Promise<ServiceResult<void>> {
  o ??= {};
  if (blank(accessToken)) return invalid("Cannot reauthenticate as 'accessToken' is blank");
  // Each request sends a new code and voids the last one: never retried.
  return gotrue(client, {
    path: "/reauthenticate",
    accessToken,
    decode: unit,
    options: o,
    retry: false,
  });
}

/**
 * Whether an access token names no GoTrue session: a JWT without `session_id` (one minted outside
 * GoTrue, see `importAuthToken`) or with the nil UUID. GoTrue's `/logout` loads no session for it
 * and then ends every session of the user, whatever the scope.
 */
function holdsNoSession(accessToken: string): boolean {
  const claims = parseJwtClaims(accessToken);
  if (!claims.ok) return false;
  const id = claims.value.session_id;
  return id == null || id === "" || id === "00000000-0000-0000-0000-000000000000";
}

export function signOutCall(
  client: BaseClient,
  accessToken: string,
  o?: AuthCallOptions & { scope?: SignOutScope | undefined },
): Promise<ServiceResult<void>> {
  o ??= {};
  if (blank(accessToken)) return invalid("Cannot sign out as 'accessToken' is blank");
  const scope = o.scope ?? SignOutScope.LOCAL;
  if (!Object.values(SignOutScope).includes(scope)) {
    return invalid(
      `Cannot sign out as 'scope' is not a SignOutScope: current value is ${showValue(scope)}`,
    );
  }
  if (scope === SignOutScope.LOCAL && holdsNoSession(accessToken)) {
    // Nothing to end; the call's signal is still honoured as if it had been sent.
    const signal = o.signal;
    return Promise.resolve(
      refusedSignal(signal) ?? (signal?.aborted ? cancelled(signal.reason) : success(undefined)),
    );
  }
  return gotrue(client, {
    method: "POST",
    path: "/logout",
    query: [["scope", scope]],
    accessToken,
    decode: unit,
    options: o,
  });
}

/** Options of {@linkcode linkIdentity}. */
export interface LinkIdentityOptions extends AuthCallOptions {
  /** Where the provider returns. */
  redirectTo?: string | null | undefined;
  /** Scopes, space-joined on the wire. */
  scopes?: readonly string[] | undefined;
  /** Extra query parameters. */
  queryParams?: Readonly<Record<string, string>> | undefined;
  /** PKCE parameters. */
  pkceParams?: PkceParams | null | undefined;
}

export function linkIdentity(
  client: BaseClient,
  accessToken: string,
  provider: string,
  o?: LinkIdentityOptions,
): Promise<ServiceResult<LinkIdentityResponse>> {
  o ??= {};
  if (blank(accessToken)) return invalid("Cannot link an identity as 'accessToken' is blank");
  if (blank(provider)) return invalid("Cannot link an identity as 'provider' is blank");
  let url: string;
  try {
    url = providerUrl(`${client.url}/auth/v1/user/identities/authorize`, provider, {
      ...o,
      skipBrowserRedirect: true,
    });
  } catch (e) {
    // The URL builder's TypeError (a 'state' query parameter): a Failure here, never thrown.
    return invalid((e as Error).message);
  }
  return client.request({
    url,
    headers: API_VERSION,
    accessToken,
    signal: o.signal,
    timeout: o.timeout,
    // With `plain`, the challenge in the URL is the verifier itself: a network error quoting
    // the URL would carry the secret that redeems the code.
    secrets: [
      ...redirectSecrets(o.redirectTo),
      ...(o.pkceParams && challengeMethod(o.pkceParams) === "plain"
        ? [o.pkceParams.codeChallenge]
        : []),
    ],
    maxBodyBytes: AUTH_BODY_LIMIT,
  }).then((r) =>
    decodeResult(r, (v) => ({ url: reqString(asObject(v.body, "link answer"), "url"), provider }))
  );
}

export function unlinkIdentity(
  client: BaseClient,
  accessToken: string,
  identityId: string,
  o?: AuthCallOptions,
): Promise<ServiceResult<void>> {
  o ??= {};
  if (blank(accessToken)) return invalid("Cannot unlink as 'accessToken' is blank");
  if (blank(identityId)) return invalid("Cannot unlink as 'identityId' is blank");
  return gotrue(client, {
    method: "DELETE",
    path: () => `/user/identities/${idSegment(identityId)}`,
    accessToken,
    decode: unit,
    options: o,
  });
}

/** Options of {@linkcode getSsoUrl}: exactly one of `domain` and `providerId`. */
export interface SsoOptions extends AuthCallOptions {
  /** Bearer token for setups that need an authenticated caller. */
  accessToken?: string | null | undefined;
  /** The organisation's email domain. */
  domain?: string | null | undefined;
  /** The SSO provider id. */
  providerId?: string | null | undefined;
  /** Where to return. */
  redirectTo?: string | null | undefined;
  /** PKCE parameters. */
  pkceParams?: PkceParams | null | undefined;
  /** Captcha token. */
  captchaToken?: string | null | undefined;
}

export function getSsoUrl(client: BaseClient, o: SsoOptions): Promise<ServiceResult<SsoResponse>> {
  // A JavaScript caller may pass no options at all: "exactly one" then names what is missing.
  const hasDomain = !blank(o?.domain);
  if (hasDomain === !blank(o?.providerId)) {
    return invalid("Cannot start SSO as exactly one of 'domain' and 'providerId' must be given");
  }
  const body: Record<string, unknown> = hasDomain
    ? { domain: o.domain }
    : { provider_id: o.providerId };
  if (o.redirectTo) body.redirect_to = o.redirectTo;
  Object.assign(body, pkceBody(o.pkceParams));
  if (o.captchaToken) body.gotrue_meta_security = security(o.captchaToken);
  body.skip_http_redirect = true;
  return gotrue(client, {
    method: "POST",
    path: "/sso",
    body,
    accessToken: o.accessToken,
    decode: (v) => ({ url: reqString(asObject(v, "sso answer"), "url") }),
    options: o,
  });
}

export function getSettings(
  client: BaseClient,
  o?: AuthCallOptions,
): Promise<ServiceResult<AuthSettings>> {
  o ??= {};
  return gotrue(client, { path: "/settings", decode: decodeSettings, options: o });
}

export function getHealth(
  client: BaseClient,
  o?: AuthCallOptions,
): Promise<ServiceResult<AuthHealthStatus>> {
  o ??= {};
  return gotrue(client, { path: "/health", decode: decodeHealth, options: o });
}

export async function getJwks(
  client: BaseClient,
  o?: AuthCallOptions,
): Promise<ServiceResult<string>> {
  o ??= {};
  const r = await client.request({
    area: "auth",
    path: JWKS_PATH,
    headers: API_VERSION,
    credentials: "apikey",
    responseType: "text",
    signal: o.signal,
    timeout: o.timeout,
    maxBodyBytes: AUTH_BODY_LIMIT,
  });
  return r.map((v) => v.body);
}
