/**
 * Hono middleware for edge functions: verifies the caller's bearer token
 * with `getClaims` (local ES256 against a cached JWKS, server fallback for
 * other tokens), then puts the claims and a per-request client carrying the
 * caller's token on the context, so row-level security applies to every
 * database and storage call made with it. Hono stays out of every other
 * subpath.
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
import { getClaims } from "../auth/get_claims.ts";
import type { JwtClaimsResult } from "../auth/jwt.ts";
import { type Client, createClient } from "../client.ts";
import type { ClientOptions } from "../core/client.ts";
import { showValue } from "../core/_show.ts";

/** The part of a Hono context the middleware uses (Hono's `Context` satisfies it). */
export interface MiddlewareContext {
  /** The request. */
  req: {
    /** A request header. */
    header(name: string): string | undefined;
    /** The raw request. */
    raw: Request;
  };
  /** Sets a context variable. */
  set(key: string, value: unknown): void;
}

/** A Hono middleware: `app.use(path, fetchbaseAuth(options))`. */
export type FetchbaseMiddleware = (
  c: MiddlewareContext,
  next: () => Promise<void>,
) => Promise<Response | void>;

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
  /** The project API key (the anon key). */
  apiKey: string;
  /** When given, the token's `iss` must equal it. */
  issuer?: string | null;
  /** When given, the token's `aud` must be or contain it. Default `authenticated`. */
  audience?: string | null;
  /** Require MFA (`aal2`); a lower level is answered 403. Default false. */
  requireAal2?: boolean;
  /**
   * The `realm` of the `WWW-Authenticate` challenges (RFC 6750 §3), printable
   * ASCII (`TypeError` at creation otherwise). Given, every challenge carries
   * it; by default only the one for a request without Bearer credentials
   * does, as `realm=""` (that challenge must carry a parameter and may carry
   * no error code).
   */
  realm?: string;
  /**
   * Options of both clients: the one that verifies tokens and the per-request
   * `fetchbase` client handlers use (e.g. an injected `fetch`). The verifying
   * one fails fast by default, so that an auth server in trouble gets a 503
   * back to the caller promptly instead of holding each request: one attempt
   * (no retry, no waiting out a `Retry-After`) and a 5 s timeout per call, the
   * JWKS fetch's included (a token whose key must be fetched waits at most for
   * the JWKS and then the `GET /user` fallback). A `retry` or `timeout` given
   * here applies to both clients; the per-request client otherwise keeps the
   * usual defaults. Its `headers` must not hold `Authorization`: the
   * per-request client carries the caller's token (`TypeError` at creation).
   */
  clientOptions?: ClientOptions;
  /** An auth client to share (its JWKS cache lives across requests). */
  auth?: AuthClient;
}

/** The verification client's defaults: fail fast (one attempt, 5 s). */
const VERIFY_RETRY = { maxAttempts: 1 } as const;
const VERIFY_TIMEOUT_MS = 5_000;

/** The middleware's own auth client: fails fast (see `clientOptions`). */
function verifyingAuth(options: FetchbaseAuthOptions): AuthClient {
  const client = createClient(options.url, options.apiKey, {
    retry: VERIFY_RETRY,
    timeout: VERIFY_TIMEOUT_MS,
    ...options.clientOptions,
  });
  // The JWKS fetch has a timeout of its own (10 s by default): it gets the client's, so that a
  // JWKS that never answers holds a request no longer than the `/user` fallback does.
  return createAuthClient(client, { jwks: { timeout: client.timeout } });
}

