/**
 * The JWKS resolver: fetches the project's JSON Web Key Set, caches it (and
 * the imported `CryptoKey`s) per auth client, and answers signing-key
 * look-ups by `kid`.
 *
 * Cache policy (see {@linkcode JWKS_DEFAULTS}):
 * - a fetched set is fresh for `maxAgeMs` (10 min), then refreshed so rotated
 *   keys are picked up; while a refresh is under way other callers are served
 *   from the cached set;
 * - a `kid` missing from a fresh set forces one refetch, unless a fetch came
 *   back without the `kid` it was asked for less than `cooldownMs` (30 s)
 *   ago: then the answer comes from the cached set (unknown `kid`s flooding
 *   in cost one fetch per cooldown); a `kid` still missing after the refetch
 *   made for it is answered null without fetching for `negativeCacheMs` (60 s);
 * - concurrent callers share one in-flight fetch, but wait for a fetch someone
 *   else started at most `inflightWaitMs` (2 s) before fetching for
 *   themselves (on Cloudflare Workers a fetch started for one request may
 *   never settle for another); a caller that has waited on two shared
 *   fetches in vain gives up (`TIMEOUT`; `getClaims` then asks the server)
 *   instead of adding a fetch per caller to a stalled endpoint;
 * - an external cache entry dated more than 5 s ahead of this clock is
 *   ignored (re-read, it would otherwise seem fresh for ever);
 * - a failed fetch (network, timeout, non-200, bad JSON) is answered from
 *   memory for `cooldownMs` without refetching, so a failing endpoint costs
 *   one timeout per cooldown rather than one per verification;
 * - an optional {@linkcode JwksCache} keeps the raw set across cold starts.
 *
 * Only ES256 keys (`kty` `EC`, `crv` `P-256`, `use` absent or `sig`, `alg`
 * absent or `ES256`, `key_ops` absent or containing `verify`) are ever
 * imported for verification; entries carrying private members (`d`, `p`,
 * `q`, `dp`, `dq`, `qi`, `oth`, `k`) are refused outright.
 *
 * @module
 */

import type { BaseClient } from "../core/client.ts";
import { type Failure, failure, type ServiceResult, success } from "../core/result.ts";
import { decodeJwk, type Jwk, type JwkSet } from "./jwt.ts";
import { bounded, cancelled } from "../core/_abort.ts";
import { API_VERSION } from "./_api_version.ts";
import { checkNonNegative } from "../core/_thrown.ts";

/**
 * An imported verification key: WebCrypto's `CryptoKey`, named through
 * `crypto.subtle` so that the public types need no DOM library (Node's
 * types declare WebCrypto under another name).
 */
export type VerificationKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

/**
 * The JWKS route under `/auth/v1`.
 *
 * @example Building the URL
 * ```ts
 * import { JWKS_PATH } from "@fetchbase/fetchbase/auth";
 *
 * console.log(`https://p.example/auth/v1${JWKS_PATH}`);
 * // https://p.example/auth/v1/.well-known/jwks.json
 * ```
 */
export const JWKS_PATH = "/.well-known/jwks.json";

/**
 * The default values of {@linkcode JwksOptions}.
 *
 * @example Reading a default
 * ```ts
 * import { JWKS_DEFAULTS } from "@fetchbase/fetchbase/auth";
 *
 * console.log(JWKS_DEFAULTS.maxAgeMs); // 600000 (10 minutes)
 * ```
 */
export const JWKS_DEFAULTS: {
  readonly [K in Exclude<keyof JwksOptions, "cache">]-?: Exclude<JwksOptions[K], undefined>;
} = /* @__PURE__ */ Object
  .freeze({
    // Literal numbers and a pure call: a bundle that never reads these drops them.
    maxAgeMs: 600_000, // 10 minutes
    cooldownMs: 30_000,
    negativeCacheMs: 60_000,
    inflightWaitMs: 2_000,
    timeout: 10_000,
    maxBodyBytes: 65_536, // 64 KiB
  });

/** Most unknown `kid`s remembered at once; the list is emptied when it would grow past this. */
const MAX_NEGATIVE_ENTRIES = 1024;
/** How far ahead of this clock an external cache entry may be dated and still be used. */
const EXTERNAL_CLOCK_SKEW_MS = 5_000;

/** Private or symmetric JWK members: an entry that has one is refused. */
const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"] as const;

