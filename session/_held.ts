/**
 * Guards for the session-aware helpers: a helper that waited on the server
 * applies its answer only to the session it started from, and a storage
 * fault becomes a Failure instead of a rejection.
 *
 * @module
 */

import { SessionTooLarge } from "./_too_large.ts";
import { SESSION_SECRETS } from "./_copy.ts";
import type { AuthCallOptions } from "../auth/client.ts";
import type { Session } from "../auth/models.ts";
import { parseJwtClaims } from "../auth/jwt.ts";
import { ABORTED, untilAborted, untilCancelled } from "../core/_abort.ts";
import { deadline, type Within } from "../core/_deadline.ts";
import { type Failure, failure, type ServiceResult, success } from "../core/result.ts";
import { redactCause, redactSecrets } from "../core/http_error.ts";
import type { AuthStateChangeEvent, SessionManager, SessionState } from "./manager.ts";

/** The live or lapsed session a state holds, or null. */
export function heldOf(state: SessionState): Session | null {
  return state.kind === "Authenticated"
    ? state.session
    : state.kind === "Expired"
    ? state.lastSession
    : null;
}

/** The live or lapsed session the manager holds, or null. */
export function heldSession(manager: SessionManager): Session | null {
  return heldOf(manager.sessionState.value);
}

/**
 * Restores that began with no session held (`Loading`), by manager, while operations on the held
 * session wait for them: each resolves once its restore has brought a live session in, or has
 * settled (found none, could not read, or tried to refresh a lapsed session), or a save or a clear
 * has changed the held session meanwhile. The manager sets and ends them.
 */
export const restoring: WeakMap<SessionManager, Promise<unknown>> = new WeakMap();

/**
 * The wait for a restore under way from `Loading` (see {@linkcode restoring}), or null when there
 * is none, and nothing is started. Under the call's deadline `within`: the caller's `signal` ends
 * only this wait (`Failure(CANCELLED)`, the restore going on), and the time left bounds it
 * (`Failure(TIMEOUT)`). A restore that fails or finds nothing ends the wait as one that succeeds.
 */
export function restoreWait(
  manager: SessionManager,
  signal: AbortSignal | undefined,
  within: Within,
): Promise<ServiceResult<void>> | null {
  const pending = restoring.get(manager);
  return pending === undefined
    ? null
    : within((timeout) =>
      untilCancelled(() => pending.then(() => success(undefined)), signal, timeout)
    );
}

/**
 * Runs `op`, an operation that reads the held session, once a restore under way from `Loading`
 * has settled, so that it finds the session being restored rather than none. With no restore
 * under way `op` runs at once with the caller's options (no promise turn is added). Else the
 * caller's `signal` ends only the wait (`Failure(CANCELLED)`), and its `timeout` (`fallback`, the
 * client's, when absent) bounds the wait and `op` together, counted from now: `op` gets the time
 * left as its `timeout`, and with none left the call ends as a request's timeout does.
 */
export function afterRestore<O extends AuthCallOptions, T>(
  manager: SessionManager,
  fallback: number,
  options: O,
  op: (options: O) => Promise<ServiceResult<T>>,
): Promise<ServiceResult<T>> {
  if (!restoring.has(manager)) return op(options);
  const within = deadline(options.timeout, fallback);
  return restoreWait(manager, options.signal, within)!.then((r) =>
    r.ok ? within((timeout) => op({ ...options, timeout })) : r
  );
}

/**
 * What a manager lends the operations on its held session for a lapsed one (set by the manager):
 * whether its auto-refresh is on, and its shared refresh of the held session, started or joined
 * (the timer's included), which takes a newer stored state of the session without a grant when
 * that state is live.
 */
