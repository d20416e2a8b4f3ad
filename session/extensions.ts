/**
 * Session-aware extensions (they fail with `No active session` when there
 * is none) and helpers that import sessions from tokens, fragments and codes.
 * Those that read the held session wait first for a restore begun with none
 * held (`Loading`) to settle, as auth-js's methods await its initialisation:
 * their `signal` ends only that wait (`Failure(CANCELLED)`), and their
 * `timeout` (the client's by default) bounds it and their request together.
 * With auto-refresh on, those that send the held session's token refresh a
 * lapsed one first (the manager's shared refresh, under the same signal and
 * timeout), as auth-js does; with it off they answer `NO_SESSION` (code
 * `session_expired`).
 *
 * @module
 */

import type {
  AuthCallOptions,
  AuthClient,
  LinkIdentityOptions,
  SsoOptions,
  UpdateUserOptions,
} from "../auth/client.ts";
import { type OAuthProvider, SignOutScope } from "../auth/enums.ts";
import { parseSessionTokensFromFragment, parseSessionTokensFromUrl } from "../auth/fragment.ts";
import { verifyOAuthState } from "../auth/oauth_state.ts";
import { getClaims, type GetClaimsOptions } from "../auth/get_claims.ts";
import { checkTimes } from "../auth/_claim_times.ts";
import { type JwtClaimsResult, parseJwtClaims } from "../auth/jwt.ts";
import type {
  LinkIdentityResponse,
  ParsedSessionTokens,
  Session,
  SsoResponse,
  User,
  UserIdentity,
  UserUpdateRequest,
} from "../auth/models.ts";
import type { JsonObject } from "../core/decode.ts";
import { withMaskedFields } from "../core/mask.ts";
import { ABORTED, cancelled, untilAborted, untilCancelled } from "../core/_abort.ts";
import { deadline, type Within } from "../core/_deadline.ts";
import { showValue } from "../core/_show.ts";
import { type Failure, failure, type ServiceResult, success } from "../core/result.ts";
import { AuthStateChangeEvent, type SessionManager } from "./manager.ts";
import { copySession, copyUser } from "./_copy.ts";
import { clockGap } from "./_clock.ts";
import { alreadySignedOut } from "./_signed_out.ts";
import {
  afterRestore,
  call,
  heldSession,
  isSeconds,
  type LapseRefresh,
  lapseRefresh,
  noSession,
  numericClaim,
  onLiveSession,
  restoreWait,
  sameSession,
  saved,
  storageFailure,
  storeWaitCancelled,
  superseded,
  tokenOf,
} from "./_held.ts";

const EMPTY_USER: User = {
  id: "",
  email: null,
  phone: null,
  createdAt: null,
  updatedAt: null,
  appMetadata: null,
  userMetadata: null,
  identities: null,
  factors: null,
  isAnonymous: null,
  role: null,
  emailConfirmedAt: null,
  phoneConfirmedAt: null,
  confirmedAt: null,
  lastSignInAt: null,
};

function makeSession(
  accessToken: string,
  refreshToken: string,
  expiresIn: number,
  tokenType: string,
  user: User,
): Session {
  return withMaskedFields({
    accessToken,
    refreshToken,
    expiresIn,
    // The token's own exp is exact; else now + expiresIn; else an unknown lifetime.
    expiresAt: numericClaim(accessToken, "exp") ??
      (expiresIn > 0 ? Math.floor(Date.now() / 1000) + expiresIn : null),
    tokenType,
    user,
    providerToken: null,
    providerRefreshToken: null,
  }, ["accessToken", "refreshToken"]);
}

/**
 * Stores `user` in the manager's session as it is now, not as it was when the
 * request left (a refresh may have rotated the tokens meanwhile); nothing is
 * stored when the session has ended or belongs to another user by then.
 */
async function saveUser(
  manager: SessionManager,
  before: Session,
  user: User,
  signal?: AbortSignal,
): Promise<Failure | null> {
  const now = manager.currentSession;
  if (!now || !sameSession(before, now)) return null;
  const r = await saved(
    manager,
    copySession(now, { user }),
    success(undefined),
    signal,
    AuthStateChangeEvent.USER_UPDATED,
  );
  return r.ok ? null : r as Failure;
}

/**
 * Returns `r`, having signed `session` out here (`SIGNED_OUT`, storage cleared) when GoTrue's
 * `GET /user` answered that it no longer knows it (`session_not_found`, not a 5xx), as auth-js's
 * `getUser` (and what goes through it) removes its session, if the manager still holds that
 * session: a sign-in meanwhile stays. A clear whose storage fails, or whose wait `signal` ends,
 * leaves it forgotten in memory; the answer is still GoTrue's.
 */
async function endedThere<T>(
  manager: SessionManager,
  session: Session,
  r: ServiceResult<T>,
  signal?: AbortSignal,
): Promise<ServiceResult<T>> {
  if (
    !r.ok && r.error.code === "session_not_found" && (r.error.status ?? 500) < 500 &&
    sameSession(session, heldSession(manager))
  ) {
    try {
      await untilAborted(manager.clearSession(), signal);
    } catch {
      // Forgotten in memory; the storage failed to clear it.
    }
  }
  return r;
}

