/**
 * Session storage contracts and adapters: in memory (the default), any
 * key-value store, Web Storage, async key-value namespaces (Cloudflare KV
 * style: `get` and `put` or `set` of text) and cookies for server rendering
 * (chunked).
 *
 * @module
 */

import { hasMethods } from "../core/_has_methods.ts";
import { bounded } from "../core/_abort.ts";
import { STORAGE_WAIT_MS } from "./_serial.ts";
import { SessionTooLarge } from "./_too_large.ts";
import { withMaskedFields } from "../core/mask.ts";
import type { Session, User } from "../auth/models.ts";
import { SESSION_SECRETS, USER_SECRETS } from "./_copy.ts";
import { decodeBase64Url, encodeBase64Url, utf8Decode } from "../core/encoding.ts";
import { encodeComponent } from "../core/_uri.ts";
import { showValue } from "../core/_show.ts";
import { misshapenUserField } from "./_user_shape.ts";

/** Persists one session; every method may be sync or async. */
export interface SessionStorage {
  /**
   * True for a storage that lives for one request (cookies on a server):
   * the manager then arms no refresh timer, which would fire after the
   * response has gone and spend the browser's refresh token. A due session
   * is still refreshed by `restoreSession`. Default false.
   */
  readonly perRequest?: boolean | undefined;
  /** Stores the session. */
  save(session: Session): void | Promise<void>;
  /** The stored session, or null (never throws for a corrupt payload). */
  load(): Session | null | Promise<Session | null>;
  /** Forgets the session. */
  clear(): void | Promise<void>;
}

/** A string key-value store; every method may be sync or async. */
export interface KeyValueStore {
  /** The value of a key, or null. */
  get(key: string): string | null | undefined | Promise<string | null | undefined>;
  /** Stores a value. */
  set(key: string, value: string): void | Promise<void>;
  /** Removes a key. */
  remove(key: string): void | Promise<void>;
}

/**
 * The default storage key. A `SessionManager` tags what it stores with its
 * project (the base client's URL) and uses no session tagged with another,
 * so two projects sharing this key never send each other's tokens; each
 * still overwrites the other's session on sign-in and removes it on
 * sign-out, so give each its own key.
 *
 * @example A key per project
 * ```ts
 * import { DEFAULT_KEY, KeyValueSessionStorage } from "@fetchbase/fetchbase/session";
 *
 * const map = new Map<string, string>();
 * const store = {
 *   get: (k: string) => map.get(k), set: (k: string, v: string) => void map.set(k, v),
 *   remove: (k: string) => void map.delete(k),
 * };
 * const projectA = new KeyValueSessionStorage(store, `${DEFAULT_KEY}.project-a`);
 * const projectB = new KeyValueSessionStorage(store, `${DEFAULT_KEY}.project-b`);
 * ```
 */
export const DEFAULT_KEY = "fetchbase.auth.session";

/**
 * Serialises a session to JSON (tokens included: storage needs them).
 *
 * @example Round trip
 * ```ts
 * import { parseStoredSession, serializeSession } from "@fetchbase/fetchbase/session";
 *
 * const text = serializeSession({
 *   accessToken: "a", refreshToken: "r", expiresIn: 60, expiresAt: null, tokenType: "bearer",
 *   providerToken: null, providerRefreshToken: null,
 *   user: { id: "u", email: null, phone: null, createdAt: null, updatedAt: null, appMetadata: null, userMetadata: null,
 *     identities: null, factors: null, isAnonymous: null, role: null, emailConfirmedAt: null, phoneConfirmedAt: null,
 *     confirmedAt: null, lastSignInAt: null },
 * });
 * console.log(parseStoredSession(text)?.refreshToken); // r
 * ```
 *
 * @param session The session.
 * @returns JSON text.
 */
export function serializeSession(session: Session): string {
  return JSON.stringify(session);
}

/**
 * Parses a stored session; a corrupt or unusable payload (bad JSON, missing
 * or empty tokens, negative expiry, no user id) is null, never an exception.
 * The tags a `SessionManager` stores with it, `project`, `obtainedAt`
 * (when its tokens were obtained, ms) and `clockOffset` (the server's clock
 * minus the device's then, ms, when far apart), are kept.
 *
 * @example Corrupt payloads
 * ```ts
 * import { parseStoredSession } from "@fetchbase/fetchbase/session";
 *
 * console.log(parseStoredSession("{not json")); // null
 * ```
 *
 * @param text The stored text.
 * @returns The session or null.
 */
