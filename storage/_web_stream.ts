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
 * @returns The stream; cancelling it closes the iterator (a Node stream is destroyed), even before
 * its first read. A stream neither read nor cancelled leaves `iterable` untouched.
 */
export function iterableStream(iterable: AsyncIterable<unknown>): ReadableStream<Uint8Array> {
  // Taken on the first read or the cancel, so that a stream left unsent is left untouched.
  let it: AsyncIterator<unknown> | undefined;
  const iterator = () => it ??= iterable[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(c) {
      const it = iterator();
      const next = await it.next();
      if (next.done) return c.close();
      if (!isUint8Array(next.value)) {
        const kind = Object.prototype.toString.call(next.value).slice(8, -1);
        c.error(new TypeError(`Cannot read the data as it yielded a ${kind}, not a Uint8Array`));
        await it.return?.();
        return;
      }
      c.enqueue(localBytes(next.value)!);
    },
    async cancel() {
      await iterator().return?.();
    },
  });
}
