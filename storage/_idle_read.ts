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
 * Reads `stream` to its end. `Failure(TIMEOUT)` once `idleMs` pass with no
 * byte (the stream is cancelled, which closes the connection),
 * `Failure(CANCELLED)` when `signal` has fired (the transport ties the body to
 * it), `Failure(NETWORK)` when the body fails otherwise. One timer serves the
 * whole read: when it fires before the pause has lasted `idleMs`, it is armed
 * again for what is left.
 *
 * @param stream The answer's body.
 * @param idleMs The longest pause between two pieces of the body, in ms.
 * @param signal The caller's signal.
 * @returns The bytes, or why they did not all come.
 */
export async function readIdle(
  stream: ReadableStream<Uint8Array>,
  idleMs: number,
  signal?: AbortSignal,
): Promise<ServiceResult<Uint8Array>> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let last = Date.now();
  let stalled = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (ms: number): void => {
    timer = setTimeout(() => {
      const quiet = Date.now() - last;
      if (quiet < idleMs) return arm(idleMs - quiet);
      stalled = true;
      reader.cancel(new DOMException("Timed out", "TimeoutError")).catch(() => {});
    }, ms);
  };
  if (idleMs > 0 && idleMs <= MAX_TIMER_MS) arm(idleMs);
  const stall = () =>
    failure({
      message: `Request timed out: the body sent no byte for ${idleMs} ms`,
      category: "TIMEOUT",
    });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (stalled) return stall();
      if (done) break;
      last = Date.now();
      chunks.push(value);
      size += value.length;
    }
  } catch (error) {
    if (stalled) return stall();
    if (signal?.aborted) return cancelled(error);
    return failure({
      message: "Network error while reading the body",
      category: "NETWORK",
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
  const one = chunks[0];
  // One piece that is its whole buffer is the body, with no copy (a view into more would expose
  // the rest), as a plain Uint8Array (a Node stream gives Buffers).
  if (chunks.length === 1 && one!.byteOffset === 0 && one!.byteLength === one!.buffer.byteLength) {
    return success(new Uint8Array(one!.buffer));
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return success(out);
}
