/**
 * Client sign-in helpers: run a sign-in and apply the access token to the
 * base client so later requests are authenticated; `signOut` clears it.
 * Native sign-in: redeem a credential from a platform flow.
 *
 * @module
 */

import { type AuthClient, createAuthClient } from "../auth/client.ts";
import { type OAuthProvider, SignOutScope } from "../auth/enums.ts";
import type { NativeAuthCredential, Session } from "../auth/models.ts";
import type { BaseClient } from "../core/client.ts";
import { randomString } from "../core/crypto.ts";
import type { JsonObject } from "../core/decode.ts";
import { type ServiceResult, success } from "../core/result.ts";
import type { SessionManager } from "./manager.ts";
import { saved } from "./_held.ts";
import { withMaskedFields } from "../core/mask.ts";

const auths = new WeakMap<BaseClient, AuthClient>();
function authOf(client: BaseClient): AuthClient {
  let a = auths.get(client);
  if (!a) auths.set(client, a = createAuthClient(client));
  return a;
}

/**
 * Applies a session's access token to the client (a blank token is ignored)
 * and returns the session.
 *
 * @example Applying a session
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { applySession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const s = await createAuthClient(client).signInWithEmail("ada@example.com", "pw");
 * if (s.ok) applySession(client, s.value);
 * ```
 *
 * @param client The base client.
 * @param session The session.
 * @returns The session.
 */
export function applySession(client: BaseClient, session: Session): Session {
  client.setAccessToken(session.accessToken);
  return session;
}

async function applied(
  client: BaseClient,
  r: Promise<ServiceResult<Session>>,
): Promise<ServiceResult<Session>> {
  const out = await r;
  if (out.ok) applySession(client, out.value);
  return out;
}

/**
 * Email password sign-in that authenticates the client.
 *
 * @example Sign in
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { clientSignInWithEmail } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * await clientSignInWithEmail(client, "ada@example.com", "pw");
 * ```
 *
 * @param client The base client.
 * @param email The email.
 * @param password The password.
 * @returns The session.
 */
export function clientSignInWithEmail(
  client: BaseClient,
  email: string,
  password: string,
): Promise<ServiceResult<Session>> {
  return applied(client, authOf(client).signInWithEmail(email, password));
}

/**
 * Phone password sign-in that authenticates the client.
 *
 * @example Sign in by phone
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { clientSignInWithPhone } from "@fetchbase/fetchbase/session";
 *
 * await clientSignInWithPhone(createBaseClient("https://p.example", "anon-key"), "+15550100", "pw");
 * ```
 *
 * @param client The base client.
 * @param phone The phone.
 * @param password The password.
 * @returns The session.
 */
export function clientSignInWithPhone(
  client: BaseClient,
  phone: string,
  password: string,
): Promise<ServiceResult<Session>> {
  return applied(client, authOf(client).signInWithPhone(phone, password));
}

/**
 * Anonymous sign-in that authenticates the client.
 *
 * @example Anonymous
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { clientSignInAnonymously } from "@fetchbase/fetchbase/session";
 *
 * await clientSignInAnonymously(createBaseClient("https://p.example", "anon-key"));
 * ```
 *
 * @param client The base client.
 * @param options Metadata and captcha.
 * @returns The session.
 */
export function clientSignInAnonymously(
  client: BaseClient,
  options: { data?: JsonObject | null; captchaToken?: string | null } = {},
): Promise<ServiceResult<Session>> {
  return applied(client, authOf(client).signInAnonymously(options));
}

/**
 * id_token sign-in that authenticates the client.
 *
 * @example Apple
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { clientSignInWithIdToken } from "@fetchbase/fetchbase/session";
 *
 * await clientSignInWithIdToken(createBaseClient("https://p.example", "anon-key"), "apple", "id-token");
 * ```
 *
 * @param client The base client.
 * @param provider The provider.
 * @param idToken The id token.
 * @param options Access token, nonce, captcha.
 * @returns The session.
 */
export function clientSignInWithIdToken(
  client: BaseClient,
  provider: OAuthProvider | string,
  idToken: string,
  options: { accessToken?: string | null; nonce?: string | null; captchaToken?: string | null } =
    {},
): Promise<ServiceResult<Session>> {
  return applied(client, authOf(client).signInWithIdToken(provider, idToken, options));
}

/**
 * Email sign-up; authenticates the client only when a session with a token
 * is returned (confirmation off).
 *
 * @example Sign up
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { clientSignUpWithEmail } from "@fetchbase/fetchbase/session";
 *
 * await clientSignUpWithEmail(createBaseClient("https://p.example", "anon-key"), "ada@example.com", "pw");
 * ```
 *
 * @param client The base client.
 * @param email The email.
 * @param password The password.
 * @param data User metadata.
 * @returns The session.
 */