export function parseStoredSession(text: string | null | undefined): Session | null {
  if (typeof text !== "string" || text === "") return null;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (!v || typeof v !== "object") return null;
  const o = v as Record<string, unknown>;
  const nonEmpty = (x: unknown) => typeof x === "string" && x.trim() !== "";
  // An imported token may come without a refresh token (`importAuthToken` defaults it to "").
  if (!nonEmpty(o.accessToken) || typeof o.refreshToken !== "string") return null;
  if (!Number.isFinite(o.expiresIn) || (o.expiresIn as number) < 0) return null;
  if (o.expiresAt != null && (!Number.isFinite(o.expiresAt) || (o.expiresAt as number) < 0)) {
    return null;
  }
  const user = o.user as Record<string, unknown> | null;
  if (!user || typeof user !== "object" || typeof user.id !== "string") return null;
  // Fields later code walks must have their shape: objects, and lists of objects.
  if (misshapenUserField(user) !== null) return null;
  const str = (x: unknown) => (typeof x === "string" ? x : null);
  // The user's fields in the document's order: strings, but 4 to 7 objects and lists (their shape
  // checked above, so given or absent) and 8 a boolean; null for anything else.
  const fields: Record<string, unknown> = { id: user.id };
  [
    "email",
    "phone",
    "createdAt",
    "updatedAt",
    "appMetadata",
    "userMetadata",
    "identities",
    "factors",
    "isAnonymous",
    "role",
    "emailConfirmedAt",
    "phoneConfirmedAt",
    "confirmedAt",
    "lastSignInAt",
  ].forEach((k, i) => {
    const x = user[k];
    fields[k] = typeof x === (i === 8 ? "boolean" : "string") || (i > 3 && i < 8)
      ? x ?? null
      : null;
  });
  const session: Record<string, unknown> = {
    accessToken: o.accessToken as string,
    refreshToken: o.refreshToken as string,
    expiresIn: o.expiresIn as number,
    expiresAt: (o.expiresAt as number | null | undefined) ?? null,
    tokenType: str(o.tokenType) ?? "bearer",
    user: withMaskedFields(fields as unknown as User, USER_SECRETS),
    providerToken: str(o.providerToken),
    providerRefreshToken: str(o.providerRefreshToken),
  };
  // The project a SessionManager tagged it with, kept so that it can check it, and when its
  // tokens were obtained (tabs sharing the storage tell a later state of a session by it).
  if (typeof o.project === "string") session.project = o.project;
  if (Number.isFinite(o.obtainedAt)) session.obtainedAt = o.obtainedAt;
  // How far the server's clock was from the device's when they were obtained (ms).
  if (Number.isFinite(o.clockOffset)) session.clockOffset = o.clockOffset;
  return withMaskedFields(session as unknown as Session, SESSION_SECRETS);
}

/**
 * Keeps the session in memory only (the default; lost when the process ends,
 * unsuitable for production).
 *
 * @example Default storage
 * ```ts
 * import { InMemorySessionStorage } from "@fetchbase/fetchbase/session";
 *
 * const storage = new InMemorySessionStorage();
 * console.log(storage.load()); // null
 * ```
 */
export class InMemorySessionStorage implements SessionStorage {
  #session: Session | null = null;

  /**
   * Stores the session.
   *
   * @param session The session.
   */
  save(session: Session): void {
    this.#session = session;
  }

  /**
   * The stored session.
   *
   * @returns The session or null.
   */
  load(): Session | null {
    return this.#session;
  }

  /** Forgets the session. */
  clear(): void {
    this.#session = null;
  }
}

/** A store's own word that its last write of a key was refused (`webStorageStore`'s). */
const WRITE_REFUSED: unique symbol = Symbol("write refused");

/** What a refused Web Storage write leaves in the key: no value a caller stores. */
const REFUSED_MARK = "\u0000fetchbase: the last write was refused";

/**
 * Stores the session as JSON in any {@linkcode KeyValueStore}.
 *
 * @example With a Map
 * ```ts
 * import { KeyValueSessionStorage } from "@fetchbase/fetchbase/session";
 *
 * const map = new Map<string, string>();
 * const storage = new KeyValueSessionStorage({
 *   get: (k) => map.get(k), set: (k, v) => void map.set(k, v), remove: (k) => void map.delete(k),
 * });
 * ```
 */
export class KeyValueSessionStorage implements SessionStorage {
  readonly #store: KeyValueStore;
  /**
   * Opens when the last write or removal queued has settled, or has run for
   * `STORAGE_WAIT_MS`: the next one waits for it, so a clear is never
   * overtaken, and one that never settles does not hold every later one.
   */
  #gate: Promise<void> = Promise.resolve();
  /** The last write or removal queued: run again after a late one lands, to keep the last word. */
  #latest: (() => void | Promise<void>) | null = null;
  /** The key the session is stored under. */
  readonly key: string;

