/**
 * A byte stream (`type: "bytes"`) of `data`, as file read streams and
 * request bodies are: a BYOB read gets at most `piece` bytes written into
 * the view it hands in; a default read gets a new piece of `piece` bytes.
 * `byobPulls.count` counts the pulls that came with a view to fill.
 */
export function byteStream(
  data: Uint8Array,
  piece: number,
  byobPulls: { count: number } = { count: 0 },
): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    type: "bytes",
    pull(c) {
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
      byobPulls.count++;
      const n = Math.min(piece, req.view.byteLength, data.length - at);
      new Uint8Array(req.view.buffer, req.view.byteOffset, n).set(data.subarray(at, at + n));
      at += n;
      req.respond(n);
    },
  });
}