export async function clientSignUpWithEmail(
  client: BaseClient,
  email: string,
  password: string,
  data?: JsonObject | null,
): Promise<ServiceResult<Session>> {
  const r = await authOf(client).signUpWithEmail(email, password, { data });
  if (r.ok && r.value.accessToken !== "") applySession(client, r.value);
  return r;
}

/**
 * Signs the client's token out (default scope GLOBAL) and clears it. When
 * the client is not authenticated it succeeds without a request; when the
 * server call fails the token is kept so the sign-out can be retried.
 *
 * @example Sign out
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { clientSignOut } from "@fetchbase/fetchbase/session";
 *
 * await clientSignOut(createBaseClient("https://p.example", "anon-key"));
 * ```
 *
 * @param client The base client.
 * @param options Scope.
 * @returns Nothing.
 */
export async function clientSignOut(
  client: BaseClient,
  options: { scope?: SignOutScope } = {},
): Promise<ServiceResult<void>> {
  const token = client.accessToken;
  if (!token) {
    client.clearAccessToken();
    return success(undefined);
  }
  const r = await authOf(client).signOut(token, { scope: options.scope ?? SignOutScope.GLOBAL });
  // A token applied while the call was under way is another session's: it stays.
  if (r.ok && client.accessToken === token) client.clearAccessToken();
  return r;
}

/** A platform sign-in flow (Apple, Google, ...) producing an id token. */
export interface NativeAuthProvider {
  /** The provider. */
  readonly provider: OAuthProvider;
  /** Runs the flow; Failure when cancelled, failed or unavailable. */
  signIn(): Promise<ServiceResult<NativeAuthCredential>>;
}

/**
 * Runs a native flow and redeems the credential with the id_token grant;
 * `onCredential` sees the raw credential first.
 *
 * @example Native Apple sign-in
 * ```ts
 * import { createBaseClient, success } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { signInWith, type NativeAuthProvider } from "@fetchbase/fetchbase/session";
 *
 * const apple: NativeAuthProvider = {
 *   provider: "apple",
 *   signIn: () => Promise.resolve(success({ provider: "apple" as const, idToken: "id-token", nonce: "raw" })),
 * };
 * await signInWith(createAuthClient(createBaseClient("https://p.example", "anon-key")), apple);
 * ```
 *
 * @param auth The auth client.
 * @param provider The native flow.
 * @param options Captcha and a credential callback.
 * @returns The session.
 */
export async function signInWith(
  auth: AuthClient,
  provider: NativeAuthProvider,
  options: {
    captchaToken?: string | null;
    onCredential?: (credential: NativeAuthCredential) => void;
  } = {},
): Promise<ServiceResult<Session>> {
  const c = await provider.signIn();
  if (!c.ok) return c;
  // The document: a credential's rendering masks its tokens, name and email.
  options.onCredential?.(
    withMaskedFields({ ...c.value }, ["idToken", "accessToken", "nonce", "fullName", "email"]),
  );
  return auth.signInWithIdToken(c.value.provider, c.value.idToken, {
    accessToken: c.value.accessToken,
    nonce: c.value.nonce,
    captchaToken: options.captchaToken,
  });
}

/**
 * {@linkcode signInWith}, then saves the session.
 *
 * @example Native sign-in saved
 * ```ts
 * import { createBaseClient, success } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, signInWithAndSaveSession, type NativeAuthProvider } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const google: NativeAuthProvider = {
 *   provider: "google",
 *   signIn: () => Promise.resolve(success({ provider: "google" as const, idToken: "id-token" })),
 * };
 * await signInWithAndSaveSession(auth, createSessionManager(auth, client), google);
 * ```
 *
 * @param auth The auth client.
 * @param manager The session manager.
 * @param provider The native flow.
 * @param options Captcha and a credential callback.
 * @returns The session.
 */
export async function signInWithAndSaveSession(
  auth: AuthClient,
  manager: SessionManager,
  provider: NativeAuthProvider,
  options: {
    captchaToken?: string | null;
    onCredential?: (credential: NativeAuthCredential) => void;
  } = {},
): Promise<ServiceResult<Session>> {
  const r = await signInWith(auth, provider, options);
  return r.ok ? await saved(manager, r.value, r) : r;
}

const NONCE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/**
 * A URL-safe random nonce of `byteCount` characters of 6 bits each from a
 * secure RNG (default 32, i.e. 192 bits; fewer than 16 is a `RangeError`).
 *
 * @example A nonce for Apple sign-in
 * ```ts
 * import { generateNonce } from "@fetchbase/fetchbase/session";
 *
 * console.log(generateNonce().length); // 32
 * ```
 *
 * @param byteCount How many characters. Default 32, minimum 16.
 * @returns The nonce.
 */
export function generateNonce(byteCount = 32): string {
  if (!Number.isInteger(byteCount) || byteCount < 16) {
    throw new RangeError(
      `Cannot generate a nonce as 'byteCount' must be an integer >= 16: current value is ${byteCount}`,
    );
  }
  return randomString(byteCount, NONCE_ALPHABET);
}
