/**
 * fetchbase: a small, edge-safe client for a hosted backend's auth
 * (GoTrue), storage and database (PostgREST) services, built only on Web
 * Fetch, WebCrypto and Web Streams.
 *
 * @example Creating a client
 * ```ts
 * import { createClient } from "@fetchbase/fetchbase";
 *
 * const client = createClient("https://project.example", "anon-key");
 * ```
 *
 * @module
 */

export * from "./client.ts";
export * from "./core/mod.ts";