  /**
   * Wraps a store.
   *
   * @param store The store.
   * @param options The key, given as it is or as `{ key }` (the options form of the document's
   *   `key = DEFAULT_KEY`). Default {@linkcode DEFAULT_KEY}.
   * @throws {TypeError} When `store` lacks a method, or the key is not a non-empty string.
   */
  constructor(store: KeyValueStore, options?: string | { key?: string | undefined }) {
    // Web Storage itself (getItem, setItem, removeItem) is the likely mistake: name its adapter.
    if (!hasMethods(store, ["get", "set", "remove"])) {
      throw new TypeError(
        "Cannot store sessions as 'store' must have get, set and remove: wrap Web Storage as webStorageStore(localStorage)",
      );
    }
    const key =
      (options !== null && typeof options === "object" && !Array.isArray(options)
        ? options.key
        : options) ?? DEFAULT_KEY;
    // Else the session went under "[object Object]" or a number's text, which no later load finds.
    if (typeof key !== "string" || key === "") {
      throw new TypeError(
        `Cannot store sessions as 'key' must be a non-empty string: current value is ${
          showValue(key)
        }`,
      );
    }
    this.#store = store;
    this.key = key;
  }

  /**
   * Stores the session.
   *
   * @param session The session.
   */
  save(session: Session): Promise<void> {
    let text: string;
    try {
      text = serializeSession(session);
    } catch (error) {
      return Promise.reject(error); // a session JSON cannot hold: a rejection, as promised
    }
    return this.#queue(() => this.#store.set(this.key, text));
  }

  #queue(op: () => void | Promise<void>): Promise<void> {
    // In call order, each after the one before has settled: a clear is never overtaken by a slow
    // save. One that has not settled STORAGE_WAIT_MS after it started is given up on, so that a
    // write that never settles does not hold every later one (and every sign-in and sign-out
    // behind them); when it lands at last, the last call queued runs again and has the last word.
    this.#latest = op;
    const result = this.#gate.then(op);
    this.#gate = this.#gate.then(async () => {
      if ((await bounded(result, STORAGE_WAIT_MS)).kind !== "timeout") return;
      const again = () => {
        const latest = this.#latest;
        if (latest !== op && latest !== null) this.#queue(latest).catch(() => {});
      };
      result.then(again, again);
    });
    return result;
  }

  /**
   * Loads the session; corrupt payloads are null. A store that fails to read
   * rejects, so that the manager keeps the session it holds (an unreadable
   * storage signs nobody out).
   *
   * @returns The session or null.
   */
  async load(): Promise<Session | null> {
    // After the writes queued before it (a late one's re-run included), for as long as a write
    // may take: a restore right after a sign-out reads the sign-out.
    await bounded(this.#gate, STORAGE_WAIT_MS);
    const raw = await this.#store.get(this.key);
    // Nothing stored because this page's last write was refused: a fault, not a sign-out.
    if (
      raw == null &&
      (this.#store as { [WRITE_REFUSED]?: ((k: string) => boolean) | undefined })[WRITE_REFUSED]?.(
        this.key,
      )
    ) {
      throw new Error("Web Storage refused the last write of the session: nothing is stored");
    }
    try {
      return parseStoredSession(raw);
    } catch {
      return null;
    }
  }

  /** Removes the session. */
  clear(): Promise<void> {
    return this.#queue(() => this.#store.remove(this.key));
  }
}

/**
 * A {@linkcode KeyValueStore} over Web Storage (`localStorage` or `sessionStorage`).
 *
 * @example In a browser
 * ```ts
 * import { KeyValueSessionStorage, webStorageStore } from "@fetchbase/fetchbase/session";
 *
 * const storage = new KeyValueSessionStorage(webStorageStore(globalThis.localStorage));
 * ```
 *
 * @param storage A Web Storage object.
 * @returns The store.
 */