/** A raw key set with the time it was fetched, as kept by a {@linkcode JwksCache}. */
export interface JwksCacheEntry {
  /** The JWKS response body, JSON text. */
  jwks: string;
  /** When it was fetched, Unix time in milliseconds. */
  fetchedAt: number;
}

/**
 * Storage for the raw key set beyond the resolver's memory (the Cache API or
 * KV on Workers, a file, Redis). Both methods may be sync or async; errors
 * are ignored. `key` is the JWKS URL, so one store can serve many projects.
 */
export interface JwksCache {
  /**
   * Reads the stored entry.
   *
   * @param key The JWKS URL.
   * @returns The entry, or null/undefined when there is none.
   */
  get(
    key: string,
  ): JwksCacheEntry | null | undefined | Promise<JwksCacheEntry | null | undefined>;
  /**
   * Stores an entry.
   *
   * @param key The JWKS URL.
   * @param entry The raw set and its fetch time.
   */
  set(key: string, entry: JwksCacheEntry): void | Promise<void>;
}

/** Options of {@linkcode createJwksResolver}; every duration in milliseconds. */
export interface JwksOptions {
  /** How long a fetched set is used before it is refreshed. Default 600000 (10 min). */
  maxAgeMs?: number | undefined;
  /** No refetch for an unknown `kid` within this time of the last fetch, nor after a failed fetch. Default 30000. */
  cooldownMs?: number | undefined;
  /** How long a `kid` missing after a refetch is answered as absent. Default 60000. */
  negativeCacheMs?: number | undefined;
  /**
   * Longest wait on a fetch another caller started before fetching oneself,
   * and on the `cache`'s reads and writes; 0 waits for none. Default 2000.
   */
  inflightWaitMs?: number | undefined;
  /** Timeout of the JWKS request. Default 10000; 0 disables. */
  timeout?: number | undefined;
  /** Largest JWKS body accepted, in bytes: a non-negative integer. Default 65536. */
  maxBodyBytes?: number | undefined;
  /** Storage that keeps the raw set across cold starts. */
  cache?: JwksCache | undefined;
}

/** Options of {@linkcode requestJwks}. */
export interface RequestJwksOptions {
  /** Timeout in milliseconds; 0 disables. Default 10000. */
  timeout?: number | undefined;
  /** Largest body accepted, in bytes. Default 65536. */
  maxBodyBytes?: number | undefined;
  /** Cancels the request. */
  signal?: AbortSignal | undefined;
}

/**
 * Fetches the raw JWKS: GET `/auth/v1/.well-known/jwks.json` with the API
 * key, no redirect followed, no retry, only a 200 accepted, the body capped
 * and the call timed out.
 *
 * @example Fetching the key set text
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { requestJwks } from "@fetchbase/fetchbase/auth";
 *
 * const client = createBaseClient("https://project.example", "anon-key");
 * const r = await requestJwks(client);
 * console.log(r.ok ? r.value : r.error.message);
 * ```
 *
 * @param client The base client.
 * @param options Timeout, body cap and signal.
 * @returns The body text, or a failure (a redirect, any status but 200, a
 * body over the cap, a timeout, a network error).
 */
export async function requestJwks(
  client: BaseClient,
  options?: RequestJwksOptions,
): Promise<ServiceResult<string>> {
  const r = await client.request({
    area: "auth",
    path: JWKS_PATH,
    credentials: "apikey",
    headers: API_VERSION,
    redirect: "manual",
    responseType: "text",
    retry: false,
    timeout: options?.timeout ?? JWKS_DEFAULTS.timeout,
    maxBodyBytes: options?.maxBodyBytes ?? JWKS_DEFAULTS.maxBodyBytes,
    signal: options?.signal,
  });
  if (!r.ok) return r;
  if (r.value.status !== 200) {
    return failure({
      message: `Cannot use the JWKS response as its status is ${r.value.status}, not 200`,
      category: "DECODE",
      status: r.value.status,
    });
  }
  return success(r.value.body);
}

/** One key of a parsed set. */
interface KeyEntry {
  jwk: Jwk;
  /** EC P-256 coordinates when the key may verify ES256, else null. */
  ec: { x: string; y: string } | null;
  key: VerificationKey | null;
  importing: Promise<VerificationKey | null> | null;
}

/** A parsed set in memory. */
interface KeySetState {
  set: JwkSet;
  byKid: Map<string, KeyEntry>;
  fetchedAt: number;
  /** When the first refresh of this set past its age started (callers are served it from then). */
  startedAt?: number | undefined;
}

