/**
 * How a resumable-upload chunk goes on the wire. Kept apart from the upload
 * loop so the choice is a pure function.
 *
 * @module
 */

import type { RequestBody } from "../core/transport.ts";

/**
 * Whether chunks of bytes are sent as one-piece streams unless the caller
 * says otherwise: on Node only. Node's fetch copies every byte body before
 * sending it (a whole chunk of garbage per request, which is what made peak
 * memory depend on how long an upload ran) but sends a stream as it is, with
 * the `Content-Length` it is given. Node is the runtime without `navigator`
 * (before Node 21) or with a `Node.js/` user agent. Browsers accept stream
 * bodies only over HTTP/2, and Deno measured no gain while sending streams
 * chunked, so everywhere else bytes are sent as they are.
 *
 * @param userAgent `navigator.userAgent`, or undefined without `navigator`.
 * @returns True on Node.
 */
export function streamsChunksByDefault(userAgent: string | undefined): boolean {
  return userAgent === undefined || userAgent.startsWith("Node.js/");
}

/** The running runtime's `navigator.userAgent`, read at call time (never at import). */
export function currentUserAgent(): string | undefined {
  return (globalThis as { navigator?: { userAgent?: string | undefined } | undefined }).navigator
    ?.userAgent;
}

/**
 * Whether the running runtime is Node, read at call time: its user agent
 * says so (or it has no `navigator`) and its `Request` takes
 * `redirect: "error"`. workerd refuses that mode outright, and a Worker
 * whose compatibility date is before 2022-03-21 (or that sets
 * `no_global_navigator`) has no `navigator` either, so without the second
 * check it passed for Node and every resumable upload request failed.
 *
 * @returns True on Node.
 */
export function runsOnNode(): boolean {
  if (!streamsChunksByDefault(currentUserAgent())) return false;
  try {
    new Request("http://localhost/", { redirect: "error" });
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the running runtime sends a `ReadableStream` request body as a
 * stream, read at call time. Firefox (153 ESR) does not: it takes the
 * stream for some other value and sends its text, "[object ReadableStream]",
 * as a `text/plain` body, which a server stores without a word (and a
 * resumable upload's server accepts as 23 bytes of the chunk). Such a
 * runtime gives a request with a stream body that text's `Content-Type`;
 * Chromium, WebKit, Deno, Node, Bun and workerd give none (WebKit's fetch
 * then refuses the body: "ReadableStream uploading is not supported", a
 * `NETWORK` failure; Chromium's over HTTP/1.1 too). A runtime that cannot
 * build the probe (workerd before 2022-11-30 refuses the `ReadableStream`
 * constructor) is taken to send streams, as before the check.
 *
 * @returns False where a stream body would be sent as text.
 */
export function sendsStreamBodies(): boolean {
  try {
    return !new Request("http://localhost/", {
      method: "POST",
      body: new ReadableStream(),
      duplex: "half",
    } as RequestInit).headers.has("content-type");
  } catch {
    return true;
  }
}

/**
 * The request body for a chunk. Bytes become a stream holding that one piece
 * when `stream` is true, and `headers` gets their `Content-Length` (runtimes
 * that ignore it send the stream chunked). Empty bytes and a Blob slice are
 * sent as they are (the runtime streams a Blob).
 *
 * @param chunk The chunk.
 * @param stream Whether bytes go as a stream.
 * @param headers The request headers, completed in place.
 * @returns The body.
 */
export function chunkBody(
  chunk: Uint8Array | Blob,
  stream: boolean,
  headers: Record<string, string>,
): RequestBody {
  if (!stream || !(chunk instanceof Uint8Array) || chunk.length === 0) return chunk;
  headers["Content-Length"] = String(chunk.length);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(chunk);
      controller.close();
    },
  });
}