/**
 * Fetches the current user; with `updateStoredSession` the stored session gets it.
 * An answer that GoTrue no longer knows the session (`session_not_found`)
 * signs it out here (SIGNED_OUT, storage cleared), as auth-js's `getUser`
 * does, when the manager still holds that session, and is returned.
 * It waits for a restore under way (`Loading`) and, with auto-refresh on,
 * refreshes a lapsed session before its request (a failed refresh is the
 * answer, and nothing is sent).
 *
 * @example getUserForCurrentSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, getUserForCurrentSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await getUserForCurrentSession(auth, manager);
 * ```
 *
 * @param auth The auth client.
 * @param manager The session manager.
 * @param options `updateStoredSession` (default false).
 * @returns The user.
 */
export function getUserForCurrentSession(
  auth: AuthClient,
  manager: SessionManager,
  options?: AuthCallOptions & { updateStoredSession?: boolean | undefined },
): Promise<ServiceResult<User>> {
  return onLiveSession(manager, auth.client.timeout, options ?? {}, async (options) => {
    const session = manager.currentSession;
    if (!session) return noSession(manager);
    const r = await auth.getUser(session.accessToken, call(options));
    if (r.ok && options.updateStoredSession) {
      const stored = await saveUser(manager, session, r.value, options.signal);
      if (stored) return stored;
    }
    return await endedThere(manager, session, r, options.signal);
  });
}

/**
 * Sends a reauthentication code for the current session.
 * It waits for a restore under way (`Loading`) and, with auto-refresh on,
 * refreshes a lapsed session before its request (a failed refresh is the
 * answer, and nothing is sent).
 *
 * @example reauthenticateCurrentSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, reauthenticateCurrentSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await reauthenticateCurrentSession(auth, manager);
 * ```
 *
 * @param auth The auth client.
 * @param manager The session manager.
 * @param options Cancellation (`signal`) and `timeout`.
 * @returns Nothing.
 */
export function reauthenticateCurrentSession(
  auth: AuthClient,
  manager: SessionManager,
  options?: AuthCallOptions,
): Promise<ServiceResult<void>> {
  return onLiveSession(manager, auth.client.timeout, options ?? {}, async (options) => {
    const session = manager.currentSession;
    if (!session) return noSession(manager);
    return await auth.reauthenticate(session.accessToken, call(options));
  });
}

/**
 * Updates the current user; by default the stored session gets the new user (USER_UPDATED).
 * It waits for a restore under way (`Loading`) and, with auto-refresh on,
 * refreshes a lapsed session before its request (a failed refresh is the
 * answer, and nothing is sent).
 *
 * @example updateUserForCurrentSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, updateUserForCurrentSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await updateUserForCurrentSession(auth, manager, { data: { theme: "dark" } });
 * ```
 *
 * @param auth The auth client.
 * @param manager The session manager.
 * @param updates The changes.
 * @param options `updateStoredSession` (default true); an email change's `emailRedirectTo` and `pkceParams`.
 * @returns The user.
 */
export function updateUserForCurrentSession(
  auth: AuthClient,
  manager: SessionManager,
  updates: UserUpdateRequest,
  options?: UpdateUserOptions & { updateStoredSession?: boolean | undefined },
): Promise<ServiceResult<User>> {
  return onLiveSession(manager, auth.client.timeout, options ?? {}, async (options) => {
    const session = manager.currentSession;
    if (!session) return noSession(manager);
    // An email change's link goes where asked, in the PKCE flow when given a challenge.
    const r = await auth.updateUser(session.accessToken, updates, {
      ...call(options),
      emailRedirectTo: options.emailRedirectTo,
      pkceParams: options.pkceParams,
    });
    if (r.ok && (options.updateStoredSession ?? true)) {
      const stored = await saveUser(manager, session, r.value, options.signal);
      if (stored) return stored;
    }
    return r;
  });
}

/**
 * Refreshes the current session (the manager's single-flight refresh), after
 * a restore under way (`Loading`) has settled. The auth client comes first, as
 * for every other session-aware extension (the refresh itself goes through the
 * manager).
 *
 * @example refreshCurrentSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, refreshCurrentSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await refreshCurrentSession(auth, manager);
 * ```
 *
 * @param auth The auth client (the receiver, as for the other extensions).
 * @param manager The session manager.
 * @param options Cancellation (`signal`) and `timeout`.
 * @returns The new session.
 */
export function refreshCurrentSession(
  auth: AuthClient,
  manager: SessionManager,
  options?: AuthCallOptions,
): Promise<ServiceResult<Session>> {
  void auth; // the manager holds its own auth client
  // A manager given first (an earlier signature of this function) is a clear failure.
  if (typeof (manager as { refreshSession?: unknown } | null)?.refreshSession !== "function") {
    return Promise.resolve(failure({
      message:
        "Cannot refresh as 'manager' must be a SessionManager: call refreshCurrentSession(auth, manager)",
      category: "INVALID_ARGUMENT",
    }));
  }
  // The refresh is shared with other callers: a signal ends only this caller's wait, and the
  // manager waits for a restore under way first.
  options ??= {};
  return manager.refreshSession({ signal: options.signal, timeout: options.timeout });
}