interface Flight {
  startedAt: number;
  promise: Promise<ServiceResult<KeySetState>>;
}

/** A P-256 coordinate: 32 bytes as unpadded base64url (43 characters). */
function isCoordinate(v: unknown): v is string {
  return typeof v === "string" && /^[\w-]{42}[AEIMQUYcgkosw048]$/.test(v);
}

function isEs256Key(o: Record<string, unknown>): boolean {
  if (o.kty !== "EC" || o.crv !== "P-256") return false;
  if (!isCoordinate(o.x) || !isCoordinate(o.y)) return false;
  if (o.use !== undefined && o.use !== "sig") return false;
  if (o.alg !== undefined && o.alg !== "ES256") return false;
  if (o.key_ops !== undefined) {
    if (!Array.isArray(o.key_ops) || !o.key_ops.includes("verify")) return false;
  }
  return true;
}

/**
 * Parses JWKS text into the in-memory form, reusing imported keys of the
 * previous set when the key material is unchanged.
 */
function parseKeySet(
  text: string,
  fetchedAt: number,
  previous: KeySetState | null,
): ServiceResult<KeySetState> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return failure({
      message: "Cannot use the JWKS as its body is not JSON",
      category: "DECODE",
      cause: error,
    });
  }
  // Null, a scalar or an array (whose `keys` is a method) has no `keys` array.
  if (!Array.isArray((value as { keys?: unknown } | null)?.keys)) {
    return failure({
      message: "Cannot use the JWKS as it must be an object with a 'keys' array",
      category: "DECODE",
    });
  }
  const keys: Jwk[] = [];
  const byKid = new Map<string, KeyEntry>();
  for (const raw of (value as { keys: unknown[] }).keys) {
    const o = raw as Record<string, unknown>;
    // Null, a scalar or an array has no `kty` string: not a key.
    if (typeof o?.kty !== "string") continue;
    if (PRIVATE_MEMBERS.some((m) => o[m] !== undefined)) continue;
    const jwk = decodeJwk(o);
    keys.push(jwk);
    if (typeof o.kid !== "string" || o.kid === "") continue;
    const ec = isEs256Key(o) ? { x: o.x as string, y: o.y as string } : null;
    const existing = byKid.get(o.kid);
    if (existing && (existing.ec !== null || ec === null)) continue;
    const old = previous?.byKid.get(o.kid);
    // Only a key already imported is carried over: a copy of an import still running would
    // never get its key (the import sets the entry it was started for).
    const reuse = old?.key && old.ec && ec && old.ec.x === ec.x && old.ec.y === ec.y;
    byKid.set(o.kid, {
      jwk,
      ec,
      key: reuse ? old.key : null,
      importing: reuse ? old.importing : null,
    });
  }
  return success({ set: { keys }, byKid, fetchedAt });
}

function checkDuration(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  // NaN is not >= 0. A byte cap is a whole number, as the transport requires: a fraction or
  // Infinity passed here would fail every fetch later.
  checkNonNegative("create the JWKS resolver", name, v, name === "maxBodyBytes");
  return v;
}

/** A Failure for a `kid` that is not a non-blank string (a malformed request is never thrown). */
function badKid(kid: unknown): Promise<Failure> | null {
  return typeof kid !== "string" || kid.trim() === ""
    ? Promise.resolve(failure({
      message: "Cannot resolve the signing key as 'kid' must be a non-blank string",
      category: "INVALID_ARGUMENT",
    }))
    : null;
}

/** Options of the resolver's look-ups. */
export interface ResolveKeyOptions {
  /** Stops waiting (a shared fetch goes on for the other callers). */
  signal?: AbortSignal | undefined;
}

/**
 * Resolves signing keys of one auth server (one issuer) by `kid`. Build it
 * with {@linkcode createJwksResolver}; every auth client owns one.
 *
 * @example Resolving a key
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createJwksResolver } from "@fetchbase/fetchbase/auth";
 *
 * const jwks = createJwksResolver(createBaseClient("https://project.example", "anon-key"));
 * const key = await jwks.resolveSigningKey("key-id");
 * if (key.ok) console.log(key.value?.curve ?? "no such key");
 * ```
 */
