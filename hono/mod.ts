/**
 * Hono middleware for edge functions: verifies the caller's bearer token
 * with `getClaims` (local ES256 against a cached JWKS, server fallback for
 * other tokens), then puts the claims and a per-request client carrying the
 * caller's token on the context, so row-level security applies to every
 * database and storage call made with it. Hono stays out of every other
 * subpath. A token verified here stays accepted until its `exp`, sign-out
 * included (the auth server is not asked): keep access tokens short-lived, or
 * check the session with the server on the routes that must see a sign-out at
 * once (`getUser`). `localOnly` refuses what cannot be verified here instead
 * of asking the auth server.
 *
 * @example Protecting routes
 * ```ts
 * import { Hono } from "hono";
 * import { fetchbaseAuth, type FetchbaseVariables } from "@fetchbase/fetchbase/hono";
 *
 * const app = new Hono<{ Variables: FetchbaseVariables }>();
 * app.use("/api/*", fetchbaseAuth({ url: "https://p.example", apiKey: "anon-key" }));
 * app.get("/api/me", (c) => c.json({ user: c.get("claims").claims.subject }));
 * ```
 *
 * @module
 */

export * from "../mod.ts";
import { type AuthClient, createAuthClient } from "../auth/client.ts";
import { type ClaimsSource, getClaims } from "../auth/get_claims.ts";
import type { JwksResolver, ResolveKeyOptions } from "../auth/jwks.ts";
import type { JwtClaimsResult } from "../auth/jwt.ts";
import { type Client, createClient } from "../client.ts";
import type { ClientOptions } from "../core/client.ts";
import { showValue } from "../core/_show.ts";
import { failure } from "../core/result.ts";

/**
 * The part of a Hono context the middleware uses (Hono's `Context` satisfies
 * it). `Bindings` is the type of `c.env`, the platform's per-request bindings
 * (a Worker's variables and secrets); `any` unless given, as in Hono.
 */
// deno-lint-ignore no-explicit-any
export interface MiddlewareContext<Bindings = any> {
  /** The request. */
  req: {
    /** A request header. */
    header(name: string): string | undefined;
    /** The raw request. */
    raw: Request;
  };
  /** Sets a context variable. */
  set(key: string, value: unknown): void;
  /** The platform's bindings (`c.env`): a Worker's variables and secrets. */
  env: Bindings;
  /**
   * The platform's execution context (a Worker's `ctx`): its `waitUntil` keeps a verification's
   * key-set fetch alive when the request ends first. Hono's getter throws where there is none.
   */
  readonly executionCtx?: { waitUntil(promise: Promise<unknown>): void } | undefined;
}

/** A Hono middleware: `app.use(path, fetchbaseAuth(options))`. */
// deno-lint-ignore no-explicit-any
export type FetchbaseMiddleware<Bindings = any> = (
  c: MiddlewareContext<Bindings>,
  next: () => Promise<void>,
) => Promise<Response | void>;

/**
 * Options of {@linkcode fetchbaseAuth} read from each request's context, for
 * a platform whose configuration comes with the request (a Cloudflare
 * Worker's `c.env`). Called for every request, it returns the options or a
 * promise of them (a key read from a secrets store); see
 * {@linkcode fetchbaseAuth} for how its results are cached and checked.
 */
// deno-lint-ignore no-explicit-any
export type FetchbaseAuthOptionsFunction<Bindings = any> = (
  c: MiddlewareContext<Bindings>,
) => FetchbaseAuthOptions | PromiseLike<FetchbaseAuthOptions>;

/**
 * Context variables the middleware sets. Declare them on the app
 * (`new Hono<{ Variables: FetchbaseVariables & MyVariables }>()`) for a typed
 * `c.get("claims")`: the middleware types its context structurally (it
 * imports nothing from `hono`, so npm's `hono` and JSR's `@hono/hono` both
 * take it), so `app.use` cannot add them to the app's type itself.
 */
export interface FetchbaseVariables {
  /**
   * The verified claims of the caller's token. Its `signature` is not
   * enumerable, so logging the value (JSON, inspection) writes no token.
   */
  claims: JwtClaimsResult;
  /** A client carrying the caller's token (row-level security applies). */
  fetchbase: Client;
}