/**
 * Signs the current session out and clears storage; with no session it succeeds when `succeedIfNoSession` (default).
 * A shared storage that holds another account's sign-in made after the
 * session's (the user switched account in another tab) keeps it: the session
 * is signed out with its own token (a lapsed one granted anew first, held in
 * memory only; that grant failing is the answer, for every scope, and
 * nothing is sent) and ends here, and the storage is left alone. Otherwise
 * the storage is cleared in its turn, after a read of at most 1 s that keeps
 * such a sign-in there (a read that fails or times out clears anyway).
 * A lapsed (`Expired`) session is signed out too: it is refreshed first,
 * since the server refuses a lapsed token (401/403) and ends nothing, which
 * would leave its refresh token usable. A refresh whose new tokens the
 * storage could not save (live in memory) counts as done: the new token is
 * sent (with OTHERS, which keeps the session, the storage failure is then
 * the answer). With scope LOCAL (the default), when
 * that refresh fails (offline, or the session is already dead; not the
 * caller's cancellation) the lapsed token is sent, and an answer of 401, 403 or 404 (the server no longer
 * accepts the token or knows its session) clears the session here and
 * succeeds. GLOBAL and OTHERS need a token the server accepts: a failed
 * refresh is the answer, and only a session GoTrue says has ended
 * (`session_not_found`, `user_not_found`) counts as done; a refused token
 * revoked nothing, so it fails. With OTHERS this session is kept. Any other
 * failure keeps it. The storage is cleared once `/logout` has answered, as
 * auth-js does: a tab closed or a worker stopped during that request leaves
 * the session stored, and the next start restores it until its first refresh
 * is refused.
 * During a restore (`Loading`) it first waits for the stored session to be
 * read (the caller's `signal` ends the wait), then signs out what was found.
 * The call's `timeout` (the client's by default) bounds the whole call, from
 * its start: that wait, the refresh and `/logout` each get only what is left,
 * and with nothing left it ends as a request's timeout does (`TIMEOUT`).
 * The session is the one the manager holds: a manager made for a request
 * (over its cookies) holds none until `initialize` (or `restoreSession`) has
 * read the storage, and signs nothing out before.
 *
 * @example signOutCurrentSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import {
 *   CookieSessionStorage,
 *   createSessionManager,
 *   signOutCurrentSession,
 * } from "@fetchbase/fetchbase/session";
 *
 * async function signOut(request: Request): Promise<Response> {
 *   const client = createBaseClient("https://p.example", "anon-key");
 *   const auth = createAuthClient(client);
 *   const storage = new CookieSessionStorage(request);
 *   const manager = createSessionManager(auth, client, { storage });
 *   await manager.initialize(); // reads the session from the request's cookies
 *   const r = await signOutCurrentSession(auth, manager);
 *   manager.dispose();
 *   const headers = new Headers({ location: "/" });
 *   for (const cookie of storage.setCookieHeaders()) headers.append("set-cookie", cookie);
 *   return new Response(null, { status: r.ok ? 303 : 500, headers });
 * }
 * ```
 *
 * @param auth The auth client.
 * @param manager The session manager.
 * @param options Scope, clearing, idempotence, cancellation and the timeout of the whole call.
 * @returns Nothing.
 */
export async function signOutCurrentSession(
  auth: AuthClient,
  manager: SessionManager,
  options?: AuthCallOptions & {
    scope?: SignOutScope | undefined;
    clearStoredSessionOnSuccess?: boolean | undefined;
    succeedIfNoSession?: boolean | undefined;
  },
): Promise<ServiceResult<void>> {
  // A restore still reading storage (Loading) may yet bring a session in: it is waited for, so
  // that the session it finds is signed out rather than reported absent and restored after.
  options ??= {};
  // One deadline: the call's timeout (the client's by default) bounds the wait for a restore,
  // the refresh of a lapsed session and the sign-out together, each getting what is left.
  const within = deadline(options.timeout, auth.client.timeout);
  const restore = restoreWait(manager, options.signal, within);
  if (restore) {
    const read = await restore;
    if (!read.ok) return read;
  }
  let session = heldSession(manager);
  if (!session) {
    // Nothing usable is held, but a request's cookies may still hold what could not be read (a
    // session that lost a chunk: its first chunk holds the refresh token, and the response wrote
    // no deletion): cleared, as a sign-out should leave nothing behind in that browser. Only
    // there: a shared storage may hold another project's session, or another tab's sign-in.
    if (lapseRefresh.get(manager)?.perRequest) {
      try {
        await manager.clearSession({ signal: options.signal });
      } catch {
        // An abort is the caller's answer, as with a session held; else nothing usable was
        // stored.
        if (options.signal?.aborted) return cancelled(options.signal.reason);
      }
    }
    return (options.succeedIfNoSession ?? true) ? success(undefined) : noSession(manager);
  }
  const scope = options.scope ?? SignOutScope.LOCAL;
  // Another account signed in since, in another tab (the shared storage holds its later
  // sign-in): this session is signed out with its own tokens, and the storage is left alone. A
  // lapsed one is checked for before its refresh, which would end it here first.
  const lend = lapseRefresh.get(manager);
  if (lend && manager.sessionState.value.kind === "Expired") {
    const read = await storedWithin(lend, options.signal, within);
    if (!read.ok) return read; // nothing is sent, nothing is dropped
    const stored = read.value;
    if (stored && lend.switchedAway(stored, session)) {
      return signOutSwitchedAway(auth, manager, lend, session, scope, options.signal, within);
    }
  }
  // Ending a session needs a token the server accepts: a lapsed one is refreshed first (GoTrue
  // answers a lapsed token 401/403 and ends nothing: its refresh token would stay usable).
  let ended = false;
  // A refresh that got new tokens but could not store them: said when the session is kept.
  let unstored: Failure | null = null;
  if (manager.sessionState.value.kind === "Expired") {
    const fresh = await within((timeout) =>
      untilCancelled(() => manager.refreshSession(), options.signal, timeout)
    );
    // Held and live (not lapsed): what the refresh left in memory.
    const now = manager.currentSession;
    if (fresh.ok) session = fresh.value;
    // The grant answered but the storage failed: the new tokens are held, live, and are the
    // ones the server accepts (the lapsed token would be refused and end nothing).
    else if (
      fresh.error.category !== "CANCELLED" && now !== null &&
      now.refreshToken !== session.refreshToken && sameSession(session, now)
    ) [session, unstored] = [now, fresh];
    // LOCAL goes on with the lapsed token when the refresh fails (offline, or the session is
    // already dead): the session is then cleared here, as before.
    else if (scope !== SignOutScope.LOCAL || fresh.error.category === "CANCELLED") return fresh;
    else ended = heldSession(manager) === null;
  }
  const token = session.accessToken;
  let r = await within((timeout) =>
    auth.signOut(token, { signal: options.signal, timeout, scope })
  );
  const dead = alreadySignedOut(r, scope);
  if (dead) r = success(undefined);
  // Only the session signed out is cleared: one that replaced it meanwhile stays, and so
  // does this one when only the others were signed out (OTHERS), unless its token is dead.
  if (
    r.ok && (scope !== SignOutScope.OTHERS || dead) &&
    (options.clearStoredSessionOnSuccess ?? true) &&
    // A failed refresh that ended the session in memory left its storage as it was: cleared too
    // when it holds that session or none (another tab's sign-in there stays).
    (sameSession(session, heldSession(manager)) || ended && heldSession(manager) === null)
  ) {
    // Forgotten at once; a signal ends only the wait for the storage, which clears all the same,
    // in its turn, unless it holds another sign-in that is not this session's to clear.
    const clearing = lend ? lend.clearUnlessElsewhere(session, ended) : manager.clearSession();
    try {
      if ((await untilAborted(clearing, options.signal)) === ABORTED) return storeWaitCancelled();
    } catch (error) {
      // Forgotten in memory, still in storage: a reload would bring it back.
      return storageFailure(
        error,
        "The session was signed out and forgotten here but the session storage failed to clear it",
        session,
      );
    }
  }
  // A session kept (OTHERS) is live here but its new tokens are not stored: said as the refresh did.
  return r.ok && unstored && sameSession(session, heldSession(manager)) ? unstored : r;
}