export class JwksResolver {
  readonly #client: BaseClient;
  /** The checked durations and limits: the options over {@linkcode JWKS_DEFAULTS}. */
  readonly #o: { [K in Exclude<keyof JwksOptions, "cache">]-?: Exclude<JwksOptions[K], undefined> };
  readonly #cache: JwksCache | undefined;
  #state: KeySetState | null = null;
  #inflight: Flight | null = null;
  #external: { startedAt: number; promise: Promise<void> } | null = null;
  /** The last failed fetch: for `cooldownMs` after it, lookups answer it without refetching. */
  #failed: { at: number; result: Failure } | null = null;
  readonly #negative = new Map<string, number>();
  /** When a fetch last came back without the kid asked for: the cooldown runs from there. */
  #missAt = -Infinity;

  /**
   * Builds a resolver; prefer {@linkcode createJwksResolver}.
   *
   * @param client The base client whose project serves the JWKS.
   * @param options Cache and fetch settings.
   */
  constructor(client: BaseClient, options?: JwksOptions) {
    this.#client = client;
    const o = { ...JWKS_DEFAULTS };
    for (const k in o) {
      const name = k as keyof typeof o;
      o[name] = checkDuration(name, options?.[name], o[name]);
    }
    this.#o = o;
    this.#cache = options?.cache;
  }

  /** The JWKS URL; also the key under which a {@linkcode JwksCache} stores the set. */
  get url(): string {
    return this.#client.url + "/auth/v1" + JWKS_PATH;
  }

  /**
   * Finds the key with id `kid`: from the cache when it is there and fresh,
   * else after a refetch (subject to the cooldown and the negative cache).
   *
   * @param kid The key id from a token header; a non-string or blank value
   * is a `Failure(INVALID_ARGUMENT)`.
   * @param options A signal that stops waiting.
   * @returns The key, null if the set does not hold it, or a failure only
   * when fetching the set failed.
   */
  resolveSigningKey(
    kid: string,
    options?: ResolveKeyOptions,
  ): Promise<ServiceResult<Jwk | null>> {
    const bad = badKid(kid);
    if (bad) return bad;
    return this.#lookup(kid, options?.signal).then((r) => r.ok ? success(r.value?.jwk ?? null) : r);
  }

  /**
   * The imported WebCrypto key (ECDSA P-256, `verify` only) for `kid`, or
   * null when the set has no usable ES256 key with that id. Imported keys are
   * cached with the set.
   *
   * @param kid The key id; a non-string or blank value is a `Failure(INVALID_ARGUMENT)`.
   * @param options A signal that stops waiting.
   * @returns The key, null, or a failure when fetching the set failed.
   */
  verificationKey(
    kid: string,
    options?: ResolveKeyOptions,
  ): Promise<ServiceResult<VerificationKey | null>> {
    const bad = badKid(kid);
    if (bad) return bad;
    const cached = this.cachedVerificationKey(kid);
    if (cached !== null) return Promise.resolve(success(cached));
    return this.#verificationKey(kid, options?.signal);
  }

