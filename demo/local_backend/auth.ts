/**
 * A GoTrue stand-in: sign-up, password and refresh grants, user, logout,
 * settings, health and the JWKS, with real ES256 tokens.
 */

import { Hono } from "hono";
import type { BackendContext } from "./context.ts";
import { signJwt } from "./jwt.ts";

interface UserRecord {
  id: string;
  email: string;
  password: string;
  user_metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

const gotrueError = (status: number, error_code: string, msg: string) =>
  Response.json({ code: status, error_code, msg }, { status });

export function authApp(ctx: BackendContext): Hono {
  const app = new Hono();
  const users = new Map<string, UserRecord>();
  // As GoTrue keeps them: each refresh token belongs to a session (`session_id`, which a refresh
  // keeps), is spent by its refresh (`child` is the token that refresh issued), and may be spent
  // again within 10 s of that, which answers the session's active token (two tabs refreshing at
  // once), or at any time while its child is the active one; else a spent token revokes its whole
  // session.
  const refreshTokens = new Map<
    string,
    { userId: string; sessionId: string; used: boolean; usedAt: number; child: string | null }
  >();
  const revokedSessions = new Set<string>();

  const userJson = (u: UserRecord) => ({
    id: u.id,
    aud: "authenticated",
    role: "authenticated",
    email: u.email,
    email_confirmed_at: u.created_at,
    confirmed_at: u.created_at,
    last_sign_in_at: new Date().toISOString(),
    app_metadata: { provider: "email", providers: ["email"] },
    user_metadata: u.user_metadata,
    identities: [{
      id: crypto.randomUUID(),
      identity_id: crypto.randomUUID(),
      user_id: u.id,
      provider: "email",
      identity_data: { email: u.email, sub: u.id },
    }],
    factors: [],
    is_anonymous: false,
    created_at: u.created_at,
    updated_at: u.updated_at,
  });

  /** A new refresh token of a session, recorded unspent. */
  const issueRefreshToken = (userId: string, sessionId: string): string => {
    const token = crypto.randomUUID().replaceAll("-", "").slice(0, 16);
    refreshTokens.set(token, { userId, sessionId, used: false, usedAt: 0, child: null });
    return token;
  };

  /** A session's answer: a fresh access token beside `refresh_token` (a new one by default). */
  const session = async (
    u: UserRecord,
    issuer: string,
    sessionId: string = crypto.randomUUID(),
    refresh_token: string = issueRefreshToken(u.id, sessionId),
  ) => {
    const now = Math.floor(Date.now() / 1000);
    const exp = now + ctx.accessTokenTtl;
    const access_token = await signJwt(ctx.key, {
      iss: issuer,
      sub: u.id,
      aud: "authenticated",
      exp,
      iat: now,
      email: u.email,
      phone: "",
      role: "authenticated",
      aal: "aal1",
      session_id: sessionId,
      is_anonymous: false,
      app_metadata: { provider: "email", providers: ["email"] },
      user_metadata: u.user_metadata,
    });
    return {
      access_token,
      token_type: "bearer",
      expires_in: ctx.accessTokenTtl,
      expires_at: exp,
      refresh_token,
      user: userJson(u),
    };
  };

  const issuerOf = (url: string) => new URL(url).origin + "/auth/v1";
  /** The `session_id` of a bearer token the middleware has verified. */
  const sessionOf = (authorization: string): string | null => {
    try {
      const payload = authorization.replace(/^Bearer /i, "").split(".")[1] ?? "";
      const json = atob(payload.replace(/-/g, "+").replace(/_/g, "/"));
      const id = JSON.parse(json).session_id;
      return typeof id === "string" ? id : null;
    } catch {
      return null;
    }
  };

  app.use("*", async (c, next) => {
    // GoTrue answers a token it cannot verify 403 (its auth.go), where PostgREST answers 401.
    const caller = await ctx.caller(c.req.raw, 0, 403);
    if (caller instanceof Response) {
      if (c.req.path.endsWith("/.well-known/jwks.json")) return next();
      return caller;
    }
    c.set("caller" as never, caller as never);
    return next();
  });

  app.get("/.well-known/jwks.json", (c) => c.json({ keys: [ctx.key.publicJwk] }));
  app.get(
    "/health",
    (c) => c.json({ name: "GoTrue", version: "local", description: "local stand-in" }),
  );
  app.get("/settings", (c) =>
    c.json({
      external: { email: true, phone: false },
      disable_signup: false,
      mailer_autoconfirm: true,
      phone_autoconfirm: false,
      sms_provider: "",
      mfa_enabled: false,
      saml_enabled: false,
    }));

  app.post("/signup", async (c) => {
    const body = await c.req.json().catch(() => ({}));
    const email = String(body.email ?? "").trim().toLowerCase();
    const password = String(body.password ?? "");
    if (!email || !email.includes("@")) {
      return gotrueError(
        400,
        "validation_failed",
        "Unable to validate email address: invalid format",
      );
    }
    if (password.length < 6) {
      return gotrueError(422, "weak_password", "Password should be at least 6 characters.");
    }
    for (const u of users.values()) {
      if (u.email === email) {
        return gotrueError(422, "user_already_exists", "User already registered");
      }
    }
    const now = new Date().toISOString();
    const u: UserRecord = {
      id: crypto.randomUUID(),
      email,
      password,
      user_metadata: body.data && typeof body.data === "object" ? body.data : {},
      created_at: now,
      updated_at: now,
    };
    users.set(u.id, u);
    return c.json(await session(u, issuerOf(c.req.url)));
  });

  app.post("/token", async (c) => {
    const grant = c.req.query("grant_type");
    const body = await c.req.json().catch(() => ({}));
    if (grant === "password") {
      const email = String(body.email ?? "").toLowerCase();
      const u = [...users.values()].find((x) => x.email === email);
      if (!u || u.password !== body.password) {
        return gotrueError(400, "invalid_credentials", "Invalid login credentials");
      }
      return c.json(await session(u, issuerOf(c.req.url)));
    }
    if (grant === "refresh_token") {
      const entry = refreshTokens.get(String(body.refresh_token ?? ""));
      if (!entry || revokedSessions.has(entry.sessionId)) {
        return gotrueError(
          400,
          "refresh_token_not_found",
          "Invalid Refresh Token: Refresh Token Not Found",
        );
      }
      const u = users.get(entry.userId);
      if (!u) return gotrueError(400, "user_not_found", "User not found");
      if (entry.used) {
        // The parent of the active token (a client that could not store its refresh's answer)
        // gets the active token back, at any time, as GoTrue's refresh grant answers it.
        if (entry.child !== null && refreshTokens.get(entry.child)?.used === false) {
          return c.json(await session(u, issuerOf(c.req.url), entry.sessionId, entry.child));
        }
        // The session's active token, for a reuse within the interval; else reuse revokes it.
        let active = entry.child;
        while (active !== null && refreshTokens.get(active)?.used) {
          active = refreshTokens.get(active)!.child;
        }
        if (active !== null && Date.now() - entry.usedAt < ctx.refreshReuseIntervalMs) {
          return c.json(await session(u, issuerOf(c.req.url), entry.sessionId, active));
        }
        revokedSessions.add(entry.sessionId);
        return gotrueError(
          400,
          "refresh_token_already_used",
          "Invalid Refresh Token: Already Used",
        );
      }
      // The child is known the moment the token is spent (GoTrue does both in one transaction):
      // a grant of the same token while this one is signing reuses it rather than revoking.
      const child = issueRefreshToken(u.id, entry.sessionId);
      entry.used = true;
      entry.usedAt = Date.now();
      entry.child = child;
      return c.json(await session(u, issuerOf(c.req.url), entry.sessionId, child));
    }
    return gotrueError(400, "validation_failed", "unsupported_grant_type");
  });

  const currentUser = (c: { get(k: never): unknown }) => {
    const caller = c.get("caller" as never) as { role: string; sub: string | null };
    return caller.role === "authenticated" && caller.sub ? users.get(caller.sub) ?? null : null;
  };
  /**
   * GoTrue's answer to a token whose session has ended (signed out, or revoked for a reused
   * refresh token): 403 `session_not_found`, on every route that loads the caller's session.
   */
  const ended = (c: { req: { header(name: string): string | undefined } }) => {
    const own = sessionOf(c.req.header("authorization") ?? "");
    return own !== null && revokedSessions.has(own)
      ? gotrueError(403, "session_not_found", "Session from session_id claim in JWT does not exist")
      : null;
  };

  app.get("/user", (c) => {
    const u = currentUser(c);
    if (!u) {
      return gotrueError(401, "no_authorization", "This endpoint requires a valid Bearer token");
    }
    return ended(c) ?? c.json(userJson(u));
  });

  app.put("/user", async (c) => {
    const u = currentUser(c);
    if (!u) {
      return gotrueError(401, "no_authorization", "This endpoint requires a valid Bearer token");
    }
    const gone = ended(c);
    if (gone) return gone;
    const body = await c.req.json().catch(() => ({}));
    if (body.data && typeof body.data === "object") {
      u.user_metadata = { ...u.user_metadata, ...body.data };
    }
    if (typeof body.password === "string") u.password = body.password;
    u.updated_at = new Date().toISOString();
    return c.json(userJson(u));
  });

  app.post("/logout", (c) => {
    const u = currentUser(c);
    if (!u) {
      return gotrueError(401, "no_authorization", "This endpoint requires a valid Bearer token");
    }
    const gone = ended(c);
    if (gone) return gone;
    // GoTrue's scopes: `global` (the default) ends every session of the user, `local` the
    // caller's, `others` every other one; a token that names no session ends every one, whatever
    // the scope (its logout.go).
    const scope = c.req.query("scope") || "global";
    if (!["global", "local", "others"].includes(scope)) {
      return gotrueError(400, "validation_failed", `Unsupported logout scope "${scope}"`);
    }
    const own = sessionOf(c.req.header("authorization") ?? "");
    for (const entry of refreshTokens.values()) {
      if (entry.userId !== u.id) continue;
      const mine = entry.sessionId === own;
      if (own === null || scope === "global" || (scope === "local" ? mine : !mine)) {
        revokedSessions.add(entry.sessionId);
      }
    }
    return c.body(null, 204);
  });

  return app;
}