export interface LapseRefresh {
  /** Whether auto-refresh is on (off: a lapsed session waits for the caller's refreshSession). */
  readonly on: () => boolean;
  /**
   * Starts or joins the one refresh of the held session, without waiting for a restore;
   * `explicit` asks for a grant, as `refreshSession` does. Never rejects.
   */
  readonly refresh: (explicit?: boolean) => Promise<ServiceResult<Session>>;
  /**
   * The shared storage's session, read for at most 2 s: null for none or a per-request storage,
   * undefined when it cannot be read in time. Never rejects.
   */
  readonly stored: (signal?: AbortSignal) => Promise<Session | null | undefined>;
  /** Whether `stored` is another account's sign-in made after `session`'s (a switch). */
  readonly switchedAway: (stored: Session, session: Session) => boolean;
  /**
   * Holds `next`, a grant's answer for the held `session`, in memory only (TOKEN_REFRESHED), as
   * the held session; it is returned, or null when `session` is no longer held.
   */
  readonly holdHere: (session: Session, next: Session) => Session | null;
  /** Ends `session`, when still held, in memory only (SIGNED_OUT); the storage is left as it is. */
  readonly endHere: (session: Session) => void;
  /**
   * Clears the session as `clearSession` does (forgotten at once, SIGNED_OUT once the storage
   * has its turn), but the storage, read in its turn, is left holding another sign-in that is not
   * `session`'s to clear: one made after it (another account signed in over it), or, for a
   * session a refresh found dead and `ended` here, any other session.
   */
  readonly clearUnlessElsewhere: (session: Session, ended: boolean) => Promise<void>;
  /** The server's clock minus this device's (ms) for a refresh token's session, or 0. */
  readonly gap: (refreshToken: string) => number;
  /** Whether the manager's storage is `perRequest` (cookies: the request's own), when built. */
  readonly perRequest: boolean | undefined;
  /**
   * Whether the manager has neither restored (`initialize`, `restoreSession`) nor held a session,
   * over a storage that may hold one (not the in-memory default).
   */
  readonly unread: () => boolean;
}

/** Each manager's {@linkcode LapseRefresh}. */
export const lapseRefresh: WeakMap<SessionManager, LapseRefresh> = new WeakMap();

/** The manager's refresh when it holds a lapsed session (`Expired`) and auto-refresh is on. */
function refreshOfLapsed(manager: SessionManager): LapseRefresh | null {
  const lapse = lapseRefresh.get(manager);
  return lapse !== undefined && lapse.on() && manager.sessionState.value.kind === "Expired"
    ? lapse
    : null;
}

/**
 * `Failure(NO_SESSION)` for a helper that found no live session: with the code `session_expired`
 * when the manager holds a lapsed session that it does not refresh (auto-refresh off or stopped:
 * with it on, {@linkcode onLiveSession} refreshes first), so that a server that turned auto-refresh
 * off can tell a lapsed session from none; with the code `not_initialized` when the manager has
 * not read a storage that may hold one (`initialize()` forgotten: a request's cookies unread).
 */
export function noSession(manager: SessionManager): Failure {
  return manager.sessionState.value.kind === "Expired"
    ? failure({
      message: "No active session: the held session has expired and auto-refresh is off",
      category: "NO_SESSION",
      code: "session_expired",
    })
    : lapseRefresh.get(manager)?.unread()
    ? failure({
      message: "No active session: the session storage was not read (call initialize() first)",
      category: "NO_SESSION",
      code: "not_initialized",
    })
    : failure({ message: "No active session", category: "NO_SESSION" });
}

/**
 * Runs `op`, an operation that sends the held session's access token, as {@linkcode afterRestore}
 * does, and, with auto-refresh on, once a lapsed held session (`Expired`: a device that slept, a
 * retry backing off) has been refreshed, as auth-js refreshes before such a call: it joins the
 * manager's shared refresh, or starts it (one grant for every caller, the timer's included), then
 * runs `op` with the new session. A refresh that fails (an invalid grant signs the session out, a
 * network error keeps it lapsed) is the answer and `op` sends nothing. With auto-refresh off, or a
 * live or no session, nothing is refreshed: `op` answers (`NO_SESSION` for a lapsed session), and
 * with no restore under way it runs at once with the caller's options. Else one deadline, as for
 * `afterRestore`, bounds the wait for the restore, the refresh and `op` together, and the caller's
 * `signal` ends only its own wait (`Failure(CANCELLED)`, the refresh going on).
 */