/** Options of {@linkcode fetchbaseAuth}. */
export interface FetchbaseAuthOptions {
  /** The project URL. */
  url: string;
  /**
   * The project API key (the anon key). One that cannot go in a header (a control character,
   * typographic quotes pasted with it) is a `TypeError` at creation.
   */
  apiKey: string;
  /** When given, the token's `iss` must equal it. */
  issuer?: string | null | undefined;
  /**
   * When given, the token's `aud` must be or contain it. Default `authenticated`: GoTrue's user
   * tokens (anonymous users' too) carry it and a `sub`, so `claims.subject` is the user's id. With
   * `null`, any audience passes, the API keys' own JWTs (`anon`, `service_role`) included, and their
   * `claims.subject` is null.
   */
  audience?: string | null | undefined;
  /** Require MFA (`aal2`); a lower level is answered 403. Default false. */
  requireAal2?: boolean | undefined;
  /**
   * Verify tokens only here: an ES256 token whose key the project's JWKS holds is checked
   * locally; any other (HS256, no `kid`, a key the JWKS does not name) is refused 401 without
   * asking the auth server. For projects on ES256 signing keys (not RS256 ones, whose every
   * token it would refuse: only ES256 is checked locally): by default such a token
   * costs a `GET /user`, which any caller can make this server send at will (and the auth
   * server's rate limit counts this server). A token with a `kid` the set does not hold keeps the
   * next fetch of the set back for the resolver's cooldown (30 s by default): tokens of a new key
   * the cached set lacks are refused until then, so publish keys before signing with them (as
   * GoTrue's standby keys are). Default false.
   */
  localOnly?: boolean | undefined;
  /**
   * The `realm` of the `WWW-Authenticate` challenges (RFC 6750 §3), printable
   * ASCII (`TypeError` at creation otherwise). Given, every challenge carries
   * it; by default only the one for a request without Bearer credentials
   * does, as `realm=""` (that challenge must carry a parameter and may carry
   * no error code).
   */
  realm?: string | undefined;
  /**
   * Options of both clients: the one that verifies tokens and the per-request
   * `fetchbase` client handlers use (e.g. an injected `fetch`). The verifying
   * one fails fast by default, so that an auth server in trouble gets a 503
   * back to the caller promptly instead of holding each request: one attempt
   * (no retry, no waiting out a `Retry-After`) and a 5 s timeout per call, the
   * JWKS fetch's included (a token whose key must be fetched waits at most for
   * the JWKS and then the `GET /user` fallback). A `retry` or `timeout` given
   * here applies to both clients (given as `undefined`, it is left out); the
   * per-request client otherwise keeps the usual defaults. Its `headers` must not hold `Authorization`: the
   * per-request client carries the caller's token (`TypeError` at creation).
   */
  clientOptions?: ClientOptions | undefined;
  /** An auth client to share (its JWKS cache lives across requests). */
  auth?: AuthClient | undefined;
}

/** The verification client's defaults: fail fast (one attempt, 5 s). */
const VERIFY_RETRY = { maxAttempts: 1 } as const;
const VERIFY_TIMEOUT_MS = 5_000;

/** The middleware's own auth client: fails fast (see `clientOptions`). */
function verifyingAuth(options: FetchbaseAuthOptions): AuthClient {
  const given = options.clientOptions;
  // A `retry` or `timeout` given as undefined is one left out (as everywhere in the library): it
  // keeps the fail-fast default instead of the usual three attempts and 30 s.
  const client = createClient(options.url, options.apiKey, {
    ...given,
    retry: given?.retry ?? VERIFY_RETRY,
    timeout: given?.timeout ?? VERIFY_TIMEOUT_MS,
  });
  // The JWKS fetch has a timeout of its own (10 s by default): it gets the client's, so that a
  // JWKS that never answers holds a request no longer than the `/user` fallback does.
  return createAuthClient(client, { jwks: { timeout: client.timeout } });
}