/**
 * The shared storage's session, read for at most 2 s and within the call's deadline: TIMEOUT or
 * CANCELLED (the signal) when the wait ends first.
 */
function storedWithin(
  lend: LapseRefresh,
  signal: AbortSignal | undefined,
  within: Within,
): Promise<ServiceResult<Session | null | undefined>> {
  return within((timeout) =>
    untilCancelled(() => lend.stored(signal).then((s) => success(s)), signal, timeout)
  );
}

/**
 * Signs out a session whose tab another account has signed in over (see
 * {@linkcode signOutCurrentSession}): with its own access token, a lapsed one granted anew first
 * and held in memory (never stored over the other account, and kept for a retry should the
 * sign-out fail); once signed out (`OTHERS` keeps it) it ends here and the storage is left alone.
 */
async function signOutSwitchedAway(
  auth: AuthClient,
  manager: SessionManager,
  lend: LapseRefresh,
  session: Session,
  scope: SignOutScope,
  signal: AbortSignal | undefined,
  within: Within,
): Promise<ServiceResult<void>> {
  if (manager.sessionState.value.kind === "Expired") {
    const refreshToken = session.refreshToken;
    const own = await within((timeout) => auth.refreshToken(refreshToken, { signal, timeout }));
    if (!own.ok) return own;
    // The grant's own tokens go to the server whether or not the manager still holds the
    // session (a timer or a restore may have let it go meanwhile).
    session = lend.holdHere(session, own.value) ?? own.value;
  }
  const token = session.accessToken;
  const r = await within((timeout) => auth.signOut(token, { signal, timeout, scope }));
  const dead = alreadySignedOut(r, scope);
  if (!r.ok && !dead) return r;
  if (scope !== SignOutScope.OTHERS || dead) lend.endHere(session);
  return success(undefined);
}

/**
 * The SSO URL, authenticated with the current session.
 * It waits for a restore under way (`Loading`) and, with auto-refresh on,
 * refreshes a lapsed session before its request (a failed refresh is the
 * answer, and nothing is sent).
 *
 * @example getSsoUrlForCurrentSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, getSsoUrlForCurrentSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await getSsoUrlForCurrentSession(auth, manager, { domain: "corp.example" });
 * ```
 *
 * @param auth The auth client.
 * @param manager The session manager.
 * @param options Domain or provider id, redirect, PKCE, captcha.
 * @returns The URL.
 */
export function getSsoUrlForCurrentSession(
  auth: AuthClient,
  manager: SessionManager,
  options?: Omit<SsoOptions, "accessToken">,
): Promise<ServiceResult<SsoResponse>> {
  return onLiveSession(manager, auth.client.timeout, options ?? {}, async (options) => {
    const session = manager.currentSession;
    if (!session) return noSession(manager);
    return await auth.getSsoUrl({ ...options, accessToken: session.accessToken });
  });
}

/**
 * The current user's identities. An answer that GoTrue no longer knows the
 * session (`session_not_found`) signs it out here, as for
 * {@linkcode getUserForCurrentSession}.
 * It waits for a restore under way (`Loading`) and, with auto-refresh on,
 * refreshes a lapsed session before its request (a failed refresh is the
 * answer, and nothing is sent).
 *
 * @example getUserIdentitiesForCurrentSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, getUserIdentitiesForCurrentSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await getUserIdentitiesForCurrentSession(auth, manager);
 * ```
 *
 * @param auth The auth client.
 * @param manager The session manager.
 * @param options Cancellation (`signal`) and `timeout`.
 * @returns The identities.
 */