/**
 * An answer with a JSON body `{ error, message }` and the RFC 6750 challenge:
 * `Bearer realm="..."` when no Bearer credentials came (§3: at least one
 * parameter, no error code), else `Bearer error="..."` (after the realm when
 * one is set) for 400 `invalid_request`, 401 `invalid_token` and 403
 * `insufficient_scope`; a 503 carries `Retry-After` instead. `realm` is the
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

/**
 * Creates the middleware. The JWKS is cached by the middleware's auth client (refetched every 10 minutes by default, and shared when `auth` is given), so a valid ES256 token with a cached key costs no network call.
 * Make it once (at module scope, or once per Worker isolate as
 * `edge_examples/cloudflare_worker` does), not inside a handler per request
 * (the pattern Hono's docs show for reading `c.env`): each call makes a new
 * auth client, so its JWKS would be fetched again for every request.
 *
 * Answers follow RFC 6750, each with a JSON body `{ error, message }`: no
 * Bearer credentials (none, or another scheme) get 401 with the challenge
 * `Bearer realm=""` (or the `realm` option's); a Bearer header without exactly one token gets 400
 * `invalid_request`; an expired, forged or refused token gets 401
 * `invalid_token`; an insufficient assurance level gets 403
 * `insufficient_scope`. When the token cannot be checked for any other
 * reason (JWKS or auth server unreachable, failing or misconfigured) the
 * answer is 503 `auth_unavailable`, with the auth server's `Retry-After`
 * (else 5 s) and without internals.
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
 * @param options Project, expected issuer and audience, AAL2 requirement, realm.
 * @returns The middleware.
 * @throws {TypeError} When `options` is missing, or its `url`, `apiKey` or
 * `clientOptions` are refused as {@linkcode createClient} refuses them, or
 * `clientOptions.headers` holds `Authorization` (each request's client acts
 * for its caller), or `realm` is not a string of printable ASCII.
 */
export function fetchbaseAuth(
  options: FetchbaseAuthOptions,
): FetchbaseMiddleware {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      "Cannot create the middleware as 'options' must be an object with 'url' and 'apiKey'",
    );
  }
  // Checked once, here: a bad url, key or client option would otherwise fail every verified
  // request as a 500. The verifying client checks them when it is made; with a shared `auth`,
  // nothing else does, so a per-request client is made once now.
  if (options.auth) createClient(options.url, options.apiKey, options.clientOptions);
  const auth = options.auth ?? verifyingAuth(options);
  // Each request's client acts for its caller: a client-wide Authorization would replace the
  // caller's token on every database and storage call (row-level security would see it instead).
  if (new Headers(options.clientOptions?.headers).has("authorization")) {
    throw new TypeError(
      "Cannot create the middleware as 'clientOptions.headers' must not hold Authorization: each request's client acts for its caller",
    );
  }
  const audience = options.audience === undefined ? "authenticated" : options.audience;
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
  const realm = given === undefined ? null : `realm="${given.replace(/["\\]/g, "\\$&")}"`;
  return async (c, next) => {
    const header = (c.req.header("authorization") ?? "").trim();
    // No Bearer credentials at all (none, or another scheme such as Basic): RFC 6750 §3.
    if (!/^Bearer(?:\s|$)/i.test(header)) {
      return deny(
        realm,
        401,
        "missing_token",
        "An Authorization: Bearer <token> header is required",
      );
    }
    // A Bearer header without exactly one token (none, extra words, two joined by a comma)
    // is a malformed request: RFC 6750 §3.1.
    const match = /^Bearer\s+([^\s,]+)$/i.exec(header);
    if (!match) {
      return deny(
        realm,
        400,
        "invalid_request",
        "The Authorization header must hold exactly one Bearer <token>",
      );
    }
    const token = match[1];
    const result = await getClaims(auth, token, {
      expectedIssuer: options.issuer ?? null,
      expectedAudience: audience,
      signal: c.req.raw.signal,
    });
    if (!result.ok) {
      const e = result.error;
      // Refused by the local check (no status) or by the auth server as a token it read.
      const refused = e.status === null
        ? e.category === "UNAUTHORIZED" || e.category === "INVALID_ARGUMENT"
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
    if (options.requireAal2 && result.value.claims.authenticatorAssuranceLevel !== "aal2") {
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
  };
}