export function onLiveSession<O extends AuthCallOptions, T>(
  manager: SessionManager,
  fallback: number,
  options: O,
  op: (options: O) => Promise<ServiceResult<T>>,
): Promise<ServiceResult<T>> {
  // After the restore (its time left as the timeout): what it brought in may be live, or lapsed.
  return afterRestore(manager, fallback, options, (o) => {
    const lapse = refreshOfLapsed(manager);
    if (lapse === null) return op(o);
    const within = deadline(o.timeout, fallback);
    return within((timeout) => untilCancelled(lapse.refresh, o.signal, timeout)).then((fresh) =>
      fresh.ok ? within((timeout) => op({ ...o, timeout })) : fresh
    );
  });
}

function sessionIdOf(session: Session): string | null {
  const claims = parseJwtClaims(session.accessToken);
  const id = claims.ok ? claims.value.session_id : null;
  return typeof id === "string" && id !== "" ? id : null;
}

/**
 * Whether `now` continues `before`: the same GoTrue session (`session_id`,
 * which a refresh keeps and a new sign-in changes), or, for tokens without
 * one, the same user.
 */
export function sameSession(before: Session, now: Session | null): boolean {
  if (now === null) return false;
  const a = sessionIdOf(before);
  const b = sessionIdOf(now);
  if (a !== null && b !== null) return a === b;
  return before.user.id === now.user.id;
}

/**
 * Whether two sessions are the same user's (the same session, or another session of its user):
 * acting for one is acting for the account of the other.
 */
export function sameAccount(before: Session, now: Session | null): boolean {
  return sameSession(before, now) || (now !== null && before.user.id !== "" &&
    before.user.id === now.user.id);
}

/**
 * When the session's user last signed in (seconds): the latest `amr` time of its access token,
 * which GoTrue carries through refreshes; null without one (or no JWT).
 */
export function signedInAt(accessToken: string): number | null {
  const claims = parseJwtClaims(accessToken);
  const amr = claims.ok ? claims.value.amr : null;
  if (!Array.isArray(amr)) return null;
  let latest: number | null = null;
  for (const entry of amr) {
    const t = (entry as { timestamp?: unknown } | null)?.timestamp;
    if (Number.isFinite(t) && (latest === null || (t as number) > latest)) latest = t as number;
  }
  return latest;
}

/**
 * An access token's `exp` or `iat` claim (seconds), or null when it has none (or is no JWT).
 */
export function numericClaim(accessToken: string, name: "exp" | "iat"): number | null {
  const claims = parseJwtClaims(accessToken);
  const v = claims.ok ? claims.value[name] : null;
  return typeof v === "number" ? v : null;
}

/**
 * Whether `accessToken` is one of `session`'s tokens, perhaps from before a
 * refresh rotated it: the same GoTrue session, or for tokens without a
 * session id, the same user.
 */
export function tokenOf(session: Session, accessToken: string): boolean {
  if (session.accessToken === accessToken) return true;
  const claims = parseJwtClaims(accessToken);
  if (!claims.ok) return false;
  const sid = claims.value.session_id;
  const held = sessionIdOf(session);
  if (typeof sid === "string" && sid !== "" && held !== null) return sid === held;
  return typeof claims.value.sub === "string" && claims.value.sub === session.user.id;
}

/** The answer for a helper whose session ended or was replaced while it waited. */
export function superseded<T>(): ServiceResult<T> {
  return failure({
    message:
      "The session changed while the call was under way (signed out, or another sign-in); nothing was saved",
    category: "CANCELLED",
  });
}

/**
 * Saves `session` and returns `result`; a storage fault (the session is live
 * in memory) is returned as a Failure, never thrown.
 */
