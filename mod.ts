/**
 * fetchbase: a small, edge-safe client for a hosted backend's auth
 * (GoTrue), storage and database (PostgREST) services, built only on Web
 * Fetch, WebCrypto and Web Streams. Each area also has its own subpath
 * (`./core`, `./auth`, `./session`, `./storage`, `./database`) so that a
 * bundle carries only what it imports; `./storage/objects` has the object
 * operations as functions and `./hono` the Hono middleware (neither is
 * re-exported here).
 *
 * @example Creating a client
 * ```ts
 * import { createClient } from "@fetchbase/fetchbase";
 *
 * const client = createClient("https://project.example", "anon-key");
 * const rows = await client.database.select("todos", { columns: "id,title" });
 * ```
 *
 * @module
 */

export * from "./auth/mod.ts";
export * from "./client.ts";
export * from "./core/mod.ts";
export * from "./database/mod.ts";
export * from "./session/mod.ts";
export * from "./storage/mod.ts";