/** The request's `executionCtx.waitUntil` (Cloudflare Workers), or null where there is none. */
function waitUntilOf(c: MiddlewareContext): ((promise: Promise<unknown>) => void) | null {
  try {
    // Hono's getter throws where the runtime gave no execution context (Deno, Node, Bun).
    const ctx = c.executionCtx as { waitUntil?: unknown } | undefined;
    const waitUntil = ctx?.waitUntil;
    return typeof waitUntil === "function"
      ? (p) => {
        try {
          waitUntil.call(ctx, p);
        } catch {
          // A context that takes no more work (its request over, a test double): the
          // verification is only not kept alive past its request.
        }
      }
      : null;
  } catch {
    return null;
  }
}

/**
 * An answer with a JSON body `{ error, message }` and the RFC 6750 challenge:
 * `Bearer realm="..."` when no Bearer credentials came (§3: at least one
 * parameter, no error code), else `Bearer error="..."` (after the realm when
 * one is set) with the RFC's code for the status: 400 `invalid_request`, 401
 * `invalid_token`, 403 `insufficient_scope`; a 503 carries `Retry-After`
 * instead. The body's `error` is the precise code. `realm` is the
 * quoted `realm="..."` parameter, or null when the options set none.
 */
function deny(
  realm: string | null,
  status: 400 | 401 | 403 | 503,
  error: string,
  message: string,
  retryAfter?: number | null,
): Response {
  const headers = new Headers({ "content-type": "application/json" });
  if (status === 503) headers.set("retry-after", String(retryAfter ?? 5));
  else {
    const code = status === 400
      ? "invalid_request"
      : status === 403
      ? "insufficient_scope"
      : error === "missing_token"
      ? null
      : "invalid_token";
    headers.set(
      "www-authenticate",
      code ? `Bearer ${realm ? `${realm}, ` : ""}error="${code}"` : `Bearer ${realm ?? 'realm=""'}`,
    );
  }
  return new Response(JSON.stringify({ error, message }), { status, headers });
}

/**
 * GoTrue error codes that are about the token itself (the auth server read
 * it and refused it), whatever status they come with.
 */
const TOKEN_CODES: ReadonlySet<string> = new Set([
  "bad_jwt",
  "no_authorization",
  "session_not_found",
  "session_expired",
  "user_not_found",
  "user_banned",
  "token_expired",
]);

/** What a configuration verifies with: made once per configuration, its JWKS cache shared. */
interface Verifier {
  /** The auth client that checks tokens (the middleware's own, or the shared `auth`). */
  auth: AuthClient;
  /** The options each request's `fetchbase` client is made from. */
  options: FetchbaseAuthOptions;
}

/** The checks of a configuration's tokens, and the realm of its challenges. */
interface Checks {
  issuer: string | null;
  audience: string | null;
  requireAal2: boolean;
  localOnly: boolean;
  /** The quoted `realm="..."` parameter, or null when the options set none. */
  realm: string | null;
}

/**
 * The verifier of `options`, which must be an object: throws as the object
 * form of {@linkcode fetchbaseAuth} documents.
 */
function makeVerifier(options: FetchbaseAuthOptions): Verifier {
  // Checked once, here: a bad url, key or client option would otherwise fail every verified
  // request as a 500. The verifying client checks them when it is made; with a shared `auth`,
  // nothing else does, so a per-request client is made once now.
  if (options.auth) createClient(options.url, options.apiKey, options.clientOptions);
  const auth = options.auth ?? verifyingAuth(options);
  // A key the runtime cannot put in a header (typographic quotes pasted with it, a control
  // character) would fail every verification before it is sent, which must not read as the
  // caller's token refused. The value is not echoed: it is a credential.
  try {
    new Headers({ apikey: String(options.apiKey).trim() });
  } catch {
    throw new TypeError("Cannot create the middleware as 'apiKey' cannot be sent in a header");
  }
  // Each request's client acts for its caller: a client-wide Authorization would replace the
  // caller's token on every database and storage call (row-level security would see it instead).
  if (new Headers(options.clientOptions?.headers).has("authorization")) {
    throw new TypeError(
      "Cannot create the middleware as 'clientOptions.headers' must not hold Authorization: each request's client acts for its caller",
    );
  }
  return { auth, options };
}

