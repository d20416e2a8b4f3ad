/**
 * The session manager: persistence, the base client's token kept in sync,
 * single-flight refresh scheduled before expiry, fault-tolerant retries, and
 * auth events.
 *
 * @module
 */

import type { AuthClient } from "../auth/client.ts";
import type { Session } from "../auth/models.ts";
import { receivedAt } from "../auth/_received.ts";
import type { BaseClient } from "../core/client.ts";
import { failure, type ServiceError, type ServiceResult, success } from "../core/result.ts";
import { MutableStateFlow, type StateFlow } from "../core/state_flow.ts";
import { copySession } from "./_copy.ts";
import { InMemorySessionStorage, type SessionStorage } from "./storage.ts";
import { hasMethods } from "../core/_has_methods.ts";
import { tokenWaits } from "../core/_token_wait.ts";
import {
  afterRestore,
  heldOf,
  isSeconds,
  lapseRefresh,
  numericClaim,
  restoring,
  sameAccount,
  sameSession,
  SessionRefused,
  signedInAt,
  storageFailure,
} from "./_held.ts";
import { ABORTED, bounded, refusedSignal, untilAborted, untilCancelled } from "../core/_abort.ts";
import { SerialQueue } from "./_serial.ts";
import { settleQuietly } from "../core/_thrown.ts";
import { showValue } from "../core/_show.ts";
import { isListField, misshapenUserField } from "./_user_shape.ts";

/**
 * Auth events delivered to `onAuthStateChange` listeners.
 *
 * @example Reacting to sign-out
 * ```ts
 * import { AuthStateChangeEvent } from "@fetchbase/fetchbase/session";
 *
 * console.log(AuthStateChangeEvent.SIGNED_OUT); // SIGNED_OUT
 * ```
 */
export const AuthStateChangeEvent = {
  INITIAL_SESSION: "INITIAL_SESSION",
  SIGNED_IN: "SIGNED_IN",
  SIGNED_OUT: "SIGNED_OUT",
  TOKEN_REFRESHED: "TOKEN_REFRESHED",
  USER_UPDATED: "USER_UPDATED",
  PASSWORD_RECOVERY: "PASSWORD_RECOVERY",
  MFA_CHALLENGE_VERIFIED: "MFA_CHALLENGE_VERIFIED",
} as const;
/** One of the {@linkcode AuthStateChangeEvent} values. */
export type AuthStateChangeEvent = typeof AuthStateChangeEvent[keyof typeof AuthStateChangeEvent];

/**
 * The manager's state. `Expired` holds a session whose access token has
 * lapsed and whose refresh has not succeeded yet (retried with backoff under
 * auto-refresh). The base client keeps the lapsed token meanwhile, so
 * requests fail with 401 rather than silently running as the anonymous key.
 */
export type SessionState =
  | { kind: "NotAuthenticated" }
  | { kind: "Loading" }
  | { kind: "Authenticated"; session: Session }
  | { kind: "Expired"; lastSession: Session };

/** The shortest time between a grant and its refresh (half the token's life if shorter). */
const MIN_REFRESH_GAP_MS = 10_000;
/** The gap's floor for tokens that live under 2 s (GoTrue's shortest lifetime is 1 s). */
const MIN_GAP_FLOOR_MS = 1_000;

/**
 * The time from a grant to its earliest refresh for a token living `lifetime` ms: 10 s, or half
 * the life when shorter, but at least 1 s (a lifetime of a millisecond was refreshed in a loop).
 */
const refreshGap = (lifetime: number): number =>
  Math.max(Math.min(lifetime / 2, MIN_REFRESH_GAP_MS), MIN_GAP_FLOOR_MS);
/** How long a storage write that has not landed makes reads older than the session held. */
const UNLANDED_MS = 60_000;
/** How long a refresh waits to read the storage for a newer session before it goes on. */
const STORED_READ_MS = 2_000;
/**
 * How long a sign-out's clear reads the storage in its turn (whose 10 s it shares with the clear)
 * before it clears anyway; a later save or clear ends the read at once.
 */
const CLEAR_READ_MS = 1_000;

// One value each, as Kotlin's objects are: a `for await` over `sessionState` that missed a change
// and its reversal sees no repeat (its conflation compares values by identity).
const NOT_AUTHENTICATED: SessionState = /* @__PURE__ */ Object.freeze({ kind: "NotAuthenticated" });
const LOADING: SessionState = /* @__PURE__ */ Object.freeze({ kind: "Loading" });

/** Configuration of a session manager. */
export interface SessionConfig {
  /**
   * Refresh automatically before expiry: every saved or restored session
   * schedules its refresh (call `dispose()` when done with the manager),
   * except with a `perRequest` storage, which gets no timer. While it is on,
   * the session-aware helpers refresh a lapsed session (the manager's shared
   * refresh) before their request, as auth-js does; while it is off they
   * answer `NO_SESSION` until `refreshSession` is called (but
   * `signOutCurrentSession`, which refreshes it either way). Default true.
   */
  autoRefresh?: boolean | undefined;
  /**
   * Seconds before expiry at which the refresh happens. Default 60. A token
   * is never refreshed sooner than 10 s (or half its life, when shorter, but
   * not under 1 s) after it was granted, so a buffer close to a short token's
   * lifetime refreshes at that point instead.
   */
  refreshBufferSeconds?: number | undefined;
  /** Where the session persists. Default in memory. */
  storage?: SessionStorage | undefined;
  /**
   * The project the stored session is tagged with. A stored session tagged
   * with another project is no session (and is left stored), so two
   * projects sharing a storage key or cookie never send each other's
   * tokens. Default: the base client's URL. Give every client that shares a
   * storage and reaches the same project through another URL (a server's
   * internal address, a custom domain) the same value, such as the project's
   * reference; `null` neither tags nor checks. Choose it before the first
   * release: changing it (from the default too) finds no session for every
   * user stored under the old value, who must sign in again once.
   */
  project?: string | null | undefined;
  /** First retry delay after a transient refresh failure, ms. Default 1000. */
  retryBaseDelayMs?: number | undefined;
  /**
   * Longest backoff between retries, ms; a server's `Retry-After` may ask
   * for longer and is honoured. Default 60000.
   */
  retryMaxDelayMs?: number | undefined;
}

/** A listener of auth events. */
export type AuthStateChangeCallback = (
  event: AuthStateChangeEvent,
  session: Session | null,
) => void;

/** Error codes of GoTrue that mean the refresh token is dead (revoked or reused). */
const INVALID_GRANT = new Set([
  "refresh_token_not_found",
  "refresh_token_already_used",
  "invalid_grant",
  "session_not_found",
  "session_expired",
  "user_not_found",
  "user_banned",
  // A session of GoTrue's OAuth server needs the OAuth client's id to refresh, which this
  // manager never sends: retrying cannot succeed.
  "invalid_client",
]);

function isInvalidGrant(e: ServiceError): boolean {
  if (e.code && INVALID_GRANT.has(e.code)) return true;
  return (e.status === 400 || e.status === 401 || e.status === 403) &&
    /refresh token|invalid grant/i.test(e.message);
}

const nowSeconds = () => Date.now() / 1000;

/** The longest delay `setTimeout` honours (2^31 - 1 ms); longer waits are re-armed. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The session with `expiresAt` filled in, so that its expiry survives storage:
 * a server that sent no `expires_at` gets now + `expiresIn`. An unknown
 * lifetime (`expiresIn` 0 and no `expiresAt`, an imported opaque token) stays
 * null: such a session never lapses here, and the server judges its token.
 */
function withExpiry(session: Session): Session {
  // Always a masked copy: a plain object handed in must not print its tokens once held.
  // An absent expiresIn (a JavaScript caller) is an unknown lifetime.
  const expiresIn = session.expiresIn ?? 0;
  if (session.expiresAt! > 0) {
    return copySession(session, { expiresIn });
  }
  return copySession(session, {
    expiresIn,
    // No lifetime given: the token's own exp, else an unknown lifetime (null).
    expiresAt: expiresIn > 0
      ? Math.floor(nowSeconds()) + expiresIn
      : numericClaim(session.accessToken, "exp"),
  });
}

/**
 * A stored session without `expiresAt`: the access token's `exp` claim; else
 * null for an unknown lifetime (`expiresIn` 0), and 0 (treated as expired)
 * for one saved by an older version.
 */
function storedExpiry(session: Session): Session {
  if (session.expiresAt! > 0) return session;
  const exp = numericClaim(session.accessToken, "exp");
  return copySession(session, { expiresAt: exp ?? (session.expiresIn > 0 ? 0 : null) });
}

/** A numeric setting: finite and non-negative, or positive (`RangeError` otherwise). */
function setting(value: number, name: string, positive: boolean): number {
  if (
    !(Number.isFinite(value) && (positive ? value > 0 : value >= 0))
  ) {
    throw new RangeError(
      `Cannot manage sessions as '${name}' must be a ${
        positive ? "positive" : "non-negative"
      } number: current value is ${showValue(value)}`,
    );
  }
  return value;
}

/**
 * A session as the manager stores it: tagged with the project it belongs to
 * (`SessionConfig.project`), so that another project's manager reading the
 * same storage key leaves it alone.
 */
type TaggedSession = Session & {
  project?: string | undefined;
  obtainedAt?: number | undefined;
  clockOffset?: number | undefined;
};

/**
 * How far the server's clock may be from this device's (ms) before a session's
 * lapse and refresh are timed by this device's clock instead of `expiresAt` as
 * it is: a delay of the answer reads as that much of a gap too, and the
 * refresh buffer (60 s by default) covers anything this small.
 */