  async #verificationKey(
    kid: string,
    signal: AbortSignal | undefined,
  ): Promise<ServiceResult<VerificationKey | null>> {
    const r = await this.#lookup(kid, signal);
    if (!r.ok) return r;
    const entry = r.value;
    // A key that is no P-256 one has no key to import (importEntry answers null for it).
    return success(entry && (entry.key ?? await importEntry(entry)));
  }

  /**
   * The already imported key for `kid` from a fresh set, without any I/O.
   *
   * @param kid The key id.
   * @returns The key, or null when it is not imported yet or the set is stale.
   */
  cachedVerificationKey(kid: string): VerificationKey | null {
    const state = this.#state;
    if (state === null || this.#since(state.fetchedAt) >= this.#o.maxAgeMs) return null;
    return state.byKid.get(kid)?.key ?? null;
  }

  /**
   * The current key set: the cached one while fresh, else a fetched one.
   *
   * @param options A signal that stops waiting.
   * @returns The set (private-member entries removed) or a failure.
   */
  async keySet(options?: ResolveKeyOptions): Promise<ServiceResult<JwkSet>> {
    const signal = options?.signal;
    await this.#loadExternalIfNeeded(signal);
    const state = this.#state;
    if (state !== null && this.#since(state.fetchedAt) < this.#o.maxAgeMs) {
      return success(state.set);
    }
    const r = await this.#refresh(signal);
    return r.ok ? success(r.value.set) : r;
  }

  /**
   * How long ago `at` was (a fetch, a miss, a failed fetch). A wall clock
   * stepped back counts as time passed (a negative age would keep a set, and
   * a revoked key, fresh until the clock caught up, and stretch a cooldown).
   */
  #since(at: number): number {
    return Math.abs(Date.now() - at);
  }

  #isNegative(kid: string): boolean {
    const until = this.#negative.get(kid);
    if (until === undefined) return false;
    if (Date.now() < until) return true;
    this.#negative.delete(kid);
    return false;
  }

  #rememberMissing(kid: string): void {
    if (!(this.#o.negativeCacheMs > 0)) return;
    if (this.#negative.size >= MAX_NEGATIVE_ENTRIES) this.#negative.clear();
    this.#negative.set(kid, Date.now() + this.#o.negativeCacheMs);
  }

  #flightAlive(flight: Flight | null): flight is Flight {
    if (flight === null) return false;
    if (this.#o.timeout === 0) return true;
    return Date.now() - flight.startedAt <= this.#o.timeout + this.#o.inflightWaitMs;
  }

  async #lookup(kid: string, signal?: AbortSignal): Promise<ServiceResult<KeyEntry | null>> {
    await this.#loadExternalIfNeeded(signal);
    const state = this.#state;
    if (state !== null) {
      const entry = state.byKid.get(kid);
      const age = this.#since(state.fetchedAt);
      if (age < this.#o.maxAgeMs) {
        if (entry) return success(entry);
        if (this.#isNegative(kid)) return success(null);
        // A miss forces one refetch; misses force at most one per cooldown (unknown kids
        // flooding in cost one fetch per cooldown, not one each).
        if (this.#since(this.#missAt) < this.#o.cooldownMs) return success(null);
      } else if (
        // (No refresh under way: the age of `undefined` is NaN, and nobody is served.)
        entry && !this.#failed &&
        this.#since((state.startedAt ??= this.#inflight?.startedAt)!) <= 12_000
      ) {
        // A set past its age serves callers while it is refreshed, for 12 s (the default fetch
        // timeout and the wait beyond it) at most from its first refresh (a later flight, started
        // by a caller that gave up on a stalled one, does not open the window again), and not
        // once a fetch has failed since the set came (a success clears `#failed`): a key removed
        // while the endpoint stalled or failed verified again with each new refresh, and with no
        // timeout, for ever.
        return success(entry);
      }
    }
    const r = await this.#refresh(signal);
    if (!r.ok) return r;
    const entry = r.value.byKid.get(kid) ?? null;
    if (entry === null) {
      this.#missAt = Date.now();
      this.#rememberMissing(kid);
    }
    return success(entry);
  }

  /** Adopts the external cache's set when memory has none or a stale one. */
  async #loadExternalIfNeeded(signal?: AbortSignal): Promise<void> {
    const cache = this.#cache;
    if (cache === undefined) return;
    const state = this.#state;
    if (state !== null && this.#since(state.fetchedAt) < this.#o.maxAgeMs) return;
    const now = Date.now();
    let load = this.#external;
    // A read still unanswered after the wait bound means a stuck store: skip it.
    if (load !== null && now - load.startedAt > this.#o.inflightWaitMs) return;
    if (load === null) {
      const started: { startedAt: number; promise: Promise<void> } = {
        startedAt: now,
        promise: this.#loadExternal(cache).finally(() => {
          if (this.#external === started) this.#external = null;
        }),
      };
      this.#external = load = started;
    }
    await bounded(load.promise, this.#o.inflightWaitMs, signal);
  }

  async #loadExternal(cache: JwksCache): Promise<void> {
    // A cache that fails, or an entry that throws when read (a getter, a proxy), is a miss.
    try {
      const entry: JwksCacheEntry | null | undefined = await cache.get(this.url);
      // Each read once (a getter may answer differently twice); no entry, no text or no finite
      // time (Number.isFinite is false for a non-number) is a miss.
      const jwks = entry?.jwks;
      const at = entry?.fetchedAt as number;
      if (typeof jwks !== "string" || !Number.isFinite(at)) return;
      // An entry from a clock ahead of ours counts as fetched now, but one further
      // ahead than the skew is ignored: re-read, it would seem fresh for ever.
      const now = Date.now();
      if (at > now + EXTERNAL_CLOCK_SKEW_MS) return;
      const fetchedAt = Math.min(at, now);
      if (this.#state !== null && this.#state.fetchedAt >= fetchedAt) return;
      const parsed = parseKeySet(jwks, fetchedAt, this.#state);
      if (parsed.ok) this.#state = parsed.value;
    } catch {
      // a miss: the set is fetched
    }
  }

  #fail(result: Failure): Failure {
    this.#failed = { at: Date.now(), result };
    return result;
  }

  /** Gets a new set: joins a live shared fetch (bounded) or starts one. */
  async #refresh(signal?: AbortSignal): Promise<ServiceResult<KeySetState>> {
    if (signal?.aborted) return cancelled();
    const before = this.#state;
    for (let joined = 0;; joined++) {
      // A fetch that finished while this caller waited is as good as its own, even if another
      // failed since.
      if (joined > 0 && this.#state !== null && this.#state !== before) {
        return success(this.#state);
      }
      // A failing endpoint is asked again only after the cooldown: otherwise every verification
      // would wait out its timeout before falling back. Checked again after each wait: a caller
      // whose wait for a stalled fetch ended started another one after that fetch had failed.
      const failed = this.#failed;
      if (failed !== null && this.#since(failed.at) < this.#o.cooldownMs) {
        return failed.result;
      }
      const current = this.#inflight;
      if (joined >= 2) {
        // Two shared fetches did not answer in time: the endpoint is stalled.
        // The caller falls back rather than adding one more fetch per caller.
        return failure({
          message: "The JWKS endpoint did not answer in time",
          category: "TIMEOUT",
        });
      }
      if (!this.#flightAlive(current)) {
        // A fetch of its own, shared with the callers that come while it runs.
        const own: Flight = { startedAt: Date.now(), promise: null as never };
        own.promise = this.#fetchAndStore().finally(() => {
          if (this.#inflight === own) this.#inflight = null;
        });
        this.#inflight = own;
        const r = await bounded(own.promise, Infinity, signal);
        return r.kind === "done" ? r.value : cancelled();
      }
      const r = await bounded(current.promise, this.#o.inflightWaitMs, signal);
      if (r.kind === "done") return r.value;
      if (r.kind === "aborted") return cancelled();
      if (this.#inflight === current) this.#inflight = null;
    }
  }

  async #fetchAndStore(): Promise<ServiceResult<KeySetState>> {
    // The checked options carry the fetch's timeout and maxBodyBytes (and no signal: a shared
    // fetch goes on for every caller).
    const r = await requestJwks(this.#client, this.#o);
    if (!r.ok) return this.#fail(r);
    const fetchedAt = Date.now();
    const parsed = parseKeySet(r.value, fetchedAt, this.#state);
    if (!parsed.ok) return this.#fail(parsed);
    this.#failed = null;
    if (this.#state === null || this.#state.fetchedAt <= fetchedAt) this.#state = parsed.value;
    const cache = this.#cache;
    if (cache !== undefined) {
      const stored = (async () => {
        try {
          await cache.set(this.url, { jwks: r.value, fetchedAt });
        } catch {
          // A failing external cache only costs a refetch later.
        }
      })();
      await bounded(stored, this.#o.inflightWaitMs);
    }
    return parsed;
  }
}

function importEntry(entry: KeyEntry): Promise<VerificationKey | null> {
  const ec = entry.ec;
  if (ec === null) return Promise.resolve(null);
  entry.importing ??= (async () => {
    try {
      const key = await crypto.subtle.importKey(
        "jwk",
        { kty: "EC", crv: "P-256", x: ec.x, y: ec.y, ext: true },
        { name: "ECDSA", namedCurve: "P-256" },
        false,
        ["verify"],
      );
      entry.key = key;
      return key;
    } catch {
      return null;
    }
  })();
  return entry.importing;
}

/**
 * Creates a {@linkcode JwksResolver} for the project of `client`. An auth
 * client builds one for itself; the cache is never shared across base URLs.
 *
 * @example A resolver with a Workers-style external cache
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createJwksResolver, type JwksCacheEntry } from "@fetchbase/fetchbase/auth";
 *
 * const store = new Map<string, JwksCacheEntry>();
 * const jwks = createJwksResolver(createBaseClient("https://project.example", "anon-key"), {
 *   cooldownMs: 10_000,
 *   cache: { get: (k) => store.get(k), set: (k, e) => void store.set(k, e) },
 * });
 * console.log(jwks.url); // https://project.example/auth/v1/.well-known/jwks.json
 * ```
 *
 * @param client The base client.
 * @param options Cache and fetch settings; negative durations throw `RangeError`.
 * @returns The resolver.
 */
export function createJwksResolver(client: BaseClient, options?: JwksOptions): JwksResolver {
  return new JwksResolver(client, options);
}
