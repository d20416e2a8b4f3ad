/**
 * The full client: the base client plus lazy accessors for each area.
 *
 * @module
 */

import { type AuthClient, createAuthClient } from "./auth/client.ts";
import { BaseClient, type ClientOptions } from "./core/client.ts";
import { createDatabaseClient, type DatabaseClient } from "./database/client.ts";
import { createStorageClient, type StorageClient } from "./storage/client.ts";

/**
 * The fetchbase client. Area accessors (`client.auth`, `client.storage`, `client.database`)
 * are lazy getters returning the same instance on every read; creating the
 * client does no I/O. Edge functions that want the smallest bundle import
 * `createBaseClient` from `./core` and only the area factories they use.
 *
 * @example Creating a client
 * ```ts
 * import { createClient } from "@fetchbase/fetchbase";
 *
 * const client = createClient("https://project.example", "anon-key");
 * console.log(client.storage === client.storage); // true
 * ```
 */
export class Client extends BaseClient {
  #auth?: AuthClient;
  #storage?: StorageClient;
  #database?: DatabaseClient;

  /** The auth client over this client's transport. */
  get auth(): AuthClient {
    return this.#auth ??= createAuthClient(this);
  }

  /** The storage client over this client's transport. */
  get storage(): StorageClient {
    return this.#storage ??= createStorageClient(this);
  }

  /** The database client over this client's transport. */
  get database(): DatabaseClient {
    return this.#database ??= createDatabaseClient(this);
  }
}

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
