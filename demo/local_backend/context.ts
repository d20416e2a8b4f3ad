/**
 * Shared state of the local backend: keys, API key, and the caller check
 * every service uses.
 */

import { generateSigningKey, type SigningKey, verifyJwt } from "./jwt.ts";

/** Who is calling, after the `apikey` and bearer checks. */
export interface Caller {
  role: "anon" | "authenticated";
  /** The user id for authenticated callers. */
  sub: string | null;
  claims: Record<string, unknown> | null;
}

/** State shared by the auth, storage and database stand-ins. */
export interface BackendContext {
  apiKey: string;
  key: SigningKey;
  /** Access-token lifetime in seconds. */
  accessTokenTtl: number;
  /** Resolves the caller of a request, or the 401 answer. */
  caller(req: Request): Promise<Caller | Response>;
}

/** Options of the local backend. */
export interface BackendOptions {
  /** The API key clients must send in `apikey`. Default `local-anon-key`. */
  apiKey?: string;
  /** Access-token lifetime in seconds. Default 3600. */
  accessTokenTtl?: number;
}

export async function createContext(options: BackendOptions = {}): Promise<BackendContext> {
  const apiKey = options.apiKey ?? "local-anon-key";
  const key = await generateSigningKey(`local-${crypto.randomUUID().slice(0, 8)}`);
  return {
    apiKey,
    key,
    accessTokenTtl: options.accessTokenTtl ?? 3600,
    async caller(req) {
      const given = req.headers.get("apikey") ??
        new URL(req.url).searchParams.get("apikey");
      const auth = req.headers.get("authorization");
      const bearer = auth?.toLowerCase().startsWith("bearer ") ? auth.slice(7).trim() : null;
      if (given !== apiKey && bearer !== apiKey) {
        if (!bearer) {
          return Response.json({ message: "No API key found in request" }, { status: 401 });
        }
      }
      if (!bearer || bearer === apiKey) return { role: "anon", sub: null, claims: null };
      const claims = await verifyJwt(key, bearer);
      if (!claims) {
        return Response.json(
          {
            code: 401,
            error_code: "bad_jwt",
            msg: "invalid JWT: unable to parse or verify signature",
          },
          { status: 401 },
        );
      }
      return { role: "authenticated", sub: String(claims.sub), claims };
    },
  };
}
