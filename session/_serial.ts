/**
 * Storage calls run one after another, each after the one before it has
 * settled, or once that one has been running for {@linkcode STORAGE_WAIT_MS};
 * and a call that has not settled after that long rejects with a
 * `TimeoutError`: a storage call that never settles must freeze neither its
 * caller nor every later call.
 *
 * @module
 */

import { bounded } from "../core/_abort.ts";

/** How long a storage call waits for a predecessor that does not settle. */
export const STORAGE_WAIT_MS = 10_000;

/** A queue of storage calls (see the module's docs). */
export class SerialQueue {
  #last: Promise<unknown> = Promise.resolve();

  /**
   * Runs `op` after the calls queued before it.
   *
   * @param op The call.
   * @returns Its result.
   */
  run<T>(op: () => T | Promise<T>): Promise<T> {
    // Runs `op` at once (callers count on the call having started); rejects if it is late.
    const call = async () => {
      const r = await bounded(Promise.resolve(op()), STORAGE_WAIT_MS);
      if (r.kind === "done") return r.value;
      if (r.kind === "failed") throw r.error;
      throw new DOMException(
        `The session storage did not settle within ${STORAGE_WAIT_MS} ms`,
        "TimeoutError",
      );
    };
    // The call before ends (settled, or given up on by `call`) at most STORAGE_WAIT_MS after
    // it started: no bound of its own here, which started counting when this call was queued
    // and so let a clear start while a slow save before it was still writing.
    const run = this.#last.then(call, call);
    this.#last = run.then(() => {}, () => {});
    return run;
  }
}