export function webStorageStore(
  // Structural, so that the public types need no DOM library (a Node-only project).
  storage: {
    getItem(key: string): string | null;
    setItem(key: string, value: string): void;
    removeItem(key: string): void;
  },
): KeyValueStore {
  // `globalThis.localStorage` is undefined in Workers, Deno Deploy and Node.
  if (!hasMethods(storage, ["getItem", "setItem", "removeItem"])) {
    throw new TypeError(
      `Cannot use Web Storage as 'storage' must have getItem, setItem and removeItem: current value is ${
        showValue(storage)
      }`,
    );
  }
  // Web Storage may refuse writes (Safari private mode, a full quota): the session then
  // lives in memory for this page instead of failing the sign-in. Until a write of the key lands
  // or it is removed, a session storage over it reads nothing there as a fault, not as "signed
  // out elsewhere" (`KeyValueSessionStorage.load`): a restore (`initialize()`, a tab's focus)
  // then dropped the session held, its refresh token with it. `get` itself answers as Web
  // Storage does: the store may serve as a resumable upload's URL store too.
  //
  // A refused write also leaves a mark in the key, where the removal made room for one: other
  // tabs read it as the same fault. A tab whose refresh found the key empty took it for a
  // sign-out elsewhere and ended its session, though nobody had signed out.
  const refused = new Set<string>();
  const store = {
    get: (k: string) => {
      const v = storage.getItem(k);
      return v === REFUSED_MARK ? null : v;
    },
    [WRITE_REFUSED]: (k: string) => refused.has(k) || storage.getItem(k) === REFUSED_MARK,
    set: (k: string, v: string) => {
      try {
        storage.setItem(k, v);
        refused.delete(k);
      } catch {
        refused.add(k);
        // Not persisted; nor may the session before it stay (its refresh token is spent by now,
        // and a reload or another tab would restore it).
        try {
          storage.removeItem(k);
          storage.setItem(k, REFUSED_MARK);
        } catch {
          // nothing more to do
        }
      }
    },
    remove: (k: string) => {
      refused.delete(k);
      try {
        storage.removeItem(k);
      } catch {
        // nothing persisted to remove
      }
    },
  };
  return store;
}

/** An async key-value namespace: Cloudflare KV (`put`) or any `set` store. */
export interface KeyValueNamespace {
  /** The value of a key. */
  get(key: string): Promise<string | null | undefined>;
  /** Stores a value (Cloudflare KV; its options take `expirationTtl` in seconds). */
  put?(
    key: string,
    value: string,
    options?: { expirationTtl?: number | undefined } | undefined,
  ): Promise<void>;
  /** Stores a value (other stores). */
  set?(key: string, value: string): Promise<unknown>;
  /** Removes a key. */
  delete(key: string): Promise<unknown>;
}

/** Options of {@linkcode namespaceStore}. */
export interface NamespaceStoreOptions {
  /**
   * Seconds after which a stored session expires in a namespace whose `put` takes
   * `expirationTtl` (at least 60, as Cloudflare KV requires), so that abandoned sessions do not
   * stay for ever; each save renews it. Default: none.
   */
  expirationTtl?: number | undefined;
}

/**
 * A {@linkcode KeyValueStore} over an async namespace such as Cloudflare KV.
 *
 * Cloudflare KV is eventually consistent: a read at another location may be up to 60 s old.
 * Refresh tokens rotate, and GoTrue revokes a session whose spent refresh token comes back
 * after its reuse interval (10 s by default): a request at a location still reading the old
 * session signs its user out. Keep sessions refreshed at one place (a Durable Object, D1, or
 * cookies through {@linkcode CookieSessionStorage}) unless requests of one browser stay at one
 * location.
 *
 * @example Cloudflare KV
 * ```ts
 * import { KeyValueSessionStorage, namespaceStore, type KeyValueNamespace } from "@fetchbase/fetchbase/session";
 *
 * // In a Worker, `env.SESSIONS` is the KV binding. Key each browser's session by a random id
 * // kept in an HttpOnly cookie (crypto.randomUUID()), never by anything the request names
 * // (a user id): whoever names a key would be served its refresh token.
 * function sessionsOf(env: { SESSIONS: KeyValueNamespace }, sessionId: string) {
 *   return new KeyValueSessionStorage(namespaceStore(env.SESSIONS), `session:${sessionId}`);
 * }
 * ```
 *
 * @param ns The namespace.
 * @param options `expirationTtl` for a namespace that takes it.
 * @returns The store.
 * @throws {RangeError} When `expirationTtl` is not an integer of at least 60.
 */
export function namespaceStore(
  ns: KeyValueNamespace,
  options?: NamespaceStoreOptions,
): KeyValueStore {
  const ttl = options?.expirationTtl;
  // Cloudflare KV refuses a shorter one: every save would fail.
  if (ttl !== undefined && !(Number.isSafeInteger(ttl) && ttl >= 60)) {
    throw new RangeError(
      `Cannot store sessions as 'expirationTtl' must be an integer of at least 60 seconds: current value is ${
        showValue(ttl)
      }`,
    );
  }
  return {
    get: (k) => ns.get(k),
    set: async (k, v) => {
      if (ns.put) await (ttl === undefined ? ns.put(k, v) : ns.put(k, v, { expirationTtl: ttl }));
      else if (ns.set) await ns.set(k, v);
      else throw new TypeError("Cannot store as the namespace has neither put nor set");
    },
    remove: async (k) => void (await ns.delete(k)),
  };
}

