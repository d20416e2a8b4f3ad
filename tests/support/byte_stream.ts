/** Options of {@linkcode byteStream}. */
export interface ByteStreamOptions {
  /** Counts the pulls that came with a view to fill. */
  byobPulls?: { count: number };
  /** From this byte on, pulls wait until the stream is cancelled (a stalled source). */
  stallAt?: number;
  /** A view that does not start its buffer errors the stream, as Node 20's file streams do. */
  startOnly?: boolean;
}

/**
 * A byte stream (`type: "bytes"`) of `data`, as file read streams and
 * request bodies are: a BYOB read gets at most `piece` bytes written into
 * the view it hands in; a default read gets a new piece of `piece` bytes.
 */
export function byteStream(
  data: Uint8Array,
  piece: number,
  options: ByteStreamOptions = {},
): ReadableStream<Uint8Array> {
  const stallAt = options.stallAt ?? Infinity;
  let at = 0;
  let wake = () => {};
  return new ReadableStream({
    type: "bytes",
    async pull(c) {
      if (at >= stallAt) await new Promise<void>((r) => (wake = r));
      const req = c.byobRequest;
      if (at >= data.length) {
        c.close();
        req?.respond(0);
        return;
      }
      if (!req?.view) {
        c.enqueue(data.slice(at, at + piece));
        at += piece;
        return;
      }
      if (options.startOnly && req.view.byteOffset !== 0) {
        throw new RangeError(
          `The value of "length" is out of range (view at ${req.view.byteOffset})`,
        );
      }
      if (options.byobPulls) options.byobPulls.count++;
      const n = Math.min(piece, req.view.byteLength, data.length - at, stallAt - at);
      new Uint8Array(req.view.buffer, req.view.byteOffset, n).set(data.subarray(at, at + n));
      at += n;
      req.respond(n);
    },
    cancel() {
      wake();
    },
  });
}