/** The checks `options` ask for: throws `TypeError` for a realm that cannot go in a header. */
function makeChecks(options: FetchbaseAuthOptions): Checks {
  // RFC 9110 §11.2 quoted-string: `"` and `\` escaped; a control character or one beyond ASCII
  // cannot go in a header (it would fail every refusal as a 500).
  const given = options.realm;
  if (given !== undefined && (typeof given !== "string" || !/^[\x20-\x7e]*$/.test(given))) {
    throw new TypeError(
      `Cannot create the middleware as 'realm' must be a string of printable ASCII characters: current value is ${
        showValue(given)
      }`,
    );
  }
  return {
    issuer: options.issuer ?? null,
    audience: options.audience === undefined ? "authenticated" : options.audience,
    requireAal2: Boolean(options.requireAal2),
    localOnly: Boolean(options.localOnly),
    realm: given === undefined ? null : `realm="${given.replace(/["\\]/g, "\\$&")}"`,
  };
}

/** The most configurations an options function's middleware keeps a verifier for. */
const MAX_CONFIGURATIONS = 8;

/** Whether `value` is an object literal (or has no prototype): copied and keyed by value. */
function isPlain(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A copy of what an options function returned, read once (a getter is not
 * read again between keying and making the verifier): `clientOptions` and
 * its object-literal values copied, its `headers` as a record. Throws
 * `TypeError`, without the value, when the result is not an object.
 */
function snapshot(value: unknown): FetchbaseAuthOptions {
  if (typeof value !== "object" || value === null) {
    throw new TypeError(
      `Cannot verify the request as the result of 'options' must be an object with 'url' and 'apiKey': current value is ${
        // A string may be the key itself: it is not echoed.
        typeof value === "string" ? "a string" : showValue(value)}`,
    );
  }
  const o = value as FetchbaseAuthOptions;
  let clientOptions: unknown = o.clientOptions;
  if (isPlain(clientOptions)) {
    const copy: Record<string, unknown> = { ...clientOptions };
    for (const [name, v] of Object.entries(copy)) {
      if (isPlain(v)) copy[name] = { ...v };
    }
    if (copy.headers !== undefined) {
      try {
        copy.headers = Object.fromEntries(new Headers(copy.headers as HeadersInit));
      } catch {
        // Left as given: the client refuses it without quoting it.
      }
    }
    clientOptions = copy;
  }
  return {
    url: o.url,
    apiKey: o.apiKey,
    issuer: o.issuer,
    audience: o.audience,
    requireAal2: o.requireAal2,
    localOnly: o.localOnly,
    realm: o.realm,
    clientOptions: clientOptions as ClientOptions | undefined,
    auth: o.auth,
  };
}

/**
 * The cache key of the verifier `options` make: `url`, `apiKey`, `auth` and
 * every `clientOptions` entry. Strings, numbers, booleans, null and undefined
 * count by value, and so do object literals (`retry`, `headers` as a record)
 * one level down; anything else (a `fetch` function, an `auth` client, a
 * class instance) counts by identity, through `id`. Null when a value cannot
 * be keyed safely (a symbol): such options are not cached.
 */
function cacheKey(options: FetchbaseAuthOptions, id: (value: object) => number): string | null {
  let safe = true;
  const part = (value: unknown, depth: number): unknown => {
    if (typeof value === "symbol") safe = false;
    if (typeof value === "function" || (typeof value === "object" && value !== null)) {
      if (!isPlain(value) || depth > 1) return { id: id(value) };
      return Object.keys(value).sort().map((name) => [name, part(value[name], depth + 1)]);
    }
    return [typeof value, String(value)];
  };
  const key = JSON.stringify([
    part(options.url, 2),
    part(options.apiKey, 2),
    part(options.auth, 2),
    part(options.clientOptions, 0),
  ]);
  return safe ? key : null;
}

/**
 * Creates the middleware. The JWKS is cached by the middleware's auth client (refetched every 10
 * minutes by default, and shared when `auth` is given; one per configuration in the function form
 * below), so a valid ES256 token with a cached key costs no network call. Make it once (at module
 * scope, or once per Worker isolate; with the function form where options come from `c.env`), not
 * inside a handler per request: each call makes a new auth client, so its JWKS would be fetched
 * again for every request.
 *
 * Where the project's URL and key come with each request (a Cloudflare
 * Worker's `c.env`, the case Hono's docs answer by making a middleware per
 * request), pass a function of the context instead of the options: it is
 * called for every request (it may return a promise, which is awaited: a key
 * read from a secrets store), and the middleware keeps one verifying client,
 * with its JWKS cache, per distinct configuration. A configuration is its
 * `url`, `apiKey`, `auth` and `clientOptions`: strings, numbers, booleans and
 * object literals (`retry`, `headers`) compare by value, functions and other
 * objects (a `fetch`, an `auth` client) by identity, so make those once
 * (module scope), not inside the function, or each request gets a client of
 * its own. `issuer`, `audience`, `requireAal2`, `localOnly` and `realm` are read from each
 * result and need no client of their own. At most 8 configurations are kept,
 * the least recently used dropped first, so a function that returns a new
 * configuration per request costs at most 8 clients (and a JWKS fetch per
 * request) instead of growing memory. Each result is checked as the object
 * form's options are, and a bad one (not an object, or a url, key, client
 * option or realm the object form refuses) makes the middleware throw the same
 * `TypeError` (or `RangeError`) for that request, without the url or key in its
 * message, so the app's `onError` answers it (Hono's default: a 500 with no
 * details); a throw from the function itself, or its promise's rejection,
 * propagates as it is. Such a result is not cached.
 *
 * Answers follow RFC 6750: the `WWW-Authenticate` challenge carries the RFC's
 * error, and a JSON body `{ error, message }` a more precise code. No Bearer
 * credentials (none, or another scheme) get 401 `missing_token` with the
 * challenge `Bearer realm=""` (or the `realm` option's); a Bearer header
 * without exactly one token gets 400 `invalid_request`
 * (`error="invalid_request"`); an expired, forged or refused token gets 401
 * with `error="invalid_token"` and the check's own code in the body (such as
 * `token_expired`, `invalid_signature`, `bad_jwt`, or the auth server's
 * `session_not_found`; `invalid_token` when there is none); an insufficient
 * assurance level gets 403 `insufficient_aal` (`error="insufficient_scope"`).
 * When the token cannot be checked for any other reason (JWKS or auth server
 * unreachable, failing or misconfigured) the answer is 503 `auth_unavailable`,
 * with the auth server's `Retry-After` (else 5 s) and without internals.
 *
 * Every method is checked, `OPTIONS` included: a browser's CORS preflight
 * carries no token, so register Hono's `cors()` before this middleware; it
 * answers the preflight itself.
 *
 * @example Browser callers (CORS)
 * ```ts
 * import { Hono } from "hono";
 * import { cors } from "hono/cors";
 * import { fetchbaseAuth, type FetchbaseVariables } from "@fetchbase/fetchbase/hono";
 *
 * const app = new Hono<{ Variables: FetchbaseVariables }>();
 * app.use("/api/*", cors({ origin: "https://app.example" }));
 * app.use("/api/*", fetchbaseAuth({ url: "https://p.example", apiKey: "anon-key" }));
 * ```
 *
 * @example Requiring MFA
 * ```ts
 * import { Hono } from "hono";
 * import { fetchbaseAuth, type FetchbaseVariables } from "@fetchbase/fetchbase/hono";
 *
 * const app = new Hono<{ Variables: FetchbaseVariables }>();
 * app.use("/admin/*", fetchbaseAuth({ url: "https://p.example", apiKey: "anon-key", requireAal2: true }));
 * ```
 *
 * @example Options from a Cloudflare Worker's bindings (`c.env`)
 * ```ts
 * import { Hono } from "hono";
 * import { fetchbaseAuth, type FetchbaseVariables } from "@fetchbase/fetchbase/hono";
 *
 * interface Env {
 *   SUPABASE_URL: string;
 *   SUPABASE_ANON_KEY: string;
 * }
 *
 * const app = new Hono<{ Bindings: Env; Variables: FetchbaseVariables }>();
 * // Made once; the bindings are read per request, one JWKS cache kept for them.
 * app.use(
 *   "/api/*",
 *   fetchbaseAuth<Env>((c) => ({ url: c.env.SUPABASE_URL, apiKey: c.env.SUPABASE_ANON_KEY })),
 * );
 * app.get("/api/me", (c) => c.json({ user: c.get("claims").claims.subject }));
 * // The Worker's entry: `export default app`.
 * ```
 *
 * @typeParam Bindings The type of `c.env` the options function reads (`any` unless given).
 * @param options Project, expected issuer and audience, AAL2 requirement, realm; or a function of
 * the request's context that returns them.
 * @returns The middleware.
 * @throws {TypeError} When `options` is neither an object nor a function, or its `url`, `apiKey`
 * or `clientOptions` are refused as {@linkcode createClient} refuses them, or
 * `clientOptions.headers` holds `Authorization` (each request's client acts for its caller), or
 * `realm` is not a string of printable ASCII. With a function, the middleware throws these for
 * the request whose result they concern.
 */
// deno-lint-ignore no-explicit-any
export function fetchbaseAuth<Bindings = any>(
  options: FetchbaseAuthOptions | FetchbaseAuthOptionsFunction<Bindings>,
): FetchbaseMiddleware<Bindings> {
  if (typeof options === "function") {
    const read = options;
    // Verifiers by configuration, least recently used first.
    const verifiers = new Map<string, Verifier>();
    // Identities of the functions and objects in configurations, held weakly.
    const ids = new WeakMap<object, number>();
    let lastId = 0;
    const id = (value: object): number => {
      let n = ids.get(value);
      if (n === undefined) ids.set(value, n = ++lastId);
      return n;
    };
    // Async: a refused result rejects the returned promise, as the rest of a request's failures.
    return async (c, next) => {
      // A promise (options read from a secrets store) is awaited; its rejection propagates.
      const given = snapshot(await read(c));
      const checks = makeChecks(given);
      const key = cacheKey(given, id);
      let verifier = key === null ? undefined : verifiers.get(key);
      if (verifier === undefined) verifier = makeVerifier(given);
      if (key !== null) {
        // Set again, so that the map's order stays the order of last use.
        verifiers.delete(key);
        verifiers.set(key, verifier);
        if (verifiers.size > MAX_CONFIGURATIONS) verifiers.delete(verifiers.keys().next().value!);
      }
      return await verify(c, next, verifier, checks);
    };
  }
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      "Cannot create the middleware as 'options' must be an object with 'url' and 'apiKey'",
    );
  }
  const verifier = makeVerifier(options);
  const checks = makeChecks(options);
  return (c, next) => verify(c, next, verifier, checks);
}