/** Options of {@linkcode CookieSessionStorage}. */
export interface CookieOptions {
  /**
   * Cookie name (chunks get `.0`, `.1`, ...). Default `__Host-fb-session`, or `fb-session` where
   * the prefix's rules cannot hold (`secure: false`, a `domain`, another `path`): a cookie of a
   * plain name can be set by any sibling subdomain, for any path, and the one it plants is read
   * first, signing the browser into the planter's session.
   */
  name?: string | undefined;
  /**
   * Path. Default `/`. Changing it leaves the cookies of the old path in browsers, which send
   * them first on that path's pages (longer paths come first): clear them under the old path
   * once (a `CookieSessionStorage` with that `path`, `clear()`).
   */
  path?: string | undefined;
  /**
   * Domain (to share the session with subdomains). Each save and clear also deletes host-only
   * cookies of the same names, which a configuration without a domain left: browsers send those
   * first (they are older), so they would be read instead of every new session. Dropping or
   * changing a domain leaves the cookies of the old one in browsers, likewise sent first and
   * read instead of every new session, and past every sign-out: clear them with the old domain
   * once (a `CookieSessionStorage` with that `domain`, `clear()`).
   */
  domain?: string | undefined;
  /** Max-Age in seconds. Default 400 days. */
  maxAge?: number | undefined;
  /** SameSite. Default `Lax`. */
  sameSite?: "Lax" | "Strict" | "None" | undefined;
  /** Secure. Default true. */
  secure?: boolean | undefined;
  /** HttpOnly. Default true. */
  httpOnly?: boolean | undefined;
  /** Largest cookie value before chunking. Default 3180 characters. */
  chunkSize?: number | undefined;
  /**
   * Most chunks a session may take. Default: as many as fit in 12,720
   * characters (at most 50) (4 of the default size, about 12.4 KiB), since servers
   * refuse requests whose headers grow past their limit (Node 16 KiB in all),
   * which would lock the user out of the site. Behind nginx, whose default
   * limit is 8 KiB per header line (all cookies share one `Cookie` line), set
   * 2. A session that needs more makes `save` throw a `RangeError`.
   */
  maxChunks?: number | undefined;
}

/** How a cookie session's value in base64url starts (the other form starts with `*7B`). */
const COOKIE_BASE64 = "base64-";

/** The most chunks a cookie session may take: indices 0 to 49, whatever the configuration. */
const MAX_CHUNKS = 50;

/**
 * `text` without its leading and trailing spaces and tabs. A loop, not a regular expression: one
 * ending in `[ \t]+$` retries the rest of every run of them inside a value, so a `Cookie` header
 * holding a long run (anyone can send one) took time growing with its square (a 60 KB header held
 * a Deno server for 4 s).
 */
function trimSpaceTab(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && (text[start] === " " || text[start] === "\t")) start++;
  while (end > start && (text[end - 1] === " " || text[end - 1] === "\t")) end--;
  return text.slice(start, end);
}

/**
 * Parses a `Cookie` header. Pairs split on `;`; the first of duplicate names
 * wins (browsers send cookies of longer paths first, then older ones: RFC 6265
 * §5.4; a save with a `domain` deletes the host-only cookies an earlier
 * configuration left, which would come first), and quoted values are unquoted. Several `Cookie` headers joined with `, ` (workerd's `Headers`,
 * a platform that joins HTTP/2 cookie crumbs so) split too, but a pair after
 * a comma is taken only when its name has no `__Host-` or `__Secure-`
 * prefix: a comma may be part of a value, and a cookie another origin can set
 * (`pref=x,__Host-fb-session=…`) would otherwise carry a session past the
 * prefix. A cookie without a prefix, anyone able to set cookies for the site
 * can set directly.
 */
function parseCookies(header: string | null): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of (header ?? "").split(";")) {
    pair.split(/,(?=\s*[^\s=;,]+=)/).forEach((part, i) => {
      const eq = part.indexOf("=");
      if (eq < 0) return;
      // Space and tab only, as browsers strip them (RFC 6265bis §5.6): `trim` also took U+00A0,
      // so a cookie another origin set as "\u00a0__Host-fb-session" (no prefix to a browser,
      // hence none of its rules) was read as the `__Host-` session.
      const name = trimSpaceTab(part.slice(0, eq));
      if (i > 0 && /^__(?:host|secure)-/i.test(name)) return;
      let value = trimSpaceTab(part.slice(eq + 1));
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
        value = value.slice(1, -1);
      }
      if (!out.has(name)) out.set(name, value);
    });
  }
  return out;
}

/** The `Cookie` header of what the constructor takes; a clear TypeError for anything else. */
function cookieHeader(request: Request | string | null): string | null {
  if (typeof request === "string" || request === null) return request;
  const headers = (request as { headers?: { get?: unknown } | undefined } | undefined)
    ?.headers;
  if (typeof headers?.get !== "function") {
    throw new TypeError(
      "Cannot read the cookies as 'request' must be a Fetch Request, a Cookie header or null (in Hono, pass c.req.raw)",
    );
  }
  return request.headers.get("cookie");
}