export async function saved<T>(
  manager: SessionManager,
  session: Session,
  result: ServiceResult<T>,
  signal?: AbortSignal,
  event?: AuthStateChangeEvent,
): Promise<ServiceResult<T>> {
  try {
    // Applied at once, whatever the signal: the server has issued it. The signal ends only the
    // wait for the storage, whose write goes on.
    const write = manager.saveSession(session, { event });
    if ((await untilAborted(write, signal)) === ABORTED) return storeWaitCancelled();
    return result;
  } catch (error) {
    // A session the manager refuses (an unusable expiry) applied nothing: not a storage fault.
    if (error instanceof SessionRefused) {
      return failure({ message: error.message, category: "INVALID_ARGUMENT" });
    }
    // The session written may be another (a user update merged into a newer stored state of the
    // same session, now held): its tokens are redacted too.
    return storageFailure(error, undefined, session, manager.currentSession);
  }
}

/** A caller who stopped waiting for the session storage (the write goes on). */
export function storeWaitCancelled<T>(): ServiceResult<T> {
  return failure({
    message: "Stopped waiting for the session storage: the change is applied and its write goes on",
    category: "CANCELLED",
  });
}

/**
 * The `TypeError` `SessionManager.saveSession` rejects with for a session it
 * cannot hold (nothing applied); its message names the field, never a token.
 */
export class SessionRefused extends TypeError {}

/** Whether `value` is a session lifetime a manager can hold: a finite, non-negative number of seconds. */
export function isSeconds(value: unknown): value is number {
  return Number.isFinite(value) && (value as number) >= 0;
}

/** A storage fault as a Failure (the manager's memory is already up to date). */
export function storageFailure<T>(
  error: unknown,
  what = "The session was applied but the session storage failed",
  ...sessions: Array<Session | null | undefined>
): ServiceResult<T> {
  return failure({
    // A storage's own error may echo what it was given (tokens): only its name (or, for a thrown
    // value that is no Error, its type), except the cookie overflow, whose message is ours and
    // says what to do; the cause keeps it with the session's tokens redacted.
    message: `${what}: ${
      error instanceof SessionTooLarge
        ? error.message
        : error instanceof Error
        ? error.name
        : typeof error
    }`,
    category: "UNKNOWN",
    cause: redactStoreError(
      error,
      sessions.flatMap((s) => SESSION_SECRETS.map((k) => s?.[k])),
    ),
  });
}

/** Own properties an error may carry that `redactStoreError` treats as its own. */
const ERROR_FIELDS = new Set(["message", "stack", "cause", "name", "code"]);

/**
 * A session storage's error with the session's secrets redacted, as `redactCause` does, and, for
 * an error holding other errors out of sight (an `AggregateError`'s `errors`, a
 * `SuppressedError`'s `error` and `suppressed`: not enumerable, so `redactCause` keeps them),
 * a copy whose held errors are redacted the same way. A store writing to several replicas
 * (`Promise.any`) hands over such an error, each replica's quoting the value it was given.
 */
function redactStoreError(
  error: unknown,
  secrets: ReadonlyArray<string | null | undefined>,
  depth = 0,
): unknown {
  if (depth > 4) return undefined; // dropped, as redactCause drops deeper causes
  if (
    !(error instanceof Error) ||
    Object.getOwnPropertyNames(error).every((k) => ERROR_FIELDS.has(k))
  ) {
    return redactCause(error, secrets);
  }
  try {
    const e = error as Error & Record<string, unknown>;
    const text = (t: string) => redactSecrets(t, secrets);
    const copy = new Error(text(e.message), {
      cause: e.cause === undefined ? undefined : redactStoreError(e.cause, secrets, depth + 1),
    });
    copy.name = e.name;
    (copy as { stack?: string | undefined }).stack = e.stack === undefined
      ? undefined
      : text(e.stack);
    for (const k of ["errors", "error", "suppressed"]) {
      if (!(k in e)) continue;
      const v = e[k];
      Object.defineProperty(copy, k, {
        value: Array.isArray(v)
          ? v.map((x) => redactStoreError(x, secrets, depth + 1))
          : redactStoreError(v, secrets, depth + 1),
        enumerable: false,
      });
    }
    return copy;
  } catch {
    // A getter that throws: nothing of it is kept.
    return new Error("The session storage's error could not be read");
  }
}

/** The cancellation and timeout of a helper's options, for the calls it makes. */
export function call(options: AuthCallOptions): AuthCallOptions {
  return { signal: options.signal, timeout: options.timeout };
}
