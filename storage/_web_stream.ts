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
        c.error(notBytes(next.value));
        await it.return?.();
        return;
      }
      c.enqueue(localBytes(next.value)!);
    },
    async cancel() {
      // A Node stream is destroyed here (which closes its socket or file): its iterator's
      // `return()` runs only once a read still pending has settled, which a stalled body never
      // does, and an iterator never read from closes without running its `finally`, where a Node
      // stream's destroys it.
      (iterable as Partial<{ destroy(): void }>).destroy?.();
      await iterator().return?.();
    },
  }, { highWaterMark: 0 }); // no read before the first asked for (the default pulls one at once)
}

/** The error of a stream's piece that is not bytes. */
function notBytes(value: unknown): TypeError {
  const kind = Object.prototype.toString.call(value).slice(8, -1);
  return new TypeError(`Cannot read the data as it yielded a ${kind}, not a Uint8Array`);
}

/**
 * A plain upload's stream body whose source's failure (a read that rejects, a piece that is not
 * bytes) does not end it. workerd sends a JavaScript stream body that errors as if it had ended
 * there, and the server stores the part it got as the whole object: a Worker whose caller left
 * mid-upload answered Success and left a truncated object (with `upsert`, over a whole one). The
 * stream is left open instead, `failed` told, and `abort` called once the failing read is over
 * (within it, workerd destroys the promise it waits on), which tears the request down unfinished.
 * None is read before fetch asks.
 *
 * @param source The upload's data.
 * @param failed Told the source's failure.
 * @param abort Ends the request.
 * @returns The body to send.
 */
export function guardedStream(
  source: ReadableStream<unknown>,
  failed: (error: unknown) => void,
  abort: () => void,
): ReadableStream<Uint8Array> {
  // Taken on the first read: a runtime that makes no stream of JavaScript (workerd before
  // 2022-11-30) throws from the constructor, and the caller then sends `source` unlocked.
  let reader: ReadableStreamDefaultReader<unknown> | undefined;
  const read = () => reader ??= source.getReader();
  // Cancelled by fetch or the transport (a failure, a timeout): what the read gives then is not
  // the source's failure.
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    async pull(c) {
      let error: unknown;
      try {
        const { done, value } = await read().read();
        if (cancelled) return;
        if (done) return c.close();
        if (isUint8Array(value)) return c.enqueue(localBytes(value)!);
        error = notBytes(value);
        read().cancel(error).catch(() => {});
      } catch (thrown) {
        if (cancelled) return;
        error = thrown;
      }
      failed(error);
      setTimeout(abort);
      return new Promise<void>(() => {}); // open until the abort cancels it
    },
    cancel(reason) {
      cancelled = true;
      return read().cancel(reason);
    },
  }, { highWaterMark: 0 });
}
