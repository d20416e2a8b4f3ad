/**
 * Client sign-in helpers: run a sign-in and apply the access token to the
 * base client so later requests are authenticated; `signOut` clears it.
 * Native sign-in: redeem a credential from a platform flow.
 *
 * @module
 */

import {
  type AuthCallOptions,
  type AuthClient,
  type CaptchaOptions,
  createAuthClient,
  type SignUpWithEmailOptions,
} from "../auth/client.ts";
import { type OAuthProvider, SignOutScope } from "../auth/enums.ts";
import type { NativeAuthCredential, Session } from "../auth/models.ts";
import type { BaseClient } from "../core/client.ts";
import { randomString } from "../core/crypto.ts";
import type { JsonObjectInput } from "../core/decode.ts";
import { failure, type ServiceResult, success } from "../core/result.ts";
import { describeThrown } from "../core/_thrown.ts";
import { redactCause, redactSecrets } from "../core/http_error.ts";
import type { SessionManager } from "./manager.ts";
import { saved } from "./_held.ts";
import { ABORTED, cancelled, refusedSignal, untilAborted } from "../core/_abort.ts";
import { withMaskedFields } from "../core/mask.ts";
import { showValue } from "../core/_show.ts";
import { alreadySignedOut } from "./_signed_out.ts";

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
 * @throws {TypeError} When `session` is not an object.
 */
