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

/** Context variables the middleware sets. */
export interface FetchbaseVariables {
  /** The verified claims of the caller's token. */
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
  /** Options of the clients (e.g. an injected `fetch`). */
  clientOptions?: ClientOptions;
  /** An auth client to share (its JWKS cache lives across requests). */
  auth?: AuthClient;
}

function deny(status: 401 | 403 | 503, error: string, message: string): Response {
  const headers = new Headers({ "content-type": "application/json" });
  // RFC 6750 §3.1: no error code when the request carried no credentials.
  if (status === 401) {
    headers.set(
      "www-authenticate",
      error === "missing_token" ? "Bearer" : `Bearer error="invalid_token"`,
    );
  }
  if (status === 503) headers.set("retry-after", "5");
  return new Response(JSON.stringify({ error, message }), { status, headers });
}

/** Failures that say nothing about the token: the verifier could not ask (JWKS or auth down). */
const UNAVAILABLE: ReadonlySet<string> = new Set([
  "NETWORK",
  "TIMEOUT",
  "SERVER",
  "RATE_LIMITED",
  "DECODE",
  "CANCELLED",
  "UNKNOWN",
]);

/**
 * Creates the middleware. The JWKS is fetched once and cached per middleware
 * instance, so a valid ES256 token with a cached key costs no network call.
 * Missing, malformed, expired or forged tokens get 401 with a JSON body
 * `{ error, message }`; an insufficient assurance level gets 403; when the
 * token cannot be checked (JWKS and auth server unreachable or failing) the
 * answer is 503 `auth_unavailable` with `Retry-After`, without internals.
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
 * @param options Project, expected issuer and audience, AAL2 requirement.
 * @returns The middleware.
 */
export function fetchbaseAuth(
  options: FetchbaseAuthOptions,
): FetchbaseMiddleware {
  const auth = options.auth ??
    createAuthClient(createClient(options.url, options.apiKey, options.clientOptions));
  const audience = options.audience === undefined ? "authenticated" : options.audience;
  return async (c, next) => {
    const header = (c.req.header("authorization") ?? "").trim();
    if (header === "") {
      return deny(401, "missing_token", "An Authorization: Bearer <token> header is required");
    }
    // Credentials that are there but not one Bearer token (another scheme, two
    // headers joined by a comma, extra words) are invalid, not missing.
    const match = /^Bearer\s+([^\s,]+)$/i.exec(header);
    if (!match) {
      return deny(
        401,
        "invalid_token",
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
      // An outage is not the caller's fault, and its details (hosts, errors) stay inside.
      if (UNAVAILABLE.has(result.error.category)) {
        return deny(503, "auth_unavailable", "The token cannot be verified right now");
      }
      return deny(401, result.error.code ?? "invalid_token", result.error.message);
    }
    if (options.requireAal2 && result.value.claims.authenticatorAssuranceLevel !== "aal2") {
      return deny(
        403,
        "insufficient_aal",
        "This route requires multi-factor authentication (aal2)",
      );
    }
    c.set("claims", result.value);
    c.set(
      "fetchbase",
      createClient(options.url, options.apiKey, { ...options.clientOptions, accessToken: token }),
    );
    return next();
  };
}