/**
 * For `localOnly`: the auth client as getClaims sees it, with a server check that refuses.
 * getClaims asks the server only about a token it cannot verify here (not ES256, no usable `kid`,
 * a key the JWKS does not hold or could not give), after every check that needs no key (time,
 * issuer, audience). A token whose key could not be read gets the key set's failure instead of a
 * refusal: the auth server's trouble (503), not the token's.
 */
function localOnlySource(auth: AuthClient): ClaimsSource {
  const real = auth.jwks;
  // The key lookup getClaims made for this token, kept: asked again after a lookup that timed out,
  // the resolver made the caller wait through its shared fetches a second time (8 to 11 s for a
  // 503 from a hanging JWKS, and fetches started after one had failed). getClaims calls these
  // two methods only; they are the resolver's own, bound to it.
  let looked: Awaited<ReturnType<JwksResolver["verificationKey"]>> | undefined;
  const jwks: JwksResolver = Object.create(real, {
    cachedVerificationKey: { value: (kid: string) => real.cachedVerificationKey(kid) },
    verificationKey: {
      value: async (kid: string, o?: ResolveKeyOptions) =>
        looked = await real.verificationKey(kid, o),
    },
  });
  return {
    jwks,
    getUser() {
      if (looked && !looked.ok) return Promise.resolve(looked);
      return Promise.resolve(failure({
        message:
          "The token cannot be verified here: only ES256 tokens whose key the project's key set holds are accepted",
        category: "UNAUTHORIZED",
        code: "invalid_token",
      }));
    },
  };
}