export function applySession(client: BaseClient, session: Session): Session {
  if (typeof session !== "object" || session === null) {
    throw new TypeError(
      `Cannot apply the session as it must be a Session: current value is ${showValue(session)}`,
    );
  }
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
 * import { signInWithEmail } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * await signInWithEmail(client, "ada@example.com", "pw");
 * ```
 *
 * @param client The base client.
 * @param email The email.
 * @param password The password.
 * @param options Captcha and cancellation.
 * @returns The session.
 */
export function signInWithEmail(
  client: BaseClient,
  email: string,
  password: string,
  options?: CaptchaOptions,
): Promise<ServiceResult<Session>> {
  options ??= {};
  return applied(client, authOf(client).signInWithEmail(email, password, options));
}

/**
 * Phone password sign-in that authenticates the client.
 *
 * @example Sign in by phone
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { signInWithPhone } from "@fetchbase/fetchbase/session";
 *
 * await signInWithPhone(createBaseClient("https://p.example", "anon-key"), "+15550100", "pw");
 * ```
 *
 * @param client The base client.
 * @param phone The phone.
 * @param password The password.
 * @param options Captcha and cancellation.
 * @returns The session.
 */
export function signInWithPhone(
  client: BaseClient,
  phone: string,
  password: string,
  options?: CaptchaOptions,
): Promise<ServiceResult<Session>> {
  options ??= {};
  return applied(client, authOf(client).signInWithPhone(phone, password, options));
}

/**
 * Anonymous sign-in that authenticates the client.
 *
 * @example Anonymous
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { signInAnonymously } from "@fetchbase/fetchbase/session";
 *
 * await signInAnonymously(createBaseClient("https://p.example", "anon-key"));
 * ```
 *
 * @param client The base client.
 * @param options Metadata and captcha.
 * @returns The session.
 */
export function signInAnonymously(
  client: BaseClient,
  options?: CaptchaOptions & { data?: JsonObjectInput | null | undefined },
): Promise<ServiceResult<Session>> {
  options ??= {};
  return applied(client, authOf(client).signInAnonymously(options));
}

/**
 * id_token sign-in that authenticates the client.
 *
 * @example Apple
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { signInWithIdToken } from "@fetchbase/fetchbase/session";
 *
 * await signInWithIdToken(createBaseClient("https://p.example", "anon-key"), "apple", "id-token");
 * ```
 *
 * @param client The base client.
 * @param provider The provider.
 * @param idToken The id token.
 * @param options Access token, nonce, captcha.
 * @returns The session.
 */
export function signInWithIdToken(
  client: BaseClient,
  provider: OAuthProvider | string,
  idToken: string,
  options?: CaptchaOptions & {
    accessToken?: string | null | undefined;
    nonce?: string | null | undefined;
  },
): Promise<ServiceResult<Session>> {
  options ??= {};
  return applied(client, authOf(client).signInWithIdToken(provider, idToken, options));
}

/**
 * Email sign-up; authenticates the client only when a session with a token
 * is returned (confirmation off).
 *
 * @example Sign up
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { signUpWithEmail } from "@fetchbase/fetchbase/session";
 *
 * await signUpWithEmail(createBaseClient("https://p.example", "anon-key"), "ada@example.com", "pw");
 * ```
 *
 * @param client The base client.
 * @param email The email.
 * @param password The password.
 * @param options User metadata (`data`), `emailRedirectTo`, captcha, PKCE and cancellation.
 * @returns The session.
 */
export async function signUpWithEmail(
  client: BaseClient,
  email: string,
  password: string,
  options?: SignUpWithEmailOptions,
): Promise<ServiceResult<Session>> {
  options ??= {};
  const r = await authOf(client).signUpWithEmail(email, password, options);
  if (r.ok && r.value.accessToken !== "") applySession(client, r.value);
  return r;
}

/**
 * Signs the client's token out (default scope GLOBAL) and clears it. When
 * the client is not authenticated it succeeds without a request; when the
 * server call fails the token is kept so the sign-out can be retried, unless
 * GoTrue answers that the session is already gone (`session_not_found` or
 * `user_not_found`; with LOCAL, any 401, 403 or 404), which is a success:
 * that token could never be signed out.
 *
 * @example Sign out
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { signOut } from "@fetchbase/fetchbase/session";
 *
 * await signOut(createBaseClient("https://p.example", "anon-key"));
 * ```
 *
 * @param client The base client.
 * @param options Scope (default GLOBAL) and cancellation.
 * @returns Nothing.
 */
export async function signOut(
  client: BaseClient,
  options?: AuthCallOptions & { scope?: SignOutScope | undefined },
): Promise<ServiceResult<void>> {
  options ??= {};
  const token = client.accessToken;
  if (!token) {
    client.clearAccessToken();
    return success(undefined);
  }
  const scope = options.scope ?? SignOutScope.GLOBAL;
  let r = await authOf(client).signOut(token, { ...options, scope });
  // A session GoTrue has already ended (`session_not_found`; for LOCAL, any token it refuses) is
  // signed out: kept, its token failed every sign-out again, as signOutCurrentSession knows.
  const dead = alreadySignedOut(r, scope);
  if (dead) r = success(undefined);
  // A token applied while the call was under way is another session's: it stays, and so
  // does this one when only the others were signed out (OTHERS), unless its session is gone.
  if (r.ok && (scope !== SignOutScope.OTHERS || dead) && client.accessToken === token) {
    client.clearAccessToken();
  }
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
 * `onCredential` sees the raw credential first (awaited; one that throws
 * ends the sign-in as `Failure(UNKNOWN)`, nothing redeemed).
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
  options?: CaptchaOptions & {
    onCredential?: ((credential: NativeAuthCredential) => void | Promise<void>) | undefined;
  },
): Promise<ServiceResult<Session>> {
  // A signal of the wrong type is refused before the native sheet is shown, not after.
  options ??= {};
  const refused = refusedSignal(options.signal);
  if (refused) return refused;
  if (options.signal?.aborted) return cancelled();
  if (typeof provider?.signIn !== "function") {
    return failure({
      message: "Cannot sign in as 'provider' must be a NativeAuthProvider with a signIn function",
      category: "INVALID_ARGUMENT",
    });
  }
  let c: ServiceResult<NativeAuthCredential>;
  try {
    // A native sheet that never calls back must not hold a caller who gave up.
    // Called in this turn (a popup may need the user's click), a throw caught as a rejection.
    const got = await untilAborted(
      new Promise<ServiceResult<NativeAuthCredential>>((resolve) => resolve(provider.signIn())),
      options.signal,
    );
    if (got === ABORTED) return cancelled();
    c = got;
  } catch (error) {
    // A provider should resolve a Failure; one that throws (native sign-in missing) still ends here.
    // Its words may quote the token it got (`verification failed for eyJ…`): JWTs are redacted.
    return failure({
      message: redactSecrets(`Native sign-in failed: ${said(error)}`, []),
      category: "UNKNOWN",
      cause: keptCode(error, redactCause(error, []), []),
    });
  }
  if (!c.ok) return c;
  try {
    // The document: a credential's rendering masks its tokens, name and email. An async
    // callback is waited for, so that what it does comes before the redemption.
    const done = await untilAborted(
      Promise.resolve(
        options.onCredential?.(
          withMaskedFields({ ...c.value }, [
            "idToken",
            "accessToken",
            "nonce",
            "fullName",
            "email",
          ]),
        ),
      ),
      options.signal,
    );
    if (done === ABORTED) return cancelled();
  } catch (error) {
    // The caller's own callback: its error stops the sign-in (nothing redeemed), as a Failure,
    // without the credential's tokens and nonce, which its message may quote.
    const secrets = [c.value.idToken, c.value.accessToken, c.value.nonce];
    return failure({
      message: redactSecrets(
        `Cannot sign in as 'onCredential' threw: ${said(error)}`,
        secrets,
      ),
      category: "UNKNOWN",
      cause: keptCode(error, redactCause(error, secrets), secrets),
    });
  }
  return auth.signInWithIdToken(c.value.provider, c.value.idToken, {
    accessToken: c.value.accessToken,
    nonce: c.value.nonce,
    captchaToken: options.captchaToken,
    signal: options.signal,
    timeout: options.timeout,
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
  options?: CaptchaOptions & {
    onCredential?: ((credential: NativeAuthCredential) => void | Promise<void>) | undefined;
  },
): Promise<ServiceResult<Session>> {
  options ??= {};
  const r = await signInWith(auth, provider, options);
  return r.ok ? await saved(manager, r.value, r, options?.signal) : r;
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
 * @param options `byteCount`: how many characters. Default 32, minimum 16.
 * @returns The nonce.
 */
export function generateNonce(options?: { byteCount?: number | undefined }): string {
  options ??= {};
  // The document writes `generateNonce(byteCount)`: a bare number was read as no options.
  if (typeof options !== "object") {
    throw new TypeError(
      `Cannot generate a nonce as 'options' must be an object such as { byteCount }: current value is ${
        showValue(options)
      }`,
    );
  }
  const byteCount = options.byteCount ?? 32;
  if (!Number.isInteger(byteCount) || byteCount < 16) {
    throw new RangeError(
      `Cannot generate a nonce as 'byteCount' must be an integer >= 16: current value is ${
        showValue(byteCount)
      }`,
    );
  }
  return randomString(byteCount, NONCE_ALPHABET);
}

/**
 * The redacted copy of `error` with its `code` back: a native module's rejection carries fields
 * the copy drops (`userInfo`, `nativeStackAndroid`), and callers branch on its `code`
 * (`SIGN_IN_CANCELLED`). Here rather than in `redactCause`, which every request's failure goes
 * through: keeping the code there measured 11 bytes past the verify-only bundle's limit.
 */
function keptCode(
  error: unknown,
  redacted: unknown,
  secrets: ReadonlyArray<string | null | undefined>,
): unknown {
  let raw: unknown;
  try {
    raw = (error as { code?: unknown } | null)?.code;
  } catch {
    return redacted; // a getter that throws: no code to keep
  }
  // Redacted as the message is: a code is text the thrower chose.
  const code = typeof raw === "string" ? redactSecrets(raw, secrets) : raw;
  // A bridge that rejects with a plain `{ code, message }` object: an Error of its own, with both.
  if (typeof redacted === "string" && (typeof code === "string" || typeof code === "number")) {
    return Object.assign(new Error(redactSecrets(said(error), secrets)), { code });
  }
  if (
    redacted !== error && redacted instanceof Error &&
    (typeof code === "string" || typeof code === "number")
  ) {
    (redacted as { code?: unknown }).code = code;
  }
  return redacted;
}

/** What a thrown value says: its message, a plain `{ message }` object's too (a native bridge's). */
function said(error: unknown): string {
  try {
    const message = (error as { message?: unknown } | null)?.message;
    if (typeof message === "string") return message;
  } catch {
    // A getter that throws: what describeThrown makes of it.
  }
  return describeThrown(error);
}
