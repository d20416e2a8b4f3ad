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

import { type BaseClient, globalFetch } from "../core/client.ts";
import type { JwksCache, JwksCacheEntry } from "./jwks.ts";

/** The key sets by `fetch`, then by JWKS URL, API key and client-wide headers. */
const shared: WeakMap<typeof fetch, Map<string, JwksCacheEntry>> = /* @__PURE__ */ new WeakMap();

/** The key sets kept per `fetch` (one per project); past it the least recently stored goes. */
const MAX_SETS = 16;

/**
 * The in-memory key-set cache shared by the auth clients that send through `client`'s `fetch`
 * (the runtime's own, read as it is at each use, so a test that replaces `globalThis.fetch` starts
 * afresh; or one function an app passes to each client), for the same API key and client-wide
 * headers: a gateway may serve each tenant its own key set at one URL. It holds only the sets'
 * text and fetch time: plain data, which any request may read.
 *
 * @param client The base client of an auth client made without `jwks` options.
 * @returns The cache.
 */
export function sharedJwksCache(client: BaseClient): JwksCache {
  const own = client.fetch;
  const scope = JSON.stringify([client.apiKey, client.headers]);
  const sets = () => {
    const fetch = own === globalFetch ? globalThis.fetch : own;
    let byKey = shared.get(fetch);
    if (byKey === undefined) shared.set(fetch, byKey = new Map());
    return byKey;
  };
  return {
    get: (url) => sets().get(JSON.stringify([url, scope])),
    set: (url, entry) => {
      const byKey = sets();
      const key = JSON.stringify([url, scope]);
      byKey.delete(key);
      if (byKey.size >= MAX_SETS) byKey.delete(byKey.keys().next().value!);
      byKey.set(key, { jwks: entry.jwks, fetchedAt: entry.fetchedAt });
    },
  };
}