/**
 * Session storage for server rendering: reads the session from a request's
 * `Cookie` header and collects `Set-Cookie` headers to write on the
 * response. Sessions larger than one cookie allows are split into chunks
 * (`name.0`, `name.1`, ... up to `maxChunks`); every save or clear deletes
 * each session cookie name it does not write, so the last response's
 * cookies are the whole session. It is `perRequest`: a manager arms no
 * refresh timer for it (one would fire after the response has gone and spend
 * the browser's refresh token), and with auto-refresh on (the default)
 * `initialize` refreshes a due session before it resolves, so the response
 * carries the new cookies. Keep auto-refresh on here (unlike `@supabase/ssr`'s
 * `autoRefreshToken: false`): with it off, a lapsed cookie session stays
 * `Expired`, the helpers answer `NO_SESSION` and the user is signed out once
 * the access token's lifetime has passed. Call `initialize()` in every request
 * before the first call: until then the client has no token and its database
 * and storage calls go out with the API key (the session helpers answer
 * `NO_SESSION` with the code `not_initialized`). The manager puts the session's token on the base
 * client it is given: give each request its own base client (a client shared
 * by concurrent requests would run one request's calls with another's token),
 * and call the manager's `dispose()` once the response is built. The session
 * read from cookies is the browser's claim, not verified: check its token with
 * `getClaimsForCurrentSession` before trusting `currentSession.user`. A server
 * that reaches the project through another URL than the browser's (an
 * internal address) must give its manager the browser's `project`
 * (`SessionConfig.project`): a session tagged with another project is none
 * (`NO_SESSION`, code `session_of_another_project`).
 *
 * @example In a request handler
 * ```ts
 * import { CookieSessionStorage } from "@fetchbase/fetchbase/session";
 *
 * function handle(request: Request): Response {
 *   const storage = new CookieSessionStorage(request);
 *   // ... createSessionManager(auth, client, { storage }) ...
 *   const headers = new Headers();
 *   for (const c of storage.setCookieHeaders()) headers.append("Set-Cookie", c);
 *   return new Response("ok", { headers });
 * }
 * ```
 */
export class CookieSessionStorage implements SessionStorage {
  /** Always true: the cookies belong to one request and its response. */
  readonly perRequest = true;
  readonly #incoming: Map<string, string>;
  readonly #o:
    & { [K in Exclude<keyof CookieOptions, "domain">]-?: Exclude<CookieOptions[K], undefined> }
    & { domain?: string | undefined };
  #outgoing: string[] = [];
  #current: Session | null | undefined;

