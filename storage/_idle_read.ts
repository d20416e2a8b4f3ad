/**
 * Internal: reading a download's body whole under a limit on pauses, not on
 * its length, so that a large object on a slow link still arrives while a
 * server that stalls mid-body does not hold the call for ever.
 *
 * @module
 */

import { cancelled } from "../core/_abort.ts";
import { failure, type ServiceResult, success } from "../core/result.ts";

/** setTimeout's largest delay: a limit past it is as good as none. */
const MAX_TIMER_MS = 2_147_483_647;
/**
 * The largest announced length given a buffer up front; a larger one is read in pieces, so that
 * a `Content-Length` that lies (or a body too large for the runtime, a Worker's 128 MB) allocates
 * nothing before the bytes come.
 */
const MAX_PRESIZED = 1 << 24;

/**
 * Reads `stream` to its end. `Failure(TIMEOUT)` once `idleMs` pass with no
 * byte, `Failure(CANCELLED)` as soon as `signal` fires (a `fetch` that ignores
 * its signal leaves the body running: it is cancelled here), `Failure(DECODE)`
 * for a piece that is no bytes, `Failure(NETWORK)` when the body fails
 * otherwise (a locked or used one too); each ending
 * cancels the stream, which closes the connection. One timer serves the whole
 * read: when it fires before the pause has lasted `idleMs`, it is armed again
 * for what is left. With the body's announced `length`, the bytes go straight
 * into one buffer of that size, with no copy at the end.
 *
 * @param stream The answer's body.
 * @param idleMs The longest pause between two pieces of the body, in ms.
 * @param signal The caller's signal.
 * @param length The body's length from `Content-Length`, or null.
 * @returns The bytes, or why they did not all come.
 */
export async function readIdle(
  stream: ReadableStream<Uint8Array>,
  idleMs: number,
  signal?: AbortSignal,
  length: number | null = null,
): Promise<ServiceResult<Uint8Array>> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let ended: "stalled" | "aborted" | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let last = Date.now();
  const end = (why: "stalled" | "aborted") => {
    ended ??= why;
    reader?.cancel(new DOMException(why, why === "stalled" ? "TimeoutError" : "AbortError"))
      .catch(() => {});
  };
  const onAbort = () => end("aborted");
  const arm = (ms: number): void => {
    timer = setTimeout(() => {
      const quiet = Date.now() - last;
      if (quiet < idleMs) return arm(idleMs - quiet);
      end("stalled");
    }, ms);
  };
  const why = (): ServiceResult<Uint8Array> =>
    ended === "aborted" ? cancelled(signal?.reason) : failure({
      message: `Request timed out: the body sent no byte for ${idleMs} ms`,
      category: "TIMEOUT",
    });
  // One buffer of the announced size, or the pieces as they come (past it, or with no length).
  let out: Uint8Array | null = null;
  let at = 0;
  const pieces: Uint8Array[] = [];
  try {
    reader = stream.getReader();
    try {
      if (length !== null && length <= MAX_PRESIZED) out = new Uint8Array(length);
    } catch {
      // No memory for it here (a Worker's limit): the pieces as they come.
    }
    if (signal?.aborted) {
      end("aborted");
      return why();
    }
    signal?.addEventListener("abort", onAbort);
    if (idleMs > 0 && idleMs <= MAX_TIMER_MS) arm(idleMs);
    for (;;) {
      const { done, value: read } = await reader.read();
      if (ended) return why();
      if (done) break;
      last = Date.now();
      // Bytes as any view or an ArrayBuffer (a polyfill's); anything else is no body: DECODE,
      // the stream cancelled (asking again would get the same).
      const value = ArrayBuffer.isView(read)
        ? new Uint8Array(read.buffer, read.byteOffset, read.byteLength)
        : (read as unknown) instanceof ArrayBuffer
        ? new Uint8Array(read as unknown as ArrayBuffer)
        : null;
      if (value === null) {
        const error = new TypeError("The body gave a piece that is no bytes");
        reader.cancel(error).catch(() => {});
        return failure({ message: error.message, category: "DECODE", cause: error });
      }
      if (out !== null && at + value.length <= out.length) out.set(value, at);
      else {
        if (out !== null) pieces.push(out.subarray(0, at)), out = null;
        pieces.push(value);
      }
      at += value.length;
    }
  } catch (error) {
    if (ended) return why();
    reader?.cancel(error).catch(() => {});
    return failure({
      message: "Network error while reading the body",
      category: "NETWORK",
      cause: error,
    });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
  if (out !== null) return success(at === out.length ? out : out.slice(0, at));
  const one = pieces[0];
  // One piece that is its whole buffer is the body, with no copy (a view into more would expose
  // the rest), as a plain Uint8Array (a Node stream gives Buffers).
  if (pieces.length === 1 && one!.byteOffset === 0 && one!.byteLength === one!.buffer.byteLength) {
    return success(new Uint8Array(one!.buffer));
  }
  const whole = new Uint8Array(at);
  let to = 0;
  for (const piece of pieces) {
    whole.set(piece, to);
    to += piece.length;
  }
  return success(whole);
}
