/**
 * Server-side sessions over cookies, for an app that renders for browsers (the browser never
 * sees a token): sign-in stores the session in `HttpOnly` cookies; every other request restores
 * it from the cookies (a lapsed one is refreshed first, and the response carries the new
 * cookies), verifies its access token locally against the JWKS, and reads rows as its user, so
 * row-level security applies; sign-out revokes the session on the server and deletes the cookies.
 *
 * What each request needs, all of it below: its own client (the session manager puts the user's
 * token on it), a `CookieSessionStorage` over the request, a manager over both, `initialize()`
 * before the session is read, the storage's `Set-Cookie` headers on the response, and
 * `dispose()` once it is built. The client that verifies tokens is made once, so its JWKS cache
 * lasts as long as the isolate.
 *
 * Copy this file; serve it with `Deno.serve(createCookieApp(config).fetch)` or export it as a
 * Worker's `fetch`.
 */

import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { csrf } from "hono/csrf";
import { createAuthClient } from "../../auth/client.ts";
import { createClient } from "../../client.ts";
import type { ClientOptions, ServiceError } from "../../core/mod.ts";
import {
  type CookieOptions,
  CookieSessionStorage,
  createSessionManager,
  getClaimsForCurrentSession,
  type SessionManager,
  signInWithEmailAndSaveSession,
  signOutCurrentSession,
} from "../../session/mod.ts";
import type { Client } from "../../client.ts";

/** Configuration of the app. */
export interface CookieAppConfig {
  /** Project URL. */
  url: string;
  /** Project anon key. */
  apiKey: string;
  /** Client options (tests inject `fetch`). */
  clientOptions?: ClientOptions;
  /** Cookie settings: `secure: false` only for plain-HTTP development. */
  cookie?: CookieOptions;
  /**
   * The origins whose pages may post to the app (`hono/csrf`'s `origin`). Default: the request
   * URL's own, which a proxy terminating TLS in front changes: give the public origin then.
   * Browsers that send `Sec-Fetch-Site: same-origin` pass either way.
   */
  origin?: string | string[];
}

/** What a handler gets for its request. */
interface RequestSession {
  client: Client;
  manager: SessionManager;
}

/**
 * The app: `POST /signin` (JSON `{ email, password }`), `GET /todos` (the user's rows), and
 * `POST /signout`. State-changing requests from another site are refused (`hono/csrf` checks
 * their `Origin`; `SameSite=Lax` keeps cookies off them, but a cross-site form could still sign
 * a browser into another account), sign-in takes JSON only and at most 4 KiB of it, and every
 * answer is `Cache-Control: private, no-store` (it carries one user's rows or cookies).
 *
 * @example Serving it
 * ```ts ignore
 * import { createCookieApp } from "./cookie_app.ts";
 *
 * const app = createCookieApp({ url: "https://your-project.example", apiKey: "anon-key" });
 * Deno.serve(app.fetch);
 * ```
 *
 * @param config The project and the cookie settings.
 * @returns The Hono app.
 */