/** Verifies one request's bearer with `verifier` and `checks`, and answers or calls `next`. */
async function verify(
  c: MiddlewareContext,
  next: () => Promise<void>,
  verifier: Verifier,
  checks: Checks,
): Promise<Response | void> {
  const { auth, options } = verifier;
  const { realm } = checks;
  const header = (c.req.header("authorization") ?? "").trim();
  // No Bearer credentials at all (none, or another scheme such as Basic): RFC 6750 §3.
  // Spaces and tabs only between scheme and token (RFC 6750: `1*SP`): `\s` also took a
  // no-break space, which workerd's header parsing does not, so the runtimes answered apart.
  if (!/^Bearer(?:[ \t]|$)/i.test(header)) {
    return deny(
      realm,
      401,
      "missing_token",
      "An Authorization: Bearer <token> header is required",
    );
  }
  // A Bearer header without exactly one token (none, extra words, two joined by a comma)
  // is a malformed request: RFC 6750 §3.1.
  const match = /^Bearer[ \t]+([^\s,]+)$/i.exec(header);
  if (!match) {
    return deny(
      realm,
      400,
      "invalid_request",
      "The Authorization header must hold exactly one Bearer <token>",
    );
  }
  const token = match[1];
  // In Workers the key-set fetch a verification starts belongs to its request, and the verifying
  // client is shared by the requests of a configuration: a request that ended first (its client
  // gone, its signal aborted) took the fetch with it, and the requests that had joined it waited
  // 2 s for nothing. There the verification runs to its end, kept alive by `waitUntil`, whatever
  // the request's signal; elsewhere the signal ends it.
  const keep = waitUntilOf(c);
  const pending = getClaims(checks.localOnly ? localOnlySource(auth) : auth, token, {
    expectedIssuer: checks.issuer,
    expectedAudience: checks.audience,
    signal: keep ? undefined : c.req.raw.signal,
  });
  keep?.(pending);
  const result = await pending;
  if (!result.ok) {
    const e = result.error;
    // Refused by the local check (no status) or by the auth server as a token it read.
    // A local refusal of the token is UNAUTHORIZED, or INVALID_ARGUMENT with `bad_jwt` (a token
    // that does not decode); any other local failure (a request that could not be sent) is this
    // server's trouble, answered 503.
    const refused = e.status === null
      ? e.category === "UNAUTHORIZED" || e.category === "INVALID_ARGUMENT" && e.code === "bad_jwt"
      // A gateway's "Invalid API key" is this server's misconfiguration, not the token.
      // getClaims reports the server's 400, 401 and 403 as UNAUTHORIZED; a 400 counts here only
      // with a token code (GoTrue's `bad_jwt`): a wrong URL's 400 must not sign clients out.
      : (e.category === "UNAUTHORIZED" && e.status !== 400 || TOKEN_CODES.has(e.code ?? "")) &&
        !/api ?key/i.test(e.message);
    if (refused) {
      // The server's own words (and whatever a gateway put there) stay inside.
      return deny(
        realm,
        401,
        e.code ?? "invalid_token",
        e.status === null ? e.message : "The auth server refused the token",
      );
    }
    // Anything else (an outage, a misconfigured URL or key) is not the caller's fault.
    return deny(
      realm,
      503,
      "auth_unavailable",
      "The token cannot be verified right now",
      e.retryAfter,
    );
  }
  if (checks.requireAal2 && result.value.claims.authenticatorAssuranceLevel !== "aal2") {
    return deny(
      realm,
      403,
      "insufficient_aal",
      "This route requires multi-factor authentication (aal2)",
    );
  }
  // The signature, with the header and claims beside it, is the token again: kept off what a
  // logger writes (JSON, inspection, Object.keys), still readable as `.signature`.
  c.set(
    "claims",
    Object.defineProperty({ ...result.value }, "signature", {
      value: result.value.signature,
      enumerable: false,
    }),
  );
  c.set(
    "fetchbase",
    createClient(options.url, options.apiKey, { ...options.clientOptions, accessToken: token }),
  );
  return next();
}