const CLOCK_TOLERANCE_MS = 10_000;

/** The largest gap between the clocks taken as one (ms): a century. */
const MAX_CLOCK_GAP_MS = 3_155_760_000_000; // 100 years of 365.25 days (a literal: a bundler keeps an unused product)

/** Sets `key` in `map`, which keeps the last 256 tokens' records: the oldest goes first. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= 256) map.delete(map.keys().next().value!);
  map.set(key, value);
}

/** Adds `token` to a set of the last 64 tokens, the oldest going first. */
function rememberToken(set: Set<string>, token: string): void {
  if (set.size >= 64) set.delete(set.keys().next().value!);
  set.add(token);
}

/**
 * Checks the fields a session's lifetime, refresh and user depend on (a JavaScript
 * caller may hand in anything): `TypeError` naming the field, never a token.
 */
function checkSession(session: Session): void {
  if (!session || typeof session.accessToken !== "string" || session.accessToken.trim() === "") {
    throw new SessionRefused("Cannot save the session as it has no access token");
  }
  if (typeof session.refreshToken !== "string") {
    throw new SessionRefused(
      "Cannot save the session as its 'refreshToken' must be a string (empty for none)",
    );
  }
  // Whether a later state is the same sign-in is told by the user's id (tokens without a
  // session id): a session without one, held, made sign-outs and later restores throw.
  const user = session.user as unknown as Record<string, unknown> | null | undefined;
  if (typeof user !== "object" || user === null || typeof user.id !== "string") {
    throw new SessionRefused(
      "Cannot save the session as its 'user' must be an object with a string 'id'",
    );
  }
  // Fields the helpers walk (`identities.filter`), as a stored session's are checked.
  const field = misshapenUserField(user);
  if (field !== null) {
    throw new SessionRefused(
      `Cannot save the session as its user's '${field}' must be ${
        isListField(field) ? "a list of objects" : "an object"
      }: current value is ${showValue(user[field])}`,
    );
  }
  const { expiresIn, expiresAt } = session;
  // Absent (a JavaScript caller) reads as unknown: the token's own exp decides.
  if (expiresIn != null && !isSeconds(expiresIn)) {
    throw new SessionRefused(
      `Cannot save the session as its 'expiresIn' must be a non-negative number of seconds: current value is ${
        showValue(expiresIn)
      }`,
    );
  }
  if (expiresAt != null && !Number.isFinite(expiresAt)) {
    throw new SessionRefused(
      `Cannot save the session as its 'expiresAt' must be null or a number of seconds: current value is ${
        showValue(expiresAt)
      }`,
    );
  }
}

function superseded(): ServiceResult<Session> {
  return failure({
    message: "The session changed while it was being refreshed",
    category: "CANCELLED",
  });
}

/** A `signal` that is no AbortSignal is refused, as the transport refuses it; one already aborted too. */
function checkSignal(signal: unknown, what: string): void {
  const refused = refusedSignal(signal);
  if (refused) throw new TypeError(`Cannot ${what} the session as 'signal' is not an AbortSignal`);
  if ((signal as AbortSignal | undefined)?.aborted) throw (signal as AbortSignal).reason;
}

/**
 * Waits for a storage write, then runs `landed`. Without a signal the caller resumes as soon as
 * the write has landed; with one, its abort ends the wait (rejecting with its reason) while the
 * write goes on.
 */
async function awaitWrite(
  write: () => Promise<void>,
  landed: () => void,
  signal?: AbortSignal,
): Promise<void> {
  if (signal == null) {
    try {
      await write();
    } finally {
      landed();
    }
  } else if ((await untilAborted(write().finally(landed), signal)) === ABORTED) {
    throw signal.reason;
  }
}

/**
 * Keeps one session: persisted, applied to the base client, refreshed before
 * expiry. One refresh is in flight at a time and every caller shares it. A
 * network error, a 5xx, a 429 or a malformed answer keeps the session and
 * retries with backoff (with auto-refresh on, and no `perRequest` storage);
 * only an invalid-grant answer ends it.
 *
 * @example Sign in and keep the session fresh
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client);
 * const stop = manager.onAuthStateChange((event, session) => console.log(event, session?.user.id));
 * const s = await auth.signInWithEmail("ada@example.com", "correct horse");
 * if (s.ok) await manager.saveSession(s.value);
 * stop();
 * manager.dispose();
 * ```
 */
export class SessionManager {
  readonly #auth: AuthClient;
  readonly #client: BaseClient;
  /** The tag of stored sessions (`SessionConfig.project`), or null for none. */
  readonly #project: string | null;
  /**
   * The last storage write started, while it has not settled (the manager gives up waiting after
   * 10 s; the write may land later) and for at most UNLANDED_MS: the session it writes and the
   * refresh token it replaces. A storage read meanwhile that finds nothing, or the replaced
   * session, is older than the session held.
   */
  #unlanded: { token: string | null; replaced: ReadonlySet<string>; at: number } | null = null;
  /**
   * The refresh token of the last session this manager found in the storage or wrote to it (a
   * write that settled without an error), null after a clear that landed. A refresh that finds
   * the storage empty where it held the session held here knows another tab cleared it.
   */
  #storedToken: string | null = null;
  readonly #storage: SessionStorage;
  readonly #autoRefreshConfigured: boolean;
  readonly #buffer: number;
  readonly #retryBase: number;
  readonly #retryMax: number;
  readonly #state = new MutableStateFlow<SessionState>(NOT_AUTHENTICATED);
  /** Refresh tokens this manager held and moved on from: never taken back from storage. */
  readonly #left = new Set<string>();
  /**
   * Refresh tokens the auth server refused as dead here (the last 64): a restore that reads one
   * from the storage (left there by a refresh that could not read it) clears it, never holds it.
   */
  readonly #dead = new Set<string>();
  /** An explicit refreshSession joined the refresh under way: it must grant, not only adopt. */
  #grantWanted = false;
  /**
   * The refresh token of a session a restore took from the storage after its expiry, which this
   * manager did not hold (a fresh page, another account): its first grant is a SIGNED_IN.
   */
  #announce: string | null = null;
  /** Aborted when a save or clear supersedes the ones before it (ends their storage reads). */
  #superseding = new AbortController();
  /**
   * When each refresh token was obtained (ms, this device's clock), stored with its session so
   * that tabs sharing the storage can tell which of two states of a session is the later: the
   * access token's `iat` counts whole seconds, and two refreshes of one second tie.
   */
  readonly #obtained = new Map<string, number>();
  /**
   * The server's clock minus this device's (ms) for the tokens whose gap is past
   * `CLOCK_TOLERANCE_MS`, as measured when they arrived (their `expiresAt`
   * against the arrival and `expiresIn`), and stored with them. A device clock
   * hours ahead saw every new session as lapsed (`Expired` at once, and a grant
   * every 10 s); one behind refreshed hours after the token had lapsed.
   */
  readonly #offsets = new Map<string, number>();
  /**
   * Each subscription with its callback and the last event it heard (it never hears SIGNED_OUT
   * twice in a row). Keyed by subscription, not by callback: one function subscribed twice (a
   * handler shared by two components) is two subscriptions, each ended by its own unsubscribe.
   */
  readonly #listeners = new Map<
    object,
    { callback: AuthStateChangeCallback; last: AuthStateChangeEvent | null }
  >();
  /**
   * A session was forgotten by a clear whose SIGNED_OUT has not been emitted yet: a clear or a
   * sign-out that overtakes it emits it instead (else overlapping clears emitted none).
   */
  #signOutOwed = false;
  #inflight: Promise<ServiceResult<Session>> | null = null;
  #inflightToken: string | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** When (on the wall clock) the pending timer is due: a suspended device may have slept past it. */
  #timerDue = 0;
  #autoRefresh = false;
  /** When (on this clock) the held tokens were applied, and the access token applied. */
  #appliedAt = 0;
  /** Whether a restore ran or a session was held: until then a stored session is unread. */
  #started = false;
  #applied: string | null = null;
  /** Whether the held tokens came from this manager's own refresh grant. */
  #fromRefresh = false;
  /** Bumped by every clear: a refresh answered meanwhile is not stored. */
  #clears = 0;
  /** The last event emitted (SIGNED_OUT is never sent twice in a row). */
  #lastEvent: AuthStateChangeEvent | null = null;
  /** The epoch of a clear still being stored: no refresh starts until a save follows it. */
  #clearingEpoch: number | null = null;
  #failures = 0;
  #disposed = false;
  /**
   * Storage operations run one after another, in call order (a clear never overtakes a save):
   * each after every earlier one has settled, or once the one before it has been pending for
   * `STORAGE_WAIT_MS` (10 s): a storage call that never settles must not freeze every later
   * sign-in.
   */
  readonly #io: SerialQueue = new SerialQueue();
  /** Bumped whenever the held session changes in memory: a slower restore then stands down. */
  #generation = 0;
  /** Bumped by every save and clear: a save's event is dropped once another one followed. */
  #epoch = 0;
  /** Ends the wait of the operations waiting for a restore that began in Loading (`restoring`). */
  #loading: (() => void) | null = null;

