/**
 * Shared state of the local backend: keys, API keys, and the caller check
 * every service uses.
 *
 * As Supabase's gateway (Kong) does, every route that needs credentials
 * needs a known API key in `apikey` (header, or `?apikey=`), whatever the
 * `Authorization` header holds: a missing key is 401 "No API key found in
 * request", a wrong one 401 "Invalid API key". The role then comes from the
 * bearer token (a user JWT signed by the backend's key, or one of the API
 * keys); without a bearer, from the API key. Roles:
 * - `anon`: the anon key (`apiKey`), or no user;
 * - `authenticated`: a valid user JWT (`sub` is the user id);
 * - `service_role`: the service key (`serviceKey`) or a JWT whose `role`
 *   claim is `service_role`; it bypasses every row-level security rule.
 */

import { generateSigningKey, type SigningKey, verifyJwt } from "./jwt.ts";

/** Who is calling, after the `apikey` and bearer checks. */
export interface Caller {
  role: "anon" | "authenticated" | "service_role";
  /** The user id for authenticated callers. */
  sub: string | null;
  claims: Record<string, unknown> | null;
}

/** The caller of routes open without credentials (public and signed URLs). */
export const ANON: Caller = Object.freeze({ role: "anon", sub: null, claims: null });

/** State shared by the auth, storage and database stand-ins. */
export interface BackendContext {
  apiKey: string;
  /** The service-role key: as `apikey` or bearer it bypasses row-level security. */
  serviceKey: string;
  key: SigningKey;
  /** Access-token lifetime in seconds. */
  accessTokenTtl: number;
  /** How long a spent refresh token may be spent again for the session's active one, in ms. */
  refreshReuseIntervalMs: number;
  /** Which routes answer CORS (see {@linkcode BackendOptions.cors}). */
  cors: "tus" | "all";
  /**
   * Resolves the caller of a request, or the 401 answer; a token up to `skewSeconds` past its
   * expiry is still accepted (PostgREST allows 30 s of clock skew; GoTrue none), and one that
   * cannot be verified is answered `badJwtStatus` (401 by default; GoTrue answers 403).
   */
  caller(req: Request, skewSeconds?: number, badJwtStatus?: number): Promise<Caller | Response>;
}

/** Options of the local backend. */
export interface BackendOptions {
  /** The API key clients must send in `apikey`. Default `local-anon-key`. */
  apiKey?: string | undefined;
  /** The service-role key (also accepted in `apikey`). Default `local-service-key`. */
  serviceKey?: string | undefined;
  /** Access-token lifetime in seconds. Default 3600. */
  accessTokenTtl?: number | undefined;
  /**
   * How long after a refresh its spent token still answers the session's active token (two tabs
   * refreshing at once), in ms; a later reuse revokes the session. Default 10,000, GoTrue's.
   */
  refreshReuseIntervalMs?: number | undefined;
  /**
   * Which routes answer a browser on another origin: `"tus"` (the default), the resumable-upload
   * routes only; `"all"`, every route as the deployed services behind Supabase's gateway do
   * (`cors.ts`: preflights answered by the gateway, and per service the response headers the
   * service exposes).
   */
  cors?: "tus" | "all" | undefined;
}

export async function createContext(options: BackendOptions = {}): Promise<BackendContext> {
  const apiKey = options.apiKey ?? "local-anon-key";
  const serviceKey = options.serviceKey ?? "local-service-key";
  if (apiKey === serviceKey) throw new TypeError("apiKey and serviceKey must differ");
  const key = await generateSigningKey(`local-${crypto.randomUUID().slice(0, 8)}`);
  const SERVICE: Caller = Object.freeze({ role: "service_role", sub: null, claims: null });
  return {
    apiKey,
    serviceKey,
    key,
    accessTokenTtl: options.accessTokenTtl ?? 3600,
    refreshReuseIntervalMs: options.refreshReuseIntervalMs ?? 10_000,
    cors: options.cors ?? "tus",
    async caller(req, skewSeconds = 0, badJwtStatus = 401) {
      const given = req.headers.get("apikey") ??
        new URL(req.url).searchParams.get("apikey");
      if (given === null || given === "") {
        return Response.json({ message: "No API key found in request" }, { status: 401 });
      }
      if (given !== apiKey && given !== serviceKey) {
        return Response.json({ message: "Invalid API key" }, { status: 401 });
      }
      const auth = req.headers.get("authorization");
      const bearer = auth?.toLowerCase().startsWith("bearer ") ? auth.slice(7).trim() : null;
      const token = bearer || given;
      if (token === apiKey) return ANON;
      if (token === serviceKey) return SERVICE;
      const claims = await verifyJwt(key, token, Math.floor(Date.now() / 1000) - skewSeconds);
      if (!claims) {
        return Response.json(
          {
            code: badJwtStatus,
            error_code: "bad_jwt",
            msg: "invalid JWT: unable to parse or verify signature",
          },
          { status: badJwtStatus },
        );
      }
      if (claims.role === "service_role") return { role: "service_role", sub: null, claims };
      const sub = typeof claims.sub === "string" && claims.sub !== "" ? claims.sub : null;
      return { role: "authenticated", sub, claims };
    },
  };
}
