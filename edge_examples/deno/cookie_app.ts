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
import { createClient } from "../../client.ts";
import type { ClientOptions } from "../../core/mod.ts";
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
}

/** What a handler gets for its request. */
interface RequestSession {
  client: Client;
  manager: SessionManager;
}

/**
 * The app: `POST /signin` (JSON `{ email, password }`), `GET /todos` (the user's rows), and
 * `POST /signout`.
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
  const client = () => createClient(config.url, config.apiKey, config.clientOptions);
  const verifier = client().auth; // one JWKS cache for every request
  const app = new Hono();

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

  app.post("/signin", (c) =>
    withSession(c, async ({ client, manager }) => {
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
      // Never the message: GoTrue's words may echo the input. Refused credentials are the
      // caller's (GoTrue answers them 400); anything else is the backend's trouble.
      const refused = ["BAD_REQUEST", "UNAUTHORIZED", "INVALID_ARGUMENT"].includes(
        r.error.category,
      );
      return c.json({ error: r.error.category }, refused ? 401 : 502);
    }));

  app.get("/todos", (c) =>
    withSession(c, async ({ client, manager }) => {
      await manager.initialize(); // restores the session, refreshing a lapsed one
      // The cookies are the browser's claim: the token is checked before anything is trusted.
      const claims = await getClaimsForCurrentSession(manager, verifier);
      if (!claims.ok) return c.json({ error: "sign in first" }, 401);
      const rows = await client.database.select("todos", { columns: "id,title,done" });
      if (rows.ok) return c.body(rows.value, 200, { "content-type": "application/json" });
      return c.json(
        { error: rows.error.category },
        rows.error.category === "FORBIDDEN" ? 403 : 502,
      );
    }));

  app.post("/signout", (c) =>
    withSession(c, async ({ client, manager }) => {
      await manager.initialize();
      // A lapsed session is refreshed first, so the server revokes it, refresh token included.
      const r = await signOutCurrentSession(client.auth, manager);
      return r.ok ? c.body(null, 204) : c.json({ error: r.error.category }, 502);
    }));

  return app;
}
