/**
 * CORS of the local backend as a browser on another origin meets a self-hosted project: Supabase's
 * gateway (Kong 2.8, `cors` plugin with its defaults on every route of
 * `docker/volumes/api/kong.yml`) in front of GoTrue, PostgREST and the Storage API.
 *
 * - A preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) is answered by the
 *   gateway before any key check: 200, no body, `Access-Control-Allow-Origin: *`, the requested
 *   headers echoed in `Access-Control-Allow-Headers`, and the methods
 *   `GET,HEAD,PUT,PATCH,POST,DELETE,OPTIONS,TRACE,CONNECT` (the plugin's `access` phase; it sets
 *   no `Access-Control-Max-Age`). The services' own preflight answers never reach the browser.
 * - Every other answer gets `Access-Control-Allow-Origin: *` from the gateway (its
 *   `header_filter`, which overrides the service's own value) and exposes only what the service
 *   itself lists, as the plugin exposes nothing by default:
 *   - GoTrue (`internal/api/api.go`, rs/cors): `X-Total-Count, Link, X-Supabase-Api-Version`,
 *     with `Access-Control-Allow-Credentials: true` and `Vary: Origin`, on a request with an
 *     `Origin` and a method it allows (not HEAD);
 *   - PostgREST (`src/library/PostgREST/Cors.hs`, wai-cors): `Content-Encoding,
 *     Content-Location, Content-Range, Content-Type, Date, Location, Server, Transfer-Encoding,
 *     Range-Unit`, on a request with an `Origin`;
 *   - the Storage API registers no CORS (`src/app.ts`: "kong should take care of cors"): nothing
 *     exposed, but on the TUS routes the answers of `@tus/server` (its `server.ts` handler), which
 *     expose its header list (`Location`, `Upload-Offset`, `Upload-Length`, `Tus-Resumable`, ...).
 *   A refusal of the gateway's key check (401, `apikey` missing or unknown, on the auth and
 *   database routes) and the Storage API's own refusals of a TUS request (401 here) never reached
 *   the service: they expose nothing.
 *
 * A browser hides from a page every response header but the CORS-safelisted ones
 * (`Cache-Control`, `Content-Language`, `Content-Length`, `Content-Type`, `Expires`,
 * `Last-Modified`, `Pragma`) and those exposed.
 */

import type { MiddlewareHandler } from "hono";

/** The methods the gateway's preflight answer allows (the plugin's default list). */
const GATEWAY_METHODS = "GET,HEAD,PUT,PATCH,POST,DELETE,OPTIONS,TRACE,CONNECT";

/** What GoTrue exposes (`ExposedHeaders` of its rs/cors handler). */
export const AUTH_EXPOSED = "X-Total-Count, Link, X-Supabase-Api-Version";

/** What PostgREST exposes (`corsExposedHeaders` of its CORS policy). */
export const REST_EXPOSED = "Content-Encoding, Content-Location, Content-Range, Content-Type, " +
  "Date, Location, Server, Transfer-Encoding, Range-Unit";

/**
 * What `@tus/server` exposes on its answers (`HEADERS` of `@tus/utils`); the Storage API adds
 * none (it sets no `exposedHeaders`).
 */
export const TUS_EXPOSED = "Authorization, Content-Type, Location, Tus-Extension, Tus-Max-Size, " +
  "Tus-Resumable, Tus-Version, Upload-Concat, Upload-Defer-Length, Upload-Length, " +
  "Upload-Metadata, Upload-Offset, X-HTTP-Method-Override, X-Requested-With, " +
  "X-Forwarded-Host, X-Forwarded-Proto, Forwarded";

/** Whether `req` is a CORS preflight, which the gateway answers itself. */
export function isPreflight(req: Request): boolean {
  return req.method === "OPTIONS" && req.headers.has("origin") &&
    req.headers.has("access-control-request-method");
}

/** The gateway's answer to a preflight. */
export function preflightAnswer(req: Request): Response {
  const headers = new Headers({
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": GATEWAY_METHODS,
  });
  const asked = req.headers.get("access-control-request-headers");
  if (asked !== null) headers.set("Access-Control-Allow-Headers", asked);
  return new Response(null, { status: 200, headers });
}

/**
 * The middleware giving every route the deployed services' CORS (see the module's comment).
 * `keys` are the API keys the gateway's key check accepts.
 */
export function servicesCors(keys: readonly string[]): MiddlewareHandler {
  return async (c, next) => {
    const req = c.req.raw;
    if (isPreflight(req)) return preflightAnswer(req);
    await next();
    const path = new URL(req.url).pathname;
    const origin = req.headers.has("origin");
    const given = req.headers.get("apikey") ?? new URL(req.url).searchParams.get("apikey");
    const keyRefused = c.res.status === 401 && (given === null || !keys.includes(given));
    const service = path.startsWith("/auth/v1/")
      ? "auth"
      : path.startsWith("/rest/v1/")
      ? "rest"
      : path.startsWith("/storage/v1/")
      ? "storage"
      : null;
    if (service === null) return undefined;
    // A copy: some answers' headers are immutable (`Response.redirect`).
    c.res = new Response(c.res.body, c.res);
    const headers = c.res.headers;
    // The service's own headers first, then the gateway's, which overrides its origin.
    if (service === "auth" && !keyRefused) {
      headers.append("Vary", "Origin");
      if (origin && req.method !== "HEAD") {
        headers.set("Access-Control-Expose-Headers", AUTH_EXPOSED);
        headers.set("Access-Control-Allow-Credentials", "true");
      }
    } else if (service === "rest" && !keyRefused && origin) {
      headers.set("Access-Control-Expose-Headers", REST_EXPOSED);
    } else if (
      service === "storage" && path.startsWith("/storage/v1/upload/resumable") &&
      c.res.status !== 401
    ) {
      headers.set("Access-Control-Expose-Headers", TUS_EXPOSED);
    }
    headers.set("Access-Control-Allow-Origin", "*");
    return undefined;
  };
}
