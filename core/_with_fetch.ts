/**
 * Internal: a client's transport context whose requests go through another
 * `fetch`, for the areas that watch or adjust their requests (the database's
 * HEAD calls keep their last answer, storage downloads ask for revalidation).
 *
 * @module
 */

import type { TransportContext } from "./transport.ts";

/**
 * `client` as a transport context whose requests go through `fetch` instead
 * of its own. Its key and token are read from `client` at every attempt, as
 * the client's own are, so a token set meanwhile is the one sent.
 *
 * @param client The client whose settings the requests keep.
 * @param fetch The fetch that sends them; it calls the client's own unbound
 * (`(0, client.fetch)(…)`): a runtime's own fetch refuses any other `this`.
 * @returns The context.
 */
export function withFetch(
  client: TransportContext,
  fetch: typeof globalThis.fetch,
): TransportContext {
  return {
    url: client.url,
    get apiKey() {
      return client.apiKey;
    },
    get accessToken() {
      return client.accessToken;
    },
    fetch,
    headers: client.headers,
    timeout: client.timeout,
    retry: client.retry,
  };
}
