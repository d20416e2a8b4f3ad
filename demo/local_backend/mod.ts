/**
 * An embedded local backend for the demo and the edge-example tests: one Hono
 * app serving a GoTrue stand-in under `/auth/v1` (real ES256 keys and a
 * JWKS; refresh tokens rotate as GoTrue's do: a session keeps its
 * `session_id`, a token spent again within 10 s answers the active one, a
 * later reuse revokes the session, sign-out honours its scope), a Storage API stand-in under `/storage/v1` (in-memory objects, signed
 * URLs and the TUS endpoint) and a PostgREST stand-in under `/rest/v1`
 * (in-memory tables with row-level security on `user_id`).
 *
 * Access rules, like the real services' with a simple policy set: every route
 * but the JWKS, public-bucket downloads and signed-URL use needs the API key
 * (`context.ts`); storage objects and buckets belong to the user who made them
 * (`storage.ts`); rows with a `user_id` belong to that user (`rest.ts`). The
 * service key bypasses row-level security.
 *
 * CORS (`cors.ts`): by default only the TUS routes answer a browser on another origin; with
 * `cors: "all"` every route does, as the services behind Supabase's gateway do.
 */

import { Hono } from "hono";
import { authApp } from "./auth.ts";
import { servicesCors } from "./cors.ts";
import { type BackendOptions, createContext } from "./context.ts";
import { restApp, type Tables } from "./rest.ts";
import { storageApp, type StorageState } from "./storage.ts";
import type { SigningKey } from "./jwt.ts";

export type { BackendOptions } from "./context.ts";
export { signJwt } from "./jwt.ts";

/** A local backend ready to serve. */
export interface LocalBackend {
  /** The Hono app; serve `app.fetch`. */
  app: Hono;
  /** The (anon) API key the backend accepts. */
  apiKey: string;
  /** The service-role key: it bypasses row-level security. */
  serviceKey: string;
  /** The signing key behind the JWKS (tests mint tokens with it). */
  key: SigningKey;
  /** In-memory tables. */
  tables: Tables;
  /** Buckets and objects. */
  storage: StorageState;
}

/** Builds a local backend with fresh keys and empty state. */
export async function createLocalBackend(options: BackendOptions = {}): Promise<LocalBackend> {
  const ctx = await createContext(options);
  const app = new Hono();
  if (ctx.cors === "all") app.use("*", servicesCors([ctx.apiKey, ctx.serviceKey]));
  const storage = storageApp(ctx);
  const rest = restApp(ctx);
  app.route("/auth/v1", authApp(ctx));
  app.route("/storage/v1", storage.app);
  app.route("/rest/v1", rest.app);
  app.notFound((c) => c.json({ message: "Not found" }, 404));
  return {
    app,
    apiKey: ctx.apiKey,
    serviceKey: ctx.serviceKey,
    key: ctx.key,
    tables: rest.tables,
    storage: storage.state,
  };
}
