/**
 * Async iterables of bytes as web streams: a Node stream (a file's read stream, an HTTP request's
 * body, the answer body of node-fetch) or an async generator, read one piece at a time through its
 * iterator, which is closed (`return`) when the stream is cancelled. Uploads take them as they take
 * a `ReadableStream`; downloads turn a Node stream a `fetch` answered with into a web one.
 *
 * @module
 */

import { isReadableStream, isUint8Array, localBytes } from "../core/_realm.ts";

/** Whether `value` is an async iterable that is no web stream (one is taken as a stream). */
export function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === "object" && value !== null && !isReadableStream(value) &&
    typeof (value as Partial<AsyncIterable<unknown>>)[Symbol.asyncIterator] === "function";
}

/**
 * A web stream of the pieces of `iterable`, each of which must be bytes (a `Uint8Array` of any
 * realm, a Node `Buffer` included): another value errors the stream with a `TypeError`, as a
 * string piece would otherwise be sent as its UTF-16 code units cut to bytes.
 *
 * @param iterable The pieces.
 * @param failed Told the error that ends the stream from its side: the iterable's own, or the
 * `TypeError` for a piece that is not bytes. A `fetch` sending the stream reports either as a
 * network error ("fetch failed", the reason only in its `cause`), so an upload asks this.
 * @returns The stream; cancelling it closes the iterator (a Node stream is destroyed), even before
 * its first read. A stream neither read nor cancelled leaves `iterable` untouched.
 */
export function iterableStream(
  iterable: AsyncIterable<unknown>,
  failed?: (error: unknown) => void,
): ReadableStream<Uint8Array> {
  // Taken on the first read or the cancel, so that a stream left unsent is left untouched.
  let it: AsyncIterator<unknown> | undefined;
  const iterator = () => it ??= iterable[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(c) {
      const it = iterator();
      let next: IteratorResult<unknown>;
      try {
        next = await it.next();
      } catch (error) {
        failed?.(error);
        throw error;
      }
      if (next.done) return c.close();
      if (!isUint8Array(next.value)) {
        const kind = Object.prototype.toString.call(next.value).slice(8, -1);
        const error = new TypeError(
          `Cannot read the data as it yielded a ${kind}, not a Uint8Array`,
        );
        failed?.(error);
        c.error(error);
        await it.return?.();
        return;
      }
      c.enqueue(localBytes(next.value)!);
    },
    async cancel() {
      // An iterator never read from closes without running its `finally`, which is where a Node
      // stream's destroys the stream (and closes a file): one never read is destroyed here.
      if (!it) (iterable as Partial<{ destroy(): void }>).destroy?.();
      await iterator().return?.();
    },
  }, { highWaterMark: 0 }); // no read before the first asked for (the default pulls one at once)
}