export function createCookieApp(config: CookieAppConfig): Hono {
  // Each request's client acts for its user: a client-wide Authorization would replace the
  // user's token on every call (row-level security would see it instead).
  if (new Headers(config.clientOptions?.headers).has("authorization")) {
    throw new TypeError(
      "Cannot create the app as 'clientOptions.headers' must not hold Authorization: each request's client acts for its user",
    );
  }
  // Cookie options are checked once here: a bad one would otherwise fail every request as a 500.
  // (The session cookie is `__Host-fb-session` by default: a plain name can be planted by a
  // sibling subdomain.)
  new CookieSessionStorage(null, config.cookie);
  const client = () => createClient(config.url, config.apiKey, config.clientOptions);
  // One JWKS cache for every request, failing fast as the Hono middleware's does: one attempt
  // and 5 s (the JWKS fetch included), so an auth server in trouble holds no request for long.
  const given = config.clientOptions;
  const verifying = createClient(config.url, config.apiKey, {
    ...given,
    retry: given?.retry ?? { maxAttempts: 1 },
    timeout: given?.timeout ?? 5_000,
  });
  const verifier = createAuthClient(verifying, { jwks: { timeout: verifying.timeout } });
  const app = new Hono();
  app.use(config.origin === undefined ? csrf() : csrf({ origin: config.origin }));
  app.use(async (c, next) => {
    await next();
    c.res.headers.set("cache-control", "private, no-store");
  });

  /** Runs `handle` with the request's session and writes the session's cookies on its answer. */
  async function withSession(
    c: Context,
    handle: (s: RequestSession) => Promise<Response>,
  ): Promise<Response> {
    const perRequest = client();
    const storage = new CookieSessionStorage(c.req.raw, config.cookie);
    const manager = createSessionManager(perRequest.auth, perRequest, { storage });
    try {
      const res = await handle({ client: perRequest, manager });
      for (const cookie of storage.setCookieHeaders()) res.headers.append("set-cookie", cookie);
      return res;
    } finally {
      manager.dispose();
    }
  }

  const signinBody = bodyLimit({
    maxSize: 4 * 1024,
    onError: (c) => c.json({ error: "the body is too large" }, 413),
  });
  app.post("/signin", signinBody, (c) =>
    withSession(c, async ({ client, manager }) => {
      // JSON only: a cross-site form can send text/plain (no preflight), which c.req.json()
      // would parse as well.
      if (!/^application\/json\b/i.test(c.req.header("content-type") ?? "")) {
        return c.json({ error: "the body must be application/json" }, 415);
      }
      const body = await c.req.json().catch(() => null) as
        | { email?: unknown; password?: unknown }
        | null;
      if (typeof body?.email !== "string" || typeof body.password !== "string") {
        return c.json({ error: "email and password are required" }, 400);
      }
      const r = await signInWithEmailAndSaveSession(
        client.auth,
        manager,
        body.email,
        body.password,
      );
      if (r.ok) return c.json({ user: r.value.user.id });
      // GoTrue issued the session but the cookies could not hold it (a user whose metadata is
      // too large for them): it is revoked rather than left alive on the server, unreachable.
      if (manager.currentSession !== null) {
        await signOutCurrentSession(client.auth, manager);
        return c.json({ error: "the session cannot be stored" }, 500);
      }
      // Never the message: GoTrue's words may echo the input. Refused credentials are the
      // caller's (GoTrue answers them 400); anything else is the backend's trouble.
      const refused = ["BAD_REQUEST", "UNAUTHORIZED", "INVALID_ARGUMENT"].includes(
        r.error.category,
      );
      return refused ? c.json({ error: r.error.category }, 401) : backendTrouble(c, r.error);
    }));

  app.get("/todos", (c) =>
    withSession(c, async ({ client, manager }) => {
      await manager.initialize(); // restores the session, refreshing a lapsed one
      // The cookies are the browser's claim: the token is checked before anything is trusted.
      let claims = await getClaimsForCurrentSession(manager, verifier);
      if (!claims.ok && claims.error.category !== "NO_SESSION" && refusedSession(claims.error)) {
        // A refused access token (signed by a key rotated away, say) may come with a refresh
        // token GoTrue still honours: one refresh decides, as quickly as a check (5 s).
        const again = await manager.refreshSession({ signal: c.req.raw.signal, timeout: 5_000 });
        if (again.ok) claims = await getClaimsForCurrentSession(manager, verifier);
        // An auth server that cannot answer now (no answer, a 5xx, a rate limit) keeps the
        // cookies: the user is not signed out for it. Its 4xx refuses the refresh token.
        else if (again.error.category === "RATE_LIMITED") return backendTrouble(c, again.error);
        else if (again.error.status === null || again.error.status >= 500) {
          return c.json({ error: "the auth server is unavailable" }, 503);
        }
      }
      if (!claims.ok) {
        // Only a session that is missing or refused is the user's to fix; an auth server that
        // cannot answer now is not a reason to send every user to sign in again.
        if (!refusedSession(claims.error)) {
          return c.json({ error: "the auth server is unavailable" }, 503);
        }
        // Refused, refreshed or not: its cookies are deleted, or the browser sends them again.
        if (claims.error.category !== "NO_SESSION") await manager.clearSession();
        return c.json({ error: "sign in first" }, 401);
      }
      const rows = await client.database.select("todos", { columns: "id,title,done" });
      if (rows.ok) return c.body(rows.value, 200, { "content-type": "application/json" });
      return rows.error.category === "FORBIDDEN"
        ? c.json({ error: rows.error.category }, 403)
        : backendTrouble(c, rows.error);
    }));

  app.post("/signout", (c) =>
    withSession(c, async ({ client, manager }) => {
      await manager.initialize();
      // A lapsed session is refreshed first, so the server revokes it, refresh token included.
      const r = await signOutCurrentSession(client.auth, manager);
      // The server could not end the session now: its cookies stay, so that the sign-out can be
      // tried again (deleted, the session would stay alive on the server, out of reach).
      return r.ok ? c.body(null, 204) : backendTrouble(c, r.error);
    }));

  return app;
}

/**
 * The answer for a backend that failed a request: 503 with the backend's `Retry-After` when it
 * asks this server to slow down (GoTrue's rate limits count this server's address, not the
 * user), else 502. Never the backend's words.
 */
function backendTrouble(c: Context, error: ServiceError): Response {
  if (error.category !== "RATE_LIMITED") return c.json({ error: error.category }, 502);
  if (error.retryAfter !== null) c.header("retry-after", `${error.retryAfter}`);
  return c.json({ error: error.category }, 503);
}

/**
 * Whether a failed session check is the user's (no session, a refused token), not an outage or
 * this server's misconfiguration (a gateway's "Invalid API key" is a 401 too: not the user's).
 */
function refusedSession(e: ServiceError): boolean {
  return e.category === "NO_SESSION" || e.category === "FORBIDDEN" ||
    (e.category === "UNAUTHORIZED" && !/api ?key/i.test(e.message)) ||
    (e.category === "INVALID_ARGUMENT" && e.code === "bad_jwt");
}