  /**
   * Builds a manager; prefer {@linkcode createSessionManager}.
   *
   * @param auth The auth client.
   * @param client The base client whose token is kept in sync.
   * @param config Refresh and storage settings.
   */
  constructor(auth: AuthClient, client: BaseClient, config?: SessionConfig) {
    config ??= {};
    const buffer = setting(config.refreshBufferSeconds ?? 60, "refreshBufferSeconds", false);
    this.#auth = auth;
    this.#client = client;
    const storage = config.storage ?? new InMemorySessionStorage();
    // supabase-js takes Web Storage itself; here it is wrapped first.
    if (!hasMethods(storage, ["save", "load", "clear"])) {
      throw new TypeError(
        "Cannot manage sessions as 'storage' must have save, load and clear: wrap Web Storage as new KeyValueSessionStorage(webStorageStore(localStorage))",
      );
    }
    this.#storage = storage;
    const project = config.project === undefined ? client.url : config.project;
    if (project !== null && (typeof project !== "string" || project.trim() === "")) {
      throw new TypeError(
        `Cannot manage sessions as 'project' must be a non-blank string or null: current value is ${
          showValue(project)
        }`,
      );
    }
    this.#project = project;
    this.#autoRefreshConfigured = config.autoRefresh ?? true;
    // "saveSession ... schedules refresh": with auto-refresh configured (the default), a saved
    // session is refreshed before expiry without initialize() or startAutoRefresh() first.
    this.#autoRefresh = this.#autoRefreshConfigured;
    this.#buffer = buffer;
    // A retry delay of 0 or NaN would refresh in a tight loop: positive.
    this.#retryBase = setting(config.retryBaseDelayMs ?? 1000, "retryBaseDelayMs", true);
    this.#retryMax = setting(config.retryMaxDelayMs ?? 60_000, "retryMaxDelayMs", true);
    // The operations on the held session refresh a lapsed one first while auto-refresh is on.
    lapseRefresh.set(this, {
      on: () => this.#autoRefresh,
      refresh: (explicit) => this.#sharedRefresh(explicit),
      stored: (signal) => this.#storedNow(signal),
      switchedAway: (stored, session) => this.#otherSignInLater(stored, session),
      holdHere: (session, answer) => {
        if (!sameSession(session, heldOf(this.#state.value))) return null;
        const next = withExpiry(answer);
        this.#stamp(next.refreshToken, Date.now());
        this.#hold(session, next, true);
        this.#emit(AuthStateChangeEvent.TOKEN_REFRESHED, next);
        return next;
      },
      endHere: (session) => {
        if (sameSession(session, heldOf(this.#state.value))) this.#endedElsewhere();
      },
      clearUnlessElsewhere: (session, ended) =>
        this.#clear(
          undefined,
          (stored) =>
            !sameSession(session, stored) &&
            (ended || this.#otherSignInLater(stored, session)),
        ),
      gap: (token) => this.#gap(token),
      perRequest: this.#storage.perRequest,
      unread: () => !this.#started && !(this.#storage instanceof InMemorySessionStorage),
    });
  }

  /**
   * The state as a {@linkcode StateFlow}. A session whose access token has
   * lapsed is `Expired`, never `Authenticated`, whenever the flow is read
   * (`value`, `subscribe`, iteration). With auto-refresh on, subscribers
   * are also told at the expiry itself when no refresh has succeeded by then.
   */
  get sessionState(): StateFlow<SessionState> {
    this.#checkLapsed();
    return this.#view;
  }

  /** The state flow, checked for a lapse on every read. */
  readonly #view: StateFlow<SessionState> = (() => {
    const state = this.#state;
    const check = () => this.#checkLapsed();
    return {
      get value(): SessionState {
        check();
        return state.value;
      },
      subscribe(listener: (value: SessionState) => void): () => void {
        check();
        return state.subscribe(listener);
      },
      [Symbol.asyncIterator](): AsyncIterator<SessionState> {
        check();
        const it = state[Symbol.asyncIterator]();
        // Each next() is a read too: a value pending since before the expiry is checked first.
        return {
          next: () => {
            check();
            return it.next();
          },
          return: () => it.return!(),
        };
      },
    };
  })();

  /** The live session, or null (a lapsed one is not live). */
  get currentSession(): Session | null {
    this.#checkLapsed();
    const s = this.#state.value;
    return s.kind === "Authenticated" ? s.session : null;
  }

  /** An `Authenticated` session past its expiry becomes `Expired` (a refresh may recover it). */
  #checkLapsed(): void {
    const s = this.#state.value;
    if (
      s.kind === "Authenticated" && this.#lapsed(s.session)
    ) {
      this.#state.value = { kind: "Expired", lastSession: s.session };
    }
  }

  /** The live access token, or null. */
  get accessToken(): string | null {
    return this.currentSession?.accessToken ?? null;
  }

  #emit(event: AuthStateChangeEvent, session: Session | null): void {
    this.#lastEvent = event;
    for (const [sub, entry] of [...this.#listeners]) {
      // A session saved and cleared before it was stored was never announced: no second
      // SIGNED_OUT to a listener that heard one last (one told INITIAL_SESSION since hears it).
      if (event === AuthStateChangeEvent.SIGNED_OUT && entry.last === event) continue;
      if (!this.#listeners.has(sub)) continue; // unsubscribed by a listener before it
      entry.last = event;
      try {
        settleQuietly(entry.callback(event, session));
      } catch {
        // One listener's failure reaches no other and never breaks the manager.
      }
    }
  }

  /**
   * Subscribes to auth events; `INITIAL_SESSION` is delivered at once unless
   * `emitInitialSession` is false, with the session held at that moment (as the
   * interface document says): while a restore begun with none held still reads
   * the storage (`initialize()` not awaited) that is `null`, and the restored
   * session follows as `SIGNED_IN`. auth-js holds `INITIAL_SESSION` back until
   * its initialisation instead; subscribe after `await manager.initialize()`
   * for the restored session in it. Listeners may call any manager or auth
   * method.
   *
   * @param callback Called with each event and the session.
   * @param options `emitInitialSession` (default true).
   * @returns A function that unsubscribes.
   */
  onAuthStateChange(
    callback: AuthStateChangeCallback,
    options?: { emitInitialSession?: boolean | undefined },
  ): () => void {
    // Calls of anything else would be isolated, so it would fail without a word.
    options ??= {};
    if (typeof callback !== "function") {
      throw new TypeError("Cannot subscribe as 'callback' must be a function");
    }
    // Until it hears an event it knows what the manager last said (or, below, the initial one).
    const sub = {};
    const entry = { callback, last: this.#lastEvent };
    this.#listeners.set(sub, entry);
    if (options.emitInitialSession ?? true) {
      const current = this.currentSession;
      // Told a session: its SIGNED_OUT is news to this listener. Told none: a SIGNED_OUT is not.
      entry.last = current ? AuthStateChangeEvent.INITIAL_SESSION : AuthStateChangeEvent.SIGNED_OUT;
      try {
        settleQuietly(callback(AuthStateChangeEvent.INITIAL_SESSION, current));
      } catch {
        // isolated
      }
    }
    return () => void this.#listeners.delete(sub);
  }

  /** When `session`'s access token lapses by this device's clock (ms). */
  #expiresAtMs(session: Session): number {
    return (session.expiresAt ?? 0) * 1000 - this.#gap(session.refreshToken);
  }

  /**
   * The server's clock minus this device's (ms) for `token`, as measured, or 0. A gap measured
   * before this clock was set back (now before the tokens' arrival: a clock that ran ahead, since
   * corrected) no longer holds: 0, and the server's `expiresAt` is read as it is.
   */
  #gap(token: string): number {
    const gap = this.#offsets.get(token) ?? 0;
    const arrived = gap === 0 ? undefined : this.#obtained.get(token);
    return arrived !== undefined && Date.now() < arrived - CLOCK_TOLERANCE_MS ? 0 : gap;
  }

  /** Whether the access token's known expiry has passed (an unknown one never lapses here). */
  #lapsed(session: Session): boolean {
    return session.expiresAt != null && this.#expiresAtMs(session) <= Date.now();
  }

  /**
   * Records how far the server's clock is from this device's for `session`'s tokens, which
   * arrived at `at` (ms, this device's clock): `expiresAt` against `at` + `expiresIn`.
   */
  #measureClock(session: Session, at: number): void {
    const { refreshToken, expiresAt, expiresIn } = session;
    if (refreshToken.trim() === "" || !(expiresAt != null && expiresAt > 0 && expiresIn > 0)) {
      return;
    }
    this.#noteOffset(refreshToken, expiresAt * 1000 - (at + expiresIn * 1000));
  }

  /** Keeps an offset past the tolerance for `token` (forgets a smaller one); the oldest go first. */
  #noteOffset(token: string, offset: number): void {
    this.#offsets.delete(token);
    // Past a century it is no clock (a device whose clock restarted at 1970 is 56 years behind):
    // a stored 1e300 would have made the session never lapse nor be refreshed.
    const size = Math.abs(offset);
    if (!(size > CLOCK_TOLERANCE_MS && size <= MAX_CLOCK_GAP_MS)) return;
    remember(this.#offsets, token, offset);
  }

  /** The refresh token of the live or lapsed session, or null. */
  #heldRefreshToken(): string | null {
    return heldOf(this.#state.value)?.refreshToken ?? null;
  }

  /** Records when `token` was obtained, unless already known; the oldest records go first. */
  #stamp(token: string, at: number): void {
    if (token.trim() === "" || this.#obtained.has(token)) return;
    remember(this.#obtained, token, at);
  }

  /** A new save or clear: the ones before it no longer wait on their storage reads. */
  #bumpEpoch(): number {
    this.#superseding.abort();
    this.#superseding = new AbortController();
    return ++this.#epoch;
  }

  /** Remembers the held refresh token, when `next` is another, as one this manager left. */
  #leave(next: string | null): void {
    // The session held from now on is not one this manager left, whatever it held before.
    if (next !== null) this.#left.delete(next);
    const prev = this.#heldRefreshToken();
    if (prev === null || prev === next) return;
    // The oldest goes first; a token gone from here is still refused as no newer (`#newer`).
    rememberToken(this.#left, prev);
  }

  /** Holds `session` (as `Expired` when `lapsedAlready`: one taken from storage after its expiry). */
  #apply(session: Session, fromRefresh = false, lapsedAlready = false): void {
    this.#started = true;
    if (this.#announce !== session.refreshToken) this.#announce = null;
    this.#leave(session.refreshToken);
    this.#generation++;
    this.#appliedAt = Date.now();
    this.#fromRefresh = fromRefresh;
    this.#useToken(session);
    this.#state.value = lapsedAlready
      ? { kind: "Expired", lastSession: session }
      : { kind: "Authenticated", session };
    // A live session held: operations waiting for a restore from Loading go on with it.
    if (!lapsedAlready) this.#loaded();
  }

  /**
   * Ends the wait of the operations waiting for the restore that began in Loading, or, given
   * `only` (a restore that has settled), that restore's own wait, and the manager's only while
   * it is that one: a restore begun after it had found nothing (a state subscriber's) has taken
   * the manager's wait over by then, and the operations waiting on the earlier one once waited
   * out their timeout, or for ever without one.
   */
  #loaded(only?: () => void): void {
    only?.();
    const done = this.#loading;
    if (done === null || (only !== undefined && only !== done)) return;
    this.#loading = null;
    const wait = restoring.get(this);
    if (wait !== undefined) tokenWaits.get(this.#client)?.delete(wait);
    restoring.delete(this);
    done();
  }

  /** Puts the session's access token on the base client (live or lapsed: never the anonymous key). */
  #useToken(session: Session): void {
    // A disposed manager no longer hands tokens to a client that may serve other requests.
    if (this.#disposed) return;
    this.#applied = session.accessToken.trim(); // as the client keeps it
    this.#client.setAccessToken(session.accessToken);
  }

  /**
   * Persists a session, applies its token to the base client and schedules
   * its refresh. Rejects with a `TypeError`, applying nothing, for a session
   * that is not one or a `signal` that is no AbortSignal; rejects with the
   * storage's own error (or a `TimeoutError` after 10 s) when the storage
   * cannot save it, the session then being live in memory only. A `signal`
   * that aborts ends the wait for the storage (rejecting with its reason) but
   * not the write; one already aborted applies nothing. A user update
   * (`USER_UPDATED`) of the held session's own tokens, in a tab that fell
   * behind another sharing the storage, is stored into that tab's newer state
   * of the session rather than over it.
   *
   * @param session The session.
   * @param options The event to emit (default SIGNED_IN) and a `signal`.
   */
  async saveSession(
    session: Session,
    options?: { event?: AuthStateChangeEvent | undefined; signal?: AbortSignal | undefined },
  ): Promise<void> {
    options ??= {};
    checkSession(session);
    checkSignal(options.signal, "save");
    // A tag a session brought along (one parsed from storage) is never held; #tagged sets this
    // manager's own when it is stored.
    const { project: _tag, obtainedAt: at, clockOffset, ...untagged } = session as TaggedSession;
    // A session the auth client just decoded says when it arrived, and so how far this device's
    // clock is from the server's.
    const arrived = receivedAt(session);
    let live = withExpiry(untagged);
    this.#failures = 0;
    // A refresh of another session no longer concerns callers; one of these tokens still does.
    if (this.#heldRefreshToken() !== live.refreshToken) {
      this.#inflight = null;
      this.#clearTimer(); // the held session's timer (or retry) is not this one's
    }
    const epoch = this.#bumpEpoch();
    this.#announce = null; // the save announces its session itself
    // A clear this save overtook is not announced: the save has the last word.
    this.#signOutOwed = false;
    const replaced = this.#heldRefreshToken();
    const event = options.event ?? AuthStateChangeEvent.SIGNED_IN;
    // A user update of the held session (its own tokens) in a tab that fell behind: the newer
    // state of the session another tab stored gets the user, rather than these spent tokens
    // going over it (the next refresh would send them, and GoTrue revoke the session).
    const userUpdate = event === AuthStateChangeEvent.USER_UPDATED &&
      replaced === live.refreshToken;
    // Another session's tokens were obtained now, unless the session says when (one read from a
    // storage); a re-save of the held session's own tokens says nothing new of them.
    if (replaced !== live.refreshToken) {
      this.#stamp(
        live.refreshToken,
        Number.isFinite(at) ? at! : arrived ?? Date.now(),
      );
      if (arrived !== undefined) this.#measureClock(live, arrived);
      else if (typeof clockOffset === "number") this.#noteOffset(live.refreshToken, clockOffset);
    }
    // Live in memory first: a storage that fails still leaves the session usable (and says so).
    this.#apply(live);
    const write = () =>
      this.#io.run(async () => {
        // A user update superseded by a later save or clear writes nothing: the later one has
        // the last word, and these tokens may be older than what is stored.
        if (userUpdate && epoch !== this.#epoch) return;
        // A later save or clear (a sign-out) ends the read: it has the last word anyway.
        const stored = userUpdate ? await this.#storedNow(this.#superseding.signal) : null;
        const newer = stored && this.#newer(stored, live) ? stored : null;
        if (newer && sameSession(live, newer) && epoch === this.#epoch) {
          const merged = copySession(newer, { user: live.user });
          this.#hold(live, merged, false);
          live = merged;
        } else if (stored && this.#otherSignInLater(stored, live)) {
          // Another account signed in since in another tab: the update stays in memory (stored
          // over that sign-in, it undid the switch); the next refresh ends this session.
          return;
        }
        return this.#saving(this.#storage.save(this.#tagged(live)), live.refreshToken, replaced);
      });
    const landed = () => {
      // A sign-out or another save while this one was stored has the last word.
      if (epoch === this.#epoch) {
        this.#schedule();
        this.#emit(event, live);
      }
    };
    await awaitWrite(write, landed, options.signal);
  }

  /**
   * Forgets the session: storage, base-client token, timers; emits SIGNED_OUT.
   * Rejects with the storage's own error (or a `TimeoutError` after 10 s) when
   * the storage cannot clear it; the session is forgotten in memory all the same.
   * A `signal` that aborts ends the wait for the storage (rejecting with its
   * reason) but not the clear; one already aborted forgets nothing, and so
   * does a `signal` that is no AbortSignal (a `TypeError`).
   *
   * @param options A `signal`.
   */
  async clearSession(options?: { signal?: AbortSignal | undefined }): Promise<void> {
    // Async: called detached (no `this`), it rejects rather than throws, as before.
    return await this.#clear(options?.signal, null);
  }

  /**
   * {@linkcode clearSession}, whose storage write, in its turn, first reads the storage (at most
   * 1 s) and leaves a session there for which `keep` is true. A read that does not answer (it
   * fails or times out) clears anyway when `unknown` says so; one ended by a later save or clear
   * never does (that write replaces what is stored).
   */
  async #clear(
    signal: AbortSignal | undefined,
    keep: ((stored: Session) => boolean) | null,
    unknown = true,
  ): Promise<void> {
    checkSignal(signal, "clear");
    // A cleared storage holds nothing to read: no helper says initialize() is missing.
    this.#started = true;
    this.#drop();
    const epoch = this.#epoch;
    this.#clearingEpoch = epoch;
    // Forgotten in memory (and on the client) at once, as a save is live before it is stored:
    // a helper answered meanwhile (a user update) finds no session to save back.
    const forgotten = this.#heldRefreshToken();
    // A clear this one overtook forgot the session but has not said so: this one says it.
    const had = this.#forget() || this.#signOutOwed;
    this.#signOutOwed = had;
    // A later save or clear ends the read, and its own write follows.
    const superseded = this.#superseding.signal;
    const write = () =>
      this.#io.run(async () => {
        if (keep) {
          const stored = await this.#storedNow(superseded, CLEAR_READ_MS);
          const skip = stored === undefined
            ? superseded.aborted || !unknown
            : stored && keep(stored);
          if (skip) return;
        }
        return this.#saving(this.#storage.clear(), null, forgotten);
      });
    const landed = () => {
      if (this.#clearingEpoch === epoch) this.#clearingEpoch = null;
      // A save that came while the clear was stored has the last word.
      if (epoch === this.#epoch && had) {
        this.#signOutOwed = false;
        this.#emit(AuthStateChangeEvent.SIGNED_OUT, null);
      }
    };
    await awaitWrite(write, landed, signal);
  }

  /** Ends what belongs to the held session: timer, pending refresh, retry count; later saves win. */
  #drop(): void {
    this.#clears++;
    this.#clearTimer();
    this.#failures = 0;
    this.#inflight = null;
    this.#bumpEpoch();
    this.#generation++;
  }

  /** No session in memory: the client's token goes, and SIGNED_OUT when one was held. */
  #signedOut(): void {
    if (this.#forget() || this.#signOutOwed) {
      this.#signOutOwed = false;
      this.#emit(AuthStateChangeEvent.SIGNED_OUT, null);
    }
  }

  /** The client's token and the state go; whether a session was held (so is news). */
  #forget(): boolean {
    // No session held, nor one to wait for: a sign-out during a restore has the last word.
    this.#loaded();
    // A disposed manager leaves the client alone: it may carry another request's token by now.
    if (!this.#disposed) this.#client.clearAccessToken();
    // Loading (a restore still reading storage) held nothing that was announced.
    const kind = this.#state.value.kind;
    this.#announce = null;
    this.#leave(null);
    // Subscribers hear NotAuthenticated once, not again on every clear with no session.
    if (kind !== "NotAuthenticated") this.#state.value = NOT_AUTHENTICATED;
    return kind === "Authenticated" || kind === "Expired";
  }

  /**
   * Refreshes now, with the session's newest refresh token: a newer state of
   * the session in a shared storage (another tab's refresh) is taken first, so
   * that a token another tab has rotated is never sent (GoTrue would revoke
   * the session). Concurrent callers share one refresh-token grant and get
   * the same result; a caller's `signal` ends only its own wait
   * (`Failure(CANCELLED)`), and one already aborted starts nothing; its
   * `timeout` (ms, when positive) bounds its wait (`Failure(TIMEOUT)`, the
   * refresh going on). During a restore that began with no session held
   * (`Loading`) it first waits for the restore to settle, then refreshes
   * what it brought in (`NO_SESSION` when it found none): the `timeout`, the
   * base client's by default, bounds that wait and the refresh together.
   *
   * @param options A `signal` and a `timeout`.
   * @returns The new session, or why not.
   */
  refreshSession(
    options?: { signal?: AbortSignal | undefined; timeout?: number | undefined },
  ): Promise<ServiceResult<Session>> {
    options ??= {};
    const { signal, timeout } = options;
    // A restore under way from Loading is waited for first: the session it brings in is the one
    // refreshed, rather than none (NO_SESSION).
    return afterRestore(this, this.#client.timeout, { signal, timeout }, (o) =>
      // Without a signal or a timeout every caller gets the shared promise itself.
      o.signal == null && o.timeout == null
        ? this.#sharedRefresh(true)
        : untilCancelled(() => this.#sharedRefresh(true), o.signal, o.timeout));
  }

  /** The refresh of the held session that concurrent callers share. */
  #sharedRefresh(explicit = false): Promise<ServiceResult<Session>> {
    // A session being cleared is gone: a grant now would be stored after the clear.
    const session = this.#clearingEpoch === this.#epoch ? null : heldOf(this.#state.value);
    // Only a refresh of the held session's own token is shared: one of a session replaced
    // since (a restore read another one) will be superseded and must not answer for it.
    if (this.#inflight && (!session || session.refreshToken === this.#inflightToken)) {
      // An explicit caller joining a timer's refresh wants a grant, not only a stored state.
      if (explicit) this.#grantWanted = true;
      if (session) this.#watchExpiry(session);
      return this.#inflight;
    }
    if (!session) {
      return Promise.resolve(failure({ message: "No active session", category: "NO_SESSION" }));
    }
    if (session.refreshToken.trim() === "") {
      return Promise.resolve(
        failure({ message: "The session has no refresh token", category: "NO_SESSION" }),
      );
    }
    const pending = this.#refresh(session, explicit);
    this.#inflight = pending;
    this.#inflightToken = session.refreshToken;
    this.#watchExpiry(session);
    const done = () => {
      if (this.#inflight === pending) {
        this.#inflight = null;
        this.#grantWanted = false;
      }
    };
    pending.then(done, done);
    return pending;
  }

  /**
   * While a grant is under way, its session's lapse is heard when it happens: at once when the
   * grant starts at or after the expiry (a retry run at it), else, with auto-refresh on and no
   * timer armed (the one that started the grant has fired), from a timer at the expiry. A grant
   * still unanswered then (a slow or hanging network, answered only by the client's timeout)
   * once held `Expired` back until it failed; its answer replaces the timer.
   */
  #watchExpiry(session: Session): void {
    this.#checkLapsed();
    if (this.#timer !== null || !this.#autoRefresh || this.#storage.perRequest) return;
    const untilExpiry = this.#expiresAtMs(session) - Date.now();
    if (session.expiresAt != null && untilExpiry > 0) {
      this.#setTimer(untilExpiry, () => this.#checkLapsed());
    }
  }

  /**
   * One refresh-token grant. Its answer applies only while the manager still
   * holds the session it refreshed: after a sign-out or another sign-in it is
   * dropped (Failure CANCELLED), whatever the server said. A disposed manager
   * still stores the new tokens, since the server has spent the old ones.
   * Never rejects.
   */
  async #refresh(session: Session, explicit: boolean): Promise<ServiceResult<Session>> {
    const clears = this.#clears;
    // Still the session it refreshed, and not cleared meanwhile (a clear may still be storing).
    const held = () => this.#heldRefreshToken() === session.refreshToken && clears === this.#clears;
    // Tabs sharing a storage: one that fell behind (asleep, hidden) holds a refresh token that
    // another has rotated since. Sent, GoTrue reads it as reuse and revokes the whole session,
    // in every tab; the newer stored state of the same session is taken instead, and refreshed
    // when due or when the caller asked for a refresh (new claims). Another account's sign-in
    // stored after this session's (the user switched account in another tab) ends this session
    // here, in memory only, as auth-js's tabs all follow the storage: its token is not sent (a
    // grant stored over the switch undid it in every tab; one kept in memory left any other tab
    // still holding the spent token to send it, and GoTrue revoked the session), and the sign-in
    // is not taken in its place (the caller asked about this session: a sign-out or a user
    // update would have gone out for the other account). A restore takes it.
    const seen = await this.#storedNow();
    if (!held()) return superseded();
    const newer = seen && this.#newer(seen, session) ? seen : seen && null;
    if (this.#disposed) {
      return failure({ message: "The session manager was disposed", category: "CANCELLED" });
    }
    if (seen && this.#otherSignInLater(seen, session)) return this.#endedElsewhere();
    // Storage emptied where it held this session: another tab signed out or cleared it. Its token
    // is not sent, and not stored back (every tab and reload would come back signed in); a
    // restore reading the empty storage says the same.
    if (seen === null && this.#clearedElsewhere(session)) return this.#endedElsewhere(false);
    if (newer && sameSession(session, newer)) {
      this.#adopt(session, newer);
      // A caller asking for a refresh gets a grant, unless the state taken was obtained less
      // than 10 s ago (by this device's clock): its claims are as new as a grant's.
      const at = this.#obtained.get(newer.refreshToken);
      const age = at === undefined ? Infinity : Date.now() - at;
      const wanted = (explicit || this.#grantWanted) && (age > 10_000 || age < 0);
      if (!wanted && !this.#lapsed(newer) && this.#refreshDueIn(newer, false) > 0) {
        return success(newer);
      }
      session = newer;
    }
    const r = await this.#auth.refreshToken(session.refreshToken);
    if (!held()) return superseded();
    if (r.ok) {
      const answer = r.value;
      if (
        answer.accessToken.trim() === "" || answer.refreshToken.trim() === "" ||
        !(answer.expiresIn > 0)
      ) {
        return this.#transient(
          session,
          failure({ message: "The refresh answer is missing tokens or expiry", category: "DECODE" })
            .error,
        );
      }
      const next = withExpiry(answer);
      if (this.#announce === session.refreshToken) this.#announce = next.refreshToken;
      this.#stamp(next.refreshToken, Date.now());
      this.#measureClock(next, receivedAt(answer) ?? Date.now());
      this.#failures = 0;
      // Live in memory before it is stored, as a saved session is: a user update saved
      // meanwhile then carries the new tokens, never the spent ones. They stay live even when
      // storage fails: the old ones are spent.
      this.#hold(session, next, true);
      let stored: unknown = null;
      let since: Session | null | undefined = null;
      let elsewhere = false;
      let cleared = false;
      try {
        await this.#io.run(async () => {
          // Tabs sharing a storage: another may have rotated the token again while this grant
          // was under way (a slow answer, or GoTrue's answer to a token it read as reuse).
          // Stored over that, this older state's token would go at the next refresh, and GoTrue
          // revokes the whole session for a token that is neither active nor the active one's
          // parent. Read in the write's turn, so that a user update saved meanwhile (with these
          // tokens) is stored after it, never under it. Another account's sign-in stored since
          // the read before the grant is the user's switch: not written over, and this session
          // ends here as above. (Not when the storage did not answer the read before the grant:
          // no wait for it again.)
          if (newer !== undefined) {
            const now = await this.#storedNow();
            if (now && sameSession(next, now)) {
              since = this.#newer(now, next, false, true) ? now : null;
            } else elsewhere = !!now && this.#otherSignInLater(now, next, seen);
            // Emptied during the grant, where the read before it found this session.
            cleared = now === null && !!seen && sameSession(seen, next) &&
              !this.#storage.perRequest;
          }
          if (since || elsewhere || cleared) return;
          return this.#saving(
            this.#storage.save(this.#tagged(next)),
            next.refreshToken,
            session.refreshToken,
          );
        });
      } catch (error) {
        stored = error ?? new Error("unknown storage error");
      }
      if (this.#heldRefreshToken() !== next.refreshToken || clears !== this.#clears) {
        return superseded();
      }
      // Set in the write's turn, which TS cannot see.
      if (elsewhere as boolean) return this.#endedElsewhere();
      if (cleared as boolean) return this.#endedElsewhere(false);
      const taken = since as Session | null;
      if (taken) {
        this.#adopt(next, taken);
        return success(taken);
      }
      this.#emit(this.#refreshedEvent(next), next);
      if (stored !== null) {
        return storageFailure(stored, "The session was refreshed but could not be stored", next);
      }
      return success(next);
    }
    if (r.error.code === "refresh_token_already_used") {
      // Another tab or request spent this token first: its session may be in storage. Else the
      // session ends here, in memory only: clearing storage (or queueing cookie deletions)
      // would wipe what the winner has just written.
      let stored: Session | null = null;
      try {
        stored = await this.#load();
      } catch {
        stored = null;
      }
      if (!held()) return superseded();
      // One this manager held before (its write failed or has not landed) is older, spent too;
      // another user's (another tab signed in) is no refresh of this session: it stays stored.
      if (
        stored && this.#newer(storedExpiry(stored), session, true) &&
        sameAccount(session, stored)
      ) {
        const adopted = withExpiry(stored);
        this.#adopt(session, adopted);
        return success(adopted);
      }
      if (!this.#storage.perRequest && stored?.refreshToken === session.refreshToken) {
        // A shared storage still holding the spent token would bring a dead session back.
        try {
          await this.clearSession();
        } catch {
          // Cleared in memory; storage reported its own failure.
        }
        return r;
      }
      // Per request (cookies), a session whose access token is still live stays for this
      // request: the winner's response carries the new cookies, and a SIGNED_OUT here would
      // make apps clear them.
      if (this.#storage.perRequest && !this.#lapsed(session)) return r;
      this.#drop();
      this.#signedOut();
      return r;
    }
    if (isInvalidGrant(r.error)) {
      rememberToken(this.#dead, session.refreshToken);
      // The storage is cleared only when it holds this dead session (a state of it) or none. A
      // newer state of the same session (another tab's refresh) is taken instead; another
      // sign-in (another tab signed in again, even in the same second) stays stored for its tab,
      // and so does whatever a storage that cannot be read within 2 s holds: this one ends in
      // memory only. (A per-request storage holds this request's session: its cookies go.)
      const stored = await this.#storedNow();
      if (!held()) return superseded();
      if (stored && sameAccount(session, stored) && this.#newer(stored, session)) {
        this.#adopt(session, stored);
        // One that has lapsed too is refreshed now, with its own token.
        return this.#lapsed(stored) ? this.#refresh(stored, explicit) : success(stored);
      }
      if (stored === undefined || (stored && !sameSession(session, stored))) {
        this.#drop();
        this.#signedOut();
        return r;
      }
      try {
        await this.clearSession();
      } catch {
        // The session is cleared in memory; storage reported its own failure.
      }
      return r;
    }
    return this.#transient(session, r.error);
  }

  /**
   * The stored session, read for at most 2 s outside the queue of storage operations; null for
   * none or a per-request storage (it holds what the request brought), undefined when it cannot
   * be read in time.
   */
  async #storedNow(
    signal?: AbortSignal,
    ms = STORED_READ_MS,
  ): Promise<Session | null | undefined> {
    if (this.#storage.perRequest) return null;
    const read = await bounded(this.#load(undefined, true), ms, signal);
    return read.kind !== "done" ? undefined : read.value && storedExpiry(read.value);
  }

  /**
   * Whether `stored` is another account's sign-in made after `held`'s (the user switched account
   * in another tab): its refresh token is not one this manager left, and it signed in later by
   * the access tokens' `amr` times (GoTrue keeps them through refreshes), else, without them, it
   * was issued later ({@linkcode #newer}) or, read when a grant is written, the storage holds
   * another account than `seen`, read before the grant.
   */
  #otherSignInLater(
    stored: Session,
    held: Session,
    seen?: Session | null,
  ): boolean {
    if (
      sameAccount(held, stored) || stored.refreshToken.trim() === "" ||
      this.#left.has(stored.refreshToken)
    ) {
      return false;
    }
    const a = signedInAt(stored.accessToken);
    const b = signedInAt(held.accessToken);
    if (a !== null && b !== null) return a > b;
    return seen === undefined ? this.#newer(stored, held) : !(seen && sameAccount(seen, stored));
  }

  /**
   * Ends the held session in memory only: another account signed in since (see above), or, not
   * `signedIn`, another tab signed out or cleared the storage.
   */
  #endedElsewhere(signedIn = true): ServiceResult<Session> {
    this.#drop();
    this.#signedOut();
    return failure({
      message: signedIn
        ? "No active session: another account has signed in since, in another tab (restoreSession takes it)"
        : "No active session: it was signed out in another tab",
      category: "NO_SESSION",
      code: signedIn ? "signed_in_elsewhere" : "signed_out_elsewhere",
    });
  }

  /**
   * Whether a storage read that found nothing means another tab cleared `session`: the storage
   * held it (this manager found it there, or its write of it landed), and no write of this
   * manager's is pending (which the read would not see yet). A per-request storage reads nothing
   * here, and one that never kept the session (a store that refuses writes) is no sign-out.
   */
  #clearedElsewhere(session: Session): boolean {
    return !this.#storage.perRequest && this.#storedToken === session.refreshToken &&
      !this.#olderThanUnlanded(session, null);
  }

  /**
   * Whether `stored` can stand for a newer state of `session`'s sign-in: a refresh token of its
   * own (a session without one could never be refreshed), never held here, and issued later
   * (the access token's `iat`, else the expiry; in the same second, obtained later by the time
   * the managers store with it; on a full tie the held one is kept, as before any storage was
   * read, but with `orSame`: after GoTrue said the held token was spent, the stored one is the
   * winner's). `sinceGrant`: `session` has just been answered by a grant, so a stored state of
   * the same second was issued by another manager's grant answered no earlier: the later
   * rotation, which the arrival times cannot tell (this grant's answer arrived last, and may be
   * the older), or, if not, one GoTrue's reuse interval (10 s) still takes the token of.
   */
  #newer(stored: Session, session: Session, orSame = false, sinceGrant = false): boolean {
    if (
      stored.refreshToken.trim() === "" || stored.refreshToken === session.refreshToken ||
      this.#left.has(stored.refreshToken)
    ) {
      return false;
    }
    // The server's word first: the access token's `iat`, else the expiry (whole seconds). A tie
    // (two refreshes of one second) is broken by when the managers sharing the storage obtained
    // the tokens (ms of this device's clock, which can step, so never above the server's word).
    const a = numericClaim(stored.accessToken, "iat");
    const b = numericClaim(session.accessToken, "iat");
    const claimed = a !== null && b !== null;
    const x = claimed ? a : stored.expiresAt;
    const y = claimed ? b : session.expiresAt;
    if (x == null || y == null) return false;
    if (x !== y || sinceGrant) return x >= y;
    const p = this.#obtained.get(stored.refreshToken);
    const q = this.#obtained.get(session.refreshToken);
    return p !== undefined && q !== undefined && p !== q ? p > q : orSame;
  }

  /**
   * Holds a newer stored state of the same session in place of `from` (TOKEN_REFRESHED); one
   * that has lapsed too is held as `Expired`, quietly: the grant that follows announces it.
   */
  #adopt(from: Session, next: Session): void {
    // A lapsed one's refresh is due now: the grant that follows, or the timer #hold sets.
    const quiet = this.#lapsed(next);
    if (this.#announce === from.refreshToken) this.#announce = next.refreshToken;
    this.#hold(from, next, false, quiet);
    if (!quiet) this.#emit(this.#refreshedEvent(next), next);
  }

  /**
   * The event of a refresh that brought `next`: SIGNED_IN for the first of a session a restore
   * took from the storage after its expiry (`#announce`), else TOKEN_REFRESHED.
   */
  #refreshedEvent(next: Session): AuthStateChangeEvent {
    if (this.#announce !== next.refreshToken) return AuthStateChangeEvent.TOKEN_REFRESHED;
    this.#announce = null;
    return AuthStateChangeEvent.SIGNED_IN;
  }

  /**
   * Holds `next` in place of the refreshed `from`: a caller asking now (a
   * TOKEN_REFRESHED listener) holds the new refresh token and shares the
   * refresh under way; a timer pending now was the spent token's.
   */
  #hold(from: Session, next: Session, fromRefresh: boolean, lapsedAlready = false): void {
    if (this.#inflightToken === from.refreshToken) this.#inflightToken = next.refreshToken;
    this.#apply(next, fromRefresh, lapsedAlready);
    this.#clearTimer();
    this.#schedule();
  }

  #transient(session: Session, error: ServiceError): ServiceResult<Session> {
    this.#failures++;
    // Expired once, holding the session as it is held now: a failed retry of a session already
    // Expired tells subscribers nothing new, and a user update saved during the grant (the same
    // tokens) is kept (the grant's own copy once went back over both).
    this.#checkLapsed();
    if (this.#autoRefresh && !this.#storage.perRequest) {
      const exp = Math.min(this.#retryMax, this.#retryBase * 2 ** (this.#failures - 1));
      const backoff = exp / 2 + (exp / 2) * Math.random();
      // A backoff due after the expiry runs at it instead, so that a failure there tells
      // subscribers the session is Expired when it lapses, not up to a minute later; the
      // server's Retry-After is honoured whatever the expiry and `retryMaxDelayMs` (which
      // bounds only the backoff).
      const untilExpiry = this.#expiresAtMs(session) - Date.now();
      const wait = Math.max(
        untilExpiry > 0 ? Math.min(backoff, untilExpiry) : backoff,
        (error.retryAfter ?? 0) * 1000,
      );
      const refresh = () => void this.#sharedRefresh();
      if (untilExpiry > 0 && wait > untilExpiry) {
        // Waiting for the server past the expiry: the lapse is reported at the expiry.
        this.#setTimer(untilExpiry, () => {
          this.#checkLapsed();
          this.#setTimer(wait - untilExpiry, refresh);
        });
      } else this.#setTimer(wait, refresh);
    }
    return failure(error);
  }

  /**
   * Reads the stored session. A custom storage's value that is no session (a string, `{}`, a
   * snake_case object) is read as none, as `KeyValueSessionStorage` reads a corrupt payload.
   */
  async #load(seen?: { foreign: boolean }, direct = false): Promise<Session | null> {
    // `direct`: outside the queue of storage operations, so that a load that never settles holds
    // up no write (a read beside a write of this manager's sees at worst a session it left).
    const loaded =
      await (direct
        ? Promise.resolve().then(() => this.#storage.load())
        : this.#io.run(() => this.#storage.load()));
    if (loaded == null) return null;
    try {
      checkSession(loaded);
    } catch {
      return null;
    }
    // Another project's session (two apps on one origin or cookie domain sharing the default
    // key) is not this one's: its tokens must not reach this project's servers. It is left
    // stored, for its own project. A session without a tag (a custom storage that keeps only
    // the document's fields, or a manager whose project is null) is taken as this project's.
    const { project, obtainedAt, clockOffset, ...session } = loaded as TaggedSession;
    if (project !== undefined && this.#project !== null && project !== this.#project) {
      if (seen) seen.foreign = true; // the caller's own record: concurrent loads share nothing
      return null;
    }
    // A per-request storage (cookies) holds what the browser sends: its tags are the caller's
    // word, and a clock gap taken from it would move the token's expiry (getClaimsForCurrentSession
    // accepted a token expired days before, with a forged `clockOffset`). A server measures the
    // gap itself, when the auth server answers it.
    const trusted = !this.#storage.perRequest;
    if (trusted && Number.isFinite(obtainedAt)) {
      this.#stamp(session.refreshToken, obtainedAt!);
    }
    // The gap between the clocks measured when the tokens arrived, by whichever manager (tab)
    // obtained them; a state stored without one (an older version's) keeps what is known.
    if (trusted && typeof clockOffset === "number" && session.refreshToken.trim() !== "") {
      this.#noteOffset(session.refreshToken, clockOffset);
    }
    this.#storedToken = session.refreshToken;
    // Always held as a masked copy: a custom storage may hand back a plain object.
    return copySession(session, {});
  }

  /**
   * Marks a storage write (of `token`'s session, or a clear: null) as the last one started until
   * it settles, however long after the manager gave up waiting on it; a later write takes the
   * mark over. The mark holds every session this manager has replaced or cleared whose write
   * has not landed: a pending earlier mark's, its token, and `replaced` (the session held before).
   */
  #saving(
    write: void | Promise<void>,
    token: string | null,
    replaced: string | null,
  ): void | Promise<void> {
    const prev = this.#unlanded;
    const older = new Set<string>(
      prev && Date.now() - prev.at <= UNLANDED_MS ? prev.replaced : [],
    );
    if (prev?.token != null) older.add(prev.token);
    if (replaced !== null) older.add(replaced);
    if (token !== null) older.delete(token); // a user update: its own token is not older
    const mark = { token, replaced: older, at: Date.now() };
    this.#unlanded = mark;
    // Settled once whatever `write` is (a thenable whose `then` throws included); only this
    // write's own mark is cleared (a later write of the same tokens keeps its own).
    const settled = new Promise<void>((resolve) => resolve(write));
    const done = () => {
      if (this.#unlanded === mark) this.#unlanded = null;
    };
    settled.then(() => {
      if (this.#unlanded === mark) this.#storedToken = token; // the last write started landed
      done();
    }, done);
    return write;
  }

  /**
   * Whether a storage read of `read` (null: none) is older than what this manager holds (a
   * session, or none after a clear) because its own last write has not landed yet: nothing
   * stored, or a session it replaced or cleared.
   */
  #olderThanUnlanded(held: Session | null, read: Session | null): boolean {
    const mark = this.#unlanded;
    if (mark === null || mark.token !== (held?.refreshToken ?? null)) return false;
    // A write pending longer than this is a store that never settles: reads count again.
    if (Date.now() - mark.at > UNLANDED_MS) return false;
    return read === null ? held !== null : mark.replaced.has(read.refreshToken);
  }

  /**
   * A restore's answer for a held session that has lapsed and whose own write has not landed:
   * refreshed when auto-refresh is on, else left `Expired` for the caller.
   */
  #stillExpired(): Promise<ServiceResult<Session>> | ServiceResult<Session> {
    return this.#autoRefresh ? this.#sharedRefresh() : failure({
      message: "No active session: the stored session has expired (refreshSession may recover it)",
      category: "NO_SESSION",
    });
  }

  /**
   * A masked copy of `session` tagged with this manager's project and when its tokens were
   * obtained, for storage.
   */
  #tagged(session: Session): TaggedSession {
    // A per-request storage's tags are not read back (see #load): not written, they spare room.
    const local = !this.#storage.perRequest;
    const at = local ? this.#obtained.get(session.refreshToken) : undefined;
    const offset = local ? this.#offsets.get(session.refreshToken) : undefined;
    const tags: Partial<TaggedSession> = {
      ...(this.#project === null ? {} : { project: this.#project }),
      ...(at === undefined ? {} : { obtainedAt: at }),
      ...(offset === undefined ? {} : { clockOffset: offset }),
    };
    return Object.keys(tags).length === 0
      ? session
      : copySession(session, tags as Partial<Session>);
  }

  /**
   * Loads the stored session; an expired one is refreshed, and stays
   * `Expired` when that is not possible now. With auto-refresh on, a live
   * session already within `refreshBufferSeconds` of expiry is refreshed
   * before this resolves (the stored one is returned if that fails for now).
   * A `signal` ends the caller's wait (`Failure(CANCELLED)`), not the restore;
   * one already aborted starts nothing. Begun with no session held
   * (`Loading`), it is waited for by `refreshSession` and the session-aware
   * helpers that read the held session, called meanwhile
   * (`refreshTokenAndSaveSession` and the sign-ins do not wait).
   *
   * @param options A `signal`.
   * @returns The session, or why not.
   */
  restoreSession(options?: { signal?: AbortSignal | undefined }): Promise<ServiceResult<Session>> {
    return untilCancelled(() => this.#restore(), options?.signal);
  }

  async #restore(): Promise<ServiceResult<Session>> {
    this.#started = true;
    // A session held in memory stays visible (and refreshable) while storage is read.
    if (this.#state.value.kind !== "NotAuthenticated") return await this.#read();
    // With none held, operations on the held session (refreshSession, the session-aware
    // helpers) wait for what this restore brings in (`afterRestore`), as auth-js's methods
    // await its initialisation; a subscriber told of Loading already finds the wait.
    let done!: () => void;
    const earlier = restoring.get(this);
    const wait = new Promise<void>((resolve) => (this.#loading = done = resolve));
    restoring.set(this, wait);
    // Database and storage calls carrying the client's token wait for it too (core/_token_wait).
    // One per manager: a wait an earlier restore left (one that found nothing, taken over) goes;
    // the calls waiting on it still do until it ends.
    let waits = tokenWaits.get(this.#client);
    if (waits === undefined) tokenWaits.set(this.#client, waits = new Set());
    if (earlier !== undefined) waits.delete(earlier);
    waits.add(wait);
    this.#state.value = LOADING;
    try {
      return await this.#read();
    } finally {
      this.#loaded(done);
    }
  }

  /** A restore's read of the storage and what follows from it. */
  async #read(): Promise<ServiceResult<Session>> {
    const generation = this.#generation;
    let loaded: Session | null = null;
    let unreadable = false;
    const seen = { foreign: false };
    try {
      loaded = await this.#load(seen);
    } catch {
      unreadable = true;
    }
    if (generation !== this.#generation) {
      // A sign-in, refresh or sign-out happened meanwhile: what was read is older.
      const current = this.currentSession;
      return current
        ? success(current)
        : failure({ message: "No active session", category: "NO_SESSION" });
    }
    // The held session as of now: one that has lapsed meanwhile is Expired.
    this.#checkLapsed();
    const heldNow = this.#state.value as SessionState; // not narrowed by the assignment above
    // An earlier state of the session held, which this manager moved on from (a refresh whose
    // write failed), is older too. Another session it once held (an account switched back to in
    // another tab) is taken as any stored session is.
    const heldSession = heldOf(heldNow);
    // This manager's own last write has not landed (a store slower than the 10 s the manager
    // waits): what was read (nothing, or a session it replaced or cleared) is older than what
    // it holds. Applying it would sign the user out, put a spent refresh token back, or sign a
    // signed-out user in again. Another session read (another tab's sign-in) is adopted.
    const older = this.#olderThanUnlanded(heldSession, loaded) ||
      (loaded !== null && heldSession !== null && this.#left.has(loaded.refreshToken) &&
        sameSession(heldSession, loaded));
    // Else a session the auth server refused as dead, left stored by a refresh that could not
    // read the storage: cleared now that it can, in the storage's turn, and never held again.
    if (older || (loaded !== null && this.#dead.has(loaded.refreshToken))) {
      if (heldNow.kind === "Authenticated") return success(heldNow.session);
      if (heldNow.kind === "Expired") return this.#stillExpired();
      if (older) {
        if (heldNow.kind === "Loading") this.#state.value = NOT_AUTHENTICATED;
      } else {
        void this.#clear(undefined, (stored) => stored.refreshToken !== loaded!.refreshToken, false)
          .catch(() => {});
      }
      return failure({ message: "No active session", category: "NO_SESSION" });
    }
    if (!loaded) {
      if (heldNow.kind === "Loading") this.#state.value = NOT_AUTHENTICATED;
      else if (!unreadable && heldNow.kind !== "NotAuthenticated") {
        // Storage holds no session (signed out elsewhere): none is held here either.
        this.#drop();
        this.#signedOut();
      } else if (unreadable && heldNow.kind === "Authenticated") {
        return success(heldNow.session); // a storage fault signs nobody out
      }
      return failure({
        message: seen.foreign
          // Said apart from an empty storage: a server reaching the project through another URL
          // than the browser's needs the same SessionConfig.project. So is a storage that failed
          // to answer, which is no sign-out.
          ? "No active session: the stored session belongs to another project (SessionConfig.project)"
          : unreadable
          ? "No active session: the session storage could not be read"
          : "No active session",
        category: "NO_SESSION",
        code: seen.foreign
          ? "session_of_another_project"
          : unreadable
          ? "storage_unreadable"
          : null,
      });
    }
    const stored = storedExpiry(loaded);
    if (this.#lapsed(stored)) {
      // A session this manager did not hold (a fresh page's, another account's) is announced as
      // a live one read is, SIGNED_IN, when its grant succeeds; one that replaces another held
      // here and cannot be refreshed now ends that one (SIGNED_OUT): the client's token is no
      // longer its.
      const other = heldSession !== null && !sameAccount(heldSession, stored);
      if (other || heldSession === null || this.#announce === heldSession.refreshToken) {
        this.#announce = stored.refreshToken;
      }
      // The base client keeps the lapsed token, as for a session that lapses while held:
      // requests fail with 401 rather than running as the anonymous key.
      this.#useToken(stored);
      this.#leave(stored.refreshToken);
      this.#state.value = { kind: "Expired", lastSession: stored };
      // Without auto-refresh the caller decides when to spend the refresh token.
      if (!this.#autoRefresh) {
        if (other) this.#emit(AuthStateChangeEvent.SIGNED_OUT, null);
        return this.#stillExpired(); // its failure, with auto-refresh off
      }
      const refreshed = await this.#sharedRefresh();
      if (!refreshed.ok && other && this.#announce === stored.refreshToken) {
        this.#emit(AuthStateChangeEvent.SIGNED_OUT, null);
      }
      return refreshed;
    }
    // Not yet announced (a lapsed session a restore took and could not refresh): a sign-in.
    const unannounced = heldSession !== null && this.#announce === heldSession.refreshToken;
    this.#apply(stored);
    // Another tab's refresh of the session held here (its next tokens) is a refresh, as when a
    // refresh takes it from storage; anything else read is a sign-in.
    this.#emit(
      !unannounced && heldSession !== null && stored.refreshToken !== heldSession.refreshToken &&
        heldSession.refreshToken !== "" && sameSession(heldSession, stored)
        ? AuthStateChangeEvent.TOKEN_REFRESHED
        : AuthStateChangeEvent.SIGNED_IN,
      stored,
    );
    if (
      this.#autoRefresh && !this.#disposed && stored.expiresAt != null &&
      this.#refreshDueIn(stored, false) <= 0
    ) {
      // Due now: refresh before answering, not from a timer that fires after a server has
      // sent its response (and with it the cookies the refresh would have written).
      const refreshed = await this.#sharedRefresh();
      const current = this.currentSession;
      // A transient failure leaves the stored session live: it is the answer. A refresh whose
      // new tokens could not be stored (the old ones are spent) is reported, never hidden.
      return refreshed.ok || !current || current.refreshToken !== stored.refreshToken
        ? refreshed
        : success(current);
    }
    this.#schedule();
    return success(stored);
  }

  /**
   * Restores the stored session and starts auto-refresh when configured;
   * call it at startup. A `signal` ends the caller's wait (`Failure(CANCELLED)`),
   * not the restore; one already aborted starts nothing.
   *
   * @param options A `signal`.
   * @returns The session, or why not.
   */
  initialize(options?: { signal?: AbortSignal | undefined }): Promise<ServiceResult<Session>> {
    return untilCancelled(() => {
      if (this.#autoRefreshConfigured && !this.#disposed) this.#autoRefresh = true;
      return this.#restore();
    }, options?.signal);
  }

  /** Schedules refreshes before expiry (and retries after failures). */
  startAutoRefresh(): void {
    if (this.#disposed) return;
    this.#autoRefresh = true;
    this.#schedule();
  }

  /** Stops scheduled refreshes; clears every timer. */
  stopAutoRefresh(): void {
    this.#autoRefresh = false;
    this.#clearTimer();
  }

  /**
   * Stops timers and drops listeners (`onAuthStateChange` and `sessionState` subscribers; a
   * `for await` over `sessionState` ends); the stored session is kept.
   */
  dispose(): void {
    this.#disposed = true;
    this.stopAutoRefresh();
    this.#listeners.clear();
    this.#state.close();
    // The base client may outlive the manager (reused by the next request): the token this
    // manager applied must not carry over. Concurrent requests need a base client each.
    if (this.#applied !== null && this.#client.accessToken === this.#applied) {
      this.#client.clearAccessToken();
    }
  }

  /** The same as {@linkcode SessionManager.dispose}. */
  close(): void {
    this.dispose();
  }

  #clearTimer(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #setTimer(ms: number, fn: () => void): void {
    this.#clearTimer();
    if (this.#disposed) return;
    const wait = Math.max(0, ms) || 0;
    this.#timerDue = Date.now() + wait;
    const t = setTimeout(() => {
      this.#timer = null;
      // A wait past setTimeout's limit is served in slices.
      if (wait > MAX_TIMER_MS) this.#setTimer(wait - MAX_TIMER_MS, fn);
      else fn();
    }, Math.min(wait, MAX_TIMER_MS));
    // Never keep a process alive just to refresh (Node and Deno timers expose unref()).
    const timer = t as { unref?: (() => void) | undefined } | null;
    if (typeof timer === "object" && typeof timer?.unref === "function") timer.unref();
    this.#timer = t;
  }

  #schedule(): void {
    if (!this.#autoRefresh || this.#disposed || this.#storage.perRequest) return;
    this.#checkLapsed();
    const s = this.#state.value;
    if (s.kind === "Expired") {
      // A lapsed session keeps its pending retry, or gets one now; but tokens that arrive
      // already lapsed (this clock runs ahead of the server's) wait the minimum gap, or every
      // refresh would start the next one at once.
      // A timer the wall clock has passed (a device that slept) is not waited for.
      const pending = this.#timer !== null && Date.now() < this.#timerDue;
      if (!pending && s.lastSession.refreshToken.trim() !== "") {
        const lifetime = Math.max(0, s.lastSession.expiresIn) * 1000;
        const wait = this.#fromRefresh ? this.#appliedAt + refreshGap(lifetime) - Date.now() : 0;
        this.#setTimer(wait, () => void this.#sharedRefresh());
      }
      return;
    }
    const session = this.currentSession;
    // No refresh token, or no known expiry to refresh before: nothing to schedule.
    if (!session || session.refreshToken.trim() === "" || session.expiresAt == null) {
      return this.#clearTimer();
    }
    const due = this.#refreshDueIn(session);
    const untilExpiry = this.#expiresAtMs(session) - Date.now();
    // A refresh held back past the expiry (the 10 s gap) still reports the lapse at the expiry.
    if (due > untilExpiry) this.#setTimer(untilExpiry, () => this.#schedule());
    else this.#setTimer(due, () => void this.#sharedRefresh());
  }

  /**
   * Milliseconds until `session` is due for refresh (zero or less: now):
   * `refreshBufferSeconds` before expiry, as the document says, but never
   * sooner than 10 s (or half the token's life, when shorter, but not under
   * 1 s) after the token was granted, so a token not much longer than the
   * buffer is not refreshed in a loop. For tokens this manager's own refresh just received, the grant
   * time is also when this clock got them (a device clock ahead of the
   * server's would see each new token as due at once); other sessions (saved,
   * restored, imported) are never made to wait past their expiry.
   */
  #refreshDueIn(session: Session, fresh = this.#fromRefresh): number {
    const lifetime = Math.max(0, session.expiresIn) * 1000;
    const expiresAt = this.#expiresAtMs(session);
    // An expiry beyond what milliseconds can count (a server's 1e308) is never due (the grant
    // time below would be NaN, which schedules at once: a refresh loop).
    if (expiresAt === Infinity) return Infinity;
    const due = expiresAt - this.#buffer * 1000;
    // An unknown lifetime (expiresIn 0) has no grant time to measure from.
    if (lifetime === 0) return due - Date.now();
    const granted = fresh ? Math.max(expiresAt - lifetime, this.#appliedAt) : expiresAt - lifetime;
    const earliest = granted + refreshGap(lifetime);
    const at = Math.max(due, earliest);
    return (fresh ? at : Math.min(at, expiresAt)) - Date.now();
  }
}

/**
 * Creates a {@linkcode SessionManager}; no I/O until `initialize`,
 * `restoreSession` or `saveSession`.
 *
 * @example With persistent storage
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, KeyValueSessionStorage, webStorageStore } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const manager = createSessionManager(createAuthClient(client), client, {
 *   storage: new KeyValueSessionStorage(webStorageStore(globalThis.localStorage)),
 * });
 * await manager.initialize();
 * ```
 *
 * @param auth The auth client.
 * @param client The base client whose token is kept in sync.
 * @param config Refresh and storage settings.
 * @returns The manager.
 */
export function createSessionManager(
  auth: AuthClient,
  client: BaseClient,
  config?: SessionConfig,
): SessionManager {
  return new SessionManager(auth, client, config);
}