export function getUserIdentitiesForCurrentSession(
  auth: AuthClient,
  manager: SessionManager,
  options?: AuthCallOptions,
): Promise<ServiceResult<UserIdentity[]>> {
  return onLiveSession(manager, auth.client.timeout, options ?? {}, async (options) => {
    const session = manager.currentSession;
    if (!session) return noSession(manager);
    const r = await auth.getUserIdentities(session.accessToken, call(options));
    return await endedThere(manager, session, r, options.signal);
  });
}

/**
 * The URL that links a provider identity to the current user.
 * It waits for a restore under way (`Loading`) and, with auto-refresh on,
 * refreshes a lapsed session before its request (a failed refresh is the
 * answer, and nothing is sent).
 *
 * @example linkIdentityForCurrentSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, linkIdentityForCurrentSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await linkIdentityForCurrentSession(auth, manager, "github");
 * ```
 *
 * @param auth The auth client.
 * @param manager The session manager.
 * @param provider The provider.
 * @param options Redirect, scopes, query params, PKCE.
 * @returns The URL.
 */
export function linkIdentityForCurrentSession(
  auth: AuthClient,
  manager: SessionManager,
  provider: OAuthProvider | string,
  options?: LinkIdentityOptions,
): Promise<ServiceResult<LinkIdentityResponse>> {
  return onLiveSession(manager, auth.client.timeout, options ?? {}, (options) => {
    const session = manager.currentSession;
    if (!session) return Promise.resolve(noSession(manager));
    // A blank provider or a `state` query parameter is a Failure from linkIdentity.
    return auth.linkIdentity(session.accessToken, provider, options);
  });
}

/**
 * Links an identity by id token; by default the new session is saved.
 * It waits for a restore under way (`Loading`) and, with auto-refresh on,
 * refreshes a lapsed session before its request (a failed refresh is the
 * answer, and nothing is sent).
 *
 * GoTrue answers with a new session, not the held one renewed: its only authentication method is
 * the identity's (`amr` `oauth`), so it is at `aal1` even when the held session reached `aal2`
 * through MFA (verify a factor again where `aal2` is needed), and the held session stays valid on
 * the server until it is signed out or expires.
 *
 * @example linkIdentityWithIdTokenForCurrentSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, linkIdentityWithIdTokenForCurrentSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await linkIdentityWithIdTokenForCurrentSession(auth, manager, "google", "id-token");
 * ```
 *
 * @param auth The auth client.
 * @param manager The session manager.
 * @param provider The provider.
 * @param idToken The id token.
 * @param options Provider token, nonce, saving.
 * @returns The session.
 */
export function linkIdentityWithIdTokenForCurrentSession(
  auth: AuthClient,
  manager: SessionManager,
  provider: OAuthProvider | string,
  idToken: string,
  options?: AuthCallOptions & {
    providerAccessToken?: string | null | undefined;
    nonce?: string | null | undefined;
    updateStoredSession?: boolean | undefined;
  },
): Promise<ServiceResult<Session>> {
  return onLiveSession(manager, auth.client.timeout, options ?? {}, async (options) => {
    const session = manager.currentSession;
    if (!session) return noSession(manager);
    const r = await auth.linkIdentityWithIdToken(session.accessToken, provider, idToken, options);
    if (r.ok && (options.updateStoredSession ?? true)) {
      if (!sameSession(session, heldSession(manager))) return superseded();
      return await saved(manager, r.value, r, options.signal, AuthStateChangeEvent.USER_UPDATED);
    }
    return r;
  });
}

/**
 * Unlinks an identity (by `UserIdentity.id`); by default stores the user GoTrue now has (see
 * {@linkcode unlinkIdentityAndUpdateSession}). It waits for a restore under way (`Loading`) and, with auto-refresh on,
 * refreshes a lapsed session before its request (a failed refresh is the
 * answer, and nothing is sent).
 *
 * @example unlinkIdentityForCurrentSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, unlinkIdentityForCurrentSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await unlinkIdentityForCurrentSession(auth, manager, "identity-id");
 * ```
 *
 * @param auth The auth client.
 * @param manager The session manager.
 * @param identityId The identity's id.
 * @param options `updateStoredSession` (default true).
 * @returns Nothing.
 */
export function unlinkIdentityForCurrentSession(
  auth: AuthClient,
  manager: SessionManager,
  identityId: string,
  options?: AuthCallOptions & { updateStoredSession?: boolean | undefined },
): Promise<ServiceResult<void>> {
  return onLiveSession(manager, auth.client.timeout, options ?? {}, async (options) => {
    const session = manager.currentSession;
    if (!session) return noSession(manager);
    return await unlinkIdentityAndUpdateSession(
      auth,
      session.accessToken,
      identityId,
      manager,
      options,
    );
  });
}

/**
 * Unlinks an identity and removes it from the stored session's user. GoTrue
 * also rewrites the user's email, phone and providers from the identities
 * left, so the user is read again (`GET /user`, with the session's current
 * token, under the call's one timeout) and stored; where that read fails, the
 * identity is only dropped from the stored user. A restore under way
 * (`Loading`) is waited for first; the token given is sent as it is (no
 * lapsed session is refreshed).
 *
 * @example unlinkIdentityAndUpdateSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, unlinkIdentityAndUpdateSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await unlinkIdentityAndUpdateSession(auth, "access-token", "identity-id", manager);
 * ```
 *
 * @param auth The auth client.
 * @param accessToken The access token.
 * @param identityId The identity's id.
 * @param manager The session manager.
 * @param options `updateStoredSession` (default true).
 * @returns Nothing.
 */
