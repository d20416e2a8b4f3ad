/**
 * Internal: the key-set resolver the auth clients of one project share. An app that makes a
 * client per request (a server rendering with the browser's cookies, an edge function) made a
 * resolver per request too, and so fetched the key set and imported its key before every local
 * verification; auth-js keeps one key set per project for the whole process.
 *
 * @module
 */

import { type BaseClient, createBaseClient, globalFetch } from "../core/client.ts";
import { createJwksResolver, type JwksResolver } from "./jwks.ts";

/** Resolvers by `fetch`, then by project (URL, API key, client-wide headers). */
const shared: WeakMap<typeof fetch, Map<string, JwksResolver>> = /* @__PURE__ */ new WeakMap();

/** The projects kept per `fetch`; past it the oldest is dropped. */
const MAX_PROJECTS = 16;

/**
 * The resolver shared by the auth clients over `client`'s project: the same URL, API key and
 * client-wide headers, through the same `fetch` (the runtime's own, or one the app passes to
 * each client: clients with a `fetch` each, as tests make them, share nothing). It sends its
 * requests through a client of its own with those settings, so it keeps no client an app made,
 * nor the user token one carries.
 *
 * @param client The base client of an auth client made without JWKS options.
 * @returns The resolver.
 */
export function sharedJwksResolver(client: BaseClient): JwksResolver {
  const fetch = client.fetch;
  let projects = shared.get(fetch);
  if (projects === undefined) shared.set(fetch, projects = new Map());
  const key = JSON.stringify([client.url, client.apiKey, client.headers]);
  let resolver = projects.get(key);
  if (resolver === undefined) {
    if (projects.size >= MAX_PROJECTS) projects.delete(projects.keys().next().value!);
    resolver = createJwksResolver(
      createBaseClient(client.url, client.apiKey, {
        fetch: fetch === globalFetch ? undefined : fetch,
        headers: client.headers,
        timeout: client.timeout,
        retry: client.retry,
      }),
    );
    projects.set(key, resolver);
  }
  return resolver;
}
