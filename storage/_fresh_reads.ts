/**
 * Internal: object downloads that are never answered from an HTTP cache without asking the server.
 *
 * The Storage API serves an object with the `Cache-Control` it was uploaded with (`max-age=3600`
 * for storage-js's default, or an upload's `cacheControl`). A browser keeps that answer in its
 * HTTP cache, even for a request with an `Authorization` header, and answers the next fetch of the
 * same URL from it: a download after an `update` returned the old bytes for as long as the
 * `max-age` ran, in Chromium, Firefox and WebKit alike (server runtimes have no HTTP cache). A
 * download is a read of the object as it is now, so its fetch is made with `cache: "no-cache"`:
 * a cached answer is revalidated first (with its `ETag`, a `304` costs no body), a changed object
 * is downloaded again.
 *
 * @module
 */

import type { BaseClient } from "../core/client.ts";
import type { TransportContext } from "../core/transport.ts";
import { withFetch } from "../core/_with_fetch.ts";
import { runsOnNode } from "./_chunk_body.ts";

/**
 * Whether this runtime takes `cache: "no-cache"` on a request: browsers, Deno, Node (which sends
 * it as `Cache-Control: max-age=0`, as browsers do when they revalidate) and Bun do; workerd
 * refuses the field before its 2024-11-11 compatibility date and the mode before 2025-08-07, and
 * would fail the fetch, so there none is given (from 2025-08-07 it takes it and sends
 * `Cache-Control: no-cache` and `Pragma: no-cache`: a Worker's fetch goes through Cloudflare's
 * cache).
 */
function takesNoCache(): boolean {
  try {
    return new Request("http://localhost/", { cache: "no-cache" }).cache === "no-cache";
  } catch {
    return false;
  }
}

/**
 * The transport context of `client` whose fetches revalidate any cached answer
 * (`cache: "no-cache"`), where the runtime takes it; else the client itself.
 * Node keeps no HTTP cache, and its fetch would only send the mode as
 * `Cache-Control: max-age=0`, which asks a CDN in front of the service to
 * revalidate at the origin for nothing: there none is given.
 *
 * @param client The base client.
 * @returns The context to send a download through.
 */
export function freshReads(client: BaseClient): TransportContext {
  if (runsOnNode() || !takesNoCache()) return client;
  return withFetch(
    client,
    (input, init) => (0, client.fetch)(input, Object.assign(init ?? {}, { cache: "no-cache" })),
  );
}