export function unlinkIdentityAndUpdateSession(
  auth: AuthClient,
  accessToken: string,
  identityId: string,
  manager: SessionManager,
  options?: AuthCallOptions & { updateStoredSession?: boolean | undefined },
): Promise<ServiceResult<void>> {
  // The session the token belongs to may be being restored: it is waited for, so that its
  // stored user loses the identity too.
  return afterRestore(manager, auth.client.timeout, options ?? {}, async (options) => {
    // One deadline for the unlink and the read that follows it.
    const within = deadline(options.timeout, auth.client.timeout);
    const before = manager.currentSession;
    const r = await within((timeout) =>
      auth.unlinkIdentity(accessToken, identityId, { signal: options.signal, timeout })
    );
    // Only the session the identity was unlinked from (by one of its tokens, perhaps one a
    // refresh has rotated since), still held, is updated.
    const held = manager.currentSession;
    if (
      !r.ok || !before || !tokenOf(before, accessToken) || !(options.updateStoredSession ?? true) ||
      !held || !sameSession(before, held)
    ) {
      return r;
    }
    // GoTrue also rewrites the user's email, phone and `providers` from the identities left
    // (internal/api/identity.go): the user is read again, with the session's current token.
    // Where that read fails (cancelled, timed out, refused), the identity is only dropped from
    // the stored user: the unlink is done.
    const fresh = await within((timeout) =>
      auth.getUser(held.accessToken, { signal: options.signal, timeout })
    );
    const session = manager.currentSession;
    if (!session || !sameSession(before, session)) return r;
    // A user stored while the read was under way (an update, a refresh's) may be newer than the
    // read's: it keeps its fields and loses only the identity.
    const user = fresh.ok && fresh.value.id === session.user.id && session.user === held.user
      ? fresh.value
      : copyUser(
        session.user,
        {
          identities: (session.user.identities ?? []).filter((i) =>
            i.id !== identityId && i.identityId !== identityId
          ),
        },
      );
    return await saved(
      manager,
      copySession(session, { user }),
      r,
      options.signal,
      AuthStateChangeEvent.USER_UPDATED,
    );
  });
}

/**
 * Adopts an externally minted token as a saved session (fetching the user by default).
 *
 * @example importAuthToken
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, importAuthToken } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await importAuthToken(auth, manager, "eyJ...");
 * ```
 *
 * @param auth The auth client.
 * @param manager The session manager.
 * @param accessToken The token.
 * @param options Refresh token, lifetime, type, user retrieval.
 * @returns The session.
 */
export async function importAuthToken(
  auth: AuthClient,
  manager: SessionManager,
  accessToken: string,
  options?: AuthCallOptions & {
    refreshToken?: string | undefined;
    expiresIn?: number | undefined;
    tokenType?: string | undefined;
    retrieveUser?: boolean | undefined;
  },
): Promise<ServiceResult<Session>> {
  options ??= {};
  if (typeof accessToken !== "string" || accessToken.trim() === "") {
    return failure({ message: "Cannot import a blank access token", category: "INVALID_ARGUMENT" });
  }
  const expiresIn = options.expiresIn;
  // Checked before the user is fetched: the session could not be saved anyway.
  if (expiresIn !== undefined && !isSeconds(expiresIn)) {
    return failure({
      message:
        `Cannot import the token as 'expiresIn' must be a non-negative number of seconds: current value is ${
          showValue(expiresIn)
        }`,
      category: "INVALID_ARGUMENT",
    });
  }
  let user: User;
  if (options.retrieveUser ?? true) {
    const u = await auth.getUser(accessToken, call(options));
    if (!u.ok) return u;
    user = u.value;
  } else {
    const claims = parseJwtClaims(accessToken);
    const sub = claims.ok && typeof claims.value.sub === "string" ? claims.value.sub : "";
    user = { ...EMPTY_USER, id: sub };
  }
  const session = makeSession(
    accessToken,
    options.refreshToken ?? "",
    options.expiresIn ?? 0,
    options.tokenType ?? "bearer",
    user,
  );
  return await saved(manager, session, success(session), options?.signal);
}

/** Options of {@linkcode importSessionFromUrl}. */
export interface ImportSessionOptions extends AuthCallOptions {
  /**
   * The OAuth `state` this browser put in `redirectTo`'s query before the
   * redirect (`generateOAuthState`): `importSessionFromUrl` then
   * refuses a URL whose query holds another state or none
   * (`Failure(INVALID_ARGUMENT)`, `oauth_state_missing` or
   * `oauth_state_mismatch`), so that a link someone else made cannot sign
   * this browser into their account. `null` or `undefined` (what
   * `sessionStorage.getItem` or `Map.get` give when this browser stored no
   * state: it started no sign-in) refuses every URL; only an option left
   * out imports without the check.
   */
  expectedState?: string | null | undefined;
}

/**
 * Parses tokens from a redirect fragment, fetches the user, saves and returns the session.
 *
 * The implicit flow cannot tie a fragment to a sign-in this browser started:
 * anyone can send a link carrying their own tokens. Give `expectedState` to
 * {@linkcode importSessionFromUrl}, or prefer the PKCE flow
 * ({@linkcode exchangeCodeForSessionAndSave}). An older token of the
 * session the manager holds (a reload of the same URL after its tokens were
 * refreshed) is not imported again: the held session is returned, and the
 * spent refresh token of the URL is not put back. A restore under way
 * (`Loading`) is waited for first, so that its session is the one compared.
 *
 * @example importSessionFromFragment
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, importSessionFromFragment } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await importSessionFromFragment(auth, "#access_token=a&refresh_token=r&expires_in=3600&token_type=bearer", manager);
 * ```
 *
 * @param auth The auth client.
 * @param fragment The URL fragment.
 * @param manager The session manager.
 * @param options Cancellation (`signal`) and `timeout`.
 * @returns The session.
 */
