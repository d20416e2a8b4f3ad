/**
 * The base client: project URL, API key, the current access token and the
 * transport settings. Areas (auth, storage, database) are built on it.
 *
 * @module
 */

import { resolveRetryPolicy, type RetryPolicy } from "./retry.ts";
import type { ServiceResult } from "./result.ts";
import {
  request,
  type ResponseBodies,
  type ResponseType,
  type TransportContext,
  type TransportRequest,
  type TransportResponse,
} from "./transport.ts";
import { checkNonNegative } from "./_thrown.ts";

/** Options of {@linkcode createBaseClient} and the root `createClient`. */
export interface ClientOptions {
  /** The fetch implementation; `globalThis.fetch` (read at call time) by default. */
  fetch?: typeof fetch | undefined;
  /**
   * Headers added to every request (per-call headers still win): a record, a
   * `Headers` object or a list of pairs; names are kept lower-case. A name or
   * value that cannot be sent is a `TypeError` that does not quote it.
   */
  headers?: Record<string, string> | Headers | Array<[string, string]> | undefined;
  /**
   * Default timeout per call in milliseconds; 0 disables. Default 30000.
   * A simple upload takes it plus 1 s per 16 KiB of a body of known length,
   * and none for a stream, unless given one per call; a simple download's
   * answer must start within it, and its body, read whole, may pause no
   * longer than it; each request of a resumable upload takes this one (a
   * chunk's, 1 s more per 64 KiB it carries).
   */
  timeout?: number | undefined;
  /** Retry policy for calls that allow retrying. */
  retry?: { [K in keyof RetryPolicy]?: RetryPolicy[K] | undefined } | undefined;
  /** An access token to start with (a blank one is ignored). */
  accessToken?: string | undefined;
}

/**
 * The default per-call timeout in milliseconds.
 *
 * @example Doubling the timeout
 * ```ts
 * import { createBaseClient, DEFAULT_TIMEOUT_MS } from "@fetchbase/fetchbase/core";
 *
 * const client = createBaseClient("https://p.example", "anon-key", {
 *   timeout: 2 * DEFAULT_TIMEOUT_MS,
 * });
 * ```
 */
export const DEFAULT_TIMEOUT_MS = 30_000;

const masked = "BaseClient { url, apiKey: ***, accessToken: *** }";

/**
 * Internal (not re-exported by `mod.ts`): the fetch of a client given none, the global one read
 * at each call (tests and Workers replace it). One function, so that a resumable upload tells it
 * from a `fetch` given to the client: on Node it streams its chunks only through Node's own fetch.
 */
export const globalFetch: typeof fetch = (input, init) => fetch(input, init);

/**
 * The base client. It holds no session: only the current access token, which
 * the session layer keeps in sync. Its `toString` and inspection never show
 * the API key or the token.
 *
 * @example Setting and clearing the token
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 *
 * const client = createBaseClient("https://project.example/", "anon-key");
 * client.setAccessToken("   "); // blank: ignored
 * console.log(client.accessToken); // null
 * ```
 */
export class BaseClient implements TransportContext {
  // The public fields are declared only: the constructor sets each (their string keys keep this order).
  /** The project URL without trailing slashes. */
  declare readonly url: string;
  readonly #apiKey: string;
  #accessToken: string | null = null;
  readonly #fetch: typeof fetch | undefined;
  /** Client-wide extra headers. */
  declare readonly headers: Readonly<Record<string, string>>;
  /** Default timeout in milliseconds; 0 disables. */
  declare readonly timeout: number;
  /** The retry policy. */
  declare readonly retry: RetryPolicy;

