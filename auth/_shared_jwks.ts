/**
 * Internal: the key sets the auth clients of a process share. An app that makes a client per
 * request (a server rendering with the browser's cookies, an edge function) made a key-set
 * resolver per request too, and so fetched the key set before every local verification; auth-js
 * keeps one key set per project for the whole process.
 *
 * What is shared is the fetched set itself (its JSON text and fetch time), through the resolver's
 * `JwksCache` hook, not a resolver: a resolver shares its fetch under way with its callers, and in
 * Cloudflare Workers a fetch belongs to the request that started it, which cancels it when it
 * ends, so the requests that had joined it waited for nothing (found in workerd by a review).
 * Each client's resolver makes its own fetches and imports its own key.
 *
 * @module
 */

import type { BaseClient } from "../core/client.ts";
import type { JwksCache, JwksCacheEntry } from "./jwks.ts";

/** The key-set caches by `fetch`: clients with a `fetch` each (as tests make them) share none. */
const shared: WeakMap<typeof fetch, JwksCache> = /* @__PURE__ */ new WeakMap();

/** The key sets kept per `fetch` (one per project); past it the least recently stored goes. */
const MAX_SETS = 16;

/**
 * The in-memory key-set cache shared by the auth clients that send through `client`'s `fetch`
 * (the runtime's own, or one function an app passes to each client), by JWKS URL. It holds only
 * the set's text and fetch time: plain data, which any request may read.
 *
 * @param client The base client of an auth client made without `jwks` options.
 * @returns The cache.
 */
export function sharedJwksCache(client: BaseClient): JwksCache {
  const fetch = client.fetch;
  let cache = shared.get(fetch);
  if (cache === undefined) {
    const sets = new Map<string, JwksCacheEntry>();
    cache = {
      get: (url) => sets.get(url),
      set: (url, entry) => {
        sets.delete(url);
        if (sets.size >= MAX_SETS) sets.delete(sets.keys().next().value!);
        sets.set(url, { jwks: entry.jwks, fetchedAt: entry.fetchedAt });
      },
    };
    shared.set(fetch, cache);
  }
  return cache;
}