  /**
   * Reads the cookies of a request. Anything else than a Fetch `Request`, a
   * `Cookie` header value or null (a Node request, Hono's `c.req`) is a
   * `TypeError`.
   *
   * @param request The incoming request (or its `Cookie` header value).
   * @param options Cookie attributes and chunk size.
   */
  constructor(request: Request | string | null, options?: CookieOptions) {
    options ??= {};
    this.#incoming = parseCookies(cookieHeader(request));
    const hostOnly = options.secure !== false && options.domain === undefined &&
      (options.path ?? "/") === "/";
    this.#o = {
      name: options.name ?? (hostOnly ? "__Host-fb-session" : "fb-session"),
      path: options.path ?? "/",
      domain: options.domain,
      maxAge: options.maxAge ?? 400 * 24 * 3600,
      sameSite: options.sameSite ?? "Lax",
      secure: options.secure ?? true,
      httpOnly: options.httpOnly ?? true,
      chunkSize: options.chunkSize ?? 3180,
      // About 12.4 KiB in all, whatever the chunk size.
      maxChunks: options.maxChunks ??
        Math.min(MAX_CHUNKS, Math.max(1, Math.floor(12_720 / (options.chunkSize ?? 3180)))),
    };
    const o = this.#o;
    // A number would pass the pattern as its text and fail every later string operation.
    if (typeof o.name !== "string" || !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,200}$/.test(o.name)) {
      throw new RangeError(
        `Cannot store cookies as 'name' must be a cookie token of 1 to 200 characters: current value is ${
          showValue(o.name)
        }`,
      );
    }
    // Attribute values end at ';': one inside would add attributes to every Set-Cookie.
    if (typeof o.path !== "string" || !/^\/[\x21-\x3a\x3c-\x7e]*$/.test(o.path)) {
      throw new RangeError(
        `Cannot store cookies as 'path' must start with '/' and hold no ';', space or control character: current value is ${
          showValue(o.path)
        }`,
      );
    }
    if (
      o.domain !== undefined &&
      (typeof o.domain !== "string" ||
        !/^\.?[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(o.domain))
    ) {
      throw new RangeError(
        `Cannot store cookies as 'domain' must be a host name: current value is ${
          showValue(o.domain)
        }`,
      );
    }
    // Max-Age=0 deletes the cookie at once: every save would be lost.
    if (!Number.isSafeInteger(o.maxAge) || o.maxAge <= 0) {
      throw new RangeError(
        `Cannot store cookies as 'maxAge' must be a positive integer of seconds: current value is ${
          showValue(o.maxAge)
        }`,
      );
    }
    // Exactly one of the three: another value (`none`, or one carrying `; Domain=…`) would be
    // written into every Set-Cookie header as it is.
    if (o.sameSite !== "Lax" && o.sameSite !== "Strict" && o.sameSite !== "None") {
      throw new TypeError(
        `Cannot store cookies as 'sameSite' must be Lax, Strict or None: current value is ${
          showValue(o.sameSite)
        }`,
      );
    }
    if (o.sameSite === "None" && !o.secure) {
      throw new RangeError(
        "Cannot store cookies as SameSite=None requires 'secure' (browsers drop them)",
      );
    }
    // Browsers drop prefixed cookies that break the prefix's rules.
    if (/^__(?:Secure|Host)-/i.test(o.name) && !o.secure) {
      throw new RangeError(
        `Cannot store cookies as a '__Secure-' or '__Host-' name requires 'secure': current name is ${o.name}`,
      );
    }
    if (/^__Host-/i.test(o.name) && (o.domain !== undefined || o.path !== "/")) {
      throw new RangeError(
        `Cannot store cookies as a '__Host-' name requires path '/' and no domain: current name is ${o.name}`,
      );
    }
    // Browsers keep a cookie of at most 4096 bytes, name and attributes included.
    if (o.chunkSize > 3800 - o.name.length - (o.domain?.length ?? 0) - o.path.length) {
      throw new RangeError(
        `Cannot store cookies as 'chunkSize' leaves no room under the 4096-byte cookie limit: current value is ${
          showValue(o.chunkSize)
        }`,
      );
    }
    if (!Number.isInteger(o.chunkSize) || o.chunkSize < 100) {
      throw new RangeError(
        `Cannot store cookies as 'chunkSize' must be an integer >= 100: current value is ${
          showValue(o.chunkSize)
        }`,
      );
    }
    if (!Number.isSafeInteger(o.maxChunks) || o.maxChunks < 1 || o.maxChunks > MAX_CHUNKS) {
      throw new RangeError(
        `Cannot store cookies as 'maxChunks' must be an integer from 1 to ${MAX_CHUNKS}: current value is ${
          showValue(o.maxChunks)
        }`,
      );
    }
  }

  #cookie(name: string, value: string, maxAge: number, hostOnly = false): string {
    const o = this.#o;
    let c = `${name}=${value}; Path=${o.path}; Max-Age=${maxAge}; SameSite=${o.sameSite}`;
    if (o.domain && !hostOnly) c += `; Domain=${o.domain}`;
    if (o.secure) c += "; Secure";
    if (o.httpOnly) c += "; HttpOnly";
    return c;
  }

  /**
   * Every name the session may use: the bare name, each chunk name up to
   * `maxChunks`, and any other chunk name the request sent. A save or a
   * clear deletes all it does not write, whatever this request carried, so
   * concurrent responses cannot leave a mix of two sessions' chunks.
   */
  #allNames(): string[] {
    const { name, maxChunks } = this.#o;
    const names = new Set([name]);
    for (let i = 0; i < maxChunks; i++) names.add(`${name}.${i}`);
    const prefix = `${name}.`;
    // Only indices some configuration can write: a request carrying thousands of planted
    // chunk names must not make every response delete them all.
    for (const k of this.#incoming.keys()) {
      const index = k.startsWith(prefix) ? k.slice(prefix.length) : "";
      if (/^\d{1,2}$/.test(index) && +index < MAX_CHUNKS) names.add(k);
    }
    return [...names];
  }

  /**
   * Queues `Set-Cookie` headers for the session (chunked when large). A
   * session that cannot be stored (too large, or no JSON) throws, and the
   * session of the request is deleted, as `webStorageStore` does on a refused
   * write: kept, a later load in this request or the next request would bring
   * it back, another user's or one whose refresh token is spent.
   *
   * @param session The session.
   */
  save(session: Session): void {
    try {
      this.#save(session);
    } catch (error) {
      this.clear();
      throw error;
    }
  }

  #save(session: Session): void {
    // Characters no framework's cookie helpers change (encodeURIComponent and decodeURIComponent
    // leave them as they are): a percent-encoded value cut into chunks could end a chunk inside an
    // escape (%C3%), which Next.js's cookie parser drops, and helpers that decode or encode values
    // (Next.js's cookies(), request.cookies.set) garbled escapes the reader then decoded again.
    // The shorter of two forms: the JSON percent-encoded with `*` for `%` (text that is mostly
    // ASCII, as tokens are), or its UTF-8 in base64url (much text of other scripts).
    const json = serializeSession(session);
    const starred = encodeComponent(json).replace(/[%*]/g, (c) => c === "%" ? "*" : "*2A");
    const base64 = COOKIE_BASE64 + encodeBase64Url(json);
    let value = starred.length <= base64.length ? starred : base64;
    const { chunkSize: size, maxChunks, name } = this.#o;
    if (value.length > size) {
      // Chunk 0 starts with the chunk count (`3.`): a reader takes exactly that many, so chunks
      // another response left behind (a deploy that changed chunkSize) are never mixed in.
      let count = Math.ceil(value.length / size);
      while (value.length + `${count}.`.length > count * size) count++;
      value = `${count}.${value}`;
    }
    const chunks: string[] = [];
    for (let i = 0; i < value.length; i += size) chunks.push(value.slice(i, i + size));
    if (chunks.length > maxChunks) {
      throw new SessionTooLarge(
        `Cannot store the session in cookies as it needs ${chunks.length} chunks and 'maxChunks' is ${maxChunks}: keep less user metadata, or raise 'maxChunks' if every server in front allows larger Cookie headers`,
      );
    }
    const names = chunks.length === 1 ? [name] : chunks.map((_, i) => `${name}.${i}`);
    this.#outgoing = [
      ...this.#hostOnlyDeletions(),
      ...names.map((n, i) => this.#cookie(n, chunks[i], this.#o.maxAge)),
    ];
    for (const stale of this.#allNames()) {
      if (!names.includes(stale)) this.#outgoing.push(this.#cookie(stale, "", 0));
    }
    this.#current = session;
  }

  /**
   * With a `domain`, deletions of the same names without it: a host-only cookie an earlier
   * configuration left (the default has no domain) is older, so browsers list it first (RFC 6265
   * §5.4: longer paths, then older cookies), and no deletion carrying the domain removes it: it
   * would be read instead of every new session, and outlive every sign-out. They come before the
   * new cookies: where the domain is the request's host itself, the two are one cookie.
   */
  #hostOnlyDeletions(): string[] {
    return this.#o.domain ? this.#allNames().map((n) => this.#cookie(n, "", 0, true)) : [];
  }

  /**
   * The session of the request (or the one saved since). Corrupt cookies are null, and their
   * deletion is queued, as auth-js removes a session it cannot read: kept, they would go with
   * every request until the next sign-in.
   *
   * @returns The session or null.
   */
  load(): Session | null {
    if (this.#current !== undefined) return this.#current;
    const { name } = this.#o;
    const single = this.#incoming.get(name) || undefined; // an empty one is a deletion
    let raw = single ?? "";
    if (single === undefined) {
      const first = this.#incoming.get(`${name}.0`) ?? "";
      const counted = /^(\d{1,2})\.(.*)$/s.exec(first); // a session starts with *7B, base64- or %7B
      const count = counted ? Number(counted[1]) : MAX_CHUNKS;
      raw = counted ? counted[2] : first;
      for (let i = 1; first !== "" && i < count; i++) {
        const part = this.#incoming.get(`${name}.${i}`);
        if (part === undefined) {
          if (counted) return this.#unreadable(); // a chunk is missing: never a partial session
          break;
        }
        raw += part;
      }
    }
    if (raw === "") return null; // no session cookie (a stray later chunk is not one)
    try {
      // The starred form starts with `*7B` (`{`); percent-encoded JSON, which earlier versions
      // wrote, with `%7B`, and may hold a `*` of its own, which is no escape there.
      return parseStoredSession(
        raw.startsWith(COOKIE_BASE64)
          ? utf8Decode(decodeBase64Url(raw.slice(COOKIE_BASE64.length)), true)
          : decodeURIComponent(raw[0] === "*" ? raw.replace(/\*/g, "%") : raw),
      ) ?? this.#unreadable();
    } catch {
      return this.#unreadable();
    }
  }

  /** A session cookie that holds no session: null, its deletion queued (unless a save came). */
  #unreadable(): null {
    if (this.#outgoing.length === 0) this.clear();
    return null;
  }

  /** Queues headers that delete every session cookie. */
  clear(): void {
    this.#outgoing = [
      ...this.#hostOnlyDeletions(),
      ...this.#allNames().map((n) => this.#cookie(n, "", 0)),
    ];
    this.#current = null;
  }

  /**
   * The `Set-Cookie` header values to add to the response.
   *
   * @returns The header values.
   */
  setCookieHeaders(): string[] {
    return [...this.#outgoing];
  }
}
