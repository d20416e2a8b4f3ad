/**
 * The full client: the base client plus lazy accessors for each area.
 *
 * @module
 */

import { BaseClient, type ClientOptions } from "./core/client.ts";

/**
 * The fetchbase client. Area accessors (`client.auth`, `client.storage`,
 * `client.database`) are lazy getters returning the same instance on every
 * read; creating the client does no I/O.
 *
 * @example Creating a client
 * ```ts
 * import { createClient } from "@fetchbase/fetchbase";
 *
 * const client = createClient("https://project.example", "anon-key");
 * console.log(client.url);
 * ```
 */
export class Client extends BaseClient {}

/**
 * Creates a {@linkcode Client}.
 *
 * @example Creating a client with options
 * ```ts
 * import { createClient } from "@fetchbase/fetchbase";
 *
 * const client = createClient("https://project.example/", "anon-key", {
 *   headers: { "x-app": "demo" },
 *   timeout: 10_000,
 * });
 * ```
 *
 * @param url The project URL; trailing slashes are tolerated.
 * @param apiKey The project API key.
 * @param options Transport options.
 * @returns The client.
 */
export function createClient(url: string, apiKey: string, options?: ClientOptions): Client {
  return new Client(url, apiKey, options);
}