  /**
   * Builds a client; prefer {@linkcode createBaseClient}.
   *
   * @param url The project URL (`http:` or `https:`).
   * @param apiKey The project API key.
   * @param options Transport options.
   */
  constructor(url: string, apiKey: string, options?: ClientOptions) {
    options ??= {};
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      // Refused below, with a URL of another scheme (the URL is not echoed: it may hold credentials).
    }
    if (parsed?.protocol !== "http:" && parsed?.protocol !== "https:") {
      throw new TypeError("Cannot create the client as 'url' must be an http or https URL");
    }
    if (typeof apiKey !== "string" || apiKey.trim() === "") {
      throw new TypeError("Cannot create the client as 'apiKey' must be a non-blank string");
    }
    // Else every request would fail, and be retried, as a network error.
    if (options.fetch !== undefined && typeof options.fetch !== "function") {
      throw new TypeError("Cannot create the client as 'fetch' must be a function");
    }
    const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
    checkNonNegative("create the client", "timeout", timeout);
    this.url = (parsed.origin + parsed.pathname).replace(/\/+$/, "");
    this.#apiKey = apiKey.trim(); // as Headers would send it
    this.#fetch = options.fetch;
    // `Deno.inspect` and Node's `util.inspect` (`console.log`) render it as `toString` does.
    // Set on the instance, not as the class's computed members: a bundler keeps a class with a
    // key it cannot compute at build time, so an unused BaseClient (and the transport with it)
    // stayed in every bundle of the npm build that imported any helper.
    for (const key of ["Deno.customInspect", "nodejs.util.inspect.custom"]) {
      (this as Record<symbol, unknown>)[Symbol.for(key)] = this.toString;
    }
    // Through Headers: a Headers object or a list of pairs (what fetch takes) would spread to
    // nothing, and a value that cannot be sent is refused here rather than at every request.
    try {
      this.headers = Object.freeze(Object.fromEntries(new Headers(options.headers)));
    } catch {
      // Not the runtime's error: its message quotes the value, which may be a secret.
      throw new TypeError("Cannot create the client as 'headers' is invalid");
    }
    this.timeout = timeout;
    this.retry = resolveRetryPolicy(options.retry);
    if (options.accessToken) this.setAccessToken(options.accessToken);
  }

  /** The project API key. */
  get apiKey(): string {
    return this.#apiKey;
  }

  /** The current access token, or null when none is applied. */
  get accessToken(): string | null {
    return this.#accessToken;
  }

  /** The fetch implementation requests go through. */
  get fetch(): typeof fetch {
    return this.#fetch ?? globalFetch;
  }

  /**
   * Applies an access token to later requests, without surrounding
   * whitespace. A blank token, null or undefined is never applied (the
   * current one stays); {@linkcode BaseClient.clearAccessToken} drops it.
   *
   * @param token The access token.
   */
  setAccessToken(token: string | null | undefined): void {
    if (typeof token === "string" && token.trim() !== "") this.#accessToken = token.trim();
  }

  /** Drops the access token; requests then carry the API key. */
  clearAccessToken(): void {
    this.#accessToken = null;
  }

  /**
   * Sends a request through the transport.
   *
   * @param req The request.
   * @returns The answer or a failure.
   */
  request<R extends ResponseType = "json">(
    req: TransportRequest<R>,
  ): Promise<ServiceResult<TransportResponse<ResponseBodies[R]>>> {
    return request(this, req);
  }

  /**
   * A rendering without secrets.
   *
   * @returns The rendering.
   */
  toString(): string {
    return masked.replace("url", () => `url: ${this.url}`); // no `$&` patterns from the URL
  }

  /**
   * The rendering of {@linkcode BaseClient.toString} for `JSON.stringify`:
   * client-wide headers can hold credentials (`Authorization`).
   *
   * @returns The rendering.
   */
  toJSON(): string {
    return this.toString();
  }
}

/**
 * Creates a base client: no I/O, no global touched.
 *
 * @example Creating a client
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 *
 * const client = createBaseClient("https://project.example", "anon-key", { timeout: 10_000 });
 * console.log(client.url); // https://project.example
 * ```
 *
 * @param url The project URL; trailing slashes are tolerated.
 * @param apiKey The project API key.
 * @param options Transport options.
 * @returns The client.
 */
export function createBaseClient(
  url: string,
  apiKey: string,
  options?: ClientOptions,
): BaseClient {
  return new BaseClient(url, apiKey, options);
}