export async function importSessionFromFragment(
  auth: AuthClient,
  fragment: string,
  manager: SessionManager,
  options?: AuthCallOptions,
): Promise<ServiceResult<Session>> {
  options ??= {};
  // A state given here would go unchecked: no fragment holds the query it is in.
  if (typeof options === "object" && "expectedState" in options) {
    return failure({
      message:
        "Cannot import the session as importSessionFromFragment checks no state: give 'expectedState' to importSessionFromUrl with the whole URL",
      category: "INVALID_ARGUMENT",
    });
  }
  const t = parseSessionTokensFromFragment(fragment);
  return t.ok ? await importTokens(auth, t.value, manager, options) : t;
}

/**
 * Imports parsed tokens: checks them with the server (`getUser`) and saves the session. A restore
 * under way is waited for first: the session it brings in may be a later state of these tokens'.
 */
function importTokens(
  auth: AuthClient,
  tokens: ParsedSessionTokens,
  manager: SessionManager,
  options: AuthCallOptions,
): Promise<ServiceResult<Session>> {
  return afterRestore(
    manager,
    auth.client.timeout,
    options,
    (o) => importChecked(auth, tokens, manager, o),
  );
}

async function importChecked(
  auth: AuthClient,
  tokens: ParsedSessionTokens,
  manager: SessionManager,
  options: AuthCallOptions,
): Promise<ServiceResult<Session>> {
  const held = manager.currentSession;
  if (held && sameSessionNoNewer(held.accessToken, tokens.accessToken)) return success(held);
  const u = await auth.getUser(tokens.accessToken, call(options));
  if (!u.ok) return u;
  // A refresh of the held session answered meanwhile: the URL's tokens are now the older ones.
  const now = manager.currentSession;
  if (now && now !== held && sameSessionNoNewer(now.accessToken, tokens.accessToken)) {
    return success(now);
  }
  const session = copySession(
    makeSession(
      tokens.accessToken,
      tokens.refreshToken,
      tokens.expiresIn,
      tokens.tokenType,
      u.value,
    ),
    {
      providerToken: tokens.providerToken ?? null,
      providerRefreshToken: tokens.providerRefreshToken ?? null,
    },
  );
  // Read as the tokens are: decoded, the last value (as auth-js reads `type`).
  const recovery = tokens.type === "recovery";
  return await saved(
    manager,
    session,
    success(session),
    options.signal,
    recovery ? AuthStateChangeEvent.PASSWORD_RECOVERY : AuthStateChangeEvent.SIGNED_IN,
  );
}

/**
 * Like importSessionFromFragment (a restore under way is waited for first),
 * from a full URL. An error or notice the
 * server put in the URL instead of tokens (in the fragment, or in the query
 * alone, as GoTrue reports a failed OAuth state check) is the `Failure`,
 * before any state check.
 *
 * @example importSessionFromUrl
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, importSessionFromUrl } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * // The state put in redirectTo's query before the redirect (sessionStorage survives it).
 * const expectedState = sessionStorage.getItem("oauth-state");
 * const r = await importSessionFromUrl(auth, location.href, manager, { expectedState });
 * // Then, in the browser, take the tokens out of the address bar and the history (a reload
 * // would import spent ones): history.replaceState(null, "", location.pathname + location.search)
 * ```
 *
 * @param auth The auth client.
 * @param url The redirect URL.
 * @param manager The session manager.
 * @param options Cancellation (`signal`), `timeout` and the `expectedState`.
 * @returns The session.
 */
export async function importSessionFromUrl(
  auth: AuthClient,
  url: string,
  manager: SessionManager,
  options?: ImportSessionOptions,
): Promise<ServiceResult<Session>> {
  options ??= {};
  const hash = typeof url === "string" ? url.indexOf("#") : -1;
  // What the server reported instead of a session (an error, in the fragment or in the query
  // alone; an email change's notice) is said as it is: with no tokens, a state check has
  // nothing to guard and would only hide it.
  const tokens = parseSessionTokensFromUrl(url);
  if (!tokens.ok && tokens.error.category !== "DECODE") return tokens;
  if (hash < 0) {
    // A PKCE redirect carries a code in its query, which only an exchange turns into a session.
    const code = typeof url === "string" && /[?&]code=/.test(url);
    return failure({
      message: code
        ? "Cannot import the session as the URL has no fragment: its 'code' is a PKCE flow's, to exchange with exchangeCodeForSessionAndSave and the code verifier"
        : "Cannot import the session as the URL has no fragment",
      category: "DECODE",
    });
  }
  // Null (or undefined, as `Map.get` or a cookie library answers) is a state expected and not
  // found (a link this browser did not ask for): refused, as in the login CSRF this check exists
  // for. Only an option left out skips it.
  if (
    (typeof options === "object" || typeof options === "function") && "expectedState" in options
  ) {
    let returned: string | null = null;
    try {
      // A relative URL (`/cb?state=…#…`) is read against a placeholder origin.
      returned = new URL(url, "http://relative.invalid").searchParams.get("state");
    } catch {
      // Not a URL at all: no state to read.
    }
    const checked = verifyOAuthState(options.expectedState ?? "", returned);
    if (!checked.ok) return checked;
  }
  return tokens.ok ? await importTokens(auth, tokens.value, manager, options) : tokens;
}

/**
 * Whether `fragmentToken` is an older token of the session `heldToken`
 * belongs to (same `session_id`, expiring no later): a URL imported again
 * after its session was refreshed.
 */
function sameSessionNoNewer(heldToken: string, fragmentToken: string): boolean {
  // The very same token is imported again (nothing in it is spent), so that a reloaded recovery
  // link still says PASSWORD_RECOVERY.
  if (heldToken === fragmentToken) return false;
  const held = parseJwtClaims(heldToken);
  const given = parseJwtClaims(fragmentToken);
  if (!held.ok || !given.ok) return false;
  const id = held.value.session_id;
  return typeof id === "string" && id !== "" && id === given.value.session_id &&
    typeof held.value.exp === "number" && typeof given.value.exp === "number" &&
    held.value.exp >= given.value.exp;
}

/**
 * Exchanges a PKCE code and saves the session: `PASSWORD_RECOVERY` when the
 * code came from a password recovery link (the access token's `amr` says
 * `recovery`), else `SIGNED_IN`.
 *
 * @example exchangeCodeForSessionAndSave
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, exchangeCodeForSessionAndSave } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await exchangeCodeForSessionAndSave(auth, "code", "verifier", manager);
 * ```
 *
 * @param auth The auth client.
 * @param authCode The code.
 * @param codeVerifier The verifier.
 * @param manager The session manager.
 * @param options Cancellation (`signal`) and `timeout`.
 * @returns The session.
 */
export async function exchangeCodeForSessionAndSave(
  auth: AuthClient,
  authCode: string,
  codeVerifier: string,
  manager: SessionManager,
  options?: AuthCallOptions,
): Promise<ServiceResult<Session>> {
  options ??= {};
  const r = await auth.exchangeCodeForSession(authCode, codeVerifier, call(options));
  if (!r.ok) return r;
  // A recovery link in the PKCE flow comes back as a code: its session's `amr` says recovery.
  const amr = parseJwtClaims(r.value.accessToken);
  const recovery = amr.ok && Array.isArray(amr.value.amr) &&
    amr.value.amr.some((m) => (m as { method?: unknown } | null)?.method === "recovery");
  return await saved(
    manager,
    r.value,
    r,
    options?.signal,
    recovery ? AuthStateChangeEvent.PASSWORD_RECOVERY : undefined,
  );
}

/**
 * Verified claims of the current access token. It waits for a restore under
 * way (`Loading`) and, with auto-refresh on and without `allowExpired`,
 * refreshes a lapsed session first (a failed refresh is the answer);
 * `allowExpired` reads a lapsed session's token as it is. A token checked
 * by the server (`GET /user`) whose session it no longer knows
 * (`session_not_found`) signs that session out here, as auth-js's `getClaims`
 * does through `getUser`.
 *
 * @example getClaimsForCurrentSession
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, getClaimsForCurrentSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client, { autoRefresh: false });
 * const r = await getClaimsForCurrentSession(manager, auth);
 * ```
 *
 * @param manager The session manager.
 * @param auth The auth client.
 * @param options verify, allowExpired, issuer, audience.
 * @returns The claims.
 */
export function getClaimsForCurrentSession(
  manager: SessionManager,
  auth: AuthClient,
  options?: GetClaimsOptions,
): Promise<ServiceResult<JwtClaimsResult>> {
  // GetClaimsOptions has no timeout: the client's bounds the wait for a restore under way (and
  // for the refresh of a lapsed session, which allowExpired does without).
  const run = options?.allowExpired ? afterRestore : onLiveSession;
  return run(manager, auth.client.timeout, options ?? {}, async (options) => {
    // allowExpired reads a lapsed session's token too (its claims are checked, not its life).
    const session = options.allowExpired ? heldSession(manager) : manager.currentSession;
    if (!session) return noSession(manager);
    // A device clock far from the server's (measured by the manager): the token's exp is read
    // against the server's time here, as getClaims would read it against this clock.
    const gap = options.allowExpired ? 0 : clockGap(manager, session.refreshToken);
    if (gap !== 0) {
      const expired = refusedByServerClock(session.accessToken, gap);
      if (expired) return expired;
      options = { ...options, allowExpired: true };
    }
    // Checked by the server (`GET /user`), a session it no longer knows is signed out here.
    const r = await getClaims(auth, session.accessToken, options);
    return await endedThere(manager, session, r, options.signal);
  });
}

/**
 * getClaims' time checks of `token` by the server's clock, this device's plus `gap` ms; null when
 * they pass, as when getClaims cannot read the token (it then says why).
 */
function refusedByServerClock(token: string, gap: number): Failure | null {
  const payload = parseJwtClaims(token);
  return payload.ok ? checkTimes(payload.value, false, (Date.now() + gap) / 1000) : null;
}

/**
 * Raw claims of the current access token, without verification.
 *
 * @example Reading claims
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, parseCurrentSessionJwtClaims } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const manager = createSessionManager(createAuthClient(client), client);
 * const claims = parseCurrentSessionJwtClaims(manager);
 * ```
 *
 * @param manager The session manager.
 * @returns The raw claims.
 */
export function parseCurrentSessionJwtClaims(manager: SessionManager): ServiceResult<JsonObject> {
  // No verification: a lapsed session's claims are as readable as a live one's.
  const session = heldSession(manager);
  if (!session) return noSession(manager);
  return parseJwtClaims(session.accessToken);
}
